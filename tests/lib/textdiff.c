/* textdiff.c - a longest-common-subsequence line diff (see textdiff.h).
 *
 * Test outputs are a few hundred lines at most, so the quadratic table is
 * fine; past MAX_CELLS we print both texts instead of diffing.
 */
#include "lib/textdiff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS (4u << 20)

struct lines {
	const char **at; /* start of each line, in the caller's text */
	size_t *len;     /* its length without the '\n' */
	size_t n;
};

static int lines_split(const char *text, struct lines *l)
{
	size_t cap = 1;

	for (const char *p = text; *p; p++)
		cap += *p == '\n';
	l->n = 0;
	l->at = malloc(cap * sizeof(*l->at));
	l->len = malloc(cap * sizeof(*l->len));
	if (!l->at || !l->len)
		return -1;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		l->at[l->n] = p;
		l->len[l->n++] = len;
		p += len + (nl != NULL);
	}
	return 0;
}

static void lines_free(struct lines *l)
{
	free(l->at);
	free(l->len);
}

static bool line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

static void put(FILE *f, char mark, const struct lines *l, size_t i)
{
	fprintf(f, "%c%.*s\n", mark, (int)l->len[i], l->at[i]);
}

static void print_both(FILE *f, const struct lines *a, const struct lines *b)
{
	for (size_t i = 0; i < a->n; i++)
		put(f, '-', a, i);
	for (size_t j = 0; j < b->n; j++)
		put(f, '+', b, j);
}

/* lcs[i][j] = length of the longest common subsequence of a[i..] and b[j..];
 * walking it from (0, 0) emits the diff in order. */
static void print_lcs(FILE *f, const struct lines *a, const struct lines *b, unsigned *lcs)
{
	size_t w = b->n + 1, i, j;

	for (i = a->n + 1; i-- > 0;) {
		for (j = b->n + 1; j-- > 0;) {
			unsigned *cell = &lcs[i * w + j];

			if (i == a->n || j == b->n)
				*cell = 0;
			else if (line_eq(a, i, b, j))
				*cell = lcs[(i + 1) * w + j + 1] + 1;
			else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])
				*cell = lcs[(i + 1) * w + j];
			else
				*cell = lcs[i * w + j + 1];
		}
	}

	for (i = 0, j = 0; i < a->n || j < b->n;) {
		if (i < a->n && j < b->n && line_eq(a, i, b, j)) {
			put(f, ' ', a, i++);
			j++;
		} else if (j == b->n || (i < a->n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
			put(f, '-', a, i++);
		} else {
			put(f, '+', b, j++);
		}
	}
}

void textdiff_print(FILE *f, const char *a_label, const char *a, const char *b_label,
		    const char *b)
{
	struct lines la = { 0 }, lb = { 0 };
	unsigned *lcs = NULL;

	fprintf(f, "--- %s\n+++ %s\n", a_label, b_label);
	if (lines_split(a, &la) < 0 || lines_split(b, &lb) < 0) {
		fprintf(f, "(out of memory)\n");
		goto out;
	}
	if ((la.n + 1) * (lb.n + 1) <= MAX_CELLS)
		lcs = malloc((la.n + 1) * (lb.n + 1) * sizeof(*lcs));
	if (lcs)
		print_lcs(f, &la, &lb, lcs);
	else
		print_both(f, &la, &lb);
out:
	free(lcs);
	lines_free(&la);
	lines_free(&lb);
}
