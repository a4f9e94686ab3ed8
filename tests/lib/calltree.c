/* calltree.c - parse and normalize replay call trees (see calltree.h). */
#include "lib/calltree.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing string. */
struct strbuf {
	char *s;
	size_t len, cap;
};

static int strbuf_add(struct strbuf *sb, const char *s, size_t len)
{
	if (sb->len + len + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap : 256;

		while (sb->len + len + 1 > cap)
			cap *= 2;

		char *grown = realloc(sb->s, cap);
		if (!grown)
			return -1;
		sb->s = grown;
		sb->cap = cap;
	}
	memcpy(sb->s + sb->len, s, len);
	sb->len += len;
	sb->s[sb->len] = '\0';
	return 0;
}

struct parser {
	struct calltree *ct;
	struct strbuf block;  /* the block being read */
	bool open;            /* a block has started */
	bool replay;          /* reading replay output, not an expected file */
	size_t lineno;
	char *err;
	size_t errsize;
};

static int __attribute__((format(printf, 2, 3)))
parse_error(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errsize, fmt, ap);
	va_end(ap);
	return -1;
}

static int add_line(struct parser *p, const char *line, size_t len)
{
	if (strbuf_add(&p->block, line, len) < 0 || strbuf_add(&p->block, "\n", 1) < 0)
		return parse_error(p, "out of memory");
	return 0;
}

/* Moves the block read so far into the call tree. */
static int end_block(struct parser *p)
{
	struct calltree *ct = p->ct;

	if (!p->block.len) {
		if (!p->replay)
			return parse_error(p, "line %zu: a thread block with no calls", p->lineno);
		/* A header with nothing under it: keep it visible in a diff. */
		if (add_line(p, "(no calls)", strlen("(no calls)")) < 0)
			return -1;
	}

	char **blocks = realloc(ct->blocks, (ct->nblocks + 1) * sizeof(*blocks));
	if (!blocks)
		return parse_error(p, "out of memory");
	ct->blocks = blocks;
	ct->blocks[ct->nblocks++] = p->block.s;
	memset(&p->block, 0, sizeof(p->block));
	return 0;
}

/* Ends the current block, if any, and starts a new one. */
static int next_block(struct parser *p)
{
	if (p->open && end_block(p) < 0)
		return -1;
	p->open = true;
	return 0;
}

