/* cxx.cc - C++: classes, a virtual call, templates, a namespace, an exception.
 *
 * Every function is in namespace geo, so the call tree shows demangled,
 * qualified names: constructors and destructors (Shape's implicit constructor,
 * which stores the vtable pointer, is compiled and instrumented too),
 * "geo::Square::area() const"
 * reached through a virtual call, members of the class template
 * geo::Total<double>, and the function template instance
 * "int geo::twice<int>(int)".
 *
 * geo::checked_area() catches a geo::BadShape thrown three frames down, by
 * check_side() under check() under check_all(), and hands it to
 * error_code(). g++ builds each function's exit hook (-finstrument-functions)
 * as a cleanup that runs while the exception unwinds the frame, so those
 * three frames close through their exit hook like a return, and the two
 * check() subtrees, one returning and one unwound, look the same. Frames are
 * marked "(unwound)" where no exit hook runs at all: exit(), pthread_exit()
 * in C, longjmp.
 *
 * No standard library headers besides <cstdio>: their inline functions would
 * be instrumented too and bury the call tree under std:: internals.
 *
 * Prints "area 13.00, twice 6, error 2" and exits 0.
 */
#include <cstdio>

namespace geo {

struct BadShape {
	int code;
};

class Shape {
public:
	virtual double area() const = 0;

protected:
	~Shape() {}
};

class Square : public Shape {
public:
	explicit Square(double side) : side_(side) {}
	~Square() {}
	double area() const override { return side_ * side_; }
	double side() const { return side_; }

private:
	double side_;
};

template <typename T>
class Total {
public:
	Total() : sum_() {}
	void add(T value) { sum_ += value; }
	T get() const { return sum_; }

private:
	T sum_;
};

template <typename T>
T twice(T x)
{
	return x + x;
}

/* Returns the sum of the shapes' areas; each area() is a virtual call. */
static double total_area(const Shape *const *shapes, int n)
{
	Total<double> total;

	for (int i = 0; i < n; i++)
		total.add(shapes[i]->area());
	return total.get();
}

static void check_side(double side)
{
	if (side <= 0)
		throw BadShape{2};
}

static void check(const Square &square)
{
	check_side(square.side());
}

static void check_all(const Square *const *squares, int n)
{
	for (int i = 0; i < n; i++)
		check(*squares[i]);
}

static int error_code(const BadShape &e)
{
	return e.code;
}

/* Returns 0 if every square is valid, else the code of the first error. */
static int checked_area(const Square *const *squares, int n)
{
	try {
		check_all(squares, n);
	} catch (const BadShape &e) {
		return error_code(e);
	}
	return 0;
}

} // namespace geo

int main()
{
	geo::Square a(2), b(3);
	const geo::Shape *shapes[] = { &a, &b };
	double area = geo::total_area(shapes, 2);

	int doubled = geo::twice(3);

	geo::Square bad(-1);
	const geo::Square *squares[] = { &a, &bad };
	int error = geo::checked_area(squares, 2);

	std::printf("area %.2f, twice %d, error %d\n", area, doubled, error);
	return 0;
}
