/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/program-owner.h: another owner of the threads' rseq areas. */

#ifndef FASTCPU_PROGRAM_OWNER_H
#define FASTCPU_PROGRAM_OWNER_H

#include <stddef.h>

/* Another owner of threads' rseq areas (program-owner.c), searched once, at
 * load, in the objects loaded then: an exported initial-exec TLS area
 * __rseq_abi (tcmalloc, older librseq), with __rseq_refcount where shared
 * by reference count, both offsets from the thread pointer; or librseq's
 * published offset of its area (0 until librseq initialises). */
enum fastcpu_owner_convention { FASTCPU_OWNER_NONE, FASTCPU_OWNER_EXPORTED,
				FASTCPU_OWNER_REFCOUNTED, FASTCPU_OWNER_PUBLISHED };
struct fastcpu_program_owner {
	enum fastcpu_owner_convention convention;
	ptrdiff_t area_offset;
	ptrdiff_t refcount_offset;
	const ptrdiff_t *published_offset;
	const char *object;	/* the shared object publishing it; NULL: the program */
};
void fastcpu_program_owner_search(void);
/* What the search found; NULL before it ran. */
const struct fastcpu_program_owner *fastcpu_program_owner(void);
/* librseq publishes its offset in its constructor, which the loader may run
 * after this library's: at load, a publishing owner whose offset is still 0
 * is initialised now, if it is a shared object the loader has not
 * initialised yet. Then the offset, 0 while still unknown. */
ptrdiff_t fastcpu_program_owner_offset_at_load(const struct fastcpu_program_owner *o);

#endif /* FASTCPU_PROGRAM_OWNER_H */
