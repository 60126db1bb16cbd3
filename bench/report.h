/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report.h: the rows for machines (CSV, JSON) and for people (views of them). */

#ifndef FASTCPU_BENCH_REPORT_H
#define FASTCPU_BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "rows.h"

/* What a cell shows where nothing was measured (NAN). */
#define REPORT_ABSENT "n/a"
/* After a ratio that misses its aim. */
#define REPORT_MISSED '!'

/* The machine the rows were measured on, and how. */
struct report_machine {
	char cpu_model[128], kernel[160], libc[64], backend[32];
	int glibc_rseq_size;	/* -1: glibc has no rseq support */
	int rseq_feature_size;	/* the kernel's AT_RSEQ_FEATURE_SIZE; 0 before 6.3 */
	bool rseq, rdpid, vdso_getcpu, cycles;	/* what the machine offers */
	int cpus, pinned, runs, rounds, processes;
	unsigned long iters;
};

/* Every row: CSV, its first line the columns; JSON, the machine, the rows
 * and the aims. */
void report_csv(const struct rows *r, FILE *out);
void report_json(const struct report_machine *m, const struct rows *r, const struct aim *aims,
		 int naims, FILE *out);

/* A column of a grid: the rows keyed LINE.key (LINE alone where key is
 * NULL) with threads (0: one thread, pinned; VIEW_ANY; VIEW_CROWD, twice
 * the CPUs), headed head. */
struct view_column {
	const char *key, *head;
	int threads;
};
#define VIEW_ANY (-1)
#define VIEW_CROWD (-2)

/*
 * A table for people, of the rows of table, its title first. A list (no
 * columns): each row with threads (as a column's) whose key begins with lines
 * (NULL: any), its name, best and median (and cycles where counted), and
 * where ref names a row, past the first (the loop or the work alone), its
 * median's ratio to that one's. A grid: a line
 * for each LINE (a key's part before '.') that begins with lines and has a
 * row in a column, named by its rows' "NAME: "; each cell a number, or a
 * ratio (a verdict where most > 0), or a row of unit UNIT_ID the name of
 * what it says (REPORT_ABSENT and that, the line's end, where it has no
 * figure); with spread, each cell best, median and worst over processes,
 * after how many processes ran and how many took over 1.30x the median.
 * Columns by_threads are LINE's rows with each count of threads above 0.
 */
struct view {
	const char *title, *table, *lines, *ref, *head;
	const struct view_column *columns;	/* NULL: a list; else ends where head is NULL */
	int threads;
	bool by_threads;	/* a grid's columns: LINE with each count of threads > 0 */
	double most;
	bool spread;
};

/* The machine's lines, then the views, then the aims block. */
void report_text(const struct report_machine *m, const char *program, const struct rows *r,
		 const struct view *views, int nviews, const struct aim *aims, int naims, FILE *out);

/* An aim's line with a measure of its own, not a ratio. */
void report_aim_text(FILE *out, const char *what, const char *measured, const char *aim);

#endif /* FASTCPU_BENCH_REPORT_H */
