/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/latency.c: the answer waited on, as per-CPU code waits on it. */

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cases.h"
#include "fastcpu.h"
#include "latency.h"
#include "measure.h"

/*
 * Table 1 times the ways of asking where nothing waits on the answer. Real
 * per-CPU code waits on it, two ways, each timed here with the work alone
 * as the baseline subtracted:
 *  (a) a locked add on the answer's shard follows (a sharded counter,
 *      jemalloc's per-CPU arenas, liburcu's per-CPU queues): the add
 *      cannot start before the answer is in a register, and on x86 it also
 *      waits for everything before it to finish;
 *  (b) the answer indexes a load whose value the next index adds (a shard
 *      looked up, then its contents): the answer's latency joins a chain
 *      that runs through every iteration.
 */
#define SHARDS 4096	/* beyond every CPU number; a power of two */

static struct {
	unsigned long value;
} __attribute__((aligned(128))) shard[SHARDS];
static unsigned long chain[SHARDS];	/* all 0: the chain's index stays c */

#define WAIT_ADD(name, ...)						\
	static unsigned long add_##name(unsigned long n)		\
	{								\
		for (unsigned long i = 0; i < n; i += 4)		\
			FOUR({ unsigned int c = 0, node = 0;		\
			       __VA_ARGS__;				\
			       KEEP(node);				\
			       __atomic_fetch_add(&shard[c % SHARDS].value, 1, \
						  __ATOMIC_RELAXED); });	\
		return n;						\
	}
#define WAIT_CHAIN(name, ...)						\
	static unsigned long chain_##name(unsigned long n)		\
	{								\
		unsigned long v = 0;					\
									\
		for (unsigned long i = 0; i < n; i += 4)		\
			FOUR({ unsigned int c = 0, node = 0;		\
			       __VA_ARGS__;				\
			       KEEP(node);				\
			       v = chain[(c + v) % SHARDS]; });		\
		return v;						\
	}
#define WAITED(name, ...) WAIT_ADD(name, __VA_ARGS__) WAIT_CHAIN(name, __VA_ARGS__)

/*
 * The code shape behind the exported entry points' store (lib/arch/x86.h):
 * two leaf functions of this program, each loading a word and returning
 * it, one with a store to its own stack. Where the CPU renames the call's
 * push into the ret's load, (a) shows the first slower.
 */
#if defined(__x86_64__)
# define HAVE_SHAPES 1
# if defined(__CET__) && (__CET__ & 1)
#  define LANDING_PAD "endbr64\n\t"
# else
#  define LANDING_PAD ""
# endif
unsigned int latency_leaf_word __attribute__((used));
int latency_leaf_no_store(void);
int latency_leaf_one_store(void);
__asm__(".text\n\t.p2align 4\n"
	".hidden latency_leaf_no_store\n\t.type latency_leaf_no_store, @function\n"
	"latency_leaf_no_store:\n\t" LANDING_PAD
	"movl latency_leaf_word(%rip), %eax\n\tret\n"
	".size latency_leaf_no_store, . - latency_leaf_no_store\n\t.p2align 4\n"
	".hidden latency_leaf_one_store\n\t.type latency_leaf_one_store, @function\n"
	"latency_leaf_one_store:\n\t" LANDING_PAD
	"movl latency_leaf_word(%rip), %eax\n\tmovl %eax, -8(%rsp)\n\tret\n"
	".size latency_leaf_one_store, . - latency_leaf_one_store\n");
static int (*volatile leaf_no_store_p)(void) = latency_leaf_no_store;
static int (*volatile leaf_one_store_p)(void) = latency_leaf_one_store;
#else
# define HAVE_SHAPES 0
static int (*volatile leaf_no_store_p)(void);
static int (*volatile leaf_one_store_p)(void);
#endif

WAITED(nothing, ASK_NOTHING)
WAITED(empty_call, ASK_EMPTY_CALL)
WAITED(glibc_sched, ASK_GLIBC_SCHED)
WAITED(fastcpu_sched, ASK_FASTCPU_SCHED)
WAITED(glibc_getcpu, ASK_GLIBC_GETCPU)
WAITED(fastcpu_getcpu, ASK_FASTCPU_GETCPU)
WAITED(fastcpu_cid, ASK_FASTCPU_CID)
WAITED(current_cpu, ASK_CURRENT_CPU)
WAITED(current_cpu_node, ASK_CURRENT_CPU_NODE)
WAITED(current_cid, ASK_CURRENT_CID)
WAITED(vdso, ASK_VDSO)
WAITED(syscall, ASK_SYSCALL)
WAITED(leaf_no_store, c = (unsigned int)leaf_no_store_p())
WAITED(leaf_one_store, c = (unsigned int)leaf_one_store_p())
#ifdef CASES_X86
WAITED(rdpid, ASK_RDPID)
WAITED(lsl, ASK_LSL)
WAITED(rdtscp, ASK_RDTSCP)
#endif

