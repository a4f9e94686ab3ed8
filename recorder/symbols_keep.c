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
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
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
	/* The vDSO's build-id is in its one note section, ".note". */
	const Elf64_Shdr *sh = ada_elf_section(e, SHT_NOTE, e->in_memory ? NULL : ".note.gnu.build-id");
	uint8_t id[32];

	if (!n->len)
		return ada_kept_file_unchanged(n->path, &n->file);
	return sh && sh->sh_offset + sh->sh_size <= e->size &&
	       ada_build_id_from_note(e->file + sh->sh_offset, sh->sh_size, id) == n->len &&
	       !memcmp(id, n->id, n->len);
}

/* The file is written through a buffer of its own, not a stdio FILE: every
 * FILE is on libc's list, which the program's fflush(NULL), and the exit()
 * of a vfork child sharing this memory, flush into the descriptor of that
 * number in their own table (the program's stdout, once). */
struct out {
	int fd;
	bool failed;
	size_t n;
	char buf[16384];
};

static void out_flush(struct out *o)
{
	if (o->n && ada_write_all(o->fd, o->buf, o->n) < 0)
		o->failed = true;
	o->n = 0;
}

static void __attribute__((format(printf, 2, 3))) out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (sizeof(o->buf) - o->n < 8192)
		out_flush(o);
	va_start(ap, fmt);
	len = vsnprintf(o->buf + o->n, sizeof(o->buf) - o->n, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(o->buf) - o->n)
		o->failed = true; /* a name of 8 KiB: the file would be wrong */
	else
		o->n += (size_t)len;
}

static void write_symbol(const char *name, uint64_t addr, uint64_t size, int rank, void *arg)
{
	out_printf(arg, "%" PRIx64 " %" PRIx64 " %d %s\n", addr, size, rank, name);
}

static void keep(const struct noted *n)
{
	char dir[4200], path[4300], tmp[4400], name[65];
	const Elf64_Ehdr *eh;
	struct ada_elf e;
	struct out *o;

	snprintf(dir, sizeof(dir), "%s/%s", ada_rt.cfg.output, ADA_KEPT_DIR);
	snprintf(path, sizeof(path), "%s/%s.syms", dir,
		 ada_kept_name(name, n->id, n->len, n->path, &n->file));
	if (access(path, F_OK) == 0 || (mkdir(dir, 0755) < 0 && errno != EEXIST))
		return;
	if ((strcmp(n->path, ADA_VDSO_PATH) ? ada_elf_open(n->path, 0, &e) : ada_elf_vdso(&e)) < 0)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%u.tmp", path, (unsigned)getpid());
	eh = (const void *)e.file;
	if (same_build(&e, n) && (o = malloc(sizeof(*o)))) {
		o->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		o->failed = o->fd < 0;
		o->n = 0;
		if (o->fd >= 0) {
			out_printf(o, "%s\nmachine %u\nlines 0\npath %s\n", ADA_KEPT_MAGIC,
				   eh->e_machine, n->path);
			ada_elf_functions(&e, write_symbol, o);
			out_flush(o);
			/* Whole or not at all: another process may be keeping it too. */
			if (close(o->fd) < 0)
				o->failed = true;
			if (o->failed || rename(tmp, path) < 0)
				unlink(tmp);
		}
		free(o);
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
