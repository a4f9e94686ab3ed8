/* export_perfetto.h - what export_perfetto.c (calls as slices) and
 * export_perfetto_lanes.c (counter tracks, flows) share: the fields they
 * write (the table at the top of export_perfetto.c), the exporter's state,
 * and the packet helpers, inline for the slices' loop. */
#ifndef ADA_EXPORT_PERFETTO_H
#define ADA_EXPORT_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>

#include "lanes.h"
#include "outbuf.h"
#include "protobuf.h"
#include "view_cli.h"
#include "walk.h"

enum {
	TRACE_PACKET = 1,
	PKT_CLOCK_SNAPSHOT = 6, PKT_TIMESTAMP = 8, PKT_SEQUENCE_ID = 10, PKT_TRACK_EVENT = 11,
	PKT_INTERNED_DATA = 12, PKT_SEQUENCE_FLAGS = 13, PKT_DEFAULTS = 59,
	PKT_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2,
	DEF_TIMESTAMP_CLOCK_ID = 58, DEF_TRACK_EVENT_DEFAULTS = 11, TED_TRACK_UUID = 11,
	CS_CLOCKS = 1, CLK_CLOCK_ID = 1, CLK_TIMESTAMP = 2, CLK_IS_INCREMENTAL = 3,
	CLOCK_BOOTTIME = 6, CLOCK_INCREMENTAL = 64, /* 64..127: sequence-scoped clocks */
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT_UUID = 5,
	TD_COUNTER = 8, CD_UNIT = 3, UNIT_TIME_NS = 1, UNIT_COUNT = 2, UNIT_SIZE_BYTES = 3,
	PD_PID = 1, PD_CMDLINE = 2, PD_PROCESS_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_THREAD_NAME = 5,
	TE_CATEGORY_IIDS = 3, TE_DEBUG_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10,
	TE_SOURCE_LOCATION_IID = 34, TE_TRACK_UUID = 11, TE_COUNTER_VALUE = 30, TE_NAME = 23,
	TE_FLOW_IDS = 47, TE_TERMINATING_FLOW_IDS = 48, TE_CATEGORIES = 22,
	TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4,
	DA_NAME_IID = 1, DA_STRING_VALUE = 6, DA_POINTER_VALUE = 7, DA_NAME = 10,
	ID_EVENT_CATEGORIES = 1, ID_EVENT_NAMES = 2, ID_DEBUG_ANNOTATION_NAMES = 3,
	ID_SOURCE_LOCATIONS = 4,
	IN_IID = 1, IN_NAME = 2, /* EventCategory, EventName, DebugAnnotationName */
	SL_IID = 1, SL_FILE_NAME = 2, SL_FUNCTION_NAME = 3, SL_LINE_NUMBER = 4,
};


/* A packet without interned strings: the fields above, eight registers and
 * an exit mark, each message's length slack included. */
#define PACKET_FIXED 512

/* A slice's bytes after its timestamp, the same for every BEGIN of a
 * function (or every END) on a sequence when it has no values: the
 * sequence fields and the whole TrackEvent (export_perfetto.c's
 * slice_begin, slice_end). At most 8 bytes of sequence fields, 23 of a
 * BEGIN's TrackEvent. */
struct pf_same {
	uint32_t seq;      /* the sequence they were made on; 0: none yet */
	uint8_t len;
	char bytes[35];
};

struct pf_func {
	uint32_t module;   /* index in pf.modules + 1; 0: not looked up yet */
	uint32_t seq;      /* the sequence its names were last interned on */
	struct pf_same begin;
};

struct pf {
	struct outbuf out;
	const struct view_args *a;
	const struct src_func *funcs;
	struct pf_func *fns;              /* per dense id */
	size_t nfns;
	const char **modules;             /* this process's module names */
	uint32_t *module_seq;             /* the sequence each was interned on */
	size_t nmodules, modules_cap;
	unsigned nregs;
	const char *const *reg_names;
	struct src_process *proc;         /* the process's: its signatures and read-only data */
	uint64_t t0;                      /* the process's CLOCK_BOOTTIME start */
	uint64_t last_ns;                 /* the sequence's last timestamp, absolute */
	uint32_t pid;
	uint64_t process_uuid, track_uuid, next_uuid;
	uint32_t seq, next_seq;
	const char *open_mark;
	struct pf_same end;               /* a returning END's, on sequence end.seq */
	uint64_t slices;
	/* The counter lane and the blocks (lanes.h): the thread's counter
	 * tracks (0: none yet) and totals, the process's blocks. */
	uint64_t cpu_uuid, faults_uuid, cpu_ns, faults;
	struct lane_blocks blocks;
	/* The waits and releases (ADA_BLOCKING; tagged with their thread's
	 * track), and the flows' instants made of them at the process's end. */
	struct lane_waits waits;
	struct pf_instant *instants;
	size_t ninstants, instants_cap;
	uint64_t flows;
};

struct pf_instant {
	uint64_t ns, track, flow;
	bool end;          /* the flow's end ("woken"), else its start ("wake") */
};

static inline char *packet_open(struct pf *f, size_t size, char **len_at)
{
	char *p = outbuf_reserve(&f->out, size);

	return pb_open(p, TRACE_PACKET, len_at);
}

static inline void packet_close(struct pf *f, char *len_at, char *p)
{
	outbuf_commit(&f->out, pb_close(len_at, p));
}

static inline char *sequence(const struct pf *f, char *p, unsigned flags)
{
	p = pb_uint(p, PKT_SEQUENCE_ID, f->seq);
	return pb_uint(p, PKT_SEQUENCE_FLAGS, flags);
}

/* An event packet's timestamp: ns since the sequence's previous packet
 * (events come in time order on a thread). */
static inline char *timestamp(struct pf *f, char *p, uint64_t since_t0)
{
	uint64_t ns = f->t0 + since_t0;

	p = pb_uint(p, PKT_TIMESTAMP, ns - f->last_ns);
	f->last_ns = ns;
	return p;
}

/* A thread's (or another track's) sequence's first packet: state cleared,
 * defaults (the incremental clock, f->track_uuid), the clock started at the
 * process's first event, the annotation names (export_perfetto.c). */
void pf_sequence_begin(struct pf *f);

/* export_perfetto_lanes.c: a walk event other than ENTER and EXIT (a
 * sample, a block, a wait), and what is written at the process's end (the
 * live bytes, the flows). 0 or a negative errno. */
int pf_lane_event(struct pf *f, const struct walk_event *ev);
int pf_lanes_end(struct pf *f);

#endif
