/* longjmp.c - frames left through hooked libc calls.
 *
 *   - qsort (libc, hooked) calls cmp (the executable's, traced); the third
 *     comparison longjmps back to sort_until_bail, out of cmp and qsort:
 *     both close as unwound, with bail and longjmp under them;
 *   - raise (hooked) delivers SIGUSR1 to on_signal, which siglongjmps back
 *     to wait_for_signal, out of the handler and raise.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noclone))

static jmp_buf env;
static sigjmp_buf senv;
static int compares;

NOINLINE static void bail(int code)
{
	longjmp(env, code);
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (++compares == 3)
		bail(7);
	return (x > y) - (x < y);
}

NOINLINE static int sort_until_bail(int *v, size_t n)
{
	int r = setjmp(env);

	if (r)
		return r;
	qsort(v, n, sizeof(*v), cmp);
	return 0;
}

static void on_signal(int sig)
{
	siglongjmp(senv, sig);
}

NOINLINE static int wait_for_signal(void)
{
	static struct sigaction sa;
	int r;

	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	r = sigsetjmp(senv, 1);
	if (r)
		return r;
	raise(SIGUSR1);
	return 0;
}

NOINLINE static int after(int x)
{
	return x + 1;
}

int main(void)
{
	int v[] = { 5, 3, 9, 1, 7, 2 };
	int r = sort_until_bail(v, 6);

	printf("bailed with %d after %d compares\n", r, compares);
	r = wait_for_signal();
	printf("signal %d\n", r);
	printf("after %d\n", after(41));
	return 0;
}
