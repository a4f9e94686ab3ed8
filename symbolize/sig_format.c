/* sig_format.c - a call's arguments and a return's value as text, by the
 * function's signature (sig.h): integers signed or unsigned by their type,
 * bool, characters, enumerators by name, pointers in hex, float and double
 * from the SSE registers in their shortest exact form, and a char pointer
 * as its text where the detail record's stack window holds the bytes.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "sig.h"

#define STRING_MAX 48 /* characters of a string shown before "..." */

struct text {
	char *p;
	size_t n, cap; /* cap counts the NUL; n stops at cap - 1 */
};

static void add(struct text *t, const char *s, size_t len)
{
	if (t->n + len >= t->cap)
		len = t->cap - 1 - t->n;
	fmt_str(t->p + t->n, s, len); /* short: inline, not the C library's memcpy */
	t->n += len;
	t->p[t->n] = '\0';
}

static void adds(struct text *t, const char *s)
{
	add(t, s, strlen(s));
}

/* Integers without printf, which was a sixth of a typed replay's time. */
static void add_u64(struct text *t, uint64_t v)
{
	char buf[24];

	if (t->n + 20 < t->cap) { /* room for any: written in place */
		t->n = (size_t)(fmt_u64(t->p + t->n, v) - t->p);
		t->p[t->n] = '\0';
		return;
	}
	add(t, buf, (size_t)(fmt_u64(buf, v) - buf));
}

