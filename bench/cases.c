/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/cases.c: each way of reading the CPU, nothing waiting on the answer, waited on, in a loop. */

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fastcpu-bench.h"
#include "fastcpu.h"
#include "runner.h"

#if defined(__x86_64__) || defined(__i386__)
# define CASES_X86 1
#else
# define CASES_X86 0
#endif

/* The functions timed, through volatile pointers, libfastcpu's and glibc's
 * alike: never inlined nor hoisted, a call costs what one through the PLT
 * does (glibc's: NULL where glibc lacks them). */
static int (*volatile fastcpu_sched_getcpu_p)(void) = sched_getcpu;
static int (*volatile fastcpu_getcpu_p)(unsigned int *, unsigned int *) = getcpu;
static int (*volatile fastcpu_cid_p)(void) = fastcpu_cid;
static int (*volatile glibc_sched_getcpu_p)(void);
int (*volatile glibc_getcpu_p)(unsigned int *, unsigned int *);
static long (*volatile vdso_getcpu_p)(unsigned int *, unsigned int *, void *);

/* The floor under every function entry point: a call that does nothing. */
static __attribute__((noinline)) int empty_function(void)
{
	__asm__ volatile("");
	return 0;
}
static int (*volatile empty_function_p)(void) = empty_function;

/* The ways of asking, each a statement that leaves the CPU in c (and the
 * node in node where it gives one), both unsigned int: written once, timed
 * with nothing waiting on the answer (Table 1) and waited on (Table 7). */
#define ASK_NOTHING c = 0
#define ASK_EMPTY_CALL c = (unsigned int)empty_function_p()
#define ASK_FASTCPU_SCHED c = (unsigned int)fastcpu_sched_getcpu_p()
#define ASK_FASTCPU_GETCPU_GENERIC fastcpu_getcpu_p(&c, NULL)
#define ASK_FASTCPU_GETCPU fastcpu_getcpu_p(&c, &node)
#define ASK_FASTCPU_CID c = (unsigned int)fastcpu_cid_p()
#define ASK_GLIBC_SCHED c = (unsigned int)glibc_sched_getcpu_p()
#define ASK_GLIBC_GETCPU_GENERIC glibc_getcpu_p(&c, NULL)
#define ASK_GLIBC_GETCPU glibc_getcpu_p(&c, &node)
#define ASK_SYSCALL syscall(SYS_getcpu, &c, &node, NULL)
#define ASK_VDSO vdso_getcpu_p(&c, &node, NULL)
#define ASK_CURRENT_CPU c = (unsigned int)fastcpu_current_cpu()
#define ASK_CURRENT_CPU_NODE c = (unsigned int)fastcpu_current_cpu_node(&node)
#define ASK_CURRENT_CID c = (unsigned int)fastcpu_current_cid()
#if defined(__x86_64__) || defined(__i386__)
/* The raw instructions behind the x86 vDSO getcpu, inline. */
# define ASK_RDPID { unsigned long aux_;					\
	__asm__ volatile(".byte 0xf3, 0x0f, 0xc7, 0xf8" : "=a"(aux_));	\
	c = (unsigned int)aux_ & 0xfff; }
# define ASK_LSL { unsigned int seg_ = (15 * 8 + 3), limit_; /* GDT_ENTRY_CPUNODE */ \
	__asm__ volatile("lsl %1, %0" : "=r"(limit_) : "r"(seg_));	\
	c = limit_ & 0xfff; }
# define ASK_RDTSCP { unsigned int lo_, hi_, aux_;			\
	__asm__ volatile("rdtscp" : "=a"(lo_), "=d"(hi_), "=c"(aux_));	\
	c = aux_ & 0xfff; KEEP(lo_); KEEP(hi_); }
#endif

/* The ways of asking, each a row of Table 1 and of Table 7 where it
 * belongs, in Table 1's order. */
