/* resolve.c - from the raw function dictionary (fid → process address) to ATF
 * function ids (module_id << 32 | symbol_index).
 *
 * Every address is placed in the module whose loaded range holds it (the one
 * loaded last, if a range was reused after dlclose) and looked up in that
 * file's symbols. Addresses with no symbol get synthetic entries (named by
 * the trace's HOOKED records where it has one), which shift the dense
 * indices, so all of a module's addresses are known before any index is read
 * and the function_table_hash is taken from the final table. Modules are
 * numbered from 1 in load order, counting only those the trace points into.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"

#define UNMAPPED UINT32_MAX

static uint32_t module_of(const struct raw_process *p, uint64_t addr)
{
	uint32_t best = UNMAPPED;
	size_t i;

	for (i = 0; i < p->nmodules; i++) {
		const struct ada_meta_module *m = &p->modules[i].m;

		if (addr >= m->bias + m->vaddr_lo && addr < m->bias + m->vaddr_hi &&
		    (best == UNMAPPED || m->load_tsc >= p->modules[best].m.load_tsc))
			best = (uint32_t)i;
	}
	return best;
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
	if (rm->m.build_id_len &&
	    (st->build_id_len != rm->m.build_id_len ||
	     memcmp(st->build_id, rm->m.build_id, rm->m.build_id_len))) {
		hex(want, rm->m.build_id, rm->m.build_id_len);
		hex(got, st->build_id, st->build_id_len);
		fprintf(stderr, "ada-symbolize: %s: the binary changed since the run (build-id %s, recorded %s)\n",
			rm->path, *got ? got : "none", want);
		return -ESTALE;
	}
	return 0;
}

/* Assigns module_ids to the modules fids point into, loading their symbols. */
static int place_modules(struct conv_process *cp, uint32_t *raw_to_conv)
{
	const struct raw_process *p = &cp->raw;
	size_t fid, i;

	for (i = 0; i <= p->nmodules; i++)
		raw_to_conv[i] = UNMAPPED;
	for (fid = 1; fid <= p->nfids; fid++) {
		uint32_t r = module_of(p, p->fid_addr[fid]);

		raw_to_conv[r == UNMAPPED ? p->nmodules : r] = 0; /* used */
	}
	cp->modules = calloc(p->nmodules + 1, sizeof(*cp->modules));
	if (!cp->modules)
		return -ENOMEM;
	for (i = 0; i <= p->nmodules; i++) {
		struct conv_module *cm;
		int err;

		if (raw_to_conv[i] == UNMAPPED)
			continue;
		raw_to_conv[i] = (uint32_t)cp->nmodules;
		cm = &cp->modules[cp->nmodules++];
		if (i == p->nmodules)
			continue; /* addresses in no module: synthetic names only */
		cm->raw = &p->modules[i];
		err = ada_symtab_load(cm->raw->path, &cm->st);
		if (err)
			return err;
		err = check_identity(p, cm->raw, cm->st);
		if (err)
			return err;
		cm->hooks = ada_elf_hooks(cm->raw->path);
	}
	return 0;
}

static uint64_t vaddr_of(const struct conv_module *cm, uint64_t addr)
{
	return cm->raw ? addr - cm->raw->m.bias : addr;
}

int resolve_functions(struct conv_process *cp)
{
	const struct raw_process *p = &cp->raw;
	uint32_t *raw_to_conv = malloc((p->nmodules + 1) * sizeof(*raw_to_conv));
	size_t fid, i;
	int err = -ENOMEM;

	cp->fid_func = calloc(p->nfids + 1, sizeof(*cp->fid_func));
	cp->fid_module = calloc(p->nfids + 1, sizeof(*cp->fid_module));
	if (!raw_to_conv || !cp->fid_func || !cp->fid_module)
		goto out;
	err = place_modules(cp, raw_to_conv);
	if (err)
		goto out;
	for (fid = 1; fid <= p->nfids; fid++) {
		uint32_t r = module_of(p, p->fid_addr[fid]);

		cp->fid_module[fid] = raw_to_conv[r == UNMAPPED ? p->nmodules : r];
	}
	/* Pass 1: synthetic entries for addresses no symbol holds, and for
	 * library functions reached through hooked PLT/GOT slots that no
	 * symbol starts at (an IFUNC implementation of a stripped libc): those
	 * take the name the caller used, "strlen" rather than "libc.so.6+0x…". */
	for (i = 0; i < cp->nmodules; i++) {
		struct conv_module *cm = &cp->modules[i];

		if (!cm->st && !(cm->st = ada_symtab_empty("[unmapped]"))) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (fid = 1; fid <= p->nfids; fid++) {
		struct conv_module *cm = &cp->modules[cp->fid_module[fid]];
		uint64_t va = vaddr_of(cm, p->fid_addr[fid]);

		ada_symtab_add_synthetic(cm->st, va, raw_process_hooked_name(p, p->fid_addr[fid]));
	}
	/* Pass 2: final indices, source lines for the functions that occur. */
	for (i = 0; i < cp->nmodules; i++) {
		struct conv_module *cm = &cp->modules[i];
		uint64_t *want = malloc((p->nfids + 1) * sizeof(*want));
		size_t n = 0;

		if (!want) {
			err = -ENOMEM;
			goto out;
		}
		for (fid = 1; fid <= p->nfids; fid++)
			if (cp->fid_module[fid] == i)
				want[n++] = vaddr_of(cm, p->fid_addr[fid]);
		err = ada_symtab_finalize(cm->st, want, n);
		free(want);
		if (err)
			goto out;
		ada_symtab_hash(cm->st, cm->hash);
	}
	for (fid = 1; fid <= p->nfids; fid++) {
		uint32_t m = cp->fid_module[fid];
		long idx = ada_symtab_lookup(cp->modules[m].st, vaddr_of(&cp->modules[m], p->fid_addr[fid]));

		if (idx < 0) { /* finalize merged every synthetic address */
			err = -EINVAL;
			fprintf(stderr, "ada-symbolize: internal error: no entry for 0x%llx\n",
				(unsigned long long)p->fid_addr[fid]);
			goto out;
		}
		cp->fid_func[fid] = (uint64_t)(m + 1) << 32 | (uint64_t)(idx + 1);
	}
	err = 0;
out:
	free(raw_to_conv);
	return err;
}

void resolve_free(struct conv_process *cp)
{
	size_t i;

	for (i = 0; i < cp->nmodules; i++)
		if (cp->modules[i].st)
			ada_symtab_free(cp->modules[i].st);
	free(cp->modules);
	free(cp->fid_func);
	free(cp->fid_module);
	cp->modules = NULL;
	cp->nmodules = 0;
}
