/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report-json-csv.c: the tables' numbers, for machines. */

#include <stddef.h>

#include "report-aims.h"
#include "table.h"

/* What a setup row measured, by its JSON key, its CSV key and name (NULL:
 * in the JSON only), and what it needs to have been measured (the CSV
 * leaves out what was not). */
enum field_needs { ANY_ROW, GETCPU_ROW, COUNTER_ROW };
#define AT(field) offsetof(struct setup_result, field)
static const struct setup_field {
	const char *json, *key, *csv;
	size_t at;
	enum field_needs needs;
} setup_fields[] = {
	{ "sched_getcpu", "sched_getcpu", "libfastcpu sched_getcpu()", AT(sched), ANY_ROW },
	{ "plain_sched_getcpu", "plain_sched_getcpu", "plain sched_getcpu()", AT(plain_sched), ANY_ROW },
	{ "getcpu", "getcpu", "libfastcpu getcpu(&c, &n)", AT(getcpu), GETCPU_ROW },
	{ "plain_getcpu", "plain_getcpu", "plain getcpu(&c, &n)", AT(plain_getcpu), GETCPU_ROW },
	{ "getcpu_generic", "getcpu_generic", NULL, AT(generic), ANY_ROW },
	{ "syscall", "syscall", NULL, AT(syscall), ANY_ROW },
	{ "locked_add_alone", "locked_add_alone", "locked add alone", AT(add_alone), ANY_ROW },
	{ "locked_add: sched_getcpu", "locked_add_sched_getcpu", "libfastcpu sched_getcpu() + locked add", AT(sched_add),
	  ANY_ROW },
	{ "locked_add: plain_sched_getcpu", "locked_add_plain_sched_getcpu", "plain sched_getcpu() + locked add",
	  AT(plain_sched_add), ANY_ROW },
	{ "locked_add: getcpu", "locked_add_getcpu", "libfastcpu getcpu(&c, &n) + locked add", AT(getcpu_add),
	  GETCPU_ROW },
	{ "locked_add: plain_getcpu", "locked_add_plain_getcpu", "plain getcpu(&c, &n) + locked add", AT(plain_getcpu_add),
	  GETCPU_ROW },
	{ "counter_add", "counter_add", "fastcpu_counter_add()", AT(counter), COUNTER_ROW },
	{ "own_shard_atomic", "own_shard_atomic", "atomic add on own shard", AT(shard), COUNTER_ROW },
	{ "objcache_pair", "objcache_pair", "objcache alloc+free", AT(objcache_pair), COUNTER_ROW },
	{ "malloc_pair", "malloc_pair", "malloc+free", AT(malloc_pair), COUNTER_ROW },
	{ "miss", "miss", NULL, AT(miss), ANY_ROW },
	{ "hit", "hit", NULL, AT(hit), ANY_ROW },
};
#define SETUP_FIELDS (sizeof(setup_fields) / sizeof(setup_fields[0]))

static const struct bench_result *field_of(const struct setup_result *s, size_t k)
{
	return (const struct bench_result *)(const void *)((const char *)s + setup_fields[k].at);
}

static bool field_measured(const struct setup_result *s, size_t k)
{
	return s->served[0] != '\0' &&
	       (setup_fields[k].needs == ANY_ROW ||
		(setup_fields[k].needs == GETCPU_ROW && s->has_getcpu) ||
		(setup_fields[k].needs == COUNTER_ROW && s->has_counter));
}

/* ---- JSON ----------------------------------------------------------------- */

/* A case's numbers as an object, with key where it is not NULL. */
static void json_values(FILE *out, const char *key, const struct bench_result *b)
{
	fputc('{', out);
	if (key != NULL)
		fprintf(out, "\"key\": \"%s\", ", key);
	fprintf(out, "\"best_ns\": %.3f, \"median_ns\": %.3f", b->best_ns, b->median_ns);
	if (b->best_cycles >= 0)
		fprintf(out, ", \"best_cycles\": %.2f, \"median_cycles\": %.2f",
			b->best_cycles, b->median_cycles);
	fputc('}', out);
}

static void json_result(FILE *out, const char *name, const struct bench_result *b)
{
	fprintf(out, "\"%s\": ", name);
	json_values(out, b->key, b);
}

/* A ratio, or null where it could not be measured. */
static void json_ratio(FILE *out, const char *key, double value)
{
	if (value < 0)
		fprintf(out, ", \"%s\": null", key);
	else
		fprintf(out, ", \"%s\": %.4f", key, value);
}

/* The cases of a table keyed by id that ran, from id from on, by name;
 * returns how many. */
static int json_cases(FILE *out, const struct bench_result *table, int from, int n)
{
	int shown = 0;

	for (int i = from; i < n; i++)
		if (bench_ran(&table[i])) {
			fprintf(out, "%s\n    ", shown++ ? "," : "");
			json_result(out, table[i].name, &table[i]);
		}
	return shown;
}

