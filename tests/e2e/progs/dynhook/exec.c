/* exec.c - exec from main: libada's execl (runtime/exec.c) flushes the
 * trace and finds libc's execve with dlsym(RTLD_NEXT), then the image is
 * replaced by /bin/true. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("exec %d\n", 1);
	fflush(stdout);
	execl("/bin/true", "true", (char *)NULL);
	return 1;
}
