/* elf_check.c - whether a program runs libada, before `ada record` runs
 * it: its executable holds the runtime (linked statically: its shared
 * section, "ada_shared") or names libada.so among the libraries it needs
 * (DT_NEEDED), read from the file's section headers; else, a dynamic
 * executable whose only traced code is in a library it links, its loader
 * lists libada.so among what it would load (ldd's way). uftrace, too,
 * refuses a binary without its instrumentation before running it.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"

static int read_at(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	return n == (ssize_t)len ? 0 : -EIO;
}

/* The dynamic section's DT_NEEDED names, in its string table sh. */
static int needs_libada(int fd, const Elf64_Shdr *dyn, const Elf64_Shdr *str)
{
	size_t n = dyn->sh_size / sizeof(Elf64_Dyn);
	Elf64_Dyn *d = malloc(dyn->sh_size ? dyn->sh_size : 1);
	char *s = malloc(str->sh_size + 1);
	int found = 0;

	if (!d || !s || read_at(fd, d, dyn->sh_size, (off_t)dyn->sh_offset) < 0 ||
	    read_at(fd, s, str->sh_size, (off_t)str->sh_offset) < 0) {
		free(d);
		free(s);
		return -EIO;
	}
	s[str->sh_size] = '\0';
	for (size_t i = 0; i < n && d[i].d_tag != DT_NULL && !found; i++)
		found = d[i].d_tag == DT_NEEDED && d[i].d_un.d_val < str->sh_size &&
			!strncmp(s + d[i].d_un.d_val, "libada.so", 9);
	free(d);
	free(s);
	return found;
}

/* The dynamic loader's list of the libraries path would load, in list
 * mode (LD_TRACE_LOADED_OBJECTS, what ldd sets): the program itself does
 * not run. Only for an executable with an interpreter: a static one would
 * run. Whether libada.so is in it. */
static int loader_lists_libada(const char *path)
{
	char buf[65536];
	size_t n = 0;
	ssize_t r;
	int fd[2], status;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return 0;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (dup2(fd[1], STDOUT_FILENO) < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0 ||
		    setenv("LD_TRACE_LOADED_OBJECTS", "1", 1) < 0)
			_exit(127);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && n < sizeof(buf) - 1 &&
	       ((r = read(fd[0], buf + n, sizeof(buf) - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd[0]);
	buf[n] = '\0';
	if (pid > 0)
		waitpid(pid, &status, 0);
	return strstr(buf, "libada.so") != NULL;
}

static int scan(int fd, const char *path, const char **why)
{
	bool dynamic = false;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL, *names;
	char *strs = NULL;
	int found = 0;

	if (read_at(fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		*why = "is not an ELF executable";
		return 0;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !eh.e_shnum || eh.e_shstrndx >= eh.e_shnum) {
		*why = "is not a 64-bit ELF executable with section headers";
		return 0;
	}
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || read_at(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) < 0)
		goto out;
	names = &sh[eh.e_shstrndx];
	strs = malloc(names->sh_size + 1);
	if (!strs || read_at(fd, strs, names->sh_size, (off_t)names->sh_offset) < 0)
		goto out;
	strs[names->sh_size] = '\0';
	for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
		if (sh[i].sh_name >= names->sh_size)
			continue;
		dynamic |= !strcmp(strs + sh[i].sh_name, ".interp");
		if (!strcmp(strs + sh[i].sh_name, "ada_shared"))
			found = 1;
		else if (sh[i].sh_type == SHT_DYNAMIC && sh[i].sh_link < eh.e_shnum)
			found = needs_libada(fd, &sh[i], &sh[sh[i].sh_link]);
	}
	if (!found && dynamic)
		found = loader_lists_libada(path);
	if (!found)
		*why = "was not built with adacc (no libada)";
out:
	free(sh);
	free(strs);
	return found;
}

int ada_cli_has_libada(const char *path, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = scan(fd, path, why);
	close(fd);
	return r;
}
