/* atfstat.c - what a symbolized trace of a real program holds, counted
 * from the ATF files with the tests' own reader (tests/lib/atf_read.c),
 * not with ada-symbolize's code, so run.sh can compare it with facts it
 * knows independently.
 *
 *   atfstat PID_DIR
 *
 * PID_DIR is a pid_<pid> directory ada-symbolize wrote. Prints, one a line:
 *
 *   thread <N> events <n> calls <c> returns <r> exceptions <e> maxdepth <d>
 *   function <calls> <exceptions> <name>
 *       for every function called: its CALLs, how many of its frames were
 *       closed by an EXCEPTION, its name from manifest.json's "symbols" (an
 *       id with no entry there prints as 0x<id>)
 *   unwind <runs> <name>
 *       runs of consecutive EXCEPTION events (one longjmp or C++ unwinding
 *       each) whose first, innermost, frame is <name>'s; the run a thread's
 *       stream ends with (frames the exit left open) is not counted
 *
 * and checks each thread's stream on its own: every RETURN or EXCEPTION
 * closes the innermost open frame (same function id, same depth), a CALL's
 * depth is the number of open frames + 1, and nothing is open at the end.
 * A violation is printed ("unbalanced ...") and makes the exit status 1;
 * 2 when the files cannot be read.
 *
 * Built by run.sh: gcc -Itests atfstat.c tests/lib/atf_read.c tests/lib/proc.c
 */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atf_read.h"
#include "lib/proc.h"

/* A function id, how many CALLs name it and how many of its frames an
 * EXCEPTION closed; open addressing, id 0 = free (ATF never uses it). */
struct count {
	uint64_t id, calls, exceptions;
};

static struct count *table;
static size_t table_size; /* a power of two */
static size_t table_used;

struct symbol {
	uint64_t id;
	char *name;
};

/* Runs of consecutive EXCEPTION events (one unwinding: a longjmp, an
 * exception, the end of the process), by the function of the first frame
 * they close, the innermost: function id and count, few distinct ones. */
struct unwind {
	uint64_t id, runs;
};

static struct unwind unwinds[64];
static size_t nunwinds;

static struct symbol *symbols;
static size_t nsymbols;

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "atfstat: out of memory\n");
		exit(2);
	}
	return p;
}

static size_t slot_of(uint64_t id)
{
	size_t i = (size_t)(id * 0x9E3779B97F4A7C15ull) & (table_size - 1);

	while (table[i].id && table[i].id != id)
		i = (i + 1) & (table_size - 1);
	return i;
}

static struct count *counter(uint64_t id)
{
	size_t i;

	if (2 * (table_used + 1) > table_size) {
		struct count *old = table;
		size_t n = table_size;

		table_size = n ? 2 * n : 1024;
		table = xcalloc(table_size, sizeof(*table));
		for (size_t j = 0; j < n; j++)
			if (old[j].id)
				table[slot_of(old[j].id)] = old[j];
		free(old);
	}
	i = slot_of(id);
	if (!table[i].id) {
		table[i].id = id;
		table_used++;
	}
	return &table[i];
}

/* ---- manifest.json: the "symbols" array, one object a line -------------- */

/* The JSON string at p (after its opening quote), unescaped into a new
 * string. Names are C and C++ symbols: \" and \\ are the escapes to expect;
 * any other escaped character is kept as it is. */
static char *json_string(const char *p)
{
	char *s = xcalloc(strlen(p) + 1, 1), *d = s;

	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1])
			p++;
		*d++ = *p;
	}
	return s;
}

