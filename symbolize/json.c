/* json.c - the strict JSON parser and its lookups (see json.h).
 *
 * The parser allocates nothing per value while it works: elements of the
 * containers being parsed wait on two scratch stacks, and each container is
 * copied into the document's arena, exactly sized, when it closes. Freeing a
 * document frees a handful of arena blocks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* ---- arena -------------------------------------------------------------------- */

#define ARENA_BLOCK (64 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

struct json_doc {
	struct json_value root;
	struct arena_block *blocks;
};

static void *arena_alloc(struct json_doc *doc, size_t n)
{
	struct arena_block *b = doc->blocks;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = doc->blocks;
		doc->blocks = b;
	}
	b->used += n;
	return (char *)b->data + b->used - n;
}

void json_free(struct json_doc *doc)
{
	if (!doc)
		return;
	while (doc->blocks) {
		struct arena_block *next = doc->blocks->next;

		free(doc->blocks);
		doc->blocks = next;
	}
	free(doc);
}

/* ---- parser ------------------------------------------------------------------- */

/* A growable array of fixed-size elements, reused across the whole parse. */
struct scratch {
	char *data;
	size_t len, cap; /* in bytes */
};

static bool scratch_push(struct scratch *s, const void *elem, size_t size)
{
	if (s->len + size > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		char *data;

		while (cap < s->len + size)
			cap *= 2;
		data = realloc(s->data, cap);
		if (!data)
			return false;
		s->data = data;
		s->cap = cap;
	}
	memcpy(s->data + s->len, elem, size);
	s->len += size;
	return true;
}

struct parser {
	const char *start, *p, *end;
	struct json_doc *doc;
	struct scratch values, members, chars;
	unsigned depth;
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static bool fail(struct parser *ps, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	if (ps->failed)
		return false;
	ps->failed = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "byte %td: %s", ps->p - ps->start, why);
	return false;
}

static bool out_of_memory(struct parser *ps)
{
	return fail(ps, "out of memory");
}

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static bool parse_value(struct parser *ps, struct json_value *v);

/* Four hex digits after "\u". */
static bool parse_hex4(struct parser *ps, uint32_t *cp)
{
	*cp = 0;
	if (ps->end - ps->p < 4)
		return fail(ps, "truncated \\u escape");
	for (int i = 0; i < 4; i++, ps->p++) {
		char c = *ps->p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return fail(ps, "bad hex digit in \\u escape");
		*cp = *cp << 4 | (uint32_t)d;
	}
	return true;
}

/* \uXXXX, with a surrogate pair read as one code point; appended as UTF-8. */
static bool parse_unicode(struct parser *ps)
{
	uint32_t cp, lo;
	char u[4];
	size_t n;

	if (!parse_hex4(ps, &cp))
		return false;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return fail(ps, "lone low surrogate \\u%04" PRIX32, cp);
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
			return fail(ps, "high surrogate \\u%04" PRIX32 " not followed by \\u", cp);
		ps->p += 2;
		if (!parse_hex4(ps, &lo))
			return false;
		if (lo < 0xDC00 || lo > 0xDFFF)
			return fail(ps, "high surrogate followed by \\u%04" PRIX32, lo);
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	if (cp < 0x80) {
		u[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
	} else {
		u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
	}
	return scratch_push(&ps->chars, u, n) || out_of_memory(ps);
}

static bool parse_escape(struct parser *ps)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;

	if (ps->p == ps->end)
		return fail(ps, "unterminated string");
	if (*ps->p == 'u') {
		ps->p++;
		return parse_unicode(ps);
	}
	hit = *ps->p ? strchr(from, *ps->p) : NULL;
	if (!hit)
		return fail(ps, "bad escape \\%c", *ps->p);
	ps->p++;
	return scratch_push(&ps->chars, &to[hit - from], 1) || out_of_memory(ps);
}

/* A string after its opening quote, decoded into the arena. */
static bool parse_string(struct parser *ps, const char **s, size_t *len)
{
	char *copy;

	ps->chars.len = 0;
	for (;;) {
		const uint8_t *c = (const uint8_t *)ps->p;
		size_t k;

		if (ps->p == ps->end)
			return fail(ps, "unterminated string");
		if (*c == '"')
			break;
		if (*c == '\\') {
			ps->p++;
			if (!parse_escape(ps))
				return false;
			continue;
		}
		if (*c < 0x20)
			return fail(ps, "control character 0x%02x in string", *c);
		k = json_utf8_seq(c, (size_t)(ps->end - ps->p));
		if (!k)
			return fail(ps, "invalid UTF-8 in string");
		if (!scratch_push(&ps->chars, c, k))
			return out_of_memory(ps);
		ps->p += k;
	}
	ps->p++;
	copy = arena_alloc(ps->doc, ps->chars.len + 1);
	if (!copy)
		return out_of_memory(ps);
	if (ps->chars.len) /* an empty first string has no scratch buffer yet */
		memcpy(copy, ps->chars.data, ps->chars.len);
	copy[ps->chars.len] = '\0';
	*s = copy;
	*len = ps->chars.len;
	return true;
}

