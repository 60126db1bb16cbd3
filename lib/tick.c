/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/tick.c: the clock that ages the cache's answers (answer-cache.c). */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "internal.h"
#include "tick.h"
#include "util.h"
#include "vdso.h"

/*
 * A cached answer is good for one tick. The best tick is a counter that
 * user mode reads with one instruction (arm64's generic timer, the ppc time
 * base, the riscv time CSR), cut by its frequency into periods of at most a
 * millisecond: no call at all. Where there is none, or its frequency is
 * unknown, the tick is the kernel's own: CLOCK_MONOTONIC_COARSE, 1-10 ms,
 * read through the vDSO's clock_gettime directly where the architecture
 * names it (cheaper than through libc's wrapper), else libc's. Either way a
 * tick is a 32-bit value, never 0, equal only within one period, short of a
 * wrap (49 days of counter periods) landing on it.
 */
typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
static clock_gettime_fn coarse_clock = clock_gettime;

static uint32_t nonzero(uint32_t tick)
{
	return tick == 0 ? 1 : tick;
}

static uint32_t coarse_clock_tick(void)
{
	struct timespec ts;

	coarse_clock(CLOCK_MONOTONIC_COARSE, &ts);	/* cannot fail: checked */
	return nonzero((uint32_t)ts.tv_sec * 1000000000u + (uint32_t)ts.tv_nsec);
}

uint32_t (*fastcpu_tick_fn)(void) = coarse_clock_tick;

static unsigned int counter_shift;
/* What choosing measured, for fastcpu_tick_describe() (0: not measured). */
static uint64_t counter_read_ns, coarse_read_ns;

static uint32_t counter_tick(void)
{
	return nonzero((uint32_t)(fastcpu_arch_counter() >> counter_shift));
}

/* The /cpus node's timebase-frequency: one or two big-endian cells. */
static uint64_t device_tree_counter_hz(void)
{
	unsigned char cell[8];
	uint64_t hz = 0;
	long len;
	int fd = fastcpu_open_nocancel("/proc/device-tree/cpus/timebase-frequency",
				       O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	len = fastcpu_read_nocancel(fd, cell, sizeof(cell));
	fastcpu_close_nocancel(fd);
	if (len != 4 && len != 8)
		return 0;
	for (long i = 0; i < len; i++)
		hz = hz << 8 | cell[i];
	return hz;
}

static uint64_t counter_hz(void)
{
	return FASTCPU_HAVE_COUNTER_HZ ? fastcpu_arch_counter_hz() :
					 device_tree_counter_hz();
}

static int read_counter(void)
{
	return (int)fastcpu_arch_counter();
}

static int read_coarse_clock(void)
{
	return (int)coarse_clock_tick();
}

/*
 * Some arm64 timer errata and many riscv boards make a user read of the
 * counter trap to the kernel or the firmware, which emulates it: a
 * microsecond or more, dearer than the system call the cache saves. A
 * counter that costs more than twice the coarse clock (plus 20 ns of
 * timing noise) is not used; an untrapped read costs about the same.
 */
static bool counter_is_cheap(void)
{
	counter_read_ns = fastcpu_cost_ns(read_counter);
	coarse_read_ns = fastcpu_cost_ns(read_coarse_clock);
	return counter_read_ns <= 2 * coarse_read_ns + 20;
}

/* Periods of the largest power of two of counts within a millisecond; a
 * frequency outside 1 MHz-100 GHz is taken as unknown. */
static bool use_counter(void)
{
	uint64_t hz;
	unsigned int shift = 0;

	if (!FASTCPU_HAVE_COUNTER)
		return false;
	hz = counter_hz();
	if (hz < 1000000 || hz > 100000000000ull || !counter_is_cheap())
		return false;
	while ((2ull << shift) <= hz / 1000)
		shift++;
	counter_shift = shift;
	__atomic_store_n(&fastcpu_tick_fn, counter_tick, __ATOMIC_RELAXED);
	return true;
}

/* Chooses the tick, when binding: also checks the coarse clock works, so
 * that a tick never meets a failure that would change errno. */
bool fastcpu_tick_usable(void)
{
	struct timespec ts;
	int saved = errno;
	bool counter = use_counter();
	bool ok = counter || clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0;
#ifdef FASTCPU_VDSO_CLOCK_GETTIME
	clock_gettime_fn vdso;

	/* The vDSO fills the kernel's old timespec, two longs: not a 64-bit
	 * time_t's on a 32-bit machine (musl, _TIME_BITS=64). */
	if (ok && !counter && sizeof(struct timespec) == 2 * sizeof(long)) {
		vdso = (clock_gettime_fn)fastcpu_vdso_lookup(
			FASTCPU_VDSO_CLOCK_GETTIME, FASTCPU_VDSO_CLOCK_VERSION);
		if (vdso != NULL && vdso(CLOCK_MONOTONIC_COARSE, &ts) == 0)
			__atomic_store_n(&coarse_clock, vdso, __ATOMIC_RELAXED);
	}
#endif
	errno = saved;
	return ok;
}

void fastcpu_tick_describe(char *buf, size_t size)
{
	if (__atomic_load_n(&fastcpu_tick_fn, __ATOMIC_RELAXED) == counter_tick)
		snprintf(buf, size, "the CPU's counter, %llu ns a read (coarse clock: %llu ns)",
			 (unsigned long long)counter_read_ns,
			 (unsigned long long)coarse_read_ns);
	else if (counter_read_ns != 0)
		snprintf(buf, size, "CLOCK_MONOTONIC_COARSE: the counter costs %llu ns a read "
			 "(trapped?), the coarse clock %llu ns",
			 (unsigned long long)counter_read_ns,
			 (unsigned long long)coarse_read_ns);
	else
		snprintf(buf, size, "CLOCK_MONOTONIC_COARSE");
}
