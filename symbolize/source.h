/* source.h - one traced process's events as a stream, for the views.
 *
 * The views (replay, report, graph, exports, flame graphs) read the compact
 * raw trace directly, symbolizing on the way: no ATF is written first, and
 * memory depends on the number of functions, threads and the call depth, not
 * on the number of events. A process that has only ATF (converted elsewhere,
 * raw/ removed) is read from its index.atf files and manifest instead.
 *
 * Functions get dense ids (0..nfuncs-1): loads of one file share theirs, so a
 * library closed and opened again is one function per symbol in a report.
 */
#ifndef ADA_SOURCE_H
#define ADA_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ada_raw_detail;
struct ada_sig;

struct src_func {
	const char *name;     /* what views print: demangled, simple form (no
			       * parameters, no return type), no @version */
	const char *full;     /* demangled with parameters, or the symbol; no @version */
	const char *module;   /* the module file's basename ("[unmapped]" for none) */
	const char *file;     /* source file of the entry, NULL if unknown */
	uint32_t line;        /* 0 if unknown */
	const char *base;     /* the simple form, where name carries more to be unique
			       * (an overload's parameters: src_names_disambiguate);
			       * else NULL */
	const struct ada_sig *sig; /* its parameters from DWARF (sig.h), NULL if unknown */
};

struct src_thread {
	uint32_t id;          /* ada's ordinal: thread_<N> */
	uint32_t tid;         /* OS thread id */
	char name[16];        /* pthread name at registration ("" if none) */
	bool is_stack;        /* a coroutine stack's events (docs/internals.md: stacks) */
	uint32_t host;        /* is_stack: the thread it was first seen on */
	uint64_t stack_lo, stack_hi;
	uint64_t events;      /* events the writer wrote (0 if not known) */
	const char *open_mark; /* how frames open at the end read: "open at exit",
				* "open at exec", "open at crash", "open when killed"
				* or "unwound" (the thread ended inside them) */
};

struct src_process {
	uint32_t pid;
	const char *dir;      /* the pid_<pid> directory */
	const char *exe;      /* path of the executable */
	const char *cmdline;  /* argv joined with spaces ("" if unknown) */
	uint8_t arch;         /* ADA_ARCH_* */
	uint64_t t0_ns;       /* CLOCK_BOOTTIME of the process's first event (the
			       * manifest's time_start_ns): views print times
			       * relative to it */
	uint64_t events;      /* events of all threads (0 if not known: progress) */
	const struct src_func *funcs;
	size_t nfuncs;
	const struct src_thread *threads; /* ascending id */
	size_t nthreads;
	/* Set by a view before it opens streams: they give SRC_ALLOC events
	 * (a raw trace recorded with ADA_ALLOC=1); else those are passed over. */
	bool want_allocs;
	/* The same for SRC_SAMPLE events (ADA_COUNTERS), SRC_BLOCK events
	 * (ADA_BLOCKING). */
	bool want_samples, want_blocks;
	void *priv;
};

/* const_read.c: up to len bytes of the process's memory at addr where a
 * read-only segment of a module's file held them (a string literal), the
 * file being the run's own; 0 if none did. */
size_t src_read_const(struct src_process *p, uint64_t addr, void *buf, size_t len);

/* Opens the process in pid_dir: raw/ if present, else the ATF. Returns 0,
 * or a negative errno after printing one line naming the file. */
int src_open(const char *pid_dir, struct src_process **out);
void src_close(struct src_process *p);

enum src_kind {
	SRC_CALL,
	SRC_RETURN,
	SRC_UNWIND,       /* a frame left without a return (longjmp, exception) */
	SRC_OPEN_AT_END,  /* a frame the thread's record ended inside (open_mark) */
	SRC_ALLOC,        /* a block the malloc family allocated or freed (want_allocs):
			   * inside the frame at depth (func), which it neither opens
			   * nor closes; depth 0: outside every frame */
	SRC_SAMPLE,       /* a counter sample (want_samples): inside the frame at
			   * depth (func) as SRC_ALLOC is */
	SRC_BLOCK,        /* a wait or a release (want_blocks): likewise; ns is
			   * a wait's end */
};

/* A wait's or a release's figures (ADA_BLOCKING, mcount/blocking.c). */
struct src_block {
	uint64_t obj;         /* the mutex's or semaphore's address, a descriptor */
	uint64_t start_ns;    /* a wait's start (before its call's work); a
			       * release's time (before it released) */
	uint8_t op;           /* enum ada_block_op */
};

/* A counter sample's figures: what the thread used since its previous
 * sample (since it started, for its first), and where it was. */
struct src_sample {
	uint64_t cpu_ns, minflt, majflt, vcsw, ivcsw;
	uint32_t func;        /* dense id of the function holding the interrupted
			       * address; SRC_NO_FUNC if none is known. The
			       * conversion's raw streams (no dense ids): its
			       * index into conv_process.choices */
};
#define SRC_NO_FUNC UINT32_MAX

