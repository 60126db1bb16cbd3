/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/suite-counter-tree.c: the counter tree: its arithmetic against a model, exact and within its bounds under fire. */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every sequence the kernel aborted, counted by the thread it ran in. */
static __thread unsigned long aborts_here;
#define FASTCPU_PERCPU_ON_ABORT() ((void)aborts_here++)

#include "fastcpu.h"
#include "helpers.h"
#include "percpu/counter-tree-shape.h"	/* white-box: the arithmetic, built in */
#include "private.h"

/* xorshift64*: the model's operations, the same every run. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dull;
}

/* ---- the arithmetic against a model ------------------------------------ */

/*
 * A tree of plain arrays, changed by the library's own arithmetic
 * (counter-tree-shape.c) one add at a time, against what was added: the
 * leaves add up to it, the tree is settled (every carry landed: the root
 * plus what each word keeps is the sum), the root lies within the bounds,
 * the inline add's test of a carry agrees with the carry, and comparing
 * by the root alone never contradicts the sum. Every level shape up to
 * 2^20 CPUs (no inner level, 1 to 4, each full and with a partial last
 * node), every batch from 2 to the largest, increments small, at the batch,
 * huge, and leaves driven round the end of a long.
 */
struct model {
	struct fastcpu_tree_shape shape;
	unsigned long batch, under, over;
	long *leaves;
	struct fastcpu_tree_node *nodes;
	long root;
	unsigned long added;
};

static const unsigned int model_cpus[] = {
	1, 2, 3, 15, 16, 17, 255, 256, 257, 1000, 4096, 4097, 65536, 65537, 1u << 20,
};

static bool model_make(struct model *m, unsigned int cpus, unsigned long batch)
{
	memset(m, 0, sizeof(*m));
	fastcpu_tree_shape(&m->shape, cpus);
	if (!fastcpu_tree_batch_valid(&m->shape, batch))
		return false;
	m->batch = batch;
	fastcpu_tree_bounds(&m->shape, batch, &m->under, &m->over);
	m->leaves = calloc(2 * (size_t)cpus, sizeof(long));
	m->nodes = aligned_alloc(FASTCPU_TREE_LINE, (fastcpu_tree_nodes(&m->shape) + 1) *
				 sizeof(struct fastcpu_tree_node));
	ck_assert(m->leaves != NULL && m->nodes != NULL);
	memset(m->nodes, 0, fastcpu_tree_nodes(&m->shape) * sizeof(struct fastcpu_tree_node));
	return true;
}

static void model_free(struct model *m)
{
	free(m->leaves);
	free(m->nodes);
}

/* The inline add's test, in each of its forms: by constant 1 and -1 too. */
static int crosses(unsigned long old, long value, unsigned long half, unsigned long mask)
{
	if (value == 1)
		return fastcpu_counter_tree_crosses_(old, 1, half, mask);
	if (value == -1)
		return fastcpu_counter_tree_crosses_(old, -1UL, half, mask);
	return fastcpu_counter_tree_crosses_(old, (unsigned long)value, half, mask);
}

/* Adds value to leaf; carries unless in_flight (a thread stopped between
 * its leaf and its carry). */
static void model_add(struct model *m, size_t leaf, long value, bool in_flight)
{
	unsigned long old = (unsigned long)m->leaves[leaf];
	unsigned long carry = fastcpu_tree_carry(old, (unsigned long)value, m->batch);

	ck_assert_int_eq(carry != 0, crosses(old, value, m->batch / 2, m->batch - 1));
	m->leaves[leaf] = (long)(old + (unsigned long)value);
	m->added += (unsigned long)value;
	if (carry != 0 && !in_flight)
		fastcpu_tree_carry_up(&m->shape, m->batch, m->nodes, &m->root,
				      (unsigned int)(leaf % m->shape.cpus), carry);
}

static struct fastcpu_tree_leaves model_leaves(const struct model *m)
{
	return (struct fastcpu_tree_leaves){ (const char *)m->leaves, sizeof(long) };
}

static int sign_of_sum_against(long sum, long value)
{
	return (sum > value) - (sum < value);
}

