/* view_cli.c - `ada-symbolize VIEW [options] TRACE_DIR...`.
 *
 * The views are subcommands of ada-symbolize rather than a tool of their
 * own: they read what the conversion reads (the raw trace, the binaries'
 * symbols) with the same code, and a user who has `ada-symbolize` has them.
 * Filter options are uftrace's letters where uftrace has one.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_dir.h"
#include "view_cli.h"

/* The views, each with what it shows (the list in every usage) and the
 * options of its own (a mask of V_ bits below), for `VIEW --help`. */
enum { V_REPLAY = 1, V_REPORT = 2, V_GRAPH = 4, V_CHROME = 8, V_PERFETTO = 16, V_FLAME = 32,
       V_INFO = 64, V_DIFF = 128, V_LEAKS = 256, V_WAITS = 512 };

static const struct {
	const char *name;
	int (*run)(const struct view_args *a, FILE *out);
	const char *what;
	const char *usage;  /* after "usage: ada-symbolize " */
	const char *about;  /* VIEW --help's paragraph */
} views[] = {
	{ "replay", view_replay_main, "calls and returns with durations, per thread or --merge'd",
	  "replay [options] [TRACE_DIR...]",
	  "Every call and return of every thread, indented by depth, with its duration,\n"
	  "its arguments and its return value (fentry and mcount modes record the\n"
	  "registers), in uftrace's layout; threads one after the other, or --merge'd\n"
	  "in time order.\n" },
	{ "report", view_report_main, "per function: calls, total, self, average, min, max",
	  "report [options] [TRACE_DIR...]",
	  "Per function and per process (or --threads): total time, self time, calls,\n"
	  "average, min and max, sorted by --sort.\n" },
	{ "graph", view_graph_main, "graph [FUNCTION]: callers, callees, backtraces, call tree",
	  "graph [options] [FUNCTION] [TRACE_DIR...]",
	  "The functions that call FUNCTION (a name or glob) and those it calls, with\n"
	  "calls and total time each; the distinct stacks that called it\n"
	  "(backtraces); and the call tree below it, its calls merged and what they\n"
	  "called aggregated by calling context. Without FUNCTION (or when the first\n"
	  "word is a directory), the whole program's call tree.\n" },
	{ "chrome", view_chrome_main, "Trace Event Format JSON (Perfetto UI, chrome://tracing, speedscope)",
	  "chrome [options] [TRACE_DIR...]",
	  "The trace as Trace Event Format JSON: one complete event a call, a track a\n"
	  "thread, with arguments and return values unless --no-args. Opens in the\n"
	  "Perfetto UI, chrome://tracing and speedscope.\n" },
	{ "perfetto", view_perfetto_main, "Perfetto's protobuf trace, for traces too large for JSON (-o FILE)",
	  "perfetto [options] -o FILE [TRACE_DIR...]",
	  "The trace as Perfetto's protobuf format (smaller and faster to load than\n"
	  "JSON for large traces): a slice a call, a track a thread.\n" },
	{ "flame", view_flame_main, "folded stacks (flame graph input) or an SVG flame graph",
	  "flame [options] [TRACE_DIR...]",
	  "The call stacks folded, one line a stack with its self time (or --count:\n"
	  "its calls), the input of flamegraph.pl and speedscope; or with --format svg\n"
	  "a flame graph a browser opens.\n" },
	{ "info", view_info_main, "what was recorded: command, modes, threads, events, losses, size",
	  "info [options] [TRACE_DIR...]",
	  "Per process, from process.meta alone (no event is decoded): the command\n"
	  "line, when it started, how long it ran and how it ended, the modules\n"
	  "built with adacc and their modes, the recording's configuration, each\n"
	  "thread with its events, what was not kept and why, the counter samples,\n"
	  "the waits for the recorder, and the raw trace's size. Recorded with\n"
	  "ADA_ALLOC=1 or ADA_BLOCKING=1, the blocks allocated and freed, the waits\n"
	  "and releases, which only the thread files count. Of the filters, --pid\n"
	  "applies.\n" },
	{ "diff", view_diff_main, "diff A B: per function, what changed between two traces",
	  "diff [options] TRACE_A TRACE_B",
	  "Per function (by name, every process of a trace added up, through the\n"
	  "filters): total and self time and calls in A and in B, the change of the\n"
	  "total and the ratio B/A (\"new\", \"gone\" for a function of one trace only),\n"
	  "the largest change first.\n" },
	{ "leaks", view_leaks_main, "blocks still allocated at the end, by call path (ADA_ALLOC=1)",
	  "leaks [options] [TRACE_DIR...]",
	  "Per process, the blocks the malloc family allocated and nothing freed by\n"
	  "the end of the trace, grouped by the call path that allocated them (the\n"
	  "shown frames open then), the most bytes first. Needs a trace recorded with\n"
	  "ADA_ALLOC=1.\n" },
	{ "waits", view_waits_main, "where threads blocked, how long, who woke them (ADA_BLOCKING=1)",
	  "waits [options] [TRACE_DIR...]",
	  "Per process, the waits of the blocking calls (pthread_mutex_lock, condition\n"
	  "and semaphore waits, read, poll, epoll_wait) by op, object and the function\n"
	  "that waited: how many, the time blocked in all and at most, the most first;\n"
	  "under each, the threads and functions whose release (an unlock, a post)\n"
	  "ended them. --each lists every wait in time order instead. Needs a trace\n"
	  "recorded with ADA_BLOCKING=1.\n" },
};

