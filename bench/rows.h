/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/rows.h: every measurement a row with a key, whatever measured it and wherever. */

#ifndef FASTCPU_BENCH_ROWS_H
#define FASTCPU_BENCH_ROWS_H

#include <math.h>

#define ROW_KEY 64

/* What a row's figures count; its name in the CSV's unit column. */
enum unit { UNIT_NS, UNIT_CYCLES, UNIT_RATIO, UNIT_BYTES, UNIT_COUNT, UNIT_SECONDS, UNIT_ID };
extern const char *const unit_names[];

/*
 * A row: in its table, key says what it measures for machines ([a-z0-9_.],
 * unique with threads, kept when its name's words change) and name for
 * people. best and median (NAN: not measured) are of the runs in one
 * process, or of processes (then worst is their worst median, over how
 * many of them took over 1.30x the median); low and high the spread of
 * the runs (their quartiles), where one process measured it. A row is
 * plain data: a process of the benchmark sends its rows whole to another.
 */
struct row {
	char table[24], key[ROW_KEY], name[112];
	int threads;		/* 0: one thread, pinned, or not a matter of threads */
	enum unit unit;
	double best, median, worst, low, high;
	int processes, over;
};

/* Rows in the order they were added; ROWS_MOST at most (a row found stays
 * where it is while more are added). */
#define ROWS_MOST 8192
struct rows {
	struct row *at;
	int count;
};

/* Adds a copy of x; returns it. */
struct row *rows_append(struct rows *r, const struct row *x);
/* Adds a row of one process, its worst and spread NAN; returns it. */
struct row *rows_add(struct rows *r, const char *table, const char *key, const char *name,
		     int threads, enum unit unit, double best, double median);

/* The row of table with that key (printf's fmt) and threads (-1: any), or NULL. */
const struct row *rows_get(const struct rows *r, const char *table, int threads, const char *fmt,
			   ...) __attribute__((format(printf, 4, 5)));
/* A row's median, NAN where there is no row. */
double row_median(const struct row *x);
/* Its name after its setup's or allocator's "...: " (rows_prefix()). */
const char *row_what(const struct row *x);

/* a / b as a row of table (NAN where either is missing or b's is not above
 * 0): the ratio of medians, of bests, and where both have runs' quartiles
 * their spread. plus (NULL: none) is a cost kept in both, such as the
 * empty loop or the work that waits on an answer. */
struct row *rows_ratio(struct rows *out, const char *table, const char *key, const char *name,
		       const struct row *a, const struct row *b, const struct row *plus);

/* A copy of x in table under another key and name (x NULL: none). */
struct row *rows_copy(struct rows *out, const struct row *x, const char *table, const char *key,
		      const char *name);

/* The rows from from on, their keys as prefix.key and names as "name: ..." */
void rows_prefix(struct rows *r, int from, const char *prefix, const char *name);

/* The rows of processes processes of one workload (in), each row folded
 * over them into out: best the least, median the median, worst the
 * greatest median. One process's rows are copied whole. */
void rows_fold(const struct rows *in, int processes, struct rows *out);

/*
 * An aim: a figure of one row, its median at most most. Where a is NULL the
 * row is table's with that key, made by a workload; else it is the row of
 * table "aims" with that key and name, a / b of table's rows with those
 * keys (plus: a cost kept in both, NULL: none), which rows_aims() makes.
 */
struct aim {
	const char *table, *key;
	double most;
	const char *name, *a, *b, *plus;
};

/* Adds the row of each of the n aims with a whose rows are in r, where it
 * has none yet: each aim made by the first process that has both its
 * figures (a workload's own, folded over processes like its other rows). */
void rows_aims(struct rows *r, const struct aim *aims, int n);
/* An aim's row in r, or NULL. */
const struct row *rows_aim(const struct rows *r, const struct aim *aim);

/* Sorts v (n figures, none NAN), least first. */
void rows_sort(double *v, int n);

void rows_free(struct rows *r);

#endif /* FASTCPU_BENCH_ROWS_H */