static void model_check(const struct model *m)
{
	long sum = (long)m->added, away = (long)(m->added - (unsigned long)m->root);
	long values[] = { sum - 1, sum, sum + 1, LONG_MIN, LONG_MAX,
			  (long)((unsigned long)m->root - m->over - 1),
			  (long)((unsigned long)m->root - m->over),
			  (long)((unsigned long)m->root + m->under),
			  (long)((unsigned long)m->root + m->under + 1) };

	ck_assert_msg(fastcpu_tree_settled(&m->shape, m->batch, model_leaves(m), m->nodes, m->root),
		      "%u CPUs, batch %lu: not settled", m->shape.cpus, m->batch);
	ck_assert_msg(away <= (long)m->under && -away <= (long)m->over,
		      "%u CPUs, batch %lu: root %ld from sum %ld, bounds %lu under, %lu over",
		      m->shape.cpus, m->batch, m->root, sum, m->under, m->over);
	for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
		int r = fastcpu_counter_tree_by_root_(m->root, m->under, m->over, values[k]);

		ck_assert(r == 0 || r == sign_of_sum_against(sum, values[k]));
	}
}

/* An increment of each kind, by what r says. */
static long model_value(const struct model *m, uint64_t r)
{
	long at = (long)m->batch;

	switch (r % 6) {
	case 0: return (long)(r >> 8) % 7 - 3;
	case 1: return at - 1 + (long)((r >> 8) % 3);
	case 2: return -at - 1 + (long)((r >> 8) % 3);
	case 3: return (long)(r >> 8) % (16 * at) - 8 * at;
	case 4: return (long)r;				/* huge, either sign */
	default: return (long)(r >> 8) % 1000;
	}
}

START_TEST(model_every_shape)
{
	static const unsigned long batches[] = { 2, 32, 4096, FASTCPU_COUNTER_TREE_MAX_BATCH };
	int shapes = 0;

	for (size_t c = 0; c < sizeof(model_cpus) / sizeof(model_cpus[0]); c++)
		for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			uint64_t state = 0x9e3779b97f4a7c15ull ^ (c << 8 | b);
			size_t leaves = 2 * (size_t)model_cpus[c];
			struct model m;

			if (!model_make(&m, model_cpus[c], batches[b]))
				continue;	/* a 32-bit long: the largest batch over 2^20 */
			shapes++;
			for (int i = 0; i < 20000; i++) {
				uint64_t r = next_random(&state);

				model_add(&m, (size_t)(r >> 33) % leaves, model_value(&m, r), false);
				if (i % 4096 == 0)
					model_check(&m);
			}
			/* A few leaves round the end of a long and back. */
			for (int i = 0; i < 64; i++) {
				size_t leaf = (size_t)(next_random(&state) >> 33) % leaves;

				model_add(&m, leaf, (long)((unsigned long)LONG_MAX -
							   (unsigned long)m.leaves[leaf] -
							   (unsigned long)(i % 5)), false);
				for (int k = 0; k < 10; k++)
					model_add(&m, leaf, i % 2 ? 1 + i % 3 : -(1 + i % 3), false);
				if (i % 16 == 15)
					model_check(&m);
			}
			model_check(&m);
			model_free(&m);
		}
	ck_assert_int_ge(shapes, 50);
}
END_TEST

/* Carries left in flight (a fork child's, of threads it does not have):
 * the tree is not settled, then settle() makes it so, within its bounds,
 * the leaves untouched. */
