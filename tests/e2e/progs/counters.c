/* counters.c - the counter lane's end-to-end program (test_counters):
 *   sleeper: f sleeps 50 ms, first thing (its thread has used far less than
 *            one sampling period of CPU when f returns), then burn spins
 *            30 ms of CPU;
 *   toucher: g touches PAGES fresh pages (no huge pages), then spins 200 ms
 *            of CPU in g, so that a sample comes in g after the last fault;
 *   main:    caller spins 200 ms of CPU in lib_spin (counters_lib.c, built
 *            without adacc); then installs a handler of its own on every
 *            real-time signal, spins 30 ms more (no signal of ada's may
 *            reach it), and raises each signal once (each must reach it).
 * With the argument "churn" it does only this: churn calls tiny CHURN
 * times, a loop whose CPU goes mostly to ada's hooks. With "clock":
 * clocks reads the monotonic clock for 200 ms of CPU, nearly all of it in
 * the vDSO's clock_gettime.
 * stdout is the same traced or not; what the program measured goes to
 * stderr: "touched N faults F", "handled H of S", "timers T". */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PAGES 2000
#define CHURN 2000000

unsigned lib_spin(double ms);

static volatile unsigned sink;
static volatile sig_atomic_t handled;

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__attribute__((noinline)) void burn(double ms)
{
	double start = cpu_ms();

	while (cpu_ms() - start < ms)
		for (unsigned i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void f(void)
{
	struct timespec left = { 0, 50 * 1000 * 1000 };

	while (nanosleep(&left, &left) != 0)
		;
	sink++;
}

static void *sleeper(void *arg)
{
	(void)arg;
	f();
	burn(30);
	return NULL;
}

__attribute__((noinline)) void g(void)
{
	size_t len = (size_t)PAGES * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rusage a, b;

	if (p == MAP_FAILED)
		return;
	madvise(p, len, MADV_NOHUGEPAGE); /* one fault a page */
	getrusage(RUSAGE_THREAD, &a);
	for (size_t i = 0; i < PAGES; i++)
		p[i * 4096] = 1;
	getrusage(RUSAGE_THREAD, &b);
	fprintf(stderr, "touched %d faults %ld\n", PAGES, b.ru_minflt - a.ru_minflt);
	burn(200);
	munmap(p, len);
	sink++;
}

static void *toucher(void *arg)
{
	(void)arg;
	g();
	return NULL;
}

__attribute__((noinline)) unsigned caller(void)
{
	unsigned r = lib_spin(200);

	sink = r;
	return r + 1;
}

__attribute__((noinline)) unsigned tiny(unsigned i)
{
	return i * 3 + 1;
}

__attribute__((noinline)) void churn(void)
{
	unsigned s = 0;

	for (unsigned i = 0; i < CHURN; i++)
		s += tiny(i);
	sink = s;
}

__attribute__((noinline)) void clocks(void)
{
	struct timespec t;
	long s = 0;

	do
		for (int i = 0; i < 10000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			s += t.tv_nsec;
		}
	while (cpu_ms() < 200);
	sink = (unsigned)s;
}

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

/* The program's own handler on every real-time signal: ada's timers must
 * not reach it, a signal raised must. */
__attribute__((noinline)) void own_handlers(void)
{
	struct sigaction sa;
	int n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaction(s, &sa, NULL);
	burn(30);
	fprintf(stderr, "handled %d during the spin\n", (int)handled);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++, n++)
		raise(s);
	fprintf(stderr, "handled %d of %d\n", (int)handled, n);
}

static int timers(void)
{
	FILE *t = fopen("/proc/self/timers", "r");
	char line[256];
	int n = 0;

	while (t && fgets(line, sizeof(line), t))
		n += strncmp(line, "ID:", 3) == 0;
	if (t)
		fclose(t);
	return n;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc > 1 && (!strcmp(argv[1], "churn") || !strcmp(argv[1], "clock"))) {
		if (argv[1][1] == 'h')
			churn();
		else
			clocks();
		puts("done");
		return 0;
	}
	pthread_create(&a, NULL, sleeper, NULL);
	pthread_create(&b, NULL, toucher, NULL);
	caller();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	fprintf(stderr, "timers %d\n", timers());
	own_handlers();
	puts("done");
	return 0;
}
