/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/upper.c: the upper half's CPU a thread without sequences keeps. */

#include "bind.h"
#include "cid.h"
#include "kernel.h"
#include "upper.h"

/* The fallback asked (upper.h says when), its answer kept. */
int fastcpu_upper_cpu_ask(void)
{
	const struct fastcpu_backend *fallback = fastcpu_fallback();
	int cpu = fallback->cpu_quiet();

	if (cpu < 0 || cpu >= fastcpu_possible_cpus())
		cpu = 0;
	fastcpu_thread.upper.cpu = cpu;
	fastcpu_thread.upper.index = fastcpu_upper_index(cpu);
	fastcpu_thread.upper.reuses = fallback == &fastcpu_backend_syscall ?
				    FASTCPU_UPPER_REUSES_SYSCALL : FASTCPU_UPPER_REUSES;
	return cpu;
}
