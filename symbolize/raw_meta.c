/* raw_meta.c - loading raw/process.meta (format: runtime/RAW_FORMAT.md). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "raw.h"
#include "proc_state.h"

#define META_MAX (1u << 30) /* a meta file holds no events: 1 GiB is corrupt */
/* A record the file ends inside was cut short by a crash (RAW_FORMAT.md §2),
 * but only if its size is one a writer could have written: libada's largest
 * records are a FUNCS of one drain (64 Ki addresses, 512 KiB) and the
 * PROCESS record (8 KiB); recovery's FUNCS lists a ring's new functions. A
 * larger size is a corrupt header, which would otherwise silently drop
 * every record after it. */
#define META_RECORD_MAX (64u << 20)

static int fail(const char *path, const char *what, int err)
{
	fprintf(stderr, "ada-symbolize: %s: %s\n", path, what);
	return err;
}

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long size;

	if (!f)
		return fail(path, strerror(errno), -errno);
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    (size_t)size > META_MAX) {
		fclose(f);
		return fail(path, "cannot read (not a regular file, or too large)", -EIO);
	}
	*buf = malloc((size_t)size + 1);
	if (!*buf || fread(*buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(*buf);
		return fail(path, "read failed", -EIO);
	}
	fclose(f);
	*len = (size_t)size;
	return 0;
}

/* Appends an element to the growable array *arr of elements of `size`
 * bytes. On failure *arr stays as it was, and its elements still owned. */
static int push(void *arr, size_t *n, size_t size, const void *elem)
{
	char *p = realloc(*(void **)arr, (*n + 1) * size);

	if (!p)
		return -ENOMEM;
	memcpy(p + *n * size, elem, size);
	(*n)++;
	*(void **)arr = p;
	return 0;
}

/* "a\0b\0c\0" → "a b c" */
static char *join_strings(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);
	size_t i;

	if (!s)
		return NULL;
	memcpy(s, p, len);
	s[len] = '\0';
	while (len && s[len - 1] == '\0')
		len--;
	for (i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return s;
}

static int add_funcs(struct raw_process *p, const uint8_t *rec, size_t size)
{
	struct ada_meta_funcs f;
	size_t need, i;
	uint64_t *arr;

	memcpy(&f, rec, sizeof(f));
	if ((size - sizeof(f)) / 8 < f.count || f.first_fid != p->nfids + 1)
		return -EINVAL; /* fids are assigned densely, in order */
	need = p->nfids + f.count + 1;
	arr = realloc(p->fid_addr, need * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	arr[0] = 0;
	for (i = 0; i < f.count; i++)
		memcpy(&arr[p->nfids + 1 + i], rec + sizeof(f) + 8 * i, 8);
	p->fid_addr = arr;
	p->nfids += f.count;
	return 0;
}

/* The string after a record's struct of `hdr` bytes (HOOKED's name, RING's
 * path), copied. It must end inside the payload: the padding after it is not
 * part of the record, and an unterminated string was not written by libada.
 * Bytes after the NUL are left for a newer writer. An empty string names
 * nothing. */
static int record_string(const uint8_t *rec, size_t size, size_t hdr, char **out)
{
	const char *str = (const char *)rec + hdr;

	if (!memchr(str, '\0', size - hdr) || !*str)
		return -EINVAL;
	*out = strdup(str);
	return *out ? 0 : -ENOMEM;
}

static int add_hooked(struct raw_process *p, const uint8_t *rec, size_t size)
{
	struct ada_meta_hooked h;
	struct raw_hooked e;
	int err = record_string(rec, size, sizeof(h), &e.name);

	if (err)
		return err;
	memcpy(&h, rec, sizeof(h));
	e.addr = h.addr;
	e.seq = p->nhooked;
	if (push(&p->hooked, &p->nhooked, sizeof(e), &e)) {
		free(e.name);
		return -ENOMEM;
	}
	return 0;
}

static struct raw_thread *thread_slot(struct raw_process *p, uint32_t ordinal)
{
	size_t i;

	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].t.ordinal == ordinal)
			return &p->threads[i];
	return NULL;
}

/* The thread a THREAD_END or RECOVERED record names; one that registered but
 * has no THREAD record (it recorded nothing) gets an entry of its own. */
static struct raw_thread *thread_slot_add(struct raw_process *p, uint32_t ordinal)
{
	struct raw_thread t = { .t.ordinal = ordinal }, *slot = thread_slot(p, ordinal);

