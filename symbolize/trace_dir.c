/* trace_dir.c - walks an output tree down to its pid directories and thread
 * directories, and indexes a manifest's symbols by function_id.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path_len.h"
#include "trace_dir.h"

/* "<prefix><decimal>" with no sign, no leading zero and no trailing bytes. */
static bool parse_suffix(const char *name, const char *prefix, uint64_t *out)
{
	size_t plen = strlen(prefix);
	const char *p = name + plen;
	uint64_t v = 0;

	if (strncmp(name, prefix, plen) || !*p || (p[0] == '0' && p[1]))
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return true;
}

static char *join(const char *dir, const char *name)
{
	int len = ada_path_dir_len(dir, strlen(dir));
	char *s;

	return asprintf(&s, "%.*s/%s", len, dir, name) < 0 ? NULL : s;
}

static bool has_manifest(const char *dir)
{
	char *m = join(dir, "manifest.json");
	bool yes = m && access(m, F_OK) == 0;

	free(m);
	return yes;
}

struct pid_list {
	struct ada_trace_pid *v;
	size_t n, cap;
};

static int add_pid(struct pid_list *l, const char *dir, uint64_t pid)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct ada_trace_pid *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].dir = strdup(dir);
	l->v[l->n].pid = pid;
	return l->v[l->n++].dir ? 0 : -ENOMEM;
}

static int by_pid(const void *a, const void *b)
{
	const struct ada_trace_pid *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Session names order by time: session_<YYYYMMDD_HHMMSS>, then the _<N>
 * the runtime adds for a second session within one second (_2 before _10). */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strverscmp((*a)->d_name, (*b)->d_name);
}

/* Adds the pid_<N> children of a session directory, ascending by pid. */
static int add_session(struct pid_list *l, const char *session)
{
	struct dirent *de;
	size_t first = l->n;
	DIR *d = opendir(session);
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		uint64_t pid;
		char *dir;

		if (!parse_suffix(de->d_name, "pid_", &pid))
			continue;
		dir = join(session, de->d_name);
		ret = dir ? add_pid(l, dir, pid) : -ENOMEM;
		free(dir);
	}
	closedir(d);
	if (l->n > first)
		qsort(l->v + first, l->n - first, sizeof(*l->v), by_pid);
	return ret;
}

/* An output root: every session_* child, in name (= time) order. */
static int add_root(struct pid_list *l, const char *root)
{
	struct dirent **names;
	int n = scandir(root, &names, NULL, by_name);
	int ret = n < 0 ? -errno : 0;

	for (int i = 0; i < n; i++) {
		char *session = join(root, names[i]->d_name);

		if (!ret && !strncmp(names[i]->d_name, "session_", 8))
			ret = session ? add_session(l, session) : -ENOMEM;
		free(session);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return ret;
}

static int is_session(const struct dirent *de)
{
	return !strncmp(de->d_name, "session_", 8);
}

static void free_list(struct pid_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].dir);
	free(l->v);
}

/* Whether two ascending pid lists share a pid. */
static bool share_pid(const struct pid_list *a, const struct pid_list *b)
{
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		if (a->v[i].pid == b->v[j].pid)
			return true;
		if (a->v[i].pid < b->v[j].pid)
			i++;
		else
			j++;
	}
	return false;
}

/* Picks the latest of n sessions, and the earlier ones whose pids a picked
 * one has: an exec'd image keeps its pid and starts a session of its own.
 * Returns how many are picked. */
static int pick_latest(const char *root, struct dirent **names, int n, bool *pick)
{
	struct pid_list *pl = calloc((size_t)n, sizeof(*pl));
	int i, j, count = 1;

	if (!pl)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		char *session = join(root, names[i]->d_name);

		if (session)
			add_session(&pl[i], session); /* unreadable: shares nothing */
		free(session);
	}
	pick[n - 1] = true;
	for (i = n - 2; i >= 0; i--) {
		for (j = i + 1; j < n && !pick[i]; j++)
			pick[i] = pick[j] && share_pid(&pl[i], &pl[j]);
		count += pick[i];
	}
	for (i = 0; i < n; i++)
		free_list(&pl[i]);
	free(pl);
	return count;
}

