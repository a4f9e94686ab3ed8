/* fp_lib.c - the library test_fpregs.c builds with plain gcc: its one
 * function, called from fp_values.c through a PLT slot, takes a double and
 * a float and returns a double. */
__attribute__((noinline)) double lib_scale(double x, float f)
{
	return x * f;
}
