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
 * ada_mark; the windows are written by the writer thread shortly after
 * (it is woken at once), not by the caller. */
void ada_snapshot(void) ADA_WEAK;

#undef ADA_WEAK

#ifndef ADA_RUNTIME
/* Without libada the calls do nothing. */
#define ada_mark(label) (ada_mark ? ada_mark(label) : (void)0)
#define ada_snapshot() (ada_snapshot ? ada_snapshot() : (void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