/* *out = { the paths, NULL }: 1 or n of them. */
static int paths_of(char ***out, char **paths, int n)
{
	for (int i = 0; i < n; i++)
		if (!paths[i]) {
			ada_trace_free_paths(paths);
			return -ENOMEM;
		}
	*out = paths;
	return n;
}

/* The picked sessions' paths, oldest first, and one line saying so. */
static int picked_paths(const char *root, struct dirent **names, int n, const bool *pick,
			int count, char ***out)
{
	char **paths = calloc((size_t)count + 1, sizeof(*paths));
	size_t len = strlen(root);
	int i, k = 0;

	if (!paths)
		return -ENOMEM;
	while (len > 1 && root[len - 1] == '/')
		len--;
	for (i = 0; i < n; i++)
		if (pick[i] && asprintf(&paths[k++], "%.*s/%s", (int)len, root, names[i]->d_name) < 0)
			paths[k - 1] = NULL;
	if (count == 1)
		fprintf(stderr, "ada-symbolize: %s: reading %s, the latest of %d sessions (--all reads them all)\n",
			root, names[n - 1]->d_name, n);
	else
		fprintf(stderr, "ada-symbolize: %s: reading %s and the %d earlier session%s its processes were exec'd from, of %d sessions (--all reads them all)\n",
			root, names[n - 1]->d_name, count - 1, count == 2 ? "" : "s", n);
	return paths_of(out, paths, count);
}

int ada_trace_choose(const char *path, bool all, char ***out)
{
	struct dirent **names = NULL;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	bool *pick = NULL;
	uint64_t pid;
	int n = 0, count = 0, ret, i;

	*out = NULL;
	if (!all && !parse_suffix(base, "pid_", &pid) && !has_manifest(path))
		n = scandir(path, &names, is_session, by_name);
	if (n > 1 && !(pick = calloc((size_t)n, sizeof(*pick))))
		count = -ENOMEM;
	else if (n > 1)
		count = pick_latest(path, names, n, pick);
	if (count < 0) {
		ret = count;
	} else if (count == 0 || count == n) {
		/* Not a root, one session, or every one picked: PATH itself. */
		char **one = calloc(2, sizeof(*one));

		if (one)
			one[0] = strdup(path);
		ret = one ? paths_of(out, one, 1) : -ENOMEM;
	} else {
		ret = picked_paths(path, names, n, pick, count, out);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(pick);
	if (ret < 0)
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, strerror(-ret));
	return ret;
}

void ada_trace_free_paths(char **paths)
{
	for (size_t i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
}

int ada_trace_find_pids(const char *given, struct ada_trace_pid **out, size_t *n)
{
	struct pid_list l = { 0 };
	/* "pid_1/" is pid_1, and every path joined under it has one slash. */
	char *path = strndup(given, (size_t)ada_path_dir_len(given, strlen(given)));
	const char *base;
	uint64_t pid = 0;
	int ret;

	if (!path)
		return -ENOMEM;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (parse_suffix(base, "pid_", &pid) || has_manifest(path))
		ret = add_pid(&l, path, pid);
	else if (!(ret = add_session(&l, path)) && l.n == 0)
		ret = add_root(&l, path);
	if (!ret && l.n == 0) {
		fprintf(stderr, "ada-symbolize: %s: no pid_<pid> directory with a trace\n", path);
		ret = -ENOENT;
	} else if (ret) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, strerror(-ret));
	}
	if (ret) {
		ada_trace_free_pids(l.v, l.n);
		l.v = NULL;
		l.n = 0;
	}
	free(path);
	*out = l.v;
	*n = l.n;
	return ret;
}

void ada_trace_free_pids(struct ada_trace_pid *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(pids[i].dir);
	free(pids);
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int ada_trace_find_threads(const char *pid_dir, uint32_t **ids, size_t *n)
{
	DIR *d = opendir(pid_dir);
	struct dirent *de;
	size_t cap = 0;
	uint64_t id;

	*ids = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!parse_suffix(de->d_name, "thread_", &id) || id > UINT32_MAX)
			continue;
		if (*n == cap) {
			uint32_t *v = realloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!v) {
				closedir(d);
				return -ENOMEM;
			}
			*ids = v;
		}
		(*ids)[(*n)++] = (uint32_t)id;
	}
	closedir(d);
	if (*n)
		qsort(*ids, *n, sizeof(**ids), by_u32);
	return 0;
}

