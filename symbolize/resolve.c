/* resolve.c - from the raw function dictionary (fid → process address) to ATF
 * function ids (module_id << 32 | symbol_index).
 *
 * A module is an address range and a lifetime: each load (MODULE record)
 * holds its range until its UNLOAD record, after which another load may
 * hold the same addresses (dlclose, then a dlopen the loader puts there).
 * The runtime's fids are addresses, so one fid may name a function of each
 * load that held its address: those are its choices, in load order, and an
 * event takes the one whose load held the address at the event's tick.
 * Each load is a module of its own in the manifest (its own base address
 * and times); loads of one file share its function table.
 *
 * Every choice's address is looked up in its load's file symbols.
 * Addresses with no symbol get synthetic entries (named by the trace's
 * HOOKED records where it has one), which shift the dense indices, so all
 * of a table's addresses are known before any index is read and the
 * function_table_hash is taken from the final table. Modules are numbered
 * from 1 in load order, counting only those the trace points into.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "kept_symbols.h"

#define UNMAPPED UINT32_MAX

static bool holds(const struct raw_module *rm, uint64_t addr)
{
	return addr >= rm->m.bias + rm->m.vaddr_lo && addr < rm->m.bias + rm->m.vaddr_hi;
}

/* When load i of the process stops holding its range: its UNLOAD, else
 * (a trace from before UNLOAD records, a scan that missed it) when a later
 * load of the same addresses was seen, else never. */
static uint64_t load_end(const struct raw_process *p, size_t i, uint64_t addr)
{
	size_t j;

	if (p->modules[i].unloaded)
		return p->modules[i].unload_tsc;
	for (j = i + 1; j < p->nmodules; j++)
		if (holds(&p->modules[j], addr))
			return p->modules[j].m.load_tsc;
	return UINT64_MAX;
}

