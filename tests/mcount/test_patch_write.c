/* test_patch_write.c - the bytes patchable mode writes at a site when a
 * recorder writes the program's code through its memory (mcount/
 * patch_write.c, remote): the 5-byte call first, then the entry a byte at a
 * time, in the order that leaves a whole instruction at the entry after
 * every write (90 90, 90 f9, 66 90, 66 f9 or eb f9: the kernel's copy may
 * split a 2-byte store, so no write may leave half of one). The "program"
 * is a memfd: addresses are offsets in it, and every pwrite the code makes
 * is logged by this file's own pwrite. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../mcount/patch_write.c"

/* patch.S's entries, which the remote path never calls. */
void ada_patch_entry(void) {}
void ada_patch_graph_entry(void) {}
void ada_patch_on_entry(void) {}
void ada_patch_off_entry(void) {}

#define SITE 0x2000u   /* a site: 5 NOPs, then the entry's 2 */
#define TARGET 0x3000u /* where its call goes (a stub) */
#define CODE_END 0x10000u

static struct {
	uintptr_t at[16];
	uint8_t bytes[16][8];
	size_t len[16];
	size_t n;
} log_;
static int mem = -1;

/* The code's writes: logged, then made. */
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (fd == mem && log_.n < 16 && n <= 8) {
		log_.at[log_.n] = (uintptr_t)off;
		memcpy(log_.bytes[log_.n], buf, n);
		log_.len[log_.n++] = n;
	}
	return syscall(SYS_pwrite64, fd, buf, n, off);
}

static void put(uintptr_t a, const uint8_t *b, size_t n)
{
	assert_int_equal(syscall(SYS_pwrite64, mem, b, n, (off_t)a), (long)n);
}

static void get(uintptr_t a, uint8_t *b, size_t n)
{
	assert_int_equal(pread(mem, b, n, (off_t)a), (ssize_t)n);
}

/* A module whose executable segment is [0, CODE_END). */
static ElfW(Phdr) text = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_memsz = CODE_END };
static struct dl_phdr_info module = { .dlpi_addr = 0, .dlpi_phdr = &text, .dlpi_phnum = 1 };

static int setup(void **state)
{
	(void)state;
	mem = memfd_create("code", MFD_CLOEXEC);
	assert_true(mem >= 0);
	assert_int_equal(ftruncate(mem, CODE_END + 4096), 0);
	put(SITE, nops, sizeof(nops)); /* patch_write.c's own: the compiler's */
	ada_patch_remote(mem);
	memset(&log_, 0, sizeof(log_));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ada_patch_remote(-1);
	close(mem);
	return 0;
}

/* Every state of the entry the log passes through, from `entry`, is one
 * instruction or two whole ones; the log's entry writes are one byte each. */
static void entry_stays_whole(const uint8_t start[2])
{
	uint8_t e[2] = { start[0], start[1] };

	for (size_t i = 0; i < log_.n; i++) {
		if (log_.at[i] == SITE)
			continue; /* the call, which nothing runs yet */
		assert_int_equal(log_.len[i], 1);
		assert_true(log_.at[i] == SITE + 5 || log_.at[i] == SITE + 6);
		e[log_.at[i] - SITE - 5] = log_.bytes[i][0];
		assert_true((e[0] == 0x90 && (e[1] == 0x90 || e[1] == 0xf9)) ||
			    (e[0] == 0x66 && (e[1] == 0x90 || e[1] == 0xf9)) ||
			    (e[0] == 0xeb && e[1] == 0xf9));
	}
}

static void expect_site(const uint8_t want[7])
{
	uint8_t b[7];

	get(SITE, b, sizeof(b));
	assert_memory_equal(b, want, sizeof(b));
}

/* The compiler's NOPs to our call and the jump: the call in one write,
 * then f9, then eb. */
