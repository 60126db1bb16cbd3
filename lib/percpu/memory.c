/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/memory.c: per-CPU memory: objects with a copy per slot. */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach.h"
#include "fork-lock.h"
#include "kernel.h"
#include "memory.h"
#include "node.h"
#include "rseq-abi.h"
#include "wing.h"

/*
 * The SLUB seed's layout in user space: memory in chunks, each chunk
 * fastcpu_cid_limit() copies of STRIDE bytes, one after the other; an
 * object lives at the same offset in every copy, so that the object (its
 * address in copy 0) is the base of the per-CPU operations at that stride,
 * and objects sit packed next to each other, each copy's in the cache
 * lines of its own CPU. A chunk's address space is reserved once
 * (MAP_NORESERVE): only the pages a copy's objects touch are backed. Its
 * copy-0 space is given out in 8-byte units, first fit from a hint, two
 * bitmaps a chunk: the units in use, and the first unit of each object
 * (which tells an object's length, and a pointer the allocator gave from
 * one it did not). Freed space is zero in every copy (checked before it is
 * written: a copy never touched stays untouched), so every allocation comes
 * zeroed.
 *
 * One lock: allocation is not on anyone's per-operation fast path (the
 * operations on an object are). The heap's chunks and bitmaps change by
 * many stores, so it is a lock held across a fork (fork-lock.h) by the
 * wing's fork protocol (fork.c): a fork child gets it free, and a
 * program's own fork handler that allocates goes ahead, in the forking
 * thread that holds it.
 *
 * No small object covers the bytes a thread's rseq area has in its page
 * (its rseq_cs): a sequence stores there, then loads and stores the slot,
 * and a slot at the same page offset waits on that store (4K aliasing:
 * 1.0-1.8 ns an add instead of 0.62 on a Zen 4). Every copy begins on a
 * page, so one fence per page offset keeps every copy of every page clear.
 * The offsets are learned from the threads that allocate: glibc puts the
 * main thread's area at one (from its static TLS block) and the other
 * threads' at another (from the top of their stacks; a program-given stack
 * puts it wherever its top lies, mid-page too). The fences are for speed,
 * never a reason to waste memory: an object too large for every room
 * between them (2 KiB between two fences 2 KiB apart) is placed packed,
 * like a large one, rather than in a chunk of its own.
 */
#define STRIDE FASTCPU_PERCPU_STRIDE	/* a multiple of every page size Linux has */
#define UNIT 8
#define UNITS (STRIDE / UNIT)
#define WORDS (UNITS / 64)

#define PAGE 4096			/* the aliasing compares an address's low 12 bits */
#define FENCE_BYTES 32			/* struct rseq: 32 bytes aligned to 32 */
#define FENCE_OBJECT_MOST (PAGE / 2)	/* larger objects may cover a fence */

struct chunk {
	char *base;			/* copy 0; copy i at base + i * STRIDE */
	unsigned int free_units;
	unsigned int hint;		/* no free unit below it */
	uint64_t used[WORDS];
	uint64_t start[WORDS];
};

static struct {
	struct fastcpu_fork_lock lock;
	struct chunk **chunks;		/* sorted by base */
	size_t count, room;
	size_t last;			/* where room was found last */
	uint64_t fenced[PAGE / FENCE_BYTES / 64];	/* page offsets, FENCE_BYTES a bit */
} heap = { .lock = FASTCPU_FORK_LOCK_INIT };

static bool bit(const uint64_t *map, unsigned int u)
{
	return map[u / 64] >> (u % 64) & 1;
}

static void set_bit(uint64_t *map, unsigned int u, bool on)
{
	if (on)
		map[u / 64] |= (uint64_t)1 << (u % 64);
	else
		map[u / 64] &= ~((uint64_t)1 << (u % 64));
}

/* Units an object of size bytes takes, and its alignment in units: the
 * largest power of two that divides size, up to 64 bytes, at least one. */
static unsigned int units_of(size_t size)
{
	return (unsigned int)((size + UNIT - 1) / UNIT);
}

