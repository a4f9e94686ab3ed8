/* final.c - the recorder's side of the flushes the program asks for, and
 * the end of an image's trace.
 *
 * The program posts a request (runtime/flush.c) and waits, a bounded time
 * or only for the answer; the recorder's loop takes it at its next pass.
 * The final flush: every ring drained to a cut, every thread's end
 * recorded, the END record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "window.h"
#include "writer.h"

static void end_record(uint32_t how);
static void final_flush(uint32_t how);

/* Another thread asked for a flush (ada_writer_request). */
void ada_writer_flush_if_asked(void)
{
	uint32_t req = __atomic_load_n(&ada_rt.flush_req, __ATOMIC_ACQUIRE);
	uint32_t how = __atomic_load_n(&ada_rt.flush_how, __ATOMIC_RELAXED);
	struct ada_thread *td;

	if (req == ada_rt.flush_done)
		return;
	switch (how) {
	case ADA_FLUSH_EXEC:
		ada_writer_drain_cut();
		for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next)
			if (td->windows)
				ada_window_close(td, td->windows, td->rh->tail, true);
		end_record(ADA_END_EXEC); /* after what threads queued (meta.c) */
		if (!ada_w.streams) {
			ada_trace_remove();
			ada_w.trace_removed = true;
		}
		ada_w.exec_flushed = true;
		break;
	case ADA_FLUSH_EXEC_FAILED:
		ada_w.exec_flushed = false;
		if (ada_w.trace_removed && ada_trace_again(true) == 0)
			ada_w.trace_removed = false;
		break;
	case ADA_FLUSH_EXIT:
	case ADA_FLUSH__EXIT:
		/* The program's maps while it still waits (ADA_DYNHOOK=off: a
		 * library it loaded is found there), the symbols of one it
		 * loaded since the last keep, then the answer. */
		ada_modmap_look();
		if (ada_writer_symbols_behind())
			ada_writer_keep_symbols(true); /* its events not drained yet */
		ada_recorder_end_asked(req);
		final_flush(how == ADA_FLUSH_EXIT ? ADA_END_EXIT : ADA_END__EXIT);
		ada_recorder_say_late();
		ada_w.stop = true; /* the process ends now */
		break;
	case ADA_FLUSH_DYING:
		/* A fatal signal: its windows end where the rings are now
		 * (the process may go on if a handler recovers; later events
		 * are written, their details not). */
		ada_writer_drain_cut();
		for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next)
			if (td->windows)
				ada_window_close(td, td->windows, td->rh->tail, true);
		break;
	default:
		ada_writer_drain_cut();
	}
	__atomic_store_n(&ada_rt.flush_done, req, __ATOMIC_RELEASE);
	ada_futex_wake(&ada_rt.flush_done);
}

/* The image ends (exit, _exit, exec) with its rings written. */
static void end_record(uint32_t how)
{
	struct ada_meta_end end = { .how = how };

	ada_writer_clock_point();
	end.end_tsc = ada_arch_ticks();
	end.end_boottime_ns = ada_now_ns(CLOCK_BOOTTIME);
	ada_meta_write(ADA_META_END, &end, sizeof(end), NULL, 0);
}

/* How of a recorder's program that died without asking: no END record. */
#define END_NONE UINT32_MAX

/* The end of the image's trace, under the lock, the writer loop over; the
 * modules looked at by the caller. */
static void final_flush(uint32_t how)
{
	struct ada_thread *td;

	/* The watchdog's test: a recorder blocked for good. */
	while (ada_rt.cfg.test_hang && ada_recorder_self())
		pause();
	ada_writer_drain_cut();
	/* Threads still running at exit: their trace ends here. Those waiting
	 * for room stop waiting (and drop: nobody drains any more). */
	__atomic_store_n(&ada_rt.writer_live, false, __ATOMIC_RELEASE);
	/* Records threads queued before the store are written ahead of the
	 * next record of ours (meta.c); later ones go straight to the file. */
	for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next) {
		ada_writer_thread_end(td, ADA_TEND_FINAL | (how == END_NONE ? ADA_TEND_DIED : 0));
		ada_writer_stream_close(td);
		ada_windows_free(td);
		__atomic_fetch_add(&td->rh->wake, 1, __ATOMIC_RELEASE);
		ada_futex_wake(&td->rh->wake);
	}
	ada_latency_record();
	if (how != END_NONE)
		end_record(how);
	if (!ada_w.streams)
		ada_trace_remove();
	else
		ada_symbols_keep();
	if (!ada_rt.cfg.quiet)
		ada_drop_report(ada_w.totals, ada_w.kept, ada_w.waits, ada_w.wait_ns,
				ada_rt.cfg.verbose, ada_recorder_self());
	if (ada_marks_overflowed())
		ada_warn("%" PRIu64 " triggers opened no window: 64 were already waiting for the "
			 "writer", ada_marks_overflowed());
}

void ada_writer_end_dead(void)
{
	/* Every thread of the program ended with it: what the rings hold is
	 * all there will be. A killed process's trace has no END (ada-symbolize
	 * says its threads were killed), as without a recorder. */
	ada_modmap_look();
	final_flush(END_NONE);
	ada_w.stop = true;
}
