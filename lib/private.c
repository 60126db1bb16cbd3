/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/private.c: what the fastcpu tool asks the library, and nobody else. */

#include <stdio.h>
#include <string.h>

#include "abort-probe.h"
#include "attach.h"
#include "bind.h"
#include "internal.h"
#include "kernel.h"
#include "private.h"
#include "sequence-guard.h"
#include "tick.h"
#include "vdso.h"

/* Whether the calling thread's per-CPU operations run sequences, decided
 * as its first one would (the guard may probe), and why. */
static void describe_sequences(struct fastcpu_private_facts *facts)
{
	const volatile int *ref = fastcpu_attached_cpu_id();
	const char *why = NULL;

	facts->sequences = fastcpu_sequence_cpu_id() != NULL;
	fastcpu_guard_describe(facts->sequences_why, sizeof(facts->sequences_why));
#ifndef FASTCPU_RSEQ_INLINE
	why = "off: this build has no sequences for this architecture";
#endif
	if (why == NULL && *ref < 0)
		why = "off: this thread reads no rseq area";
	else if (why == NULL && !facts->sequences &&
		 strncmp(facts->sequences_why, "off", 3) != 0)
		why = "off: the area's owner registered it with a signature other than the library's";
	if (why != NULL)
		snprintf(facts->sequences_why, sizeof(facts->sequences_why), "%s", why);
}

FASTCPU_EXPORT void fastcpu_private_facts(struct fastcpu_private_facts *facts)
{
	facts->area = *fastcpu_attached_cpu_id() >= 0 ? fastcpu_area_kind() : FASTCPU_AREA_NONE;
	facts->rdpid = fastcpu_arch_has_rdpid();
#ifdef FASTCPU_VDSO_GETCPU
	facts->vdso_getcpu = fastcpu_vdso_lookup(FASTCPU_VDSO_GETCPU,
						 FASTCPU_VDSO_VERSION) != NULL;
#else
	facts->vdso_getcpu = false;
#endif
	(void)fastcpu_bind();
	snprintf(facts->fallback, sizeof(facts->fallback), "%s", fastcpu_fallback()->name);
	if (fastcpu_tick_usable())
		fastcpu_tick_describe(facts->tick, sizeof(facts->tick));
	else
		snprintf(facts->tick, sizeof(facts->tick),
			 "none usable: the cache stays off");
	describe_sequences(facts);
	facts->possible_cpus = fastcpu_possible_cpus();
	facts->kernel_possible_cpus = fastcpu_kernel_possible_cpus();
}

FASTCPU_EXPORT bool fastcpu_private_runs_sequences(void)
{
	return fastcpu_sequence_cpu_id() != NULL;
}

FASTCPU_EXPORT void fastcpu_private_probe(struct fastcpu_private_probe *probe, int run)
{
	struct fastcpu_probe_result r = { FASTCPU_PROBE_UNDECIDED, 0, 0, 0, "not run" };

	if (run != 0)
		r = run == 2 ? fastcpu_abort_probe_unregistered() : fastcpu_abort_probe();
	probe->outcome = (int)r.outcome;
	probe->preemptions = r.preemptions;
	probe->read = r.read;
	probe->missed = r.missed;
	probe->why = r.why;
	probe->guard_probes = fastcpu_guard_probes();
	probe->guard = (int)fastcpu_guard_known();
}
