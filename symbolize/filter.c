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

	if (!strcmp(opt, "filter") || !strcmp(opt, "notrace") || !strcmp(opt, "module")) {
		if (!*value)
			return bad(opt, "''", "a function name or glob pattern");
		return push_glob(!strcmp(opt, "filter") ? &f->include :
				 !strcmp(opt, "notrace") ? &f->exclude : &f->modules, value);
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

void view_filter_free(struct view_filter *f)
{
	free_globs(f->include);
	free_globs(f->exclude);
	free_globs(f->modules);
	free(f->tids);
	free(f->threads);
	free(f->pids);
	memset(f, 0, sizeof(*f));
}

static bool in(const uint32_t *list, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

bool view_filter_any(const struct view_filter *f)
{
	return f->include || f->exclude || f->modules || f->max_depth || f->min_ns || f->has_range ||
	       f->ntids || f->nthreads || f->npids;
}

bool view_filter_wants_pid(const struct view_filter *f, uint32_t pid)
{
	return !f->npids || in(f->pids, f->npids, pid);
}

bool view_filter_wants_thread(const struct view_filter *f, const struct src_thread *t)
{
	return (!f->ntids || in(f->tids, f->ntids, t->tid)) &&
	       (!f->nthreads || in(f->threads, f->nthreads, t->id));
}

bool view_glob_any(char *const *list, const char *a, const char *b)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!fnmatch(list[i], a, 0) || (b && !fnmatch(list[i], b, 0)))
			return true;
	return false;
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
