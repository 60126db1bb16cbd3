/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/lock.c: the wing's locks: a word that names its holder. */

#include <errno.h>
#include <sys/mman.h>

#include "arch.h"
#include "internal.h"
#include "lock.h"
#include "once.h"
#include "wait.h"

/*
 * A serial names a thread for the life of the process and of every fork
 * child descended from it: the process's count of serials only grows (a
 * child goes on from its parent's), and a thread takes the next at its
 * first lock. Not the thread pointer: glibc gives a vanished thread's
 * cached stack, its thread pointer with it, to the next thread created, and
 * in a fork child every thread but the forking one has vanished. The count
 * never wraps: 2^64 threads, at a microsecond each, take half a million
 * years.
 *
 * So a fork child knows, from the count at the fork, which holders are
 * gone: every serial up to it was its parent's, and of the parent's
 * threads it has only the one that forked (whose TLS it has, serial
 * included). Nested forks move the line up; a lock left by a thread of a
 * grandparent reads free as surely as one left by a parent's, at any
 * depth. The line is drawn by the wing's fork protocol before anything in
 * the child takes a lock (fork.c).
 */
static uint64_t serials;		/* the last serial taken */
static struct {
	uint64_t gone_up_to;		/* serials of threads the fork left behind */
	uint64_t forker;		/* but this one: the thread that forked */
} fork_line;

/* A thread's first lock, in a signal handler too (one fetch-add). A handler
 * that interrupts the thread's own taking takes another serial, which the
 * thread then overwrites: harmless, as the handler gave back every lock it
 * took under it before it returned. */
uint64_t fastcpu_lock_first_serial(void)
{
	uint64_t serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);

	__atomic_store_n(&fastcpu_wing_thread.lock.serial, serial, __ATOMIC_RELAXED);
	return serial;
}

void fastcpu_lock_after_fork_child(void)
{
	fork_line.gone_up_to = __atomic_load_n(&serials, __ATOMIC_RELAXED);
	fork_line.forker = fastcpu_wing_thread.lock.serial;
}

/* Whether holder is a thread a fork left behind. */
static bool vanished(uint64_t holder)
{
	return holder <= fork_line.gone_up_to && holder != fork_line.forker;
}

/* One attempt, the rank already counted (and left counted only where
 * taken). */
static enum fastcpu_lock_try try_counted(uint64_t *word, enum fastcpu_lock_rank rank)
{
	uint64_t mine = fastcpu_lock_token(), seen = __atomic_load_n(word, __ATOMIC_RELAXED);
	enum fastcpu_lock_try r;

	for (;;) {
		if (seen == mine) {
			r = FASTCPU_LOCK_HELD_HERE;
			break;
		}
		if (seen != 0 && !vanished(seen)) {
			r = FASTCPU_LOCK_BUSY;
			break;
		}
		if (__atomic_compare_exchange_n(word, &seen, mine, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return FASTCPU_LOCK_TAKEN;
	}
	fastcpu_wing_thread.lock.held -= rank;
	return r;
}

enum fastcpu_lock_try fastcpu_lock_try(uint64_t *word, enum fastcpu_lock_rank rank)
{
	fastcpu_wing_thread.lock.held += rank;
	return try_counted(word, rank);
}

bool fastcpu_lock_take_contended(uint64_t *word, enum fastcpu_lock_rank rank)
{
	/* What the thread held before this take (lock.h: the order). */
	bool may_wait = fastcpu_wing_thread.lock.held - rank < (unsigned int)rank;

	for (unsigned int attempt = 0;; attempt++) {
		enum fastcpu_lock_try r = try_counted(word, rank);

		if (r != FASTCPU_LOCK_BUSY || !may_wait)
			return r == FASTCPU_LOCK_TAKEN;
		fastcpu_wait_for_holder(attempt);
		fastcpu_wing_thread.lock.held += rank;
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
