// cxx.cc - C++ through libstdc++ with the dynamic hooks on: std::string,
// std::vector and std::sort, and an exception thrown inside libstdc++.
//
// dh::fetch() calls std::vector::at(), whose range check calls
// std::__throw_out_of_range_fmt in libstdc++ (through the executable's
// hooked PLT slot); it builds the message and calls __cxa_throw (through
// libstdc++'s own hooked slot), which unwinds through both hooked frames,
// dh::fetch and dh::fetch_all, to the handler in main. main then goes on and
// returns normally.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline, noclone))

namespace dh {

NOINLINE std::string build(int n)
{
	std::string s = "item";
	s += std::to_string(n);
	s += std::string(20, '.'); // past the small-string buffer: allocates
	return s;
}

NOINLINE int sum_sorted(std::vector<int> &v)
{
	std::sort(v.begin(), v.end());
	int t = 0;
	for (int x : v)
		t = t * 10 + x;
	return t;
}

NOINLINE int fetch(const std::vector<int> &v, unsigned long i)
{
	return v.at(i);
}

// fetch(v, 0 .. 3): the fourth is out of range and throws.
NOINLINE int fetch_all(const std::vector<int> &v)
{
	int t = 0;
	for (unsigned long i = 0; i <= v.size(); i++)
		t += fetch(v, i);
	return t;
}

NOINLINE void report(const char *what)
{
	std::printf("caught: %s\n", what);
}

NOINLINE int after(int x)
{
	return x + 1;
}

} // namespace dh

int main()
{
	std::vector<int> v = { 3, 1, 2 };
	std::string s = dh::build(7);
	std::printf("%s %zu\n", s.c_str(), s.size());
	std::printf("sorted %d\n", dh::sum_sorted(v));
	try {
		std::printf("total %d\n", dh::fetch_all(v));
	} catch (const std::out_of_range &e) {
		dh::report(e.what());
	}
	std::printf("after %d\n", dh::after(41));
	return 0;
}
