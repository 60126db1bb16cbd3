/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/latency.h: the answer waited on (a locked add, a chained load). */

#ifndef FASTCPU_BENCH_LATENCY_H
#define FASTCPU_BENCH_LATENCY_H

#include <stdbool.h>

#include "measure.h"

/* Row names the report and the aims look up. */
#define LATENCY_BASE "the work alone (not subtracted)"
#define LATENCY_GLIBC_SCHED "glibc sched_getcpu()"
#define LATENCY_FASTCPU_SCHED "libfastcpu sched_getcpu()"
#define LATENCY_GLIBC_GETCPU "glibc getcpu(&c, &n)"
#define LATENCY_FASTCPU_GETCPU "libfastcpu getcpu(&c, &n)"
#define LATENCY_SYSCALL "getcpu system call"

#define LATENCY_MAX 20

/* Each way of asking twice, rows in the same order, [0] the work alone:
 * add, a locked add on the answer's shard follows; chain, the answer
 * indexes a load the next index adds. ns per call beyond the work. */
struct latency_table {
	struct bench_result add[LATENCY_MAX], chain[LATENCY_MAX];
	int count;
};

/* Measures every way of asking this machine has (all), or only glibc's and
 * glibc's, the library's exported ones and the system call (a process of
 * the setup table); returns
 * the number of rows. */
int latency_measure(struct latency_table *t, const struct bench_config *cfg, bool all);

/* Table 7's (a) of glibc's and the library's exported calls and the
 * system call, each beyond the add alone (a process of the setup table
 * sends it whole through a pipe). */
struct latency_waited {
	struct bench_result alone, sched, glibc_sched, getcpu, glibc_getcpu, syscall;
	bool glibc_has_getcpu;
};
void latency_measure_waited(struct latency_waited *w, const struct bench_config *cfg);

#endif /* FASTCPU_BENCH_LATENCY_H */