/* The options beyond the filters: which views take each. */
static const struct {
	unsigned views;
	const char *text;
} view_options[] = {
	{ ~0u, "  --all                  every session of an output directory, not its latest\n" },
	{ ~0u, "  -o, --output FILE      write to FILE instead of standard output\n" },
	{ V_REPLAY, "  --merge                the threads of a process merged in time order\n" },
	{ V_REPLAY, "  --fold                 runs of identical leaf calls as \"name xN\"\n" },
	{ V_REPLAY, "  -f, --fields LIST      the columns before the bar: duration (default),\n"
		    "                         time (since the first event), delta (since the line\n"
		    "                         before), tid, module; +LIST adds to the default\n" },
	{ V_REPLAY, "  --srcline              a call's source file:line after it\n" },
	{ V_REPLAY | V_PERFETTO, "  --no-args              no arguments or return values\n" },
	{ V_REPLAY, "  --raw-args             the argument and return registers in hex, not the\n"
		    "                         parameters DWARF declares\n" },
	{ V_CHROME, "  --args                 each event's argument and return registers, source\n"
		    "                         file:line and module in its args (the Perfetto UI and\n"
		    "                         chrome://tracing show them; speedscope would take\n"
		    "                         each call for a function of its own)\n" },
	{ V_CHROME, "  --large                written even above what the viewers load (512 MB:\n"
		    "                         without it, such an export says what to do instead)\n" },
	{ V_REPORT, "  -s, --sort KEY[,KEY]   total (default), self, calls, avg, min, max,\n"
		    "                         alloc-bytes, alloc-count (ADA_ALLOC=1), cpu,\n"
		    "                         offcpu, faults, switches (ADA_COUNTERS), name;\n"
		    "                         ties by the next key, then by name\n" },
	{ V_REPORT, "  --threads              a table per thread\n" },
	{ V_WAITS, "  --each                 every wait in time order: when, which thread and\n"
		   "                         function, the op and object, the time blocked and\n"
		   "                         the release that ended it\n" },
	{ V_REPORT | V_GRAPH | V_DIFF | V_WAITS, "  --ns                   durations in integer nanoseconds\n" },
	{ ~0u & ~V_INFO, "  --full-names           names with their parameter lists\n" },
	{ V_FLAME, "  --count                weights are calls, not time (--weight calls)\n" },
	{ V_FLAME, "  --weight WEIGHT        time (default), calls, or with a trace recorded\n"
		   "                         with ADA_ALLOC=1 alloc-bytes or alloc-count: the\n"
		   "                         bytes or blocks the malloc family allocated; with\n"
		   "                         ADA_COUNTERS cpu, offcpu or faults: sampled CPU\n"
		   "                         time, wall minus it, page faults (code without\n"
		   "                         hooks as NAME [sampled] frames); with ADA_BLOCKING\n"
		   "                         blocked: the time waits took\n" },
	{ V_FLAME, "  --format FORMAT        folded (default) or svg\n" },
	{ V_DIFF, "  --format svg           a differential flame graph instead: B's widths,\n"
		  "                         red where a frame grew from A, blue where it shrank\n" },
	{ V_DIFF, "  --count                with --format svg: weights are calls, not time\n" },
};

