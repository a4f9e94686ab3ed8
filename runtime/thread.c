/* thread.c - per-thread set-up and the recording slow paths.
 *
 * Everything here runs rarely: once per thread, when the ring's cached limit
 * runs out, when a frame is skipped, or when a frame was abandoned without its
 * exit hook. The fast path is in thread.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ada_internal.h"

__thread struct ada_self ada_self __attribute__((tls_model("initial-exec")));
/* enum ada_thread_state; separate from ada_self so a dead or disabled thread
 * costs one TLS load and a branch, and a hook inside set-up returns at once. */
static __thread uint8_t ada_tstate __attribute__((tls_model("initial-exec")));

void *ada_map_zeroed(size_t len)
{
	void *p = ada_arena_get(len);

	if (p)
		return p;
	/* A recorder sees the arena only. Without one (rings_only.c) nobody
	 * gives ended threads' pieces back: a thread past the reservation
	 * maps its own. */
	if (ada_arena_shared() && !ada_rt.rings_only) {
		errno = ENOMEM;
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* The detail ring's bytes: as many records as ADA_DETAIL_KB holds, a power
 * of two, at least 64. */
static uint64_t detail_records(uint32_t rec)
{
	uint64_t records = 64;

	while (records * 2 * rec <= ada_rt.cfg.detail_bytes)
		records *= 2;
	return records;
}

static uint32_t detail_rec_bytes(void)
{
	return (uint32_t)(ADA_DREC_STACK * 8 + ada_rt.cfg.stack_bytes);
}

size_t ada_thread_kit_bytes(void)
{
	const struct ada_config *c = &ada_rt.cfg;
	uint32_t rec = detail_rec_bytes();

	return ada_arena_piece(sizeof(struct ada_thread)) +
	       ada_arena_piece(((size_t)c->shadow_depth + 1) * sizeof(struct ada_frame)) +
	       ada_arena_piece(ADA_RING_SLOTS_OFFSET + c->ring_bytes) +
	       (c->detail ? ada_arena_piece(detail_records(rec) * rec) : 0);
}

void ada_registry_push(struct ada_thread *td)
{
	struct ada_thread *head = __atomic_load_n(&ada_rt.threads, __ATOMIC_RELAXED);

	/* Release: the writer that finds td through the list sees it initialised. */
	do
		td->next = head;
	while (!__atomic_compare_exchange_n(&ada_rt.threads, &head, td, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

static void thread_stack_range(struct ada_thread *td);

static void thread_reset_counters(struct ada_thread *td, uint64_t now)
{
	td->ordinal = __atomic_fetch_add(&ada_rt.next_ordinal, 1, __ATOMIC_RELAXED);
	td->os_tid = (uint32_t)syscall(SYS_gettid);
	td->start_tsc = now;
	td->ws = NULL;
	td->wait_progress = UINT64_MAX; /* no wait has given up */
}

/* A recording state: a thread's own stack, or (is_stack) a coroutine stack. */
struct ada_thread *ada_state_alloc(bool is_stack)
{
	const struct ada_config *c = &ada_rt.cfg;
	size_t shadow_bytes = ((size_t)c->shadow_depth + 1) * sizeof(struct ada_frame);
	struct ada_thread *td = ada_map_zeroed(sizeof(*td));

	if (!td)
		return NULL;
	td->is_stack = is_stack;
	td->shadow = shadow_bytes ? ada_map_zeroed(shadow_bytes) : NULL;
	thread_reset_counters(td, ada_arch_ticks());
	if ((shadow_bytes && !td->shadow) || ada_ring_map(td) < 0) {
		ada_unmap(td->shadow, shadow_bytes);
		ada_unmap(td, sizeof(*td));
		return NULL;
	}
	/* shadow[-1], below the outermost frame: a frame at a position no
	 * slot has, above every one, so that the fast paths compare a new
	 * frame or a return with "the innermost frame" without asking
	 * whether there is one. */
	td->shadow[0].sp = UINTPTR_MAX;
	td->shadow++;
	td->shadow_bytes = shadow_bytes;
	td->shadow_cap = c->shadow_depth;
	td->max_limit = c->depth;
	ada_set_record_limit(td, c->depth);
	td->graph_gate = c->graph[0] != '\0';
	return td;
}

/* First event of this thread: set up its state, or say it is not traced. */
static struct ada_thread *thread_init(void)
{
	struct ada_thread *td;

	ada_tstate = ADA_TS_INIT;
	/* With a recorder, room comes back as it retires ended threads: wait
	 * for it (lossless mode) rather than run untraced. */
	while (!(td = ada_state_alloc(false)) && ada_arena_wait_room())
		;
	if (!td) {
		ada_tstate = ADA_TS_OFF;
		ada_warn("cannot allocate the buffers of thread %ld: %s; it runs untraced",
			 (long)syscall(SYS_gettid), strerror(errno));
		return NULL;
	}
	/* Before the state is published: nested hooks (libc's calls through
	 * hooked slots in here) see a thread in set-up and return. */
	thread_stack_range(td);
	ada_registry_push(td);
	/* The key's destructor runs when the thread ends (not for the thread
	 * that calls exit(): the final flush covers that one). */
	pthread_setspecific(ada_rt.exit_key, td);
	ada_self.td = td;
	ada_stack_home(td);
	ada_tstate = ADA_TS_LIVE;
	ada_counters_thread_start();
	return td;
}

struct ada_thread *ada_thread_init_slow(void)
{
	struct ada_thread *td;
	sigset_t old;

	if (ada_tstate != ADA_TS_NONE)
		return NULL; /* inside set-up (a signal), dead, or off */
	if (!__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE)) {
		if (ada_rt.cfg.disabled)
			ada_tstate = ADA_TS_OFF;
		return NULL; /* before start-up, or after the final flush */
	}
	/* No signal during set-up (a ring file takes a few system calls): a
	 * handler that siglongjmps out would leave the thread half set up and
	 * untraced for good. Signals wait until it is done. */
	ada_signals_block(&old);
	td = thread_init();
	ada_signals_restore(&old);
	return td;
}

/* The recorder's threads, and any other thread of the runtime's: never traced
 * (nor a fork child's thread whose process could not start tracing). */
void ada_thread_untraced(void)
{
	ada_self.td = NULL;
	ada_tstate = ADA_TS_OFF;
}

/* The state a vfork child's parent thread left (ada_vfork_enter), for the
 * child's returns through the parent's hijacked frames. */
static __thread struct ada_thread *vfork_parent __attribute__((tls_model("initial-exec")));

struct ada_vfork_saved ada_vfork_enter(void)
{
	struct ada_vfork_saved s;

	ada_exec_resolve(); /* may set the thread up: before it is saved */
	s.td = ada_self.td;
	s.state = ada_tstate;
	vfork_parent = s.td;
	/* A hook in the child finds no state and sets none up: it records
	 * nothing, hijacks nothing, and its return is the plain one. */
	ada_self.td = NULL;
	ada_tstate = ADA_TS_VFORK;
	return s;
}

void ada_vfork_restore(struct ada_vfork_saved s)
{
	ada_self.td = s.td;
	ada_tstate = (uint8_t)s.state;
	vfork_parent = NULL;
}

const struct ada_thread *ada_vfork_parent(void)
{
	return ada_tstate == ADA_TS_VFORK ? vfork_parent : NULL;
}

pid_t ada_vfork_leave(long ret, struct ada_thread *td, uintptr_t state)
{
	ada_vfork_restore((struct ada_vfork_saved){ td, state });
	if ((unsigned long)ret > -4096ul) { /* -errno, as system calls fail */
		errno = (int)-ret;
		return -1;
	}
	return (pid_t)ret;
}

bool ada_in_vfork_child(void)
{
	return ada_tstate == ADA_TS_VFORK;
}

struct ada_thread *ada_runtime_begin(struct ada_runtime_work *w)
{
	struct ada_thread *td = ada_self.td;

	ada_signals_block(&w->mask);
	if (!td && ada_tstate == ADA_TS_NONE && __atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE))
		td = ada_thread_init_slow();
	w->td = td;
	if (td) {
		w->busy = ada_self.busy;
		ada_busy_set(ADA_BUSY_RUNTIME);
	}
	return td;
}

void ada_runtime_end(struct ada_runtime_work *w)
{
	if (w->td)
		ada_busy_set(w->busy);
	ada_signals_restore(&w->mask);
}

int ada_detail_init_slow(struct ada_thread *td)
{
	uint32_t rec = detail_rec_bytes();
	uint64_t records = detail_records(rec), bytes = records * rec;
	uint8_t *ring;

	ring = ada_map_zeroed(bytes);
	if (!ring) {
		td->stack_bytes = 0;
		return -ENOMEM;
	}
	td->dring_bytes = bytes;
	td->dmask = records - 1;
	td->drec_bytes = rec;
	td->dlimit = 0; /* look at the writer at the first record */
	td->stack_bytes = ada_rt.cfg.stack_bytes;
	ada_window_bound(td);
	/* Release: the writer, which looks at dring while the thread runs,
	 * reads dmask and drec_bytes only after its acquire load found it. */
	__atomic_store_n(&td->dring, ring, __ATOMIC_RELEASE);
	return 0;
}

void ada_thread_exit(void *arg)
{
	struct ada_thread *td = arg;

	ada_counters_thread_end(); /* before its state goes: a sample needs it */
	ada_self.td = NULL;
	ada_tstate = ADA_TS_DEAD;
	td->end_tsc = ada_arch_ticks();
	/* Release: the writer that sees exited also sees the last slots and
	 * end_tsc, and may then free the state. */
	__atomic_store_n(&td->exited, 1, __ATOMIC_RELEASE);
}

static unsigned skip_reason(const struct ada_thread *td, uint32_t depth)
{
	return depth > td->max_limit ? ADA_DROP_MAX_DEPTH : ADA_DROP_RING_FULL;
}

void ada_enter_skipped_slow(struct ada_thread *td, uint32_t depth)
{
	if (depth <= td->record_limit) {
		/* Recording is off (ada_disable, ada_thread_ignore): this frame
		 * and what it calls are skipped by request. Its RETURN closes
		 * the skip, and the next CALL looks again. */
		td->skip_from = depth;
		ada_set_record_limit(td, depth - 1);
		td->skip_by_request = true;
		return;
	}
	if (!td->skip_by_request)
		ada_count(&td->rh->dropped[skip_reason(td, depth)], 1);
}

void ada_exit_skipped_slow(struct ada_thread *td, uint32_t depth)
{
	if (!td->skip_by_request)
		ada_count(&td->rh->dropped[skip_reason(td, depth)], 1);
	if (depth <= td->skip_from) { /* the skipped subtree is closed */
		td->skip_from = 0;
		ada_set_record_limit(td, td->max_limit);
		td->skip_by_request = false;
	}
}

/* Closes the innermost frame, which was left without its exit hook: an
 * EXCEPTION if it was recorded (its slot was reserved when it was entered). */
void ada_close_abandoned(struct ada_thread *td)
{
	uint32_t depth = td->depth;

	td->resyncs++;
	td->depth = depth - 1;
	if (depth <= td->record_limit)
		ada_ring_put(td, ada_arch_ticks(),
			     td->shadow[depth - 1].fn | (uint64_t)ADA_RAW_EXCEPTION << 62);
	else
		ada_exit_skipped_slow(td, depth);
	ada_graph_left(td);
}

/* The thread's own stack, asked once when the thread is set up (for the
 * main thread glibc reads /proc/self/maps). Unknown, every position counts
 * as on it: stack switches are then not told apart. */
/* The main thread's stack, as glibc's pthread_getattr_np gives it but
 * without reading /proc/self/maps (0.1 ms at every start, and a descriptor):
 * the kernel put the executable's name at the top of the stack mapping, one
 * pointer below its end, and the stack may grow down to RLIMIT_STACK below
 * that end (the kernel keeps other mappings further away). False if the
 * limit is unlimited or the stack pointer is not in that range. */
static bool main_stack_range(struct ada_thread *td)
{
	const char *name = (const char *)getauxval(AT_EXECFN);
	uintptr_t hi, sp = (uintptr_t)__builtin_frame_address(0);
	struct rlimit rl;

	if (!name || getrlimit(RLIMIT_STACK, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return false;
	hi = (uintptr_t)name + strlen(name) + 1 + sizeof(void *);
	if (hi & 4095 || rl.rlim_cur >= hi || sp - (hi - rl.rlim_cur) >= rl.rlim_cur)
		return false;
	td->stack_lo = hi - rl.rlim_cur;
	td->stack_span = rl.rlim_cur;
	ada_window_bound(td);
	return true;
}

static void thread_stack_range(struct ada_thread *td)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;

	td->stack_lo = 0;
	td->stack_span = UINTPTR_MAX;
	if (td->os_tid == ada_rt.pid && main_stack_range(td))
		return;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	pthread_attr_getstack(&attr, &lo, &size);
	pthread_attr_destroy(&attr);
	td->stack_lo = (uintptr_t)lo;
	td->stack_span = size;
	ada_window_bound(td);
}

int ada_in_thread_stack(struct ada_thread *td, uintptr_t sp)
{
	return sp - td->stack_lo < td->stack_span;
}

/* A hook that fires while the guard is held either runs inside the hook
 * that holds it (a signal handler that interrupted it: below its stack
 * position, or on an alternate signal stack) or runs after that hook was
 * left by a non-local jump that never released it (siglongjmp out of such
 * a handler): at or above its frame's position (the same function called
 * again from the same place has the same one), on the thread's own stack.
 * Positions, not the hooks' own stack pointers: an entry and a return path
 * of one frame run at different depths. Then the
 * guard is stale, and taken over; otherwise the thread would record
 * nothing for good. */
int ada_guard_left_slow(struct ada_thread *td, uintptr_t pos, uintptr_t busy)
{
	uintptr_t held = busy & ~(uintptr_t)ADA_BUSY_KIND;

	return pos >= held && ada_in_thread_stack(td, held) &&
	       ada_on_thread_stack(td, pos);
}

/* Slow paths only: sigaltstack() is a system call. */
int ada_on_thread_stack(struct ada_thread *td, uintptr_t sp)
{
	/* A signal handler may run on an alternate stack that the program
	 * placed inside its own thread stack (an array in main): its frames
	 * are above the interrupted ones without having abandoned them. */
	return ada_in_thread_stack(td, sp) && !ada_on_signal_stack(sp, NULL);
}

int ada_on_signal_stack(uintptr_t sp, uintptr_t range[2])
{
	stack_t ss;

	if (sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK) ||
	    sp - (uintptr_t)ss.ss_sp >= ss.ss_size)
		return 0;
	if (range) {
		range[0] = (uintptr_t)ss.ss_sp;
		range[1] = (uintptr_t)ss.ss_sp + ss.ss_size;
	}
	return 1;
}

/* A frame is being entered above the innermost frame's stack position (or at
 * it, from another call site). On the thread's own stack that means the frames
 * there were abandoned (longjmp); on another stack (sigaltstack, a coroutine)
 * it means nothing, and the new frame nests as usual. Below the abandoned
 * frames, one at the new frame's position with its return address is the
 * frame it is inlined in, unless it is the same function: then it is that
 * function called again from the same site after a longjmp out of what it
 * called (a loop's). Right at the innermost frame that case cannot be told
 * from a recursive function inlined into itself, which gcc does: there it is
 * taken as inlined. Returns the depth to nest under. */
int ada_enter_resync_slow(struct ada_thread *td, uintptr_t sp, uintptr_t site, uintptr_t fn)
{
	bool closed = false;

	if (!ada_on_thread_stack(td, sp) || !ada_on_thread_stack(td, td->shadow[td->depth - 1].sp))
		return (int)td->depth;
	while (td->depth > 0 && td->depth <= td->shadow_cap) {
		const struct ada_frame *top = &td->shadow[td->depth - 1];

		if (top->sp > sp || (top->sp == sp && top->site == site && (top->fn != fn || !closed)))
			break; /* a caller of the new frame (or the frame it is inlined in) */
		ada_close_abandoned(td);
		closed = true;
	}
	return (int)td->depth;
}

/* An exit whose function is not the innermost frame's (ada_record_exit
 * closes the innermost frame when it is: whatever its site). Its frame is
 * the innermost one with the same function and return address: the frames
 * inside it were abandoned (longjmp), and are closed. gcc's partial
 * inlining (a function split into a head inlined in its caller and a part
 * called from there) bends both keys, and the rules follow from it:
 *  - the head runs the entry hook with the caller's return address, the
 *    split-off part the exit hook with a return address in the caller: the
 *    innermost frame of the same function is taken whatever its site, and
 *    failing an exact match, the innermost one of the function anywhere;
 *  - a part can run its exit hook at its caller's stack position, where an
 *    older activation of a recursive function was recorded: the position
 *    is not used to choose.
 * Returns the depth, or 0 if it matches no open frame (tracing started
 * inside it). */
uint32_t ada_exit_resync_slow(struct ada_thread *td, uintptr_t fn, uintptr_t site)
{
	uint32_t d;

	for (d = td->depth; d > 0; d--)
		if (td->shadow[d - 1].fn == fn && td->shadow[d - 1].site == site)
			break;
	for (uint32_t f = td->depth; !d && f > 0; f--)
		if (td->shadow[f - 1].fn == fn)
			d = f;
	if (!d) {
		ada_count(&td->rh->dropped[ADA_DROP_UNMATCHED], 1);
		return 0;
	}
	while (td->depth > d)
		ada_close_abandoned(td);
	return d;
}

/* In the fork child only the forking thread exists, and every ring is the
 * parent's (shared mappings): first forget them all, then (once the child
 * has its own trace directory) give the thread a ring of its own, starting
 * empty, and record the frames it is in as CALLs, so the child's trace
 * starts balanced at this stack. */
void ada_thread_fork_forget(void)
{
	struct ada_thread *t;

	for (t = ada_rt.threads; t; t = t->next)
		ada_ring_unmap(t);
	/* With a recorder the other threads' states are zero pages here (the
	 * arena was made the child's own), which may end the walk early. */
	if (ada_self.td && ada_self.td->rh)
		ada_ring_unmap(ada_self.td);
	ada_rt.threads = NULL;
	ada_rt.next_ordinal = 0;
}

void ada_thread_after_fork(uint64_t now)
{
	struct ada_thread *td = ada_self.td;
	uint32_t d, open;
	uint64_t slots;

	if (!td)
		return;
	thread_reset_counters(td, now);
	if (ada_ring_map(td) < 0) {
		ada_self.td = NULL;
		ada_tstate = ADA_TS_OFF;
		return;
	}
	slots = td->mask + 1;
	/* The parent's recorder's windows were its own memory: forgotten
	 * (ada_writer_after_fork, before this). */
	/* The child's ring starts at position 0: its records start over. */
	td->dlimit = 0;
	td->exited = 0;
	/* The recorded frames: all open ones, as far as the shadow stack saw them
	 * and the ring has room for their CALLs and RETURNs. */
	open = td->depth < td->record_limit ? td->depth : td->record_limit;
	if (open > td->shadow_cap)
		open = td->shadow_cap;
	if (2 * (uint64_t)open + 2 > slots)
		open = (uint32_t)(slots / 2 - 1);
	if (open < td->depth) { /* deeper open frames go on unrecorded */
		td->skip_from = open + 1;
		ada_set_record_limit(td, open);
	}
	for (d = 1; d <= open; d++)
		ada_ring_put(td, now, td->shadow[d - 1].fn | (uint64_t)ADA_RAW_CALL << 62);
	ada_registry_push(td);
	ada_stacks_after_fork(td);
	if (!td->is_stack)
		pthread_setspecific(ada_rt.exit_key, td);
	ada_counters_thread_start(); /* the parent's timers stayed with it */
}
