/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/rows.h: every measurement a row with a key, whatever measured it and wherever. */

#ifndef FASTCPU_BENCH_ROWS_H
#define FASTCPU_BENCH_ROWS_H

#include <math.h>

#define ROW_KEY 64

/* What a row's figures count; its name in the CSV's unit column. */
enum unit { UNIT_NS, UNIT_RATIO, UNIT_BYTES, UNIT_COUNT, UNIT_SECONDS, UNIT_ID };
extern const char *const unit_names[];

/*
 * A row: in its table, key names what it measures for machines ([a-z0-9_.],
 * unique with threads, kept when name's words change). best and median (NAN:
 * none) are of the runs of one process, low and high their quartiles; or
 * of processes, then low and high are the least and the greatest of their
 * medians, worst the greatest too, over how many took 1.30x the median.
 * Plain data: a process sends its rows whole to another.
 */
struct row {
	char table[24], key[ROW_KEY], name[112];
	int threads;		/* 0: one thread, pinned, or not a matter of threads */
	enum unit unit;
	double best, median, worst, low, high;
	int processes, over;
};

/* Rows in the order added, ROWS_MOST at most: a row stays where it is. */
#define ROWS_MOST 8192
struct rows {
	struct row *at;
	int count;
};

/* Adds a copy of x, or a row of one process (its worst and spread NAN). */
struct row *rows_append(struct rows *r, const struct row *x);
struct row *rows_add(struct rows *r, const char *table, const char *key, const char *name,
		     int threads, enum unit unit, double best, double median);

/* The row of table keyed fmt with threads (-1: any), or NULL. */
const struct row *rows_get(const struct rows *r, const char *table, int threads, const char *fmt,
			   ...) __attribute__((format(printf, 4, 5)));
/* A row's median (NAN: no row); its name after rows_prefix()'s "NAME: ". */
double row_median(const struct row *x);
const char *row_what(const struct row *x);

/* a / b as a row of table: ratio of medians, of bests, of quartiles (NAN
 * where either is missing or b's is not above 0); plus (NULL: none) a cost
 * kept in both (the empty loop, the work that waits on an answer). */
struct row *rows_ratio(struct rows *out, const char *table, const char *key, const char *name,
		       const struct row *a, const struct row *b, const struct row *plus);

/* The rows from from on: keys prefix.KEY, names "name: NAME". */
void rows_prefix(struct rows *r, int from, const char *prefix, const char *name);

/* The rows of processes processes of one workload (in), each folded over
 * them into out: the least best, the median and the greatest median (one
 * process's rows copied whole). */
void rows_fold(const struct rows *in, int processes, struct rows *out);

/*
 * An aim: one row's median, at most most: table's row key (a NULL), or
 * that of table "aims", a / b of table's rows (plus as rows_ratio()'s; b
 * NULL: a's worst over processes / its median), which rows_aims() adds
 * where r has them and not it: made by the first process with both
 * figures, folded over processes like the rest. name: its words (NULL:
 * its row's). floor (NULL: none): the key in table of the floor an aim
 * restated on one is measured against, whose figure the report gives
 * beside it.
 */
struct aim {
	const char *table, *key;
	double most;
	const char *name, *a, *b, *plus, *floor;
};
void rows_aims(struct rows *r, const struct aim *aims, int n);
const struct row *rows_aim(const struct rows *r, const struct aim *aim);

/* Sorts v (n figures, none NAN), least first. */
void rows_sort(double *v, int n);
void rows_free(struct rows *r);

#endif /* FASTCPU_BENCH_ROWS_H */
