/* main.c - ada-symbolize: raw trace → ATF v2, and the views over ATF.
 *
 * With no view option, every traced process under each PATH is converted,
 * but for those whose ATF is newer than their raw trace (--force converts
 * them again). A PATH holding several sessions stands for its latest
 * (--all: every one). With --check, --replay or --dump, processes that have
 * no ATF yet are converted first, then the views read the ATF.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "convert.h"
#include "path_len.h"
#include "trace_dir.h"
#include "view_cli.h"
#include "views.h"

static const char usage_views[] =
	"usage: ada-symbolize VIEW [options] [TRACE_DIR...]\n"
	"       ada-symbolize [options] TRACE_DIR...\n"
	"\n"
	"A view reads the raw trace as it is (TRACE_DIR: by default $ADA_OUTPUT or\n"
	"./ada-trace) and writes nothing else. VIEW is one of (ada-symbolize VIEW\n"
	"--help: what it shows and the options it takes):\n";

static const char usage[] =
	"\n"
	"With no VIEW, ada-symbolize converts the raw traces that programs built\n"
	"with adacc wrote into ATF v2: per process, manifest.json and\n"
	"thread_<N>/index.atf, next to the raw/ directory of each pid_<pid>. ATF\n"
	"takes about 32 bytes an event, the raw trace about 1: a 60 M-event run\n"
	"writes 1.9 GB of it. TRACE_DIR may be the output directory (its latest\n"
	"session_<time>, or --all), a session_<time> directory or a pid_<pid>\n"
	"directory. A process whose ATF is newer than its raw trace is left as it\n"
	"is.\n"
	"\n"
	"options:\n"
	"  --all              every session of an output directory, not its latest\n"
	"  --force            convert processes already converted again\n"
	"  -o, --output DIR   write the ATF under DIR/session_<time>/pid_<pid> instead\n"
	"  --check            validate the ATF (structure, CRC, balance, depths, links,\n"
	"                     manifest); exit 1 if anything violates the format\n"
	"  --replay           print the call tree of every thread, identical sibling\n"
	"                     subtrees collapsed as \"name xN\", frames left without a\n"
	"                     return marked \"(unwound)\", frames the thread's record\n"
	"                     ended in \"(open at exit)\", \"(open at exec)\",\n"
	"                     \"(open at crash)\" or \"(open when killed)\"\n"
	"  --dump             print every event, one line each: time since the first\n"
	"                     event (s), indentation by depth, then for a call\n"
	"                     \"name(rdi=0x.. rsi=.. rdx=.. rcx=.. r8=.. r9=..)\" (arm64\n"
	"                     x0..x7), for a return \"name = 0x<rax> (rdx=0x..)\" (arm64\n"
	"                     x0, x1), for a frame left without a return\n"
	"                     \"name (unwound)\" (or \"(open at exit)\"... as --replay).\n"
	"                     Registers are recorded in fentry and mcount modes; an\n"
	"                     event without them prints \"name()\" or \"name returns\"\n"
	"  --dump-stack       --dump, and after each event with registers its sp, fp,\n"
	"                     lr and stack window as hex, 16 bytes a line\n"
	"  --limit N          --dump shows at most N events per thread, and reads no\n"
	"                     further (needs --dump or --dump-stack)\n"
	"  -q, --quiet        no summary lines\n"
	"  -h, --help         this text\n"
	"  --version          ada-symbolize's version\n"
	"\n"
	"A conversion names functions from the binaries that ran (their GNU build-id\n"
	"is checked), or from the symbols kept with the trace (<output>/.ada-symbols)\n"
	"when a binary is gone or was rebuilt; a process with neither is skipped with\n"
	"one line naming it and the file, and the others converted.\n"
	"A raw trace cut short by a crash or kill converts up to its last complete\n"
	"record, plus what its threads' ring files still held (recovered once the\n"
	"process is gone). Frames a thread's record ended in (exit() called inside\n"
	"them, an exec, a crash, a kill) are closed at its last event, counted as\n"
	"open_at_end in the manifest; the summary mentions them after a crash or a\n"
	"kill only. Exit status: 0 success (processes skipped for a missing binary\n"
	"included, if another was converted or up to date), 1 an invalid trace, ATF\n"
	"violations, or nothing converted, 2 usage.\n";

static void print_usage(FILE *f)
{
	fputs(usage_views, f);
	view_cli_list(f);
	fputs(usage, f);
}

/* argv[1] is neither an option, a view nor a path that exists: a view's
 * name mistyped, or uftrace's (dump, tui): said before anything is
 * converted. */
