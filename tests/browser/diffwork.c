/* diffwork.c - the two runs of run.py's differential flame graph check.
 *
 *   diffwork GROW SHRINK STEADY
 *
 * main calls grow(), shrink() and steady(), each calling unit() its
 * argument's number of times (a unit is 500,000 turns of a volatile
 * counter, about half a millisecond at -O0). run.py runs it as trace A
 * with "4 40 8" and as trace B with "40 4 8": grow's calls and time grow
 * tenfold, shrink's shrink as much, steady's stay, and main's are about
 * the same in both; so the diff colours grow red, shrink blue, steady
 * neither (exactly white with --count, where a frame weighs its calls).
 */
#include <stdlib.h>

#define TURNS 500000L

static volatile long turns;

static void unit(void)
{
	for (long i = 0; i < TURNS; i++)
		turns++;
}

static void grow(long units)
{
	for (long i = 0; i < units; i++)
		unit();
}

static void shrink(long units)
{
	for (long i = 0; i < units; i++)
		unit();
}

static void steady(long units)
{
	for (long i = 0; i < units; i++)
		unit();
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	grow(atol(argv[1]));
	shrink(atol(argv[2]));
	steady(atol(argv[3]));
	return 0;
}
