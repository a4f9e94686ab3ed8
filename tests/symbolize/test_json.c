/* test_json.c - the emitter escapes per RFC 8259 and the parser is strict,
 * exact with big integers, and says where it failed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"

/* What json_str writes for s. */
static char *escaped(const char *s)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	json_str(f, s);
	fclose(f);
	return out;
}

static struct json_doc *parse(const char *text, char *err)
{
	return json_parse(text, strlen(text), err, 128);
}

/* Parses text, expects failure, returns the message. */
static const char *parse_error(const char *text)
{
	static char err[128];

	assert_null(parse(text, err));
	return err;
}

static void test_str_escapes_quotes_backslash_and_controls(void **state)
{
	(void)state;
	assert_string_equal(escaped("a\"b\\c"), "\"a\\\"b\\\\c\"");
	assert_string_equal(escaped("\n\t\x01\x1f"), "\"\\u000A\\u0009\\u0001\\u001F\"");
	assert_string_equal(escaped("/"), "\"/\"");
}

static void test_str_passes_utf8_and_replaces_invalid_bytes(void **state)
{
	(void)state;
	assert_string_equal(escaped("caf\xc3\xa9 \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
	assert_string_equal(escaped("a\xff" "b"), "\"a\\uFFFDb\"");
	assert_string_equal(escaped("\xc3"), "\"\\uFFFD\"");            /* truncated sequence */
	assert_string_equal(escaped("\xc0\xaf"), "\"\\uFFFD\\uFFFD\""); /* overlong '/' */
	assert_string_equal(escaped("\xed\xa0\x80"), "\"\\uFFFD\\uFFFD\\uFFFD\""); /* surrogate */
}

static void test_writer_lays_out_manifest_shape(void **state)
{
	char out[512];
	FILE *f = fmemopen(out, sizeof(out), "w");
	struct json_writer w;

	(void)state;
	json_writer_init(&w, f);
	json_open(&w, NULL, '{');
	json_put_str(&w, "format_version", "2.1");
	json_open(&w, "threads", '[');
	json_open(&w, NULL, '{');
	json_put_u64(&w, "id", 0);
	json_put_bool(&w, "has_detail", false);
	json_open(&w, "dropped", '{');
	json_put_i64(&w, "ring_full", -1);
	json_close(&w);
	json_close(&w);
	json_close(&w);
	json_put_hex(&w, "fid", 0x100000003ull, 16);
	json_open(&w, "empty", '[');
	json_close(&w);
	json_close(&w);
	fclose(f);
	assert_string_equal(out,
			    "{\n"
			    "  \"format_version\": \"2.1\",\n"
			    "  \"threads\": [\n"
			    "    {\"id\": 0, \"has_detail\": false, \"dropped\": {\"ring_full\": -1}}\n"
			    "  ],\n"
			    "  \"fid\": \"0x0000000100000003\",\n"
			    "  \"empty\": []\n"
			    "}\n");
}

static void test_parse_objects_arrays_and_literals(void **state)
{
	char err[128];
	struct json_doc *doc = parse(" {\"a\": [1, true, null, \"x\"], \"b\": {\"c\": false}} ", err);
	const struct json_value *a, *root;
	bool b = true;

	(void)state;
	assert_non_null(doc);
	root = json_root(doc);
	a = json_get(root, "a");
	assert_int_equal(json_count(a), 4);
	assert_int_equal(json_at(a, 1)->type, JSON_BOOL);
	assert_int_equal(json_at(a, 2)->type, JSON_NULL);
	assert_string_equal(json_string(json_at(a, 3)), "x");
	assert_null(json_at(a, 4));
	assert_true(json_bool(json_get(json_get(root, "b"), "c"), &b));
	assert_false(b);
	assert_null(json_get(root, "missing"));
	assert_null(json_string(json_at(a, 0)));
	json_free(doc);
}

static void test_parse_unicode_escapes_and_surrogate_pairs(void **state)
{
	char err[128];
	struct json_doc *doc = parse("[\"\\u00e9\\ud83d\\ude00\\n\\/\", \"a\\u0000b\"]", err);
	const struct json_value *root;

	(void)state;
	assert_non_null(doc);
	root = json_root(doc);
	assert_string_equal(json_string(json_at(root, 0)), "\xc3\xa9\xf0\x9f\x98\x80\n/");
	assert_int_equal(json_at(root, 1)->str.len, 3);
	json_free(doc);
	assert_non_null(strstr(parse_error("[\"\\ud83d\"]"), "high surrogate"));
	assert_non_null(strstr(parse_error("[\"\\ude00\"]"), "lone low surrogate"));
}

/* The first string of a document being empty once copied from no buffer
 * at all (memcpy from NULL: found by make fuzz). */
static void test_parse_empty_first_string(void **state)
{
	char err[128];
	struct json_doc *doc = parse("[\"\", \"a\"]", err);

	(void)state;
	assert_non_null(doc);
	assert_string_equal(json_string(json_at(json_root(doc), 0)), "");
	assert_int_equal(json_at(json_root(doc), 0)->str.len, 0);
	assert_string_equal(json_string(json_at(json_root(doc), 1)), "a");
	json_free(doc);
}

static void test_parse_keeps_big_integers_exact(void **state)
{
	char err[128];
	struct json_doc *doc = parse("[18446744073709551615, -9223372036854775808, "
				     "9007199254740993, 18446744073709551616, 1.5, 2e3]", err);
	const struct json_value *root;
	uint64_t u;
	int64_t i;

	(void)state;
	assert_non_null(doc);
	root = json_root(doc);
	assert_true(json_u64(json_at(root, 0), &u));
	assert_true(u == UINT64_MAX);
	assert_false(json_i64(json_at(root, 0), &i));
	assert_true(json_i64(json_at(root, 1), &i));
	assert_true(i == INT64_MIN);
	assert_false(json_u64(json_at(root, 1), &u));
	assert_true(json_u64(json_at(root, 2), &u));
	assert_true(u == 9007199254740993ull); /* 2^53 + 1: not a double */
	assert_false(json_u64(json_at(root, 3), &u)); /* too big: only a double */
	assert_false(json_u64(json_at(root, 4), &u));
	assert_true(json_at(root, 4)->num.d == 1.5);
	assert_false(json_u64(json_at(root, 5), &u)); /* exponent: not an integer token */
	json_free(doc);
}

static void test_parse_errors_name_the_byte_offset(void **state)
{
	(void)state;
	assert_string_equal(parse_error("{\"a\" 1}"), "byte 5: ':' expected after key");
	assert_string_equal(parse_error("[1,]"), "byte 3: unexpected character ']'");
	assert_string_equal(parse_error("[1 2]"), "byte 3: ',' or ']' expected");
	assert_string_equal(parse_error("01"), "byte 2: bad number");
	assert_string_equal(parse_error("{} x"), "byte 3: trailing characters after the value");
	assert_string_equal(parse_error("\"abc"), "byte 4: unterminated string");
	assert_string_equal(parse_error("\"a\tb\""), "byte 2: control character 0x09 in string");
	assert_string_equal(parse_error("\"\xff\""), "byte 1: invalid UTF-8 in string");
	assert_string_equal(parse_error(""), "byte 0: unexpected end of input");
	assert_string_equal(parse_error("tru"), "byte 0: unexpected character 't'");
}

static void test_parse_refuses_nesting_past_the_limit(void **state)
{
	char text[2 * JSON_MAX_DEPTH + 3], err[128];
	struct json_doc *doc;

	(void)state;
	memset(text, '[', JSON_MAX_DEPTH);
	memset(text + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	text[2 * JSON_MAX_DEPTH] = '\0';
	doc = parse(text, err);
	assert_non_null(doc);
	json_free(doc);

	memset(text, '[', JSON_MAX_DEPTH + 1);
	memset(text + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	text[2 * JSON_MAX_DEPTH + 2] = '\0';
	assert_non_null(strstr(parse_error(text), "nesting deeper than"));
}

static void test_parse_large_array_of_objects(void **state)
{
	enum { N = 20000 };
	size_t cap = N * 32 + 16, len = 0;
	char *text = malloc(cap), err[128];
	struct json_doc *doc;
	uint64_t v;

	(void)state;
	len += (size_t)sprintf(text + len, "[");
	for (int i = 0; i < N; i++)
		len += (size_t)sprintf(text + len, "%s{\"id\": %d, \"s\": \"f%d\"}", i ? "," : "", i, i);
	sprintf(text + len, "]");
	doc = parse(text, err);
	assert_non_null(doc);
	assert_int_equal(json_count(json_root(doc)), N);
	assert_true(json_u64(json_get(json_at(json_root(doc), N - 1), "id"), &v));
	assert_int_equal(v, N - 1);
	assert_string_equal(json_string(json_get(json_at(json_root(doc), 77), "s")), "f77");
	json_free(doc);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_str_escapes_quotes_backslash_and_controls),
		cmocka_unit_test(test_str_passes_utf8_and_replaces_invalid_bytes),
		cmocka_unit_test(test_writer_lays_out_manifest_shape),
		cmocka_unit_test(test_parse_objects_arrays_and_literals),
		cmocka_unit_test(test_parse_unicode_escapes_and_surrogate_pairs),
		cmocka_unit_test(test_parse_empty_first_string),
		cmocka_unit_test(test_parse_keeps_big_integers_exact),
		cmocka_unit_test(test_parse_errors_name_the_byte_offset),
		cmocka_unit_test(test_parse_refuses_nesting_past_the_limit),
		cmocka_unit_test(test_parse_large_array_of_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
