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
/* After a ratio that misses its aim; where an aim's line puts its figure. */
#define REPORT_MISSED '!'
#define REPORT_AIM_WIDTH 58

/* The machine the rows were measured on, and how. */
struct report_machine {
	char cpu_model[128], kernel[160], libc[64], backend[32];
	int glibc_rseq_size;	/* -1: glibc has no rseq support */
	int rseq_feature_size;	/* the kernel's AT_RSEQ_FEATURE_SIZE; 0 before 6.3 */
	bool rseq, rdpid, vdso_getcpu;	/* what the machine offers */
	int cpus, pinned, runs, rounds, processes;
	unsigned long iters;
};
/* Where other processes took more of the CPUs' time while a program
 * measured (its row run.others_cpu_share), the report says the machine was
 * not quiet. */
#define REPORT_QUIET_MOST 0.05

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
 * A table for people of table's rows, its title first. A list (no columns):
 * each row with threads (as a column's) whose key begins with lines (NULL:
 * any), best, median and, past the first (the loop, the work alone), the
 * ratio to ref's. A grid: a line for each LINE (a key's part before '.')
 * beginning with lines with a row in a column, named its rows' "NAME: ";
 * a cell a number, a ratio (a verdict where most > 0), or what a UNIT_ID
 * row says (REPORT_ABSENT and that, ending the line, where NAN); spread:
 * best, median and worst over processes, after how many ran.
 */
struct view {
	const char *title, *table, *lines, *ref, *head;
	const struct view_column *columns;	/* NULL: a list; else ends where head is NULL */
	int threads;
	bool by_threads;	/* columns: LINE with each count of threads above 0 */
	double most;
	bool spread;
};

/* The machine's lines, then the views, then the aims block: each aim's row
 * (its name, or its key where not measured), its verdict, spread and best. */
void report_text(const struct report_machine *m, const char *program, const struct rows *r,
		 const struct view *views, int nviews, const struct aim *aims, int naims, FILE *out);


#endif /* FASTCPU_BENCH_REPORT_H */
