/* filter.c - the views' filter options, parsed (walk.h says what they do).
 *
 * Every value that does not parse, and a time range that holds no time, is
 * one line naming the option, the value and what was expected.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"

static const struct {
	const char *suffix;
	uint64_t ns;
} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	      { "m", 60000000000ull } };

bool view_parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	double v;
	size_t i;

	if (!*s || (*s != '.' && (*s < '0' || *s > '9')))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return false;
	if (!*end) {
		*ns = (uint64_t)v;
		return v < 1.8e19;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix)) {
			v *= (double)units[i].ns;
			*ns = (uint64_t)(v + 0.5);
			return v < 1.8e19;
		}
	return false;
}

static int bad(const char *opt, const char *value, const char *expected)
{
	fprintf(stderr, "ada-symbolize: --%s %s: expected %s\n", opt, value, expected);
	return -EINVAL;
}

/* Appends a copy of s to the NULL-terminated list *list. */
static int push_glob(char ***list, const char *s)
{
	size_t n = 0;
	char **grown;

	while (*list && (*list)[n])
		n++;
	if (!(grown = realloc(*list, (n + 2) * sizeof(*grown))) || !(grown[n] = strdup(s))) {
		*list = grown ? grown : *list;
		return -ENOMEM;
	}
	grown[n + 1] = NULL;
	*list = grown;
	return 0;
}

/* "1,2,40" appended to *list: decimal numbers, comma-separated; nothing
 * is appended unless all of them parse. */
static int push_ids(const char *opt, const char *value, uint32_t **list, size_t *n)
{
	size_t count = 1, k = 0;
	const char *s;
	uint32_t *grown;

	for (s = value; *s; s++)
		count += *s == ',';
	if (!(grown = realloc(*list, (*n + count) * sizeof(*grown))))
		return -ENOMEM;
	*list = grown;
	for (s = value; k < count; k++) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (*s < '0' || *s > '9' || errno || v > UINT32_MAX || (*end && *end != ',') ||
		    (*end == ',' && !end[1]))
			return bad(opt, value, "a list of decimal numbers separated by commas");
		grown[*n + k] = (uint32_t)v;
		s = end + (*end == ',');
	}
	*n += count;
	return 0;
}

/* "A~B", either side a duration since the process's first event or empty. */
static int parse_range(struct view_filter *f, const char *value)
{
	const char *tilde = strchr(value, '~');
	uint64_t t_lo = 0, t_hi = 0;
	char lo[64];
	size_t n;

	if (!tilde || (size_t)(tilde - value) >= sizeof(lo))
		return bad("time-range", value, "START~END, times since the first event "
			   "with a unit (ns, us, ms, s), either side may be empty");
	n = (size_t)(tilde - value);
	memcpy(lo, value, n);
	lo[n] = '\0';
	if ((n && !view_parse_duration(lo, &t_lo)) ||
	    (tilde[1] && !view_parse_duration(tilde + 1, &t_hi)))
		return bad("time-range", value, "START~END, times since the first event "
			   "with a unit (ns, us, ms, s), either side may be empty");
	if (tilde[1] && t_hi <= t_lo)
		return bad("time-range", value, "an END later than START (the range holds no time)");
	f->t_lo = t_lo;
	f->t_hi = t_hi;
	f->has_range = true;
	return 0;
}

int view_filter_add(struct view_filter *f, const char *opt, const char *value)
{
	char *end;
	unsigned long v;

	if (!strcmp(opt, "filter") || !strcmp(opt, "notrace") || !strcmp(opt, "module") ||
	    !strcmp(opt, "caller-filter") || !strcmp(opt, "hide")) {
		if (!*value)
			return bad(opt, "''", "a function name or glob pattern");
		return push_glob(!strcmp(opt, "filter") ? &f->include :
				 !strcmp(opt, "notrace") ? &f->exclude :
				 !strcmp(opt, "caller-filter") ? &f->callers :
				 !strcmp(opt, "hide") ? &f->hide : &f->modules, value);
	}
	if (!strcmp(opt, "depth")) {
		errno = 0;
		v = strtoul(value, &end, 10);
		if (*value < '0' || *value > '9' || errno || *end || !v || v > UINT32_MAX)
			return bad(opt, value, "a depth of 1 or more");
		f->max_depth = (uint32_t)v;
		return 0;
	}
	if (!strcmp(opt, "time-filter")) {
		if (!view_parse_duration(value, &f->min_ns))
			return bad(opt, value, "a duration with a unit (ns, us, ms, s), e.g. 10us");
		return 0;
	}
	if (!strcmp(opt, "time-range"))
		return parse_range(f, value);
	if (!strcmp(opt, "tid"))
		return push_ids(opt, value, &f->tids, &f->ntids);
	if (!strcmp(opt, "thread"))
		return push_ids(opt, value, &f->threads, &f->nthreads);
	if (!strcmp(opt, "pid"))
		return push_ids(opt, value, &f->pids, &f->npids);
	return bad(opt, value, "a filter option");
}

