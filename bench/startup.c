/* startup.c - the hooking start-up benchmark's program: it does almost
 * nothing, but is linked to libmanyslots.so, which calls thousands of
 * functions of libmanydefs.so through its PLT (manyslots.awk generates both):
 * one JUMP_SLOT relocation, one GOT slot for ada's dynamic hooks to redirect,
 * per function. It calls one function of libmanyslots, so the library is
 * needed whatever the linker's --as-needed default, and none of the others.
 */
int ms_nop(int x);

int main(int argc, char **argv)
{
	(void)argv;
	return ms_nop(argc) == 0;
}
