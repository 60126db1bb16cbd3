/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/counter.c: the counter: a long in every copy of per-CPU memory. */

#include <errno.h>
#include <stdlib.h>

#include "wing.h"

/*
 * A counter is an object of per-CPU memory (memory.c): 8 bytes a
 * copy, next to other counters, where FASTCPU_1.2's took 128 bytes a slot
 * of its own calloc() (64 KiB a counter on a host with 256 CPUs).
 * <fastcpu.h> adds to it at the allocator's stride.
 */
FASTCPU_EXPORT struct fastcpu_counter *fastcpu_counter_new(void)
{
	void *counter = fastcpu_percpu_zalloc(sizeof(long));

	if (counter == NULL)
		errno = ENOMEM;
	return counter;
}

static long sum_at(const struct fastcpu_counter *counter, size_t stride)
{
	size_t copies = (size_t)fastcpu_cid_limit();
	uintptr_t sum = 0;

	for (size_t i = 0; i < copies; i++)
		sum += (uintptr_t)__atomic_load_n(
			fastcpu_percpu_slot_((void *)(uintptr_t)counter, stride, i),
			__ATOMIC_RELAXED);
	return (long)sum;
}

FASTCPU_EXPORT long fastcpu_counter_sum(const struct fastcpu_counter *counter)
{
	return sum_at(counter, FASTCPU_PERCPU_STRIDE);
}

FASTCPU_EXPORT void fastcpu_counter_free(struct fastcpu_counter *counter)
{
	fastcpu_percpu_free(counter);
}

#ifdef PIC
/*
 * FASTCPU_1.2's counters, for programs built with its <fastcpu.h>, whose
 * inline add takes 128-byte slots: their own calloc(), aligned to the
 * stride, the pointer calloc gave just before the first slot.
 */
#define OLD_STRIDE 128

FASTCPU_EXPORT struct fastcpu_counter *fastcpu_compat_counter_new_1_2(void);
struct fastcpu_counter *fastcpu_compat_counter_new_1_2(void)
{
	size_t slots = (size_t)fastcpu_cid_limit();
	char *raw = calloc(slots + 1, OLD_STRIDE);
	uintptr_t base;

	if (raw == NULL)
		return NULL;
	base = ((uintptr_t)raw + sizeof(void *) + OLD_STRIDE - 1) & ~(uintptr_t)(OLD_STRIDE - 1);
	((void **)base)[-1] = raw;
	return (struct fastcpu_counter *)base;
}

FASTCPU_EXPORT long fastcpu_compat_counter_sum_1_2(const struct fastcpu_counter *counter);
long fastcpu_compat_counter_sum_1_2(const struct fastcpu_counter *counter)
{
	return sum_at(counter, OLD_STRIDE);
}

FASTCPU_EXPORT void fastcpu_compat_counter_free_1_2(struct fastcpu_counter *counter);
void fastcpu_compat_counter_free_1_2(struct fastcpu_counter *counter)
{
	if (counter != NULL)
		free(((void **)counter)[-1]);
}

__asm__(".symver fastcpu_compat_counter_new_1_2, fastcpu_counter_new@FASTCPU_1.2\n\t"
	".symver fastcpu_compat_counter_sum_1_2, fastcpu_counter_sum@FASTCPU_1.2\n\t"
	".symver fastcpu_compat_counter_free_1_2, fastcpu_counter_free@FASTCPU_1.2");
#endif
