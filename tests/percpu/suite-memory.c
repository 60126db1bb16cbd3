/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/suite-memory.c: per-CPU memory and counters. */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastcpu.h"
#include "helpers.h"
#include "private.h"

/* ---- per-CPU memory ----------------------------------------------------- */

static const size_t sizes[] = { 1, 3, 8, 12, 24, 64, 100, 4096, 5000, FASTCPU_PERCPU_STRIDE };

/* Objects of every size, each copy of each filled with a byte of its own:
 * no byte of one is another's; zeroed where new; aligned to the largest
 * power of two dividing the size, up to 64. */
START_TEST(percpu_copies_are_independent)
{
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	unsigned char *p[N];
	int n = fastcpu_cid_limit();

	for (int k = 0; k < N; k++) {
		size_t natural = sizes[k] & -sizes[k];

		errno = EDOM;
		p[k] = fastcpu_percpu_alloc(sizes[k]);
		ck_assert_ptr_nonnull(p[k]);
		ck_assert_int_eq(errno, EDOM);
		ck_assert_uint_eq((uintptr_t)p[k] % (natural < 64 ? natural : 64), 0);
		for (int i = 0; i < n; i++) {
			unsigned char *copy = fastcpu_percpu_ptr(p[k], i);

			ck_assert_ptr_eq(copy, p[k] + (size_t)i * fastcpu_percpu_stride());
			for (size_t b = 0; b < sizes[k]; b++)
				ck_assert_uint_eq(copy[b], 0);
			memset(copy, (int)(k * 16 + i % 16 + 1), sizes[k]);
		}
	}
	for (int k = 0; k < N; k++)
		for (int i = 0; i < n; i++) {
			unsigned char *copy = fastcpu_percpu_ptr(p[k], i);

			for (size_t b = 0; b < sizes[k]; b++)
				ck_assert_uint_eq(copy[b], (unsigned int)(k * 16 + i % 16 + 1));
		}
	/* Freed space comes back zeroed, in every copy. */
	for (int k = 0; k < N; k++)
		fastcpu_percpu_free(p[k]);
	for (int k = 0; k < N; k++) {
		unsigned char *again = fastcpu_percpu_zalloc(sizes[k]);

		ck_assert_ptr_nonnull(again);
		for (int i = 0; i < n; i++)
			for (size_t b = 0; b < sizes[k]; b++)
				ck_assert_uint_eq(fastcpu_percpu_ptr(again, i)[b], 0);
		p[k] = again;
	}
	for (int k = 0; k < N; k++)
		fastcpu_percpu_free(p[k]);
}
END_TEST

/* What the allocator did not give, or gave and took back, is refused with
 * EINVAL, and nothing else changes. */
