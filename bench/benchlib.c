/* benchlib.c - libbenchlib.so, the library of the library-call benchmark
 * (libcall.c): built with plain gcc -O2 -fPIC -shared, so nothing in it is
 * instrumented, and its function is reached from the program through the
 * PLT, as any library function is. ada records the calls only through its
 * dynamic hooks (the redirected GOT slot), uftrace through its PLT hooks.
 */
__attribute__((noinline)) int bl_add(int a, int b)
{
	return a + b;
}
