/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/client-lttng.c: LTTng-UST tracepoints, unmodified: each event
 * recorded into a per-CPU ring buffer asks sched_getcpu() (inside
 * liblttng-ust.so) which CPU's buffer to write. ns per event, two threads;
 * clients.sh makes the session that records them. */

#include <stdio.h>

#include "client.h"
#include "client-lttng-tp.h"

static long events = 1000000;

static void trace(int index)
{
	(void)index;
	for (long i = 0; i < events; i++)
		lttng_ust_tracepoint(fastcpu_bench, tick, i);
}

int main(int argc, char **argv)
{
	events = client_operations(argc, argv, events);
	/* liblttng-ust's constructor has registered with the session daemon
	 * and learnt which events it records: a disabled tracepoint is a
	 * branch, and would time nothing. */
	if (!lttng_ust_tracepoint_enabled(fastcpu_bench, tick)) {
		fprintf(stderr, "client-lttng: no session records fastcpu_bench:tick\n");
		return 1;
	}
	printf("%.3f\n", client_run_n_threads(trace, 2) / (double)events);
	return 0;
}