static int by_id(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int read_symbols(const char *pid_dir)
{
	char path[PATH_MAX];
	size_t len, cap = 0;
	char *text, *p;

	snprintf(path, sizeof(path), "%s/manifest.json", pid_dir);
	text = proc_read_file(path, &len);
	if (!text) {
		fprintf(stderr, "atfstat: cannot read %s\n", path);
		return -1;
	}
	p = strstr(text, "\"symbols\"");
	while (p && (p = strstr(p, "{\"function_id\": \"0x"))) {
		char *eol = strchr(p, '\n'), *name;

		if (eol)
			*eol = '\0';
		if (nsymbols == cap) {
			cap = cap ? 2 * cap : 4096;
			symbols = realloc(symbols, cap * sizeof(*symbols));
			if (!symbols)
				return -1;
		}
		symbols[nsymbols].id = strtoull(p + strlen("{\"function_id\": \""), NULL, 16);
		name = strstr(p, "\"name\": \"");
		symbols[nsymbols].name = name ? json_string(name + strlen("\"name\": \"")) : NULL;
		nsymbols++;
		p = eol ? eol + 1 : NULL;
	}
	free(text);
	qsort(symbols, nsymbols, sizeof(*symbols), by_id);
	return 0;
}

static const char *name_of(uint64_t id)
{
	static char hex[24];
	struct symbol key = { .id = id };
	struct symbol *s = bsearch(&key, symbols, nsymbols, sizeof(*symbols), by_id);

	if (s && s->name)
		return s->name;
	snprintf(hex, sizeof(hex), "0x%016" PRIx64, id);
	return hex;
}

/* ---- one thread's index.atf ------------------------------------------------ */

/* Counts the thread's events and checks that its frames nest. Returns the
 * number of violations found (only the first few are printed). */
/* The run of EXCEPTIONs starting at event i goes on to the end of the
 * stream: frames closed because the thread or process ended. */
static int closes_to_end(const struct atfr_index *f, uint32_t i)
{
	while (i < f->event_count && f->events[i].kind == ATFR_EXCEPTION)
		i++;
	return i == f->event_count;
}

static void count_unwind(uint64_t id)
{
	size_t i;

	for (i = 0; i < nunwinds && unwinds[i].id != id; i++)
		;
	if (i == nunwinds) {
		if (nunwinds == sizeof(unwinds) / sizeof(unwinds[0]))
			i = nunwinds - 1; /* the last slot pools the rest */
		else
			unwinds[nunwinds++].id = id;
	}
	unwinds[i].runs++;
}

static int thread_stat(const char *pid_dir, const char *entry)
{
	char path[PATH_MAX], err[512];
	struct atfr_index f;
	uint64_t kinds[4] = { 0 };
	uint64_t *stack, depth = 0, maxdepth = 0;
	uint32_t first_exception = 0;
	int bad = 0;

	snprintf(path, sizeof(path), "%s/%s/index.atf", pid_dir, entry);
	if (atfr_read_index(path, &f, err, sizeof(err)) != 0) {
		fprintf(stderr, "atfstat: %s\n", err);
		exit(2);
	}
	stack = xcalloc(f.event_count, sizeof(*stack));
	for (uint32_t i = 0; i < f.event_count; i++) {
		const struct atfr_event *e = &f.events[i];
		uint32_t k = e->kind;

		kinds[k < 4 ? k : 0]++;
		if (k == ATFR_CALL) {
			counter(e->function_id)->calls++;
			if (e->call_depth != depth + 1 && bad++ < 5)
				printf("unbalanced %s event %" PRIu32 ": CALL %s at depth %" PRIu32
				       ", %" PRIu64 " frames open\n",
				       entry, i, name_of(e->function_id), e->call_depth, depth);
			stack[depth++] = e->function_id;
			if (depth > maxdepth)
				maxdepth = depth;
		} else if (k == ATFR_RETURN || k == ATFR_EXCEPTION) {
			if (depth == 0) {
				if (bad++ < 5)
					printf("unbalanced %s event %" PRIu32 ": %s of %s with no frame open\n",
					       entry, i, k == ATFR_RETURN ? "RETURN" : "EXCEPTION",
					       name_of(e->function_id));
				continue;
			}
			depth--;
			if (k == ATFR_EXCEPTION) {
				counter(e->function_id)->exceptions++;
				if (i == 0 || f.events[i - 1].kind != ATFR_EXCEPTION)
					first_exception = i;
			}
			if (k == ATFR_EXCEPTION && first_exception == i && !closes_to_end(&f, i))
				count_unwind(e->function_id);
			if ((stack[depth] != e->function_id || e->call_depth != depth + 1) && bad++ < 5)
				printf("unbalanced %s event %" PRIu32 ": %s of %s at depth %" PRIu32
				       " closes %s at depth %" PRIu64 "\n",
				       entry, i, k == ATFR_RETURN ? "RETURN" : "EXCEPTION",
				       name_of(e->function_id), e->call_depth, name_of(stack[depth]),
				       depth + 1);
		} else if (bad++ < 5) {
			printf("unbalanced %s event %" PRIu32 ": kind %" PRIu32 "\n", entry, i, k);
		}
	}
	if (depth && bad++ < 5)
		printf("unbalanced %s: %" PRIu64 " frames open at the end, innermost %s\n", entry,
		       depth, name_of(stack[depth - 1]));
	printf("thread %" PRIu32 " events %" PRIu32 " calls %" PRIu64 " returns %" PRIu64
	       " exceptions %" PRIu64 " maxdepth %" PRIu64 "\n",
	       f.thread_id, f.event_count, kinds[ATFR_CALL], kinds[ATFR_RETURN],
	       kinds[ATFR_EXCEPTION], maxdepth);
	free(stack);
	atfr_index_free(&f);
	return bad;
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *de;
	int bad = 0, threads = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: atfstat PID_DIR\n");
		return 2;
	}
	if (read_symbols(argv[1]) != 0)
		return 2;
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 2;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "thread_", 7) != 0)
			continue;
		bad += thread_stat(argv[1], de->d_name);
		threads++;
	}
	closedir(d);
	if (!threads) {
		fprintf(stderr, "atfstat: no thread_* in %s\n", argv[1]);
		return 2;
	}
	for (size_t i = 0; i < table_size; i++)
		if (table[i].id)
			printf("function %" PRIu64 " %" PRIu64 " %s\n", table[i].calls,
			       table[i].exceptions, name_of(table[i].id));
	for (size_t i = 0; i < nunwinds; i++)
		printf("unwind %" PRIu64 " %s\n", unwinds[i].runs, name_of(unwinds[i].id));
	return bad ? 1 : 0;
}