#define ROW(label, name) { label, add_##name, chain_##name }

static const struct latency_row {
	const char *name;
	bench_loop_fn add, chain;
} rows[] = {
	ROW(LATENCY_BASE, nothing),
	ROW("empty function call (the floor)", empty_call),
	ROW(LATENCY_GLIBC_SCHED, glibc_sched),
	ROW(LATENCY_FASTCPU_SCHED, fastcpu_sched),
	ROW(LATENCY_GLIBC_GETCPU, glibc_getcpu),
	ROW(LATENCY_FASTCPU_GETCPU, fastcpu_getcpu),
	ROW("libfastcpu fastcpu_cid()", fastcpu_cid),
	ROW("fastcpu_current_cpu() inline", current_cpu),
	ROW("fastcpu_current_cpu_node() inline", current_cpu_node),
	ROW("fastcpu_current_cid() inline", current_cid),
	ROW("vDSO getcpu, called directly", vdso),
#ifdef CASES_X86
	ROW("RDPID inline", rdpid),
	ROW("LSL inline", lsl),
	ROW("RDTSCP inline", rdtscp),
#endif
	ROW(LATENCY_SYSCALL, syscall),
	ROW("leaf, one load, no store (shape)", leaf_no_store),
	ROW("leaf, one load, one store (shape)", leaf_one_store),
};

/* Whether row i can run here. */
static bool available(const struct latency_row *row)
{
	if (row->add == add_glibc_getcpu)
		return cases_have_glibc_getcpu();
	if (row->add == add_vdso)
		return cases_have_vdso_getcpu();
	if (row->add == add_leaf_no_store || row->add == add_leaf_one_store)
		return HAVE_SHAPES;
#ifdef CASES_X86
	if (row->add == add_rdpid)
		return cases_have_rdpid();
#endif
	return true;
}

static int cases_of(struct bench_result *c, bool chained, bool all)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct latency_row *row = &rows[i];

		if (!available(row))
			continue;
		/* A process of the setup table times only these. */
		if (!all && strcmp(row->name, LATENCY_BASE) != 0 &&
		    strcmp(row->name, LATENCY_GLIBC_SCHED) != 0 &&
		    strcmp(row->name, LATENCY_FASTCPU_SCHED) != 0 &&
		    strcmp(row->name, LATENCY_GLIBC_GETCPU) != 0 &&
		    strcmp(row->name, LATENCY_FASTCPU_GETCPU) != 0 &&
		    strcmp(row->name, LATENCY_SYSCALL) != 0)
			continue;
		c[n++] = (struct bench_result){
			.name = row->name, .loop = chained ? row->chain : row->add,
		};
	}
	return n;
}

/* The row of t called name, or false where it did not run. */
static bool row_named(const struct latency_table *t, const char *name,
		      struct bench_result *out)
{
	for (int i = 0; i < t->count; i++)
		if (strcmp(t->add[i].name, name) == 0) {
			*out = t->add[i];
			return true;
		}
	return false;
}

void latency_measure_waited(struct latency_waited *w, const struct bench_config *cfg)
{
	static struct latency_table t;

	latency_measure(&t, cfg, false);
	w->alone = t.add[0];
	(void)row_named(&t, LATENCY_FASTCPU_SCHED, &w->sched);
	(void)row_named(&t, LATENCY_GLIBC_SCHED, &w->glibc_sched);
	(void)row_named(&t, LATENCY_FASTCPU_GETCPU, &w->getcpu);
	(void)row_named(&t, LATENCY_SYSCALL, &w->syscall);
	w->glibc_has_getcpu = row_named(&t, LATENCY_GLIBC_GETCPU, &w->glibc_getcpu);
}

int latency_measure(struct latency_table *t, const struct bench_config *cfg, bool all)
{
	(void)fastcpu_sched_getcpu();	/* attach this thread first */
	t->count = cases_of(t->add, false, all);
	bench_measure(t->add, t->count, cfg);
	if (all) {
		(void)cases_of(t->chain, true, all);
		bench_measure(t->chain, t->count, cfg);
	}
	return t->count;
}
