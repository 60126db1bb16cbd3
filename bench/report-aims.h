/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report-aims.h: the comparisons the project promises, each from one process. */

#ifndef FASTCPU_BENCH_REPORT_AIMS_H
#define FASTCPU_BENCH_REPORT_AIMS_H

#include "report.h"

struct report_aim {
	char what[96];
	double value, best;	/* ratio of medians, of bests; -1: not measured */
	double most;		/* the aim: value at most this */
	double low, high;	/* from the quartiles: the spread of the runs; -1: none */
};

#define REPORT_MAX_AIMS 16

struct report_aims {
	struct report_aim aim[REPORT_MAX_AIMS];
	int count;
};

void report_aims(const struct report *r, struct report_aims *aims);

#endif /* FASTCPU_BENCH_REPORT_AIMS_H */
