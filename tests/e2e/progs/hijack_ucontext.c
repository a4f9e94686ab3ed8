/* hijack_ucontext.c - a coroutine on its own stack (makecontext/swapcontext)
 * ping-pongs 10,000 times with main: each switch back to a suspended
 * context returns through hijacked slots of the other stack's frames.
 * Prints "49995000 49995000". */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static ucontext_t main_ctx, co_ctx;
static long produced, consumed;

__attribute__((noinline)) void produce(long i) { produced += i; }
__attribute__((noinline)) void yield_to_main(void) { swapcontext(&co_ctx, &main_ctx); }
__attribute__((noinline)) void coroutine(void)
{
	for (long i = 0; i < 10000; i++) {
		produce(i);
		yield_to_main();
	}
}
__attribute__((noinline)) void consume(void) { consumed = produced; }
__attribute__((noinline)) void resume(void) { swapcontext(&main_ctx, &co_ctx); }

int main(void)
{
	static char stack[1 << 16];
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof(stack);
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, coroutine, 0);
	for (long i = 0; i < 10000; i++) {
		resume();
		consume();
	}
	printf("%ld %ld\n", produced, consumed);
	return 0;
}
