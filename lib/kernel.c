/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/kernel.c: what the running kernel offers, each fact read once. */

#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include "cpulist.h"
#include "internal.h"
#include "kernel.h"
#include "once.h"
#include "rseq-abi.h"
#include "settings.h"
#include "util.h"
#include "vdso.h"

/*
 * The length the library registers its own area with, by the kernel's rule
 * (kernel/rseq.c, sys_rseq): exactly 32 bytes aligned to 32, which every
 * kernel since 4.18 accepts; or, since 6.3, at least the feature size,
 * aligned to the struct's alignment. Both come from the auxiliary vector,
 * never from a constant: 6.3-6.x say 28 and 32, so 32 bytes it is; 7.0 says
 * 33 and 64, and accepts only 32 (which then lacks the fields past 32) or
 * 64 bytes aligned to 64. The feature size rounded up to the alignment
 * fits the room the library keeps (FASTCPU_RSEQ_AREA_SIZE, aligned to it);
 * a kernel asking for more gets the original 32 bytes.
 */
static unsigned long own_area_length(unsigned long feature)
{
	unsigned long align = fastcpu_getauxval(AT_RSEQ_ALIGN);
	unsigned long len;

	if (feature <= FASTCPU_RSEQ_ORIG_SIZE)
		return FASTCPU_RSEQ_ORIG_SIZE;
	if (align < FASTCPU_RSEQ_ORIG_SIZE)
		align = FASTCPU_RSEQ_ORIG_SIZE;
	if (align > FASTCPU_RSEQ_AREA_SIZE)
		return FASTCPU_RSEQ_ORIG_SIZE;
	len = (feature + align - 1) & ~(align - 1);
	return len > FASTCPU_RSEQ_AREA_SIZE ? FASTCPU_RSEQ_ORIG_SIZE : len;
}

/* One word: the feature size (0 before 6.3) in the low 16 bits, the own
 * area's length above it, and a bit that makes it never 0. */
#define FACTS_READ	(1u << 31)
#define FEATURE_MASK	0xffffu
#define LENGTH_SHIFT	16

static uint32_t read_rseq_facts(void)
{
	unsigned long feature = fastcpu_getauxval(AT_RSEQ_FEATURE_SIZE);

	if (feature > FEATURE_MASK)
		feature = FEATURE_MASK;
	return FACTS_READ | (uint32_t)feature |
	       (uint32_t)own_area_length(feature) << LENGTH_SHIFT;
}

struct fastcpu_rseq_kernel fastcpu_rseq_kernel(void)
{
	static uint32_t facts;
	uint32_t f = fastcpu_once(&facts, read_rseq_facts());
	unsigned int feature = f & FEATURE_MASK;

	return (struct fastcpu_rseq_kernel){
		.feature_size = feature,
		.own_length = (f & ~FACTS_READ) >> LENGTH_SHIFT,
		.node_id = feature >= FASTCPU_RSEQ_NODE_FEATURE_SIZE,
		.mm_cid = feature >= FASTCPU_RSEQ_MM_CID_FEATURE_SIZE,
	};
}

static void note_highest(unsigned long cpu, void *highest)
{
	if (cpu + 1 > *(unsigned long *)highest)
		*(unsigned long *)highest = cpu + 1;
}

/*
 * The kernel's nr_cpu_ids: CPU numbers below it are all it will ever use,
 * whatever is plugged in later. sysfs says it exactly; without sysfs (a
 * chroot, a sandbox), sched_getaffinity refuses a mask too small for it,
 * which bounds it to a multiple of 64 (or to FASTCPU_MAX_CPUS past 1024).
 */
int fastcpu_kernel_possible_cpus(void)
{
	unsigned long highest = 0, mask[1024 / (8 * sizeof(unsigned long))];

	fastcpu_cpulist_read_file("/sys/devices/system/cpu/possible",
				  note_highest, &highest);
	if (highest > 0)
		return (int)highest;
	for (size_t size = sizeof(unsigned long); size <= sizeof(mask); size *= 2)
		if (fastcpu_raw_syscall_errno(SYS_sched_getaffinity, 0, (long)size,
					      (long)mask, 0) > 0)
			return (int)(size * 8);
	return FASTCPU_MAX_CPUS;
}

/* The library's count: the kernel's, or FASTCPU_POSSIBLE_CPUS where that
 * asks for more (settings.c), so that a 2-CPU machine sizes every per-CPU
 * array, concurrency id limit and counter tree as a 1,024-CPU one would:
 * CPU numbers stay the kernel's, below its count, and the slots past them
 * are simply never a thread's. */
static int count_possible_cpus(void)
{
	int kernel = fastcpu_kernel_possible_cpus();
	unsigned int asked = fastcpu_settings().possible_cpus;

	return asked > (unsigned int)kernel ? (int)asked : kernel;
}

int fastcpu_possible_cpus_word;

int fastcpu_count_possible_cpus(void)
{
	return fastcpu_once(&fastcpu_possible_cpus_word, count_possible_cpus());
}

/* "7.0.13+deb13-arm64": the numbers before the first character that is
 * neither a digit nor a dot. */
static unsigned int parse_release(const char *release)
{
	unsigned int part[3] = { 0, 0, 0 }, n = 0;

	for (const char *c = release; n < 3 && *c != '\0'; c++) {
		if (*c == '.')
			n++;
		else if (*c >= '0' && *c <= '9' && part[n] < 1000)
			part[n] = part[n] * 10 + (unsigned int)(*c - '0');
		else
			break;
	}
	return FASTCPU_KERNEL_VERSION(part[0], part[1] > 255 ? 255 : part[1],
				      part[2] > 255 ? 255 : part[2]);
}

unsigned int fastcpu_kernel_version(bool may_ask)
{
	unsigned int v = fastcpu_vdso_linux_version();
	struct utsname u;

	if (v != 0 || !may_ask)
		return v;
	return fastcpu_raw_syscall_errno(SYS_uname, (long)(uintptr_t)&u, 0, 0, 0) == 0 ?
	       parse_release(u.release) : 0;
}
