/* trace_fixture.h - builds small ATF trace directories for the validator and
 * view tests: a temporary output root with one session and one pid, thread
 * index files written from a one-line script, and hand-written manifests.
 *
 * Script: "+N" calls symbol N of module 1, "-" returns from the innermost
 * frame, "!" leaves it by EXCEPTION; depth and timestamps (10 ns apart) are
 * filled in, so a test states only the shape and then breaks what it tests.
 */
#ifndef ADA_TEST_TRACE_FIXTURE_H
#define ADA_TEST_TRACE_FIXTURE_H

#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "atf.h"

#define FX_PID 4242
#define FX_MAX_EVENTS 256

struct fixture {
	char root[64];
	char session[128];
	char pid_dir[192];
};

static void fx_init(struct fixture *fx)
{
	strcpy(fx->root, "/tmp/ada_test_trace_XXXXXX");
	assert_non_null(mkdtemp(fx->root));
	snprintf(fx->session, sizeof(fx->session), "%s/session_20240101_120000", fx->root);
	snprintf(fx->pid_dir, sizeof(fx->pid_dir), "%s/pid_%d", fx->session, FX_PID);
	assert_int_equal(mkdir(fx->session, 0755), 0);
	assert_int_equal(mkdir(fx->pid_dir, 0755), 0);
}

static int fx_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void fx_cleanup(struct fixture *fx)
{
	nftw(fx->root, fx_remove, 16, FTW_DEPTH | FTW_PHYS);
}

/* Expands a script (see above) into events of thread tid; returns the count. */
static size_t fx_events(const char *script, uint32_t tid, struct atf_event *ev)
{
	uint64_t open[64];
	size_t n = 0, depth = 0;

	for (const char *p = script; *p; p++) {
		struct atf_event *e = &ev[n];

		if (*p != '+' && *p != '-' && *p != '!')
			continue;
		assert_true(n < FX_MAX_EVENTS);
		*e = (struct atf_event){ .timestamp_ns = 1000 + 10 * n, .thread_id = tid,
					 .detail_seq = ATF_NO_DETAIL };
		if (*p == '+') {
			e->kind = ATF_CALL;
			e->function_id = 1ull << 32 | strtoul(p + 1, NULL, 10);
			open[depth++] = e->function_id;
			e->call_depth = (uint32_t)depth;
		} else {
			e->kind = *p == '-' ? ATF_RETURN : ATF_EXCEPTION;
			e->call_depth = (uint32_t)depth;
			e->function_id = open[--depth];
		}
		n++;
	}
	return n;
}

static void fx_thread_dir(const struct fixture *fx, uint32_t tid, char *out, size_t size)
{
	snprintf(out, size, "%s/thread_%u", fx->pid_dir, tid);
	mkdir(out, 0755);
}

static void fx_write_index(const struct fixture *fx, uint32_t tid, const struct atf_event *ev,
			   size_t n, bool has_detail)
{
	char dir[256], path[300];
	struct atf_index_writer *w;

	fx_thread_dir(fx, tid, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/index.atf", dir);
	w = atf_index_open(path, tid, ATF_ARCH_X86_64);
	assert_non_null(w);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(atf_index_append(w, &ev[i]), 0);
	atf_index_set_has_detail(w, has_detail);
	assert_int_equal(atf_index_close(w), 0);
}

/* Writes a thread from a script, unchanged. */
static void fx_thread(const struct fixture *fx, uint32_t tid, const char *script)
{
	struct atf_event ev[FX_MAX_EVENTS];

	fx_write_index(fx, tid, ev, fx_events(script, tid, ev), false);
}

static void fx_write(const struct fixture *fx, const char *name, const char *text)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fx->pid_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A manifest with the given "threads" entries and symbols 1..n of module 1
 * named names[0..n-1] (a name "a|b" gives name a and demangled b). */
static inline void fx_manifest(const struct fixture *fx, const char *threads, const char *const *names,
			size_t n)
{
	char text[8192], *p = text;

	p += sprintf(p, "{\"format_version\": \"2.1\", \"threads\": [%s],\n"
		     "\"time_start_ns\": 0, \"time_end_ns\": 1000000, \"clock_type\": 3,\n"
		     "\"modules\": [{\"module_id\": 1, \"path\": \"/bin/app\"}],\n"
		     "\"symbols\": [", threads);
	for (size_t i = 0; i < n; i++) {
		const char *bar = strchr(names[i], '|');

		p += sprintf(p, "%s{\"function_id\": \"0x00000001%08zx\", \"module_id\": 1, "
			     "\"symbol_index\": %zu, \"name\": \"%.*s\"", i ? ",\n" : "", i + 1, i + 1,
			     bar ? (int)(bar - names[i]) : (int)strlen(names[i]), names[i]);
		if (bar)
			p += sprintf(p, ", \"demangled\": \"%s\"", bar + 1);
		p += sprintf(p, "}");
	}
	sprintf(p, "]}\n");
	fx_write(fx, "manifest.json", text);
}

#define FX_THREAD0 "{\"id\": 0, \"os_tid\": 4242, \"has_detail\": false}"

#endif
