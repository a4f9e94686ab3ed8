/* tsc_off.c - a thread whose time-stamp counter is off.
 *
 * "prctl": prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes rdtsc fault in this
 * thread; "strict": seccomp's strict mode does too, and allows no system
 * call but read, write, exit and sigreturn (anything else kills the
 * process). Either way main then calls work() CALLS times, writes the sum
 * with write(2) and ends by the exit system call (strict mode's only way
 * out). Usage: tsc_off prctl|strict [CALLS]
 */
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

static __attribute__((noinline)) long work(long x)
{
	BARRIER();
	return x + 1;
}

int main(int argc, char **argv)
{
	long calls = argc > 2 ? atol(argv[2]) : 1000, sum = 0;
	char line[64];
	int n;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "prctl") ? prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0)
				      : prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0))
		return 3;
	for (long i = 0; i < calls; i++)
		sum += work(i);
	n = snprintf(line, sizeof(line), "sum %ld\n", sum);
	if (write(1, line, (size_t)n) != n)
		syscall(SYS_exit, 4);
	syscall(SYS_exit, 0);
	return 0;
}
