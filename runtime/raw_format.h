/* raw_format.h - the raw trace written by libada and read by ada-symbolize.
 *
 * This is the only header shared between the runtime and the symbolizer. The
 * format is specified, with the reasons behind it, in runtime/RAW_FORMAT.md;
 * every constant here has a row there. All integers are little-endian.
 *
 *   <ADA_OUTPUT>/session_YYYYMMDD_HHMMSS/pid_<pid>/raw/process.meta
 *   <ADA_OUTPUT>/session_YYYYMMDD_HHMMSS/pid_<pid>/raw/thread_<N>.lz4
 */
#ifndef ADA_RAW_FORMAT_H
#define ADA_RAW_FORMAT_H

#include <stdint.h>

#define ADA_RAW_VERSION 7 /* 2: the detail lane (DETAIL records, detail_full);
			     * 3: POS in every frame, ring files, CRASH, waits;
			     * 4: FREGS after a DETAIL (the FP registers);
			     * 5: ALLOC records (ADA_ALLOC: the malloc family);
			     * 6: SAMPLE records (ADA_COUNTERS: the counter lane);
			     * 7: BLOCK records (ADA_BLOCKING: waits, releases) */
#define ADA_RING_VERSION 3 /* ring files (struct ada_ring_header): unchanged
			      * since version 3 of the format */

/* ---- process.meta: a 16-byte file header, then records ---------------------- */

#define ADA_META_MAGIC "ADAMETA1" /* 8 bytes, no NUL */

struct ada_meta_file_header {
	char magic[8];
	uint32_t version;     /* ADA_RAW_VERSION */
	uint8_t arch;         /* ADA_ARCH_* (same numbers as ATF v2) */
	uint8_t endian;       /* 1 = little */
	uint16_t header_size; /* 16 */
};

enum { ADA_ARCH_X86_64 = 1, ADA_ARCH_ARM64 = 2 };

/* Every record: 8-byte header, then `size` payload bytes, then zero padding to
 * the next multiple of 8. A reader skips types it does not know. A record cut
 * short by a crash is ignored (the file ends there). */
struct ada_meta_rec {
	uint32_t type; /* ADA_META_* */
	uint32_t size; /* payload bytes, excluding this header and the padding */
};

enum ada_meta_type {
	ADA_META_PROCESS = 1,     /* struct ada_meta_process + strings */
	ADA_META_CLOCK = 2,       /* struct ada_meta_clock */
	ADA_META_MODULE = 3,      /* struct ada_meta_module + path */
	ADA_META_FUNCS = 4,       /* struct ada_meta_funcs + addrs */
	ADA_META_THREAD = 5,      /* struct ada_meta_thread */
	ADA_META_THREAD_END = 6,  /* struct ada_meta_thread_end */
	ADA_META_CONFIG = 7,      /* "key=value\0" strings, back to back */
	ADA_META_END = 8,         /* struct ada_meta_end: the process shut down cleanly */
	ADA_META_LATENCY = 9,     /* struct ada_meta_latency: event-to-disk delays */
	ADA_META_HOOKED = 10,     /* struct ada_meta_hooked + name: a library function
				   * reached through hooked PLT/GOT slots */
	ADA_META_DYNHOOK = 11,    /* struct ada_meta_dynhook: the dynamic hooks' totals
				   * so far (the last record in the file holds) */
	ADA_META_RING = 12,       /* struct ada_meta_ring + path: where a thread's ring
				   * file is, for recovery after an unclean end */
	ADA_META_CRASH = 13,      /* struct ada_meta_crash: a fatal signal */
	ADA_META_RECOVERED = 14,  /* struct ada_meta_recovered: ada-symbolize folded
				   * a ring file's unwritten events into the trace */
	ADA_META_STACK = 15,      /* struct ada_meta_stack: thread_<N> records a
				   * coroutine stack, not a thread's own */
	ADA_META_UNLOAD = 16,     /* struct ada_meta_unload: a module is gone */
	ADA_META_WINDOW = 17,     /* struct ada_meta_window + label: a detail window,
				   * written when it closed */
	ADA_META_PATCHED = 18,    /* struct ada_meta_patched: patchable mode's totals so
				   * far (the last record in the file holds) */
	ADA_META_PRODUCER = 19,   /* the recording libada's version, "0.15.0\0" */
	ADA_META_FILE = 20,       /* struct ada_meta_file: what stat(2) said of the file
				   * of a module without a build-id */
};

