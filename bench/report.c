/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report.c: the rows for machines (CSV, JSON) and for people (views of them). */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Decimals of a unit's figures. */
static const int decimals[] = { [UNIT_NS] = 3, [UNIT_RATIO] = 3, [UNIT_BYTES] = 1,
				[UNIT_COUNT] = 0, [UNIT_SECONDS] = 3, [UNIT_ID] = 0 };

/* ---- for machines ------------------------------------------------------- */

/* A figure, or where there is none, none: empty (CSV) or null (JSON). */
static void figure(FILE *out, const char *before, double v, int places, const char *none)
{
	if (isnan(v))
		fprintf(out, "%s%s", before, none);
	else
		fprintf(out, "%s%.*f", before, places, v);
}

/* The case names are quoted: they hold commas. */
void report_csv(const struct rows *r, FILE *out)
{
	fputs("table,key,case,threads,best,median,worst,processes,unit\n", out);
	for (const struct row *x = r->at; x < r->at + r->count; x++) {
		fprintf(out, "%s,%s,\"%s\",%d", x->table, x->key, x->name, x->threads);
		figure(out, ",", x->best, decimals[x->unit], "");
		figure(out, ",", x->median, decimals[x->unit], "");
		figure(out, ",", x->worst, decimals[x->unit], "");
		fprintf(out, ",%d,%s\n", x->processes, unit_names[x->unit]);
	}
}

/* An aim's words: its own, else its row's, else its key (not measured). */
static const char *aim_name(const struct aim *aim, const struct row *x)
{
	return aim->name ? aim->name : x ? x->name : aim->key;
}

void report_json(const struct report_machine *m, const struct rows *r, const struct aim *aims,
		 int naims, FILE *out)
{
	fprintf(out, "{\n  \"machine\": {\"cpu\": \"%s\", \"cpus\": %d, \"kernel\": \"%s\", "
		"\"libc\": \"%s\", \"glibc_rseq_size\": %d, \"rseq_feature_size\": %d, "
		"\"rdpid\": %s, \"vdso_getcpu\": %s, \"backend\": \"%s\"},\n  \"rows\": [",
		m->cpu_model, m->cpus, m->kernel, m->libc, m->glibc_rseq_size, m->rseq_feature_size,
		m->rdpid ? "true" : "false", m->vdso_getcpu ? "true" : "false", m->backend);
	for (const struct row *x = r->at; x < r->at + r->count; x++) {
		fprintf(out, "%s\n    {\"table\": \"%s\", \"key\": \"%s\", \"case\": \"%s\", "
			"\"threads\": %d, \"unit\": \"%s\"", x == r->at ? "" : ",", x->table, x->key,
			x->name, x->threads, unit_names[x->unit]);
		figure(out, ", \"best\": ", x->best, decimals[x->unit], "null");
		figure(out, ", \"median\": ", x->median, decimals[x->unit], "null");
		figure(out, ", \"worst\": ", x->worst, decimals[x->unit], "null");
		fprintf(out, ", \"processes\": %d}", x->processes);
	}
	fprintf(out, "\n  ],\n  \"aims\": [");
	for (int i = 0; i < naims; i++) {
		const struct row *x = rows_aim(r, &aims[i]);

		fprintf(out, "%s\n    {\"table\": \"%s\", \"key\": \"%s\", \"what\": \"%s\"", i ? "," : "",
			aims[i].table, aims[i].key, aim_name(&aims[i], x));
		figure(out, ", \"ratio\": ", row_median(x), 4, "null");
		fprintf(out, ", \"limit\": %.2f, \"missed\": %s}", aims[i].most,
			row_median(x) > aims[i].most ? "true" : "false");
	}
	fprintf(out, "\n  ]\n}\n");
}

/* ---- for people --------------------------------------------------------- */

#define CELL 9		/* a cell's width */

/* Missed, as printed: a figure that reads 1.00x meets an aim of 1.00x. */
static bool missed(double v, double most)
{
	return !isnan(v) && v >= most + 0.005;
}

/* A figure in width: a number, or where x is a ratio "1.23x" (the x within
 * width) and a verdict where most > 0; REPORT_ABSENT where NAN. */
static void cell_of(FILE *out, int width, const struct row *x, double v, double most)
{
	bool ratio = x != NULL && x->unit == UNIT_RATIO;

	if (isnan(v))
		fprintf(out, " %*s", width, REPORT_ABSENT);
	else
		fprintf(out, ratio ? " %*.2fx" : " %*.2f", ratio ? width - 1 : width, v);
	if (ratio && most > 0)
		fputc(missed(v, most) ? REPORT_MISSED : ' ', out);
}

static int threads_of(const struct report_machine *m, int threads)
{
	return threads == VIEW_CROWD ? 2 * m->cpus : threads;
}

/* The length of a key's LINE, its part before '.' (all of it without); of
 * a line's name, its rows' "NAME: " (a row's whole name without). */
static int line_of(const char *key)
{
	return strchr(key, '.') ? (int)(strchr(key, '.') - key) : (int)strlen(key);
}