	if (slot)
		return slot;
	if (push(&p->threads, &p->nthreads, sizeof(t), &t))
		return NULL;
	return &p->threads[p->nthreads - 1];
}

static int add_module(struct raw_process *p, const uint8_t *rec, size_t size)
{
	struct raw_module m = { 0 };

	memcpy(&m.m, rec, sizeof(m.m));
	if (m.m.build_id_len > sizeof(m.m.build_id))
		return -EINVAL;
	m.path = strndup((const char *)rec + sizeof(m.m), size - sizeof(m.m));
	if (!m.path || push(&p->modules, &p->nmodules, sizeof(m), &m)) {
		free(m.path);
		return -ENOMEM;
	}
	return 0;
}

/* A thread registers once: two THREAD records of one ordinal would make two
 * threads of one file. (THREAD_END may come again: an exec that failed
 * wrote one, and the thread went on.) */
static int add_thread(struct raw_process *p, const uint8_t *rec)
{
	struct raw_thread t = { .registered = true }, *slot;

	memcpy(&t.t, rec, sizeof(t.t));
	slot = thread_slot(p, t.t.ordinal);
	if (slot && slot->registered)
		return -EEXIST;
	if (slot) { /* its THREAD_END or RECOVERED came first */
		slot->t = t.t;
		slot->registered = true;
		return 0;
	}
	return push(&p->threads, &p->nthreads, sizeof(t), &t);
}

/* Version 2 wrote 80 bytes, version 3 adds waits and wait_ns, version 6
 * the samples: read what is there (add_record checked the 80). */
static int add_thread_end(struct raw_process *p, const uint8_t *rec, size_t size)
{
	struct ada_meta_thread_end e = { 0 };
	struct raw_thread *slot;

	memcpy(&e, rec, size < sizeof(e) ? size : sizeof(e));
	slot = thread_slot_add(p, e.ordinal);
	if (!slot)
		return -ENOMEM;
	slot->end = e;
	slot->ended = true;
	slot->has_waits = size >= ADA_META_THREAD_END_V3;
	return 0;
}

static int add_ring(struct raw_process *p, const uint8_t *rec, size_t size)
{
	struct ada_meta_ring r;
	struct raw_ring e;
	int err = record_string(rec, size, sizeof(r), &e.path);

	if (err)
		return err;
	memcpy(&r, rec, sizeof(r));
	e.ordinal = r.ordinal;
	if (push(&p->rings, &p->nrings, sizeof(e), &e)) {
		free(e.path);
		return -ENOMEM;
	}
	return 0;
}

static int add_stack(struct raw_process *p, const uint8_t *rec)
{
	struct ada_meta_stack st;
	struct raw_thread *slot;

	memcpy(&st, rec, sizeof(st));
	slot = thread_slot_add(p, st.ordinal);
	if (!slot)
		return -ENOMEM;
	slot->stack = st;
	slot->is_stack = true;
	return 0;
}

/* The samples are the buckets' counts added up (the writer counts both at
 * once): the quantiles the manifest reports read them against each other. */
static int set_latency(struct raw_process *p, const uint8_t *rec)
{
	struct ada_meta_latency l;
	uint64_t sum = 0;
	unsigned b;

	memcpy(&l, rec, sizeof(l));
	for (b = 0; b < ADA_LATENCY_BUCKETS; b++)
		sum += l.counts[b];
	if (sum != l.samples)
		return -EINVAL;
	p->latency = l;
	p->has_latency = true;
	return 0;
}

/* One per recovery of a ring file; should a thread have more, they add up. */
static int add_recovered(struct raw_process *p, const uint8_t *rec)
{
	struct ada_meta_recovered r;
	struct raw_thread *slot;

	memcpy(&r, rec, sizeof(r));
	slot = thread_slot_add(p, r.ordinal);
	if (!slot)
		return -ENOMEM;
	slot->rec.ordinal = r.ordinal;
	slot->rec.events += r.events;
	slot->rec.lost += r.lost;
	if (r.end_tsc > slot->rec.end_tsc)
		slot->rec.end_tsc = r.end_tsc;
	slot->recovered = true;
	return 0;
}