/* Why an event was not kept. ADA_DROP_NAMES are what the manifest and the
 * stderr report print, in this order. */
enum ada_drop_reason {
	ADA_DROP_RING_FULL = 0, /* the writer fell behind; the call's subtree was skipped */
	ADA_DROP_MAX_DEPTH,     /* deeper than ADA_DEPTH */
	ADA_DROP_REENTRANT,     /* a hook fired while this thread was inside the runtime (signal) */
	ADA_DROP_NO_BUFFER,     /* the thread's buffers could not be allocated */
	ADA_DROP_AFTER_EXIT,    /* recorded after the final flush at process exit */
	ADA_DROP_UNMATCHED,     /* a return with no recorded call (tracing began mid-frame) */
	ADA_DROP_DETAIL_FULL,   /* a detail record (registers, stack) not kept: the
				 * event itself was, without it */
	ADA_DROP_NREASONS
};
#define ADA_DROP_NAMES                                                                 \
	{ "ring_full", "max_depth", "reentrant", "no_buffer", "after_exit", "unmatched", \
	  "detail_full" }

/* Why a counter sample (ADA_COUNTERS) was not kept: its timer's signal
 * came while the thread was inside ada (a hook, the runtime's own work),
 * or its ring had no room and a signal handler cannot wait for the
 * recorder. Counted apart from the events: a sample is no call. */
enum ada_sample_lost_reason {
	ADA_SAMPLE_LOST_IN_ADA = 0,
	ADA_SAMPLE_LOST_RING_FULL,
	ADA_SAMPLE_LOST_NREASONS
};
#define ADA_SAMPLE_LOST_NAMES { "in_ada", "ring_full" }

struct ada_meta_process {
	uint32_t pid;
	uint32_t ppid;
	uint32_t parent_pid;  /* the traced parent if this process is a fork child, else 0 */
	uint32_t flags;       /* ADA_PROC_* */
	uint64_t start_tsc;
	uint64_t start_boottime_ns;
	uint64_t start_realtime_ns;
	uint64_t tsc_hz;      /* arm64: cntfrq_el0; x86_64: 0. For display; conversion uses ADA_META_CLOCK pairs */
	/* then: exe path\0, then the command line as argv strings each \0-terminated */
};

/* LAUNCHED: the recorder was `ada record`'s (launch.h), not one the
 * program forked. */
enum { ADA_PROC_TSC_INVARIANT = 1, ADA_PROC_LAUNCHED = 2 };

/* One calibration point: `tsc` was read at the midpoint of a clock_gettime
 * (CLOCK_BOOTTIME) call that returned `boottime_ns`; `window` is how many ticks
 * the pair took, so |error| <= window/2 ticks at this point. */
struct ada_meta_clock {
	uint64_t tsc;
	uint64_t boottime_ns;
	uint64_t window;
};

/* A loaded ELF image. Process address = ELF vaddr + bias. */
struct ada_meta_module {
	uint32_t module_no;     /* ordinal within this process, from 0 */
	uint32_t build_id_len;  /* 0 if the image has no NT_GNU_BUILD_ID */
	uint64_t bias;          /* dl_iterate_phdr's dlpi_addr */
	uint64_t vaddr_lo;      /* lowest PT_LOAD p_vaddr (page-aligned down) */
	uint64_t vaddr_hi;      /* highest PT_LOAD p_vaddr + p_memsz */
	uint64_t load_tsc;      /* when the runtime first saw it */
	uint8_t build_id[32];
	/* then: absolute path\0, or ADA_VDSO_PATH */
};

/* The path of the vDSO's MODULE record: it has no file; its symbols are
 * kept with the trace from the recorder's own vDSO, the same kernel's
 * (recorder/symbols_keep.c). */
#define ADA_VDSO_PATH "[vdso]"

/* The load MODULE record module_no describes was unmapped (dlclose): its
 * address range may hold another module from then on. A module's lifetime
 * is from its MODULE record to its UNLOAD record, if any. */
struct ada_meta_unload {
	uint32_t module_no;
	uint32_t reserved;      /* 0 */
	uint64_t unload_tsc;    /* when the runtime saw it gone: after every event of its code */
};