static void free_globs(char **list)
{
	for (size_t i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

static size_t globs(char *const *list)
{
	size_t n = 0;

	while (list && list[n])
		n++;
	return n;
}

int view_filter_track(struct view_filter *f)
{
	struct view_filter_hits *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	f->hits = h;
	/* One byte more than the values each: calloc(0) may be NULL. */
	h->include = calloc(globs(f->include) + 1, 1);
	h->exclude = calloc(globs(f->exclude) + 1, 1);
	h->modules = calloc(globs(f->modules) + 1, 1);
	h->callers = calloc(globs(f->callers) + 1, 1);
	h->hide = calloc(globs(f->hide) + 1, 1);
	h->tids = calloc(f->ntids + 1, 1);
	h->threads = calloc(f->nthreads + 1, 1);
	h->pids = calloc(f->npids + 1, 1);
	if (!h->include || !h->exclude || !h->modules || !h->callers || !h->hide || !h->tids ||
	    !h->threads || !h->pids)
		return -ENOMEM;
	return 0;
}

static void hits_free(struct view_filter_hits *h)
{
	if (!h)
		return;
	free(h->include);
	free(h->exclude);
	free(h->modules);
	free(h->callers);
	free(h->hide);
	free(h->tids);
	free(h->threads);
	free(h->pids);
	free(h);
}

void view_filter_free(struct view_filter *f)
{
	hits_free(f->hits);
	free_globs(f->include);
	free_globs(f->exclude);
	free_globs(f->modules);
	free_globs(f->callers);
	free_globs(f->hide);
	free(f->tids);
	free(f->threads);
	free(f->pids);
	memset(f, 0, sizeof(*f));
}

/* Whether v is in the list; each entry equal to it marked in hit (NULL:
 * not tracked). */
static bool in(const uint32_t *list, size_t n, uint32_t v, uint8_t *hit)
{
	bool found = false;

	for (size_t i = 0; i < n; i++)
		if (list[i] == v) {
			found = true;
			if (hit)
				hit[i] = 1;
		}
	return found;
}

bool view_filter_any(const struct view_filter *f)
{
	return f->include || f->exclude || f->modules || f->callers || f->hide || f->max_depth ||
	       f->min_ns || f->has_range || f->ntids || f->nthreads || f->npids;
}

bool view_filter_wants_pid(const struct view_filter *f, uint32_t pid)
{
	struct view_filter_hits *h = f->hits;

	if (h && h->npids_seen < sizeof(h->pids_seen) / sizeof(h->pids_seen[0]) &&
	    !in(h->pids_seen, h->npids_seen, pid, NULL))
		h->pids_seen[h->npids_seen++] = pid;
	return !f->npids || in(f->pids, f->npids, pid, h ? h->pids : NULL);
}

/* A thread is wanted if each list it is given in holds it; each list's
 * entries are marked on their own (--tid 5 --thread 9 with no thread both:
 * neither is said to match nothing when each names one). */
bool view_filter_wants_thread(const struct view_filter *f, const struct src_thread *t)
{
	struct view_filter_hits *h = f->hits;
	bool tid = !f->ntids || in(f->tids, f->ntids, t->tid, h ? h->tids : NULL);
	bool id = !f->nthreads || in(f->threads, f->nthreads, t->id, h ? h->threads : NULL);

	return tid && id;
}

bool view_glob_any(char *const *list, const char *a, const char *b)
{
	return view_glob_mark(list, NULL, a, b);
}

bool view_glob_mark(char *const *list, uint8_t *hit, const char *a, const char *b)
{
	bool any = false;

	for (size_t i = 0; list && list[i]; i++)
		if (!fnmatch(list[i], a, 0) || (b && !fnmatch(list[i], b, 0))) {
			any = true;
			if (!hit)
				break;
			hit[i] = 1;
		}
	return any;
}

bool view_glob_func(char *const *list, uint8_t *hit, const struct src_func *fn)
{
	bool any = view_glob_mark(list, hit, fn->name, fn->full);

	if (fn->base && (hit || !any))
		any |= view_glob_mark(list, hit, fn->base, NULL);
	return any;
}

/* A -F value that reads as a regular expression (".*", ".+", a leading ^,
 * a trailing $, a backslash): the glob it may have meant in out, else
 * false. */
static bool glob_meant(const char *re, char *out, size_t len)
{
	size_t n = strlen(re), k = 0;
	bool regex = strstr(re, ".*") || strstr(re, ".+") || *re == '^' ||
		     (n && re[n - 1] == '$') || strchr(re, '\\');

	if (!regex || len < n + 1)
		return false;
	for (size_t i = *re == '^'; i < n && !(i == n - 1 && re[i] == '$'); i++) {
		if (re[i] == '.' && (re[i + 1] == '*' || re[i + 1] == '+')) {
			if (re[++i] == '+')
				out[k++] = '?';
			out[k++] = '*';
		} else if (re[i] == '\\' && re[i + 1]) {
			out[k++] = re[++i];
		} else {
			out[k++] = re[i];
		}
	}
	out[k] = '\0';
	return true;
}

static void ids_seen(const struct view_filter_hits *h)
{
	fputs(" (the trace's:", stderr);
	for (size_t i = 0; i < h->npids_seen; i++)
		fprintf(stderr, " %u", h->pids_seen[i]);
	fputs(h->npids_seen == sizeof(h->pids_seen) / sizeof(h->pids_seen[0]) ? " ...)" : ")",
	      stderr);
}

/* The values of one id option that selected nothing: whether all of them. */
static bool ids_unmatched(const char *view, const char *opt, const uint32_t *ids, size_t n,
			  const uint8_t *hit, const char *what, const struct view_filter_hits *h)
{
	size_t missed = 0;

	for (size_t i = 0; i < n; i++) {
		if (hit[i])
			continue;
		missed++;
		fprintf(stderr, "ada-symbolize %s: --%s %u: no %s of the trace has it", view, opt,
			ids[i], what);
		if (h)
			ids_seen(h);
		fputc('\n', stderr);
	}
	return n && missed == n;
}

static bool globs_unmatched(const char *view, const char *opt, char *const *list,
			    const uint8_t *hit, const char *what)
{
	size_t n = globs(list), missed = 0;
	char meant[512];

	for (size_t i = 0; i < n; i++) {
		if (hit[i])
			continue;
		missed++;
		fprintf(stderr, "ada-symbolize %s: %s '%s' matches no %s of the trace", view, opt,
			list[i], what);
		if (glob_meant(list[i], meant, sizeof(meant)))
			fprintf(stderr, " (GLOBs are shell patterns, not regular expressions: '%s'?)",
				meant);
		fputc('\n', stderr);
	}
	return n && missed == n;
}

int view_say_unmatched(const struct view_filter *f, const char *view)
{
	const struct view_filter_hits *h = f->hits;
	bool none;

	if (!h)
		return 0;
	none = ids_unmatched(view, "pid", f->pids, f->npids, h->pids, "process", h);
	none |= ids_unmatched(view, "tid", f->tids, f->ntids, h->tids, "thread", NULL);
	none |= ids_unmatched(view, "thread", f->threads, f->nthreads, h->threads, "thread", NULL);
	/* The globs were asked only of the threads read. */
	if (none || !h->walked)
		return none;
	none |= globs_unmatched(view, "-F", f->include, h->include, "function");
	none |= globs_unmatched(view, "-M", f->modules, h->modules, "module");
	none |= globs_unmatched(view, "-C", f->callers, h->callers, "function");
	(void)globs_unmatched(view, "-H", f->hide, h->hide, "function");
	(void)globs_unmatched(view, "-N", f->exclude, h->exclude, "function");
	return none;
}

void view_say_folded(const struct view_filter *f, const struct walk_counts *c)
{
	if (c->shown || !c->folded_include)
		return;
	fputs("ada-symbolize:", stderr);
	for (size_t i = 0; f->include[i]; i++)
		fprintf(stderr, " -F %s", f->include[i]);
	fputs(": only calls inside the C++ runtime's frames match, which the views fold: "
	      "--all-frames shows them\n", stderr);
}
