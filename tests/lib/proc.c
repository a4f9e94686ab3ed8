/* proc.c - run programs and handle scratch directories (see proc.h). */
#include "lib/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- environment ------------------------------------------------------------ */

static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

static bool same_name(const char *a, const char *b)
{
	size_t n = name_len(a);

	return n == name_len(b) && strncmp(a, b, n) == 0;
}

static bool overridden(const char *entry, const char *const env[])
{
	for (size_t i = 0; env && env[i]; i++)
		if (same_name(entry, env[i]))
			return true;
	return false;
}

/* Our environment with env's changes applied; the strings are borrowed, only
 * the array is allocated. */
static char **build_envp(const char *const env[])
{
	size_t n = 0, k = 0, extra = 0;

	while (environ[n])
		n++;
	while (env && env[extra])
		extra++;

	char **envp = calloc(n + extra + 1, sizeof(*envp));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!overridden(environ[i], env))
			envp[k++] = environ[i];
	for (size_t i = 0; i < extra; i++)
		if (strchr(env[i], '='))
			envp[k++] = (char *)env[i];
	return envp;
}

/* ---- capture ---------------------------------------------------------------- */

struct sink {
	int fd;          /* read end of the pipe, -1 at EOF */
	char *buf;
	size_t len, cap;
};

static int sink_read(struct sink *s)
{
	if (s->cap - s->len < 4096) {
		size_t cap = s->cap ? 2 * s->cap : 8192;
		char *buf = realloc(s->buf, cap + 1);

		if (!buf)
			return -ENOMEM;
		s->buf = buf;
		s->cap = cap;
	}

	ssize_t n = read(s->fd, s->buf + s->len, s->cap - s->len);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0) {
		close(s->fd);
		s->fd = -1;
	}
	s->len += (size_t)n;
	return 0;
}

static char *sink_take(struct sink *s, size_t *len)
{
	char *buf = s->buf ? s->buf : malloc(1);

	if (buf)
		buf[s->len] = '\0';
	*len = s->len;
	return buf;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads both pipes until EOF on both. Returns 0, -ETIMEDOUT once the
 * deadline passes, or another negative errno. */
static int drain(struct sink sinks[2], int64_t deadline)
{
	while (sinks[0].fd >= 0 || sinks[1].fd >= 0) {
		struct pollfd pfd[2] = { { .fd = sinks[0].fd, .events = POLLIN },
					 { .fd = sinks[1].fd, .events = POLLIN } };
		int64_t left = deadline - now_ms();

		if (left <= 0)
			return -ETIMEDOUT;

		int n = poll(pfd, 2, (int)left);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < 2 && n > 0; i++) {
			if (!pfd[i].revents)
				continue;

			int err = sink_read(&sinks[i]);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- running ---------------------------------------------------------------- */

static void __attribute__((noreturn))
exec_child(const char *const argv[], char **envp, const char *cwd, int out, int err)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(err, STDERR_FILENO) < 0)
		_exit(127);
	if (cwd && chdir(cwd) < 0) {
		dprintf(STDERR_FILENO, "proc: cd %s: %s\n", cwd, strerror(errno));
		_exit(127);
	}
	execvpe(argv[0], (char *const *)argv, envp);
	dprintf(STDERR_FILENO, "proc: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int proc_run(const char *const argv[], const char *const env[], const char *cwd,
	     int timeout_ms, struct proc_result *res)
{
	struct sink sinks[2] = { { .fd = -1 }, { .fd = -1 } };
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int64_t deadline = now_ms() + timeout_ms;
	char **envp;
	pid_t pid;
	int ret;

	memset(res, 0, sizeof(*res));
	res->wstatus = 127 << 8; /* "exit status 127" until a real status arrives */
	envp = build_envp(env);
	if (!envp) {
		ret = -ENOMEM;
		goto out;
	}
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		ret = -errno;
		goto out;
	}

	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (pid == 0)
		exec_child(argv, envp, cwd, out[1], err[1]);

	/* The child does this too: whichever runs first, the group exists
	 * before anyone sends it a signal. */
	setpgid(pid, pid);
	close(out[1]);
	close(err[1]);
	out[1] = err[1] = -1;
	sinks[0].fd = out[0];
	sinks[1].fd = err[0];
	out[0] = err[0] = -1;

	ret = drain(sinks, deadline);
	if (ret < 0)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &res->wstatus, 0) < 0 && errno == EINTR)
		;
	/* Whatever it left running in its group goes with it. */
	kill(-pid, SIGKILL);
	if (ret == -ETIMEDOUT) {
		res->timed_out = true;
		ret = 0;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (sinks[i].fd >= 0)
			close(sinks[i].fd);
	}
	res->out = sink_take(&sinks[0], &res->out_len);
	res->err = sink_take(&sinks[1], &res->err_len);
	free(envp);
	if (!ret && (!res->out || !res->err))
		ret = -ENOMEM;
	return ret;
}

void proc_result_free(struct proc_result *res)
{
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
}

int proc_exit_code(const struct proc_result *res)
{
	if (res->timed_out)
		return -1;
	if (WIFSIGNALED(res->wstatus))
		return 128 + WTERMSIG(res->wstatus);
	return WEXITSTATUS(res->wstatus);
}

const char *proc_describe(const struct proc_result *res, char *buf, size_t size)
{
	if (res->timed_out)
		snprintf(buf, size, "timed out");
	else if (WIFSIGNALED(res->wstatus))
		snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(res->wstatus),
			 strsignal(WTERMSIG(res->wstatus)));
	else
		snprintf(buf, size, "exit status %d", WEXITSTATUS(res->wstatus));
	return buf;
}

const char *proc_cmdline(const char *const argv[], char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i] && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? " " : "", argv[i]);

		if (n < 0)
			break;
		len += (size_t)n;
	}
	return buf;
}

/* ---- files ------------------------------------------------------------------ */

char *proc_mkdtemp(const char *prefix)
{
	const char *tmp = getenv("TMPDIR");
	char *path;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (asprintf(&path, "%s/%sXXXXXX", tmp, prefix) < 0)
		return NULL;
	if (!mkdtemp(path)) {
		int saved = errno;

		free(path);
		errno = saved;
		return NULL;
	}
	return path;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

int proc_rm_rf(const char *path)
{
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return 0;
	if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return errno ? -errno : -EIO;
	return 0;
}

char *proc_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *grown = realloc(buf, cap ? 2 * cap : 8192);

			if (!grown)
				goto fail;
			buf = grown;
			cap = cap ? 2 * cap : 8192;
		}

		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f))
		goto fail;
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	errno = errno ? errno : EIO;
	return NULL;
}
