/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report.c: what the report's writers share: its ratios, the setup table's rows and cells. */

#include <string.h>

#include "report.h"

double report_ratio(const struct bench_result *a, const struct bench_result *b)
{
	return a && b && b->median_ns > 0 ? a->median_ns / b->median_ns : -1;
}

const struct setup_result *report_setup(const struct report *r, enum setup_id id)
{
	return r->setups[id].served[0] != '\0' ? &r->setups[id] : NULL;
}

const struct setup_result *report_forced(const struct report *r, enum setup_id id)
{
	const struct setup_result *s = report_setup(r, id);

	return s && s->served_id == setup_backend_id(id) ? s : NULL;
}

const char *const setup_cell_names[SETUP_CELLS] = {
	"sched", "getcpu", "sched+add", "getcpu+add", "per-CPU add", "objcache",
};

/* (alone + a) / (alone + b): a call and the locked add that waits on it,
 * whole, as the program pays them. */
static double waited_ratio(const struct bench_result *alone, const struct bench_result *a,
			   const struct bench_result *b)
{
	return alone->median_ns + b->median_ns > 0 ?
	       (alone->median_ns + a->median_ns) / (alone->median_ns + b->median_ns) : -1;
}

double report_setup_cell(const struct setup_result *s, enum setup_cell c)
{
	if (s == NULL)
		return -1;
	switch (c) {
	case CELL_SCHED:
		return report_ratio(&s->sched, &s->plain_sched);
	case CELL_GETCPU:
		return s->has_getcpu ? report_ratio(&s->getcpu, &s->plain_getcpu) : -1;
	case CELL_SCHED_ADD:
		return waited_ratio(&s->add_alone, &s->sched_add, &s->plain_sched_add);
	case CELL_GETCPU_ADD:
		return s->has_getcpu ? waited_ratio(&s->add_alone, &s->getcpu_add,
						    &s->plain_getcpu_add) : -1;
	case CELL_PERCPU_ADD:
		return s->has_counter ? report_ratio(&s->counter, &s->shard) : -1;
	case CELL_OBJCACHE:
		return s->has_counter ? report_ratio(&s->objcache_pair, &s->malloc_pair) : -1;
	default:
		return -1;
	}
}

double report_counter_at(const struct report *r, enum counter_kind k, int nthreads)
{
	for (int t = 0; t < r->thread_counts; t++)
		if (r->threads[t] == nthreads)
			return r->counter_ns[k][t];
	return -1;
}
