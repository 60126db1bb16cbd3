/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/memory-workloads.c: one round of each workload, for one allocator. */

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fastcpu.h"
#include "librseq-shaped.h"
#include "memory.h"
#include "private.h"
#include "runner.h"

const struct memory_allocator_of memory_allocators[MEMORY_ALLOCATORS] = {
	{ "glibc", "glibc malloc", NULL, NULL },
	{ "jemalloc", "jemalloc", "libjemalloc.so.2", "mallocx" },
	{ "mimalloc", "mimalloc", "libmimalloc.so.3:libmimalloc.so.2", "mi_malloc" },
	{ "tcmalloc", "tcmalloc", "libtcmalloc_minimal.so.4", "tc_malloc" },
	{ "objcache", "libfastcpu objcache", NULL, NULL },
	{ "list", "global lock-free list", NULL, NULL },
};
const size_t memory_sizes[MEMORY_SIZES] = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 };
const size_t memory_footprint_sizes[MEMORY_FOOTPRINT_SIZES] = { 8, 24, 64, 100, 256 };
const int memory_held_threads[MEMORY_HELD_THREADS] = { 2, 1000 };
const struct memory_setup_of memory_setups[MEMORY_SETUPS] = {
	{ "own_area", "own area (glibc's rseq off)", NULL, 0 },
	{ "forced_rdpid", "forced rdpid", "rdpid", FASTCPU_BACKEND_RDPID },
	{ "forced_vdso", "forced vdso", "vdso", FASTCPU_BACKEND_VDSO },
	{ "forced_syscall", "forced syscall", "syscall", FASTCPU_BACKEND_SYSCALL },
	{ "glibc_area", "glibc's area", NULL, FASTCPU_BACKEND_RSEQ_GLIBC },
	{ "own_area", "the library's own area", NULL, FASTCPU_BACKEND_RSEQ_OWN },
};

/* The global lock-free list every CPU shares, a head per size, a CAS each
 * way: the head holds the first object's number and a tag every change
 * moves on (no ABA unless 2^32 changes in between); fresh objects come from
 * a reserved region. */
#define LIST_REGION (1ul << 30)

struct global_list {
	uint64_t head;		/* tag << 32 | (number + 1); number + 1 == 0: empty */
	char *region;
	size_t size, used;
};

static void *list_pop(struct global_list *l)
{
	uint64_t head = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE), next;
	size_t at;

	while ((uint32_t)head != 0) {
		char *object = l->region + ((uint32_t)head - 1) * l->size;

		next = ((head >> 32) + 1) << 32 | __atomic_load_n((uint32_t *)(void *)object,
								 __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&l->head, &head, next, true, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE))
			return object;
	}
	at = __atomic_fetch_add(&l->used, l->size, __ATOMIC_RELAXED);
	return at + l->size <= LIST_REGION ? l->region + at : NULL;
}

