/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/upper.c: the slot of the upper half a thread without sequences takes. */

#include "bind.h"
#include "kernel.h"
#include "upper.h"

/* The area's CPU's slot, the possible CPUs counted first; or the
 * fallback asked (upper.h says when), its answer kept. */
size_t fastcpu_upper_slot_ask(void)
{
	const struct fastcpu_backend *fallback;
	int cpu = *fastcpu_cpu_id_ref;

	if (cpu >= 0)
		return (size_t)fastcpu_upper_index(cpu);
	fallback = fastcpu_fallback();
	cpu = fallback->cpu_quiet();

	if (cpu < 0 || cpu >= fastcpu_possible_cpus())
		cpu = 0;
	fastcpu_wing_thread.upper.slot = (unsigned int)fastcpu_upper_index(cpu);
	fastcpu_wing_thread.upper.reuses = fallback == &fastcpu_backend_syscall ?
					   FASTCPU_UPPER_REUSES_SYSCALL : FASTCPU_UPPER_REUSES;
	return fastcpu_wing_thread.upper.slot;
}
