/* fuzz_json.c - libFuzzer target: the manifest's JSON parser (symbolize/json.c).
 *
 * The input is the text. A parse that succeeds is walked the way the
 * validator and the views read a manifest: every member, every item, the
 * typed getters, so a value the parser built wrongly is touched.
 */
#include <stddef.h>
#include <stdint.h>

#include "json.h"

static void walk(const struct json_value *v, unsigned depth)
{
	uint64_t u;
	int64_t i;
	bool b;
	size_t k;

	(void)json_u64(v, &u), (void)json_i64(v, &i), (void)json_bool(v, &b);
	if (json_string(v))
		(void)json_utf8_seq((const uint8_t *)v->str.s, v->str.len);
	for (k = 0; k < json_count(v); k++)
		walk(json_at(v, k), depth + 1);
	if (v->type == JSON_OBJECT)
		for (k = 0; k < v->obj.n; k++) {
			walk(&v->obj.members[k].value, depth + 1);
			(void)json_get(v, v->obj.members[k].key);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	struct json_doc *doc = json_parse((const char *)data, size, err, sizeof(err));

	if (doc) {
		walk(json_root(doc), 0);
		json_free(doc);
	}
	return 0;
}