START_TEST(model_settles_carries_in_flight)
{
	for (size_t c = 0; c < sizeof(model_cpus) / sizeof(model_cpus[0]); c++) {
		uint64_t state = 0x243f6a8885a308d3ull ^ c;
		size_t leaves = 2 * (size_t)model_cpus[c];
		unsigned long sum = 0;
		struct model m;

		ck_assert(model_make(&m, model_cpus[c], 32));
		for (int i = 0; i < 5000; i++) {
			uint64_t r = next_random(&state);

			model_add(&m, (size_t)(r >> 33) % leaves, model_value(&m, r), false);
		}
		model_add(&m, 0, 3 * (long)m.batch, true);
		ck_assert(!fastcpu_tree_settled(&m.shape, m.batch, model_leaves(&m), m.nodes, m.root));
		for (size_t i = 0; i < leaves; i++)
			sum += (unsigned long)m.leaves[i];
		fastcpu_tree_settle(&m.shape, m.batch, model_leaves(&m), m.nodes, &m.root);
		for (size_t i = 0; i < leaves; i++)
			sum -= (unsigned long)m.leaves[i];
		ck_assert_uint_eq(sum, 0);
		model_check(&m);
		model_free(&m);
	}
}
END_TEST

/*
 * The aim: bounds no wider than the kernel's percpu_counter_tree
 * at each count of CPUs. The kernel counts 2^k CPUs for k = ceil(log2 n),
 * each of its levels adding 2^k times the leaves' batch to its "under"
 * bound (2^k times batch - 1 to "over"), with 1 level at k = 1, 2 at 2, 3
 * from 3 to 9, 4 from 10 to 12, 5 from 13 to 20: 6,144, 24,576 and 131,072
 * at 64, 256 and 1,024 CPUs with batch 32. Except at one CPU, where its
 * tree is the one counter and exact: this one keeps its two leaves.
 */
static void kernel_bounds(unsigned int cpus, unsigned long batch, unsigned long long *under,
			  unsigned long long *over)
{
	unsigned int k = 0, levels;

	while ((1u << k) < cpus)
		k++;
	levels = k <= 2 ? k : k <= 9 ? 3 : k <= 12 ? 4 : 5;
	*under = (unsigned long long)batch * levels << k;	/* past 32 bits at 2^20 CPUs */
	*over = (unsigned long long)(batch - 1) * levels << k;
}

START_TEST(bounds_within_the_kernels)
{
	static const unsigned long batches[] = { 2, 32, 1024 };
	unsigned long long ku, ko;
	unsigned long u, o;
	struct fastcpu_tree_shape shape;

	kernel_bounds(64, 32, &ku, &ko);
	ck_assert_uint_eq(ku, 6144);
	kernel_bounds(256, 32, &ku, &ko);
	ck_assert_uint_eq(ku, 24576);
	kernel_bounds(1024, 32, &ku, &ko);
	ck_assert_uint_eq(ku, 131072);
	for (unsigned int cpus = 2; cpus <= FASTCPU_TREE_CPUS_MOST;
	     cpus += cpus < 65536 ? 1 : cpus / 64)
		for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			fastcpu_tree_shape(&shape, cpus);
			if (!fastcpu_tree_batch_valid(&shape, batches[b]))
				continue;
			fastcpu_tree_bounds(&shape, batches[b], &u, &o);
			kernel_bounds(cpus, batches[b], &ku, &ko);
			ck_assert_msg(u <= ku && o <= ko,
				      "%u CPUs, batch %lu: %lu under, %lu over; the kernel's %llu, %llu",
				      cpus, batches[b], u, o, ku, ko);
		}
}
END_TEST

/* ---- the library's trees ----------------------------------------------- */

/* The shape and bounds a tree of this process has (possible CPUs: half
 * the concurrency id limit). */
static void expected_bounds(unsigned long batch, unsigned long *under, unsigned long *over)
{
	struct fastcpu_tree_shape shape;

	fastcpu_tree_shape(&shape, (unsigned int)fastcpu_cid_limit() / 2);
	fastcpu_tree_bounds(&shape, batch, under, over);
}

/* Settled: the sum is what was added, the tree settled, the root within
 * the bounds, compare exact near the sum and far from it. */
