/* tracee.c - small traced programs for end-to-end tests (see tracee.h). */
#include "lib/tracee.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/proc.h"

extern char **environ;

/* ---- building ----------------------------------------------------------------- */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	int ok;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	ok = fputs(text, f) >= 0;
	ok &= fclose(f) == 0;
	if (!ok) {
		fprintf(stderr, "%s: write failed\n", path);
		return -EIO;
	}
	return 0;
}

int tracee_build(const char *dir, const char *name, const char *source, const char *compiler,
		 const char *const flags[])
{
	char src[PATH_MAX], out[PATH_MAX], cmd[2 * PATH_MAX], why[64];
	const char *argv[32];
	struct proc_result res;
	size_t n = 0;
	int ret;

	snprintf(src, sizeof(src), "%s/%s.c", dir, name);
	snprintf(out, sizeof(out), "%s/%s", dir, name);
	if ((ret = write_file(src, source)) < 0)
		return ret;
	argv[n++] = compiler;
	for (size_t i = 0; flags && flags[i] && n < 28; i++)
		argv[n++] = flags[i];
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = src;
	argv[n] = NULL;
	ret = proc_run(argv, NULL, dir, 120000, &res);
	if (ret == 0 && proc_exit_code(&res) != 0) {
		fprintf(stderr, "build failed (%s): %s\n%s", proc_describe(&res, why, sizeof(why)),
			proc_cmdline(argv, cmd, sizeof(cmd)), res.err);
		ret = -1;
	} else if (ret < 0) {
		fprintf(stderr, "cannot run %s: %s\n", compiler, strerror(-ret));
	}
	proc_result_free(&res);
	return ret;
}

void tracee_scrub_environment(void)
{
	for (size_t i = 0; environ[i];) {
		const char *eq = strchr(environ[i], '=');
		char name[256];

		if (strncmp(environ[i], "ADA_", 4) != 0 || !eq || (size_t)(eq - environ[i]) >= sizeof(name)) {
			i++;
			continue;
		}
		memcpy(name, environ[i], (size_t)(eq - environ[i]));
		name[eq - environ[i]] = '\0';
		unsetenv(name); /* the entries after it move down to i */
	}
	/* Library calls (the dynamic hooks, on by default) depend on the libc
	 * the machine has; test_dynhook turns them on and checks them. */
	setenv("ADA_DYNHOOK", "off", 1);
}

/* The one entry of dir whose name starts with prefix, malloc'd. */
static char *only_entry(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;
	size_t n = 0;

	if (!d) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return NULL;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (n++ == 0 && asprintf(&found, "%s/%s", dir, de->d_name) < 0)
			found = NULL;
	}
	closedir(d);
	if (n != 1) {
		fprintf(stderr, "%s: %zu entries %s*, expected 1\n", dir, n, prefix);
		free(found);
		return NULL;
	}
	return found;
}

char *tracee_pid_dir(const char *trace)
{
	char *session = only_entry(trace, "session_");
	char *pid = session ? only_entry(session, "pid_") : NULL;

	free(session);
	return pid;
}

int tracee_settle(const char *trace)
{
	char pattern[PATH_MAX + 32];
	glob_t g = { 0 };
	int ret = 0;

	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_*", trace);
	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		long pid = strtol(strrchr(g.gl_pathv[i], '_') + 1, NULL, 10);
		int fd = open(g.gl_pathv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int tries = 0;

		if (fd < 0)
			continue;
		while (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK &&
		       !(pid > 0 && kill((pid_t)pid, 0) == 0) && ++tries < 3000) {
			const struct timespec ten_ms = { 0, 10000000 };

			nanosleep(&ten_ms, NULL);
		}
		if (tries >= 3000)
			ret = -1;
		close(fd);
	}
	globfree(&g);
	return ret;
}

int tracee_copy_tree(const char *src, const char *dst)
{
	const char *const argv[] = { "cp", "-a", src, dst, NULL };
	struct proc_result res;
	int ret = proc_run(argv, NULL, NULL, 60000, &res);

	if (ret == 0 && proc_exit_code(&res) != 0) {
		fprintf(stderr, "cp -a %s %s: %s", src, dst, res.err);
		ret = -1;
	}
	proc_result_free(&res);
	return ret;
}

/* ---- a program running in the background ------------------------------------ */

/* Our environment with env's "NAME=value" entries replacing or adding. */
static char **make_envp(const char *const env[])
{
	size_t n = 0, extra = 0, k = 0;
	char **envp;

	while (environ[n])
		n++;
	while (env && env[extra])
		extra++;
	envp = calloc(n + extra + 1, sizeof(*envp));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		bool replaced = false;

		for (size_t j = 0; j < extra; j++)
			replaced |= strcspn(env[j], "=") == len && !strncmp(env[j], environ[i], len);
		if (!replaced)
			envp[k++] = environ[i];
	}
	for (size_t j = 0; j < extra; j++)
		envp[k++] = (char *)env[j];
	return envp;
}