static void json_machine(const struct report *r, FILE *out)
{
	const struct report_machine *m = &r->machine;

	fprintf(out, "{\n  \"machine\": {\"cpu\": \"%s\", \"cpus\": %d, \"kernel\": \"%s\", "
		"\"libc\": \"%s\", \"glibc_rseq_size\": %d, \"rseq_feature_size\": %d, "
		"\"rdpid\": %s, \"vdso_getcpu\": %s, \"backend\": \"%s\", "
		"\"pinned_cpu\": %d, \"runs\": %d, \"iters\": %lu},\n",
		m->cpu_model, m->cpus, m->kernel, m->libc, m->glibc_rseq_size,
		m->rseq_feature_size, m->rdpid ? "true" : "false", m->vdso_getcpu ? "true" : "false",
		m->backend, m->pinned_cpu, m->runs, m->iters);
}

static void json_reading(const struct report *r, FILE *out)
{
	fprintf(out, "  \"reading\": {");
	json_cases(out, r->reading, 0, WAYS);
	fprintf(out, ",\n    ");
	json_result(out, "first call in a new thread: libfastcpu", &r->first_fastcpu);
	fprintf(out, ",\n    ");
	json_result(out, "first call in a new thread: glibc", &r->first_glibc);
	fprintf(out, "\n  },\n");
}

static void json_latency(const struct report *r, FILE *out)
{
	const struct latency_table *t = &r->latency;

	fprintf(out, "  \"latency\": {");
	for (int i = 0; i < t->count; i++) {
		enum way w = t->order[i];

		fprintf(out, "%s\n    \"%s\": {", i ? "," : "", t->add[w].name);
		json_result(out, "locked_add", &t->add[w]);
		fprintf(out, ", ");
		json_result(out, "chained_load", &t->chain[w]);
		fputc('}', out);
	}
	fprintf(out, "\n  },\n");
}

static void json_setup(const struct setup_result *s, enum setup_id id, FILE *out)
{
	fprintf(out, "%s\n    {\"setup\": \"%s\", \"key\": \"%s\", \"served\": \"%s\"",
		id ? "," : "", setup_name(id), setup_key(id), s->served);
	if (s->served[0] == '\0') {
		fprintf(out, ", \"not_run\": \"%s\"}", s->why_not);
		return;
	}
	for (int c = 0; c < SETUP_CELLS; c++)
		json_ratio(out, setup_cell_names[c], report_setup_cell(s, (enum setup_cell)c));
	for (size_t k = 0; k < SETUP_FIELDS; k++) {
		fprintf(out, ", \"%s\": ", setup_fields[k].json);
		json_values(out, NULL, field_of(s, k));	/* its pointers are the row process's */
	}
	fputc('}', out);
}

static void json_counters(const struct report *r, FILE *out)
{
	fprintf(out, "  \"counters_one_thread\": {");
	json_cases(out, r->counter_one, 1, COUNTER_KINDS);
	fprintf(out, "\n  },\n  \"counters\": {\"threads\": [");
	for (int i = 0; i < r->thread_counts; i++)
		fprintf(out, "%s%d", i ? ", " : "", r->threads[i]);
	fprintf(out, "]");
	for (int k = 1; k < COUNTER_KINDS; k++) {
		fprintf(out, ",\n    \"%s\": [", counter_names[k]);
		for (int i = 0; i < r->thread_counts; i++)
			fprintf(out, "%s%.3f", i ? ", " : "", r->counter_ns[k][i]);
		fputc(']', out);
	}
	fprintf(out, "\n  },\n");
}

static void json_restricted(const struct report *r, FILE *out)
{
	const struct report_restricted *x = &r->restricted;

	fprintf(out, "  \"restricted_counter\": {\"cpus\": \"%s\", \"threads\": %d, "
		"\"cid_limit\": %d", x->cpus, x->threads, r->cid_limit);
	for (int i = 0; i < 2 && x->threads > 0; i++)
		fprintf(out, ", \"%s\": {\"ns\": %.3f, \"shards_used\": %d, \"highest\": %d, "
			"\"bytes\": %lu}", x->by[i].index, x->by[i].ns, x->by[i].used,
			x->by[i].highest, x->by[i].bytes);
	fprintf(out, "},\n");
}

static void json_preempted(const struct report *r, FILE *out)
{
	const struct preempted_table *t = &r->preempted;

	fprintf(out, "  \"preempted_lock\": {\"offered\": %s", t->offered ? "true" : "false");
	for (int i = 0; i < 2 && t->ran; i++) {
		const struct preempted_run *run = i ? &t->on : &t->off;

		if (i == 1 && !t->offered)
			break;
		fprintf(out, ", \"%s\": {\"acquisitions\": %ld, \"found_taken\": %ld, "
			"\"waiter_ns\": %.1f, \"granted\": %ld}", i ? "with" : "without",
			run->acquisitions, run->found_taken, run->wait_ns, run->granted);
	}
	fprintf(out, "},\n");
}