static const char filters_text[] =
	"filters (every view; times since the process's first event, units ns us ms s):\n"
	"  -F, --filter GLOB      only calls to matching functions and what they call\n"
	"  -N, --notrace GLOB     leave out matching functions and what they call\n"
	"  -C, --caller-filter GLOB\n"
	"                         only the calls that lead to a matching function's,\n"
	"                         and those (not what they call)\n"
	"  -H, --hide GLOB        leave out matching functions, what they call shown\n"
	"                         in their place\n"
	"  -M, --module GLOB      only functions of matching modules (file basename)\n"
	"  -D, --depth N          at most N levels of calls shown\n"
	"  -t, --time-filter TIME only calls that lasted TIME or longer\n"
	"  -r, --time-range A~B   only calls that started in [A, B)\n"
	"  --tid LIST, --thread LIST, --pid LIST\n"
	"                         only these OS thread ids, ada thread numbers, pids\n"
	"  --all-frames           the C start-up's frames (__libc_start_main around main,\n"
	"                         __cxa_finalize) and the C++ runtime's internals too\n"
	"                         (hidden by default: a view starts at main)\n"
	"GLOBs are shell patterns (fnmatch: * ? [...]), not regular expressions; they\n"
	"match a function's name with or without its parameters.\n";

static const char dir_text[] =
	"TRACE_DIR is an output directory (its latest session), a session_<time> or a\n"
	"pid_<pid> directory; without one, $ADA_OUTPUT or ./ada-trace, where programs\n"
	"built with adacc write their traces. Views read the raw trace directly: no\n"
	"ATF is written.\n";

#define NVIEWS (sizeof(views) / sizeof(views[0]))

void view_cli_list(FILE *f)
{
	for (size_t i = 0; i < NVIEWS; i++)
		fprintf(f, "  %-9s %s\n", views[i].name, views[i].what);
}

void view_cli_names(FILE *f)
{
	for (size_t i = 0; i < NVIEWS; i++)
		fprintf(f, "%s%s", i ? (i + 1 == NVIEWS ? " and " : ", ") : "", views[i].name);
}

/* `ada-symbolize VIEW --help`, or the general views usage (view < 0). */
static void print_usage(FILE *f, int view)
{
	size_t i;

	if (view < 0) {
		fputs("usage: ada-symbolize VIEW [options] [TRACE_DIR...]\n\nVIEW is one of:\n", f);
		view_cli_list(f);
		fprintf(f, "\n%s\n%s(ada-symbolize VIEW --help: the options each view takes)\n",
			dir_text, filters_text);
		return;
	}
	fprintf(f, "usage: ada-symbolize %s\n\n%s\n%s\n%s", views[view].usage, views[view].about,
		dir_text, filters_text);
	fputs("\noptions:\n", f);
	for (i = 0; i < sizeof(view_options) / sizeof(view_options[0]); i++)
		if (view_options[i].views & 1u << view)
			fputs(view_options[i].text, f);
	fputs("  -h, --help             this text\n", f);
}

bool view_cli_is_view(const char *name)
{
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (!strcmp(views[i].name, name))
			return true;
	return false;
}

enum {
	O_TID = 256, O_THREAD, O_PID, O_MERGE, O_FOLD, O_NO_ARGS, O_ARGS, O_LARGE, O_SRCLINE, O_THREADS, O_NS, O_FULL,
	O_COUNT, O_FORMAT, O_ALL, O_ALL_FRAMES, O_RAW_ARGS, O_WEIGHT, O_EACH,
};

