/* test_dynscan.c - which GLOB_DAT slots a module's code calls through
 * (ada_dyn_find_calls): `call *rel32(%rip)` (ff 15) and `jmp *rel32(%rip)`
 * (ff 25) found at every offset of the text, at the edges of the
 * sixteen-byte blocks the scan reads, and up to the last opcode that has
 * room for its displacement; other bytes and other slots not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch.h"
#include "../../mcount/dynscan.h"

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
			ada_dyn_find_calls(&F.info, &F.m);
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
	ada_dyn_find_calls(&F.info, &F.m);
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
	ada_dyn_find_calls(&F.info, &F.m);
	expect_called(all);
	ada_dyn_release(&F.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_call_is_found_at_every_offset),
		cmocka_unit_test(near_misses_mark_nothing),
		cmocka_unit_test(adjacent_calls_are_all_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
