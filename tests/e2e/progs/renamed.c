/* renamed.c - two functions whose names a rebuild with -DRENAMED changes,
 * and nothing else: the same code at the same addresses under other names.
 * For tests/e2e/test_kept.c: a trace of the first build, linked without a
 * build-id, must keep the first build's names. Exits 0.
 */
#ifdef RENAMED
#define OUTER outer_renamed
#define INNER inner_renamed
#else
#define OUTER outer
#define INNER inner
#endif

__attribute__((noinline)) int INNER(int x)
{
	return 2 * x;
}

__attribute__((noinline)) int OUTER(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += INNER(i);
	return sum;
}

int main(void)
{
	return OUTER(3) == 6 ? 0 : 1;
}