bool ada_trace_parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;

	if (!s || s[0] != '0' || s[1] != 'x')
		return false;
	for (s += 2; *s; s++, n++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
			*s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;

		if (d < 0 || n == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return n > 0;
}

static int by_function_id(const void *a, const void *b)
{
	const struct ada_trace_symbol *x = a, *y = b;

	return (x->function_id > y->function_id) - (x->function_id < y->function_id);
}

int ada_trace_load_symbols(const struct json_value *manifest, struct ada_trace_symbols *out)
{
	const struct json_value *syms = json_get(manifest, "symbols");
	size_t n = json_count(syms);

	out->n = 0;
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct json_value *e = json_at(syms, i);
		struct ada_trace_symbol *s = &out->v[out->n];
		const char *name = json_string(json_get(e, "name"));
		const char *demangled = json_string(json_get(e, "demangled"));

		if (!ada_trace_parse_hex(json_string(json_get(e, "function_id")), &s->function_id))
			continue;
		s->display = demangled ? demangled : name ? name : "?";
		s->own = NULL;
		/* The views print names without their symbol version (as the
		 * raw views do, names.c): the manifest keeps the symbol's. */
		if (strchr(s->display, '@')) {
			if (!(s->own = strndup(s->display, strcspn(s->display, "@")))) {
				ada_trace_free_symbols(out);
				return -ENOMEM;
			}
			s->display = s->own;
		}
		s->json = e;
		out->n++;
	}
	qsort(out->v, out->n, sizeof(*out->v), by_function_id);
	return 0;
}

const struct ada_trace_symbol *ada_trace_find_symbol(const struct ada_trace_symbols *s,
						     uint64_t function_id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].function_id < function_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo].function_id == function_id ? &s->v[lo] : NULL;
}

void ada_trace_free_symbols(struct ada_trace_symbols *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].own);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int by_thread_id(const void *a, const void *b)
{
	uint64_t x = 0, y = 0;

	json_u64(json_get(*(const struct json_value *const *)a, "id"), &x);
	json_u64(json_get(*(const struct json_value *const *)b, "id"), &y);
	return (x > y) - (x < y);
}

int ada_trace_sorted_threads(const struct json_value *manifest, const struct json_value ***out,
			     size_t *n)
{
	const struct json_value *threads = json_get(manifest, "threads");
	const struct json_value **order;

	*out = NULL;
	*n = json_count(threads);
	if (!*n)
		return 0;
	order = malloc(*n * sizeof(*order));
	if (!order) {
		*n = 0;
		return -ENOMEM;
	}
	for (size_t i = 0; i < *n; i++)
		order[i] = json_at(threads, i);
	qsort(order, *n, sizeof(*order), by_thread_id);
	*out = order;
	return 0;
}

const char *ada_trace_open_mark(const struct json_value *thread, uint64_t *n)
{
	const char *end = json_string(json_get(thread, "end"));

	*n = 0;
	json_u64(json_get(thread, "open_at_end"), n);
	if (end && !strcmp(end, "crashed"))
		return "(open at crash)";
	/* A thread that ended inside frames left them by pthread_exit or a
	 * cancellation, which unwind them. */
	if (end && !strcmp(end, "exited"))
		return "(unwound)";
	if (end && !strcmp(end, "killed"))
		return "(open when killed)";
	if (end && !strcmp(end, "running at exec"))
		return "(open at exec)";
	return "(open at exit)";
}

uint64_t ada_trace_thread_header(FILE *out, uint64_t pid, const struct json_value *thread)
{
	const struct json_value *stack = json_get(thread, "stack");
	uint64_t id = 0, tid = 0, host;

	json_u64(json_get(thread, "id"), &id);
	json_u64(json_get(thread, "os_tid"), &tid);
	fprintf(out, "# pid %" PRIu64 " thread %" PRIu64 " tid %" PRIu64, pid, id, tid);
	if (stack) {
		const char *lo = json_string(json_get(stack, "lo")), *hi = json_string(json_get(stack, "hi"));

		fprintf(out, " stack %s-%s", lo ? lo : "?", hi ? hi : "?");
		if (json_u64(json_get(stack, "host_thread"), &host))
			fprintf(out, " of thread %" PRIu64, host);
	}
	fputc('\n', out);
	return id;
}
