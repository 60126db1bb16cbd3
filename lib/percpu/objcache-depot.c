/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/objcache-depot.c: the object cache's depot, the batches CPUs share. */

#include <pthread.h>

#include "held.h"
#include "objcache.h"
#include "wing.h"

/*
 * A stack of batches, each a chain of free objects; a batch's first object
 * links the next batch in its word 1, where its depth was (given back on
 * the way out: one more than its next's). Pushes are a compare-and-swap
 * each. A pop by compare-and-swap alone could take a batch that another pop
 * took and pushed back meanwhile, with a stale link (ABA), so pops take
 * turns: only the holder pops, and a batch at the top when it looked is
 * still there, with the same link, if the top is unchanged.
 *
 * The turn holds the process image it was taken in, an odd number that a
 * fork child changes (pthread_atfork): a turn taken before the fork was
 * taken by a thread the child does not have, and is free, unless the
 * forking thread took it itself (a signal handler that forked while the
 * thread was inside a pop), which the thread remembers. A turn is held for
 * a few instructions, unless its holder is preempted: a pop that finds it
 * taken spins, then yields (wait.c), and gives up before sleeping, with
 * NULL (the caller carves fresh objects instead); a signal handler whose
 * own thread holds it gives up at once.
 */
static unsigned long image = 1;

/* The depots whose turns the calling thread holds. */
static FASTCPU_TLS struct fastcpu_held held;

static void new_image(void)
{
	__atomic_store_n(&image, image + 2, __ATOMIC_RELAXED);
}

static bool atfork_registered;

/* Not async-signal-safe: from fastcpu_objcache_new(). */
void fastcpu_depot_init(struct fastcpu_depot *depot)
{
	depot->top = NULL;
	depot->turn = 0;
	if (!__atomic_load_n(&atfork_registered, __ATOMIC_ACQUIRE) &&
	    pthread_atfork(NULL, NULL, new_image) == 0)
		__atomic_store_n(&atfork_registered, true, __ATOMIC_RELEASE);
}

void fastcpu_depot_push(struct fastcpu_depot *depot, void *first)
{
	void *top = __atomic_load_n(&depot->top, __ATOMIC_RELAXED);

	do
		fastcpu_set_word(first, 1, (intptr_t)top);
	while (!__atomic_compare_exchange_n(&depot->top, &top, first, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

static bool take_turn(struct fastcpu_depot *depot)
{
	unsigned long now = __atomic_load_n(&image, __ATOMIC_RELAXED);

	if (fastcpu_held_has(&held, (uintptr_t)depot))
		return false;
	for (unsigned int attempt = 0; attempt < FASTCPU_WAIT_SLEEPS; attempt++) {
		unsigned long turn = __atomic_load_n(&depot->turn, __ATOMIC_RELAXED);

		if (turn != now && __atomic_compare_exchange_n(&depot->turn, &turn, now, false,
							       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		fastcpu_wait_for_holder(attempt);
	}
	return false;
}

void *fastcpu_depot_pop(struct fastcpu_depot *depot)
{
	int slot = fastcpu_held_next_slot(&held);
	void *first, *next;

	if (__atomic_load_n(&depot->top, __ATOMIC_RELAXED) == NULL || slot < 0 ||
	    !take_turn(depot))
		return NULL;
	fastcpu_held_push(&held, slot, (uintptr_t)depot);
	first = __atomic_load_n(&depot->top, __ATOMIC_ACQUIRE);
	while (first != NULL &&
	       !__atomic_compare_exchange_n(&depot->top, &first,
					    (void *)fastcpu_word(first, 1), true,
					    __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		;
	fastcpu_held_pop(&held);
	__atomic_store_n(&depot->turn, 0, __ATOMIC_RELEASE);
	if (first != NULL) {
		next = (void *)fastcpu_word(first, 0);
		fastcpu_set_word(first, 1, fastcpu_depth_below(next));
	}
	return first;
}

void fastcpu_depot_walk(const struct fastcpu_depot *depot, void (*fn)(void *first, void *arg),
			void *arg)
{
	for (void *b = depot->top; b != NULL; b = (void *)fastcpu_word(b, 1))
		fn(b, arg);
}