/* A module without a build-id: its file as stat(2) saw it when the MODULE
 * record was written (right after it), so that ada-symbolize can tell
 * whether the file at hand is the one that ran, and find the symbols kept
 * for it (runtime/kept_symbols.h). */
struct ada_meta_file {
	uint32_t module_no;
	uint32_t reserved;      /* 0 */
	uint64_t size;          /* st_size */
	uint64_t mtime_ns;      /* st_mtim */
	uint64_t ino;           /* st_ino */
};
_Static_assert(sizeof(struct ada_meta_file) == 32, "FILE record");

/* Function dictionary: fids first_fid .. first_fid+count-1 are these process
 * addresses. The writer assigns fids from 1, once per distinct address, and
 * writes the FUNCS record before any thread frame that uses them. */
struct ada_meta_funcs {
	uint32_t first_fid;
	uint32_t count;
	/* then: uint64_t addr[count] */
};

struct ada_meta_thread {
	uint32_t ordinal;  /* N in thread_<N>.lz4 and ATF's thread_id */
	uint32_t os_tid;
	uint64_t start_tsc;
	char name[16];     /* pthread name at registration, NUL-padded */
};

struct ada_meta_thread_end {
	uint32_t ordinal;
	uint32_t flags;        /* ADA_TEND_* */
	uint64_t end_tsc;
	uint64_t events;       /* events written to thread_<N>.lz4 */
	uint64_t dropped[ADA_DROP_NREASONS];
	/* version 3: backpressure (ADA_ON_FULL=wait) */
	uint64_t waits;        /* times the thread found its ring full and waited */
	uint64_t wait_ns;      /* time it spent waiting, in total */
	/* version 6: the counter lane (ADA_COUNTERS), counted in samples, not
	 * positions: samples written, and not kept by reason */
	uint64_t samples;
	uint64_t samples_lost[ADA_SAMPLE_LOST_NREASONS];
};
#define ADA_META_THREAD_END_V3 96 /* bytes before the version 6 fields */

enum { ADA_TEND_EXITED = 1, /* the thread ended; else it was still running at exit */
       ADA_TEND_FINAL = 2,
       /* with FINAL: the process died without its exit flush (a kill, a
	* crash); a recorder process wrote the end after it */
       ADA_TEND_DIED = 4 };

struct ada_meta_end {
	uint64_t end_tsc;
	uint64_t end_boottime_ns;
	uint32_t how;          /* ADA_END_* (version 3) */
	uint32_t flags;        /* ADA_END_RINGS (0 before issue 23's fallback) */
};

/* What ended the process image, its rings flushed: exit() or a return from
 * main, _exit()/_Exit(), or an exec (if the exec fails, the program goes on
 * and a later END counts: the last one holds). */
enum { ADA_END_EXIT = 0, ADA_END__EXIT = 1, ADA_END_EXEC = 2 };
/* END's flags: the events are in ring files the RING records name, not yet
 * in the thread files (no recorder could start: runtime/rings_only.c);
 * ada-symbolize folds them in as after an unclean end. */
#define ADA_END_RINGS 1u

/* How long events took from being recorded to being written to their file:
 * for a sample of events (every ADA_LATENCY_EVERY-th slot drained), ticks
 * from the event's timestamp to the return of the write() that stored it.
 * Log-linear buckets: bucket b = 8*(msb(t)) + the 3 bits below the msb (for
 * t >= 8; t < 8 goes to bucket t), so each bucket spans 1/8 of its octave. */
#define ADA_LATENCY_EVERY 64
#define ADA_LATENCY_BUCKETS 512
struct ada_meta_latency {
	uint64_t samples;
	uint64_t max_ticks;
	uint32_t counts[ADA_LATENCY_BUCKETS];
};

/* A function that calls through the PLT/GOT of uninstrumented modules reach
 * (the dynamic-hook fallback), written once per distinct address before any
 * event names it. The name is the symbol the calling module asked for; the
 * symbolizer uses it when the target module's symbol tables have no symbol
 * starting at addr (an IFUNC implementation in a stripped library). */
struct ada_meta_hooked {
	uint64_t addr;  /* the function's process address: where the slot pointed */
	uint32_t flags; /* 0 */
	uint32_t reserved;
	/* then: the symbol name, without version, \0-terminated */
};

