/* patch_alt_lib.c - a library whose entry calls its own exported function.
 *
 * Built twice, with -DINNER=inner_a and -DINNER=inner_b: entry(n) calls
 * INNER n times, through the library's PLT (an exported function may be
 * interposed), and returns the sum.
 */
int INNER(int x)
{
	return x + 1;
}

int entry(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += INNER(i);
	return s;
}