static void json_aims(const struct report *r, FILE *out)
{
	struct report_aims aims;

	report_aims(r, &aims);
	fprintf(out, "  \"targets\": [");
	for (int i = 0; i < aims.count; i++) {
		const struct report_aim *t = &aims.aim[i];

		fprintf(out, "%s\n    {\"what\": \"%s\"", i ? "," : "", t->what);
		json_ratio(out, "ratio", t->value);
		json_ratio(out, "best_ratio", t->best);
		json_ratio(out, "quartile_low", t->low);
		json_ratio(out, "quartile_high", t->high);
		fprintf(out, ", \"limit\": %.2f}", t->most);
	}
	fprintf(out, "\n  ]\n}\n");
}

void report_json(const struct report *r, FILE *out)
{
	json_machine(r, out);
	json_reading(r, out);
	json_latency(r, out);
	fprintf(out, "  \"setups\": [");
	for (int id = 0; id < SETUP_COUNT; id++)
		json_setup(&r->setups[id], (enum setup_id)id, out);
	fprintf(out, "\n  ],\n");
	json_counters(r, out);
	fprintf(out, "  \"loop\": {");
	json_cases(out, r->loops, 0, LOOP_CASES);
	fprintf(out, "\n  },\n");
	json_restricted(r, out);
	json_preempted(r, out);
	json_aims(r, out);
}

/* ---- CSV ------------------------------------------------------------------ */

/* One row a number: table,key,"case",threads,best_ns,median_ns (threads
 * 0 where it does not apply). The key is for machines (plot.sh): unique
 * within its table and threads, and kept when the case's words change;
 * case names are quoted, as they hold commas. */
static void csv_row(FILE *out, const char *table, const char *key, const char *name, int threads,
		    double best, double median)
{
	table_csv(out, TABLE_NS, best, median, "%s,%s,\"%s\",%d", table, key, name, threads);
}

static void csv_case(FILE *out, const char *table, const struct bench_result *b)
{
	csv_row(out, table, b->key, b->name, 0, b->best_ns, b->median_ns);
}

/* The cases of a table keyed by id that ran, from id from on. */
static void csv_cases(FILE *out, const char *table, const struct bench_result *cases, int from,
		      int n)
{
	for (int i = from; i < n; i++)
		if (bench_ran(&cases[i]))
			csv_case(out, table, &cases[i]);
}

static void csv_latency(const struct latency_table *t, FILE *out)
{
	for (int i = 0; i < t->count; i++) {
		enum way w = t->order[i];

		csv_case(out, "latency-locked-add", &t->add[w]);
		csv_case(out, "latency-chained-load", &t->chain[w]);
	}
}

static void csv_setups(const struct report *r, FILE *out)
{
	char key[96], name[160];

	for (int id = 0; id < SETUP_COUNT; id++)
		for (size_t k = 0; k < SETUP_FIELDS; k++) {
			const struct setup_result *s = &r->setups[id];
			const struct bench_result *b = field_of(s, k);

			if (setup_fields[k].csv == NULL || !field_measured(s, k))
				continue;
			snprintf(key, sizeof(key), "%s.%s", setup_key((enum setup_id)id),
				 setup_fields[k].key);
			snprintf(name, sizeof(name), "%s: %s", setup_name((enum setup_id)id),
				 setup_fields[k].csv);
			csv_row(out, "setup", key, name, 0, b->best_ns, b->median_ns);
		}
}

static void csv_counters(const struct report *r, FILE *out)
{
	csv_cases(out, "counters", r->counter_one, 1, COUNTER_KINDS);
	for (int k = 1; k < COUNTER_KINDS; k++)
		for (int t = 0; t < r->thread_counts; t++)
			if (r->counter_ns[k][t] >= 0)
				csv_row(out, "counters", counter_keys[k], counter_names[k], r->threads[t],
					r->counter_best[k][t], r->counter_ns[k][t]);
}

/* The waiter's ns per acquisition, without then with the extension. */
static void csv_preempted(const struct preempted_table *t, FILE *out)
{
	if (t->ran)
		csv_row(out, "preempted-lock", "waiter_without_extension",
			"waiter ns per acquisition, without the extension", 2, t->off.wait_ns, t->off.wait_ns);
	if (t->ran && t->offered)
		csv_row(out, "preempted-lock", "waiter_with_extension",
			"waiter ns per acquisition, with the extension", 2, t->on.wait_ns, t->on.wait_ns);
}

void report_csv(const struct report *r, FILE *out)
{
	fprintf(out, "table,key,case,threads,best_ns,median_ns\n");
	csv_cases(out, "reading", r->reading, 0, WAYS);
	csv_latency(&r->latency, out);
	csv_cases(out, "loop", r->loops, 0, LOOP_CASES);
	csv_setups(r, out);
	csv_counters(r, out);
	csv_preempted(&r->preempted, out);
}
