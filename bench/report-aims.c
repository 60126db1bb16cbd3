/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report-aims.c: the comparisons the project promises, each from one process. */

#include <stdio.h>

#include "report-aims.h"

static double quotient(double a, double b)
{
	return b > 0 ? a / b : -1;
}

/* An aim measured by no runs of its own (a ratio of two tables' medians). */
static struct report_aim *aim_value(struct report_aims *s, const char *what, double value,
				    double most)
{
	struct report_aim *t = &s->aim[s->count++];

	*t = (struct report_aim){ .value = value, .best = -1, .most = most, .low = -1, .high = -1 };
	snprintf(t->what, sizeof(t->what), "%s", what);
	return t;
}

/* a / b at their medians and bests, and at their lowest and highest within
 * the runs' quartiles; loop (NULL: none) the empty loop, its cost kept in
 * both. -1 where either did not run. */
static void aim_pair(struct report_aims *s, const char *what, const struct bench_result *a,
		     const struct bench_result *b, const struct bench_result *loop, double most)
{
	struct report_aim *t = aim_value(s, what, -1, most);
	double e = loop ? loop->median_ns : 0, e_best = loop ? loop->best_ns : 0;

	if (a == NULL || b == NULL)
		return;
	t->value = quotient(a->median_ns + e, b->median_ns + e);
	t->best = quotient(a->best_ns + e_best, b->best_ns + e_best);
	if (b->q1_ns + e <= 0 || b->q3_ns + e <= 0)
		return;
	t->low = (a->q1_ns + e) / (b->q3_ns + e);
	t->high = (a->q3_ns + e) / (b->q1_ns + e);
}

static void reading_aims(const struct report *r, struct report_aims *s)
{
	const struct bench_result *w = r->reading;

	aim_pair(s, "sched_getcpu(): libfastcpu / glibc", bench_ran(&w[WAY_FASTCPU_SCHED]),
		 bench_ran(&w[WAY_GLIBC_SCHED]), NULL, r->machine.glibc_rseq_size > 0 ? 1.0 : 0.45);
	aim_pair(s, "getcpu(&c, &n): libfastcpu / glibc", bench_ran(&w[WAY_FASTCPU_GETCPU]),
		 bench_ran(&w[WAY_GLIBC_GETCPU]), NULL, 0.5);
	/* Both cost well under a cycle once the loop is subtracted, so this
	 * one keeps the loop in (a quarter of an iteration a read). */
	aim_pair(s, "fastcpu_current_cpu() / bare rseq load, loop included",
		 bench_ran(&w[WAY_CURRENT_CPU]), bench_ran(&w[WAY_RSEQ_LOAD]), &w[WAY_NOTHING], 1.2);
}

/* Where the answer is waited on: what each adds to a locked add. */
static void waited_aims(const struct report *r, struct report_aims *s)
{
	const struct bench_result *add = r->latency.add;

	aim_pair(s, "sched_getcpu() + locked add: libfastcpu / glibc excess",
		 bench_ran(&add[WAY_FASTCPU_SCHED]), bench_ran(&add[WAY_GLIBC_SCHED]), NULL, 1.0);
	aim_pair(s, "getcpu(&c, &n) + locked add: libfastcpu / glibc excess",
		 bench_ran(&add[WAY_FASTCPU_GETCPU]), bench_ran(&add[WAY_GLIBC_GETCPU]), NULL, 1.0);
}

static void counter_aims(const struct report *r, struct report_aims *s)
{
	const struct bench_result *add = bench_ran(&r->counter_one[COUNTER_PERCPU_RSEQ]);
	double one = report_counter_at(r, COUNTER_PERCPU_RSEQ, 1);
	double crowded = report_counter_at(r, COUNTER_PERCPU_RSEQ, 2 * r->machine.cpus);

	aim_pair(s, "fastcpu_counter_add() / atomic add on own shard", add,
		 bench_ran(&r->counter_one[COUNTER_PERCPU_FASTCPU]), NULL, 0.35);
	aim_pair(s, "fastcpu_counter_add() / librseq-shaped reference", add,
		 bench_ran(&r->counter_one[COUNTER_REFERENCE]), NULL, 1.2);
	aim_value(s, "fastcpu_counter_add(), 2x CPUs threads / 1 thread",
		  one > 0 && crowded > 0 ? crowded / one : -1, 1.3);
}

/* The per-CPU add where each fallback serves. */
static void forced_aims(const struct report *r, struct report_aims *s)
{
	static const enum setup_id forced[3] = { SETUP_RDPID, SETUP_VDSO, SETUP_SYSCALL };

	for (int i = 0; i < 3; i++) {
		const struct setup_result *f = report_forced(r, forced[i]);
		char what[96];

		snprintf(what, sizeof(what), "%s: counter add / atomic add on own shard",
			 setup_name(forced[i]));
		aim_pair(s, what, f ? &f->counter : NULL, f ? &f->shard : NULL, NULL, 1.0);
	}
}

/* The setup table's highest cell, named by its row and column. */
static void setup_aim(const struct report *r, struct report_aims *s)
{
	double worst = -1;
	int row = 0, cell = 0;
	struct report_aim *t;

	for (int id = 0; id < SETUP_COUNT; id++)
		for (int c = 0; c < SETUP_CELLS; c++) {
			double v = report_setup_cell(report_setup(r, (enum setup_id)id),
						     (enum setup_cell)c);

			if (v > worst) {
				worst = v;
				row = id;
				cell = c;
			}
		}
	t = aim_value(s, "setup table's highest cell", worst, SETUP_CELL_MOST);
	if (worst >= 0)
		snprintf(t->what, sizeof(t->what), "setup table's highest cell (%s, %s)",
			 setup_name((enum setup_id)row), setup_cell_names[cell]);
}

void report_aims(const struct report *r, struct report_aims *aims)
{
	aims->count = 0;
	reading_aims(r, aims);
	waited_aims(r, aims);
	counter_aims(r, aims);
	forced_aims(r, aims);
	setup_aim(r, aims);
}