/* The module it names must have been recorded before, and not unloaded. */
static int add_unload(struct raw_process *p, const uint8_t *rec)
{
	struct ada_meta_unload u;
	size_t i;

	memcpy(&u, rec, sizeof(u));
	for (i = p->nmodules; i-- > 0;) {
		struct raw_module *m = &p->modules[i];

		if (m->m.module_no != u.module_no)
			continue;
		if (m->unloaded)
			break;
		m->unloaded = true;
		m->unload_tsc = u.unload_tsc;
		return 0;
	}
	return -EINVAL;
}

/* A module without a build-id: its file's identity, once, for a module
 * recorded before. */
static int add_file(struct raw_process *p, const uint8_t *rec)
{
	struct ada_meta_file f;

	memcpy(&f, rec, sizeof(f));
	for (size_t i = p->nmodules; i-- > 0;) {
		struct raw_module *m = &p->modules[i];

		if (m->m.module_no != f.module_no)
			continue;
		if (m->has_file || m->m.build_id_len)
			break;
		m->file = f;
		m->has_file = true;
		return 0;
	}
	return -EINVAL;
}

/* A window says what it holds of its own positions: a trigger the reader
 * knows, first_pos <= last_pos, no more detail records kept than it has
 * events (one each), and no more kept and lost than positions 0..last_pos
 * hold (lost also counts a pre-roll cut short: positions before first_pos
 * written before the trigger was seen). The label is bytes, no NUL: the
 * record's size says where it ends. Its thread is checked once the whole
 * file is read (check_windows). `why` says what is wrong. */
static int add_window(struct raw_process *p, const uint8_t *rec, size_t size, size_t off,
		      char *why, size_t why_len)
{
	static const char *const trig_names[] = ADA_TRIG_NAMES;
	const uint32_t ntrig = sizeof(trig_names) / sizeof(trig_names[0]) - 1;
	const size_t label_len = size - sizeof(struct ada_meta_window);
	struct raw_window e = { .offset = off };
	const struct ada_meta_window *w = &e.w;
	unsigned __int128 events;

	memcpy(&e.w, rec, sizeof(e.w));
	events = (unsigned __int128)(w->last_pos - w->first_pos) + 1;
	if (w->first_pos > w->last_pos)
		snprintf(why, why_len, "window of thread %u: first_pos %llu > last_pos %llu",
			 w->ordinal, (unsigned long long)w->first_pos, (unsigned long long)w->last_pos);
	else if (w->trigger < 1 || w->trigger > ntrig)
		snprintf(why, why_len, "window of thread %u: trigger %u, expected 1..%u (%s..%s)",
			 w->ordinal, w->trigger, ntrig, trig_names[1], trig_names[ntrig]);
	else if (w->kept > events)
		snprintf(why, why_len, "window of thread %u: kept %llu detail records, more than positions %llu..%llu hold events",
			 w->ordinal, (unsigned long long)w->kept, (unsigned long long)w->first_pos,
			 (unsigned long long)w->last_pos);
	else if ((unsigned __int128)w->kept + w->lost > (unsigned __int128)w->last_pos + 1)
		snprintf(why, why_len, "window of thread %u: kept %llu + lost %llu detail records, more than positions 0..%llu hold events",
			 w->ordinal, (unsigned long long)w->kept, (unsigned long long)w->lost,
			 (unsigned long long)w->last_pos);
	else if (memchr(rec + sizeof(e.w), '\0', label_len))
		snprintf(why, why_len, "window of thread %u: a NUL byte in its label", w->ordinal);
	if (*why)
		return -EINVAL;
	e.label = strndup((const char *)rec + sizeof(e.w), label_len);
	if (!e.label || push(&p->windows, &p->nwindows, sizeof(e), &e)) {
		free(e.label);
		return -ENOMEM;
	}
	return 0;
}

/* A window's thread must be one with events, registered by a THREAD
 * record, wherever in the file. */
static int check_windows(const struct raw_process *p, const char *path)
{
	for (size_t i = 0; i < p->nwindows; i++) {
		const struct raw_window *e = &p->windows[i];
		const struct raw_thread *t = raw_process_thread(p, e->w.ordinal);
		char msg[160];

		if (t && t->registered)
			continue;
		snprintf(msg, sizeof(msg), "corrupt record (type %u) at offset %zu: window of thread %u, which has no THREAD record",
			 ADA_META_WINDOW, e->offset, e->w.ordinal);
		return fail(path, msg, -EINVAL);
	}
	return 0;
}

