/* vec.c - the archive's member: calls into a static library are traced like
 * any others, because the archive was compiled by adacc too. */
#include "multifile.h"

long vec_sum(const int *v, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

int vec_max(const int *v, int n)
{
	int max = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] > max)
			max = v[i];
	return max;
}