static size_t skip_digits(struct parser *ps)
{
	const char *from = ps->p;

	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	return (size_t)(ps->p - from);
}

/* The integer digits of [p, end) as a uint64, false on overflow. */
static bool digits_u64(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;

	for (; p < end; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* Fills the exact integer views of an integral number. */
static void number_exact(struct json_value *v, const char *from, const char *to)
{
	bool neg = *from == '-';
	uint64_t mag;

	if (!digits_u64(from + neg, to, &mag))
		return;
	if (!neg) {
		v->num.u = mag;
		v->num.is_u64 = true;
	}
	if (!neg && mag <= INT64_MAX) {
		v->num.i = (int64_t)mag;
		v->num.is_i64 = true;
	} else if (neg && mag <= (uint64_t)INT64_MAX + 1) {
		v->num.i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
		v->num.is_i64 = true;
	}
}

/* RFC 8259 number grammar; the double comes from strtod on a NUL-terminated
 * copy (ada never calls setlocale, so '.' is the decimal point). */
static bool parse_number(struct parser *ps, struct json_value *v)
{
	const char *from = ps->p;
	bool integral = true;
	size_t intlen;

	if (*ps->p == '-')
		ps->p++;
	intlen = skip_digits(ps);
	if (!intlen || (intlen > 1 && ps->p[-(ptrdiff_t)intlen] == '0'))
		return fail(ps, "bad number");
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		integral = false;
		if (!skip_digits(ps))
			return fail(ps, "digit expected after '.'");
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		integral = false;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!skip_digits(ps))
			return fail(ps, "digit expected in exponent");
	}
	v->type = JSON_NUMBER;
	ps->chars.len = 0;
	if (!scratch_push(&ps->chars, from, (size_t)(ps->p - from)) ||
	    !scratch_push(&ps->chars, "", 1))
		return out_of_memory(ps);
	v->num.d = strtod(ps->chars.data, NULL);
	if (integral)
		number_exact(v, from, ps->p);
	return true;
}

static bool parse_literal(struct parser *ps, struct json_value *v)
{
	static const struct { const char *word; enum json_type type; bool b; } lits[] = {
		{ "true", JSON_BOOL, true }, { "false", JSON_BOOL, false }, { "null", JSON_NULL, false },
	};

	for (size_t i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		size_t n = strlen(lits[i].word);

		if ((size_t)(ps->end - ps->p) >= n && !memcmp(ps->p, lits[i].word, n)) {
			ps->p += n;
			v->type = lits[i].type;
			v->boolean = lits[i].b;
			return true;
		}
	}
	return fail(ps, "unexpected character '%c'", *ps->p);
}

/* After '[' or '{': the next element, or the closing bracket (true in *done). */
static bool next_element(struct parser *ps, size_t count, char closer, bool *done)
{
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == closer) {
		ps->p++;
		*done = true;
		return true;
	}
	*done = false;
	if (count) {
		if (ps->p == ps->end || *ps->p != ',')
			return fail(ps, "',' or '%c' expected", closer);
		ps->p++;
		skip_space(ps);
	}
	return true;
}

/* Moves the top `n` elements of a scratch stack into the arena. */
static void *settle(struct parser *ps, struct scratch *s, size_t n, size_t size)
{
	void *copy = n ? arena_alloc(ps->doc, n * size) : NULL;

	if (n && !copy)
		return out_of_memory(ps), NULL;
	s->len -= n * size;
	if (n)
		memcpy(copy, s->data + s->len, n * size);
	return copy;
}

static bool parse_array(struct parser *ps, struct json_value *v)
{
	struct json_value item;
	size_t n = 0;
	bool done;

	for (;;) {
		if (!next_element(ps, n, ']', &done))
			return false;
		if (done)
			break;
		if (!parse_value(ps, &item))
			return false;
		if (!scratch_push(&ps->values, &item, sizeof(item)))
			return out_of_memory(ps);
		n++;
	}
	v->type = JSON_ARRAY;
	v->arr.n = n;
	v->arr.items = settle(ps, &ps->values, n, sizeof(item));
	return !ps->failed;
}