int tracee_start(const char *const argv[], const char *const env[], const char *cwd,
		 struct tracee *t)
{
	char **envp = make_envp(env);
	int pipefd[2];

	memset(t, 0, sizeof(*t));
	t->pid = -1;
	t->out_fd = -1;
	if (!envp || pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(errno));
		free(envp);
		return -ENOMEM;
	}
	t->pid = fork();
	if (t->pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(pipefd[1], STDOUT_FILENO) < 0 ||
		    (cwd && chdir(cwd) < 0))
			_exit(127);
		execve(argv[0], (char *const *)argv, envp);
		dprintf(STDERR_FILENO, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	free(envp);
	close(pipefd[1]);
	if (t->pid < 0) {
		fprintf(stderr, "fork: %s\n", strerror(errno));
		close(pipefd[0]);
		return -EAGAIN;
	}
	t->out_fd = pipefd[0];
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tracee_wait_for(struct tracee *t, const char *text, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;

	while (!strstr(t->out, text)) {
		struct pollfd pfd = { .fd = t->out_fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		if (t->out_len + 1 >= sizeof(t->out)) /* keep the tail */
			t->out_len = 0;
		n = read(t->out_fd, t->out + t->out_len, sizeof(t->out) - 1 - t->out_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		t->out_len += (size_t)n;
		t->out[t->out_len] = '\0';
	}
	return 0;
}

int tracee_stop(struct tracee *t, int sig, int timeout_ms, int *wstatus)
{
	long long deadline = now_ms() + timeout_ms;
	int ret = 0;

	if (t->pid <= 0)
		return -ESRCH;
	if (sig)
		kill(t->pid, sig);
	for (;;) {
		pid_t r = waitpid(t->pid, wstatus, WNOHANG);

		if (r == t->pid)
			break;
		if (r < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (now_ms() > deadline && ret == 0) {
			kill(t->pid, SIGKILL);
			ret = -ETIMEDOUT;
		}
		usleep(2000);
	}
	close(t->out_fd);
	t->out_fd = -1;
	t->pid = -1;
	return ret;
}

/* ---- ATF v2 index files ------------------------------------------------------ */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int tracee_read_index(const char *path, struct tracee_event **ev, size_t *n)
{
	size_t len;
	uint8_t *buf = (uint8_t *)proc_read_file(path, &len);
	uint32_t count;

	*ev = NULL;
	*n = 0;
	if (!buf) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	_Static_assert(sizeof(struct tracee_event) == 32, "an ATF index event is 32 bytes");
	if (len < 128 || memcmp(buf, "ATI2", 4) || le32(buf + 24) != 32 ||
	    (count = le32(buf + 28)) > (len - 128) / 32) {
		fprintf(stderr, "%s: not an ATF v2 index file (%zu bytes)\n", path, len);
		free(buf);
		return -EINVAL;
	}
	*ev = malloc(count ? (size_t)count * 32 : 1);
	if (!*ev) {
		free(buf);
		return -ENOMEM;
	}
	memcpy(*ev, buf + 64, (size_t)count * 32);
	*n = count;
	free(buf);
	return 0;
}

/* ---- LZ4 frames ------------------------------------------------------------------ */

#define LZ4_MAGIC 0x184D2204u
#define FLG_BLOCK_CHECKSUM 0x10
#define FLG_CONTENT_SIZE 0x08
#define FLG_CONTENT_CHECKSUM 0x04
#define FLG_DICT_ID 0x01

int tracee_lz4_frames(const uint8_t *buf, size_t len, struct tracee_lz4_frame *frames, size_t max)
{
	size_t pos = 0, n = 0;

	while (pos < len) {
		struct tracee_lz4_frame f = { .start = pos };
		uint8_t flg;

		if (len - pos < 7 || le32(buf + pos) != LZ4_MAGIC)
			return -1;
		flg = buf[pos + 4];
		/* magic, FLG, BD, [content size], [dictionary id], header checksum */
		pos += 7 + (flg & FLG_CONTENT_SIZE ? 8 : 0) + (flg & FLG_DICT_ID ? 4 : 0);
		f.block = pos;
		for (;;) {
			uint32_t size;

			if (pos > len || len - pos < 4)
				return -1;
			size = le32(buf + pos);
			pos += 4;
			if (size == 0) /* end mark */
				break;
			if (pos == f.block + 4)
				f.block_size = size;
			pos += (size & 0x7fffffffu) + (flg & FLG_BLOCK_CHECKSUM ? 4 : 0);
		}
		pos += flg & FLG_CONTENT_CHECKSUM ? 4 : 0;
		if (pos > len)
			return -1;
		f.end = pos;
		if (n < max)
			frames[n] = f;
		n++;
	}
	return n > max ? (int)max : (int)n;
}