static void list_push(struct global_list *l, void *object)
{
	uint64_t number = (uint64_t)((char *)object - l->region) / l->size + 1;
	uint64_t head = __atomic_load_n(&l->head, __ATOMIC_RELAXED);

	do
		__atomic_store_n((uint32_t *)object, (uint32_t)head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&l->head, &head, ((head >> 32) + 1) << 32 | number,
					    true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

static struct global_list *list_new(size_t size)
{
	struct global_list *l = calloc(1, sizeof(*l));

	if (l == NULL)
		abort();
	l->size = size < sizeof(uint32_t) ? sizeof(uint32_t) : size;
	l->region = mmap(NULL, LIST_REGION, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (l->region == MAP_FAILED)
		abort();
	return l;
}

/* ---- one allocator at one size ------------------------------------------ */

struct handle {
	enum memory_allocator kind;
	size_t size;
	struct fastcpu_objcache *cache;
	struct global_list *list;
};

static enum memory_allocator kind;

static struct handle handle_of_kind(enum memory_allocator k, size_t size)
{
	struct handle h = { k, size, NULL, NULL };

	if (k == MEMORY_OBJCACHE && (h.cache = fastcpu_objcache_new(size, 0)) == NULL)
		abort();
	if (k == MEMORY_LIST)
		h.list = list_new(size);
	return h;
}

static struct handle handle_of(size_t size)
{
	return handle_of_kind(kind, size);
}

static inline __attribute__((always_inline)) void *get(const struct handle *h)
{
	void *p;

	if (h->kind == MEMORY_OBJCACHE)
		p = fastcpu_objcache_alloc(h->cache);
	else if (h->kind == MEMORY_LIST)
		p = list_pop(h->list);
	else
		p = malloc(h->size);
	if (p == NULL)
		abort();
	return p;
}

static inline __attribute__((always_inline)) void put(const struct handle *h, void *p)
{
	if (h->kind == MEMORY_OBJCACHE)
		fastcpu_objcache_free(h->cache, p);
	else if (h->kind == MEMORY_LIST)
		list_push(h->list, p);
	else
		free(p);
}

/* ---- the workloads ------------------------------------------------------ */

/* The loop alone, per iteration: subtracted from the pairs (out of line,
 * as at ff75c11, where the compiler chose so). */
static __attribute__((noinline)) double empty_ns(long n)
{
	double t0 = bench_thread_cpu_ns();

	for (long i = 0; i < n; i++)
		KEEP(i);
	return (bench_thread_cpu_ns() - t0) / (double)n;
}

/* (a) An allocation and its free, n times: CPU ns a pair. Each kind's loop
 * keeps its cache or size in a register, as a caller that holds them does:
 * a load of the handle after each would time the benchmark's shape, not
 * the allocator (the floor keeps its lists so). */
#define PAIRS_LOOP(alloc, free_it)					\
	for (long i = 0; i < n; i++) {					\
		void *p = (alloc);					\
									\
		if (p == NULL)						\
			abort();					\
		KEEP(p);						\
		free_it;						\
	}

/* LOOP of h's kind, its cache, list or size held in a local. */
#define BY_KIND(h, LOOP)							\
	struct fastcpu_objcache *cache = (h)->cache;				\
	struct global_list *list = (h)->list;					\
	size_t size = (h)->size;						\
	double t0 = bench_thread_cpu_ns();					\
									\
	if ((h)->kind == MEMORY_OBJCACHE)					\
		LOOP(fastcpu_objcache_alloc(cache), fastcpu_objcache_free(cache, p))	\
	else if ((h)->kind == MEMORY_LIST)					\
		LOOP(list_pop(list), list_push(list, p))			\
	else									\
		LOOP(malloc(size), free(p))

static double pairs(const struct handle *h, long n)
{
	BY_KIND(h, PAIRS_LOOP)
	return (bench_thread_cpu_ns() - t0) / (double)n;
}

struct crowd {
	const struct handle *h;
	long n;
};

static double crowd_member(void *arg)
{
	const struct crowd *c = arg;

	return pairs(c->h, c->n);
}

/* The same in threads threads at once, free to move: their mean. */
static double pairs_crowded(const struct handle *h, long n, int threads)
{
	struct crowd c = { h, n };

	return bench_in_threads(threads < 256 ? threads : 256, NULL, crowd_member, &c);
}

/* 16 allocations, then their 16 frees: CPU ns per pair. */
#define BATCHES_LOOP(alloc, free_it)					\
	for (long i = 0; i < n; i += 16) {				\
		for (int k = 0; k < 16; k++)				\
			if ((batch[k] = (alloc)) == NULL)		\
				abort();				\
		for (int k = 0; k < 16; k++) {				\
			void *p = batch[k];				\
									\
			free_it;					\
		}							\
	}

static double batches(const struct handle *h, long n)
{
	void *batch[16];
	BY_KIND(h, BATCHES_LOOP)
	return (bench_thread_cpu_ns() - t0) / (double)n;
}

/*
 * The floor of the object cache's pair: the plainest per-CPU sequences of
 * the field in their own shapes (librseq's param_test list and buffer,
 * librseq-shaped.h), on one object in per-CPU memory by CPU number, in the
 * cache's process; each takes the CPU from cpu_id_start before each
 * operation, as librseq does; the area found once. x86-64 only: -1 else.
 */
#ifdef LIBRSEQ_SHAPED_ADD
struct floor_buffer {
	intptr_t count, room;
	void **array;
};

static const volatile int *area_cpu_id(void)
{
	const volatile int *cpu_at, *index_at;

	(void)fastcpu_sched_getcpu();
	return fastcpu_percpu_index_(FASTCPU_BY_CPU, &cpu_at, &index_at) < 0 ? NULL : cpu_at;
}

static inline int cpu_start(const volatile int *cpu_at)
{
	return cpu_at[-1];	/* cpu_id_start, just before cpu_id */
}

static double floor_list(long n)
{
	int copies = fastcpu_cid_limit();
	void **heads = fastcpu_percpu_zalloc(sizeof(void *));
	void **nodes = calloc((size_t)copies * 64, 8 * sizeof(void *));
	const volatile int *cpu_at = area_cpu_id();
	size_t stride = fastcpu_percpu_stride();
	double t0 = -1;

	if (heads == NULL || nodes == NULL || cpu_at == NULL)
		goto out;
	for (int c = 0; c < copies; c++) {	/* every copy's list: 64 nodes of 64 bytes */
		void **first = nodes + (size_t)c * 64 * 8;

		for (int i = 0; i < 63; i++)
			first[i * 8] = &first[(i + 1) * 8];
		*(void **)fastcpu_percpu_ptr(heads, c) = first;
	}
	t0 = bench_thread_cpu_ns();
	for (long i = 0; i < n; i++) {
		void **head, *node, *expect;
		int cpu, r;

		do {
			cpu = cpu_start(cpu_at);
			head = (void **)fastcpu_percpu_slot_(heads, stride, (size_t)cpu);
		} while ((r = librseq_shaped_list_pop(cpu_at, head, &node, cpu)) < 0);
		if (r != 0) {		/* empty: not this thread's list after all */
			t0 = -1;
			goto out;
		}
		KEEP(node);
		do {
			cpu = cpu_start(cpu_at);
			head = (void **)fastcpu_percpu_slot_(heads, stride, (size_t)cpu);
			expect = __atomic_load_n(head, __ATOMIC_RELAXED);
			*(void **)node = expect;
		} while (librseq_shaped_list_push(cpu_at, head, expect, node, cpu) != 0);
	}
	t0 = (bench_thread_cpu_ns() - t0) / (double)n;
out:
	fastcpu_percpu_free(heads);
	free(nodes);
	return t0;
}

/* The buffer's pop and push; with the contracts the object cache keeps
 * (contracts true): the free's check that its pointer is one of the
 * cache's objects (the same multiplication and rotation, <fastcpu/objcache.h>:
 * a foreign pointer gets EINVAL, not a place in the buffer), and rseq_cs
 * cleared after each sequence (so that the code may be unloaded). */
static void *floor_nodes[64][8];	/* 64 objects of 64 bytes */

static void sequence_done(const volatile int *cpu_at, bool contracts)
{
	if (contracts)
		__atomic_store_n((uint64_t *)(uintptr_t)((const volatile char *)cpu_at + 4), 0,
				 __ATOMIC_RELAXED);
}

static double floor_buffer(long n, bool contracts)
{
	const struct fastcpu_objcache_fast_ objects = {
		.low = (uintptr_t)floor_nodes, .carved = 64, .inverse = 1, .shift = 6,
	};
	struct floor_buffer *buffers = fastcpu_percpu_zalloc(sizeof(struct floor_buffer));
	const volatile int *cpu_at = area_cpu_id();
	size_t stride = fastcpu_percpu_stride();
	int copies = fastcpu_cid_limit();
	double t0;

	if (buffers == NULL || cpu_at == NULL)
		return -1;
	for (int c = 0; c < copies; c++) {
		struct floor_buffer *b = fastcpu_percpu_ptr(buffers, c);

		b->room = 64;
		if ((b->array = calloc(64, sizeof(void *))) == NULL)
			abort();
		for (int i = 0; i < 64; i++)
			b->array[b->count++] = floor_nodes[i];
	}
	t0 = bench_thread_cpu_ns();
	for (long i = 0; i < n; i++) {
		struct floor_buffer *b;
		intptr_t count;
		void *node;
		int cpu;

		do {
			cpu = cpu_start(cpu_at);
			b = (struct floor_buffer *)(void *)fastcpu_percpu_slot_(buffers, stride,
										 (size_t)cpu);
			count = __atomic_load_n(&b->count, __ATOMIC_RELAXED);
			node = count > 0 ? __atomic_load_n(&b->array[count - 1], __ATOMIC_RELAXED) :
			       NULL;
		} while (count == 0 ||
			 librseq_shaped_buffer_pop(cpu_at, &b->count, count, &b->array[count - 1],
						   node, cpu) != 0);
		sequence_done(cpu_at, contracts);
		KEEP(node);
		if (contracts && !fastcpu_objcache_ours_(&objects, node))
			abort();
		do {
			cpu = cpu_start(cpu_at);
			b = (struct floor_buffer *)(void *)fastcpu_percpu_slot_(buffers, stride,
										 (size_t)cpu);
			count = __atomic_load_n(&b->count, __ATOMIC_RELAXED);
		} while (count == b->room ||
			 librseq_shaped_buffer_push(cpu_at, &b->count, count, &b->array[count], node,
						    cpu) != 0);
		sequence_done(cpu_at, contracts);
	}
	t0 = (bench_thread_cpu_ns() - t0) / (double)n;
	for (int c = 0; c < copies; c++)
		free(((struct floor_buffer *)fastcpu_percpu_ptr(buffers, c))->array);
	fastcpu_percpu_free(buffers);
	return t0;
}
#else
# define floor_list(n) -1.0
# define floor_buffer(n, contracts) -1.0
#endif

/* (b) 10000 allocations, then their 10000 frees, ten times: the median
 * ns per allocation and per free. */
#define MANY 10000

static void many(const struct handle *h, double *alloc_ns, double *free_ns)
{
	void **p = malloc(MANY * sizeof(*p));
	double a[10], f[10], best;

	if (p == NULL)
		abort();
	for (int r = 0; r < 10; r++) {
		double t0 = bench_thread_cpu_ns(), t1;

		for (int i = 0; i < MANY; i++)
			p[i] = get(h);
		t1 = bench_thread_cpu_ns();
		for (int i = 0; i < MANY; i++)
			put(h, p[i]);
		a[r] = (t1 - t0) / MANY;
		f[r] = (bench_thread_cpu_ns() - t1) / MANY;
	}
	bench_best_and_median(a, 10, &best, alloc_ns);
	bench_best_and_median(f, 10, &best, free_ns);
	free(p);
}

/* (b) The cold set: objects objects of 64 bytes taken, freed shuffled,
 * taken again: CPU ns an operation. The benchmark never touches them: what
 * misses is the allocator's own use of a free object or its metadata. */
static double cold_set(const struct handle *h, long objects)
{
	void **p = malloc((size_t)objects * sizeof(*p));
	unsigned int seed = 1;
	double t0;

	if (p == NULL)
		abort();
	for (long i = 0; i < objects; i++)
		p[i] = get(h);
	for (long i = objects - 1; i > 0; i--) {
		long j = (long)((((uint64_t)(unsigned int)rand_r(&seed) << 31) ^
				 (uint64_t)(unsigned int)rand_r(&seed)) % (uint64_t)(i + 1));
		void *t = p[i];

		p[i] = p[j];
		p[j] = t;
	}
	t0 = bench_thread_cpu_ns();
	for (long i = 0; i < objects; i++)
		put(h, p[i]);
	for (long i = 0; i < objects; i++)
		p[i] = get(h);
	t0 = (bench_thread_cpu_ns() - t0) / (double)(2 * objects);
	for (long i = 0; i < objects; i++)
		put(h, p[i]);
	free(p);
	return t0;
}

static int compare_addresses(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return (x > y) - (x < y);
}

/* (c) What an object of size bytes takes: the median distance between
 * neighbours among 1000 allocated one after the other. */
static double bytes_per_object(size_t size)
{
	struct handle h = handle_of(size);
	uintptr_t a[1000];
	double d[999], least, median;

	for (int i = 0; i < 1000; i++)
		a[i] = (uintptr_t)get(&h);
	qsort(a, 1000, sizeof(a[0]), compare_addresses);
	for (int i = 0; i < 999; i++)
		d[i] = (double)(a[i + 1] - a[i]);
	bench_best_and_median(d, 999, &least, &median);
	for (int i = 0; i < 1000; i++)
		put(&h, (void *)a[i]);
	return median;
}

/* (c) Threads threads, each in turn taking 16 objects of 64 bytes and
 * freeing them, all alive; then the main thread takes more than they used:
 * the bytes of theirs it does not get back are held where it cannot reach
 * them (per-thread caches, another CPU's list). */
static struct {
	pthread_mutex_t turn;
	pthread_barrier_t done;
	const struct handle *h;
	uintptr_t *used;
	int count, taken;
} held;

static void *take_sixteen(void *unused)
{
	void *p[16];

	(void)unused;
	pthread_mutex_lock(&held.turn);
	for (int i = 0; i < 16; i++)
		held.used[held.count++] = (uintptr_t)(p[i] = get(held.h));
	for (int i = 0; i < 16; i++)
		put(held.h, p[i]);
	held.taken++;
	pthread_mutex_unlock(&held.turn);
	pthread_barrier_wait(&held.done);
	return NULL;
}

static double held_bytes(int threads)
{
	struct handle h = handle_of(64);
	pthread_t *t = calloc((size_t)threads, sizeof(*t));
	pthread_attr_t small;
	int want, reused = 0, distinct = 0;
	void **mine;

	held.h = &h;
	held.count = held.taken = 0;
	held.used = malloc((size_t)threads * 16 * sizeof(*held.used));
	want = threads * 16 + 1024;
	mine = malloc((size_t)want * sizeof(*mine));
	if (t == NULL || held.used == NULL || mine == NULL)
		abort();
	pthread_mutex_init(&held.turn, NULL);
	pthread_barrier_init(&held.done, NULL, (unsigned int)threads + 1);
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], &small, take_sixteen, NULL) != 0)
			abort();
	while (__atomic_load_n(&held.taken, __ATOMIC_ACQUIRE) < threads)
		usleep(1000);
	qsort(held.used, (size_t)held.count, sizeof(uintptr_t), compare_addresses);
	for (int i = 0; i < held.count; i++)
		distinct += i == 0 || held.used[i] != held.used[i - 1];
	for (int i = 0; i < want; i++) {
		uintptr_t key = (uintptr_t)(mine[i] = get(&h));

		reused += bsearch(&key, held.used, (size_t)held.count, sizeof(uintptr_t),
				  compare_addresses) != NULL;
	}
	for (int i = 0; i < want; i++)
		put(&h, mine[i]);
	pthread_barrier_wait(&held.done);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&held.done);
	pthread_attr_destroy(&small);
	free(held.used);
	free(mine);
	free(t);
	return (double)(distinct > reused ? distinct - reused : 0) * 64;
}