static uint16_t machine_of(uint8_t arch)
{
	return arch == ADA_ARCH_X86_64 ? EM_X86_64 : arch == ADA_ARCH_ARM64 ? EM_AARCH64 : EM_NONE;
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

static bool same_build(const struct raw_module *rm, const struct ada_symtab *st)
{
	return st->build_id_len == rm->m.build_id_len &&
	       !memcmp(st->build_id, rm->m.build_id, rm->m.build_id_len);
}

/* Whether the file at rm's path is the one that ran: its build-id, or for
 * a module without one, what stat says against its FILE record. */
static bool same_binary(const struct raw_module *rm, const struct ada_symtab *st)
{
	return rm->m.build_id_len ? same_build(rm, st) : ada_kept_file_unchanged(rm->path, &rm->file);
}

/* The file must be the one that ran: same build-id, same architecture. */
static int check_identity(const struct raw_process *p, const struct raw_module *rm,
			  const struct ada_symtab *st)
{
	char want[65], got[65];

	if (st->machine != machine_of(p->arch)) {
		fprintf(stderr, "ada-symbolize: %s: wrong architecture (ELF machine %u; the trace was recorded on arch %u)\n",
			rm->path, st->machine, p->arch);
		return -EINVAL;
	}
	if (rm->m.build_id_len && st->build_id_len && !same_build(rm, st)) {
		hex(want, rm->m.build_id, rm->m.build_id_len);
		hex(got, st->build_id, st->build_id_len);
		fprintf(stderr, "ada-symbolize: %s: the binary changed since the run (build-id %s, recorded %s)\n",
			rm->path, *got ? got : "none", want);
		return -ESTALE;
	}
	return 0;
}

/* The raw modules (loads) that ever held each fid's address, in load order,
 * into cp->fid_choices and *raw_of (p->nmodules for an address no load
 * held: one choice, the module of unmapped addresses). */
static int list_choices(struct conv_process *cp, uint32_t **raw_of)
{
	const struct raw_process *p = &cp->raw;
	size_t fid, i, n = 0;

	cp->fid_choices = calloc(p->nfids + 2, sizeof(*cp->fid_choices));
	if (!cp->fid_choices)
		return -ENOMEM;
	for (fid = 1; fid <= p->nfids; fid++) {
		size_t k = 0;

		for (i = 0; i < p->nmodules; i++)
			k += holds(&p->modules[i], p->fid_addr[fid]);
		cp->fid_choices[fid] = n;
		n += k ? k : 1;
	}
	cp->fid_choices[p->nfids + 1] = n;
	cp->choices = calloc(n ? n : 1, sizeof(*cp->choices));
	*raw_of = malloc((n ? n : 1) * sizeof(**raw_of));
	if (!cp->choices || !*raw_of)
		return -ENOMEM;
	for (fid = 1; fid <= p->nfids; fid++) {
		size_t c = cp->fid_choices[fid];

		for (i = 0; i < p->nmodules; i++)
			if (holds(&p->modules[i], p->fid_addr[fid])) {
				cp->choices[c].until_tsc = load_end(p, i, p->fid_addr[fid]);
				(*raw_of)[c++] = (uint32_t)i;
			}
		if (c == cp->fid_choices[fid]) {
			cp->choices[c].until_tsc = UINT64_MAX;
			(*raw_of)[c] = (uint32_t)p->nmodules;
		}
	}
	return 0;
}

/* An earlier load of the same file (same path, same build-id), whose
 * function table this one shares; NULL if none. */
static struct conv_module *same_file(struct conv_process *cp, const struct raw_module *rm)
{
	size_t i;

	for (i = 0; i < cp->nmodules; i++) {
		const struct raw_module *o = cp->modules[i].raw;

		if (o && cp->modules[i].owns_st && !strcmp(o->path, rm->path) &&
		    o->m.build_id_len == rm->m.build_id_len &&
		    !memcmp(o->m.build_id, rm->m.build_id, rm->m.build_id_len))
			return &cp->modules[i];
	}
	return NULL;
}

/* The symbols kept with the trace for a module whose file is gone or is
 * not the one that ran: one line says so, and that source lines are
 * missing only when the binary could have given them (the trace was never
 * converted while it was there): a binary built without -g had none. */
static int load_kept(struct conv_process *cp, struct conv_module *cm, const char *kept,
		     const char *why)
{
	bool completed = false;
	int err = kept ? ada_kept_load(kept, cm->raw->path, &cm->st, &cm->hooks, &completed) :
			 -ENOENT;

	if (err)
		return err;
	cm->owns_st = true;
	fprintf(stderr, "ada-symbolize: %s: %s; named from the symbols kept with the trace (%s)%s\n",
		cm->raw->path, why, kept,
		completed || ada_symtab_has_lines(cm->st) ? "" : ", without source lines");
	return check_identity(&cp->raw, cm->raw, cm->st);
}

/* The module's function table: its file's, loaded once per file; the
 * symbols kept with the trace when the file is gone or was rebuilt. */
static int load_table(struct conv_process *cp, struct conv_module *cm)
{
	struct conv_module *first = same_file(cp, cm->raw);
	const struct raw_module *rm = cm->raw;
	char *kept;
	int err;

	if (first) {
		cm->st = first->st;
		cm->hooks = first->hooks;
		cm->file_is_runs = first->file_is_runs;
		return 0;
	}
	kept = rm->m.build_id_len || rm->has_file ?
		       ada_kept_path(cp->raw.dir, rm->m.build_id, rm->m.build_id_len, rm->path,
				     &rm->file) : NULL;
	/* The vDSO has no file, ever: the symbols the recorder kept of it, said
	 * nothing of; without them, its addresses named by their offsets. */
	if (!strcmp(rm->path, ADA_VDSO_PATH)) {
		bool completed;

		if (!kept || ada_kept_load(kept, rm->path, &cm->st, &cm->hooks, &completed) ||
		    check_identity(&cp->raw, rm, cm->st)) {
			if (cm->st)
				ada_symtab_free(cm->st);
			cm->hooks = 0;
			if (!(cm->st = ada_symtab_empty(rm->path))) {
				free(kept);
				return -ENOMEM;
			}
		}
		cm->owns_st = true;
		goto out;
	}
	if (kept && access(rm->path, F_OK) != 0 &&
	    !load_kept(cp, cm, kept, "the binary is gone since the run"))
		goto out;
	/* Gone, and no symbols kept for it (a trace from before they were, or
	 * they were removed): one line naming the process and the file; the
	 * callers go on with the other processes. */
	if (access(rm->path, F_OK) && errno == ENOENT) {
		size_t n = strlen(cp->raw.dir);

		n -= n >= 4 && !strcmp(cp->raw.dir + n - 4, "/raw") ? 4 : 0;
		fprintf(stderr, "ada-symbolize: %.*s: skipped: %s no longer exists\n", (int)n,
			cp->raw.dir, rm->path);
		err = -ENOENT;
		goto fail;
	}
	err = ada_symtab_load(rm->path, &cm->st);
	if (err)
		goto fail;
	cm->owns_st = true;
	if (kept && !same_binary(rm, cm->st)) {
		ada_symtab_free(cm->st);
		cm->st = NULL;
		cm->owns_st = false;
		if (!load_kept(cp, cm, kept, rm->m.build_id_len ? "the binary changed since the run" :
					     "the binary changed since the run (it has no build-id: its size, modification time or inode differ)"))
			goto out;
		err = ada_symtab_load(rm->path, &cm->st);
		if (err)
			goto fail;
		cm->owns_st = true;
		if (!rm->m.build_id_len) { /* nothing proves it another build: used, said */
			fprintf(stderr, "ada-symbolize: %s: its size, modification time or inode differ from the run's and no symbols were kept for it (it has no build-id): named from the file as it is now\n",
				rm->path);
			free(kept); /* its symbols are not the run's to keep */
			kept = NULL;
		}
	}
	err = check_identity(&cp->raw, rm, cm->st);
	if (err)
		goto fail;
	cm->hooks = ada_elf_hooks(rm->path);
	cm->kept = kept; /* written once its lines are known (finalize_table) */
	cm->file_is_runs = kept || rm->m.build_id_len; /* else: named from the file as it is */
	return 0;
out:
	free(kept);
	return 0;
fail:
	free(kept);
	return err;
}

/* Assigns module_ids to the loads choices point into, loading their
 * symbols; raw_of[c] becomes choice c's index into cp->modules. */
static int place_modules(struct conv_process *cp, uint32_t *raw_of, size_t nchoices)
{
	const struct raw_process *p = &cp->raw;
	uint32_t *raw_to_conv = malloc((p->nmodules + 1) * sizeof(*raw_to_conv));
	size_t c, i;
	int err = -ENOMEM;

	cp->modules = calloc(p->nmodules + 1, sizeof(*cp->modules));
	if (!raw_to_conv || !cp->modules)
		goto out;
	for (i = 0; i <= p->nmodules; i++)
		raw_to_conv[i] = UNMAPPED;
	for (c = 0; c < nchoices; c++)
		raw_to_conv[raw_of[c]] = 0; /* used */
	for (i = 0; i <= p->nmodules; i++) {
		struct conv_module *cm;

		if (raw_to_conv[i] == UNMAPPED)
			continue;
		raw_to_conv[i] = (uint32_t)cp->nmodules;
		cm = &cp->modules[cp->nmodules++];
		if (i == p->nmodules) { /* addresses in no module: synthetic names only */
			cm->owns_st = true;
			if (!(cm->st = ada_symtab_empty("[unmapped]")))
				goto out;
			continue;
		}
		cm->raw = &p->modules[i];
		err = load_table(cp, cm);
		if (err)
			goto out;
	}
	for (c = 0; c < nchoices; c++)
		raw_of[c] = raw_to_conv[raw_of[c]];
	err = 0;
out:
	free(raw_to_conv);
	return err;
}

static uint64_t vaddr_of(const struct conv_module *cm, uint64_t addr)
{
	return cm->raw ? addr - cm->raw->m.bias : addr;
}

/* The fid whose choices hold choice c. */
static size_t fid_of_choice(const struct conv_process *cp, size_t c, size_t *fid)
{
	while (cp->fid_choices[*fid + 1] <= c)
		(*fid)++;
	return *fid;
}

/* Final indices of one function table (shared by the loads of one file),
 * source lines for the addresses the choices name in it. */
static int finalize_table(struct conv_process *cp, const uint32_t *mod_of, size_t nchoices,
			  struct conv_module *owner)
{
	const struct raw_process *p = &cp->raw;
	uint64_t *want = malloc((nchoices ? nchoices : 1) * sizeof(*want));
	size_t c, fid = 1, n = 0;
	int err;

	if (!want)
		return -ENOMEM;
	for (c = 0; c < nchoices; c++) {
		const struct conv_module *cm = &cp->modules[mod_of[c]];

		if (cm->st == owner->st)
			want[n++] = vaddr_of(cm, p->fid_addr[fid_of_choice(cp, c, &fid)]);
	}
	err = ada_symtab_finalize(owner->st, want, n);
	free(want);
	if (!err && owner->kept)
		ada_kept_save(owner->kept, owner->st, owner->hooks);
	if (!err)
		ada_symtab_hash(owner->st, owner->hash);
	return err;
}

int resolve_functions(struct conv_process *cp)
{
	const struct raw_process *p = &cp->raw;
	uint32_t *mod_of = NULL;
	size_t c, i, fid, nchoices;
	int err = list_choices(cp, &mod_of);

	if (err)
		goto out;
	nchoices = cp->fid_choices[p->nfids + 1];
	err = place_modules(cp, mod_of, nchoices);
	if (err)
		goto out;
	/* Pass 1: synthetic entries for addresses no symbol holds, and for
	 * library functions reached through hooked PLT/GOT slots that no
	 * symbol starts at (an IFUNC implementation of a stripped libc): those
	 * take the name the caller used, "strlen" rather than "libc.so.6+0x…". */
	for (c = 0, fid = 1; c < nchoices; c++) {
		struct conv_module *cm = &cp->modules[mod_of[c]];
		uint64_t addr = p->fid_addr[fid_of_choice(cp, c, &fid)];

		ada_symtab_add_synthetic(cm->st, vaddr_of(cm, addr), raw_process_hooked_name(p, addr));
	}
	/* Pass 2: final indices, once per table. */
	for (i = 0; i < cp->nmodules; i++)
		if (cp->modules[i].owns_st && (err = finalize_table(cp, mod_of, nchoices, &cp->modules[i])))
			goto out;
	for (i = 0; i < cp->nmodules; i++)
		if (!cp->modules[i].owns_st)
			memcpy(cp->modules[i].hash, same_file(cp, cp->modules[i].raw)->hash,
			       sizeof(cp->modules[i].hash));
	for (c = 0, fid = 1; c < nchoices; c++) {
		uint32_t m = mod_of[c];
		uint64_t addr = p->fid_addr[fid_of_choice(cp, c, &fid)];
		long idx = ada_symtab_lookup(cp->modules[m].st, vaddr_of(&cp->modules[m], addr));

		if (idx < 0) { /* finalize merged every synthetic address */
			err = -EINVAL;
			fprintf(stderr, "ada-symbolize: internal error: no entry for 0x%llx\n",
				(unsigned long long)addr);
			goto out;
		}
		cp->choices[c].func = (uint64_t)(m + 1) << 32 | (uint64_t)(idx + 1);
	}
	err = 0;
out:
	free(mod_of);
	return err;
}

size_t resolve_choice(const struct conv_process *cp, uint32_t fid, uint64_t tsc)
{
	size_t lo = cp->fid_choices[fid], hi = cp->fid_choices[fid + 1] - 1;

	/* The first choice whose load still held the address at tsc: loads of
	 * one address follow each other, so their ends increase. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp->choices[mid].until_tsc >= tsc)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

uint64_t resolve_call(struct conv_process *cp, uint32_t fid, uint64_t tsc)
{
	size_t c = resolve_choice(cp, fid, tsc);

	cp->choices[c].used = true;
	return cp->choices[c].func;
}

void resolve_free(struct conv_process *cp)
{
	size_t i;

	for (i = 0; i < cp->nmodules; i++) {
		if (cp->modules[i].owns_st)
			ada_symtab_free(cp->modules[i].st);
		free(cp->modules[i].kept);
	}
	free(cp->modules);
	free(cp->choices);
	free(cp->fid_choices);
	cp->modules = NULL;
	cp->nmodules = 0;
}