static void a_fresh_site_gets_its_call_then_its_jump(void **state)
{
	static const uint8_t patched[7] = { 0xe8, 0xfb, 0x0f, 0x00, 0x00, 0xeb, 0xf9 };
	struct patch_window w = { &module, 0, 0 };
	uintptr_t to = 0;

	(void)state;
	assert_int_equal(ada_patch_site_read(SITE, &to), 0);
	assert_true(ada_patch_site((uint8_t *)(uintptr_t)SITE, TARGET, true, &w));
	ada_patch_window_close(&w);
	expect_site(patched);
	assert_int_equal(log_.n, 3);
	assert_int_equal(log_.at[0], SITE);
	assert_int_equal(log_.len[0], 5);
	assert_int_equal(log_.at[1], SITE + 6);
	assert_int_equal(log_.bytes[1][0], 0xf9);
	assert_int_equal(log_.at[2], SITE + 5);
	assert_int_equal(log_.bytes[2][0], 0xeb);
	entry_stays_whole((const uint8_t[]){ 0x90, 0x90 });
	assert_int_equal(ada_patch_site_read(SITE, &to), 2);
	assert_int_equal(to, TARGET);
}

/* Off and on again: 66 then 90 (through 66 f9), f9 then eb (through 66
 * f9); the call stays. Patching the site again with its own target writes
 * the entry only. */
static void the_entry_turns_nop_and_jump_a_byte_at_a_time(void **state)
{
	static const uint8_t nopped[7] = { 0xe8, 0xfb, 0x0f, 0x00, 0x00, 0x66, 0x90 };
	static const uint8_t jumps[7] = { 0xe8, 0xfb, 0x0f, 0x00, 0x00, 0xeb, 0xf9 };
	struct patch_window w = { &module, 0, 0 };
	uintptr_t to = 0;

	(void)state;
	assert_true(ada_patch_site((uint8_t *)(uintptr_t)SITE, TARGET, true, &w));
	memset(&log_, 0, sizeof(log_));
	ada_patch_entry_set((uint8_t *)(uintptr_t)SITE, false, &w);
	expect_site(nopped);
	assert_int_equal(log_.n, 2);
	assert_int_equal(log_.at[0], SITE + 5);
	assert_int_equal(log_.bytes[0][0], 0x66);
	entry_stays_whole((const uint8_t[]){ 0xeb, 0xf9 });
	assert_int_equal(ada_patch_site_read(SITE, &to), 1);

	memset(&log_, 0, sizeof(log_));
	ada_patch_entry_set((uint8_t *)(uintptr_t)SITE, true, &w);
	expect_site(jumps);
	assert_int_equal(log_.n, 2);
	assert_int_equal(log_.at[0], SITE + 6);
	entry_stays_whole((const uint8_t[]){ 0x66, 0x90 });

	ada_patch_entry_set((uint8_t *)(uintptr_t)SITE, false, &w);
	memset(&log_, 0, sizeof(log_));
	assert_true(ada_patch_site((uint8_t *)(uintptr_t)SITE, TARGET, true, &w));
	ada_patch_window_close(&w);
	expect_site(jumps);
	assert_int_equal(log_.n, 2);
	entry_stays_whole((const uint8_t[]){ 0x66, 0x90 });
}

/* Not ours to touch: a call somewhere else, code that is not the
 * compiler's NOPs, a site outside the executable segment, a call out of
 * reach. Nothing is written. */
static void what_is_not_ours_is_left_alone(void **state)
{
	static const uint8_t code[7] = { 0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0x90 };
	struct patch_window w = { &module, 0, 0 };

	(void)state;
	assert_true(ada_patch_site((uint8_t *)(uintptr_t)SITE, TARGET, true, &w));
	memset(&log_, 0, sizeof(log_));
	assert_false(ada_patch_site((uint8_t *)(uintptr_t)SITE, TARGET + 16, true, &w));
	put(SITE + 16, code, sizeof(code));
	assert_false(ada_patch_site((uint8_t *)(uintptr_t)(SITE + 16), TARGET, true, &w));
	put(CODE_END - 3, nops, sizeof(nops));
	assert_false(ada_patch_site((uint8_t *)(uintptr_t)(CODE_END - 3), TARGET, true, &w));
	assert_false(ada_patch_site((uint8_t *)(uintptr_t)SITE, (uintptr_t)1 << 40, true, &w));
	ada_patch_window_close(&w);
	assert_int_equal(log_.n, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(a_fresh_site_gets_its_call_then_its_jump),
		T(the_entry_turns_nop_and_jump_a_byte_at_a_time),
		T(what_is_not_ours_is_left_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
