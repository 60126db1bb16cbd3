/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/table.c: the cells, aims and CSV rows both benchmarks print. */

#include <stdarg.h>

#include "table.h"

/* Where an aim's line puts its figure: past the longest "what". */
#define AIM_WHAT_WIDTH 58

void table_number(FILE *out, int width, double v)
{
	fprintf(out, " %*.2f", width, v);
}

void table_absent(FILE *out, int width)
{
	fprintf(out, " %*s", width, TABLE_ABSENT);
}

void table_measured(FILE *out, int width, double v)
{
	if (v < 0)
		table_absent(out, width);
	else
		table_number(out, width, v);
}

void table_ratio(FILE *out, int width, double v)
{
	fprintf(out, " %*.2fx", width - 1, v);
}

void table_verdict(FILE *out, int width, double v, double most)
{
	if (v < 0) {
		table_absent(out, width + 1);
		return;
	}
	table_ratio(out, width, v);
	fputc(v > most ? TABLE_MISSED : ' ', out);
}

void table_best_median(FILE *out, double best, double median)
{
	fprintf(out, " %8.2f/%-8.2f", best, median);
}

static void aim_what(FILE *out, const char *what)
{
	fprintf(out, "  %-*s", AIM_WHAT_WIDTH, what);
}

static void aim_end(FILE *out, const char *aim)
{
	fprintf(out, " aim <= %s\n", aim);
}

void table_aim_text(FILE *out, const char *what, const char *measured, const char *aim)
{
	aim_what(out, what);
	fputs(measured, out);
	aim_end(out, aim);
}

void table_aim(FILE *out, const char *what, double v, const char *detail, double most)
{
	char aim[32];

	aim_what(out, what);
	table_verdict(out, 6, v, most);
	if (v >= 0 && *detail != '\0')
		fprintf(out, " %s ", detail);
	snprintf(aim, sizeof(aim), "%.2fx", most);
	aim_end(out, aim);
}

void table_csv(FILE *out, enum table_decimals decimals, double a, double b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fprintf(out, ",%.*f,%.*f\n", decimals, a, decimals, b);
}
