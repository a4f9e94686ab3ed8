// unwind_cases.cc - C++ exceptions, stack walks and pthread_exit through
// traced frames. argv[1] names the scenario; each prints what it saw, so the
// traced build's output can be compared with an untraced one.
//
//   catch      thrown in level3, caught in level1 two frames up; level1 then
//              calls handled() and after(), run_catch calls after()
//   rethrow    caught in r_middle, which calls note() and rethrows (throw;),
//              caught again in r_top
//   raii       Guard destructors run in the two frames the exception leaves
//   noexcept   a noexcept(false) destructor throws out of n_boundary; caught
//              in main
//   loop       ten exceptions thrown and caught in a loop, then l_after()
//   thread     a std::thread whose function throws and catches
//   backtrace  backtrace() and _Unwind_Backtrace in bt_leaf print the
//              function names of the chain (needs -rdynamic)
//   exit       pthread_exit from a deep frame of a thread with a Guard
//   cancel     pthread_cancel of a thread waiting in a deep frame with a Guard
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>
#include <stdexcept>
#include <thread>
#include <unwind.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
static volatile int yes = 1;

struct Guard {
	const char *name;
	NOINLINE ~Guard()
	{
		std::printf("~Guard %s\n", name);
		sink++;
	}
};

NOINLINE void handled(const char *what)
{
	std::printf("caught %s\n", what);
	sink++;
}

NOINLINE void note(const char *what)
{
	std::printf("note %s\n", what);
	sink++;
}

NOINLINE void after() { sink++; }

// ---- catch ------------------------------------------------------------------

NOINLINE void level3()
{
	if (yes)
		throw std::runtime_error("deep");
	sink++;
}

NOINLINE void level2()
{
	level3();
	sink++;
}

NOINLINE void level1()
{
	try {
		level2();
	} catch (const std::exception &e) {
		handled(e.what());
	}
	after();
	sink++;
}

NOINLINE void run_catch()
{
	level1();
	after();
	sink++;
}

// ---- rethrow ----------------------------------------------------------------

NOINLINE void r_thrower()
{
	if (yes)
		throw std::runtime_error("again");
	sink++;
}

NOINLINE void r_middle()
{
	try {
		r_thrower();
	} catch (...) {
		note("r_middle");
		throw;
	}
	sink++;
}

NOINLINE void r_outer()
{
	r_middle();
	sink++;
}

NOINLINE void r_top()
{
	try {
		r_outer();
	} catch (const std::exception &e) {
		handled(e.what());
	}
	sink++;
}

// ---- raii -------------------------------------------------------------------

NOINLINE void d_throw()
{
	Guard g{ "d_throw" };

	if (yes)
		throw std::runtime_error("raii");
	sink++;
}

NOINLINE void d_mid()
{
	Guard g{ "d_mid" };

	d_throw();
	sink++;
}

NOINLINE void d_top()
{
	try {
		d_mid();
	} catch (const std::exception &e) {
		handled(e.what());
	}
	sink++;
}

// ---- noexcept(false) ----------------------------------------------------------

struct Loud {
	NOINLINE ~Loud() noexcept(false)
	{
		if (yes)
			throw std::runtime_error("from a destructor");
	}
};

NOINLINE void n_boundary() noexcept(false)
{
	Loud l;

	sink++;
}

// ---- loop -------------------------------------------------------------------

NOINLINE void l_throw(int i)
{
	if (yes)
		throw i;
	sink++;
}

NOINLINE void l_mid(int i)
{
	l_throw(i);
	sink++;
}

NOINLINE void l_top()
{
	int total = 0;

	for (int i = 0; i < 10; i++) {
		try {
			l_mid(i);
		} catch (int v) {
			total += v;
		}
	}
	std::printf("total %d\n", total);
	after();
	sink++;
}

// ---- thread -------------------------------------------------------------------

NOINLINE void t_throw()
{
	if (yes)
		throw std::runtime_error("in a thread");
	sink++;
}

NOINLINE void t_body()
{
	try {
		t_throw();
	} catch (const std::exception &e) {
		handled(e.what());
	}
	sink++;
}

