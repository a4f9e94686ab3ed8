/* main.c - ada-symbolize: raw trace → ATF v2, and the views over ATF.
 *
 * With no view option, every traced process under each PATH is converted
 * (again, if it was before). With --check, --replay or --dump, processes
 * that have no ATF yet are converted first, then the views read the ATF.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "convert.h"
#include "path_len.h"
#include "trace_dir.h"
#include "view_cli.h"
#include "views.h"

static const char usage[] =
	"usage: ada-symbolize [options] TRACE_DIR...\n"
	"       ada-symbolize VIEW [options] TRACE_DIR...   (replay, report, graph:\n"
	"                          ada-symbolize VIEW --help)\n"
	"\n"
	"Converts the raw traces that programs built with adacc wrote (by default in\n"
	"./ada-trace) into ATF v2: per process, manifest.json and thread_<N>/index.atf,\n"
	"next to the raw/ directory of each pid_<pid>. TRACE_DIR may be the output\n"
	"directory, a session_<time> directory or a pid_<pid> directory.\n"
	"\n"
	"options:\n"
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
	"A conversion needs the binaries that ran, unchanged (their GNU build-id is\n"
	"checked), for symbol names and source lines. A raw trace cut short by a crash\n"
	"or kill converts up to its last complete record, plus what its threads' ring\n"
	"files still held (recovered once the process is gone); frames left open are\n"
	"closed with EXCEPTION events, counted as open_at_end in the manifest. Exit\n"
	"status: 0 success, 1 invalid trace or ATF violations, 2 usage.\n";

struct opts {
	const char *output;
	bool check, replay, dump, quiet;
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

static int convert_all(const struct opts *o, const char *path, bool only_missing)
{
	struct conv_options co = { .quiet = o->quiet, .progress = isatty(STDERR_FILENO) };
	struct ada_trace_pid *pids;
	size_t n, i, done = 0;
	int err = ada_trace_find_pids(path, &pids, &n), failed = 0;

	if (err)
		return err;
	for (i = 0; i < n; i++) {
		char out[8400];

		if (!exists(pids[i].dir, "raw"))
			continue; /* ATF only, or not ours */
		out_dir_for(o, pids[i].dir, out, sizeof(out));
		if (only_missing && exists(out, "manifest.json"))
			continue;
		if (!exists(pids[i].dir, "raw/process.meta")) {
			fprintf(stderr, "ada-symbolize: %s/raw/process.meta: missing; the raw trace cannot be read without it\n",
				pids[i].dir);
			failed++;
			done++;
			continue;
		}
		if (convert_process(pids[i].dir, out, &co) < 0)
			failed++;
		done++;
	}
	ada_trace_free_pids(pids, n);
	if (!done && !only_missing) {
		fprintf(stderr, "ada-symbolize: %s: no raw trace (no pid_<pid>/raw/process.meta)\n", path);
		return -ENOENT;
	}
	return failed ? -EINVAL : 0;
}

static int run_views(const struct opts *o, const char *path)
{
	const char *atf = path;
	int violations = 0, err;

	if (o->output)
		atf = o->output;
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
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	int c, i, status = 0;

	if (argc > 1 && view_cli_is_view(argv[1]))
		return view_cli_main(argc - 1, argv + 1);

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
		case 'h': fputs(usage, stdout); return 0;
		case 'V': puts("ada-symbolize (ada) " ADA_VERSION); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (o.dump_opts.limit && !o.dump) {
		fputs("ada-symbolize: --limit works with --dump only (it caps the events --dump prints per thread)\n",
		      stderr);
		return 2;
	}
	if (optind == argc) {
		fprintf(stderr, "ada-symbolize: no trace directory given (try ./ada-trace)\n\n%s", usage);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		bool view = o.check || o.replay || o.dump;

		/* Views read ATF: convert only what has none yet (quietly). */
		struct opts co = o;

		co.quiet = o.quiet || view;
		if (convert_all(&co, argv[i], view) < 0 || (view && run_views(&o, argv[i]) < 0))
			status = 1;
	}
	fflush(stdout);
	return status;
}