static int compare_blocks(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int finish(struct parser *p, int ret)
{
	if (ret == 0 && p->open)
		ret = end_block(p);
	free(p->block.s);
	if (ret < 0) {
		calltree_free(p->ct);
		return ret;
	}
	if (p->ct->nblocks > 1)
		qsort(p->ct->blocks, p->ct->nblocks, sizeof(*p->ct->blocks), compare_blocks);
	return 0;
}

/* "# pid <pid> thread <N> tid <tid>", and for a coroutine stack's thread
 * " stack <lo>-<hi> of thread <M>": the numbers are read, and the line must
 * be exactly what printing them back gives. */
static bool parse_header(const char *line, size_t len, unsigned long *pid, unsigned long *thread)
{
	char copy[128], again[128];
	unsigned long tid, lo, hi, host;
	int n;

	if (len >= sizeof(copy))
		return false;
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (sscanf(copy, "# pid %lu thread %lu tid %lu", pid, thread, &tid) != 3)
		return false;
	n = snprintf(again, sizeof(again), "# pid %lu thread %lu tid %lu", *pid, *thread, tid);
	if (sscanf(copy + n, " stack %lx-%lx of thread %lu", &lo, &hi, &host) == 3)
		snprintf(again + n, sizeof(again) - (size_t)n, " stack %#lx-%#lx of thread %lu", lo,
			 hi, host);
	return strcmp(copy, again) == 0;
}

static int replay_line(struct parser *p, const char *line, size_t len, unsigned long last[2])
{
	unsigned long pid, thread;

	if (line[0] != '#') {
		if (!p->open)
			return parse_error(p, "line %zu: a call before the first header", p->lineno);
		return add_line(p, line, len);
	}
	if (!parse_header(line, len, &pid, &thread))
		return parse_error(p, "line %zu: malformed header \"%.*s\"", p->lineno, (int)len, line);
	if (p->open && (pid < last[0] || (pid == last[0] && thread <= last[1])))
		return parse_error(p, "line %zu: pid %lu thread %lu comes after pid %lu thread %lu",
			    p->lineno, pid, thread, last[0], last[1]);
	if (!p->open || pid != last[0])
		p->ct->npids++;
	last[0] = pid;
	last[1] = thread;
	return next_block(p);
}

static int expected_line(struct parser *p, const char *line, size_t len)
{
	if (len == strlen(CALLTREE_SEPARATOR) && !memcmp(line, CALLTREE_SEPARATOR, len)) {
		if (!p->open)
			return parse_error(p, "line %zu: a separator before the first block", p->lineno);
		return next_block(p);
	}
	if (!p->open && next_block(p) < 0)
		return -1;
	return add_line(p, line, len);
}

static int parse(const char *text, struct calltree *ct, bool replay, char *err, size_t errsize)
{
	struct parser p = { .ct = ct, .replay = replay, .err = err, .errsize = errsize };
	unsigned long last[2] = { 0, 0 };
	int ret = 0;

	memset(ct, 0, sizeof(*ct));
	for (const char *line = text; *line && ret == 0;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		p.lineno++;
		if (len > 0)
			ret = replay ? replay_line(&p, line, len, last) : expected_line(&p, line, len);
		line += len + (nl != NULL);
	}
	return finish(&p, ret);
}

int calltree_from_replay(const char *text, struct calltree *ct, char *err, size_t errsize)
{
	return parse(text, ct, true, err, errsize);
}

int calltree_from_expected(const char *text, struct calltree *ct, char *err, size_t errsize)
{
	return parse(text, ct, false, err, errsize);
}

char *calltree_format(const struct calltree *ct)
{
	struct strbuf sb = { 0 };

	if (strbuf_add(&sb, "", 0) < 0)
		return NULL;
	for (size_t i = 0; i < ct->nblocks; i++) {
		if ((i && strbuf_add(&sb, CALLTREE_SEPARATOR "\n", strlen(CALLTREE_SEPARATOR) + 1) < 0) ||
		    strbuf_add(&sb, ct->blocks[i], strlen(ct->blocks[i])) < 0) {
			free(sb.s);
			return NULL;
		}
	}
	return sb.s;
}

void calltree_free(struct calltree *ct)
{
	for (size_t i = 0; i < ct->nblocks; i++)
		free(ct->blocks[i]);
	free(ct->blocks);
	memset(ct, 0, sizeof(*ct));
}

/* One replay line: its depth (two spaces a level), its name's extent (up to
 * " xN" or a " (" mark) and N. */
static void call_line(const char *line, size_t len, size_t *depth, size_t *name_len,
		      unsigned long *times)
{
	const char *x, *mark;
	size_t indent = 0;

	while (indent < len && line[indent] == ' ')
		indent++;
	*depth = indent / 2;
	*times = 1;
	*name_len = len - indent;
	mark = memmem(line + indent, len - indent, " (open ", 7);
	if (!mark)
		mark = memmem(line + indent, len - indent, " (unwound)", 10);
	if (mark)
		*name_len = (size_t)(mark - line) - indent;
	for (x = line + indent + *name_len; x > line + indent + 2 && isdigit((unsigned char)x[-1]); x--)
		;
	if (x < line + indent + *name_len && x[-1] == 'x' && x[-2] == ' ') {
		*times = strtoul(x, NULL, 10);
		*name_len = (size_t)(x - 2 - line) - indent;
	}
}

unsigned long calltree_calls(const char *replay, const char *name, const char *parent)
{
	unsigned long mult[512] = { 1 }, total = 0;
	const char *names[512] = { "" };
	size_t lens[512] = { 0 };

	for (const char *line = replay; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line), depth, name_len;
		unsigned long times;

		if (len && line[0] != '#') {
			call_line(line, len, &depth, &name_len, &times);
			if (depth + 1 < 512) {
				mult[depth + 1] = mult[depth] * times;
				names[depth + 1] = line + depth * 2;
				lens[depth + 1] = name_len;
				if (name_len == strlen(name) && !memcmp(line + depth * 2, name, name_len) &&
				    (!parent || (depth > 0 && memmem(names[depth], lens[depth], parent,
								      strlen(parent)))))
					total += mult[depth + 1];
			}
		}
		line += len + (nl != NULL);
	}
	return total;
}
