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
#include "runner.h"

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
#ifdef CASES_X86
WAITED(rdpid, ASK_RDPID)
WAITED(lsl, ASK_LSL)
WAITED(rdtscp, ASK_RDTSCP)
#endif
#if HAVE_SHAPES
WAITED(leaf_no_store, c = (unsigned int)leaf_no_store_p())
WAITED(leaf_one_store, c = (unsigned int)leaf_one_store_p())
#endif

#define ROW(way, name, setups) { way, add_##name, chain_##name, setups }

/* Table 7's rows; setups: a process of the setup table times it too. */
static const struct latency_row {
	enum way way;
	bench_loop_fn add, chain;
	bool setups;
} rows[] = {
	ROW(WAY_NOTHING, nothing, true),
	ROW(WAY_EMPTY_CALL, empty_call, false),
	ROW(WAY_GLIBC_SCHED, glibc_sched, true),
	ROW(WAY_FASTCPU_SCHED, fastcpu_sched, true),
	ROW(WAY_GLIBC_GETCPU, glibc_getcpu, true),
	ROW(WAY_FASTCPU_GETCPU, fastcpu_getcpu, true),
	ROW(WAY_FASTCPU_CID, fastcpu_cid, false),
	ROW(WAY_CURRENT_CPU, current_cpu, false),
	ROW(WAY_CURRENT_CPU_NODE, current_cpu_node, false),
	ROW(WAY_CURRENT_CID, current_cid, false),
	ROW(WAY_VDSO, vdso, false),
#ifdef CASES_X86
	ROW(WAY_RDPID, rdpid, false),
	ROW(WAY_LSL, lsl, false),
	ROW(WAY_RDTSCP, rdtscp, false),
#endif
	ROW(WAY_SYSCALL, syscall, true),
#if HAVE_SHAPES
	ROW(WAY_LEAF_NO_STORE, leaf_no_store, false),
	ROW(WAY_LEAF_ONE_STORE, leaf_one_store, false),
#endif
};

/* The row's case, named as the table names it. */
static struct bench_case row_case(const struct latency_row *row, bool chained)
{
	return (struct bench_case){
		row->way == WAY_NOTHING ? "work_alone" : way_key(row->way),
		row->way == WAY_NOTHING ? "the work alone (not subtracted)" : way_name(row->way),
		chained ? row->chain : row->add,
	};
}

/* The ways of asking this machine has (all), or only those a process of
 * the setup table times; each case at its way, as Table 1's. */
static void measure(struct rows *out, bool all, const char *add_table)
{
	struct bench_case add[WAYS] = { { 0 } }, chained[WAYS] = { { 0 } };

	(void)fastcpu_sched_getcpu();	/* attach this thread first */
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum way w = rows[i].way;

		if (!way_here(w) || !(all || rows[i].setups))
			continue;
		add[w] = row_case(&rows[i], false);
		chained[w] = row_case(&rows[i], true);
	}
	bench_measure(add, WAYS, &bench.cfg, out, add_table);
	if (all)
		bench_measure(chained, WAYS, &bench.cfg, out, "latency-chained-load");
}

void latency_measure(struct rows *out)
{
	measure(out, true, "latency-locked-add");
}

void latency_measure_waited(struct rows *out, const char *table)
{
	measure(out, false, table);
}