static const struct option longopts[] = {
	{ "filter", required_argument, NULL, 'F' },
	{ "notrace", required_argument, NULL, 'N' },
	{ "caller-filter", required_argument, NULL, 'C' },
	{ "hide", required_argument, NULL, 'H' },
	{ "module", required_argument, NULL, 'M' },
	{ "depth", required_argument, NULL, 'D' },
	{ "time-filter", required_argument, NULL, 't' },
	{ "time-range", required_argument, NULL, 'r' },
	{ "tid", required_argument, NULL, O_TID },
	{ "thread", required_argument, NULL, O_THREAD },
	{ "pid", required_argument, NULL, O_PID },
	{ "output", required_argument, NULL, 'o' },
	{ "merge", no_argument, NULL, O_MERGE },
	{ "fold", no_argument, NULL, O_FOLD },
	{ "no-args", no_argument, NULL, O_NO_ARGS },
	{ "raw-args", no_argument, NULL, O_RAW_ARGS },
	{ "args", no_argument, NULL, O_ARGS },
	{ "large", no_argument, NULL, O_LARGE },
	{ "fields", required_argument, NULL, 'f' },
	{ "srcline", no_argument, NULL, O_SRCLINE },
	{ "sort", required_argument, NULL, 's' },
	{ "threads", no_argument, NULL, O_THREADS },
	{ "ns", no_argument, NULL, O_NS },
	{ "full-names", no_argument, NULL, O_FULL },
	{ "count", no_argument, NULL, O_COUNT },
	{ "weight", required_argument, NULL, O_WEIGHT },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "all", no_argument, NULL, O_ALL },
	{ "all-frames", no_argument, NULL, O_ALL_FRAMES },
	{ "each", no_argument, NULL, O_EACH },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The long name of option c, for the filter parser's messages. */
static const char *long_name(int c)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

static int parse(int argc, char **argv, struct view_args *a, int view)
{
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "F:N:M:C:H:D:t:r:o:s:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'F': case 'N': case 'M': case 'C': case 'H': case 'D': case 't': case 'r':
		case O_TID: case O_THREAD: case O_PID:
			if (view_filter_add(&a->filter, long_name(c), optarg))
				return 2;
			break;
		case 'o': a->output = optarg; break;
		case O_MERGE: a->merge = true; break;
		case O_FOLD: a->fold = true; break;
		case O_NO_ARGS: a->no_args = true; break;
		case O_RAW_ARGS: a->raw_args = true; break;
		case O_ARGS: a->args = true; break;
		case O_LARGE: a->large = true; break;
		case 'f': a->fields = optarg; break;
		case O_SRCLINE: a->srcline = true; break;
		case 's': a->sort = optarg; break;
		case O_THREADS: a->per_thread = true; break;
		case O_NS: a->ns = true; break;
		case O_FULL: a->full_names = true; break;
		case O_COUNT: a->count = true; break;
		case O_WEIGHT: a->weight = optarg; break;
		case O_FORMAT: a->format = optarg; break;
		case O_ALL: a->all_sessions = true; break;
		case O_ALL_FRAMES: a->filter.all_frames = true; break;
		case O_EACH: a->each = true; break;
		case 'h': print_usage(stdout, view); return 0;
		default:
			fprintf(stderr, "(ada-symbolize %s --help: its options)\n", views[view].name);
			return 2;
		}
	}
	if (a->sort && !view_report_sort_key(a->sort)) {
		fprintf(stderr, "ada-symbolize: --sort %s: expected keys of total, self, calls, avg, min, max, alloc-bytes, alloc-count, cpu, offcpu, faults, switches, name, separated by commas\n",
			a->sort);
		return 2;
	}
	if (a->weight && view_flame_weight(a->weight) < 0) {
		fprintf(stderr, "ada-symbolize: --weight %s: expected time, calls, alloc-bytes, alloc-count, cpu, offcpu, faults or blocked\n",
			a->weight);
		return 2;
	}
	if (a->fields && !view_replay_fields_valid(a)) {
		fprintf(stderr, "ada-symbolize: --fields %s: expected duration, time, delta, tid or module, separated by commas (+ before them: added to the default)\n",
			a->fields);
		return 2;
	}
	if (a->format && view == 7 /* diff */ && strcmp(a->format, "svg")) {
		fprintf(stderr, "ada-symbolize: --format %s: diff takes svg (a differential flame graph), or none for its table\n",
			a->format);
		return 2;
	}
	if (a->format && strcmp(a->format, "folded") && strcmp(a->format, "svg")) {
		fprintf(stderr, "ada-symbolize: --format %s: expected folded or svg\n", a->format);
		return 2;
	}
	a->paths = argv + optind;
	a->npaths = argc - optind;
	return -1;
}