static int add_record(struct raw_process *p, uint32_t type, const uint8_t *rec, size_t size,
		      size_t off, char *why, size_t why_len)
{
	static const size_t min_size[] = {
		[ADA_META_PROCESS] = sizeof(struct ada_meta_process),
		[ADA_META_CLOCK] = sizeof(struct ada_meta_clock),
		[ADA_META_MODULE] = sizeof(struct ada_meta_module) + 1,
		[ADA_META_FUNCS] = sizeof(struct ada_meta_funcs),
		[ADA_META_THREAD] = sizeof(struct ada_meta_thread),
		[ADA_META_THREAD_END] = offsetof(struct ada_meta_thread_end, waits), /* version 2 */
		[ADA_META_CONFIG] = 0,
		[ADA_META_END] = offsetof(struct ada_meta_end, how), /* version 2 */
		[ADA_META_LATENCY] = sizeof(struct ada_meta_latency),
		[ADA_META_HOOKED] = sizeof(struct ada_meta_hooked) + 2, /* a name and its NUL */
		[ADA_META_DYNHOOK] = sizeof(struct ada_meta_dynhook),
		[ADA_META_RING] = sizeof(struct ada_meta_ring) + 2, /* a path and its NUL */
		[ADA_META_CRASH] = sizeof(struct ada_meta_crash),
		[ADA_META_RECOVERED] = sizeof(struct ada_meta_recovered),
		[ADA_META_STACK] = sizeof(struct ada_meta_stack),
		[ADA_META_UNLOAD] = sizeof(struct ada_meta_unload),
		[ADA_META_WINDOW] = sizeof(struct ada_meta_window),
		[ADA_META_PATCHED] = sizeof(struct ada_meta_patched),
		[ADA_META_PRODUCER] = 2, /* a version and its NUL */
		[ADA_META_FILE] = sizeof(struct ada_meta_file),
	};
	if (type >= sizeof(min_size) / sizeof(min_size[0]) || type == 0)
		return 0; /* a newer writer's record: skip it */
	if (size < min_size[type])
		return -EINVAL;
	switch (type) {
	case ADA_META_PROCESS: {
		size_t exe_len = strnlen((const char *)rec + sizeof(p->proc), size - sizeof(p->proc));

		/* One per file: a fork child and an exec'd image start files of
		 * their own. A second would say the file holds two processes. */
		if (p->exe)
			return -EEXIST;
		memcpy(&p->proc, rec, sizeof(p->proc));
		p->exe = strndup((const char *)rec + sizeof(p->proc), exe_len);
		if (exe_len < size - sizeof(p->proc))
			p->cmdline = cmdline_join((const char *)rec + sizeof(p->proc) + exe_len + 1,
						  size - sizeof(p->proc) - exe_len - 1);
		return p->exe ? 0 : -ENOMEM;
	}
	case ADA_META_CLOCK:
		return push(&p->clocks, &p->nclocks, sizeof(*p->clocks), rec);
	case ADA_META_MODULE:
		return add_module(p, rec, size);
	case ADA_META_FUNCS:
		return add_funcs(p, rec, size);
	case ADA_META_THREAD:
		return add_thread(p, rec);
	case ADA_META_THREAD_END:
		return add_thread_end(p, rec, size);
	case ADA_META_CONFIG:
		free(p->config);
		p->config = join_strings(rec, size);
		return 0;
	case ADA_META_END: /* version 2 has no how: an exit */
		memset(&p->end, 0, sizeof(p->end));
		memcpy(&p->end, rec, size < sizeof(p->end) ? size : sizeof(p->end));
		p->clean_end = true;
		return 0;
	case ADA_META_LATENCY:
		return set_latency(p, rec);
	case ADA_META_HOOKED:
		return add_hooked(p, rec, size);
	case ADA_META_DYNHOOK: /* rewritten after every pass: the last one holds */
		memcpy(&p->dynhook, rec, sizeof(p->dynhook));
		p->has_dynhook = true;
		return 0;
	case ADA_META_PATCHED: /* the same */
		memcpy(&p->patched, rec, sizeof(p->patched));
		p->has_patched = true;
		return 0;
	case ADA_META_PRODUCER: /* one per file, after PROCESS */
		if (p->producer || !memchr(rec, 0, size) || !rec[0]) {
			snprintf(why, why_len, "%s", p->producer ? "a second PRODUCER record"
								  : "expected a version and its NUL");
			return -EINVAL;
		}
		p->producer = strdup((const char *)rec);
		return p->producer ? 0 : -ENOMEM;
	case ADA_META_RING:
		return add_ring(p, rec, size);
	case ADA_META_CRASH: /* the first fatal signal is the one that ended it */
		if (!p->crashed)
			memcpy(&p->crash, rec, sizeof(p->crash));
		p->crashed = true;
		return 0;
	case ADA_META_RECOVERED:
		return add_recovered(p, rec);
	case ADA_META_STACK:
		return add_stack(p, rec);
	case ADA_META_UNLOAD:
		return add_unload(p, rec);
	case ADA_META_FILE:
		return add_file(p, rec);
	case ADA_META_WINDOW:
		return add_window(p, rec, size, off, why, why_len);
	}
	return 0;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct raw_thread *x = a, *y = b;

	return (x->t.ordinal > y->t.ordinal) - (x->t.ordinal < y->t.ordinal);
}