enum way {
	WAY_NOTHING,		/* [0] of both: the loop alone, not subtracted */
	WAY_RSEQ_LOAD,		/* Table 1 only: the bare load of cpu_id */
	WAY_CURRENT_CPU,
	WAY_EMPTY_CALL,
	WAY_FASTCPU_SCHED,
	WAY_GLIBC_SCHED,
	WAY_FASTCPU_GETCPU,
	WAY_GLIBC_GETCPU,
	WAY_FASTCPU_GETCPU_GENERIC,	/* getcpu(&c, NULL): Table 1 only */
	WAY_GLIBC_GETCPU_GENERIC,
	WAY_VDSO,
	WAY_RDPID,		/* x86 only, these three */
	WAY_LSL,
	WAY_RDTSCP,
	WAY_SYSCALL,
	WAY_FASTCPU_CID,	/* Table 7 only, from here on */
	WAY_CURRENT_CPU_NODE,
	WAY_CURRENT_CID,
	WAY_LEAF_NO_STORE,	/* two shapes of a called function */
	WAY_LEAF_ONE_STORE,
	WAYS
};

void cases_init(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	if (libc == NULL) {
		fprintf(stderr, "fastcpu-bench: cannot find libc.so.6: %s\n", dlerror());
		exit(2);
	}
	glibc_sched_getcpu_p = (int (*)(void))dlsym(libc, "sched_getcpu");
	glibc_getcpu_p = (int (*)(unsigned int *, unsigned int *))dlsym(libc, "getcpu");
	vdso_getcpu_p = (long (*)(unsigned int *, unsigned int *, void *))bench_vdso_getcpu();
}

/* A loop of four reads (statements) an iteration, each kept alive. */
#define LOOP(name, ...)						\
	unsigned long name(unsigned long n)			\
	{							\
		unsigned long sum = 0;				\
								\
		for (unsigned long i = 0; i < n; i += 4)	\
			FOUR(__VA_ARGS__; KEEP(sum));		\
		return sum;					\
	}

/* The floor: the thread's cpu_id through a pointer found once. */
static unsigned long loop_rseq_load(unsigned long n)
{
	const volatile int *cpu_id = loops_rseq_cpu_id();
	unsigned long sum = 0;

	for (unsigned long i = 0; i < n; i += 4) {
		FOUR(sum += (unsigned long)*cpu_id; KEEP(sum));
	}
	return sum;
}

LOOP(loop_empty, sum += i)
static LOOP(loop_current_cpu, sum += (unsigned long)fastcpu_current_cpu())

#define LOOP_CALL(name, ...)					\
	unsigned long name(unsigned long n)			\
	{							\
		unsigned long sum = 0;				\
		unsigned int c = 0, node = 0;			\
								\
		for (unsigned long i = 0; i < n; i += 4) {	\
			FOUR(__VA_ARGS__; sum += c + node; KEEP(sum)); \
		}						\
		return sum;					\
	}

static LOOP_CALL(loop_empty_call, ASK_EMPTY_CALL)
LOOP_CALL(loop_fastcpu_sched_getcpu, ASK_FASTCPU_SCHED)
LOOP_CALL(loop_fastcpu_getcpu_generic, ASK_FASTCPU_GETCPU_GENERIC)
LOOP_CALL(loop_fastcpu_getcpu, ASK_FASTCPU_GETCPU)
LOOP_CALL(loop_glibc_sched_getcpu, ASK_GLIBC_SCHED)
static LOOP_CALL(loop_glibc_getcpu_generic, ASK_GLIBC_GETCPU_GENERIC)
LOOP_CALL(loop_glibc_getcpu, ASK_GLIBC_GETCPU)
LOOP_CALL(loop_syscall_getcpu, ASK_SYSCALL)
static LOOP_CALL(loop_vdso_getcpu, ASK_VDSO)

#if CASES_X86
static LOOP_CALL(loop_rdpid, ASK_RDPID)
static LOOP_CALL(loop_lsl, ASK_LSL)
static LOOP_CALL(loop_rdtscp, ASK_RDTSCP)
#endif