static bool not_a_view(const char *word)
{
	struct stat st;

	if (*word == '-' || strchr(word, '/') || stat(word, &st) == 0)
		return false;
	fprintf(stderr, "ada-symbolize: %s: no such view, nor a trace directory (the views: ", word);
	view_cli_names(stderr);
	fputs(!strcmp(word, "dump") ? "; every event with its registers: ada-symbolize --dump TRACE_DIR)\n"
				    : "; ada-symbolize --help)\n", stderr);
	return true;
}

struct opts {
	const char *output;
	bool check, replay, dump, quiet;
	bool all;    /* --all: every session of an output root */
	bool force;  /* --force: convert processes whose ATF is up to date too */
	struct ada_dump_options dump_opts;
};

/* pid_dir = <root>/<session>/<pid>; with -o the ATF goes to <output>/<session>/<pid>. */
static void out_dir_for(const struct opts *o, const char *pid_dir, char *out, size_t len)
{
	char a[4096], b[4096];

	if (!o->output) {
		snprintf(out, len, "%s", pid_dir);
		return;
	}
	snprintf(a, sizeof(a), "%s", pid_dir);
	snprintf(b, sizeof(b), "%s", dirname(a)); /* the session */
	snprintf(a, sizeof(a), "%s", pid_dir);
	snprintf(out, len, "%.*s/%s/%s", ada_path_dir_len(o->output, strlen(o->output)), o->output,
		 basename(b), basename(a));
}

