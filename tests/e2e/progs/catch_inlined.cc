// catch_inlined.cc - an exception thrown from a function inlined into its
// caller, through two frames, caught in a third whose handler calls a function.
// With clang, exit hooks do not run while unwinding, so the frames the
// exception leaves are closed by the runtime; the handler's call must nest
// under the catching frame, not under a frame that is gone.
#include <cstdio>
#include <stdexcept>

static inline __attribute__((always_inline)) int checked(int x)
{
	if (x > 2)
		throw std::runtime_error("too big");
	return x;
}

__attribute__((noinline)) int deep(int x) { return checked(x) + 1; }
__attribute__((noinline)) int mid(int x) { return deep(x) * 2; }
__attribute__((noinline)) int report(int x) { return -x; }

__attribute__((noinline)) int top(int x)
{
	try {
		return mid(x);
	} catch (const std::exception &) {
		return report(x);
	}
}

int main()
{
	std::printf("%d %d\n", top(1), top(5));
	return 0;
}