static int cmp_hooked(const void *a, const void *b)
{
	const struct raw_hooked *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* libada writes one record per address; should an address come twice, the
 * first name stands, whatever the order of the sort. */
static void sort_hooked(struct raw_process *p)
{
	size_t i, n = 0;

	qsort(p->hooked, p->nhooked, sizeof(*p->hooked), cmp_hooked);
	for (i = 0; i < p->nhooked; i++) {
		if (n && p->hooked[n - 1].addr == p->hooked[i].addr)
			free(p->hooked[i].name);
		else
			p->hooked[n++] = p->hooked[i];
	}
	p->nhooked = n;
}

static int parse(struct raw_process *p, const char *path, const uint8_t *buf, size_t len)
{
	struct ada_meta_file_header h;
	size_t off = sizeof(h);
	char msg[320], why[192];

	if (len < sizeof(h)) {
		snprintf(msg, sizeof(msg), "truncated: %zu bytes, shorter than the %zu-byte header",
			 len, sizeof(h));
		return fail(path, msg, -EINVAL);
	}
	if (memcmp(buf, ADA_META_MAGIC, 8))
		return fail(path, "not an ada raw trace (bad magic)", -EINVAL);
	memcpy(&h, buf, sizeof(h));
	/* Version 2 files differ only in what they lack (POS, waits, rings,
	 * crashes): every reader here takes both. */
	if (h.version < 2 || h.version > ADA_RAW_VERSION || h.endian != 1) {
		snprintf(msg, sizeof(msg), "raw format version %u (endian %u); this ada-symbolize reads versions 2 to %u, little-endian",
			 h.version, h.endian, ADA_RAW_VERSION);
		return fail(path, msg, -EINVAL);
	}
	p->version = h.version;
	p->arch = h.arch;
	while (off + sizeof(struct ada_meta_rec) <= len) {
		struct ada_meta_rec r;
		int err;

		memcpy(&r, buf + off, sizeof(r));
		if (r.size > META_RECORD_MAX) {
			snprintf(msg, sizeof(msg), "corrupt record (type %u) at offset %zu: size %u (0x%x), larger than any record (%u bytes at most)",
				 r.type, off, r.size, r.size, META_RECORD_MAX);
			return fail(path, msg, -EINVAL);
		}
		if (r.size > len - off - sizeof(r))
			break; /* cut short by a crash: the rest is lost */
		why[0] = '\0';
		err = add_record(p, r.type, buf + off + sizeof(r), r.size, off, why, sizeof(why));
		if (err == -EEXIST) {
			snprintf(msg, sizeof(msg), "corrupt record (type %u) at offset %zu: a second %s",
				 r.type, off, r.type == ADA_META_PROCESS ? "PROCESS record" : "THREAD record of its thread");
			return fail(path, msg, -EINVAL);
		}
		if (err) {
			snprintf(msg, sizeof(msg), "corrupt record (type %u, %u bytes) at offset %zu%s%s",
				 r.type, r.size, off, *why ? ": " : "", why);
			return fail(path, msg, err);
		}
		off += sizeof(r) + ((r.size + 7u) & ~7u);
	}
	p->truncated = off < len;
	p->meta_end = off;
	if (!p->proc.pid)
		return fail(path, "no process record: not a complete raw trace", -EINVAL);
	if (p->nthreads > 1)
		qsort(p->threads, p->nthreads, sizeof(*p->threads), cmp_thread);
	if (p->nhooked > 1)
		sort_hooked(p);
	return check_windows(p, path);
}

#define RECORDER_WAIT_MAX_NS 30000000000ll
#define RECORDER_WAIT_SLICE_NS 10000000l
#define RECORDER_FILE_WAIT_NS 2000000000ll

static void slice_sleep(void)
{
	struct timespec ts = { 0, RECORDER_WAIT_SLICE_NS };

	nanosleep(&ts, NULL);
}

/* Waits (the program ended, 30 s at most) for the lock on fd, which a
 * recorder holds; whether it was held when first tried. tests/lib/tracee.c's
 * tracee_settle waits the same way for the tests, which do not link this. */
static bool lock_wait(int fd, long pid)
{
	bool held = false;

	for (long long waited = 0; flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK &&
				   !(pid > 0 && !ada_proc_ended(pid)) && waited < RECORDER_WAIT_MAX_NS;
	     waited += RECORDER_WAIT_SLICE_NS) {
		held = true;
		slice_sleep();
	}
	return held;
}

/* A recorder process finishes the trace after its program ended (its exit does not wait for the final flush; a kill or a
 * crash cannot), holding a lock on the pid directory from before the
 * program ran until it is done (recorder.c): a program that has ended but
 * whose recorder still writes is waited for (30 s at most), so that a
 * trace read right after its program ended is whole. A program that still
 * runs is not waited for: its trace is read as far as it goes. Traces without the directory's lock (written before it
 * was taken) are waited for on process.meta's: the recorder makes that
 * file whole and locked, and holds it until done. */
static void recorder_wait(const char *meta_path, const char *raw_dir)
{
	const char *pid_part = strstr(raw_dir, "/pid_");
	char pid_dir[4200];
	long pid = 0;
	int fd;

	for (const char *p = pid_part; p; p = strstr(p + 1, "/pid_"))
		pid_part = p;
	if (pid_part)
		pid = strtol(pid_part + 5, NULL, 10);
	/* raw_dir less its last part, not raw_dir/..: raw/ is the recorder's
	 * to make, and may not be there yet. */
	snprintf(pid_dir, sizeof(pid_dir), "%s", raw_dir);
	if (strrchr(pid_dir, '/'))
		*strrchr(pid_dir, '/') = '\0';
	fd = open(pid_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		bool held = lock_wait(fd, pid);

		close(fd);
		if (held)
			return; /* the recorder is done */
	}
	/* A program killed at its start by an older recorder: the file may be
	 * coming. Waited for a while (not the 30 s: a recorder killed before
	 * it made the file leaves none). */
	fd = open(meta_path, O_RDONLY | O_CLOEXEC);
	for (long long waited = 0; fd < 0 && errno == ENOENT && !(pid > 0 && !ada_proc_ended(pid)) &&
				   waited < RECORDER_FILE_WAIT_NS;
	     waited += RECORDER_WAIT_SLICE_NS) {
		slice_sleep();
		fd = open(meta_path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return;
	lock_wait(fd, pid);
	close(fd);
}

int raw_process_load(const char *raw_dir, struct raw_process *p)
{
	char path[4200];
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/process.meta", raw_dir);
	recorder_wait(path, raw_dir);
	err = read_file(path, &buf, &len);
	if (err)
		return err;
	p->dir = strdup(raw_dir);
	err = parse(p, path, buf, len);
	free(buf);
	if (err)
		raw_process_free(p);
	return err;
}

const struct raw_thread *raw_process_thread(const struct raw_process *p, uint32_t ordinal)
{
	return thread_slot((struct raw_process *)p, ordinal);
}

const char *raw_process_hooked_name(const struct raw_process *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nhooked, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->hooked[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nhooked && p->hooked[lo].addr == addr ? p->hooked[lo].name : NULL;
}

void raw_process_free(struct raw_process *p)
{
	size_t i;

	for (i = 0; i < p->nmodules; i++)
		free(p->modules[i].path);
	free(p->modules);
	for (i = 0; i < p->nhooked; i++)
		free(p->hooked[i].name);
	free(p->hooked);
	for (i = 0; i < p->nrings; i++)
		free(p->rings[i].path);
	free(p->rings);
	for (i = 0; i < p->nwindows; i++)
		free(p->windows[i].label);
	free(p->windows);
	free(p->dir);
	free(p->exe);
	free(p->cmdline);
	free(p->config);
	free(p->producer);
	free(p->clocks);
	free(p->fid_addr);
	free(p->threads);
	memset(p, 0, sizeof(*p));
}