/* The dynamic-hook fallback's totals, rewritten after every hooking pass
 * (start-up, each dlopen/dlclose): the last record holds. */
/* Patchable mode (mcount/patch.c): after each pass that found patchable
 * modules. */
struct ada_meta_patched {
	uint32_t modules;    /* modules with a __patchable_function_entries section */
	uint32_t sites;      /* their functions */
	uint32_t patched;    /* traced (chosen by ADA_FILTER / ADA_NOTRACE) */
	uint32_t refused;    /* chosen, but not holding the compiler's NOPs: left alone */
	uint32_t passes;     /* passes that found a new patchable module */
	uint32_t reserved;   /* 0 */
	uint64_t startup_ns; /* the pass before main: reading the modules' sites and
			      * symbols, and patching */
	uint64_t total_ns;   /* every pass */
};

struct ada_meta_dynhook {
	uint32_t modules;   /* modules whose slots are hooked now */
	uint32_t slots;     /* slots redirected, all passes */
	uint32_t functions; /* distinct functions reached through them */
	uint32_t excluded;  /* slots left alone because of ADA_EXCLUDE */
	uint32_t untraceable; /* slots left alone by rule: returns twice, caller-sensitive,
			       * the runtime's own functions, unresolved */
	uint32_t passes;    /* hooking passes run */
	uint64_t startup_ns; /* the pass before main */
	uint64_t total_ns;   /* every pass */
};

/* A thread's ring file (rings_only.c, or a writer thread's pool before
 * issue 23): the path, absolute. */
/* A RING record's or a ring header's ordinal before a thread took the ring. */
#define ADA_RING_UNOWNED 0xFFFFFFFFu

struct ada_meta_ring {
	uint32_t ordinal;      /* ADA_RING_UNOWNED: a pool's ring, its owner in its header */
	uint32_t reserved;     /* 0 */
	/* then: the path\0 */
};

/* A fatal signal reached the runtime's handler (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGABRT), written by the handler before anything else. */
struct ada_meta_crash {
	uint32_t signo;
	int32_t code;          /* si_code */
	uint32_t ordinal;      /* the thread it was delivered to; UINT32_MAX if untraced */
	uint32_t os_tid;
	uint64_t addr;         /* si_addr: the faulting address (0 for SIGABRT) */
	uint64_t tsc;          /* when the handler ran */
};

/* A coroutine stack (makecontext's, or a mapping a thread switched to): its
 * calls and returns are the events of thread `ordinal`, whichever threads
 * ran on it; `host` is the thread that ran on it first. After its THREAD. */
struct ada_meta_stack {
	uint32_t ordinal;
	uint32_t host;         /* UINT32_MAX if unknown */
	uint64_t lo, hi;       /* the stack's addresses */
};

/* A detail window (ADA_DETAIL=window): the thread's events at positions
 * [first_pos, last_pos] were written with their detail records, as far as
 * the detail ring still held them. With ADA_RECORD=ring, a snapshot's part
 * of the thread: its events at [first_pos, last_pos] were written, with
 * the records the detail ring held (positions before first_pos are gone:
 * not counted as lost). One record per window after coalescing:
 * overlapping windows of a thread are one, with the trigger that opened it
 * and `triggers` counting those it took in. */
enum ada_window_trigger {
	ADA_TRIG_FUNC = 1,     /* a call of a function (label: the ADA_TRIGGER spec) */
	ADA_TRIG_DURATION = 2, /* a call that lasted longer than a bound (label: the spec) */
	ADA_TRIG_SIGNAL = 3,   /* a signal (label: its name) */
	ADA_TRIG_CRASH = 4,    /* a fatal signal (label: its name) */
	ADA_TRIG_MARK = 5,     /* ada_mark(label) */
	ADA_TRIG_SNAPSHOT = 6, /* ada_snapshot() */
	ADA_TRIG_END = 7,      /* ADA_RECORD=ring: the thread's record ended (its exit, the
				* process's exit or exec; label: which) */
};
#define ADA_TRIG_NAMES { "", "func", "duration", "signal", "crash", "mark", "snapshot", "end" }

