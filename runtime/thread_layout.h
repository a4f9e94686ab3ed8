/* thread_layout.h - where the hooks' assembly fast paths (mcount/<arch>/
 * fast.h and the .S files that use it) find the fields of the C state
 * they read and write.
 *
 * Assembly cannot include thread.h's structs, so their offsets are numbers
 * here, checked against offsetof() in mcount/hijack.c: a field moved in C
 * without its number here stops the build. LP64 layout, the same on every
 * architecture ada supports.
 */
#ifndef ADA_THREAD_LAYOUT_H
#define ADA_THREAD_LAYOUT_H

/* struct ada_self (thread.h), the thread's TLS block */
#define ADA_SELF_TD 0
#define ADA_SELF_BUSY 8

/* struct ada_thread (thread.h) */
#define ADA_TD_RING 0
#define ADA_TD_RH 8
#define ADA_TD_MASK 16
#define ADA_TD_LIMIT 24
#define ADA_TD_DEPTH 32
#define ADA_TD_FAST_CAP 40
#define ADA_TD_IGNORED 49    /* bool; graph_gate is the next byte: one 16-bit test */
#define ADA_TD_GRAPH_DEPTH 52
#define ADA_TD_STACK_LO 56
#define ADA_TD_STACK_SPAN 64
#define ADA_TD_SHADOW 80
#define ADA_TD_DRING 112
#define ADA_TD_DMASK 120
#define ADA_TD_DREC_BYTES 128 /* u64 */
#define ADA_TD_STACK_BYTES 136 /* u32 */
#define ADA_TD_DLIMIT 144
#define ADA_TD_DWIN_TOP 152

/* struct ada_frame (thread.h): the shadow stack's entries */
#define ADA_FRAME_FN 0
#define ADA_FRAME_SITE 8
#define ADA_FRAME_SP 16
#define ADA_FRAME_SIZE 32
#define ADA_FRAME_SHIFT 5 /* log2(ADA_FRAME_SIZE) */

/* struct ada_dyn_cell (mcount/hijack.h): a PLT hook's target */
#define ADA_DYN_CELL_FN 0
#define ADA_DYN_CELL_RET 8
#define ADA_DYN_CELL_JUMP 24

/* struct ada_ring_header (raw_format.h): head, tail (the writer's), and
 * dropped[ADA_DROP_DETAIL_FULL] */
#define ADA_RH_HEAD 64
#define ADA_RH_TAIL 192
#define ADA_RH_DETAIL_FULL 120

/* A detail record (thread.h's ADA_DREC_*), in bytes */
#define ADA_DREC_OFF_REGS 0
#define ADA_DREC_OFF_LR 64
#define ADA_DREC_OFF_FP 72
#define ADA_DREC_OFF_SP 80
#define ADA_DREC_OFF_STACK_SIZE 88
#define ADA_DREC_OFF_FREGS 96 /* 8 words: x86_64 xmm0..7's low 64 bits */
#define ADA_DREC_OFF_STACK 160

/* struct ada_runtime (ada_internal.h): cfg.detail (ADA_DETAIL is not off),
 * cfg.detail_window (ADA_DETAIL=window), cfg.ring_mode (ADA_RECORD=ring) */
#define ADA_RT_CFG_DETAIL 4125
#define ADA_RT_CFG_DETAIL_WINDOW 4126
#define ADA_RT_CFG_RING_MODE 4127

/* ADA_STACK_BYTES's default: the capture's fast size */
#define ADA_STACK_DEFAULT 128

/* A frame's site, for a function that calls __return__ (its return is not
 * hijacked): the real return address with this bit set (mcount/hijack.h's
 * ADA_SITE_NOHIJACK) */
#define ADA_SITE_NOHIJACK_BIT 63

/* ada_slot's word: the detail flag (ADA_SLOT_DETAIL) and RETURN's kind bit */
#define ADA_SLOT_DETAIL_BIT 61
#define ADA_SLOT_RETURN_BIT 62

#endif
