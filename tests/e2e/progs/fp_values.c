/* fp_values.c - floating-point arguments and results for the detail lane's
 * FP registers (test_fpregs.c): mix() takes doubles, a float and an int
 * (xmm0, xmm1, rdi, xmm2), half() returns a double, and lib_scale(), in
 * fp_lib.c, a library built without adacc, is reached through its PLT slot.
 * The arguments come from volatile globals, so that no build folds them
 * into the callees. Prints 12.5000.
 */
#include <stdio.h>

double lib_scale(double x, float f); /* fp_lib.c */

volatile double va = 1.5, vd = 0.125;
volatile float vb = 2.25f, vf = 4.0f;
volatile int vc = 3;

__attribute__((noinline, noipa)) double mix(double a, float b, int c, double d)
{
	return a * b + c - d; /* 6.25 */
}

__attribute__((noinline, noipa)) double half(double x)
{
	return x / 2;
}

int main(void)
{
	double r = mix(va, vb, vc, vd);

	r = half(r);                /* 3.125 */
	r = lib_scale(r, vf);       /* 12.5 */
	printf("%.4f\n", r);
	return 0;
}