static int label_of(const struct row *x)
{
	const char *colon = strchr(x->key, '.') ? strstr(x->name, ": ") : NULL;

	return colon ? (int)(colon - x->name) : (int)strlen(x->name);
}

static const struct row *cell_row(const struct rows *r, const struct view *v,
				  const struct report_machine *m, const char *line,
				  const struct view_column *c)
{
	return rows_get(r, v->table, threads_of(m, c->threads), "%.*s%s%s", line_of(line), line,
			c->key ? "." : "", c->key ? c->key : "");
}

/* A cell of a grid; false where the line ends there. */
static bool cell(FILE *out, const struct view *v, const struct row *x)
{
	if (v->spread) {
		cell_of(out, 6, x, x ? x->best : NAN, 0);
		cell_of(out, 6, x, row_median(x), 0);
		cell_of(out, 6, x, x ? x->worst : NAN, 0);
		fputs("  ", out);
	} else if (x != NULL && x->unit == UNIT_ID) {
		fprintf(out, isnan(x->median) ? " " REPORT_ABSENT ": %s" : " %-15s", row_what(x));
		return !isnan(x->median);
	} else {
		cell_of(out, CELL, x, row_median(x), v->most);
	}
	return true;
}

/* A grid's columns: given, or by threads (each count above 0 its rows have). */
static int columns_of(const struct rows *r, const struct view *v, struct view_column *c,
		      char (*head)[16])
{
	int n = 0;

	for (const struct row *x = r->at; v->by_threads && x < r->at + r->count && n < 32; x++) {
		bool seen = x->threads <= 0 || strcmp(x->table, v->table) != 0;

		for (int k = 0; k < n && !seen; k++)
			seen = c[k].threads == x->threads;
		if (!seen) {
			snprintf(head[n], sizeof(head[n]), "%d thr", x->threads);
			c[n] = (struct view_column){ NULL, head[n], x->threads };
			n++;
		}
	}
	for (const struct view_column *k = v->columns; k && k->head && n < 32; k++)
		c[n++] = *k;
	return n;
}

static void grid(FILE *out, const struct report_machine *m, const struct rows *r,
		 const struct view *v)
{
	const struct row **line = calloc((size_t)r->count + 1, sizeof(*line));
	struct view_column c[32];
	char heads[32][16];
	int n = 0, width = (int)strlen(v->head), columns = columns_of(r, v, c, heads);

	if (line == NULL)
		abort();
	for (const struct row *x = r->at; x < r->at + r->count; x++) {	/* each LINE once */
		bool in = strcmp(x->table, v->table) == 0 &&
			  (v->lines == NULL || strncmp(x->key, v->lines, strlen(v->lines)) == 0);

		for (int k = 0; k < n && in; k++)
			in = line_of(line[k]->key) != line_of(x->key) ||
			     strncmp(line[k]->key, x->key, (size_t)line_of(x->key)) != 0;
		for (int k = 0; k < columns && in; k++)
			if (cell_row(r, v, m, x->key, &c[k])) {
				line[n++] = x;
				width = label_of(x) > width ? label_of(x) : width;
				break;
			}
	}
	fprintf(out, "%-*s%s", width, v->head, v->spread ? "   ran" : "");
	for (int k = 0; k < columns; k++) {
		const struct row *x = n ? cell_row(r, v, m, line[0]->key, &c[k]) : NULL;

		if (v->spread)
			fprintf(out, " %20s  ", c[k].head);
		else
			fprintf(out, x && x->unit == UNIT_ID ? " %-15s%s" : " %9s%s", c[k].head,
				x && x->unit != UNIT_ID && v->most > 0 ? " " : "");
	}
	for (int i = 0; i < n; i++) {
		const struct row *first = cell_row(r, v, m, line[i]->key, c);
		bool absent = v->spread && first && first->processes == 0;	/* "not here" */

		fprintf(out, "\n%-*.*s", width, label_of(line[i]), line[i]->name);
		if (v->spread)
			fprintf(out, " %5d%s", first ? first->processes : 0,
				absent ? " " REPORT_ABSENT ": not here" : "");
		for (int k = 0; k < columns && !absent &&
		     cell(out, v, cell_row(r, v, m, line[i]->key, &c[k])); k++)
			;
		if (v->spread && first && !absent)
			fprintf(out, " %d over 1.30x the median", first->over);
	}
	fputc('\n', out);
	free(line);
}

static bool listed(const struct report_machine *m, const struct view *v, const struct row *x)
{
	return strcmp(x->table, v->table) == 0 &&
	       (v->threads == VIEW_ANY || x->threads == threads_of(m, v->threads)) &&
	       (v->lines == NULL || strncmp(x->key, v->lines, strlen(v->lines)) == 0);
}

