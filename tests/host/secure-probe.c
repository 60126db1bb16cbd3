/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/host/secure-probe.c: what the library chose, and whether AT_SECURE. */

#include <stdio.h>
#include <sys/auxv.h>

#include "fastcpu.h"

int main(void)
{
	int cpu = fastcpu_sched_getcpu();

	printf("secure=%lu backend=%s cpu_ok=%d\n", getauxval(AT_SECURE),
	       fastcpu_backend(), cpu >= 0);
	return cpu >= 0 ? 0 : 1;
}