static void check_settled(struct fastcpu_counter_tree *t, long expected)
{
	long sum = fastcpu_counter_tree_sum(t), approx = fastcpu_counter_tree_approx(t);
	unsigned long under, over;

	fastcpu_counter_tree_bounds(t, &under, &over);
	ck_assert_int_eq(sum, expected);
	ck_assert(fastcpu_private_counter_tree_settled(t));
	ck_assert_int_eq(approx, (fastcpu_counter_tree_approx)(t));
	ck_assert_int_eq((fastcpu_counter_tree_compare)(t, sum), 0);
	ck_assert_int_eq((fastcpu_counter_tree_compare)(t, sum + 1), -1);
	ck_assert_msg((long)((unsigned long)sum - (unsigned long)approx) <= (long)under &&
		      (long)((unsigned long)approx - (unsigned long)sum) <= (long)over,
		      "approx %ld, sum %ld, bounds %lu under, %lu over", approx, sum, under, over);
	ck_assert_int_eq(fastcpu_counter_tree_compare(t, sum - 1), 1);
	ck_assert_int_eq(fastcpu_counter_tree_compare(t, sum), 0);
	ck_assert_int_eq(fastcpu_counter_tree_compare(t, sum + 1), -1);
	if (under < LONG_MAX / 8 && over < LONG_MAX / 8 && sum > LONG_MIN / 4 && sum < LONG_MAX / 4) {
		ck_assert_int_eq(fastcpu_counter_tree_compare(t, sum - 2 * (long)under - 7), 1);
		ck_assert_int_eq(fastcpu_counter_tree_compare(t, sum + 2 * (long)over + 7), -1);
		ck_assert_int_eq(fastcpu_counter_tree_compare(t, LONG_MIN), 1);
		ck_assert_int_eq(fastcpu_counter_tree_compare(t, LONG_MAX), -1);
	}
}

static const unsigned long bad_batches[] = { 1, 3, 6, 31, 33, 48, 100, ULONG_MAX };

START_TEST(tree_api)
{
	struct fastcpu_counter_tree *t;
	unsigned long under, over, want_under, want_over;
	long expected = 0;

	errno = EDOM;
	t = fastcpu_counter_tree_new(0);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(errno, EDOM);
	fastcpu_counter_tree_bounds(t, &under, &over);
	expected_bounds(32, &want_under, &want_over);
	ck_assert_uint_eq(under, want_under);
	ck_assert_uint_eq(over, want_over);
	fastcpu_counter_tree_bounds(t, NULL, NULL);
	check_settled(t, 0);
	for (long i = 0; i < 100000; i++) {
		long v = i % 3 ? i % 11 - 4 : -(i % 97);

		fastcpu_counter_tree_add(t, v);
		(fastcpu_counter_tree_add)(t, v);
		expected += 2 * v;
	}
	ck_assert_int_eq(errno, EDOM);
	check_settled(t, expected);
	fastcpu_counter_tree_free(t);
	fastcpu_counter_tree_free(NULL);
	for (unsigned long batch = 2; batch <= FASTCPU_COUNTER_TREE_MAX_BATCH && batch != 0;
	     batch *= 8) {
		t = fastcpu_counter_tree_new(batch);
		ck_assert_ptr_nonnull(t);
		fastcpu_counter_tree_bounds(t, &under, &over);
		expected_bounds(batch, &want_under, &want_over);
		ck_assert_uint_eq(under, want_under);
		fastcpu_counter_tree_add(t, (long)batch * 5 + 1);
		check_settled(t, (long)batch * 5 + 1);
		fastcpu_counter_tree_free(t);
	}
	for (size_t k = 0; k < sizeof(bad_batches) / sizeof(bad_batches[0]); k++) {
		errno = 0;
		ck_assert_ptr_null(fastcpu_counter_tree_new(bad_batches[k]));
		ck_assert_int_eq(errno, EINVAL);
	}
	errno = 0;
	ck_assert_ptr_null(fastcpu_counter_tree_new(2 * FASTCPU_COUNTER_TREE_MAX_BATCH));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(fastcpu_counter_tree_new_layout_(32, FASTCPU_COUNTER_TREE_LAYOUT_ + 1));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* The sum round the end of a long: there the band of the root wraps, and
 * compare reads the leaves; exact all the same. */
START_TEST(tree_compare_round_the_end)
{
	struct fastcpu_counter_tree *t = fastcpu_counter_tree_new(0);
	long sum;

	ck_assert_ptr_nonnull(t);
	fastcpu_counter_tree_add(t, LONG_MAX - 5);
	check_settled(t, LONG_MAX - 5);
	ck_assert_int_eq(fastcpu_counter_tree_compare(t, LONG_MAX), -1);
	ck_assert_int_eq(fastcpu_counter_tree_compare(t, LONG_MIN), 1);
	for (int i = 0; i < 10; i++)
		fastcpu_counter_tree_add(t, 1);
	sum = fastcpu_counter_tree_sum(t);
	ck_assert_int_eq(sum, LONG_MIN + 4);
	check_settled(t, LONG_MIN + 4);
	ck_assert_int_eq(fastcpu_counter_tree_compare(t, LONG_MAX), -1);
	ck_assert_int_eq(fastcpu_counter_tree_compare(t, LONG_MIN), 1);
	ck_assert_int_eq(fastcpu_counter_tree_compare(t, 0), -1);
	fastcpu_counter_tree_free(t);
}
END_TEST

/*
 * In the shape of suite-percpu.c's stress: twice as many threads as
 * allowed CPUs, moved round them, a signal every 50 us whose handler adds
 * too, one worker forking a child that works on its copy alone. Increments
 * of every size, carries at every level. The sum exact, the tree settled
 * (no carry lost), within its bounds and compare exact; the fork child's
 * tree settled at once (the carries its parent's other threads had in
 * flight landed), then exact for its own adds; where the workers ran
 * sequences, the kernel aborted some.
 */
#define STRESS_ADDS 300000	/* a worker; FASTCPU_STRESS scales it */

static struct {
	struct fastcpu_counter_tree *tree;
	long adds;
	unsigned long expected_per_worker;	/* wrapping round, as the sum may */
	unsigned long handler_added;
	unsigned long aborts;
	int workers_running_sequences;
	int fork_child_wrong;
} stress;

static long stress_value(long i)
{
	return i % 5 ? i % 13 - 4 : i % 10 ? (long)(i % 1000) * 37 : -(i % 997) * 1001;
}

static void stress_on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	fastcpu_counter_tree_add(stress.tree, 1000);
	__atomic_fetch_add(&stress.handler_added, 1000, __ATOMIC_RELAXED);
	errno = saved;
}

