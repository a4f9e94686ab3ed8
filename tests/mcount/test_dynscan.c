/* test_dynscan.c - which GLOB_DAT slots a module's code calls through
 * (ada_dyn_find_calls): `call *rel32(%rip)` (ff 15) and `jmp *rel32(%rip)`
 * (ff 25) found at every offset of the text, at the edges of the
 * sixteen-byte blocks the scan reads, and up to the last opcode that has
 * room for its displacement; other bytes and other slots not. The result
 * kept per build-id (dyncache.c): read back by the next scan of that
 * build instead of its text, and not where the slots differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arch.h"
#include "ada_internal.h"
#include "../../mcount/dynscan.h"

/* What dyncache.c uses of the runtime: the output directory, the build-id
 * (this test's modules have a PT_NOTE whose bytes are the id itself), a
 * whole write. */
union ada_rt_area ada_rt_area;
uint32_t ada_build_id_of(const struct dl_phdr_info *info, uint8_t out[32])
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint32_t n = ph->p_memsz < 32 ? (uint32_t)ph->p_memsz : 32;

		if (ph->p_type == PT_NOTE) {
			memcpy(out, (const void *)(info->dlpi_addr + ph->p_vaddr), n);
			return n;
		}
	}
	return 0;
}
int ada_write_all(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len ? 0 : -1;
}

#define NSLOTS 4
#define TEXT 96

/* One fake module: four GOT slots of functions (GLOB_DAT), and text. */
static struct {
	uintptr_t got[NSLOTS];
	ElfW(Sym) sym[NSLOTS + 1];
	ElfW(Rela) rela[NSLOTS];
	uint8_t text[TEXT + 16];
	ElfW(Phdr) ph;
	struct dl_phdr_info info;
	struct ada_dyn_module m;
} F;