START_TEST(percpu_bad_input)
{
	long *kept = fastcpu_percpu_zalloc(sizeof(long)), *freed;
	long on_stack = 0, *from_malloc = malloc(64);

	ck_assert_ptr_nonnull(kept);
	*fastcpu_percpu_ptr(kept, fastcpu_cid_limit() - 1) = 42;
	errno = 0;
	ck_assert_ptr_null(fastcpu_percpu_alloc(0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(fastcpu_percpu_zalloc(FASTCPU_PERCPU_STRIDE + 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(fastcpu_percpu_alloc(SIZE_MAX));
	ck_assert_int_eq(errno, EINVAL);
	freed = fastcpu_percpu_alloc(16);
	ck_assert_ptr_nonnull(freed);
	fastcpu_percpu_free(freed);
	void *bad[] = { &on_stack, from_malloc, (char *)kept + 8, freed,
			fastcpu_percpu_ptr(kept, 1) };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		fastcpu_percpu_free(bad[i]);
		ck_assert_msg(errno == EINVAL, "pointer %zu: errno %d", i, errno);
	}
	errno = EDOM;
	fastcpu_percpu_free(NULL);
	ck_assert_int_eq(errno, EDOM);
	ck_assert_int_eq(*fastcpu_percpu_ptr(kept, fastcpu_cid_limit() - 1), 42);
	ck_assert_int_eq(on_stack, 0);
	fastcpu_percpu_free(kept);
	free(from_malloc);
}
END_TEST

/* Space freed is given again: many objects made and freed twice over take
 * no new chunk the second time (chunks begin on stride boundaries: an
 * object's chunk is its address's high bits). */
static int compare_chunks(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return (x > y) - (x < y);
}

START_TEST(percpu_space_reused)
{
	enum { N = 20000 };
	char **p = malloc(N * sizeof(*p));
	uintptr_t *chunks = malloc(N * sizeof(*chunks)), key;

	ck_assert(p != NULL && chunks != NULL);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < N; i++) {
			p[i] = fastcpu_percpu_alloc(sizes[i % 6]);
			ck_assert_ptr_nonnull(p[i]);
			key = (uintptr_t)p[i] / FASTCPU_PERCPU_STRIDE;
			if (round == 0)
				chunks[i] = key;
			else
				ck_assert_msg(bsearch(&key, chunks, N, sizeof(*chunks),
						      compare_chunks) != NULL,
					      "object %d in a chunk the first round had not", i);
		}
		if (round == 0)
			qsort(chunks, N, sizeof(*chunks), compare_chunks);
		for (int i = 0; i < N; i++)
			fastcpu_percpu_free(p[i]);
	}
	free(chunks);
	free(p);
}
END_TEST

START_TEST(out_of_address_space)
{
	pid_t pid;
	int status;

	/* The sanitizers and valgrind reserve address space of their own;
	 * qemu-user keeps RLIMIT_AS to itself (it would limit qemu). */
	if (test_instrumented() || test_emulated())
		return;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		long *first = fastcpu_percpu_zalloc(sizeof(long));
		long made = 0;

		if (first == NULL || !test_limit_address_space(64ul << 20))
			_exit(10);
		*fastcpu_percpu_ptr(first, 1) = 7;
		while (fastcpu_percpu_alloc(FASTCPU_PERCPU_STRIDE / 2) != NULL)
			made++;
		if (errno != ENOMEM || made == 0 || *fastcpu_percpu_ptr(first, 1) != 7)
			_exit(11);
		fastcpu_percpu_free(first);
		if (fastcpu_percpu_zalloc(sizeof(long)) != first)
			_exit(12);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d",
		      status);
}
END_TEST