/* A floor's ns less the loop's, NAN where it did not run (-1). */
static double less_empty(double ns, double empty)
{
	return ns < 0 ? NAN : ns - empty;
}

/* The pairs of one thread, as many as a round takes: opaque to the loops
 * (noipa), as a setting is; a bound the compiler knows compiles the floors
 * otherwise (the buffer floor's figure moved 7%). */
static __attribute__((noipa)) long pairs_of_round(void)
{
	return bench.quick ? 20000 : 200000;
}

/* A row of one round: a single figure. */
static void figure(struct rows *out, const char *table, const char *key, const char *name,
		   int threads, enum unit unit, double v)
{
	rows_add(out, table, key, name, threads, unit, v, v);
}

/* The same of a size: keyed key and the size, named name and the size. */
static void sized(struct rows *out, const char *table, const char *key, const char *name,
		  size_t size, int threads, enum unit unit, double v)
{
	char k[ROW_KEY], n[64];

	snprintf(k, sizeof(k), "%s%zu", key, size);
	snprintf(n, sizeof(n), "%s%zu", name, size);
	figure(out, table, k, n, threads, unit, v);
}

/* In the object cache's process: its floors, its pair by CPU number, and
 * glibc's pair, 64 bytes, pinned; and their ratios, of this process. */
