/* patch_share.c - what patchable mode's two writers of the program's code
 * share: the program (its passes at start-up and after a dlopen) and its
 * recorder (everything after, through the program's memory: patch.c).
 *
 * In the shared section (a private variable without a recorder): the lock
 * they take turns with, the stub pages the program made (the recorder
 * cannot map one), whether the program left a module's entries NOPs, the
 * patchable figures process.meta is told, and ada-ctl's last filter, which
 * the recorder chose and the program's later passes choose by.
 */
#include "patch.h"

union ada_patch_shared_area ada_patch_shared_area ADA_SHARED_AT;

/* The program's passes and its recorder's take turns at the code. A holder
 * that is neither (a fork's parent, copied with the memory) or a recorder
 * that died has let go; a recorder whose program ended gives up. */
bool ada_code_lock(void)
{
	uint32_t me;

	if (ada_rt.rings_only)
		return true;
	me = ada_recorder_self() ? __atomic_load_n(&ada_rt.writer_tid, __ATOMIC_ACQUIRE) : ada_rt.pid;
	for (;;) {
		uint32_t who = 0;

		if (__atomic_compare_exchange_n(&PS.lock, &who, me, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
		if (ada_recorder_self() && ada_recorder_program_gone())
			return false;
		if ((who != ada_rt.pid && who != __atomic_load_n(&ada_rt.writer_tid, __ATOMIC_ACQUIRE)) ||
		    (!ada_recorder_self() && ada_recorder_gone())) {
			__atomic_compare_exchange_n(&PS.lock, &who, 0, false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			continue;
		}
		ada_futex_wait(&PS.lock, who, 1000000);
	}
}

void ada_code_unlock(void)
{
	if (ada_rt.rings_only)
		return;
	__atomic_store_n(&PS.lock, 0, __ATOMIC_RELEASE);
	ada_futex_wake(&PS.lock);
}

bool ada_page_find(uintptr_t base, uintptr_t *stubs, bool *nopped)
{
	for (uint32_t i = 0; i < PS.npages; i++)
		if (PS.pages[i].base == base) {
			*stubs = PS.pages[i].stubs;
			*nopped = PS.pages[i].nopped;
			return true;
		}
	*stubs = 0;
	*nopped = false;
	return false;
}

void ada_page_note(uintptr_t base, uintptr_t stubs, bool nopped)
{
	uint32_t i = 0;

	while (i < PS.npages && PS.pages[i].base != base)
		i++;
	if (i == STUB_PAGES_MAX)
		return;
	PS.pages[i].base = base;
	PS.pages[i].stubs = stubs;
	PS.pages[i].nopped = nopped;
	if (i == PS.npages)
		PS.npages++;
}

void ada_page_forget(uintptr_t base, uintptr_t stubs)
{
	for (uint32_t i = 0; i < PS.npages; i++)
		if (PS.pages[i].base == base && PS.pages[i].stubs == stubs) {
			PS.pages[i] = PS.pages[--PS.npages];
			return;
		}
}


/* A forked recorder's entries are the program's; `ada record`'s recorder
 * runs another image of libada, so the program says where its own are. */
void ada_patch_entries_share(void)
{
	for (unsigned k = PATCH_PLAIN; k < PATCH_KINDS; k++)
		PS.entry[k] = ada_patch_entry_of(k);
}

uintptr_t ada_patch_entry_program(unsigned kind)
{
	return PS.entry[kind] ? (uintptr_t)PS.entry[kind] : ada_patch_entry_of(kind);
}