static bool exists(const char *dir, const char *name)
{
	char path[8400];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

/* A process that ended (killed) while ada's start-up was making its trace:
 * raw/ holds nothing but an empty process.meta, or not even that. Nothing
 * was recorded (no event comes before process.meta's first record). */
static bool never_began(const char *pid_dir)
{
	char raw[8400], meta[8500];
	struct dirent *e;
	struct stat st;
	bool empty = true;
	DIR *d;

	if (snprintf(raw, sizeof(raw), "%s/raw", pid_dir) >= (int)sizeof(raw) || !(d = opendir(raw)))
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
			!strcmp(e->d_name, "process.meta");
	closedir(d);
	snprintf(meta, sizeof(meta), "%s/process.meta", raw);
	return empty && (stat(meta, &st) < 0 ? errno == ENOENT : st.st_size == 0);
}

/* The newest modification time of the files in dir (0 if none). */
static struct timespec newest_in(const char *dir)
{
	struct timespec t = { 0, 0 };
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		struct stat st;

		if (fstatat(dirfd(d), de->d_name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		if (st.st_mtim.tv_sec > t.tv_sec ||
		    (st.st_mtim.tv_sec == t.tv_sec && st.st_mtim.tv_nsec > t.tv_nsec))
			t = st.st_mtim;
	}
	if (d)
		closedir(d);
	return t;
}

/* Converted already: a manifest.json written after every file of raw/ (a
 * process still running, or recovered since, is converted again). */
static bool up_to_date(const char *pid_dir, const char *out)
{
	char path[8448];
	struct timespec raw;
	struct stat st;

	snprintf(path, sizeof(path), "%s/manifest.json", out);
	if (stat(path, &st))
		return false;
	snprintf(path, sizeof(path), "%s/raw", pid_dir);
	raw = newest_in(path);
	return st.st_mtim.tv_sec > raw.tv_sec ||
	       (st.st_mtim.tv_sec == raw.tv_sec && st.st_mtim.tv_nsec >= raw.tv_nsec);
}

struct tally {
	size_t converted, current, skipped, failed;
};

/* Each process under path with a raw trace: converted, left as it is
 * (only_missing: it has ATF; otherwise: its ATF is up to date, unless
 * --force), skipped (a file it needs is gone: one line said so) or failed. */
static int convert_all(const struct opts *o, const char *path, bool only_missing, struct tally *t)
{
	struct conv_options co = { .quiet = o->quiet, .progress = isatty(STDERR_FILENO) };
	struct ada_trace_pid *pids;
	size_t n, i, seen = 0;
	int err = ada_trace_find_pids(path, &pids, &n);

	if (err)
		return err;
	for (i = 0; i < n; i++) {
		char out[8400];

		if (!exists(pids[i].dir, "raw"))
			continue; /* ATF only, or not ours */
		seen++;
		out_dir_for(o, pids[i].dir, out, sizeof(out));
		if (only_missing ? exists(out, "manifest.json") : !o->force && up_to_date(pids[i].dir, out)) {
			t->current++;
			continue;
		}
		if (never_began(pids[i].dir)) {
			fprintf(stderr, "ada-symbolize: %s: the process ended while its trace was being made "
				"(raw/ holds no record): nothing recorded, skipped\n", pids[i].dir);
			t->skipped++;
			continue;
		}
		if (!exists(pids[i].dir, "raw/process.meta")) {
			fprintf(stderr, "ada-symbolize: %s/raw/process.meta: missing; the raw trace cannot be read without it\n",
				pids[i].dir);
			t->failed++;
			continue;
		}
		err = convert_process(pids[i].dir, out, &co);
		if (err == -ENOENT)
			t->skipped++;
		else if (err < 0)
			t->failed++;
		else
			t->converted++;
	}
	ada_trace_free_pids(pids, n);
	if (!seen && !only_missing) {
		fprintf(stderr, "ada-symbolize: %s: no raw trace (no pid_<pid>/raw/process.meta)\n", path);
		return -ENOENT;
	}
	return 0;
}

static int run_views(const struct opts *o, const char *path)
{
	const char *atf = path, *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char where[8400];
	int violations = 0, err;

	/* With -o, the ATF of a session is DIR/session_<time>, of a pid
	 * directory DIR/session_<time>/pid_<pid>; of an output root, DIR. */
	if (o->output && !strncmp(base, "session_", 8))
		snprintf(where, sizeof(where), "%s/%s", o->output, base);
	else if (o->output && !strncmp(base, "pid_", 4))
		out_dir_for(o, path, where, sizeof(where));
	else if (o->output)
		snprintf(where, sizeof(where), "%s", o->output);
	if (o->output)
		atf = where;
	if (o->check) {
		err = ada_check_path(atf, stdout, &violations);
		if (err < 0)
			return err;
		if (violations)
			return -EINVAL;
	}
	if (o->replay && (err = ada_view_replay(atf, stdout)) < 0)
		return err;
	if (o->dump)
		return ada_view_dump(atf, &o->dump_opts, stdout);
	return 0;
}

/* Converts what path holds (only what has no ATF yet, quietly, for a
 * view: views read ATF), then runs the views. */
static int convert_path(const struct opts *o, const char *path, bool view, struct tally *t)
{
	struct opts co = *o;
	struct tally before = *t;

	co.quiet = o->quiet || view;
	if (convert_all(&co, path, view, t) < 0)
		return -1;
	/* A process that could not be converted has no ATF to view. */
	if (view && t->failed == before.failed && t->skipped == before.skipped)
		return run_views(o, path);
	return 0;
}

/* A positive decimal count for --limit. */
static bool parse_limit(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || !v)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "check", no_argument, NULL, 'c' },
		{ "replay", no_argument, NULL, 'r' },
		{ "dump", no_argument, NULL, 'd' },
		{ "dump-stack", no_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "all", no_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	struct tally t = { 0 };
	int c, i, status = 0;

	if (argc > 1 && view_cli_is_view(argv[1]))
		return view_cli_main(argc - 1, argv + 1);
	if (argc > 1 && not_a_view(argv[1]))
		return 2;

	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'c': o.check = true; break;
		case 'r': o.replay = true; break;
		case 'd': o.dump = true; break;
		case 's': o.dump = o.dump_opts.stack = true; break;
		case 'l':
			if (!parse_limit(optarg, &o.dump_opts.limit)) {
				fprintf(stderr, "ada-symbolize: --limit %s: expected a count of events, 1 or more\n",
					optarg);
				return 2;
			}
			break;
		case 'q': o.quiet = true; break;
		case 'a': o.all = true; break;
		case 'f': o.force = true; break;
		case 'h': print_usage(stdout); return 0;
		case 'V': puts("ada-symbolize (ada) " ADA_VERSION); return 0;
		default: print_usage(stderr); return 2;
		}
	}
	if (o.dump_opts.limit && !o.dump) {
		fputs("ada-symbolize: --limit works with --dump only (it caps the events --dump prints per thread)\n",
		      stderr);
		return 2;
	}
	if (optind == argc) {
		fputs("ada-symbolize: no trace directory given (try ./ada-trace)\n\n", stderr);
		print_usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		bool view = o.check || o.replay || o.dump;
		char **paths;
		int n = ada_trace_choose(argv[i], o.all, &paths);

		if (n < 0)
			status = 1;
		for (int k = 0; k < n; k++)
			if (convert_path(&o, paths[k], view, &t) < 0)
				status = 1;
		ada_trace_free_paths(paths);
	}
	if (t.current && !o.quiet && !(o.check || o.replay || o.dump))
		printf("%zu process%s converted already, left as %s (--force converts again)\n", t.current,
		       t.current == 1 ? "" : "es", t.current == 1 ? "it is" : "they are");
	/* A process skipped for a file that is gone fails the run only when
	 * nothing else could be read. */
	if (t.failed || (t.skipped && !t.converted && !t.current))
		status = 1;
	fflush(stdout);
	return status;
}