static void add_i64(struct text *t, int64_t v)
{
	if (v < 0)
		add(t, "-", 1);
	add_u64(t, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

static void add_hex(struct text *t, uint64_t v)
{
	char buf[24];

	add(t, buf, (size_t)(fmt_hex(buf, v) - buf));
}

/* One character as C writes it inside quotes q. */
static void add_char(struct text *t, unsigned char c, char q)
{
	static const char esc[] = { '\n', 'n', '\t', 't', '\r', 'r', '\0', '0', '\\', '\\' };

	for (size_t i = 0; i < sizeof(esc); i += 2)
		if (c == (unsigned char)esc[i]) {
			add(t, (char[]){ '\\', esc[i + 1] }, 2);
			return;
		}
	if (c == (unsigned char)q)
		add(t, (char[]){ '\\', q }, 2);
	else if (c >= 0x20 && c < 0x7f)
		add(t, (const char *)&c, 1);
	else
		add(t, (char[]){ '\\', 'x', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15] }, 4);
}

static int64_t sign_extend(uint64_t w, unsigned size)
{
	unsigned shift = size >= 8 ? 0 : 64 - 8 * size;

	return (int64_t)(w << shift) >> shift;
}

static uint64_t zero_extend(uint64_t w, unsigned size)
{
	return size >= 8 ? w : w & ((1ull << (8 * size)) - 1);
}

/* The shortest %g that reads back as d (a float's value: as a float). */
static void add_real(struct text *t, double d, bool is_float)
{
	char buf[40];

	if (isnan(d) || isinf(d)) {
		adds(t, isnan(d) ? "nan" : d < 0 ? "-inf" : "inf");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (is_float ? strtof(buf, NULL) == (float)d : strtod(buf, NULL) == d)
			break;
	}
	adds(t, buf);
}

/* n bytes as a C string: quoted up to the first NUL, cut with "..." after
 * STRING_MAX characters or where the bytes end without one. */
static void add_quoted(struct text *t, const uint8_t *s, size_t n)
{
	size_t i;

	add(t, "\"", 1);
	for (i = 0; i < n && s[i] && i < STRING_MAX; i++)
		add_char(t, s[i], '"');
	add(t, "\"", 1);
	if (i == n || s[i])
		adds(t, "...");
}

/* The text at address a where the stack window or the binary holds it,
 * else a in hex. */
static void add_string(struct text *t, uint64_t a, const struct sig_frame *fr)
{
	uint64_t off = a - fr->sp;
	uint8_t buf[STRING_MAX + 1];
	size_t n;

	if (fr->stack && a >= fr->sp && off < fr->stack_size)
		add_quoted(t, fr->stack + off, fr->stack_size - (size_t)off);
	else if (a && fr->read_const && (n = fr->read_const(fr->ctx, a, buf, sizeof(buf))))
		add_quoted(t, buf, n);
	else
		add_hex(t, a);
}

/* The 64-bit word that holds v, false if the record does not have it. */
static bool word_of(const struct sig_value *v, const struct sig_frame *fr, uint64_t *w)
{
	switch (v->loc) {
	case LOC_GPR:
		*w = fr->regs[v->reg];
		return true;
	case LOC_SSE:
		if (!fr->fregs)
			return false;
		*w = fr->fregs[v->reg];
		return true;
	case LOC_STACK:
		if (!fr->stack || v->stack_off + (v->size ? v->size : 8u) > fr->stack_size)
			return false;
		*w = 0;
		memcpy(w, fr->stack + v->stack_off, v->size && v->size < 8 ? v->size : 8);
		return true;
	default:
		return false;
	}
}

static void add_value(struct text *t, const struct sig_value *v, const struct sig_frame *fr)
{
	uint64_t w;

	if (v->kind == SIG_AGGREGATE || v->loc == LOC_MEMORY) {
		adds(t, "{...}");
		return;
	}
	if (v->kind == SIG_OTHER || !word_of(v, fr, &w)) {
		adds(t, "?");
		return;
	}
	switch (v->kind) {
	case SIG_SIGNED:
		add_i64(t, sign_extend(w, v->size));
		break;
	case SIG_UNSIGNED:
		add_u64(t, zero_extend(w, v->size));
		break;
	case SIG_BOOL:
		adds(t, w & 0xff ? "true" : "false");
		break;
	case SIG_CHAR:
		add(t, "'", 1);
		add_char(t, (unsigned char)w, '\'');
		add(t, "'", 1);
		break;
	case SIG_ENUM: {
		int64_t e = v->is_signed ? sign_extend(w, v->size) : (int64_t)zero_extend(w, v->size);

		for (uint32_t i = 0; i < v->nenum; i++)
			if (v->enums[i].value == e) {
				adds(t, v->enums[i].name);
				return;
			}
		if (v->is_signed)
			add_i64(t, e);
		else
			add_u64(t, (uint64_t)e);
		break;
	}
	case SIG_POINTER:
		add_hex(t, w);
		break;
	case SIG_STRING:
		add_string(t, w, fr);
		break;
	case SIG_FLOAT:
		if (v->size == 4) {
			float f;
			uint32_t lo = (uint32_t)w;

			memcpy(&f, &lo, 4);
			add_real(t, f, true);
		} else {
			double d;

			memcpy(&d, &w, 8);
			add_real(t, d, false);
		}
		break;
	default:
		adds(t, "?");
	}
}

/* v's text alone into out; its length (an empty out for none). */
static size_t format_value(const struct sig_value *v, const struct sig_frame *fr, char *out,
			   size_t len)
{
	struct text t = { out, 0, len };

	if (!len)
		return 0;
	out[0] = '\0';
	if (v)
		add_value(&t, v, fr);
	return t.n;
}

size_t sig_format_param(const struct ada_sig *sig, uint32_t i, const struct sig_frame *fr,
			char *out, size_t len)
{
	return format_value(&sig->params[i], fr, out, len);
}

size_t sig_format_args(const struct ada_sig *sig, const struct sig_frame *fr, char *out, size_t len)
{
	struct text t = { out, 0, len };

	if (!len)
		return 0;
	out[0] = '\0';
	for (uint32_t i = 0; i < sig->nparams; i++) {
		const struct sig_value *v = &sig->params[i];

		if (i)
			adds(&t, ", ");
		if (v->name) {
			adds(&t, v->name);
			adds(&t, "=");
		}
		add_value(&t, v, fr);
	}
	if (sig->variadic)
		adds(&t, sig->nparams ? ", ..." : "...");
	return t.n;
}

size_t sig_format_ret(const struct ada_sig *sig, const struct sig_frame *fr, char *out, size_t len)
{
	return format_value(sig->ret.kind != SIG_VOID ? &sig->ret : NULL, fr, out, len);
}
