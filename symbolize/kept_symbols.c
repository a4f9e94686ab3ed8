/* kept_symbols.c - the symbols kept with a trace (format and why:
 * runtime/kept_symbols.h): read when a module's file is gone or was
 * rebuilt, written (with source lines) whenever a module is named from its
 * own file, so a later conversion has the lines too.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kept_symbols.h"
#include "symtab_priv.h"

char *ada_kept_path(const char *raw_dir, const uint8_t *id, uint32_t len, const char *path,
		    const struct ada_meta_file *file)
{
	char real[PATH_MAX], name[65], *out;
	int up = 3; /* raw/, pid_*, session_* */

	if (!realpath(raw_dir, real))
		snprintf(real, sizeof(real), "%s", raw_dir);
	while (up-- > 0) {
		char *slash = strrchr(real, '/');

		if (!slash || slash == real)
			break;
		*slash = '\0';
	}
	if (asprintf(&out, "%s/%s/%s.syms", real, ADA_KEPT_DIR,
		     ada_kept_name(name, id, len, path, file)) < 0)
		return NULL;
	return out;
}

/* One symbol line: "<addr> <size> <rank> <name>[\t<file>\t<line>]". */
static bool parse_line(char *line, struct raw_sym *rs, char **file, uint32_t *srcline)
{
	char *name, *tab;
	unsigned long long addr, size;
	int rank, pos = 0;

	if (sscanf(line, "%llx %llx %d %n", &addr, &size, &rank, &pos) < 3 || !pos || !line[pos])
		return false;
	name = line + pos;
	name[strcspn(name, "\n")] = '\0';
	*file = NULL;
	*srcline = 0;
	if ((tab = strchr(name, '\t'))) {
		*tab = '\0';
		*file = tab + 1;
		if ((tab = strchr(*file, '\t'))) {
			*tab = '\0';
			*srcline = (uint32_t)strtoul(tab + 1, NULL, 10);
		}
	}
	*rs = (struct raw_sym){ addr, size, name, strlen(name), rank };
	return *name != '\0';
}

/* Lines kept for the surviving functions: from the symbol line of the
 * same address and name. */
struct kept_line {
	uint64_t addr;
	char *name, *file;
	uint32_t line;
};

static int by_addr(const void *a, const void *b)
{
	const struct kept_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void lines_apply(struct ada_func *funcs, size_t n, const struct kept_line *kl, size_t nkl)
{
	for (size_t i = 0, j = 0; i < n; i++) {
		while (j < nkl && kl[j].addr < funcs[i].addr)
			j++;
		for (size_t k = j; k < nkl && kl[k].addr == funcs[i].addr; k++)
			if (!strcmp(kl[k].name, funcs[i].name) && kl[k].file && !funcs[i].file) {
				funcs[i].file = strdup(kl[k].file);
				funcs[i].line = kl[k].line;
			}
	}
}

/* ada_kept_load; *ours (if not NULL): the file was written here, one
 * symbol a function and a hooks line (the runtime lists every alias). */
static int kept_read(const char *file, const char *module_path, struct ada_symtab **out,
		     unsigned *hooks, bool *ours)
{
	FILE *f = fopen(file, "re");
	struct raw_sym *syms = NULL;
	struct kept_line *kl = NULL;
	struct ada_func *funcs = NULL;
	size_t n = 0, cap = 0, nfuncs = 0, nkl = 0;
	char *line = NULL;
	size_t linecap = 0;
	unsigned machine = 0;
	int err = 0;

	*out = NULL;
	*hooks = 0;
	if (ours)
		*ours = false;
	if (!f)
		return -errno;
	if (getline(&line, &linecap, f) < 0 || strncmp(line, ADA_KEPT_MAGIC "\n", strlen(ADA_KEPT_MAGIC) + 1)) {
		fprintf(stderr, "ada-symbolize: %s: not a kept symbols file (expected \"%s\")\n", file,
			ADA_KEPT_MAGIC);
		err = -EINVAL;
	}
	while (!err && getline(&line, &linecap, f) > 0) {
		struct raw_sym rs;
		char *src;
		uint32_t srcline;

		if (sscanf(line, "hooks %u", hooks) == 1) {
			if (ours)
				*ours = true;
			continue;
		}
		if (sscanf(line, "machine %u", &machine) == 1 || !strncmp(line, "lines ", 6) ||
		    !strncmp(line, "path ", 5))
			continue;
		if (!parse_line(line, &rs, &src, &srcline))
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			void *a = realloc(syms, ncap * sizeof(*syms)), *b = realloc(kl, ncap * sizeof(*kl));

			if (a)
				syms = a;
			if (b)
				kl = b;
			if (!a || !b) {
				err = -ENOMEM;
				break;
			}
			cap = ncap;
		}
		/* The text is reused by getline: the names are copied. */
		kl[n] = (struct kept_line){ rs.addr, strdup(rs.name), src ? strdup(src) : NULL, srcline };
		rs.name = kl[n].name;
		syms[n++] = rs;
		if (!kl[n - 1].name) {
			err = -ENOMEM;
			break;
		}
	}
	fclose(f);
	free(line);
	if (!err)
		err = ada_funcs_from_syms(syms, n, &funcs, &nfuncs);
	if (!err) {
		nkl = n;
		qsort(kl, nkl, sizeof(*kl), by_addr);
		lines_apply(funcs, nfuncs, kl, nkl);
		err = ada_symtab_of_funcs(module_path, funcs, nfuncs, out);
	}
	if (!err)
		(*out)->machine = (uint16_t)machine;
	for (size_t i = 0; i < n; i++) {
		free(kl[i].name);
		free(kl[i].file);
	}
	free(kl);
	free(syms);
	return err;
}