int glibc_sched_getcpu(void)
{
	return glibc_sched_getcpu_p();
}

void once_fastcpu_sched_getcpu(void)
{
	KEEP(fastcpu_sched_getcpu_p());
}

void once_glibc_sched_getcpu(void)
{
	KEEP(glibc_sched_getcpu_p());
}

/* ---- Table 7: the answer waited on ------------------------------------- */

/*
 * Real per-CPU code waits on the answer, two ways, each timed with the work
 * alone as the baseline: (a) a locked add on the answer's shard follows (a
 * sharded counter, jemalloc's arenas, liburcu's queues): it cannot start
 * before the answer is in a register, and on x86 waits for all before it;
 * (b) the answer indexes a load the next index adds (a shard looked up,
 * then its contents): its latency joins a chain through every iteration.
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
#if CASES_X86
WAITED(rdpid, ASK_RDPID)
WAITED(lsl, ASK_LSL)
WAITED(rdtscp, ASK_RDTSCP)
#endif
#if HAVE_SHAPES
WAITED(leaf_no_store, c = (unsigned int)leaf_no_store_p())
WAITED(leaf_one_store, c = (unsigned int)leaf_one_store_p())
#endif

#if CASES_X86
# define X86_ONLY(...) __VA_ARGS__
#else
# define X86_ONLY(...) NULL, NULL, NULL
#endif
#if HAVE_SHAPES
# define SHAPES_ONLY(...) __VA_ARGS__
#else
# define SHAPES_ONLY(...) NULL, NULL
#endif
#define W(name) add_##name, chain_##name	/* Table 7's loops of a way */

/* Each way's row: Table 1's loop (NULL: Table 7 only), Table 7's (NULL:
 * Table 1 only), and whether a process of the setup table times its (a). */
static const struct {
	const char *key, *name;
	bench_loop_fn reading, add, chain;
	bool setups;
} ways[WAYS] = {
	[WAY_NOTHING] = { "empty_loop", "empty loop (not subtracted)", loop_empty, W(nothing), true },
	[WAY_RSEQ_LOAD] = { "rseq_load", "rseq cpu_id load (bare)", loop_rseq_load, NULL, NULL, false },
	[WAY_CURRENT_CPU] = { "fastcpu_current_cpu", "fastcpu_current_cpu() inline", loop_current_cpu,
			      W(current_cpu), false },
	[WAY_EMPTY_CALL] = { "empty_call", "empty function call (the floor)", loop_empty_call,
			     W(empty_call), false },
	[WAY_FASTCPU_SCHED] = { "fastcpu_sched_getcpu", "libfastcpu sched_getcpu()",
				loop_fastcpu_sched_getcpu, W(fastcpu_sched), true },
	[WAY_GLIBC_SCHED] = { "glibc_sched_getcpu", "glibc sched_getcpu()", loop_glibc_sched_getcpu,
			      W(glibc_sched), true },
	[WAY_FASTCPU_GETCPU] = { "fastcpu_getcpu", "libfastcpu getcpu(&c, &n)", loop_fastcpu_getcpu,
				 W(fastcpu_getcpu), true },
	[WAY_GLIBC_GETCPU] = { "glibc_getcpu", "glibc getcpu(&c, &n)", loop_glibc_getcpu,
			       W(glibc_getcpu), true },
	[WAY_FASTCPU_GETCPU_GENERIC] = { "fastcpu_getcpu_generic", "libfastcpu getcpu(&c, NULL)",
					 loop_fastcpu_getcpu_generic, NULL, NULL, false },
	[WAY_GLIBC_GETCPU_GENERIC] = { "glibc_getcpu_generic", "glibc getcpu(&c, NULL)",
				       loop_glibc_getcpu_generic, NULL, NULL, false },
	[WAY_VDSO] = { "vdso_getcpu", "vDSO getcpu, called directly", loop_vdso_getcpu, W(vdso), false },
	[WAY_RDPID] = { "rdpid", "RDPID inline", X86_ONLY(loop_rdpid, W(rdpid)), false },
	[WAY_LSL] = { "lsl", "LSL inline", X86_ONLY(loop_lsl, W(lsl)), false },
	[WAY_RDTSCP] = { "rdtscp", "RDTSCP inline", X86_ONLY(loop_rdtscp, W(rdtscp)), false },
	[WAY_SYSCALL] = { "syscall", "getcpu system call", loop_syscall_getcpu, W(syscall), true },
	[WAY_FASTCPU_CID] = { "fastcpu_cid", "libfastcpu fastcpu_cid()", NULL, W(fastcpu_cid), false },
	[WAY_CURRENT_CPU_NODE] = { "fastcpu_current_cpu_node", "fastcpu_current_cpu_node() inline", NULL,
				   W(current_cpu_node), false },
	[WAY_CURRENT_CID] = { "fastcpu_current_cid", "fastcpu_current_cid() inline", NULL,
			      W(current_cid), false },
	[WAY_LEAF_NO_STORE] = { "leaf_no_store", "leaf, one load, no store (shape)", NULL,
				SHAPES_ONLY(W(leaf_no_store)), false },
	[WAY_LEAF_ONE_STORE] = { "leaf_one_store", "leaf, one load, one store (shape)", NULL,
				 SHAPES_ONLY(W(leaf_one_store)), false },
};

