/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report.c: the rows for machines (CSV, JSON) and the cells of their views for people. */

#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Decimals of a unit's figures. */
static const int decimals[] = { [UNIT_NS] = 3, [UNIT_CYCLES] = 2, [UNIT_RATIO] = 3,
				[UNIT_BYTES] = 1, [UNIT_COUNT] = 0, [UNIT_SECONDS] = 3, [UNIT_ID] = 0 };

/* ---- for machines ------------------------------------------------------- */

/* A figure, or where there is none, empty (CSV) or null (JSON). */
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
		int places = decimals[x->unit];

		fprintf(out, "%s,%s,\"%s\",%d", x->table, x->key, x->name, x->threads);
		figure(out, ",", x->best, places, "");
		figure(out, ",", x->median, places, "");
		figure(out, ",", x->worst, places, "");
		fprintf(out, ",%d,%s\n", x->processes, unit_names[x->unit]);
	}
}

void report_json(const struct report_machine *m, const struct rows *r,
		 const struct aim *aims, int naims, FILE *out)
{
	fprintf(out, "{\n  \"machine\": {\"cpu\": \"%s\", \"cpus\": %d, \"kernel\": \"%s\", "
		"\"libc\": \"%s\", \"glibc_rseq_size\": %d, \"rseq_feature_size\": %d, "
		"\"rdpid\": %s, \"vdso_getcpu\": %s, \"backend\": \"%s\"},\n  \"rows\": [",
		m->cpu_model, m->cpus, m->kernel, m->libc, m->glibc_rseq_size,
		m->rseq_feature_size, m->rdpid ? "true" : "false", m->vdso_getcpu ? "true" : "false",
		m->backend);
	for (const struct row *x = r->at; x < r->at + r->count; x++) {
		int places = decimals[x->unit];

		fprintf(out, "%s\n    {\"table\": \"%s\", \"key\": \"%s\", \"case\": \"%s\", "
			"\"threads\": %d, \"unit\": \"%s\"", x == r->at ? "" : ",", x->table, x->key,
			x->name, x->threads, unit_names[x->unit]);
		figure(out, ", \"best\": ", x->best, places, "null");
		figure(out, ", \"median\": ", x->median, places, "null");
		figure(out, ", \"worst\": ", x->worst, places, "null");
		figure(out, ", \"low\": ", x->low, places, "null");
		figure(out, ", \"high\": ", x->high, places, "null");
		fprintf(out, ", \"processes\": %d}", x->processes);
	}
	fprintf(out, "\n  ],\n  \"aims\": [");
	for (int i = 0; i < naims; i++) {
		const struct row *x = rows_aim(r, &aims[i]);

		fprintf(out, "%s\n    {\"table\": \"%s\", \"key\": \"%s\", \"what\": \"%s\"",
			i ? "," : "", aims[i].table, aims[i].key, x ? x->name : aims[i].key);
		figure(out, ", \"ratio\": ", row_median(x), 4, "null");
		fprintf(out, ", \"limit\": %.2f, \"missed\": %s}", aims[i].most,
			row_median(x) > aims[i].most ? "true" : "false");
	}
	fprintf(out, "\n  ]\n}\n");
}

/* ---- for people --------------------------------------------------------- */

#define CELL 9		/* a cell's width */

static void number(FILE *out, int width, double v)
{
	if (isnan(v))
		fprintf(out, " %*s", width, REPORT_ABSENT);
	else
		fprintf(out, " %*.2f", width, v);
}

/* A ratio "1.23x" (the x within width), with a verdict where most > 0. */
static void ratio(FILE *out, int width, double v, double most)
{
	if (isnan(v))
		fprintf(out, " %*s", width, REPORT_ABSENT);
	else
		fprintf(out, " %*.2fx", width - 1, v);
	if (most > 0)
		fputc(!isnan(v) && v > most ? REPORT_MISSED : ' ', out);
}

static void figure_of(FILE *out, int width, const struct row *x, double v, double most)
{
	if (x != NULL && x->unit == UNIT_RATIO)
		ratio(out, width, v, most);
	else
		number(out, width, v);
}

static bool threads_are(const struct report_machine *m, int want, const struct row *x)
{
	return want == -1 || x->threads == (want == VIEW_CROWD ? 2 * m->cpus : want);
}

/* The part of a key before its '.' (all of it where it has none). */
static int line_of(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot ? (int)(dot - key) : (int)strlen(key);
}

