/* own_code.c - where libada's own instructions are, for the signal handlers
 * that must tell ada's work from the program's: crash.c (an rdtsc of ada's
 * that faults is given ticks, the program's faults as it would without
 * ada) and counters.c (a sample that interrupted ada's code is ada's work
 * on behalf of the frame the thread is in, not a function of the
 * program's).
 *
 * Two ranges, found once at start-up:
 * - the executable segment that holds libada's code: libada.so's own, or
 *   with libada.a the program's, ada's code being linked into it;
 * - the hooks' assembly, in a section of its own (mcount/<arch>/asm.h's
 *   HOOKS_TEXT), whose bounds the linker gives either way.
 */
#include <link.h>

#include "ada_internal.h"

/* The hooks' assembly: the linker defines these for a section named as a C
 * identifier. Weak: the runtime's unit tests link it without the hooks
 * (both 0 then, an empty range). */
extern const char __start_ada_hooks[] __attribute__((weak, visibility("hidden")));
extern const char __stop_ada_hooks[] __attribute__((weak, visibility("hidden")));

static uintptr_t code_lo, code_hi; /* the segment holding this file's code */
static bool code_is_library;       /* that segment is libada.so's, not the program's */

static int find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t self = (uintptr_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self - lo < ph->p_memsz) {
			code_lo = lo;
			code_hi = lo + ph->p_memsz;
			/* The program is the one image dl_iterate_phdr names "". */
			code_is_library = info->dlpi_name && info->dlpi_name[0];
			return 1;
		}
	}
	return 0;
}

void ada_own_code_find(void)
{
	dl_iterate_phdr(find_code, (void *)(uintptr_t)ada_own_code_find);
}

bool ada_ip_in_segment(uintptr_t ip)
{
	return ip - code_lo < code_hi - code_lo;
}

bool ada_ip_is_ada(uintptr_t ip)
{
	if (ip - (uintptr_t)__start_ada_hooks < (uintptr_t)(__stop_ada_hooks - __start_ada_hooks))
		return true;
	return code_is_library && ada_ip_in_segment(ip);
}