struct ada_meta_window {
	uint32_t ordinal;      /* thread_<N> */
	uint32_t trigger;      /* enum ada_window_trigger of the first trigger */
	uint64_t trigger_pos;  /* the position of the first trigger's event */
	uint64_t first_pos, last_pos; /* inclusive */
	uint64_t first_tsc, last_tsc; /* of its first and last events the writer looked
				       * at for a record (fentry/mcount: first_pos's and
				       * last_pos's); 0 if none */
	uint64_t kept;         /* detail records written */
	uint64_t lost;         /* records of the window's events the ring no longer held,
				* and of a pre-roll cut short (positions before
				* first_pos already written when the trigger was seen) */
	uint32_t triggers;     /* triggers coalesced into this window, the first included */
	uint32_t reserved;     /* 0 */
	/* then: the label, label_len bytes (no NUL), from the record's length */
};

/* Written by ada-symbolize when it folded a ring file into thread_<N>.lz4. */
struct ada_meta_recovered {
	uint32_t ordinal;
	uint32_t reserved;     /* 0 */
	uint64_t events;       /* events taken from the ring file */
	uint64_t lost;         /* events the writer had taken but not written whole */
	uint64_t end_tsc;      /* the thread's last event */
};

/* ---- ring files --------------------------------------------------------------
 *
 * Each thread's index ring is a shared mapping of a file: this header in the
 * first page, then `slots` 16-byte slots {u64 tsc, u64 addr | detail << 61 |
 * kind << 62} from offset ADA_RING_SLOTS_OFFSET (kind 3: an ALLOC slot,
 * below). The producer release-stores
 * head after each slot and the writer tail after each drain, so whatever the
 * process stored is in the page cache when it dies: positions [max(tail,
 * head - slots), head) are intact. A clean exit removes the file.
 */
#define ADA_RING_MAGIC "ADARING1"
#define ADA_RING_SLOTS_OFFSET 4096

struct ada_ring_header {
	/* set at creation */
	char magic[8];
	uint32_t version;      /* ADA_RING_VERSION */
	uint32_t ordinal;
	uint32_t os_tid;
	uint32_t pid;
	uint64_t slots;        /* a power of two */
	uint64_t start_tsc;
	uint64_t base;         /* the position of the thread's first slot */
	uint32_t ring_no;      /* the ring file's number in its process (ring_<no>.ring) */
	uint32_t reserved0[3];
	/* producer (offset 64) */
	uint64_t head;         /* the next position to write */
	uint64_t dropped[ADA_DROP_NREASONS];
	uint64_t waits, wait_ns;
	uint64_t crash_tsc;    /* the fatal signal's time, on the thread it hit */
	/* the counter lane (ADA_COUNTERS): samples written, samples not kept */
	uint64_t samples;
	uint64_t samples_lost[ADA_SAMPLE_LOST_NREASONS];
	uint64_t reserved1[2];
	/* writer (offset 192) */
	uint64_t tail;         /* positions below were consumed by the writer */
	uint32_t wake;         /* futex word: bumped when tail moved for a waiter */
	uint32_t waiting;      /* the producer sleeps on wake */
	uint64_t reserved2[6];
};

/* ---- thread_<N>.lz4: concatenated LZ4 frames ---------------------------------
 *
 * Each frame is complete on its own (the writer emits one per drain), so a file
 * cut short by a crash decodes up to its last whole frame. Decompressed, the
 * frames form one byte stream of events; every frame starts with SYNC.
 *
 * An event starts with a tag byte: kind in bits 0-1, a 6-bit field in bits 2-7.
 *   CALL      tag = 0 | f<<2, varint delta, [varint fid if f == 63]; else fid = f
 *   RETURN    tag = 1 | d<<2, [varint delta if d == 63]; else delta = d
 *   EXCEPTION tag = 2 | d<<2, same as RETURN
 *   CONTROL   tag = 3 | c<<2, c = ADA_CTL_*
 * delta = tsc - previous event's tsc in this stream (clamped at 0, so
 * timestamps never decrease). RETURN and EXCEPTION close the innermost open
 * CALL; they carry no fid. varint = unsigned LEB128.
 */
enum ada_raw_kind { ADA_RAW_CALL = 0, ADA_RAW_RETURN = 1, ADA_RAW_EXCEPTION = 2, ADA_RAW_CONTROL = 3 };

#define ADA_RAW_INLINE_MAX 63 /* 6-bit field value that means "varint follows" */

