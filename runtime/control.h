/* control.h - ada-ctl's protocol, the one definition both sides include:
 * ctl/ada_ctl.c writes a command, recorder/control.c (the traced process's
 * recorder) reads it, applies it and replies.
 *
 * Everything happens in the process's trace directory, <output>/session_…/
 * pid_<pid>/, which ada-ctl finds in /proc/<pid>/maps: the runtime maps
 * one page of its raw/process.meta there (ADA_CTL_FINDER), whatever the
 * ring setting and whatever the program did with its descriptors.
 *
 *   request  ADA_CTL_REQUEST, one line "<id> <word>[ <argument>]\n": id is
 *            the digits of ada-ctl's pid, word one of ada_ctl_cmds; written
 *            whole to "control.<id>.tmp", then linked to this name, which
 *            fails (EEXIST) while another command waits
 *   reply    "control.<id>.reply", one line "ok <text>\n" or
 *            "error <text>\n", written whole to "control.<id>.reply.tmp"
 *            then renamed; the requester removes it
 *
 * The writer looks for a request at its housekeeping, every 10 ms while
 * the program runs (ADA_FLUSH_MS when idle), and removes it before
 * applying it; it replies once the command is in effect.
 */
#ifndef ADA_CONTROL_H
#define ADA_CONTROL_H

#include <stdbool.h>
#include <string.h>

#define ADA_CTL_FINDER "/raw/process.meta"
#define ADA_CTL_REQUEST "control"
#define ADA_CTL_REQUEST_TMP "control.%s.tmp"
#define ADA_CTL_REPLY "control.%s.reply"
#define ADA_CTL_REPLY_TMP "control.%s.reply.tmp"
#define ADA_CTL_LINE_MAX 2048 /* a request or a reply, its newline included */
#define ADA_CTL_ID_MAX 20     /* the digits of the requester's id */
#define ADA_CTL_ARG_MAX 1023  /* an argument: what ADA_FILTER and ADA_NOTRACE hold */

enum ada_ctl_cmd { ADA_CTL_ENABLE, ADA_CTL_DISABLE, ADA_CTL_STATUS, ADA_CTL_FILTER,
		   ADA_CTL_NOTRACE, ADA_CTL_NCMDS };

/* The command words, and whether each takes an argument (function-name
 * globs, comma-separated: "" for none). */
static const struct {
	const char *word;
	bool arg;
} ada_ctl_cmds[ADA_CTL_NCMDS] = {
	[ADA_CTL_ENABLE] = { "enable", false },   [ADA_CTL_DISABLE] = { "disable", false },
	[ADA_CTL_STATUS] = { "status", false },   [ADA_CTL_FILTER] = { "filter", true },
	[ADA_CTL_NOTRACE] = { "notrace", true },
};

/* The command named by the len bytes at word; -1 if none. */
static inline int ada_ctl_cmd_find(const char *word, size_t len)
{
	for (int c = 0; c < ADA_CTL_NCMDS; c++)
		if (strlen(ada_ctl_cmds[c].word) == len && !memcmp(ada_ctl_cmds[c].word, word, len))
			return c;
	return -1;
}

#endif