static void same_process(double empty, struct rows *out)
{
	struct handle by_cpu = handle_of(64), glibc = handle_of_kind(MEMORY_GLIBC, 64);
	long n = pairs_of_round();
	figure(out, "8a", "floor_list_pair_64", "floor: librseq-shaped list pair 64", 0, UNIT_NS,
	       less_empty(floor_list(n), empty));
	figure(out, "8a", "floor_buffer_pair_64", "floor: librseq-shaped buffer pair 64", 0, UNIT_NS,
	       less_empty(floor_buffer(n, false), empty));
	fastcpu_private_objcache_index(by_cpu.cache, FASTCPU_BY_CPU);
	(void)pairs(&by_cpu, n / 10);
	figure(out, "8a", "pair_64_by_cpu", "pair 64 by CPU number", 0, UNIT_NS,
	       pairs(&by_cpu, n) - empty);
	(void)pairs(&glibc, n / 10);
	figure(out, "8a", "glibc_pair_64", "glibc pair 64 in this process", 0, UNIT_NS,
	       pairs(&glibc, n) - empty);
	figure(out, "8a", "floor_pair_64", "floor of the cache's contracts: buffer pair 64, the free's "
	       "check, rseq_cs cleared", 0, UNIT_NS, less_empty(floor_buffer(n, true), empty));
}