enum ada_raw_control {
	ADA_CTL_SYNC = 0,   /* then 8 bytes LE: absolute tsc; the next delta is from it */
	ADA_CTL_LOST = 1,   /* then varint reason, varint count: events not kept here */
	ADA_CTL_DETAIL = 2, /* then struct ada_raw_detail + stack bytes: the detail of
			     * the CALL or RETURN just before it */
	ADA_CTL_POS = 3,    /* then varint: the ring position of the frame's first
			     * event; every frame has one, after its SYNC */
	ADA_CTL_SKIP = 4,   /* then varint n: n ring positions of this frame hold
			     * no event (a close with nothing open, dropped) */
	ADA_CTL_FREGS = 5,  /* version 4: then ADA_RAW_FREGS_SIZE bytes, u64
			     * fregs[8]: the FP registers of the DETAIL just
			     * before it (same event); only there */
	ADA_CTL_ALLOC = 6,  /* version 5: then varint what (ADA_ALLOC_OP_MASK's op |
			     * ADA_ALLOC_FREED), varint block address, and for a
			     * block allocated (no ADA_ALLOC_FREED) varint size:
			     * one ring position, inside the frame of the malloc-
			     * family call that did it (ADA_ALLOC=1) */
	ADA_CTL_BLOCK = 8,  /* version 7: then varint op (enum ada_block_op |
			     * ADA_BLOCK_BEGIN), varint object, varint tsc:
			     * one ring position (ADA_BLOCKING, below) */
	ADA_CTL_SAMPLE = 7, /* version 6: then varint part and the part's varints
			     * (below, "SAMPLE"): one ring position each; a
			     * sample is its three parts at consecutive
			     * positions (ADA_COUNTERS) */
};

/* ---- ALLOC: the malloc family's blocks (ADA_ALLOC=1, mcount/alloc.c) -----------
 *
 * A call of the malloc family through a hooked PLT/GOT slot that was
 * recorded (its CALL is in the ring) puts one ring slot of kind 3 between
 * its CALL and its RETURN for each block it allocated or freed: realloc of
 * a block to another size, two (the old block freed, then the new one).
 * The slot's first word is the size asked for (0 for a block freed), not a
 * tick: the event's time is its CALL's. Its second word: */
#define ADA_SLOT_ALLOC_KIND 3ull       /* kind << 62 */
#define ADA_ALLOC_WHAT_SHIFT 56        /* what << 56: op | ADA_ALLOC_FREED */
#define ADA_ALLOC_FREED 0x10u          /* the block was freed (else allocated) */
#define ADA_ALLOC_OP_MASK 0x0fu
#define ADA_ALLOC_PTR_MASK ((1ull << ADA_ALLOC_WHAT_SHIFT) - 1)

/* Which function did it: what views print for an ALLOC. */
enum ada_alloc_op {
	ADA_ALLOC_MALLOC = 1, ADA_ALLOC_CALLOC, ADA_ALLOC_REALLOC, ADA_ALLOC_REALLOCARRAY,
	ADA_ALLOC_FREE, ADA_ALLOC_POSIX_MEMALIGN, ADA_ALLOC_ALIGNED_ALLOC, ADA_ALLOC_MEMALIGN,
	ADA_ALLOC_VALLOC, ADA_ALLOC_PVALLOC, ADA_ALLOC_NEW, ADA_ALLOC_NEW_ARRAY,
	ADA_ALLOC_DELETE, ADA_ALLOC_DELETE_ARRAY,
	ADA_ALLOC_NOPS
};
#define ADA_ALLOC_OP_NAMES                                                                   \
	{ "", "malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign",        \
	  "aligned_alloc", "memalign", "valloc", "pvalloc", "new", "new[]", "delete",          \
	  "delete[]" }

/* ---- SAMPLE: the counter lane (ADA_COUNTERS, runtime/counters.c) -----------------
 *
 * A thread's CPU-time timer interrupts it every period of its CPU time; the
 * handler writes one sample as three kind-3 slots at consecutive positions,
 * told from ALLOC slots by `what` values no ALLOC has (op 0 or 15). The
 * sample lies where the thread was: inside the frames open then, which it
 * neither opens nor closes. Counters are the thread's totals since it
 * started (the reader takes differences), so a sample not kept loses
 * nothing but its place. */
