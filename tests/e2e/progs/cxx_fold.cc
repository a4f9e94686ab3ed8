/* cxx_fold.cc - a small C++ program whose calls are mostly the C++
 * runtime's: std::sort with a comparator of its own, a vector, a string,
 * and an exception that unwinds through a guard object. For
 * tests/e2e/test_sessions.c: the views fold the runtime's frames and keep
 * the program's, also where the runtime calls it back (less_than under
 * std::sort, the guard's destructor run by the unwinding).
 *
 * Prints "sorted 1 3 5 9; caught big (14)", exits 0.
 */
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

struct Guard {
	int *count;
	~Guard() { ++*count; }
};

__attribute__((noinline)) static bool less_than(int a, int b)
{
	return a < b;
}

__attribute__((noinline)) static void check(int v, int *guards)
{
	Guard g{ guards };

	if (v > 5)
		throw std::runtime_error("big");
}

int main()
{
	int a[] = { 5, 3, 9, 1 };
	int guards = 0;

	std::sort(a, a + 4, less_than);
	std::vector<int> v(a, a + 4);
	std::string s = "sorted";
	for (int x : v)
		s += " " + std::to_string(x);
	try {
		for (int x : v)
			check(x, &guards);
	} catch (const std::exception &e) {
		std::printf("%s; caught %s (%zu)\n", s.c_str(), e.what(), s.size());
	}
	return guards == 4 ? 0 : 1;
}
