/* ada.h - marking moments in a program traced by ada.
 *
 * Installed with the tools (make install: PREFIX/include/ada.h). A program
 * that includes it builds and runs unchanged without adacc: the functions
 * are weak references, and each call below checks that libada is there
 * (one compare of an address the loader filled in) before making it.
 *
 * With ADA_DETAIL=window (the default), a trigger opens a detail window:
 * the registers and stack windows of the events around it (ADA_PRE before,
 * ADA_POST after) are written to the trace, and the window is listed in
 * the manifest with its label. Without a trigger no detail is written.
 */
#ifndef ADA_H
#define ADA_H

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ADA_RUNTIME
#define ADA_WEAK __attribute__((weak))
#else /* libada's own definitions, exported */
#define ADA_WEAK __attribute__((visibility("default")))
#endif

/* A trigger on the calling thread, labelled `label` in the manifest (up to
 * 119 bytes are kept; NULL is an empty label). Its window is around the
 * thread's position at the call. Thread-safe and async-signal-safe: one
 * atomic compare-and-swap and a futex wake, no lock, no allocation, a few
 * hundred nanoseconds. Up to 64 marks may wait for the writer; more are
 * counted and said at exit. Does nothing in a thread that has recorded no
 * event yet, or when tracing is off. */
void ada_mark(const char *label) ADA_WEAK;

/* A trigger on every thread: each gets a window around its first event
 * after this moment (and before, by ADA_PRE). The same cost and safety as
 * ada_mark; the windows are written by the recorder shortly after (it is
 * woken at once), not by the caller. */
void ada_snapshot(void) ADA_WEAK;

/* Stop and resume recording for the whole process. While off, a call is
 * not recorded, nor anything it makes (not counted as lost: asked for);
 * frames entered before return into the trace, which stays balanced. Each
 * thread sees the change at its next call (a relaxed store here; the hooks
 * read one global word a call: with recording off, a call costs the hook
 * and a branch to a small function, nothing is written), and the writer
 * thread is woken: in patchable mode it turns the patched entries back into
 * NOPs while off (a call then costs what an untraced one does) and patches
 * them again when on. Thread-safe, async-signal-safe. */
void ada_disable(void) ADA_WEAK;
void ada_enable(void) ADA_WEAK;

/* The calling thread records nothing more from its next call on (frames it
 * is in still return into the trace), whatever ada_enable says: for
 * threads whose calls are noise (a pool's idle loop). For the calling
 * thread only; async-signal-safe. Calls it makes on a coroutine stack are
 * that stack's, which this does not reach. */
void ada_thread_ignore(void) ADA_WEAK;

#undef ADA_WEAK

#ifndef ADA_RUNTIME
/* Without libada the calls do nothing. */
#define ada_mark(label) (ada_mark ? ada_mark(label) : (void)0)
#define ada_snapshot() (ada_snapshot ? ada_snapshot() : (void)0)
#define ada_disable() (ada_disable ? ada_disable() : (void)0)
#define ada_enable() (ada_enable ? ada_enable() : (void)0)
#define ada_thread_ignore() (ada_thread_ignore ? ada_thread_ignore() : (void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
