/* test_atf_sink.c - files larger than the sink's ring of buffers come out
 * byte for byte as written synchronously (every event, the CRC over them),
 * and a write that fails half way is reported once and leaves no file. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "atf.h"
#include "atf_sink.h"

static char dir[] = "/tmp/ada_test_atf_sink_XXXXXX";
static char path[256];

/* Three times round the ring, and a partial buffer at the end. */
#define RING_EVENTS (ATF_SINK_NBUF * (ATF_SINK_BUF / ATF_INDEX_EVENT_SIZE))
#define N_EVENTS (3 * RING_EVENTS + 123)

static struct atf_event nth(uint32_t i)
{
	return (struct atf_event){ .timestamp_ns = 1000 + 3ull * i,
				   .function_id = (uint64_t)(i % 7 + 1) << 32 | (i % 1000 + 1),
				   .thread_id = 2, .kind = i % 2 ? ATF_RETURN : ATF_CALL,
				   .call_depth = 1 + i % 5, .detail_seq = ATF_NO_DETAIL };
}

static void test_index_three_times_round_the_ring_reads_back_every_event(void **state)
{
	struct atf_index_writer *w = atf_index_open(path, 2, ATF_ARCH_X86_64);
	struct atf_index_file f;
	struct atf_event ev, want;
	char err[256];

	(void)state;
	assert_non_null(w);
	for (uint32_t i = 0; i < N_EVENTS; i++) {
		ev = nth(i);
		assert_int_equal(atf_index_append(w, &ev), 0);
	}
	assert_int_equal(atf_index_close(w), 0);

	/* atf_index_map checks the footer's CRC against the events. */
	assert_int_equal(atf_index_map(path, &f, err, sizeof(err)), 0);
	assert_int_equal(f.event_count, N_EVENTS);
	assert_int_equal(f.time_start_ns, 1000);
	assert_int_equal(f.time_end_ns, 1000 + 3ull * (N_EVENTS - 1));
	for (uint32_t i = 0; i < N_EVENTS; i++) {
		atf_index_get(&f, i, &ev);
		want = nth(i);
		assert_int_equal(ev.timestamp_ns, want.timestamp_ns);
		assert_int_equal(ev.function_id, want.function_id);
		assert_int_equal(ev.kind, want.kind);
		assert_int_equal(ev.call_depth, want.call_depth);
	}
	atf_index_unmap(&f);
}

/* Detail events of every stack size, 0..512, across many buffers: each
 * comes back with its own registers and stack bytes. */
static void test_details_across_the_ring_keep_every_stack(void **state)
{
	enum { N = 20000 };
	struct atf_detail_writer *w = atf_detail_open(path, 4, ATF_ARCH_X86_64);
	uint8_t stack[ATF_DETAIL_MAX_STACK];
	struct atf_detail_file f;
	struct atf_detail d;
	char err[256];
	uint64_t off = 0;

	(void)state;
	assert_non_null(w);
	for (uint32_t i = 0; i < N; i++) {
		memset(&d, 0, sizeof(d));
		d.event_type = ATF_DETAIL_CALL;
		d.index_seq = 2 * i;
		d.timestamp_ns = 10 + i;
		d.function_id = 1ull << 32 | 1;
		d.regs[0] = i;
		d.regs[7] = ~(uint64_t)i;
		d.stack_size = (uint16_t)(i % 65 * 8);
		for (size_t k = 0; k < d.stack_size; k++)
			stack[k] = (uint8_t)(i + k);
		d.stack = stack;
		assert_int_equal(atf_detail_append(w, &d), 0);
	}
	assert_int_equal(atf_detail_close(w), 0);

	assert_int_equal(atf_detail_map(path, &f, err, sizeof(err)), 0);
	assert_int_equal(f.event_count, N);
	for (uint32_t i = 0; i < N; i++) {
		assert_true(atf_detail_next(&f, &off, &d));
		assert_int_equal(d.index_seq, 2 * i);
		assert_int_equal(d.regs[0], i);
		assert_int_equal(d.regs[7], ~(uint64_t)i);
		assert_int_equal(d.stack_size, i % 65 * 8);
		for (size_t k = 0; k < d.stack_size; k++)
			assert_int_equal(d.stack[k], (uint8_t)(i + k));
	}
	atf_detail_unmap(&f);
}

/* The file may grow to 1 MiB (RLIMIT_FSIZE): the flusher's write fails with
 * EFBIG half way. The writer sees the error at a later hand-over, close
 * returns it, the message is printed once, and no partial file is left. */
static void test_a_failed_write_is_reported_once_and_removes_the_file(void **state)
{
	char log[300];
	int status, fd;
	pid_t pid;

	(void)state;
	snprintf(log, sizeof(log), "%s/stderr", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 1 << 20, 1 << 20 };
		struct atf_index_writer *w;
		struct atf_event ev;
		int err = 0, cerr;
		uint32_t i;

		signal(SIGXFSZ, SIG_IGN);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0 || setrlimit(RLIMIT_FSIZE, &rl))
			_exit(10);
		if (!(w = atf_index_open(path, 1, ATF_ARCH_X86_64)))
			_exit(11);
		for (i = 0; i < N_EVENTS && !err; i++) {
			ev = nth(i);
			err = atf_index_append(w, &ev);
		}
		cerr = atf_index_close(w);
		/* Stopped within the ring's reach past the limit, not at the end. */
		if (err != -EFBIG || cerr != -EFBIG || i >= 2 * RING_EVENTS)
			_exit(12);
		_exit(access(path, F_OK) == 0 ? 13 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	FILE *f = fopen(log, "r");
	char line[512], want[512];
	int lines = 0;

	assert_non_null(f);
	snprintf(want, sizeof(want), "ada-symbolize: %s: %s\n", path, strerror(EFBIG));
	while (fgets(line, sizeof(line), f)) {
		assert_string_equal(line, want);
		lines++;
	}
	fclose(f);
	assert_int_equal(lines, 1);
	unlink(log);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/big.atf", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_three_times_round_the_ring_reads_back_every_event),
		cmocka_unit_test(test_details_across_the_ring_keep_every_stack),
		cmocka_unit_test(test_a_failed_write_is_reported_once_and_removes_the_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