NOINLINE void run_thread()
{
	std::thread th(t_body);

	th.join();
	sink++;
}

// ---- backtrace ------------------------------------------------------------------

// The function name of each frame, up to main, on one line.
static void print_names(const char *how, void **pcs, int n)
{
	std::printf("%s:", how);
	for (int i = 0; i < n; i++) {
		Dl_info info;

		if (!dladdr(pcs[i], &info) || !info.dli_sname)
			continue;
		std::printf(" %s", info.dli_sname);
		if (!std::strcmp(info.dli_sname, "main"))
			break;
	}
	std::printf("\n");
}

struct collect {
	void *pcs[64];
	int n;
};

static _Unwind_Reason_Code collect_one(struct _Unwind_Context *ctx, void *arg)
{
	struct collect *c = static_cast<struct collect *>(arg);

	if (c->n == 64)
		return _URC_END_OF_STACK;
	c->pcs[c->n++] = reinterpret_cast<void *>(_Unwind_GetIP(ctx) - 1);
	return _URC_NO_REASON;
}

extern "C" NOINLINE void bt_leaf()
{
	void *pcs[64];
	struct collect c = {};
	int n = backtrace(pcs, 64);

	for (int i = 0; i < n; i++)
		pcs[i] = static_cast<char *>(pcs[i]) - 1;
	print_names("backtrace", pcs, n);
	backtrace_symbols_fd(pcs, n, 2);
	_Unwind_Backtrace(collect_one, &c);
	print_names("_Unwind_Backtrace", c.pcs, c.n);
	sink++;
}

extern "C" NOINLINE void bt_mid()
{
	bt_leaf();
	sink++;
}

extern "C" NOINLINE void bt_top()
{
	bt_mid();
	sink++;
}

// ---- pthread_exit -----------------------------------------------------------------

extern "C" NOINLINE void pe_leaf()
{
	if (yes)
		pthread_exit(reinterpret_cast<void *>(42));
	sink++;
}

extern "C" NOINLINE void pe_mid()
{
	Guard g{ "pe_mid" };

	pe_leaf();
	sink++;
}

extern "C" NOINLINE void *pe_start(void *arg)
{
	pe_mid();
	sink++;
	return arg;
}

NOINLINE void run_exit()
{
	pthread_t t;
	void *ret = nullptr;

	pthread_create(&t, nullptr, pe_start, nullptr);
	pthread_join(t, &ret);
	std::printf("thread returned %ld\n", reinterpret_cast<long>(ret));
	sink++;
}

// ---- pthread_cancel ---------------------------------------------------------------

static sem_t waiting;

extern "C" NOINLINE void pc_leaf()
{
	sem_post(&waiting);
	for (;;)
		pause(); // a cancellation point
}

extern "C" NOINLINE void pc_mid()
{
	Guard g{ "pc_mid" };

	pc_leaf();
	sink++;
}

extern "C" NOINLINE void *pc_start(void *arg)
{
	pc_mid();
	sink++;
	return arg;
}

NOINLINE void run_cancel()
{
	pthread_t t;
	void *ret = nullptr;

	sem_init(&waiting, 0, 0);
	pthread_create(&t, nullptr, pc_start, nullptr);
	sem_wait(&waiting);
	pthread_cancel(t);
	pthread_join(t, &ret);
	std::printf("thread %s\n", ret == PTHREAD_CANCELED ? "canceled" : "returned");
	sink++;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!std::strcmp(what, "catch"))
		run_catch();
	else if (!std::strcmp(what, "rethrow"))
		r_top();
	else if (!std::strcmp(what, "raii"))
		d_top();
	else if (!std::strcmp(what, "noexcept")) {
		try {
			n_boundary();
		} catch (const std::exception &e) {
			handled(e.what());
		}
	} else if (!std::strcmp(what, "loop"))
		l_top();
	else if (!std::strcmp(what, "thread"))
		run_thread();
	else if (!std::strcmp(what, "backtrace"))
		bt_top();
	else if (!std::strcmp(what, "exit"))
		run_exit();
	else if (!std::strcmp(what, "cancel"))
		run_cancel();
	else
		return 2;
	after();
	return 0;
}
