/* shared.h - the state the program's threads and the recorder both touch.
 *
 * With a recorder process (recorder.c), the writer's side of the trace runs
 * in another process: whatever a program thread writes for it to read, or
 * reads back from it (the thread registry, the flush requests, the queues
 * of records and triggers, the arena's free pieces, the lines it has to
 * say), lives in the pages of one section, `ada_shared`, which start-up
 * maps shared before it forks the recorder. Each variable there takes whole
 * pages of its own (ADA_SHARED_VAR), so the section holds nothing else and
 * its bounds are page bounds whatever order the linker puts it in. The
 * thread states and rings themselves are in the arena (arena.c), mapped
 * shared the same way. Without a recorder the section stays private.
 */
#ifndef ADA_SHARED_H
#define ADA_SHARED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ADA_SHARED_PAGE 4096u
#define ADA_SHARED_PAGES(n) (((n) + ADA_SHARED_PAGE - 1) / ADA_SHARED_PAGE * ADA_SHARED_PAGE)

/* A union type tag of type, padded to whole pages. */
#define ADA_SHARED_TYPE(tag, type)                              \
	union tag {                                             \
		type v;                                         \
		uint8_t pages[ADA_SHARED_PAGES(sizeof(type))];  \
	}
/* Placement of a variable of such a type: in the section, page-aligned. */
#define ADA_SHARED_AT __attribute__((section("ada_shared"), aligned(ADA_SHARED_PAGE)))
/* A file's own shared variable: `static ADA_SHARED_VAR(struct x, X);` then
 * X_area.v (a file #defines X to it). */
#define ADA_SHARED_VAR(type, name) ADA_SHARED_TYPE(, type) name##_area ADA_SHARED_AT

/* Maps the section shared (start-up, single-threaded): 0 or -errno. */
__attribute__((visibility("hidden"))) int ada_shared_start(void);
/* In a fork child of a process whose section is shared: its own pages
 * now, with the contents it had (the parent's recorder must not see the
 * child's writes). */
__attribute__((visibility("hidden"))) int ada_shared_rehome(void);
/* `ada record` (launch.h): the section's length; the program moves its
 * section onto fd's pages at off (as ada_shared_start, the launcher's
 * memory instead of fresh pages); the launcher maps them over its own
 * section, whose contents the program's then replace. 0 or -errno. */
__attribute__((visibility("hidden"))) size_t ada_shared_len(void);
__attribute__((visibility("hidden"))) uintptr_t ada_shared_base(void);
__attribute__((visibility("hidden"))) int ada_shared_adopt(int fd, off_t off);
__attribute__((visibility("hidden"))) int ada_shared_map_over(int fd, off_t off);
/* Whether the section is mapped shared (a recorder may be reading it). */
__attribute__((visibility("hidden"))) extern int ada_shared_on;

#endif
