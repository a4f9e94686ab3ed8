/* windows_plugin.c - a library windows.c dlopens ("plugin N"): a function
 * to trigger on that is not in any module loaded at start. */
__attribute__((noinline)) long plugin_target(long x)
{
	return x * 3;
}
