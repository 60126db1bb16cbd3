/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/table.h: the cells, aims and CSV rows both benchmarks print. */

#ifndef FASTCPU_BENCH_TABLE_H
#define FASTCPU_BENCH_TABLE_H

#include <stdio.h>

/* What a cell shows where nothing was measured (-1 in the numbers). */
#define TABLE_ABSENT "n/a"
/* After a ratio that misses its aim. */
#define TABLE_MISSED '!'

/* Each cell: a space, then width characters, right-aligned. */
void table_number(FILE *out, int width, double v);
void table_absent(FILE *out, int width);
/* table_number(), or table_absent() where v < 0 (not run). */
void table_measured(FILE *out, int width, double v);
/* "1.23x" (the x within width), whatever the sign. */
void table_ratio(FILE *out, int width, double v);
/* A ratio against its aim: absent where v < 0, else the ratio and a
 * character more, TABLE_MISSED where v > most. */
void table_verdict(FILE *out, int width, double v, double most);
/* "best/median", best right-aligned, median left-aligned. */
void table_best_median(FILE *out, double best, double median);

/* An aim's line: what it compares, then measured (text of its own) or
 * the ratio v as table_verdict() shows it, detail (may be ""), the aim. */
void table_aim(FILE *out, const char *what, double v, const char *detail, double most);
void table_aim_text(FILE *out, const char *what, const char *measured, const char *aim);

/* A CSV row: fields (printf's fmt, commas between), then a and b with
 * as many decimals as their unit has. */
enum table_decimals { TABLE_WHOLE = 0, TABLE_BYTES = 1, TABLE_NS = 3 };
void table_csv(FILE *out, enum table_decimals decimals, double a, double b, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif /* FASTCPU_BENCH_TABLE_H */