/* The child of a threaded process: async-signal-safe calls only, no Check. */
static int fork_child_checks(void)
{
	unsigned long added = 0;
	long before, after;

	if (!fastcpu_private_counter_tree_settled(stress.tree))
		return 1;
	before = fastcpu_counter_tree_sum(stress.tree);
	for (long i = 0; i < 7000; i++) {
		fastcpu_counter_tree_add(stress.tree, stress_value(i));
		added += (unsigned long)stress_value(i);
	}
	after = fastcpu_counter_tree_sum(stress.tree);
	if ((unsigned long)after - (unsigned long)before != added ||
	    !fastcpu_private_counter_tree_settled(stress.tree))
		return 2;
	if (fastcpu_counter_tree_compare(stress.tree, after) != 0 ||
	    fastcpu_counter_tree_compare(stress.tree, after - 1) != 1 ||
	    fastcpu_counter_tree_compare(stress.tree, after + 1) != -1)
		return 3;
	return 0;
}

static void fork_and_check_child(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(fork_child_checks());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		__atomic_fetch_add(&stress.fork_child_wrong, 1, __ATOMIC_RELAXED);
}

static void *stress_worker(void *index)
{
	test_stress_enlist((int)(intptr_t)index);
	(void)fastcpu_sched_getcpu();
	if (fastcpu_private_runs_sequences())
		__atomic_fetch_add(&stress.workers_running_sequences, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < stress.adds; i++) {
		fastcpu_counter_tree_add(stress.tree, stress_value(i));
		if (i == stress.adds / 2 && (intptr_t)index == 0)
			fork_and_check_child();
	}
	__atomic_fetch_add(&stress.aborts, aborts_here, __ATOMIC_RELAXED);
	return NULL;
}

#ifdef FASTCPU_RSEQ_INLINE
# define SEQUENCES 1
#else
# define SEQUENCES 0
#endif