void memory_allocator_workload(int allocator, struct rows *out)
{
	const struct memory_allocator_of *a = &memory_allocators[allocator];
	long n = pairs_of_round();
	double empty;

	kind = (enum memory_allocator)allocator;
	if (a->marker != NULL && dlsym(RTLD_DEFAULT, a->marker) == NULL)
		return;		/* not preloaded after all: no rows */
	bench_pin(bench.first_cpu);
	(void)fastcpu_sched_getcpu();
	empty = empty_ns(n);
	for (int i = 0; i < MEMORY_SIZES; i++) {
		struct handle h = handle_of(memory_sizes[i]);

		(void)pairs(&h, n / 10);		/* warm */
		sized(out, "8a", "pair_", "pair ", memory_sizes[i], 0, UNIT_NS,
		      pairs(&h, n) - empty);
	}
	{
		struct handle h = handle_of(64);
		double alloc_ns, free_ns;

		figure(out, "8b", "batch_16", "batch of 16", 0, UNIT_NS, batches(&h, n) - empty);
		many(&h, &alloc_ns, &free_ns);
		figure(out, "8b", "alloc_10000", "alloc of 10000", 0, UNIT_NS, alloc_ns);
		figure(out, "8b", "free_10000", "free of 10000", 0, UNIT_NS, free_ns);
		figure(out, "8b", "cold_set", "cold set per operation", 0, UNIT_NS,
		       cold_set(&h, bench.quick ? 1L << 16 : 1L << 20));
	}
	if (kind == MEMORY_OBJCACHE)
		same_process(empty, out);
	for (int i = 0; i < MEMORY_FOOTPRINT_SIZES; i++)
		sized(out, "8c", "bytes_per_", "bytes per object of ", memory_footprint_sizes[i],
		      0, UNIT_BYTES, bytes_per_object(memory_footprint_sizes[i]));
	bench_pin(-1);
	for (int i = 0; i < MEMORY_SIZES; i++) {
		struct handle h = handle_of(memory_sizes[i]);

		sized(out, "8a", "pair_", "pair ", memory_sizes[i], 2 * bench.cpus, UNIT_NS,
		      pairs_crowded(&h, n, 2 * bench.cpus) - empty);
	}
	for (int i = 0; i < MEMORY_HELD_THREADS; i++)
		figure(out, "8c", "bytes_held", "bytes held", memory_held_threads[i], UNIT_BYTES,
		       held_bytes(memory_held_threads[i]));
	if (kind == MEMORY_OBJCACHE)
		rows_ratio(out, "8a", "crowded_to_one", "pair 64, 2x CPUs threads / one thread",
			   rows_get(out, "8a", 2 * bench.cpus, "pair_64"),
			   rows_get(out, "8a", 0, "pair_64"), NULL);
	rows_prefix(out, 0, a->key, a->name);
}

