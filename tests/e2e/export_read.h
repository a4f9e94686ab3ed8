/* export_read.h - reading back what `ada-symbolize chrome` and `perfetto`
 * wrote, for test_views_export.c.
 *
 * The JSON goes through symbolize/json.c's strict parser; its complete
 * events become slices with times in integer nanoseconds. The protobuf
 * trace is read from `protoc --decode_raw`'s text (field numbers only, no
 * schema), as a tree of fields.
 */
#ifndef ADA_TEST_EXPORT_READ_H
#define ADA_TEST_EXPORT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

struct xslice {                   /* a complete event, "ph": "X" */
	uint32_t pid, tid;
	const char *name, *cat;
	int64_t ts, dur;          /* ns */
	const struct json_value *args;
	size_t order;             /* position in traceEvents */
};

struct xtrace {
	struct json_doc *doc;
	const struct json_value *root, *events;
	struct xslice *slices;
	size_t n;
};

/* Parses the file and checks its frame: an object with traceEvents (an
 * array), displayTimeUnit "ns", otherData (an object); every event has a
 * string "ph" and integer pid and tid, every X event a string name and cat,
 * numbers ts and dur, an object args. Returns 0, or -1 with the reason. */
int xtrace_load(const char *path, struct xtrace *t, char *err, size_t errlen);
void xtrace_free(struct xtrace *t);

/* The args.name of the metadata event `what` ("process_name",
 * "thread_name") for pid (and tid, for a thread); NULL if there is none. */
const char *xtrace_meta(const struct xtrace *t, const char *what, uint32_t pid, uint32_t tid);
/* Metadata events named `what`. */
size_t xtrace_meta_count(const struct xtrace *t, const char *what);

/* Whether each thread's slices nest as a viewer reads them: sorted by ts,
 * ties in file order, each one inside the one open before it or after its
 * end. False with the two slices that overlap in why. */
bool xtrace_nests(const struct xtrace *t, char *why, size_t len);

#define XSLICE_ROOT SIZE_MAX

/* Each slice's parent (an index in t->slices, XSLICE_ROOT for none), in
 * t->slices order; malloc'd. NULL if the slices do not nest. */
size_t *xtrace_parents(const struct xtrace *t);

/* Orders slices by pid, tid and ts (qsort's sign convention). */
int xslice_cmp_place(const struct xslice *x, const struct xslice *y);

/* A JSON time in microseconds (a number) as integer nanoseconds; false if
 * v is no number. */
bool xtrace_time_ns(const struct json_value *v, int64_t *ns);

/* A string member of a slice's args, NULL if missing. */
const char *xslice_arg(const struct xslice *s, const char *key);

/* ---- protoc --decode_raw ----------------------------------------------------- */

struct pnode {
	uint32_t field;
	char *value;              /* the text after "N: " (strings unquoted); NULL
				   * for a message */
	struct pnode *kids;
	size_t nkids;
};

/* Parses decode_raw's text into root's kids. 0, or -1 with the reason. */
int pnode_parse(const char *text, struct pnode *root, char *err, size_t errlen);
void pnode_free(struct pnode *n);
/* The first child with this field number, NULL if none. */
const struct pnode *pnode_get(const struct pnode *n, uint32_t field);
/* A varint child's value; false if missing. */
bool pnode_u64(const struct pnode *n, uint32_t field, uint64_t *v);

#endif