static void list(FILE *out, const struct report_machine *m, const struct rows *r,
		 const struct view *v)
{
	const struct row *ref = v->ref ? rows_get(r, v->table, v->threads, "%s", v->ref) : NULL;
	const struct row *first = NULL;
	int width = 36;

	for (const struct row *x = r->at; x < r->at + r->count; x++)
		if (listed(m, v, x) && (int)strlen(x->name) > width)
			width = (int)strlen(x->name);
	fprintf(out, "%-*s %*s %*s%s%s\n", width, "", CELL, "best", CELL, "median",
		ref ? "  median / " : "", ref ? ref->name : "");
	for (const struct row *x = r->at; x < r->at + r->count; x++) {
		if (!listed(m, v, x))
			continue;
		first = first ? first : x;
		fprintf(out, "%-*s", width, x->name);
		cell_of(out, CELL, x, x->best, 0);
		cell_of(out, CELL, x, x->median, 0);
		if (ref && x != first)	/* the first: the loop or the work alone */
			cell_of(out, CELL, &(struct row){ .unit = UNIT_RATIO },
				ref->median > 0 ? x->median / ref->median : NAN, 0);
		fputc('\n', out);
	}
}

void report_text(const struct report_machine *m, const char *program, const struct rows *r,
		 const struct view *views, int nviews, const struct aim *aims, int naims, FILE *out)
{
	double others = row_median(rows_get(r, "run", 0, "others_cpu_share"));
	int fewest = INT_MAX;	/* processes, of the rows over processes */

	fprintf(out, "%s: %s, %d CPUs; %s; %s (rseq %s)\n", program, m->cpu_model, m->cpus,
		m->kernel, m->libc, m->glibc_rseq_size > 0 ? "registered by glibc" :
		m->glibc_rseq_size == 0 ? "left to libfastcpu" : "unknown to glibc");
	fprintf(out, "this machine has: rseq %s, RDPID %s, vDSO getcpu %s; this process: %s\n",
		!m->rseq ? "no (not usable in this process)" :
		m->rseq_feature_size > 0 ? "yes" : "yes (feature size not advertised: Linux < 6.3)",
		m->rdpid ? "yes" : "no", m->vdso_getcpu ? "yes" : "no", m->backend);
	if (others > REPORT_QUIET_MOST)
		fprintf(out, "NOT QUIET: other processes took %.0f%% of the CPUs' time while this "
			"measured: a \"%c\" below may be their noise, not the library's\n",
			100 * others, REPORT_MISSED);
	else if (!isnan(others))
		fprintf(out, "quiet: other processes took %.0f%% of the CPUs' time while this "
			"measured\n", 100 * others);
	for (const struct row *x = r->at; x < r->at + r->count; x++)
		if (x->processes > 1)
			fewest = fewest < x->processes ? fewest : x->processes;
	fprintf(out, "%d runs of %lu operations a case, interleaved, on CPU %d: best and median, the "
		"empty loop subtracted; %d rounds", m->runs, m->iters, m->pinned, m->rounds);
	if (fewest < INT_MAX && fewest < m->processes)	/* the counter tree's take --rounds */
		fprintf(out, "; %d to", fewest);
	if (fewest < INT_MAX)
		fprintf(out, "%s%d processes a row over processes%s%s", fewest < m->processes ? " " : "; ",
			m->processes, fewest < m->processes ? " (its processes column)" : "",
			m->processes < 20 ? " (fewer than 20: a short run)" : "");
	fputc('\n', out);
	for (const struct view *v = views; v < views + nviews; v++) {
		fprintf(out, "\n%s\n", v->title);
		if (v->columns || v->by_threads)
			grid(out, m, r, v);
		else
			list(out, m, r, v);
	}
	fprintf(out, "\nThe aims, measured here: ratio of medians (\"%c\" where missed), its spread\n"
		"(the runs' quartiles in one process; over processes, the least and the greatest\n"
		"process's), ratio of bests (one process), and the aim\n", REPORT_MISSED);
	for (int i = 0; i < naims; i++) {
		const struct row *x = rows_aim(r, &aims[i]);
		enum unit unit = x ? x->unit : UNIT_RATIO;	/* a figure of its own: ns, bytes */
		const char *times = unit == UNIT_RATIO ? "x" : "";
		char spread[32] = "(no spread)", best[24] = "best   n/a";
		double v = row_median(x);

		if (x && !isnan(x->low))
			snprintf(spread, sizeof(spread), "(%.2f-%.2f%s)", x->low, x->high, times);
		if (x && !isnan(x->best) && x->processes == 1)
			snprintf(best, sizeof(best), "best %4.2f%s", x->best, times);

		fprintf(out, "  %-*s", REPORT_AIM_WIDTH, aim_name(&aims[i], x));
		if (unit == UNIT_RATIO)
			cell_of(out, 6, &(struct row){ .unit = UNIT_RATIO }, v, aims[i].most);
		else
			fprintf(out, " %6.2f%c", v, missed(v, aims[i].most) ? REPORT_MISSED : ' ');
		if (x)
			fprintf(out, " %-12s  %s ", spread, best);
		if (unit == UNIT_RATIO)
			fprintf(out, " aim <= %.2fx", aims[i].most);
		else
			fprintf(out, " aim <= %.2f %s", aims[i].most, unit_names[unit]);
		if (aims[i].floor)
			fprintf(out, "  (floor %.2f ns)",
				row_median(rows_get(r, aims[i].table, 0, "%s", aims[i].floor)));
		fputc('\n', out);
	}
}