/* Whether the setup's backend serves this process's thread, the cache
 * aside; pinned first. */
static bool served(const struct memory_setup_of *s)
{
	int id;

	bench_pin(bench.first_cpu);
	(void)fastcpu_sched_getcpu();
	id = fastcpu_backend_id() & ~FASTCPU_BACKEND_CACHED;
	return s->backend_id != 0 ? id == s->backend_id :
	       id >= FASTCPU_BACKEND_RSEQ_GLIBC && id <= FASTCPU_BACKEND_RSEQ_OWN;
}

/* The cache's pair, 64 bytes, pinned, beside glibc's (and with floors,
 * the better floor sequence's between them) in this process, as rows of
 * table: and the pair's ratios to them, of this process. */
static void side_by_side(struct rows *out, const char *table, bool floors)
{
	struct handle cache = handle_of_kind(MEMORY_OBJCACHE, 64);
	struct handle glibc = handle_of_kind(MEMORY_GLIBC, 64);
	long n = pairs_of_round();
	double empty = empty_ns(n);

	(void)pairs(&cache, n / 10);
	(void)pairs(&glibc, n / 10);
	figure(out, table, "objcache_pair_64", "objcache pair 64", 0, UNIT_NS, pairs(&cache, n) - empty);
	if (floors) {
		figure(out, table, "floor_pair_64", "the floor of its contracts pair 64", 0, UNIT_NS,
		       less_empty(floor_buffer(n, true), empty));
		rows_ratio(out, table, "pair_to_floor", "objcache pair / the floor of its contracts",
			   rows_get(out, table, 0, "objcache_pair_64"),
			   rows_get(out, table, 0, "floor_pair_64"), NULL);
	}
	figure(out, table, "glibc_pair_64", "glibc malloc pair 64", 0, UNIT_NS, pairs(&glibc, n) - empty);
	rows_ratio(out, table, "pair_to_glibc", "objcache pair / glibc's",
		   rows_get(out, table, 0, "objcache_pair_64"), rows_get(out, table, 0, "glibc_pair_64"),
		   NULL);
}

/* A process of Table 8 (d) or (e); where the forced backend did not bind,
 * or the setup's area is not the thread's, no rows but (e)'s line of it. */
void memory_setup_workload(int setup, struct rows *out)
{
	if (served(&memory_setups[setup]))
		side_by_side(out, setup < MEMORY_SPREAD ? "8d" : "8e", setup >= MEMORY_SPREAD);
	else if (setup >= MEMORY_SPREAD)	/* "not here" */
		figure(out, "8e", "objcache_pair_64", "objcache pair 64", 0, UNIT_NS, NAN);
	rows_prefix(out, 0, memory_setups[setup].key, memory_setups[setup].name);
}
