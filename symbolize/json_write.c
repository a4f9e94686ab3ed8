/* json_write.c - the JSON emitter (see json.h): escaped strings and a
 * streaming writer that places commas, line breaks and indentation, so that
 * manifest.json reads well and diffs line by line.
 */
#include <inttypes.h>
#include <string.h>

#include "json.h"

/* RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF. */
size_t json_utf8_seq(const uint8_t *p, size_t n)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xBF;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c < 0xC2)
		return 0;
	if (c < 0xE0) {
		len = 2;
	} else if (c < 0xF0) {
		len = 3;
		lo = c == 0xE0 ? 0xA0 : lo;
		hi = c == 0xED ? 0x9F : hi;
	} else if (c < 0xF5) {
		len = 4;
		lo = c == 0xF0 ? 0x90 : lo;
		hi = c == 0xF4 ? 0x8F : hi;
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

void json_str(FILE *f, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s);

	putc('"', f);
	while (n) {
		size_t k = json_utf8_seq(p, n);

		if (k == 0) {
			fputs("\\uFFFD", f);
			k = 1;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04X", *p);
		} else {
			fwrite(p, 1, k, f);
		}
		p += k;
		n -= k;
	}
	putc('"', f);
}

void json_writer_init(struct json_writer *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

static void indent(struct json_writer *w, unsigned depth)
{
	putc('\n', w->f);
	for (unsigned i = 0; i < depth; i++)
		fputs("  ", w->f);
}

/* The comma, line break and key that come before any value. */
static void member(struct json_writer *w, const char *key)
{
	if (w->depth) {
		if (w->has_member[w->depth])
			putc(',', w->f);
		if (w->depth <= 2)
			indent(w, w->depth);
		else if (w->has_member[w->depth])
			putc(' ', w->f);
		w->has_member[w->depth] = true;
	}
	if (key) {
		json_str(w->f, key);
		fputs(": ", w->f);
	}
}

void json_open(struct json_writer *w, const char *key, char bracket)
{
	member(w, key);
	putc(bracket, w->f);
	if (w->depth < JSON_MAX_DEPTH)
		w->depth++;
	w->has_member[w->depth] = false;
	w->closer[w->depth] = bracket == '{' ? '}' : ']';
}

void json_close(struct json_writer *w)
{
	unsigned d = w->depth;

	if (!d)
		return;
	w->depth--;
	if (d <= 2 && w->has_member[d])
		indent(w, w->depth);
	putc(w->closer[d], w->f);
	if (!w->depth)
		putc('\n', w->f);
}

void json_put_str(struct json_writer *w, const char *key, const char *s)
{
	member(w, key);
	json_str(w->f, s);
}

void json_put_u64(struct json_writer *w, const char *key, uint64_t v)
{
	member(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void json_put_i64(struct json_writer *w, const char *key, int64_t v)
{
	member(w, key);
	fprintf(w->f, "%" PRId64, v);
}

void json_put_bool(struct json_writer *w, const char *key, bool v)
{
	member(w, key);
	fputs(v ? "true" : "false", w->f);
}

void json_put_hex(struct json_writer *w, const char *key, uint64_t v, int digits)
{
	member(w, key);
	fprintf(w->f, "\"0x%0*" PRIx64 "\"", digits, v);
}