static bool parse_object(struct parser *ps, struct json_value *v)
{
	struct json_member m;
	size_t n = 0, keylen;
	bool done;

	for (;;) {
		if (!next_element(ps, n, '}', &done))
			return false;
		if (done)
			break;
		if (ps->p == ps->end || *ps->p != '"')
			return fail(ps, "string key expected");
		ps->p++;
		if (!parse_string(ps, &m.key, &keylen))
			return false;
		skip_space(ps);
		if (ps->p == ps->end || *ps->p != ':')
			return fail(ps, "':' expected after key");
		ps->p++;
		if (!parse_value(ps, &m.value))
			return false;
		if (!scratch_push(&ps->members, &m, sizeof(m)))
			return out_of_memory(ps);
		n++;
	}
	v->type = JSON_OBJECT;
	v->obj.n = n;
	v->obj.members = settle(ps, &ps->members, n, sizeof(m));
	return !ps->failed;
}

/* Recursion is bounded by JSON_MAX_DEPTH, so a file of a million '[' fails
 * cleanly instead of overflowing the stack. */
static bool parse_container(struct parser *ps, struct json_value *v)
{
	char open = *ps->p;
	bool ok;

	if (ps->depth == JSON_MAX_DEPTH)
		return fail(ps, "nesting deeper than %d", JSON_MAX_DEPTH);
	ps->depth++;
	ps->p++;
	ok = open == '[' ? parse_array(ps, v) : parse_object(ps, v);
	ps->depth--;
	return ok;
}

static bool parse_value(struct parser *ps, struct json_value *v)
{
	memset(v, 0, sizeof(*v));
	skip_space(ps);
	if (ps->p == ps->end)
		return fail(ps, "unexpected end of input");
	switch (*ps->p) {
	case '[':
	case '{':
		return parse_container(ps, v);
	case '"':
		ps->p++;
		v->type = JSON_STRING;
		return parse_string(ps, &v->str.s, &v->str.len);
	case '-':
	case '0' ... '9':
		return parse_number(ps, v);
	default:
		return parse_literal(ps, v);
	}
}

struct json_doc *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser ps = { .start = text, .p = text, .end = text + len,
			     .err = err, .errlen = errlen };
	bool ok;

	ps.doc = calloc(1, sizeof(*ps.doc));
	if (!ps.doc) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ok = parse_value(&ps, &ps.doc->root);
	skip_space(&ps);
	if (ok && ps.p != ps.end)
		ok = fail(&ps, "trailing characters after the value");
	free(ps.values.data);
	free(ps.members.data);
	free(ps.chars.data);
	if (!ok) {
		json_free(ps.doc);
		return NULL;
	}
	return ps.doc;
}

int json_parse_file(const char *path, struct json_doc **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct scratch text = { 0 };
	char chunk[16384];
	size_t n;
	int ret = 0;

	*out = NULL;
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (!scratch_push(&text, chunk, n)) {
			ret = -ENOMEM;
			break;
		}
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	else if (!(*out = json_parse(text.data ? text.data : "", text.len, err, errlen)))
		ret = -EBADMSG;
	free(text.data);
	return ret;
}

/* ---- lookups ------------------------------------------------------------------ */

const struct json_value *json_root(const struct json_doc *doc)
{
	return &doc->root;
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->obj.n; i++)
		if (!strcmp(obj->obj.members[i].key, key))
			return &obj->obj.members[i].value;
	return NULL;
}

size_t json_count(const struct json_value *arr)
{
	return arr && arr->type == JSON_ARRAY ? arr->arr.n : 0;
}

const struct json_value *json_at(const struct json_value *arr, size_t i)
{
	return i < json_count(arr) ? &arr->arr.items[i] : NULL;
}

const char *json_string(const struct json_value *v)
{
	return v && v->type == JSON_STRING ? v->str.s : NULL;
}

bool json_u64(const struct json_value *v, uint64_t *out)
{
	if (!v || v->type != JSON_NUMBER || !v->num.is_u64)
		return false;
	*out = v->num.u;
	return true;
}

bool json_i64(const struct json_value *v, int64_t *out)
{
	if (!v || v->type != JSON_NUMBER || !v->num.is_i64)
		return false;
	*out = v->num.i;
	return true;
}

bool json_bool(const struct json_value *v, bool *out)
{
	if (!v || v->type != JSON_BOOL)
		return false;
	*out = v->boolean;
	return true;
}
