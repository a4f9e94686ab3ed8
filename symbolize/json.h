/* json.h - the little JSON ada needs: an emitter for manifest.json and a
 * strict parser that reads it back (validator, views).
 *
 * The parser follows RFC 8259 with no extensions, limits nesting depth so a
 * hostile file cannot exhaust the stack, and keeps integers exact: function
 * ids and nanosecond timestamps do not fit in a double.
 */
#ifndef ADA_JSON_H
#define ADA_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- emitter ------------------------------------------------------------------ */

/* Writes s as a JSON string with its quotes: control characters as \u00XX,
 * valid UTF-8 passed through, each byte of an invalid sequence as \uFFFD. */
void json_str(FILE *f, const char *s);

/* A streaming writer that places commas and line breaks: members of the top
 * two levels go one per line, deeper containers on one line, so a manifest
 * shows one thread, module or symbol per line. `key` is NULL for array
 * elements. The caller checks ferror(f) at the end. */
#define JSON_MAX_DEPTH 64

struct json_writer {
	FILE *f;
	unsigned depth;                      /* open containers */
	bool has_member[JSON_MAX_DEPTH + 1]; /* per open container */
	char closer[JSON_MAX_DEPTH + 1];     /* '}' or ']' per open container */
};

void json_writer_init(struct json_writer *w, FILE *f);
void json_open(struct json_writer *w, const char *key, char bracket); /* '{' or '[' */
void json_close(struct json_writer *w);
void json_put_str(struct json_writer *w, const char *key, const char *s);
void json_put_u64(struct json_writer *w, const char *key, uint64_t v);
void json_put_i64(struct json_writer *w, const char *key, int64_t v);
void json_put_bool(struct json_writer *w, const char *key, bool v);
/* "0x" and at least `digits` lowercase hex digits, as a string. */
void json_put_hex(struct json_writer *w, const char *key, uint64_t v, int digits);

/* Length of the well-formed UTF-8 sequence at p (n bytes available), or 0 if
 * there is none there. */
size_t json_utf8_seq(const uint8_t *p, size_t n);

/* ---- parser ------------------------------------------------------------------- */

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_member;

struct json_value {
	enum json_type type;
	union {
		bool boolean;
		struct {
			double d;      /* always set */
			int64_t i;     /* exact, when is_i64 */
			uint64_t u;    /* exact, when is_u64 */
			bool is_i64, is_u64;
		} num;
		struct {
			const char *s; /* NUL-terminated; may hold \u0000 before len */
			size_t len;
		} str;
		struct {
			struct json_value *items;
			size_t n;
		} arr;
		struct {
			struct json_member *members; /* in document order */
			size_t n;
		} obj;
	};
};

struct json_member {
	const char *key;
	struct json_value value;
};

struct json_doc; /* owns every value and string of one parse */

/* Parses text[0, len). Returns NULL with "byte <offset>: <reason>" in err. */
struct json_doc *json_parse(const char *text, size_t len, char *err, size_t errlen);
/* Reads and parses a file. Returns 0 or a negative errno (-EBADMSG for bad
 * JSON); err holds the reason without the path. */
int json_parse_file(const char *path, struct json_doc **out, char *err, size_t errlen);
const struct json_value *json_root(const struct json_doc *doc);
void json_free(struct json_doc *doc);

/* Lookups: NULL (or false) when the value is missing or of another type. */
const struct json_value *json_get(const struct json_value *obj, const char *key);
size_t json_count(const struct json_value *arr); /* 0 for a non-array */
const struct json_value *json_at(const struct json_value *arr, size_t i);
const char *json_string(const struct json_value *v);
bool json_u64(const struct json_value *v, uint64_t *out);
bool json_i64(const struct json_value *v, int64_t *out);
bool json_bool(const struct json_value *v, bool *out);

#endif
