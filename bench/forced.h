/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/forced.h: each backend forced, in a new process of the benchmark. */

#ifndef FASTCPU_BENCH_FORCED_H
#define FASTCPU_BENCH_FORCED_H

#include "measure.h"
#include "report.h"

/* Runs each backend and cache setting the machine has (FASTCPU_BACKEND,
 * FASTCPU_CACHE) in a new process of this program, argv its arguments:
 * tables 2 and 3, and the forced rows of 4 and 7, into r->forced. The
 * machine must be described; nothing bound yet in this process. */
void forced_run_all(struct report *r, char **argv);

/* In such a process (FASTCPU_BENCH_FORCED set): measures, sends the
 * results to the parent and exits; elsewhere returns. */
void forced_child_if_asked(const struct bench_config *cfg);

#endif /* FASTCPU_BENCH_FORCED_H */
