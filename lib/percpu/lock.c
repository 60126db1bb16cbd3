/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/lock.c: the wing's locks: a word that names its holder. */

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>

#include "arch.h"
#include "internal.h"
#include "lock.h"
#include "once.h"
#include "wait.h"

/*
 * The process image (lock.h's token) changes in a fork child (its handler
 * is registered at load, before a program can register one that uses the
 * wing in its child). A lock taken in another image was taken by a thread
 * the child does not have, unless the token's serial is the child's own:
 * the forking thread's (its TLS is copied with it), which held it itself
 * (a fork in a signal handler that interrupted its holding). 256 images
 * round: a lock nobody took since 256 generations of forks back would read
 * as taken.
 *
 * A serial, not the thread pointer: glibc gives a vanished thread's cached
 * stack, its thread pointer with it, to the next thread created, and in a
 * fork child every thread but the forking one has vanished. A new thread's
 * serial is 0 (static TLS starts zeroed) until its first lock takes the
 * next of the process's count, which a child continues from its parent's:
 * no thread of the child can have the serial of one of its parent's. The
 * count never wraps: a serial is taken once a thread, and 2^56 threads,
 * at a microsecond each, take two thousand years.
 */
#define SERIAL_MASK (((uint64_t)1 << FASTCPU_LOCK_SERIAL_BITS) - 1)

uint64_t fastcpu_lock_image;
static uint64_t serials;

/* A thread's first lock, in a signal handler too (one fetch-add). A handler
 * that interrupts the thread's own taking takes another serial, which the
 * thread then overwrites: harmless, as the handler gave back every lock it
 * took under it before it returned. */
uint64_t fastcpu_lock_first_serial(void)
{
	uint64_t serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED) & SERIAL_MASK;

	__atomic_store_n(&fastcpu_thread.lock_serial, serial, __ATOMIC_RELAXED);
	return serial;
}

/* One attempt, the rank already counted (and left counted only where
 * taken). */
static enum fastcpu_lock_try try_counted(uint64_t *word, enum fastcpu_lock_rank rank)
{
	uint64_t mine = fastcpu_lock_token(), seen = __atomic_load_n(word, __ATOMIC_RELAXED);
	enum fastcpu_lock_try r;

	for (;;) {
		if (seen != 0 && (seen & SERIAL_MASK) == (mine & SERIAL_MASK)) {
			r = FASTCPU_LOCK_HELD_HERE;
			break;
		}
		if (seen != 0 &&
		    seen >> FASTCPU_LOCK_SERIAL_BITS == mine >> FASTCPU_LOCK_SERIAL_BITS) {
			r = FASTCPU_LOCK_BUSY;
			break;
		}
		if (__atomic_compare_exchange_n(word, &seen, mine, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return FASTCPU_LOCK_TAKEN;
	}
	fastcpu_thread.locks_held -= rank;
	return r;
}

enum fastcpu_lock_try fastcpu_lock_try(uint64_t *word, enum fastcpu_lock_rank rank)
{
	fastcpu_thread.locks_held += rank;
	return try_counted(word, rank);
}

bool fastcpu_lock_take_contended(uint64_t *word, enum fastcpu_lock_rank rank)
{
	/* What the thread held before this take (lock.h: the order). */
	bool may_wait = fastcpu_thread.locks_held - rank < (unsigned int)rank;

	for (unsigned int attempt = 0;; attempt++) {
		enum fastcpu_lock_try r = try_counted(word, rank);

		if (r != FASTCPU_LOCK_BUSY || !may_wait)
			return r == FASTCPU_LOCK_TAKEN;
		fastcpu_wait_for_holder(attempt);
		fastcpu_thread.locks_held += rank;
	}
}

/* ---- the upper half's pop turns ----------------------------------------- */

#define TURNS 1024

struct turn {
	uint64_t word;
} __attribute__((aligned(64)));

static struct turn *turns;	/* TURNS of them, or &lone; NULL until needed */
static struct turn lone;

/* Mapped once a process, out of the way of the taking; where the mapping
 * fails, one turn serves every CPU. */
static __attribute__((noinline, cold)) struct turn *mapped(void)
{
	int saved = errno;
	void *m = mmap(NULL, TURNS * sizeof(struct turn), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct turn *mine = m == MAP_FAILED ? &lone : m, *kept;

	kept = fastcpu_once_offer(&turns, mine);
	if (kept != mine && mine != &lone)
		munmap(m, TURNS * sizeof(struct turn));
	errno = saved;
	return kept;
}

uint64_t *fastcpu_turn(size_t cpu)
{
	struct turn *all = __atomic_load_n(&turns, __ATOMIC_ACQUIRE);

	if (unlikely(all == NULL))
		all = mapped();
	return all == &lone ? &lone.word : &all[cpu % TURNS].word;
}

static void new_image(void)
{
	__atomic_store_n(&fastcpu_lock_image, (fastcpu_lock_image + 1) & 0xff, __ATOMIC_RELAXED);
}

/* At load: before any thread forks, and before a program registers fork
 * handlers of its own that use the wing in a child (they run after this). */
__attribute__((constructor)) static void at_load(void)
{
	(void)pthread_atfork(NULL, NULL, new_image);
}
