/* shlib.c - a shared library for the build-mode tests: linked in, or dlopen'ed.
 *
 * lib_area() calls lib_square() twice; both are traced when the library is
 * built with adacc -shared -fPIC, and appear under whichever traced function
 * of the executable called them.
 */
__attribute__((noinline)) static int lib_square(int x)
{
	return x * x;
}

__attribute__((noinline)) int lib_area(int w, int h)
{
	return lib_square(w) + lib_square(h) - (w - h) * (w - h) + 2 * w * h - 2 * w * h;
}