struct src_event {
	uint64_t ns;          /* CLOCK_BOOTTIME; never decreases within a thread */
	uint32_t func;        /* dense id */
	uint32_t depth;       /* 1-based depth of the frame opened or closed */
	uint8_t kind;         /* enum src_kind */
	/* The detail lane's registers, NULL if the event has none: a CALL's
	 * argument registers (x86_64 rdi rsi rdx rcx r8 r9; arm64 x0..x7), a
	 * RETURN's return registers in regs[0], regs[1]. Valid until the next
	 * src_next. */
	const uint64_t *regs;
	/* xmm0..7 low 64 bits at a CALL, xmm0 and xmm1 at a RETURN; NULL if the
	 * event has no detail record or its trace predates the FP registers. */
	const uint64_t *fregs;
	/* With regs: the stack pointer at the function's entry (the address of
	 * its return-address slot) and the record's stack window, stack_size
	 * bytes from it (stack NULL if none). */
	uint64_t sp;
	const uint8_t *stack;
	uint16_t stack_size;
	/* With regs at a RETURN: the function left by a tail call's jump, and
	 * regs and fregs hold no value of it (runtime/raw_format.h's
	 * ADA_RAW_RET_TAIL, ATF's ATF_DETAIL_FLAG_NOVALUE). */
	bool no_value;
	/* SRC_ALLOC: the block's address, the size asked for (0 when freed),
	 * the function (enum ada_alloc_op), whether it was freed. ns is its
	 * frame's last event's: a block freed was freed after it; one
	 * allocated, before the thread's next event (its call's RETURN). */
	union {
		struct {
			uint64_t alloc_ptr, alloc_size;
			uint8_t alloc_op;
			bool alloc_freed;
		};
		struct src_sample sample; /* SRC_SAMPLE; ns is the sample's */
		struct src_block block;   /* SRC_BLOCK */
	};
	/* Raw traces, streams not opened async: what the conversion needs. */
	uint32_t choice;      /* the load-by-load choice its CALL made (resolve.c) */
	const struct ada_raw_detail *detail; /* the DETAIL record, NULL if none */
};

struct src_stream;

/* A stream's first member: the events decoded ahead and not yet handed
 * out, [next, end), so that src_next costs no call while a batch lasts. */
struct src_cursor {
	const struct src_event *next, *end;
	uint64_t handed;      /* events fetched so far, [next, end) included */
};

/* The events of thread p->threads[i], in order; every frame opened is
 * closed (RETURN, UNWIND or OPEN_AT_END). NULL (message printed) on error. */
struct src_stream *src_stream_open(struct src_process *p, size_t i);
/* The same, decoded ahead by a thread of its own (source_async.c): for a
 * reader that reads one stream at a time; a few MB per open stream. */
struct src_stream *src_stream_open_async(struct src_process *p, size_t i);
/* 1 and *ev pointing at the next event (valid until the next call), 0 at
 * the end, negative errno on an error (message printed). */
int src_next_refill(struct src_stream *s, const struct src_event **ev); /* its slow path */
static inline int src_next(struct src_stream *s, const struct src_event **ev)
{
	struct src_cursor *c = (struct src_cursor *)s;

	if (c->next < c->end) {
		*ev = c->next++;
		return 1;
	}
	return src_next_refill(s, ev);
}
void src_stream_close(struct src_stream *s);
/* The events src_next has handed out so far: counted a batch at a time,
 * not at every event. */
static inline uint64_t src_stream_read(const struct src_stream *s)
{
	const struct src_cursor *c = (const struct src_cursor *)s;

	return c->handed - (uint64_t)(c->end - c->next);
}
/* cb(ctx) once the events read pass each multiple of 2^20, at the batch
 * that passes it (a view's progress line). */
void src_stream_on_progress(struct src_stream *s, void (*cb)(void *ctx), void *ctx);

/* names.c: the simple form of a demangled C++ name, "ns::Foo<int>::bar" for
 * "int ns::Foo<int>::bar(char const*) const", and without a symbol version
 * ("memcpy" for "memcpy@@GLIBC_2.14"). Writes at most len bytes; returns out. */
char *src_simple_name(const char *full, char *out, size_t len);
/* The name views print for a function of module (a file name): the simple
 * form, and for glibc's variants of a function chosen by the CPU
 * ("__memchr_avx2", "__memset_avx2_unaligned_erms" in libc.so.6, "__sin_fma"
 * in libm) the function they implement ("memchr", "memset", "sin"). */
char *src_display_name(const char *full, const char *module, char *out, size_t len);
/* Functions whose names (src_func.name) are the same but whose full names
 * differ (C++ overloads: two "YAML::operator<<") are told apart: each is
 * named with its parameter list ("YAML::operator<<(YAML::Emitter&, char
 * const*)"), or whole if even that repeats; the simple form stays as their
 * base, which globs match too. Names are strdup'ed. 0 or -ENOMEM. */
int src_names_disambiguate(struct src_func *funcs, size_t n);
/* The file name of a path: what views call a module or a program. */
const char *src_basename(const char *path);
/* Copies name without its "@..." symbol version. */
char *src_unversioned(const char *name, char *out, size_t len);

#endif
