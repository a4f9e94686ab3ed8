/* rings_only.c - when no recorder can start: the rings are the trace.
 *
 * The recorder is forked at start-up. Where that is refused (a fork limit:
 * RLIMIT_NPROC, a cgroup's pids.max; a sandbox that forbids clone) or the
 * memory to share with it cannot be mapped, nothing will drain the rings,
 * and a thread of ada's inside the program would be what issue 23 took out
 * of it. So the program records as ADA_RECORD=ring does, into rings that
 * roll over and never make a thread wait or call the kernel, and the trace
 * is what the rings hold when the image ends: each thread's last
 * ADA_RING_KB, written by the thread that ends it (exit, _exit, exec, a
 * fatal signal's handler) as ring files, header and slots as RAW_FORMAT.md
 * §6 has them, named by RING records. ada-symbolize folds them into the
 * trace as it folds a killed process's (recover.c; the END record's
 * ADA_END_RINGS says there are rings to fold after a clean end).
 *
 * The records threads make meanwhile (a thread's start, a dlopen's
 * module) wait in the record queue (meta.c) for that end: a thread never
 * opens process.meta in the program's descriptor table. What this mode
 * cannot keep: a SIGKILL's rings (nothing outlives the process), the
 * detail lane (nobody writes windows), and ada-ctl's commands (nobody
 * answers them).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ada_internal.h"

#define HEADER_BYTES ADA_RING_SLOTS_OFFSET

int ada_rings_only_start(int err)
{
	char cfg[8192];
	int n;

	if (err)
		ada_warn("cannot start the recorder process (%s): recording in ring mode, "
			 "each thread's last %" PRIu64 " KiB written when the program ends",
			 strerror(-err), ada_rt.cfg.ring_bytes / 1024);
	ada_rt.rings_only = true;
	ada_rt.cfg.ring_mode = true;
	/* A func: trigger is found by the writer, reading the rings: none. */
	ada_rt.cfg.trigger.nfuncs = 0;
	/* raw/ and process.meta, with start-up's records queued for the
	 * recorder; then the configuration as it is now (the last holds). */
	err = ada_process_files();
	if (err < 0)
		return err;
	n = ada_config_format(&ada_rt.cfg, cfg, sizeof(cfg));
	ada_meta_write_direct(ADA_META_CONFIG, cfg, (size_t)n < sizeof(cfg) ? (size_t)n : sizeof(cfg),
			      NULL, 0);
	return 0;
}

/* One ring to its file: the header, the slots up to the head (the whole
 * ring once it rolled over), the file as long as the ring. Async-signal-
 * safe (a fatal signal's handler calls it): open, write, close. */
static bool ring_write(const struct ada_thread *td, char *path, size_t len)
{
	const struct ada_ring_header *rh = td->rh;
	uint64_t head = __atomic_load_n(&rh->head, __ATOMIC_ACQUIRE), slots = td->mask + 1;
	size_t used = HEADER_BYTES + (head < slots ? head : slots) * sizeof(struct ada_slot);
	int fd;
	bool ok;

	snprintf(path, len, "%s/ring_%u.ring", ada_rt.raw_dir, td->ordinal);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	ok = ada_write_all(fd, rh, used) == 0 && ftruncate(fd, (off_t)td->ring_bytes) == 0;
	close(fd);
	return ok;
}

void ada_rings_only_write(void)
{
	char path[sizeof(ada_rt.raw_dir) + 32];
	unsigned failed = 0;

	for (struct ada_thread *td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td;
	     td = td->next) {
		struct ada_meta_ring mr = { .ordinal = td->ordinal };

		if (!td->rh || !td->rh->head)
			continue;
		if (!ring_write(td, path, sizeof(path))) {
			failed++;
			continue;
		}
		ada_meta_write_direct(ADA_META_RING, &mr, sizeof(mr), path, strlen(path) + 1);
	}
	if (failed)
		ada_warn("cannot write %u thread%s' rings into %s: their events are lost", failed,
			 failed == 1 ? "" : "s", ada_rt.raw_dir);
}

void ada_rings_only_end(uint32_t how)
{
	struct ada_meta_clock c;
	struct ada_meta_end end = { .how = how, .flags = ADA_END_RINGS };
	uint64_t dropped;

	/* The modules as they are now (ADA_DYNHOOK=off: nobody looked since
	 * start-up), at exit only: _exit and exec may come from a signal
	 * handler that interrupted the loader, whose lock the look takes.
	 * Then what threads queued, the rings, the clock's last point. */
	if (how == ADA_END_EXIT)
		ada_modmap_scan(false);
	ada_meta_queue_flush();
	ada_rings_only_write();
	ada_clock_sample(&c);
	ada_meta_write_direct(ADA_META_CLOCK, &c, sizeof(c), NULL, 0);
	end.end_tsc = c.tsc;
	end.end_boottime_ns = c.boottime_ns;
	ada_meta_write_direct(ADA_META_END, &end, sizeof(end), NULL, 0);
	dropped = __atomic_load_n(&ada_rt.records_dropped, __ATOMIC_RELAXED);
	if (dropped)
		ada_warn("%" PRIu64 " records (threads' starts, modules) did not fit the queue "
			 "that held them for the end: the trace lacks them", dropped);
}