int ada_kept_load(const char *file, const char *module_path, struct ada_symtab **out,
		  unsigned *hooks, bool *completed)
{
	return kept_read(file, module_path, out, hooks, completed);
}

void ada_kept_save(const char *file, struct ada_symtab *st, unsigned hooks)
{
	struct ada_symtab *old = NULL;
	unsigned old_hooks;
	bool ours;
	char tmp[PATH_MAX + 32], dir[PATH_MAX];
	bool lines = false;
	FILE *f;

	/* Lines another trace of this build found: kept. Nothing new (the
	 * same lines and hooks, no aliases left to settle): not rewritten. */
	if (kept_read(file, st->path, &old, &old_hooks, &ours) == 0) {
		struct kept_line *kl = calloc(old->nfuncs ? old->nfuncs : 1, sizeof(*kl));
		size_t had = 0, have = 0;
		bool same;

		for (size_t i = 0; kl && i < old->nfuncs; i++) {
			kl[i] = (struct kept_line){ old->funcs[i].addr, old->funcs[i].name,
						    old->funcs[i].file, old->funcs[i].line };
			had += old->funcs[i].file != NULL;
		}
		if (kl)
			lines_apply(st->funcs, st->nfuncs, kl, old->nfuncs);
		for (size_t i = 0; i < st->nfuncs; i++)
			have += st->funcs[i].file != NULL;
		same = had == have && old_hooks == hooks && ours;
		free(kl);
		ada_symtab_free(old);
		if (same)
			return;
	}
	snprintf(dir, sizeof(dir), "%s", file);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	mkdir(dir, 0755);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", file, (int)getpid());
	if (!(f = fopen(tmp, "we")))
		return;
	for (size_t i = 0; i < st->nfuncs; i++)
		lines |= st->funcs[i].file != NULL;
	fprintf(f, "%s\nmachine %u\nhooks %u\nlines %d\npath %s\n", ADA_KEPT_MAGIC, st->machine, hooks,
		lines, st->path);
	for (size_t i = 0; i < st->nfuncs; i++) {
		const struct ada_func *fn = &st->funcs[i];

		if (fn->synthetic)
			continue;
		fprintf(f, "%" PRIx64 " %" PRIx64 " 0 %s", fn->addr, fn->size, fn->name);
		if (fn->file)
			fprintf(f, "\t%s\t%u", fn->file, fn->line);
		fputc('\n', f);
	}
	if (fclose(f) == 0)
		rename(tmp, file);
	else
		unlink(tmp);
}