static const struct row *cell_row(const struct rows *r, const struct view *v,
				  const struct report_machine *m, const struct row *line,
				  const struct view_column *c)
{
	for (const struct row *x = r->at; x < r->at + r->count; x++)
		if (threads_are(m, c->threads, x) && strcmp(x->table, v->table) == 0 &&
		    strncmp(x->key, line->key, (size_t)line_of(line->key)) == 0 &&
		    (c->key ? x->key[line_of(line->key)] == '.' &&
		     strcmp(x->key + line_of(line->key) + 1, c->key) == 0 :
		     x->key[line_of(line->key)] == '\0'))
			return x;
	return NULL;
}

/* Whether x is the first row of its view's line, and that line has a row
 * in a column. */
static bool first_of_line(const struct rows *r, const struct view *v,
			  const struct report_machine *m, const struct row *x)
{
	bool any = false;

	if (strcmp(x->table, v->table) != 0 || (v->lines && strncmp(x->key, v->lines,
								     strlen(v->lines)) != 0))
		return false;
	for (const struct row *y = r->at; y < x; y++)
		if (strcmp(y->table, v->table) == 0 && line_of(y->key) == line_of(x->key) &&
		    strncmp(y->key, x->key, (size_t)line_of(x->key)) == 0)
			return false;
	for (const struct view_column *c = v->columns; c->head && !any; c++)
		any = cell_row(r, v, m, x, c) != NULL;
	return any;
}

/* A line's name: its rows' "NAME: ", or the row's whole name. */
static int label_of(const struct row *x)
{
	const char *colon = strchr(x->key, '.') ? strstr(x->name, ": ") : NULL;

	return colon ? (int)(colon - x->name) : (int)strlen(x->name);
}

/* A cell of a grid; false where the line ends there. */
static bool cell(FILE *out, const struct view *v, const struct row *x)
{
	if (v->spread) {
		figure_of(out, 6, x, x ? x->best : NAN, 0);
		figure_of(out, 6, x, row_median(x), 0);
		figure_of(out, 6, x, x ? x->worst : NAN, 0);
		fputs("  ", out);
	} else if (x != NULL && x->unit == UNIT_ID) {
		if (isnan(x->median)) {
			fprintf(out, " %s: %s", REPORT_ABSENT, row_what(x));
			return false;
		}
		fprintf(out, " %-15s", row_what(x));
	} else {
		figure_of(out, CELL, x, row_median(x), v->most);
	}
	return true;
}

/* A grid's columns by threads: each count of threads above 0 its rows have. */
static void by_threads(const struct rows *r, struct view *v, struct view_column *c, int most,
		       char (*head)[16])
{
	int n = 0;

	for (const struct row *x = r->at; x < r->at + r->count && n < most; x++) {
		bool seen = x->threads <= 0 || strcmp(x->table, v->table) != 0;

		for (int k = 0; k < n && !seen; k++)
			seen = c[k].threads == x->threads;
		if (!seen) {
			snprintf(head[n], sizeof(head[n]), "%d thr", x->threads);
			c[n] = (struct view_column){ NULL, head[n], x->threads };
			n++;
		}
	}
	c[n].head = NULL;
	v->columns = c;
}

static void grid(FILE *out, const struct report_machine *m, const struct rows *r,
		 const struct view *given)
{
	const struct row **line = calloc((size_t)r->count + 1, sizeof(*line));
	struct view_column columns[33];
	char heads[32][16];
	struct view copy = *given, *v = &copy;
	int n = 0, width = (int)strlen(v->head);

	if (line == NULL)
		abort();
	if (v->by_threads)
		by_threads(r, v, columns, 32, heads);
	for (const struct row *x = r->at; x < r->at + r->count; x++)
		if (first_of_line(r, v, m, x)) {
			line[n++] = x;
			width = label_of(x) > width ? label_of(x) : width;
		}
	fprintf(out, "%-*s%s", width, v->head, v->spread ? "   ran" : "");
	for (const struct view_column *c = v->columns; c->head; c++) {
		const struct row *x = n ? cell_row(r, v, m, line[0], c) : NULL;

		if (v->spread)
			fprintf(out, " %20s  ", c->head);
		else if (x && x->unit == UNIT_ID)
			fprintf(out, " %-15s", c->head);
		else
			fprintf(out, " %*s%s", CELL, c->head, v->most > 0 ? " " : "");
	}
	for (int i = 0; i < n; i++) {
		const struct row *first = cell_row(r, v, m, line[i], v->columns);

		fprintf(out, "\n%-*.*s", width, label_of(line[i]), line[i]->name);
		if (v->spread)
			fprintf(out, " %5d", first ? first->processes : 0);
		for (const struct view_column *c = v->columns; c->head; c++)
			if (!cell(out, v, cell_row(r, v, m, line[i], c)))
				break;
		if (v->spread && first)
			fprintf(out, " %d over 1.30x the median", first->over);
	}
	fputc('\n', out);
	free(line);
}

