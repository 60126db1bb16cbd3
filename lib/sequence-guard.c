/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/sequence-guard.c: whether this kernel may run the library's sequences. */

#include <stdio.h>
#include <sys/syscall.h>

#include "abort-probe.h"
#include "internal.h"
#include "kernel.h"
#include "once.h"
#include "sequence-guard.h"
#include "settings.h"
#include "util.h"

/*
 * Linux 6.19's rework of rseq resumed preempted sequences on arm64 instead
 * of aborting them, up to 7.0.13 (abort-probe.c): every per-CPU operation
 * run as a sequence there may lose an update or hand out an object twice.
 * So the per-CPU operations and the object cache run sequences only where
 * the kernel is known to abort them; elsewhere they take the upper half,
 * which is right without sequences, and reading the CPU number stays on
 * rseq, which the fault does not touch. Decided once per process:
 *  - FASTCPU_SEQUENCES=on or off, the user's word;
 *  - else a release outside 6.19 to 7.0.13 (every architecture: another
 *    may have a window of its own there), read from the vDSO at load at
 *    no cost;
 *  - else the probe, on the first per-CPU operation of a thread with an
 *    area, never in a process that does not use one; a distribution's
 *    kernel may carry the fix under an older number. A probe that cannot
 *    tell leaves the sequences off.
 */
#define FIRST_BROKEN	FASTCPU_KERNEL_VERSION(6, 19, 0)
#define FIRST_FIXED	FASTCPU_KERNEL_VERSION(7, 0, 14)

/* One word: the decision in the low bits, why above them; 0 undecided. */
enum reason { BY_SETTING = 1, BY_RELEASE, BY_PROBE, BY_UNDECIDED_PROBE };
#define REASON_SHIFT 4
static unsigned int decision;
/* The process whose thread runs the probe (0: none): its signal handlers
 * and other threads take the upper half meanwhile, a fork child probes
 * again. */
static int prober;
static unsigned int version;
static struct fastcpu_probe_result probed;
static unsigned long probes;

static enum fastcpu_sequences offer(enum fastcpu_sequences s, enum reason why)
{
	return fastcpu_once_offer(&decision, (unsigned int)s | (unsigned int)why << REASON_SHIFT) &
	       ((1u << REASON_SHIFT) - 1);
}

static bool suspect(unsigned int v)
{
	return v >= FIRST_BROKEN && v < FIRST_FIXED;
}

enum fastcpu_sequences fastcpu_guard_known(void)
{
	unsigned int d = __atomic_load_n(&decision, __ATOMIC_ACQUIRE), v;

	if (d != 0)
		return d & ((1u << REASON_SHIFT) - 1);
	switch (fastcpu_settings().sequences) {
	case FASTCPU_SEQUENCES_CHOOSE_ON:
		return offer(FASTCPU_SEQUENCES_YES, BY_SETTING);
	case FASTCPU_SEQUENCES_CHOOSE_OFF:
		return offer(FASTCPU_SEQUENCES_NO, BY_SETTING);
	case FASTCPU_SEQUENCES_CHOOSE_AUTO:
		break;
	}
	v = fastcpu_kernel_version(false);
	__atomic_store_n(&version, v, __ATOMIC_RELAXED);
	if (v != 0 && !suspect(v))
		return offer(FASTCPU_SEQUENCES_YES, BY_RELEASE);
	return FASTCPU_SEQUENCES_UNKNOWN;
}

/* The probe, run by one thread of the process at a time. */
static enum fastcpu_sequences probe(void)
{
	struct fastcpu_probe_result r = fastcpu_abort_probe();

	__atomic_fetch_add(&probes, 1, __ATOMIC_RELAXED);
	probed = r;
	switch (r.outcome) {
	case FASTCPU_PROBE_ABORTED:
		return offer(FASTCPU_SEQUENCES_YES, BY_PROBE);
	case FASTCPU_PROBE_RESUMED:
		return offer(FASTCPU_SEQUENCES_NO, BY_PROBE);
	case FASTCPU_PROBE_UNDECIDED:
		break;
	}
	return offer(FASTCPU_SEQUENCES_NO, BY_UNDECIDED_PROBE);
}

enum fastcpu_sequences fastcpu_guard_decide(void)
{
	enum fastcpu_sequences s = fastcpu_guard_known();
	int me, seen = 0;
	unsigned int v;

	if (likely(s != FASTCPU_SEQUENCES_UNKNOWN))
		return s;
	v = fastcpu_kernel_version(true);
	__atomic_store_n(&version, v, __ATOMIC_RELAXED);
	if (v != 0 && !suspect(v))
		return offer(FASTCPU_SEQUENCES_YES, BY_RELEASE);
	me = (int)fastcpu_raw_syscall_errno(SYS_getpid, 0, 0, 0, 0);
	while (!__atomic_compare_exchange_n(&prober, &seen, me, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED))
		if (seen == me)
			return FASTCPU_SEQUENCES_UNKNOWN;
	s = probe();
	__atomic_store_n(&prober, 0, __ATOMIC_RELEASE);
	return s;
}

unsigned long fastcpu_guard_probes(void)
{
	return __atomic_load_n(&probes, __ATOMIC_RELAXED);
}

static void say_version(char *at, size_t size)
{
	unsigned int v = __atomic_load_n(&version, __ATOMIC_RELAXED);

	if (v == 0)
		snprintf(at, size, "an unknown Linux");
	else
		snprintf(at, size, "Linux %u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
}

void fastcpu_guard_describe(char *line, size_t size)
{
	unsigned int d = __atomic_load_n(&decision, __ATOMIC_ACQUIRE);
	bool yes = (d & ((1u << REASON_SHIFT) - 1)) == FASTCPU_SEQUENCES_YES;
	char release[32];

	say_version(release, sizeof(release));
	switch (d >> REASON_SHIFT) {
	case BY_SETTING:
		snprintf(line, size, "%s: FASTCPU_SEQUENCES=%s", yes ? "on" : "off",
			 yes ? "on" : "off");
		break;
	case BY_RELEASE:
		snprintf(line, size, "on: %s, outside the releases that resumed preempted sequences (6.19 to 7.0.13)",
			 release);
		break;
	case BY_PROBE:
		if (yes)
			snprintf(line, size, "on: %s, of the releases that resumed preempted "
				 "sequences (6.19 to 7.0.13), read the probe's critical section "
				 "at all %lu preemptions", release, probed.read);
		else
			snprintf(line, size, "off: %s left the probe's critical section unread at "
				 "%lu of %lu preemptions: it resumes preempted sequences",
				 release, probed.missed, probed.preemptions);
		break;
	case BY_UNDECIDED_PROBE:
		snprintf(line, size, "off: %s is of the releases that resumed preempted sequences "
			 "(6.19 to 7.0.13), and the probe could not tell: %s", release,
			 probed.why ? probed.why : "no reason given");
		break;
	default:
		snprintf(line, size, "%s", "");
	}
}