static unsigned int align_of(size_t size)
{
	size_t natural = size & -size;

	if (natural > 64)
		natural = 64;
	return natural <= UNIT ? 1 : (unsigned int)(natural / UNIT);
}

/* Fences the page offset of the calling thread's rseq area, if it has a
 * registered one (a program's inline sequences run on it even where this
 * build of the library runs none). */
static void learn_fence(void)
{
	const volatile int *cpu_at = fastcpu_attached_cpu_id();
	unsigned int block;

	if (*cpu_at < 0)
		return;
	block = (unsigned int)(((uintptr_t)cpu_at - offsetof(struct fastcpu_rseq_abi, cpu_id)) % PAGE) /
		FENCE_BYTES;
	heap.fenced[block / 64] |= (uint64_t)1 << (block % 64);
}

/* The fenced units among unit word w's 64 (512 bytes of a page: 16
 * blocks, 4 units each). */
#define UNITS_PER_FENCE (FENCE_BYTES / UNIT)

static uint64_t fenced_units(unsigned int w)
{
	unsigned int first = (unsigned int)((size_t)w * 64 * UNIT % PAGE / FENCE_BYTES);
	uint64_t blocks = heap.fenced[first / 64] >> (first % 64) & 0xffff, units = 0;

	for (unsigned int b = 0; blocks != 0; b++, blocks >>= 1)
		if (blocks & 1)
			units |= (((uint64_t)1 << UNITS_PER_FENCE) - 1) << (UNITS_PER_FENCE * b);
	return units;
}

/* The unit just past the first fence n units from u cover, or 0. */
static unsigned int past_fence(unsigned int u, unsigned int n)
{
	size_t last = ((size_t)(u + n) * UNIT - 1) / FENCE_BYTES;

	if (n * UNIT > FENCE_OBJECT_MOST)
		return 0;
	for (size_t b = (size_t)u * UNIT / FENCE_BYTES; b <= last; b++) {
		size_t in_page = b % (PAGE / FENCE_BYTES);

		if (heap.fenced[in_page / 64] >> (in_page % 64) & 1)
			return (unsigned int)((b + 1) * FENCE_BYTES / UNIT);
	}
	return 0;
}

static unsigned int align_up(unsigned int u, unsigned int a)
{
	return (u + a - 1) / a * a;
}

/* Whether n units aligned to a fit clear of the fences somewhere in a
 * page (every page has the same): else fences do not apply to them. */
static bool fits_clear(unsigned int n, unsigned int a)
{
	unsigned int u = 0, past;

	while (u < PAGE / UNIT && (past = past_fence(u, n)) != 0)
		u = align_up(past, a);	/* past a fence: beyond u */
	return u < PAGE / UNIT;
}

/* The first unit of a free run of n units aligned to a in c, clear of the
 * fences where fenced (the hint skips fenced units), or UNITS. */
static unsigned int find_run(const struct chunk *c, unsigned int n, unsigned int a, bool fenced)
{
	unsigned int u = fenced ? align_up(c->hint, a) : 0, past;
	bool small = fenced && n * UNIT <= FENCE_OBJECT_MOST;

	while (u + n <= UNITS) {
		unsigned int k;

		/* A word used up (or fenced, for a small object): past it. */
		if ((c->used[u / 64] | (small ? fenced_units(u / 64) : 0)) == UINT64_MAX) {
			u = (u / 64 + 1) * 64;
			u = (u + a - 1) / a * a;
			continue;
		}
		for (k = 0; k < n && !bit(c->used, u + k); k++)
			;
		if (k == n && (!small || (past = past_fence(u, n)) == 0))
			return u;
		u = align_up(k == n ? past : u + k + 1, a);
	}
	return UNITS;
}

/*
 * Where the machine has more than one NUMA node, copy i of a new chunk
 * prefers the node of CPU i (copy n + i, of the upper half, too): the
 * kernel's mbind(MPOL_PREFERRED), no libnuma. Preferred, not bound: a node
 * without memory to spare (or one with memory only) gives way to another,
 * and where the system call is refused (a sandbox) the pages go where the
 * kernel puts them.
 */