static void module_init(size_t text_len)
{
	memset(&F, 0, sizeof(F));
	memset(F.text, 0x90, sizeof(F.text)); /* nop */
	for (int i = 0; i < NSLOTS; i++) {
		F.sym[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		F.rela[i].r_offset = (uintptr_t)&F.got[i]; /* bias 0: absolute */
		F.rela[i].r_info = ELF64_R_INFO(i + 1, ADA_ARCH_R_GLOB_DAT);
	}
	F.m.symtab = F.sym;
	F.m.rela = F.rela;
	F.m.nrela = NSLOTS;
	F.ph.p_type = PT_LOAD;
	F.ph.p_flags = PF_R | PF_X;
	F.ph.p_vaddr = (uintptr_t)F.text;
	F.ph.p_filesz = text_len;
	F.info.dlpi_phdr = &F.ph;
	F.info.dlpi_phnum = 1;
}

/* An indirect call (op 0x15) or jump (0x25) at text[at] through slot. */
static void put_call(size_t at, uint8_t op, const void *slot)
{
	int32_t rel = (int32_t)((intptr_t)slot - (intptr_t)&F.text[at + 6]);

	F.text[at] = 0xff;
	F.text[at + 1] = op;
	memcpy(&F.text[at + 2], &rel, 4);
}

static void expect_called(const bool want[NSLOTS])
{
	assert_non_null(F.m.called);
	assert_int_equal(F.m.called_lo, (uintptr_t)&F.got[0]);
	assert_int_equal(F.m.called_hi, (uintptr_t)&F.got[NSLOTS]);
	for (int i = 0; i < NSLOTS; i++)
		assert_int_equal(F.m.called[i], want[i]);
}

/* A call at each offset from 0 to the last one that fits, alone in the
 * text: found wherever it sits against the scan's blocks. */
static void a_call_is_found_at_every_offset(void **state)
{
	(void)state;
	for (size_t len = 6; len <= TEXT; len += 13) {
		for (size_t at = 0; at + 6 <= len; at++) {
			bool want[NSLOTS] = { false };
			int slot = (int)(at % NSLOTS);

			module_init(len);
			put_call(at, at & 1 ? 0x25 : 0x15, &F.got[slot]);
			want[slot] = true;
			ada_dyn_find_calls(&F.info, &F.m, false);
			expect_called(want);
			ada_dyn_release(&F.m);
		}
	}
}

/* Bytes that look like a call but are not one of the module's function
 * slots (misaligned, outside the GOT, another opcode), and a call whose
 * displacement would run past the end of the segment: none is marked. */
static void near_misses_mark_nothing(void **state)
{
	bool none[NSLOTS] = { false };

	(void)state;
	module_init(TEXT);
	put_call(3, 0x15, (const uint8_t *)&F.got[1] + 4); /* mid-slot */
	put_call(17, 0x15, &F.got[NSLOTS]);                /* past the GOT */
	put_call(31, 0x35, &F.got[2]);                     /* push *rel32(%rip) */
	put_call(TEXT - 5, 0x15, &F.got[3]); /* its rel32 is outside the segment */
	ada_dyn_find_calls(&F.info, &F.m, false);
	expect_called(none);
	ada_dyn_release(&F.m);
}

/* Calls packed back to back across block edges, through every slot. */
static void adjacent_calls_are_all_found(void **state)
{
	bool all[NSLOTS] = { true, true, true, true };

	(void)state;
	module_init(TEXT);
	for (size_t at = 10, i = 0; i < NSLOTS; at += 6, i++)
		put_call(at, 0x15, &F.got[i]);
	ada_dyn_find_calls(&F.info, &F.m, false);
	expect_called(all);
	ada_dyn_release(&F.m);
}

/* A build's scan is kept and read back: a second scan of the same build,
 * whose text now says nothing, finds the first one's slots; a build whose
 * slots span another range does not take them. */
static void the_scan_is_kept_per_build(void **state)
{
	static const uint8_t id[8] = { 0xad, 0xa0, 0xca, 0x11, 1, 2, 3, 4 };
	bool want[NSLOTS] = { false, true, false, true }, none[NSLOTS] = { false };
	char dir[] = "/tmp/ada-dyncache-XXXXXX", path[128];
	ElfW(Phdr) ph[2];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(ada_rt.cfg.output, sizeof(ada_rt.cfg.output), "%s", dir);
	module_init(TEXT);
	ph[0] = F.ph;
	ph[1] = (ElfW(Phdr)){ .p_type = PT_NOTE, .p_vaddr = (uintptr_t)id, .p_memsz = sizeof(id) };
	F.info.dlpi_phdr = ph;
	F.info.dlpi_phnum = 2;
	put_call(5, 0x15, &F.got[1]);
	put_call(40, 0x25, &F.got[3]);
	ada_dyn_find_calls(&F.info, &F.m, true);
	expect_called(want);
	ada_dyn_release(&F.m);
	snprintf(path, sizeof(path), "%s/.ada-symbols/ada0ca1101020304.calls", dir);
	assert_int_equal(access(path, F_OK), 0);

	memset(F.text, 0x90, sizeof(F.text)); /* the same build: the file answers */
	ada_dyn_find_calls(&F.info, &F.m, true);
	expect_called(want);
	ada_dyn_release(&F.m);

	F.m.nrela = NSLOTS - 1; /* other slots: the file does not fit, the text is read */
	ada_dyn_find_calls(&F.info, &F.m, true);
	assert_int_equal(F.m.called_hi, (uintptr_t)&F.got[NSLOTS - 1]);
	for (int i = 0; i < NSLOTS - 1; i++)
		assert_int_equal(F.m.called[i], none[i]);
	ada_dyn_release(&F.m);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/.ada-symbols", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_call_is_found_at_every_offset),
		cmocka_unit_test(near_misses_mark_nothing),
		cmocka_unit_test(adjacent_calls_are_all_found),
		cmocka_unit_test(the_scan_is_kept_per_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
