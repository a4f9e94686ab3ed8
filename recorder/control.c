/* control.c - ada-ctl's commands in the traced process: read, apply, reply.
 *
 * ada-ctl (ctl/ada_ctl.c) leaves one command in the process's trace
 * directory (control.h: the protocol); the recorder looks for it at its
 * housekeeping, never a program thread, so the hooks pay nothing for
 * it. A command is applied before the reply is written, so the reply says
 * what is in effect: `enable` in patchable mode puts the jumps back at the
 * patched entries first (ada_passes.sync), as the writer's next pass would.
 *
 * ada-ctl finds the directory by the page of process.meta the trace's
 * files keep mapped (runtime/init.c, control_findable).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ADA_RUNTIME 1 /* ada_enable's definition, not ada.h's fallback */
#include "ada.h"
#include "ada_internal.h"
#include "control.h"

/* ---- the reply -------------------------------------------------------------------- */

/* Written whole under a temporary name, then renamed: ada-ctl never reads
 * half a line. Nobody to tell if it cannot be written: ada-ctl says it got
 * no reply. */
static void reply(const char *id, bool ok, const char *text)
{
	char tmp[sizeof(ada_rt.pid_dir) + 64], path[sizeof(ada_rt.pid_dir) + 64];
	char line[ADA_CTL_LINE_MAX];
	int len = snprintf(line, sizeof(line), "%s %s\n", ok ? "ok" : "error", text), fd, err;

	if (len >= (int)sizeof(line)) {
		len = (int)sizeof(line) - 1;
		line[len - 1] = '\n';
	}
	snprintf(tmp, sizeof(tmp), "%s/" ADA_CTL_REPLY_TMP, ada_rt.pid_dir, id);
	snprintf(path, sizeof(path), "%s/" ADA_CTL_REPLY, ada_rt.pid_dir, id);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	err = ada_write_all(fd, line, (size_t)len);
	close(fd);
	if (err < 0 || rename(tmp, path) < 0)
		unlink(tmp);
}

/* ---- the commands ------------------------------------------------------------------ */

static bool recording_on(void)
{
	return !__atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED);
}

/* Applies command cmd (its argument arg, or NULL); its reply's text in
 * text. Returns whether it succeeded. */
static bool apply(int cmd, const char *arg, char *text, size_t len)
{
	bool was_on = recording_on();
	int patched;

	switch (cmd) {
	case ADA_CTL_ENABLE:
	case ADA_CTL_DISABLE:
		if (cmd == ADA_CTL_ENABLE)
			ada_enable();
		else
			ada_disable();
		/* Patchable mode: the entries now, not at the next pass. */
		if (ada_passes.sync)
			ada_passes.sync();
		snprintf(text, len, "recording %s%s", recording_on() ? "on" : "off",
			 was_on == recording_on() ? ", as it was" : "");
		return true;
	case ADA_CTL_STATUS:
		snprintf(text, len, "recording %s", was_on ? "on" : "off");
		return true;
	default: /* filter, notrace */
		if (!ada_passes.refilter) {
			snprintf(text, len, "no patchable module");
			return false;
		}
		patched = ada_passes.refilter(cmd == ADA_CTL_FILTER ? arg : NULL,
					      cmd == ADA_CTL_NOTRACE ? arg : NULL, text, len);
		if (patched < 0)
			return false;
		snprintf(text, len, "%d function%s patched (recording %s)", patched,
			 patched == 1 ? "" : "s", was_on ? "on" : "off");
		return true;
	}
}

/* "<id> <word>[ <argument>]\n": the id (digits), the command, its argument
 * (NULL if none). False if the line is not one ada-ctl writes: then there
 * is nobody to reply to. */
static bool parse_id(char *line, char **id, char **rest)
{
	size_t n = strspn(line, "0123456789");

	if (!n || n > ADA_CTL_ID_MAX || line[n] != ' ')
		return false;
	line[n] = '\0';
	*id = line;
	*rest = line + n + 1;
	return true;
}

static void handle(char *line)
{
	char *id, *word, *arg, *nl = strchr(line, '\n'), text[ADA_CTL_LINE_MAX - 8];
	size_t wlen;
	int cmd;

	if (!nl || nl[1] || !parse_id(line, &id, &word))
		return;
	*nl = '\0';
	wlen = strcspn(word, " ");
	arg = word[wlen] ? word + wlen + 1 : NULL;
	cmd = ada_ctl_cmd_find(word, wlen);
	if (cmd < 0 || ada_ctl_cmds[cmd].arg != (arg != NULL)) {
		word[wlen] = '\0';
		snprintf(text, sizeof(text), "%s: not a command this runtime knows%s", word,
			 cmd < 0 ? "" : ada_ctl_cmds[cmd].arg ? " without an argument" : " with an argument");
		reply(id, false, text);
		return;
	}
	reply(id, apply(cmd, arg, text, sizeof(text)), text);
}

void ada_control_poll(void)
{
	char path[sizeof(ada_rt.pid_dir) + sizeof(ADA_CTL_REQUEST) + 1], line[ADA_CTL_LINE_MAX + 1];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/" ADA_CTL_REQUEST, ada_rt.pid_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return; /* nothing asked: the usual case */
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	/* Taken: the next command may come while this one is applied. */
	unlink(path);
	if (n <= 0)
		return;
	line[n] = '\0';
	handle(line);
}
