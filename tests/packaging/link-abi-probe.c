/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/packaging/link-abi-probe.c: a program linked with -lfastcpu that calls the
 * glibc names libfastcpu defines; link-abi.sh reads what it requires. */

#include <pthread.h>
#include <sched.h>

#include "fastcpu.h"

int main(void)
{
	cpu_set_t set;
	unsigned int cpu;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    sched_setaffinity(0, sizeof(set), &set) != 0 ||
	    pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0 ||
	    getcpu(&cpu, NULL) != 0 || sched_getcpu() < 0 ||
	    fastcpu_sched_getcpu() < 0)
		return 1;
	return 0;
}
