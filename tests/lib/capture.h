/* capture.h - what a test's code writes to stderr (fd 2), or stdout, as text.
 *
 * The runtime and the symbolizer print their one-line messages to fd 2 (the
 * runtime with write(), not stdio), so the capture swaps the descriptor. */
#ifndef ADA_TEST_CAPTURE_H
#define ADA_TEST_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

void capture_begin(void);
/* The same for another descriptor (STDOUT_FILENO: the symbolizer's summary). */
void capture_fd_begin(int fd);
/* Restores the descriptor; returns what was written meanwhile (valid until
 * the next capture, at most 8 KiB). */
const char *capture_end(void);
/* Whether a capture is in progress (a failed assertion may leave one). */
bool capture_active(void);
size_t count_lines(const char *s);

#endif
