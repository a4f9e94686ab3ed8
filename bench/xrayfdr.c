/* xrayfdr.c - start and end LLVM XRay's flight-data-recorder mode.
 *
 * Linked (not instrumented) into the benchmark's XRay builds by xraycc.sh.
 * XRAY_OPTIONS="xray_mode=xray-fdr ..." only selects the FDR mode: unlike the
 * basic mode, compiler-rt 14 does not start it, and writes nothing unless
 * the program finalizes and flushes the log itself (xray_log_interface.h
 * describes that workflow). This does it for a program that knows nothing
 * of XRay: a constructor initialises the mode (its options come from
 * XRAY_FDR_OPTIONS), an atexit handler finalizes the log and writes it to
 * the xray_logfile_base file. Without xray-fdr in XRAY_OPTIONS it does
 * nothing, so the same binary also runs the basic mode.
 *
 * The C declarations of the C++ header's functions: each returns an enum
 * (an int); 2 is XRAY_LOG_INITIALIZED, XRAY_LOG_FINALIZED's predecessor
 * and XRAY_LOG_FLUSHED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __xray_log_init_mode(const char *mode, const char *config);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);

enum { XRAY_LOG_INITIALIZED = 2, XRAY_LOG_FINALIZED = 4, XRAY_LOG_FLUSHED = 2 };

static void xrayfdr_end(void)
{
	if (__xray_log_finalize() != XRAY_LOG_FINALIZED)
		fprintf(stderr, "xrayfdr: __xray_log_finalize failed\n");
	else if (__xray_log_flushLog() != XRAY_LOG_FLUSHED)
		fprintf(stderr, "xrayfdr: __xray_log_flushLog failed\n");
}

__attribute__((constructor)) static void xrayfdr_start(void)
{
	const char *o = getenv("XRAY_OPTIONS");

	if (!o || !strstr(o, "xray_mode=xray-fdr"))
		return;
	if (__xray_log_init_mode("xray-fdr", "") != XRAY_LOG_INITIALIZED) {
		fprintf(stderr, "xrayfdr: __xray_log_init_mode(xray-fdr) failed\n");
		return;
	}
	atexit(xrayfdr_end);
}