/* A fork child gets copies of the objects: its writes are its own. */
START_TEST(percpu_fork_child_copies)
{
	long *p = fastcpu_percpu_zalloc(sizeof(long));
	pid_t pid;
	int status;

	ck_assert_ptr_nonnull(p);
	*fastcpu_percpu_ptr(p, 0) = 5;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		long *q = fastcpu_percpu_zalloc(sizeof(long));

		*fastcpu_percpu_ptr(p, 0) = 6;
		_exit(*fastcpu_percpu_ptr(p, 0) == 6 && q != NULL && q != p ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(*fastcpu_percpu_ptr(p, 0), 5);
	fastcpu_percpu_free(p);
}
END_TEST

/*
 * A program's own fork handlers that allocate per-CPU memory, registered
 * before its first allocation (a process of its own): the fork goes
 * through, and each handler's counter works. (The allocator of 0.4
 * registered its handlers at its first allocation, after the program's:
 * its prepare handler, run first, took the allocator's lock, and the
 * program's, allocating, waited for it for good.) fork-handlers.sh covers
 * the library dlopen()ed after the program registered its handlers.
 */
static int handlers_ok;
static pthread_barrier_t forked;

/* glibc takes its fork handlers' lock only where the process has threads. */
static void *bystander(void *unused)
{
	(void)unused;
	pthread_barrier_wait(&forked);
	return NULL;
}

static void handler_allocates(void)
{
	struct fastcpu_counter *c = fastcpu_counter_new();

	if (c == NULL)
		return;
	fastcpu_counter_add(c, 2);
	if (fastcpu_counter_sum(c) == 2)
		handlers_ok++;
	fastcpu_counter_free(c);
}

START_TEST(percpu_fork_in_programs_handlers)
{
	pthread_t other;
	pid_t pid;
	int status;

	if (TEST_RESPAWN("FASTCPU_TEST_FRESH=1"))
		return;
	ck_assert_int_eq(pthread_atfork(handler_allocates, handler_allocates, handler_allocates), 0);
	fastcpu_counter_free(fastcpu_counter_new());
	pthread_barrier_init(&forked, NULL, 2);
	ck_assert_int_eq(pthread_create(&other, NULL, bystander, NULL), 0);
	alarm(30);		/* a hung fork ends the test */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(handlers_ok == 2 ? 0 : 1);
	alarm(0);
	pthread_barrier_wait(&forked);
	ck_assert_int_eq(pthread_join(other, NULL), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d", status);
	ck_assert_int_eq(handlers_ok, 2);
}
END_TEST

/*
 * No small object covers the 32 bytes of a thread's rseq area's page
 * offset, in any page: neither the main thread's nor that of a thread
 * whose stack puts its area elsewhere (4K aliasing: a sequence's store to
 * rseq_cs delays a load of a slot at the same page offset).
 */
static uintptr_t area_block(void)
{
	const volatile int *cpu_at, *index_at;

	(void)fastcpu_sched_getcpu();
	if (fastcpu_percpu_index_(FASTCPU_BY_CPU, &cpu_at, &index_at) < 0)
		return UINTPTR_MAX;
	return ((uintptr_t)cpu_at - 4) % 4096 / 32;
}

static void *objects_clear_of_own_area(void *unused)
{
	uintptr_t block = area_block();
	enum { OBJECTS = 2000 };
	static char *o[OBJECTS];

	(void)unused;
	if (block == UINTPTR_MAX)
		return NULL;
	for (int i = 0; i < OBJECTS; i++) {
		size_t size = 8 + (size_t)(i % 5) * 24;

		o[i] = fastcpu_percpu_zalloc(size);
		ck_assert_ptr_nonnull(o[i]);
		for (uintptr_t b = (uintptr_t)o[i] / 32; b <= ((uintptr_t)o[i] + size - 1) / 32; b++)
			ck_assert_msg(b % (4096 / 32) != block, "object %p covers its area's offset %#lx",
				      (void *)o[i], (unsigned long)(block * 32));
	}
	for (int i = 0; i < OBJECTS; i++)
		fastcpu_percpu_free(o[i]);
	return (void *)1;
}

START_TEST(percpu_clear_of_rseq_area_offsets)
{
	pthread_attr_t odd_stack;
	pthread_t t;
	void *ran;

	if (objects_clear_of_own_area(NULL) == NULL)
		return;		/* no area to keep clear of */
	pthread_attr_init(&odd_stack);
	pthread_attr_setstacksize(&odd_stack, 100000);	/* its area at another offset */
	ck_assert_int_eq(pthread_create(&t, &odd_stack, objects_clear_of_own_area, NULL), 0);
	ck_assert_int_eq(pthread_join(t, &ran), 0);
	pthread_attr_destroy(&odd_stack);
}
END_TEST

/*
 * Beside a thread whose rseq area sits mid-page (a program-given stack puts
 * it 2 KiB into a page) and one whose area sits at a page's start (where
 * glibc puts its own threads' areas, under glibc's registration), an
 * object of 2 KiB finds no room clear of both fences (63 blocks of 32
 * bytes between them, each way round): it is placed packed then, not in a
 * chunk of its own. 256 of them map at most four times their 512 KiB a
 * copy, and 2,000 take well under a second. (At df232b9 each took a chunk
 * of its own, and lay over a fence anyway: 64 MiB for 2 MiB packed;
 * 2,000 objects, 504 MiB and 12.8 s.)
 */
#define MID_PAGE 2048
#define GIVEN_STACK_BYTES ((size_t)256 << 10)
#define TWO_KIB_SMALL 256
#define TWO_KIB_MANY 2000

static struct {
	uintptr_t offset;		/* the thread's area's page offset */
	size_t small_mapped;		/* mapped for the first 256 objects */
	double many_ms;			/* the 2,000 objects' time */
} mid_page;

/* The calling thread's area's page offset, its fence learned. */
static void *fence_here(void *unused)
{
	(void)unused;
	fastcpu_percpu_free(fastcpu_percpu_alloc(8));
	return (void *)(area_block() * 32);
}

static void *two_kib_objects(void *unused)
{
	static void *o[TWO_KIB_MANY];
	size_t before = test_mapped_bytes();
	double start = test_now_ms();

	(void)unused;
	mid_page.offset = area_block() * 32;
	for (int i = 0; i < TWO_KIB_MANY; i++) {
		ck_assert_ptr_nonnull(o[i] = fastcpu_percpu_alloc(2048));
		if (i + 1 == TWO_KIB_SMALL)
			mid_page.small_mapped = test_mapped_bytes() - before;
	}
	mid_page.many_ms = test_now_ms() - start;
	for (int i = 0; i < TWO_KIB_MANY; i++)
		fastcpu_percpu_free(o[i]);
	return NULL;
}

/* A thread on the given stack, its top bytes above base, running work. */
static void *on_given_stack(char *base, size_t top, void *(*work)(void *))
{
	pthread_attr_t given;
	pthread_t t;
	void *result;

	pthread_attr_init(&given);
	ck_assert_int_eq(pthread_attr_setstack(&given, base, top), 0);
	ck_assert_int_eq(pthread_create(&t, &given, work, NULL), 0);
	ck_assert_int_eq(pthread_join(t, &result), 0);
	pthread_attr_destroy(&given);
	return result;
}

/* The stack's top that puts a thread's area at target in its page, or
 * up to 63 bytes below: the area follows the top (static TLS, or glibc's
 * struct pthread, just under it), lowered by whole cache lines. */
static size_t top_for(char *stack, uintptr_t target)
{
	uintptr_t aligned = (uintptr_t)on_given_stack(stack, GIVEN_STACK_BYTES, fence_here);

	return GIVEN_STACK_BYTES - ((aligned + 4096 - target) % 4096 + 63) / 64 * 64 % 4096;
}

START_TEST(percpu_beside_mid_page_area)
{
	char *stack = mmap(NULL, GIVEN_STACK_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t packed = (size_t)TWO_KIB_SMALL * 2048 * (size_t)fastcpu_cid_limit();

	ck_assert_ptr_ne(stack, MAP_FAILED);
	if (area_block() == UINTPTR_MAX)
		return;		/* no area, no fence */
	(void)on_given_stack(stack, top_for(stack, 0), fence_here);
	(void)on_given_stack(stack, top_for(stack, MID_PAGE), two_kib_objects);
	printf("percpu_beside_mid_page_area: area at %lu of its page; 256 objects of 2 KiB mapped "
	       "%zu KiB (packed: %zu KiB), 2,000 took %.1f ms\n", (unsigned long)mid_page.offset,
	       mid_page.small_mapped >> 10, packed >> 10, mid_page.many_ms);
	ck_assert_msg(MID_PAGE - mid_page.offset < 64, "the area at %lu of its page, not %d",
		      (unsigned long)mid_page.offset, MID_PAGE);
	ck_assert_msg(mid_page.small_mapped <= 4 * packed, "256 objects of 2 KiB mapped %zu KiB",
		      mid_page.small_mapped >> 10);
	ck_assert_msg(mid_page.many_ms < (test_instrumented() ? 20000 : 1000),
		      "2,000 objects of 2 KiB took %.0f ms", mid_page.many_ms);
	munmap(stack, GIVEN_STACK_BYTES);
}
END_TEST

/* Whether sysfs says node has memory of its own. */
static bool node_has_memory(unsigned int node)
{
	char path[96], line[256];
	FILE *f;
	bool memory = false;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/meminfo", node);
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		unsigned long kb;

		if (sscanf(line, "Node %*u MemTotal: %lu kB", &kb) == 1)
			memory = kb > 0;
	}
	if (f != NULL)
		fclose(f);
	return memory;
}

/*
 * Where the machine has several nodes (the kernel matrix's guests: CPUs on
 * nodes 0 and 1, node 2 memory only), each copy's pages lie on the node of
 * its CPU, where that node has memory: move_pages() without targets says
 * where a page is. One node: nothing to place, and nothing fails. Only the
 * copies of CPUs this process may run on: sysfs lists an offline CPU (the
 * guests' CPU 1) under no node, so its copy lies wherever first touched.
 */
START_TEST(percpu_copies_on_their_nodes)
{
	long *p = fastcpu_percpu_zalloc(sizeof(long));
	int n = fastcpu_cid_limit(), cpus = n / 2, checked = 0;
	bool several = false;

	ck_assert_ptr_nonnull(p);
	for (int cpu = 1; cpu < cpus; cpu++)
		several |= test_sysfs_node(cpu) != test_sysfs_node(0);
	for (int i = 0; i < n; i++) {
		void *page = fastcpu_percpu_ptr(p, i);
		unsigned int want = test_sysfs_node(i % cpus);
		int where = -1;

		*(volatile long *)page = i;
		if (syscall(SYS_move_pages, 0, 1ul, &page, NULL, &where, 0) != 0) {
			ck_assert_msg(errno == ENOSYS || errno == EPERM, "move_pages: errno %d",
				      errno);
			break;		/* no NUMA in this kernel, or not allowed */
		}
		if (several && CPU_ISSET(i % cpus, &test_allowed) && node_has_memory(want)) {
			ck_assert_msg(where == (int)want, "copy %d (CPU %d) on node %d, not %u", i,
				      i % cpus, where, want);
			checked++;
		}
	}
	if (several)
		printf("percpu_copies_on_their_nodes: %d copies on their CPU's node\n", checked);
	fastcpu_percpu_free(p);
}
END_TEST

/* ---- counters ----------------------------------------------------------- */

/*
 * A million counters (FASTCPU_STRESS scales them), each added to by every
 * thread (4 per allowed CPU), summed exactly, freed; and they take 8 bytes
 * a copy: a million fit in about 8 MB a copy.
 */
static struct {
	struct fastcpu_counter **c;
	long count;
} many;

static void *add_to_every_counter(void *arg)
{
	long start = (long)(intptr_t)arg;

	for (long k = 0; k < many.count; k++)
		fastcpu_counter_add(many.c[(k + start * 7919) % many.count], 1);
	return NULL;
}

START_TEST(million_counters_exact)
{
	int threads = 4 * CPU_COUNT(&test_allowed);
	pthread_t *t = calloc((size_t)threads, sizeof(*t));
	long packed = 0;

	many.count = test_scaled(1000000);
	if (test_instrumented())
		many.count /= 10;
	many.c = malloc((size_t)many.count * sizeof(*many.c));
	ck_assert(t != NULL && many.c != NULL);
	for (long k = 0; k < many.count; k++) {
		many.c[k] = fastcpu_counter_new();
		ck_assert_ptr_nonnull(many.c[k]);
		packed += k > 0 && (char *)many.c[k] - (char *)many.c[k - 1] == 8;
	}
	for (int i = 0; i < threads; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, add_to_every_counter,
						(void *)(intptr_t)i), 0);
	for (int i = 0; i < threads; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	for (long k = 0; k < many.count; k++) {
		ck_assert_int_eq(fastcpu_counter_sum(many.c[k]), threads);
		fastcpu_counter_free(many.c[k]);
	}
	/* One after the other, 8 bytes apart, but where a chunk ends or a
	 * page's fence lies (a thread's rseq area's offset: 32 of 4096 bytes). */
	ck_assert_int_ge(packed, many.count - many.count / 50 - 1);
	free(many.c);
	free(t);
}
END_TEST

/* FASTCPU_1.2's counters, for programs built with its header (whose inline
 * add takes 128-byte slots): still there, at that version. */
START_TEST(counter_of_release_0_3)
{
	void *lib = dlopen("libfastcpu.so.0", RTLD_NOW | RTLD_NOLOAD);
	struct fastcpu_counter *(*new_1_2)(void);
	long (*sum_1_2)(const struct fastcpu_counter *);
	void (*free_1_2)(struct fastcpu_counter *);
	struct fastcpu_counter *c;

	if (lib == NULL)
		return;		/* linked statically: no versions */
	new_1_2 = (struct fastcpu_counter *(*)(void))dlvsym(lib, "fastcpu_counter_new",
							    "FASTCPU_1.2");
	sum_1_2 = (long (*)(const struct fastcpu_counter *))dlvsym(lib, "fastcpu_counter_sum",
								   "FASTCPU_1.2");
	free_1_2 = (void (*)(struct fastcpu_counter *))dlvsym(lib, "fastcpu_counter_free",
							      "FASTCPU_1.2");
	ck_assert(new_1_2 != NULL && sum_1_2 != NULL && free_1_2 != NULL);
	c = new_1_2();
	ck_assert_ptr_nonnull(c);
	for (int i = 0; i < 1000; i++)
		fastcpu_percpu_add(c, 128, FASTCPU_BY_CPU, 2);
	ck_assert_int_eq(sum_1_2(c), 2000);
	free_1_2(c);
	dlclose(lib);
}
END_TEST

Suite *suite_memory(void)
{
	Suite *s = suite_create("memory");
	TCase *tc = tcase_create("default");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, percpu_copies_are_independent);
	tcase_add_test(tc, percpu_bad_input);
	tcase_add_test(tc, percpu_space_reused);
	tcase_add_test(tc, out_of_address_space);
	tcase_add_test(tc, percpu_fork_child_copies);
	test_add_respawning(tc, percpu_fork_in_programs_handlers, 0, 1);
	tcase_add_test(tc, percpu_clear_of_rseq_area_offsets);
	tcase_add_test(tc, percpu_beside_mid_page_area);
	tcase_add_test(tc, percpu_copies_on_their_nodes);
	tcase_add_test(tc, million_counters_exact);
	tcase_add_test(tc, counter_of_release_0_3);
	suite_add_tcase(s, tc);
	return s;
}
