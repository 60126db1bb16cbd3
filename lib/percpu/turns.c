/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/turns.c: turns for the upper half's pops, one per CPU index. */

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>

#include "held.h"
#include "once.h"
#include "wing.h"

/*
 * A pop with compare-and-swap alone could take a node that another pop
 * took and pushed back meanwhile, with a stale next (ABA). So pops of one
 * slot of the upper half take turns (pushes need none): the slot of CPU k,
 * in every array, with turn k. Pops of other arrays' slots of CPU k share
 * that turn, for the few instructions of a pop: they meet only where a
 * holder is preempted inside them. A turn in every cache line of its own,
 * 1024 of them (CPU k and k + 1024 share one, on the machines that have
 * both), mapped at the first pop that needs one: most processes never pop
 * in the upper half, and a larger .bss would cost every process a mapping
 * at load. Where the mapping fails, one turn serves every CPU. Taking a
 * turn never waits: a signal handler whose thread was interrupted inside a
 * pop must not wait for it.
 */
#define TURNS 1024

struct turn {
	unsigned int taken;
} __attribute__((aligned(64)));

static struct turn *turns;	/* TURNS of them, or &lone; NULL until needed */
static struct turn lone;

/* The turns the calling thread holds, 1 + each. */
static FASTCPU_TLS struct fastcpu_held held;

/* The turns, mapped now (the first mapping offered is kept); once a
 * process, so out of the way of the taking. */
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

static unsigned int index_of(const struct turn *all, size_t cpu)
{
	return all == &lone ? 0 : (unsigned int)(cpu % TURNS);
}

bool fastcpu_turn_take(size_t cpu)
{
	struct turn *all = __atomic_load_n(&turns, __ATOMIC_ACQUIRE);
	int slot = fastcpu_held_next_slot(&held);
	unsigned int k;

	if (unlikely(all == NULL))
		all = mapped();
	k = index_of(all, cpu);

	if (slot < 0 || __atomic_exchange_n(&all[k].taken, 1, __ATOMIC_ACQUIRE))
		return false;
	fastcpu_held_push(&held, slot, k + 1);
	return true;
}

void fastcpu_turn_give(size_t cpu)
{
	struct turn *all = __atomic_load_n(&turns, __ATOMIC_ACQUIRE);

	fastcpu_held_pop(&held);
	__atomic_store_n(&all[index_of(all, cpu)].taken, 0, __ATOMIC_RELEASE);
}

bool fastcpu_turn_held_here(void)
{
	return held.count != 0;
}

/* A fork child has one thread, the forking one: every turn another thread
 * held was in the middle of a change that the child will never finish, in
 * which the list is whole (a pop here changes it by one compare-and-swap;
 * the object cache's, by one store, and a batch leaves its list before the
 * depot has it). The forking thread's own turns stay its own (a fork in a
 * signal handler that interrupted it). Only the turns of CPUs that exist
 * are looked at. */
static void free_in_child(void)
{
	struct turn *all = __atomic_load_n(&turns, __ATOMIC_ACQUIRE);
	int possible = fastcpu_possible_cpus();
	unsigned int n = all == &lone ? 1 : possible < TURNS ? (unsigned int)possible : TURNS;

	for (unsigned int k = 0; all != NULL && k < n; k++)
		if (!fastcpu_held_has(&held, k + 1) &&
		    __atomic_load_n(&all[k].taken, __ATOMIC_RELAXED))
			__atomic_store_n(&all[k].taken, 0, __ATOMIC_RELAXED);
}

/* At load, before a program registers fork handlers of its own (which may
 * use the turns in its child handler) and before any thread forks. */
__attribute__((constructor)) static void at_load(void)
{
	(void)pthread_atfork(NULL, NULL, free_in_child);
}
