/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/latency.h: the answer waited on (a locked add, a chained load). */

#ifndef FASTCPU_BENCH_LATENCY_H
#define FASTCPU_BENCH_LATENCY_H

#include <stdbool.h>

#include "cases.h"
#include "measure.h"

/* Each way of asking twice, keyed by way, [WAY_NOTHING] the work alone:
 * add, a locked add on the answer's shard follows; chain, the answer
 * indexes a load the next index adds. ns per call beyond the work; a way
 * not timed has no loop. order: the ways timed, in the table's order. */
struct latency_table {
	struct bench_result add[WAYS], chain[WAYS];
	enum way order[WAYS];
	int count;
};

/* Measures every way of asking this machine has (all), or only glibc's,
 * the library's exported ones and the system call (a process of the
 * setup table: add only). */
void latency_measure(struct latency_table *t, const struct bench_config *cfg, bool all);

/* Table 7's (a) of glibc's and the library's exported calls and the
 * system call, each beyond the add alone (a process of the setup table
 * sends it whole through a pipe). */
struct latency_waited {
	struct bench_result alone, sched, glibc_sched, getcpu, glibc_getcpu, syscall;
	bool glibc_has_getcpu;
};
void latency_measure_waited(struct latency_waited *w, const struct bench_config *cfg);

#endif /* FASTCPU_BENCH_LATENCY_H */
