// coro20.cc <n> - a C++20 generator: main pulls n squares out of a
// coroutine. Stackless: each resume is a call of the coroutine's body on
// main's stack, each suspension its return. Prints the sum of the squares.
#include <coroutine>
#include <cstdio>
#include <cstdlib>

struct generator {
	struct promise_type {
		long value = 0;
		generator get_return_object()
		{
			return generator{ std::coroutine_handle<promise_type>::from_promise(*this) };
		}
		std::suspend_always initial_suspend() noexcept { return {}; }
		std::suspend_always final_suspend() noexcept { return {}; }
		std::suspend_always yield_value(long v)
		{
			value = v;
			return {};
		}
		void return_void() {}
		void unhandled_exception() { std::abort(); }
	};
	std::coroutine_handle<promise_type> h;
	explicit generator(std::coroutine_handle<promise_type> handle) : h(handle) {}
	generator(const generator &) = delete;
	~generator() { h.destroy(); }
	bool next()
	{
		h.resume();
		return !h.done();
	}
	long value() const { return h.promise().value; }
};

__attribute__((noinline)) long square(long x)
{
	return x * x;
}

generator squares(int n)
{
	for (long i = 1; i <= n; i++)
		co_yield square(i);
}

__attribute__((noinline)) long total(int n)
{
	long sum = 0;
	generator g = squares(n);

	while (g.next())
		sum += g.value();
	return sum;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	std::printf("%ld\n", total(std::atoi(argv[1])));
	return 0;
}
