/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/own-area.c: the library's own rseq area, for threads nobody registered. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu-id.h"
#include "internal.h"
#include "kernel.h"
#include "own-area.h"
#include "rseq-abi.h"
#include "slice.h"
#include "util.h"

/*
 * Static TLS of a module that is never unloaded (-z nodelete): its memory
 * lives exactly as long as the thread, which is as long as the kernel may
 * write to it. The area is aligned at run time inside room for it: a TLS
 * block aligned beyond glibc's static TLS (16 bytes on arm64) cannot be
 * dlopen()ed ("cannot allocate memory in static TLS block"). So where the
 * area falls in the room depends on how the thread's TLS is aligned, which
 * is the same in every thread on the libcs known, not promised: a thread
 * whose area would not be at the published word (cpu-id.c) registers one
 * in the room's second half instead, and its inline reads, finding -1 at
 * the published word, are answered out of line. All -1 until registered,
 * so that the word reads "unattached" wherever it falls.
 */
static FASTCPU_TLS unsigned char own_room[4 * FASTCPU_RSEQ_AREA_SIZE] = {
	[0 ... 4 * FASTCPU_RSEQ_AREA_SIZE - 1] = 0xff
};

static struct fastcpu_rseq_abi *area_at(unsigned int room_offset)
{
	uintptr_t at = ((uintptr_t)own_room + room_offset +
			FASTCPU_RSEQ_AREA_SIZE - 1) &
		       ~(uintptr_t)(FASTCPU_RSEQ_AREA_SIZE - 1);

	return (struct fastcpu_rseq_abi *)at;
}

/* The first area of the calling thread's room, published (with the
 * sequences: the library registers it) if nothing was; whether it now is. */
static bool publish_first(void)
{
	struct fastcpu_rseq_abi *first = area_at(0);
	bool mine = fastcpu_publish_cpu_id((const volatile int *)&first->cpu_id);

	if (mine)
		fastcpu_publish_sequences();
	return mine;
}

void fastcpu_own_area_publish(void)
{
	(void)publish_first();
}

/* The calling thread's area: at the published word where its TLS lets it
 * (published now if nothing was), else in the room's second half. */
static struct fastcpu_rseq_abi *place(void)
{
	if (publish_first())
		return area_at(0);
	return area_at(2 * FASTCPU_RSEQ_AREA_SIZE);
}

/* The one line for FASTCPU_BACKEND=rseq when a thread cannot have it. */
static void warn_rseq_refused(long err)
{
	const char *line =
		err == -ENOSYS ? "libfastcpu: FASTCPU_BACKEND=rseq: the kernel has no rseq (ENOSYS); using auto\n" :
		err == -EPERM ? "libfastcpu: FASTCPU_BACKEND=rseq: rseq registration refused (EPERM); using auto\n" :
		err == -EINVAL ? "libfastcpu: FASTCPU_BACKEND=rseq: the thread registered another rseq area (EINVAL); using auto\n" :
		"libfastcpu: FASTCPU_BACKEND=rseq: rseq registration failed; using auto\n";

	fastcpu_warn_once(FASTCPU_WARN_RSEQ, line);
}

/*
 * Before the first registration the user-owned fields are zeroed (the room
 * starts all -1); the kernel-owned ones are left to the kernel, which sets
 * them on registration. An area whose cpu_id is set is already registered
 * and not written at all. EBUSY means this very area is already registered
 * with this signature (the kernel checks all three), so it is live and
 * usable. EINVAL: the thread registered another area before asking us (it
 * keeps it); EPERM: a sandbox said no; ENOSYS: no rseq, or a seccomp filter
 * of this thread only, so it is not remembered process-wide.
 */
const volatile int *fastcpu_own_area_register(bool forced)
{
	struct fastcpu_rseq_abi *area = place();
	volatile struct fastcpu_rseq_abi *user = area;
	unsigned int length = fastcpu_rseq_kernel().own_length;
	long ret;

	if ((int)user->cpu_id < 0) {
		user->rseq_cs = 0;
		user->flags = 0;
		for (unsigned int i = offsetof(struct fastcpu_rseq_abi, end); i < length; i++)
			((volatile unsigned char *)area)[i] = 0;
	}
	ret = fastcpu_rseq_call(area, length, (int)fastcpu_slice_registration_flags(length));
	if (ret == -EINVAL && fastcpu_slice_registration_flags(length) != 0)
		ret = fastcpu_rseq_call(area, length, 0);	/* a kernel without the flag */
	if (ret == 0 || ret == -EBUSY)
		return (const volatile int *)&area->cpu_id;
	if (forced)
		warn_rseq_refused(ret);
	return NULL;
}

void fastcpu_own_area_unregister(const volatile int *cpu_id)
{
	fastcpu_rseq_call(fastcpu_area_of(cpu_id), fastcpu_rseq_kernel().own_length,
			  FASTCPU_RSEQ_FLAG_UNREGISTER);
}
