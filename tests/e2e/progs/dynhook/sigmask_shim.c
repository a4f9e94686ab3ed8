/* sigmask_shim.c - libsigmask.so, an LD_PRELOAD'ed pthread_sigmask that
 * passes the call on to sigprocmask, through its own PLT slot, as
 * interposers do (ASan's interceptors call the real function through
 * theirs). That slot is hooked like any library's. */
#include <signal.h>

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return sigprocmask(how, set, old);
}