/* Whether this machine and process can ask that way (glibc's getcpu,
 * the vDSO's, RDPID, the thread's rseq area where <fastcpu.h> reads it). */
static bool way_here(enum way w)
{
	switch (w) {
	case WAY_RSEQ_LOAD:
		return loops_rseq_cpu_id() != NULL;
	case WAY_GLIBC_GETCPU:
	case WAY_GLIBC_GETCPU_GENERIC:
		return glibc_getcpu_p != NULL;
	case WAY_VDSO:
		return vdso_getcpu_p != NULL;
	case WAY_RDPID:
		return CASES_X86 && bench_have_rdpid();
	default:
		return true;
	}
}

void cases_reading(struct rows *out)
{
	struct bench_case cases[WAYS];

	for (int w = 0; w < WAYS; w++)
		cases[w] = (struct bench_case){ ways[w].key, ways[w].name,
						way_here((enum way)w) ? ways[w].reading : NULL };
	bench_measure(cases, WAYS, &bench.cfg, out, "reading");
}

void latency_measure(struct rows *out, const char *waited, const struct bench_config *cfg)
{
	struct bench_case add[WAYS] = { { 0 } }, chained[WAYS] = { { 0 } };

	(void)fastcpu_sched_getcpu();	/* attach this thread first */
	for (int w = 0; w < WAYS; w++) {	/* each at its way, as Table 1's */
		const char *key = w ? ways[w].key : "work_alone";
		const char *name = w ? ways[w].name : "the work alone (not subtracted)";

		if (ways[w].add == NULL || !way_here((enum way)w) || !(!waited || ways[w].setups))
			continue;
		add[w] = (struct bench_case){ key, name, ways[w].add };
		chained[w] = (struct bench_case){ key, name, ways[w].chain };
	}
	bench_measure(add, WAYS, cfg, out, waited ? waited : "latency-locked-add");
	if (!waited)
		bench_measure(chained, WAYS, cfg, out, "latency-chained-load");
}

/* ---- Table 5: the reads of <fastcpu.h> in a hot loop, against the floor - */

/*
 * Four reads an iteration, kept alive as a per-CPU structure's fast path
 * keeps them. The reference rows read the thread's rseq area as librseq's
 * inline functions do (written from that description, not its code): an
 * offset from a per-thread base in a plain global, reloaded after any call
 * the compiler cannot see into; sched_getcpu() the checked read's fallback.
 * librseq's base is the thread pointer; a TLS variable of this program's is
 * the same kind of base and needs no builtin (GCC 12 has none on powerpc).
 */
