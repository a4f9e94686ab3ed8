/* flush.c - the program's side of the flushes it asks the recorder for.
 *
 * Every flush is the recorder's work: its files are in a process of its
 * own. exec and a fatal signal's handler ask for the flush
 * (ada_writer_request) and wait a bounded time; at the image's end (exit,
 * _exit) the program waits only until the recorder answered, if at all
 * (ada_writer_request_end). The recorder's side, the final flush among it,
 * is recorder/final.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ada_internal.h"

#define EXIT_FLUSH_TIMEOUT_NS 60000000000ull

/* Asks the writer for a flush of that kind; the request's number. */
static uint32_t post(uint32_t how)
{
	uint32_t req;

	__atomic_store_n(&ada_rt.flush_how, how, __ATOMIC_RELAXED);
	req = __atomic_add_fetch(&ada_rt.flush_req, 1, __ATOMIC_ACQ_REL);
	ada_writer_kick();
	return req;
}

/* Waits until the writer's answer *word reaches req; false once timeout_ns
 * passed since start, the writer gave up (its files could not be made: it
 * said so), or the recorder died (said once). */
static bool answered(uint32_t *word, uint32_t req, uint64_t start, uint64_t timeout_ns)
{
	for (;;) {
		uint32_t done = __atomic_load_n(word, __ATOMIC_ACQUIRE);

		if ((int32_t)(done - req) >= 0)
			return true;
		if (__atomic_load_n(&ada_rt.writer_failed, __ATOMIC_ACQUIRE))
			return false;
		if (ada_recorder_gone()) {
			ada_recorder_lost();
			return false;
		}
		if (ada_now_ns(CLOCK_MONOTONIC) - start >= timeout_ns)
			return false;
		ada_futex_wait(word, done, 1000000);
	}
}

/* No recorder (rings_only.c): what the program would ask of one, done
 * here. A fatal signal writes the rings only (no END: ada-symbolize says
 * crashed); a drain or a failed exec has nothing to do (the rings go on). */
static bool flush_here(uint32_t how)
{
	switch (how) {
	case ADA_FLUSH_EXEC:
		ada_rings_only_end(ADA_END_EXEC);
		break;
	case ADA_FLUSH_EXIT:
		ada_rings_only_end(ADA_END_EXIT);
		break;
	case ADA_FLUSH__EXIT:
		ada_rings_only_end(ADA_END__EXIT);
		break;
	case ADA_FLUSH_DYING:
		ada_rings_only_write();
		break;
	default:
		break;
	}
	return true;
}

/* Async-signal-safe with a recorder: atomics, futex and clock_gettime only
 * (without one, rings_only.c's end: see there). */
bool ada_writer_request(uint32_t how, uint64_t timeout_ns)
{
	uint64_t start = ada_now_ns(CLOCK_MONOTONIC);

	if (ada_rt.rings_only)
		return flush_here(how);
	if (!__atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE))
		return false;
	return answered(&ada_rt.flush_done, post(how), start, timeout_ns);
}

/* The exit budget (issue 23): a recorder finishes the trace after the
 * program is gone, as after a kill, and says its lines (a loss, a failed
 * write, ADA_VERBOSE's summary) on the stderr it took; the program waits
 * for its answer only when there is something to say (recorder.c), and
 * never for the final flush (ada-symbolize waits for that, on the lock the
 * recorder holds on the pid directory). A recorder that could not take the
 * stderr (pidfd_getfd refused) is waited for to the end. */
bool ada_writer_request_end(uint32_t how, uint64_t timeout_ns, bool *say)
{
	uint64_t start = ada_now_ns(CLOCK_MONOTONIC);
	uint32_t req;

	*say = true;
	if (ada_rt.rings_only)
		return flush_here(how);
	if (!__atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE))
		return false;
	/* The trace ends here, though the program runs on (its last
	 * destructors) while the recorder may not have drained yet: nothing
	 * more is recorded (no detail record rolls over a window's), and each
	 * ring's end is where its head is now (writer.c's cut). Each thread
	 * is made to ignore its calls, as ada_thread_ignore would: the
	 * process's switch (ada_disable) would have patchable mode's recorder
	 * take every entry out of the code of a program that is ending. */
	for (struct ada_thread *td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td;
	     td = td->next) {
		__atomic_store_n(&td->ignored, true, __ATOMIC_RELAXED);
		if (!td->rh)
			continue;
		td->end_at = __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE);
		__atomic_store_n(&td->end_set, true, __ATOMIC_RELEASE);
	}
	req = post(how);
	if (!ada_recorder_answer_wanted()) {
		*say = false;
		return true;
	}
	if (!answered(&ada_rt.flush_ack, req, start, timeout_ns))
		return false;
	if (__atomic_load_n(&ada_rt.flush_late, __ATOMIC_ACQUIRE)) {
		*say = false;
		return true;
	}
	return answered(&ada_rt.flush_done, req, start, timeout_ns);
}

void ada_writer_stop(void)
{
	bool say;

	/* The recorder finishes the trace; the program waits for its answer
	 * only when there is something to hear (a minute at most). */
	ada_writer_request_end(ADA_FLUSH_EXIT, EXIT_FLUSH_TIMEOUT_NS, &say);
	if (say)
		ada_warn_pending();
}
