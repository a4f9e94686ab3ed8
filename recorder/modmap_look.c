/* modmap_look.c - the recorder's view of the program's modules.
 *
 * The recorder's copy of the module list (runtime/modmap.c) is the
 * program's at the recorder's fork. With the dynamic hooks the program
 * records every dlopen and dlclose, and the recorder follows its queued
 * records as it writes them; without them it looks at the program's maps
 * itself (proc_maps.c) every 10 ms, at the end, and when the program's
 * address space changed size. Either way the symbols of each module are
 * noted for keeping (symbols_keep.c).
 */
#include <stdlib.h>
#include <string.h>

#include "ada_internal.h"
#include "proc_state.h"

static bool image_known(uint64_t start, void *arg)
{
	(void)arg;
	return ada_modmap_mark_present(start);
}

/* A new image, or a mapping that is none (d NULL: not ELF, or its file
 * unreadable), remembered as such so as not to read its file again. */
static void image_found(uint64_t start, const char *path, const struct ada_meta_module *d,
			void *arg)
{
	struct ada_meta_module m;
	struct ada_meta_file file;

	(void)arg;
	if (!d) {
		ada_modmap_add_none(start, path);
		return;
	}
	m = *d;
	if (!ada_modmap_add_new(&m, path))
		return;
	m.load_tsc = ada_arch_ticks();
	ada_meta_write(ADA_META_MODULE, &m, sizeof(m), path, strlen(path) + 1);
	ada_symbols_note(path, &m, !m.build_id_len && ada_modmap_record_file(path, m.module_no, &file) ?
				   &file : NULL);
}

void ada_modmap_scan_program(void)
{
	static const struct ada_image_visitor v = { image_known, image_found, NULL };
	bool complete = ada_proc_images(ada_rt.pid, &v) == 0;

	ada_modmap_sweep(complete, ada_arch_ticks());
}

/* The program's queued records (MODULE, its FILE, UNLOAD), as the
 * recorder writes them: its list follows, and the symbols are noted. */
void ada_modmap_note_records(const uint8_t *buf, size_t len)
{
	const struct ada_meta_module *m = NULL;
	const char *path = NULL;
	size_t at = 0;

	while (len - at >= sizeof(struct ada_meta_rec)) {
		struct ada_meta_rec rec;
		const uint8_t *pl = buf + at + sizeof(rec);

		memcpy(&rec, buf + at, sizeof(rec));
		if (rec.size > len - at - sizeof(rec))
			break;
		if (m && rec.type != ADA_META_FILE) {
			ada_symbols_note(path, m, NULL);
			m = NULL;
		}
		if (rec.type == ADA_META_MODULE && rec.size > sizeof(*m) &&
		    memchr(pl + sizeof(*m), 0, rec.size - sizeof(*m))) {
			m = (const void *)pl;
			path = (const char *)pl + sizeof(*m);
			/* Start-up's modules are queued for a recorder after its
			 * fork copied the map that holds them already. */
			ada_modmap_add_recorded(m, path);
		} else if (rec.type == ADA_META_FILE && m && rec.size >= sizeof(struct ada_meta_file)) {
			ada_symbols_note(path, m, (const void *)pl);
			m = NULL;
		} else if (rec.type == ADA_META_UNLOAD && rec.size >= sizeof(struct ada_meta_unload)) {
			struct ada_meta_unload u;

			memcpy(&u, pl, sizeof(u));
			ada_modmap_drop(u.module_no);
		}
		at += sizeof(rec) + ((rec.size + 7) & ~(size_t)7);
	}
	if (m)
		ada_symbols_note(path, m, NULL);
}

void ada_modmap_look(void)
{
	if (!ada_rt.cfg.dynhook)
		ada_modmap_scan_program();
}

/* /proc/<pid>/statm's first figure, the program's size in pages: a read of
 * a few dozen bytes, where the maps are a few kilobytes and a walk. */
static unsigned long program_pages(void)
{
	char buf[128];

	ada_proc_read(ada_rt.pid, "statm", buf, sizeof(buf));
	return strtoul(buf, NULL, 10);
}

void ada_modmap_look_if_moved(void)
{
	static unsigned long pages;
	unsigned long now;

	if (ada_rt.cfg.dynhook)
		return;
	now = program_pages();
	if (now == pages)
		return;
	pages = now;
	ada_modmap_scan_program();
}
