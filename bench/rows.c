/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/rows.c: every measurement a row with a key, whatever measured it and wherever. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rows.h"

const char *const unit_names[] = { "ns", "ratio", "bytes", "count", "s", "id" };

/* The rows never move: a row found stays where it is while more are added.
 * Mapped, not allocated: a preloaded malloc under test keeps the heap it
 * would have without the benchmark's bookkeeping (pages touched as used). */
struct row *rows_append(struct rows *r, const struct row *x)
{
	if (r->at == NULL && (r->at = mmap(NULL, ROWS_MOST * sizeof(*r->at), PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		abort();
	if (r->count == ROWS_MOST)
		abort();
	r->at[r->count] = *x;
	return &r->at[r->count++];
}

struct row *rows_add(struct rows *r, const char *table, const char *key, const char *name,
		     int threads, enum unit unit, double best, double median)
{
	struct row x = { .threads = threads, .unit = unit, .best = best, .median = median,
			 .worst = NAN, .low = NAN, .high = NAN, .processes = 1 };

	snprintf(x.table, sizeof(x.table), "%s", table);
	snprintf(x.key, sizeof(x.key), "%s", key);
	snprintf(x.name, sizeof(x.name), "%s", name);
	return rows_append(r, &x);
}

static const struct row *find(const struct rows *r, const char *table, const char *key,
			      int threads)
{
	for (int i = 0; i < r->count; i++)
		if ((threads < 0 || r->at[i].threads == threads) && strcmp(r->at[i].key, key) == 0 &&
		    strcmp(r->at[i].table, table) == 0)
			return &r->at[i];
	return NULL;
}

const struct row *rows_get(const struct rows *r, const char *table, int threads, const char *fmt,
			   ...)
{
	char key[ROW_KEY];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	return find(r, table, key, threads);
}

double row_median(const struct row *x)
{
	return x ? x->median : NAN;
}

const char *row_what(const struct row *x)
{
	const char *colon = strstr(x->name, ": ");

	return colon ? colon + 2 : x->name;
}

struct row *rows_ratio(struct rows *out, const char *table, const char *key, const char *name,
		       const struct row *a, const struct row *b, const struct row *plus)
{
	double e = plus ? plus->median : 0, e_best = plus ? plus->best : 0;
	struct row *t = rows_add(out, table, key, name, a ? a->threads : 0, UNIT_RATIO, NAN, NAN);

	if (a == NULL || b == NULL || !(b->median + e > 0))
		return t;
	t->best = (a->best + e_best) / (b->best + e_best);
	t->median = (a->median + e) / (b->median + e);
	if (b->low + e > 0 && b->high + e > 0) {	/* false where NAN */
		t->low = (a->low + e) / (b->high + e);
		t->high = (a->high + e) / (b->low + e);
	}
	return t;
}

void rows_prefix(struct rows *r, int from, const char *prefix, const char *name)
{
	for (int i = from; i < r->count; i++) {
		struct row *x = &r->at[i];
		char key[2 * sizeof(x->key)], what[2 * sizeof(x->name)];

		snprintf(key, sizeof(key), "%s.%s", prefix, x->key);
		snprintf(what, sizeof(what), "%s: %s", name, x->name);
		snprintf(x->key, sizeof(x->key), "%.*s", (int)sizeof(x->key) - 1, key);
		snprintf(x->name, sizeof(x->name), "%.*s", (int)sizeof(x->name) - 1, what);
	}
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void rows_sort(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare_doubles);
}

/* The figures of the rows of in like x, NAN passed by, sorted; how many. */
static int gather(const struct rows *in, const struct row *x, double *best, double *median)
{
	int n = 0;

	for (const struct row *k = x; k < in->at + in->count; k++)
		if (k->threads == x->threads && !isnan(k->median) && strcmp(k->key, x->key) == 0 &&
		    strcmp(k->table, x->table) == 0) {
			best[n] = k->best;
			median[n++] = k->median;
		}
	rows_sort(best, n);
	rows_sort(median, n);
	return n;
}

void rows_fold(const struct rows *in, int processes, struct rows *out)
{
	double *best = calloc((size_t)in->count + 1, sizeof(double));
	double *median = calloc((size_t)in->count + 1, sizeof(double));

	if (best == NULL || median == NULL)
		abort();
	for (int i = 0; i < in->count; i++) {
		const struct row *x = &in->at[i];
		struct row *t;
		int n;

		if (processes == 1) {
			rows_append(out, x);
			continue;
		}
		if (find(in, x->table, x->key, x->threads) != x)
			continue;	/* folded with the first */
		n = gather(in, x, best, median);
		t = rows_append(out, x);
		t->low = t->high = NAN;
		t->processes = n;
		t->over = 0;
		if (n == 0)
			continue;
		t->best = best[0];
		t->median = median[n / 2];
		t->worst = median[n - 1];
		t->low = median[0];
		t->high = median[n - 1];
		for (int k = 0; k < n; k++)
			t->over += median[k] > 1.30 * t->median;
	}
	free(best);
	free(median);
}

const struct row *rows_aim(const struct rows *r, const struct aim *aim)
{
	return rows_get(r, aim->a ? "aims" : aim->table, -1, "%s", aim->key);
}

void rows_aims(struct rows *r, const struct aim *aims, int n)
{
	for (const struct aim *x = aims; x < aims + n; x++) {
		const struct row *a, *b;

		if (x->a == NULL || rows_aim(r, x) != NULL)
			continue;
		a = rows_get(r, x->table, -1, "%s", x->a);
		b = x->b ? rows_get(r, x->table, -1, "%s", x->b) : NULL;
		if (a != NULL && x->b == NULL && a->processes > 1) {	/* the worst / the median */
			struct row *t = rows_add(r, "aims", x->key, x->name, 0, UNIT_RATIO, NAN,
						 a->worst / a->median);

			t->worst = t->median;
			t->processes = a->processes;
		} else if (a != NULL && b != NULL) {
			rows_ratio(r, "aims", x->key, x->name, a, b,
				   x->plus ? rows_get(r, x->table, -1, "%s", x->plus) : NULL);
		}
	}
}

void rows_free(struct rows *r)
{
	if (r->at != NULL)
		munmap(r->at, ROWS_MOST * sizeof(*r->at));
	*r = (struct rows){ 0 };
}