#define MPOL_PREFERRED_ 1

static void place(char *base, int copies)
{
	int n = fastcpu_possible_cpus(), first = -1, node;
	bool several = false;

	/* Two nodes sysfs names: a CPU in none (FASTCPU_POSSIBLE_CPUS's past
	 * the kernel's) makes no second one. */
	for (int cpu = 0; cpu < n && !several; cpu++) {
		node = fastcpu_node_of_cpu((unsigned int)cpu);
		if (first < 0)
			first = node;
		else
			several = node >= 0 && node != first;
	}
	if (!several)
		return;
	for (int i = 0; i < copies; i++) {
		unsigned long mask[FASTCPU_MAX_CPUS / (8 * sizeof(unsigned long))] = { 0 };
		int saved = errno;

		node = fastcpu_node_of_cpu((unsigned int)(i % n));
		if (node < 0 || node >= FASTCPU_MAX_CPUS)
			continue;
		mask[node / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
		(void)syscall(SYS_mbind, base + (size_t)i * STRIDE, (unsigned long)STRIDE,
			      MPOL_PREFERRED_, mask, (unsigned long)FASTCPU_MAX_CPUS + 1, 0);
		errno = saved;
	}
}

void fastcpu_percpu_memory_before_fork(void)
{
	fastcpu_fork_lock_before(&heap.lock);
}

void fastcpu_percpu_memory_after_fork(void)
{
	fastcpu_fork_lock_after(&heap.lock);
}

size_t fastcpu_percpu_quiet_offset(const void *slot)
{
	size_t line = ((uintptr_t)slot % PAGE) / 64 * 64, offset = (line + PAGE / 2) % PAGE;
	bool taken = fastcpu_fork_lock_take(&heap.lock);

	for (size_t k = 0; k < PAGE / 64; k++, offset = (offset + 64) % PAGE) {
		bool fenced = false;

		for (size_t b = offset / FENCE_BYTES; b < (offset + 64) / FENCE_BYTES; b++)
			fenced |= heap.fenced[b / 64] >> (b % 64) & 1;
		if (!fenced && offset != line)
			break;
	}
	fastcpu_fork_lock_give(&heap.lock, taken);
	return offset;
}

/* bytes of address space aligned to the stride (a copy begins on a 64 KiB
 * boundary, whatever the page size: a chunk is known by its address's
 * high bits), or NULL: one mapping, trimmed at both ends. */
static void *reserve(size_t bytes)
{
	char *m = mmap(NULL, bytes + STRIDE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *base;

	if (m == MAP_FAILED)
		return NULL;
	base = (char *)(((uintptr_t)m + STRIDE - 1) & ~(uintptr_t)(STRIDE - 1));
	if (base != m)
		munmap(m, (size_t)(base - m));
	munmap(base + bytes, (size_t)(m + STRIDE - base));
	return base;
}

/* A new chunk, in heap.chunks at its place; NULL (errno ENOMEM) where there
 * is no address space or memory left. */
static struct chunk *new_chunk(void)
{
	int copies = fastcpu_cid_limit();
	struct chunk *c = calloc(1, sizeof(*c));
	size_t at;
	void *base;

	if (c == NULL)
		return NULL;
	if (heap.count == heap.room) {
		size_t room = heap.room ? 2 * heap.room : 16;
		struct chunk **grown = realloc(heap.chunks, room * sizeof(*grown));

		if (grown == NULL) {
			free(c);
			return NULL;
		}
		heap.chunks = grown;
		heap.room = room;
	}
	base = reserve((size_t)copies * STRIDE);
	if (base == NULL) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	place(base, copies);
	c->base = base;
	c->free_units = UNITS;
	for (at = heap.count; at > 0 && heap.chunks[at - 1]->base > c->base; at--)
		heap.chunks[at] = heap.chunks[at - 1];
	heap.chunks[at] = c;
	heap.count++;
	heap.last = at;
	return c;
}

/* The chunk whose copy 0 holds p, or NULL. Under the lock. */
static struct chunk *chunk_of(const char *p)
{
	size_t low = 0, high = heap.count;

	while (low < high) {
		size_t mid = (low + high) / 2;
		struct chunk *c = heap.chunks[mid];

		if (p < c->base)
			high = mid;
		else if (p >= c->base + STRIDE)
			low = mid + 1;
		else
			return c;
	}
	return NULL;
}

static void *take(struct chunk *c, unsigned int u, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++)
		set_bit(c->used, u + k, true);
	set_bit(c->start, u, true);
	c->free_units -= n;
	if (u == c->hint) {	/* past what is used, and the fences after it */
		c->hint = u + n;
		while (c->hint < UNITS && (bit(c->used, c->hint) ||
					   (fenced_units(c->hint / 64) >> (c->hint % 64) & 1)))
			c->hint++;
	}
	return c->base + (size_t)u * UNIT;
}

FASTCPU_EXPORT void *fastcpu_percpu_alloc(size_t size)
{
	unsigned int n, a, u = UNITS;
	struct chunk *c = NULL;
	void *p = NULL;
	bool taken, fenced;

	if (size == 0 || size > STRIDE) {
		errno = EINVAL;
		return NULL;
	}
	n = units_of(size);
	a = align_of(size);
	taken = fastcpu_fork_lock_take(&heap.lock);
	learn_fence();
	fenced = fits_clear(n, a);
	/* The chunk that had room last, then every other, then a new one. */
	for (size_t k = 0; k < heap.count && u == UNITS; k++) {
		c = heap.chunks[(heap.last + k) % heap.count];
		if (c->free_units >= n && (u = find_run(c, n, a, fenced)) < UNITS)
			heap.last = (heap.last + k) % heap.count;
	}
	if (u == UNITS && (c = new_chunk()) != NULL)
		u = find_run(c, n, a, fenced);
	if (u < UNITS)
		p = take(c, u, n);
	fastcpu_fork_lock_give(&heap.lock, taken);
	return p;
}

/* Every allocation comes zeroed: freed space is. */
FASTCPU_EXPORT void *fastcpu_percpu_zalloc(size_t size)
{
	return fastcpu_percpu_alloc(size);
}

/* Zeroes bytes at offset in every copy where they are not zero already. */
static void zero_copies(char *base, size_t offset, size_t bytes)
{
	int copies = fastcpu_cid_limit();

	for (int i = 0; i < copies; i++) {
		uint64_t *w = (uint64_t *)(void *)(base + (size_t)i * STRIDE + offset);
		size_t k = 0;

		while (k < bytes / sizeof(*w) && w[k] == 0)
			k++;
		if (k < bytes / sizeof(*w))
			memset(w, 0, bytes);
	}
}

FASTCPU_EXPORT void fastcpu_percpu_free(void *p)
{
	struct chunk *c;
	unsigned int u, n = 0;
	size_t offset;
	bool taken;

	if (p == NULL)
		return;
	taken = fastcpu_fork_lock_take(&heap.lock);
	c = chunk_of(p);
	offset = c ? (size_t)((char *)p - c->base) : 0;
	u = (unsigned int)(offset / UNIT);
	if (c == NULL || offset % UNIT != 0 || !bit(c->start, u)) {
		fastcpu_fork_lock_give(&heap.lock, taken);
		errno = EINVAL;		/* not given by the allocator, or freed */
		return;
	}
	set_bit(c->start, u, false);
	while (u + n < UNITS && bit(c->used, u + n) && !bit(c->start, u + n))
		set_bit(c->used, u + n++, false);
	zero_copies(c->base, offset, (size_t)n * UNIT);
	c->free_units += n;
	if (u < c->hint)
		c->hint = u;
	fastcpu_fork_lock_give(&heap.lock, taken);
}
