/* symbols_keep.c - the writer keeps each recorded module's symbol table in
 * the output directory (format: kept_symbols.h), so that ada-symbolize can
 * name the trace after the binary is rebuilt or deleted.
 *
 * Modules are noted when recorded (modmap.c, any thread: one allocation)
 * and kept at the writer's next housekeeping or at the process's end: off
 * the program's threads. A build-id kept before (by this process, another
 * session, or ada-symbolize) costs one access(). A module without a build-id
 * is kept by its FILE record's identity, if the file still has it.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_file.h"
#include "kept_symbols.h"

struct noted {
	struct noted *next;
	uint8_t id[32];
	uint32_t len;              /* 0: known by file */
	struct ada_meta_file file;
	char path[];
};

static struct {
	pthread_mutex_t lock;
	struct noted *list;
} K = { .lock = PTHREAD_MUTEX_INITIALIZER };

void ada_symbols_note(const char *path, const struct ada_meta_module *m,
		      const struct ada_meta_file *file)
{
	struct noted *n;

	if ((!m->build_id_len && !file) || !(n = malloc(sizeof(*n) + strlen(path) + 1)))
		return;
	memcpy(n->id, m->build_id, sizeof(n->id));
	n->len = m->build_id_len;
	if (file)
		n->file = *file;
	strcpy(n->path, path);
	pthread_mutex_lock(&K.lock);
	n->next = K.list;
	K.list = n;
	pthread_mutex_unlock(&K.lock);
}

/* Whether the file e is the build that ran: its build-id note, or for a
 * module without one, the size, time and inode the FILE record says. */
static bool same_build(const struct ada_elf *e, const struct noted *n)
{
	const Elf64_Shdr *sh = ada_elf_section(e, SHT_NOTE, ".note.gnu.build-id");
	uint8_t id[32];

	if (!n->len)
		return ada_kept_file_unchanged(n->path, &n->file);
	return sh && sh->sh_offset + sh->sh_size <= e->size &&
	       ada_build_id_from_note(e->file + sh->sh_offset, sh->sh_size, id) == n->len &&
	       !memcmp(id, n->id, n->len);
}

static void write_symbol(const char *name, uint64_t addr, uint64_t size, int rank, void *arg)
{
	fprintf(arg, "%" PRIx64 " %" PRIx64 " %d %s\n", addr, size, rank, name);
}

static void keep(const struct noted *n)
{
	char dir[4200], path[4300], tmp[4400], name[65];
	const Elf64_Ehdr *eh;
	struct ada_elf e;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/%s", ada_rt.cfg.output, ADA_KEPT_DIR);
	snprintf(path, sizeof(path), "%s/%s.syms", dir,
		 ada_kept_name(name, n->id, n->len, n->path, &n->file));
	if (access(path, F_OK) == 0 || (mkdir(dir, 0755) < 0 && errno != EEXIST))
		return;
	if (ada_elf_open(n->path, 0, &e) < 0)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%u.tmp", path, (unsigned)getpid());
	eh = (const void *)e.file;
	if (same_build(&e, n) && (f = fopen(tmp, "we"))) {
		fprintf(f, "%s\nmachine %u\nlines 0\npath %s\n", ADA_KEPT_MAGIC, eh->e_machine, n->path);
		ada_elf_functions(&e, write_symbol, f);
		/* Whole or not at all: another process may be keeping it too. */
		if (fclose(f) == 0)
			rename(tmp, path);
		else
			unlink(tmp);
	}
	ada_elf_close(&e);
}

void ada_symbols_keep(void)
{
	struct noted *list;

	pthread_mutex_lock(&K.lock);
	list = K.list;
	K.list = NULL;
	pthread_mutex_unlock(&K.lock);
	while (list) {
		struct noted *next = list->next;

		keep(list);
		free(list);
		list = next;
	}
}