/* a->paths as ada_trace_choose reads each (an output root: its latest
 * session), into *chosen (NULL-terminated), which a->paths then points at. */
static int choose_paths(struct view_args *a, char ***chosen)
{
	size_t n = 0;

	*chosen = NULL;
	for (int k = 0; k < a->npaths; k++) {
		char **some, **all;
		int m = ada_trace_choose(a->paths[k], a->all_sessions, &some);

		if (m < 0)
			return m;
		if (!(all = realloc(*chosen, (n + (size_t)m + 1) * sizeof(*all)))) {
			ada_trace_free_paths(some);
			return -ENOMEM;
		}
		memcpy(all + n, some, (size_t)m * sizeof(*all));
		n += (size_t)m;
		all[n] = NULL;
		free(some); /* the strings are all's now */
		*chosen = all;
	}
	a->paths = *chosen;
	a->npaths = (int)n;
	return 0;
}

/* Whether path is a directory (a trace directory, given where a function
 * name was expected). */
static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether path is there and not a regular file (/dev/null, a pipe). */
static bool exists_special(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Where programs built with adacc write their traces when given no
 * directory: $ADA_OUTPUT, else ./ada-trace (runtime/config.c). */
static const char *default_dir(void)
{
	const char *out = getenv("ADA_OUTPUT");

	return out && *out ? out : "ada-trace";
}

int view_cli_main(int argc, char **argv)
{
	struct view_args a = { 0 };
	const char *name = argv[0];
	FILE *out = stdout;
	char **chosen = NULL;  /* the paths as ada_trace_choose reads them */
	char *fallback[] = { (char *)default_dir(), NULL };
	bool made_here = false;
	size_t i;
	int status, err = 0;

	for (i = 0; strcmp(views[i].name, name); i++)
		;
	if ((status = parse(argc, argv, &a, (int)i)) >= 0)
		goto done;
	status = 2;
	if (view_filter_track(&a.filter) < 0) {
		fprintf(stderr, "ada-symbolize %s: out of memory\n", name);
		goto done;
	}
	/* graph [FUNCTION] [TRACE_DIR...]: the first word is the function
	 * unless it is a directory (then the whole program's call tree). */
	if (!strcmp(name, "graph") && a.npaths && !is_dir(a.paths[0])) {
		a.function = a.paths[0];
		a.paths++;
		a.npaths--;
	}
	if (!strcmp(name, "diff")) {
		if (a.npaths != 2) {
			fprintf(stderr, "ada-symbolize diff: two trace directories expected (diff [options] "
				"TRACE_A TRACE_B), %d given\n", a.npaths);
			goto done;
		}
	} else if (!a.npaths) {
		if (!is_dir(fallback[0])) {
			fprintf(stderr, "ada-symbolize %s: no trace directory given, and %s%s does not "
				"exist (run a program built with adacc first, or name the directory)\n",
				name, fallback[0], getenv("ADA_OUTPUT") && *getenv("ADA_OUTPUT") ?
				" ($ADA_OUTPUT)" : "");
			goto done;
		}
		a.paths = fallback;
		a.npaths = 1;
	}
	/* diff reads each of its two traces on its own: not chosen here. */
	if (strcmp(name, "diff") && choose_paths(&a, &chosen) < 0)
		goto done;
	made_here = a.output && !exists_special(a.output);
	if (a.output && !(out = fopen(a.output, "w"))) {
		fprintf(stderr, "ada-symbolize %s: -o %s: cannot create: %s\n", name, a.output,
			strerror(errno));
		goto done;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	err = views[i].run(&a, out);
	if (fflush(out) || ferror(out)) {
		fprintf(stderr, "ada-symbolize %s: %s: write failed: %s\n", name,
			a.output ? a.output : "standard output", strerror(errno));
		err = err ? err : -EIO;
	}
	if (out != stdout)
		fclose(out);
	/* Too large for the viewers: nothing left behind (a file this run made:
	 * -o /dev/null or a pipe stays). */
	if (err == -EFBIG && a.output && made_here)
		unlink(a.output);
	status = err ? 1 : 0;
	if (!err && view_say_unmatched(&a.filter, name))
		status = 1;
done:
	ada_trace_free_paths(chosen);
	view_filter_free(&a.filter);
	return status;
}
