/* swap_lib.c - one of two libraries swap_main.c loads in turn at the same
 * address: built twice, with -DWHO=a into liba.so and -DWHO=b into libb.so,
 * so both have the same layout (the loader puts the second where the first
 * was) and each function's name says which library it is in.
 *
 * lib_entry(), reached through a dlsym'd pointer, calls the library's own
 * lib<WHO>_self(): exported, hence called through the library's PLT, so it
 * is traced in an uninstrumented build too (through the hooked slot), and
 * by its own hook in an instrumented one (adacc -shared).
 */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define SELF CAT(CAT(lib, WHO), _self)

__attribute__((noinline)) int SELF(int round)
{
	return round * 2 + 1;
}

__attribute__((noinline)) int lib_entry(int round)
{
	return SELF(round) + 1;
}
