/* stack_switch.c <how> <rounds> - two coroutines, each on a stack of its
 * own, suspended three calls deep each round and resumed by main.
 *
 *   ucontext  makecontext/swapcontext, stacks malloc'ed side by side
 *   asm       a hand-written switch (x86_64: callee-saved registers and
 *             rsp), stacks mmap'ed one each, a guard page below each (as
 *             coroutine libraries do: adjacent mappings would be one)
 *   migrate   ucontext; the coroutines are started and suspended by one
 *             thread, which ends, and resumed to their end by another
 *   handoff   as migrate, but the second thread runs no traced code of its
 *             own: its first hooks are the coroutines' returns
 *
 * Prints the coroutines' sums: each adds 1..rounds, times its number. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#define STACK (64 * 1024)

static int use_asm, rounds, cur;
static long sum[2];
static ucontext_t main_uc, co_uc[2];
static void *main_sp, *co_sp[2];

#if defined(__x86_64__)
/* switch_stack(save, to): pushes the callee-saved registers, stores rsp in
 * *save, loads rsp from to, pops the other side's and returns into it. */
void switch_stack(void **save, void *to);
__asm__(".text\n.globl switch_stack\n.type switch_stack,@function\nswitch_stack:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n.size switch_stack, .-switch_stack\n");
#endif

__attribute__((noinline)) void co_yield(void)
{
	int me = cur;

	if (use_asm)
		switch_stack(&co_sp[me], main_sp);
	else
		swapcontext(&co_uc[me], &main_uc);
}

__attribute__((noinline)) void leaf(int i)
{
	sum[cur] += (long)i * (cur + 1);
	co_yield();
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void step(int i)
{
	leaf(i);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void co_body(void)
{
	for (int i = 1; i <= rounds; i++)
		step(i);
}

/* Where an asm coroutine starts: its body, then back to main for good. */
__attribute__((noinline)) void co_start(void)
{
	co_body();
	switch_stack(&co_sp[cur], main_sp);
	abort();
}

__attribute__((noinline)) void resume(int which)
{
	cur = which;
	if (use_asm)
		switch_stack(&main_sp, co_sp[which]);
	else
		swapcontext(&main_uc, &co_uc[which]);
}

__attribute__((noinline)) static void make(int which)
{
	if (use_asm) {
		char *stack = mmap(NULL, STACK + 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		void **sp;

		mprotect(stack, 4096, PROT_NONE);
		stack += 4096;
		sp = (void **)(stack + STACK - 8); /* co_start entered as if called */

		*--sp = (void *)co_start;
		for (int r = 0; r < 6; r++)
			*--sp = 0;
		co_sp[which] = sp;
		return;
	}
	getcontext(&co_uc[which]);
	co_uc[which].uc_stack.ss_sp = malloc(STACK);
	co_uc[which].uc_stack.ss_size = STACK;
	co_uc[which].uc_link = &main_uc;
	makecontext(&co_uc[which], co_body, 0);
}

/* Resumes both coroutines `times` times each. */
__attribute__((noinline)) void drive(int times)
{
	for (int i = 0; i < times; i++) {
		resume(0);
		resume(1);
	}
}

static void *first_half(void *arg)
{
	(void)arg;
	make(0);
	make(1);
	drive(1); /* each suspended in its first round */
	return NULL;
}

static void *second_half(void *arg)
{
	(void)arg;
	drive(rounds); /* the remaining rounds, and the ends */
	return NULL;
}

/* Untraced (no hook in any mode): resumes the coroutines itself. */
__attribute__((no_instrument_function, no_profile_instrument_function)) static void *
second_half_untraced(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++)
		for (cur = 0; cur < 2; cur++)
			swapcontext(&main_uc, &co_uc[cur]);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3)
		return 2;
	use_asm = strcmp(argv[1], "asm") == 0;
	rounds = atoi(argv[2]);
	if (strcmp(argv[1], "migrate") == 0 || strcmp(argv[1], "handoff") == 0) {
		pthread_create(&t, NULL, first_half, NULL);
		pthread_join(t, NULL);
		pthread_create(&t, NULL, argv[1][0] == 'm' ? second_half : second_half_untraced,
			       NULL);
		pthread_join(t, NULL);
	} else {
		make(0);
		make(1);
		drive(rounds + 1);
	}
	printf("%ld %ld\n", sum[0], sum[1]);
	return 0;
}
