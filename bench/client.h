/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/client.h: what the real-client workloads share: a thread per
 * allowed CPU, started together, timed from the start to the last one done.
 * tests/commands/clients-bound.sh runs them too, to see the clients' own calls bound to
 * the library. */

#ifndef FASTCPU_BENCH_CLIENT_H
#define FASTCPU_BENCH_CLIENT_H

/* Runs work(i) in one thread per allowed CPU (i from 0), all released at
 * once; returns the wall time in ns from the release to the last return,
 * and the thread count in *threads. Aborts if a thread cannot start. */
double client_run_threads(void (*work)(int index), int *threads);
/* The same with n threads, whatever the CPUs. */
double client_run_n_threads(void (*work)(int index), int n);

/* Operations per thread: the program's first argument (tests ask for few),
 * else its default. */
long client_operations(int argc, char **argv, long default_count);

#endif /* FASTCPU_BENCH_CLIENT_H */