static bool listed(const struct report_machine *m, const struct view *v, const struct row *x)
{
	return strcmp(x->table, v->table) == 0 && threads_are(m, v->threads, x) &&
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
	fprintf(out, "%-*s %*s %*s%s%s%s\n", width, "", CELL, "best", CELL, "median",
		m->cycles ? "  best cyc    median" : "", ref ? "  median / " : "", ref ? ref->name : "");
	for (const struct row *x = r->at; x < r->at + r->count; x++) {
		const struct row *cycles = rows_get(r, "cycles", x->threads, "%s.%s", v->table, x->key);

		if (!listed(m, v, x))
			continue;
		first = first ? first : x;
		fprintf(out, "%-*s", width, x->name);
		figure_of(out, CELL, x, x->best, 0);
		figure_of(out, CELL, x, x->median, 0);
		if (cycles) {
			number(out, CELL, cycles->best);
			number(out, CELL, cycles->median);
		}
		if (ref && x != first)	/* the first: the loop or the work alone */
			ratio(out, CELL, ref->median > 0 ? x->median / ref->median : NAN, 0);
		fputc('\n', out);
	}
}

/* Where an aim's line puts its figure: past the longest "what". */
#define AIM_WHAT_WIDTH 58

void report_aim_text(FILE *out, const char *what, const char *measured, const char *aim)
{
	fprintf(out, "  %-*s%s aim <= %s\n", AIM_WHAT_WIDTH, what, measured, aim);
}

static void aims_block(FILE *out, const struct rows *r, const struct aim *aims, int naims)
{
	fprintf(out, "\nThe aims, measured here: ratio of medians (\"%c\" where missed), its spread\n"
		"(the runs' quartiles in one process; best to worst over processes), ratio of\n"
		"bests, and the aim\n", REPORT_MISSED);
	for (int i = 0; i < naims; i++) {
		const struct row *x = rows_aim(r, &aims[i]);
		char spread[32] = "(no spread)", best[16] = "best   n/a";

		if (x && !isnan(x->low))
			snprintf(spread, sizeof(spread), "(%.2f-%.2fx)", x->low, x->high);
		else if (x && x->processes > 1)
			snprintf(spread, sizeof(spread), "(%.2f-%.2fx)", x->best, x->worst);
		if (x && !isnan(x->best) && x->processes == 1)
			snprintf(best, sizeof(best), "best %4.2fx", x->best);
		fprintf(out, "  %-*s", AIM_WHAT_WIDTH, x ? x->name : aims[i].key);
		ratio(out, 6, row_median(x), aims[i].most);
		if (x)
			fprintf(out, " %-12s  %s ", spread, best);
		fprintf(out, " aim <= %.2fx\n", aims[i].most);
	}
}

void report_text(const struct report_machine *m, const char *program, const struct rows *r,
		 const struct view *views, int nviews, const struct aim *aims, int naims, FILE *out)
{
	fprintf(out, "%s: %s, %d CPUs; %s; %s (rseq %s)\n", program, m->cpu_model, m->cpus,
		m->kernel, m->libc, m->glibc_rseq_size > 0 ? "registered by glibc" :
		m->glibc_rseq_size == 0 ? "left to libfastcpu" : "unknown to glibc");
	fprintf(out, "this machine has: rseq %s, RDPID %s, vDSO getcpu %s; this process: %s\n",
		!m->rseq ? "no (not usable in this process)" :
		m->rseq_feature_size > 0 ? "yes" : "yes (feature size not advertised: Linux < 6.3)",
		m->rdpid ? "yes" : "no", m->vdso_getcpu ? "yes" : "no", m->backend);
	fprintf(out, "%d runs of %lu operations a case, interleaved, on CPU %d: best and median, the "
		"empty loop subtracted%s; %d rounds, %d processes a setup%s\n", m->runs, m->iters,
		m->pinned, m->cycles ? "" : "; cycles: not exposed on this machine", m->rounds,
		m->processes, m->processes < 20 ? " (fewer than 20: a short run)" : "");
	for (const struct view *v = views; v < views + nviews; v++) {
		fprintf(out, "\n%s\n", v->title);
		if (v->columns || v->by_threads)
			grid(out, m, r, v);
		else
			list(out, m, r, v);
	}
	aims_block(out, r, aims, naims);
}