static __thread char thread_base;
static ptrdiff_t bench_rseq_offset;
static const volatile int *floor_word;

enum { CPU_ID = 4, NODE_ID = 20, MM_CID = 24 };	/* offsets in the area */

static inline const volatile int *area_word(int field)
{
	return (const volatile int *)((uintptr_t)&thread_base + bench_rseq_offset + field);
}

static inline int raw_cpu(void)
{
	return *area_word(CPU_ID);
}

static inline int checked_cpu(void)
{
	int cpu = raw_cpu();

	if (__builtin_expect(cpu < 0, 0))
		cpu = fastcpu_sched_getcpu();
	return cpu;
}


/* The floor: a bare load of cpu_id, its address found once. */
static LOOP(loop_floor, sum += (unsigned long)*floor_word)
static LOOP(loop_raw, sum += (unsigned long)raw_cpu())
static LOOP(loop_checked, sum += (unsigned long)checked_cpu())
static LOOP(loop_raw_pair, sum += (unsigned long)raw_cpu() + (unsigned long)*area_word(NODE_ID))
static unsigned long loop_pair(unsigned long n)
{
	unsigned long sum = 0;
	unsigned int node = 0;

	for (unsigned long i = 0; i < n; i += 4)
		FOUR(sum += (unsigned long)fastcpu_current_cpu_node(&node) + node;
		     KEEP(sum));
	return sum;
}
static LOOP(loop_raw_cid, sum += (unsigned long)*area_word(MM_CID))
static LOOP(loop_cid, sum += (unsigned long)fastcpu_current_cid())

__attribute__((noinline)) const volatile int *loops_rseq_cpu_id(void)
{
	const volatile int *cpu_id;

	(void)fastcpu_sched_getcpu();	/* attach this thread first */
	cpu_id = fastcpu_cpu_id_word_();
	return *cpu_id >= 0 ? cpu_id : NULL;
}

/* Finds the calling thread's rseq area; false if it has none. */
static bool loops_init(void)
{
	const volatile int *cpu_id = loops_rseq_cpu_id();

	if (cpu_id == NULL)
		return false;
	floor_word = cpu_id;
	bench_rseq_offset = (ptrdiff_t)((uintptr_t)cpu_id - CPU_ID - (uintptr_t)&thread_base);
	return true;
}

/* Table 5's rows, in its order; reference: a row of this benchmark's
 * librseq-style code. */
static const struct {
	struct bench_case c;
	bool reference;
} cases[] = {
	{ { "empty_loop", "empty loop (not subtracted)", loop_empty }, false },
	{ { "floor_cpu_id_load", "floor: bare cpu_id load, address hoisted", loop_floor }, true },
	{ { "librseq_raw_cpu_id", "librseq-style raw cpu_id read", loop_raw }, true },
	{ { "librseq_checked_cpu_id", "librseq-style checked read", loop_checked }, true },
	{ { "fastcpu_current_cpu", "fastcpu_current_cpu()", loop_current_cpu }, false },
	{ { "librseq_raw_cpu_node", "librseq-style cpu_id + node_id reads", loop_raw_pair }, true },
	{ { "fastcpu_current_cpu_node", "fastcpu_current_cpu_node()", loop_pair }, false },
	{ { "librseq_raw_mm_cid", "librseq-style raw mm_cid read", loop_raw_cid }, true },
	{ { "fastcpu_current_cid", "fastcpu_current_cid()", loop_cid }, false },
};
#define CASES (int)(sizeof(cases) / sizeof(cases[0]))

void loops_measure(struct rows *out)
{
	bool reference_rows = loops_init();
	struct bench_case c[CASES];

	for (int i = 0; i < CASES; i++)
		c[i] = (struct bench_case){ cases[i].c.key, cases[i].c.name,
					    reference_rows || !cases[i].reference ? cases[i].c.loop : NULL };
	bench_measure(c, CASES, &bench.cfg, out, "loop");
}