#define ADA_SAMPLE_WHAT_IP 0x0fu   /* {tsc, interrupted pc} */
#define ADA_SAMPLE_WHAT_CPU 0x1fu  /* {CPU time ns, minor faults} */
#define ADA_SAMPLE_WHAT_CSW 0x10u  /* {voluntary | involuntary switches << 32,
				    * major faults} */
#define ADA_SAMPLE_PARTS 3
/* The part number (0, 1, 2) of a kind-3 slot's what, or -1 for an ALLOC. */
static inline int ada_sample_part(unsigned what)
{
	return what == ADA_SAMPLE_WHAT_IP ? 0 : what == ADA_SAMPLE_WHAT_CPU ? 1 :
	       what == ADA_SAMPLE_WHAT_CSW ? 2 : -1;
}

/* ---- BLOCK: waits and releases (ADA_BLOCKING, mcount/blocking.c) -----------------
 *
 * A call of a blocking function through a hooked PLT/GOT slot that was
 * recorded puts kind-3 slots between its CALL and its RETURN: a wait
 * (mutex lock, condition wait, semaphore wait, read, poll, epoll_wait)
 * two at consecutive positions written after the function returned, its
 * BEGIN part {tsc before the call, ...} and its end {tsc after it, ...};
 * a release (mutex unlock, semaphore post) one, written before the call,
 * {tsc before it, ...}. Told from ALLOC and SAMPLE slots by `what` 0,
 * which neither has; the op and the object (a mutex's or semaphore's
 * address, a file descriptor; 0 for poll) are in the address bits. */
#define ADA_BLOCK_WHAT 0x00u
#define ADA_BLOCK_OP_SHIFT 48
#define ADA_BLOCK_OBJ_MASK ((1ull << ADA_BLOCK_OP_SHIFT) - 1)
#define ADA_BLOCK_BEGIN 0x80u /* op | BEGIN: a wait's first part */
enum ada_block_op {
	ADA_BLOCK_MUTEX_LOCK = 1, ADA_BLOCK_MUTEX_UNLOCK, ADA_BLOCK_COND_WAIT,
	ADA_BLOCK_COND_TIMEDWAIT, ADA_BLOCK_SEM_WAIT, ADA_BLOCK_SEM_POST, ADA_BLOCK_READ,
	ADA_BLOCK_POLL, ADA_BLOCK_EPOLL_WAIT,
	ADA_BLOCK_NOPS
};
#define ADA_BLOCK_OP_NAMES                                                                   \
	{ "", "pthread_mutex_lock", "pthread_mutex_unlock", "pthread_cond_wait",              \
	  "pthread_cond_timedwait", "sem_wait", "sem_post", "read", "poll", "epoll_wait" }
/* Whether op releases its object (a mutex unlock, a semaphore post): a
 * record of one part; the others are waits, of two. */
static inline int ada_block_release(unsigned op)
{
	return op == ADA_BLOCK_MUTEX_UNLOCK || op == ADA_BLOCK_SEM_POST;
}

/* The detail record of one event (fentry/mcount modes), little-endian, packed:
 * the registers as ATF v2 §4 lays them out for the event's kind (a CALL's
 * argument registers, a RETURN's return registers), the caller's resume
 * address, the frame pointer, the stack pointer at entry (the address of the
 * return-address slot) and stack_size bytes copied from sp upward. */
/* A RETURN's regs[7] (x86_64, where a return's are rax rdx and six 0): this
 * value says the function left by a tail call's jump, before which
 * __return__ ran (fentry mode with gcc): its value is its callee's, not made
 * yet, so regs hold none of it (all else 0). ada-symbolize writes ATF's
 * ATF_DETAIL_FLAG_NOVALUE for it (docs/atf-extensions.md). */
#define ADA_RAW_RET_TAIL 1

struct ada_raw_detail {
	uint64_t regs[8];
	uint64_t lr, fp, sp;
	uint16_t stack_size; /* 0..ADA_STACK_MAX; the bytes follow */
} __attribute__((packed));
#define ADA_RAW_DETAIL_SIZE 90
/* FREGS' words: a CALL's FP argument registers (x86_64: xmm0..xmm7, their low
 * 64 bits), a RETURN's FP return registers (xmm0, xmm1, then zeros). */
#define ADA_RAW_FREGS_SIZE 64
#define ADA_STACK_MAX 512

#endif