static void tree_stress(unsigned long batch, long adds)
{
	int workers = 2 * CPU_COUNT(&test_allowed), rounds = 0;
	double start = test_now_ms();

	memset(&stress, 0, sizeof(stress));
	stress.tree = fastcpu_counter_tree_new(batch);
	ck_assert_ptr_nonnull(stress.tree);
	stress.adds = adds;
	for (long i = 0; i < adds; i++)
		stress.expected_per_worker += (unsigned long)stress_value(i);
	do {
		test_stress_run(workers, stress_worker, stress_on_signal);
		rounds++;
	} while (SEQUENCES && stress.workers_running_sequences > 0 && stress.aborts == 0 &&
		 test_now_ms() - start < 30000);
	check_settled(stress.tree, (long)((unsigned long)(rounds * workers) *
					  stress.expected_per_worker + stress.handler_added));
	ck_assert_int_eq(stress.fork_child_wrong, 0);
	if (SEQUENCES && stress.workers_running_sequences > 0)
		ck_assert_msg(stress.aborts > 0, "%d workers ran sequences, none aborted",
			      stress.workers_running_sequences);
	else
		ck_assert_uint_eq(stress.aborts, 0);
	fastcpu_counter_tree_free(stress.tree);
}

static const unsigned long stress_batches[] = { 2, 32 };

START_TEST(tree_exact_under_stress)
{
	tree_stress(stress_batches[_i], test_scaled(STRESS_ADDS));
}
END_TEST

/* The same in each setup a process may have (both rseq setups are the
 * runner's own): sequences off, each fallback forced, and the machines
 * the users have, sized by FASTCPU_POSSIBLE_CPUS. */
static const char *const setups[] = {
	"FASTCPU_SEQUENCES=off", "FASTCPU_BACKEND=syscall", "FASTCPU_BACKEND=vdso",
	"FASTCPU_BACKEND=rdpid", "FASTCPU_POSSIBLE_CPUS=64", "FASTCPU_POSSIBLE_CPUS=256",
	"FASTCPU_POSSIBLE_CPUS=1024",
};

START_TEST(tree_exact_each_setup)
{
	unsigned long under, over, want_under, want_over;
	const char *possible = strchr(setups[_i], '=') + 1;
	struct fastcpu_counter_tree *t;

	if ((strcmp(setups[_i], "FASTCPU_BACKEND=vdso") == 0 && !test_has_vdso_getcpu()) ||
	    (strcmp(setups[_i], "FASTCPU_BACKEND=rdpid") == 0 && !test_cpu_has_rdpid()))
		return;
	if (TEST_RESPAWN(setups[_i]))
		return;
	if (strncmp(setups[_i], "FASTCPU_POSSIBLE_CPUS", 21) == 0)
		ck_assert_int_ge(fastcpu_cid_limit(), 2 * atoi(possible));
	t = fastcpu_counter_tree_new(0);
	ck_assert_ptr_nonnull(t);
	fastcpu_counter_tree_bounds(t, &under, &over);
	expected_bounds(32, &want_under, &want_over);
	ck_assert_uint_eq(under, want_under);
	ck_assert_uint_eq(over, want_over);
	fastcpu_counter_tree_free(t);
	tree_stress(32, test_scaled(STRESS_ADDS / 4));
	if (strncmp(setups[_i], "FASTCPU_BACKEND", 15) == 0 ||
	    strcmp(setups[_i], "FASTCPU_SEQUENCES=off") == 0)
		ck_assert_int_eq(stress.workers_running_sequences, 0);
}
END_TEST

/*
 * Forks while two threads add at batch 2, a carry in flight at almost any
 * moment: each child, whose copy has no thread to finish its parent's
 * carries, finds its tree settled all the same (the library settles it
 * before fork() returns there), and its sum is the parent's at the fork.
 */
static volatile int keep_adding;

static void *add_until_told(void *arg)
{
	while (__atomic_load_n(&keep_adding, __ATOMIC_RELAXED))
		fastcpu_counter_tree_add(arg, 1);
	return NULL;
}

