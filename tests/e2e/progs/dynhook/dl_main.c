/* dl_main.c - dlopen, call, dlclose, twice: an instrumented library
 * (argv[1]) and an uninstrumented one (argv[2]).
 *
 * After the first round's dlclose, each library's address range is taken
 * by a PROT_NONE mapping, so the second round's dlopen must load it
 * elsewhere: the second load is a new module at a new address. Each round
 * prints the load addresses (the link maps' l_addr) on stderr:
 *   "round <r> inst 0x<addr> plain 0x<addr>"
 * (stdout must not change between a plain and a traced run; addresses do).
 * With a third argument "keep", nothing is closed: the second round's
 * dlopen finds both libraries loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

struct span {
	uintptr_t lo, len;
};

/* The address range of a loaded library, from its link map and the ELF
 * header the loader mapped at its base (a library's first PT_LOAD is at 0). */
__attribute__((noinline)) static struct span span_of(void *handle)
{
	struct link_map *lm = NULL;
	struct span s = { 0, 0 };
	const ElfW(Ehdr) *eh;
	const ElfW(Phdr) *ph;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
		return s;
	eh = (const ElfW(Ehdr) *)lm->l_addr;
	ph = (const ElfW(Phdr) *)(lm->l_addr + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr + ph[i].p_memsz > s.len)
			s.len = ph[i].p_vaddr + ph[i].p_memsz;
	s.lo = lm->l_addr;
	s.len = (s.len + 4095) & ~(uintptr_t)4095;
	return s;
}

__attribute__((noinline)) static int one_round(int r, const char *inst, const char *plain,
					      int keep)
{
	void *hi = dlopen(inst, RTLD_NOW | RTLD_LOCAL);
	void *hp = dlopen(plain, RTLD_NOW | RTLD_LOCAL);
	int (*twice)(int);
	size_t (*measure)(const char *);
	char *(*copy)(const char *);
	void (*release)(void *);
	struct span si, sp;
	char *c;
	int t;
	size_t m;

	if (!hi || !hp) {
		printf("round %d: dlopen failed\n", r);
		return 1;
	}
	twice = (int (*)(int))dlsym(hi, "inst_twice");
	measure = (size_t (*)(const char *))dlsym(hi, "inst_measure");
	copy = (char *(*)(const char *))dlsym(hp, "plain_copy");
	release = (void (*)(void *))dlsym(hp, "plain_release");
	if (!twice || !measure || !copy || !release) {
		printf("round %d: dlsym failed\n", r);
		return 1;
	}
	t = twice(21);
	m = measure("hello");
	c = copy("hello");
	printf("round %d: %d %zu %s\n", r, t, m, c ? c : "(null)");
	release(c);
	si = span_of(hi);
	sp = span_of(hp);
	fprintf(stderr, "round %d inst %#lx plain %#lx\n", r, (unsigned long)si.lo,
		(unsigned long)sp.lo);
	if (keep)
		return 0;
	dlclose(hi);
	dlclose(hp);
	/* Keep both ranges busy: the next dlopen cannot reuse them. */
	mmap((void *)si.lo, si.len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	mmap((void *)sp.lo, sp.len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int keep = argc == 4 && argv[3][0] == 'k';

	if (argc != 3 && !keep)
		return 2;
	if (one_round(1, argv[1], argv[2], keep) || one_round(2, argv[1], argv[2], keep))
		return 1;
	return 0;
}