START_TEST(tree_fork_child_settled)
{
	struct fastcpu_counter_tree *t = fastcpu_counter_tree_new(2);
	int children = (int)test_scaled(200), unsettled = 0;
	pthread_t threads[2];

	if (test_under_valgrind())
		return;		/* one thread at a time: no carry in flight at a fork */
	ck_assert_ptr_nonnull(t);
	keep_adding = 1;
	for (int k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_create(&threads[k], NULL, add_until_told, t), 0);
	for (int c = 0; c < children; c++) {
		pid_t pid = fork();
		int status;

		if (pid == 0)
			_exit(fastcpu_private_counter_tree_settled(t) ? 0 : 1);
		ck_assert_int_gt(pid, 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		unsettled += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	keep_adding = 0;
	for (int k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_join(threads[k], NULL), 0);
	ck_assert_msg(unsettled == 0, "%d of %d fork children found carries lost", unsettled,
		      children);
	check_settled(t, fastcpu_counter_tree_sum(t));
	fastcpu_counter_tree_free(t);
}
END_TEST

/*
 * A tree made at 1,024 possible CPUs touches no copy of per-CPU memory
 * (a copy never touched stays unbacked, fastcpu_percpu_alloc(3)): its
 * leaves start at zero, as the zeroed memory is. Leaves that started at
 * the centre once backed a page in each of the 2,048 copies (8 MiB on
 * x86-64). Counted by mincore, page by page of the leaves: the process's
 * whole size moves with the rest (qemu-user's own tables for ppc64el grew
 * it 2.8 MiB).
 */
static int leaves_backed(const struct fastcpu_counter_tree *t)
{
	const struct fastcpu_counter_tree_fast_ *fast = (const void *)t;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	int backed = 0;

	for (int i = 0; i < fastcpu_cid_limit(); i++) {
		uintptr_t at = (uintptr_t)fastcpu_percpu_slot_(fast->leaves, FASTCPU_PERCPU_STRIDE,
							       (size_t)i);
		unsigned char in = 0;

		ck_assert_int_eq(mincore((void *)(at & -page), page, &in), 0);
		backed += in & 1;
	}
	return backed;
}

START_TEST(tree_made_touches_no_copy)
{
	struct fastcpu_counter_tree *t[8];
	int backed = 0;

	if (TEST_RESPAWN("FASTCPU_POSSIBLE_CPUS=1024"))
		return;
	ck_assert_int_ge(fastcpu_cid_limit(), 2048);
	for (int k = 0; k < 8; k++)
		ck_assert_ptr_nonnull(t[k] = fastcpu_counter_tree_new(0));
	for (int k = 0; k < 8; k++)
		backed += leaves_backed(t[k]);
	/* The copies of the CPUs this process ran on hold other objects. */
	ck_assert_msg(backed <= 8 * 2 * get_nprocs_conf(),
		      "8 trees at 1,024 CPUs: %d of their %d leaves' pages backed", backed,
		      8 * fastcpu_cid_limit());
	for (int k = 0; k < 8; k++)
		fastcpu_counter_tree_free(t[k]);
}
END_TEST

Suite *suite_counter_tree(void)
{
	Suite *s = suite_create("counter-tree");
	TCase *tc = tcase_create("default");
	TCase *exact = test_exactness_case();

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, model_every_shape);
	tcase_add_test(tc, model_settles_carries_in_flight);
	tcase_add_test(tc, bounds_within_the_kernels);
	tcase_add_test(tc, tree_api);
	tcase_add_test(tc, tree_compare_round_the_end);
	tcase_add_test(tc, tree_fork_child_settled);
	tcase_add_loop_test(exact, tree_exact_under_stress, 0,
			    (int)(sizeof(stress_batches) / sizeof(stress_batches[0])));
	test_add_respawning(tc, tree_exact_each_setup, 0, (int)(sizeof(setups) / sizeof(setups[0])));
	test_add_respawning(tc, tree_made_touches_no_copy, 0, 1);
	suite_add_tcase(s, exact);
	suite_add_tcase(s, tc);
	return s;
}
