/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/held.h: what a thread holds, nested by its signal handlers. */

#ifndef FASTCPU_HELD_H
#define FASTCPU_HELD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A thread's record of the turns it holds (turns.c, objcache-depot.c), in
 * a thread-local variable: a stack, innermost last, since a signal handler
 * may take one while the code it interrupted holds another, and gives its
 * own back first. A record's slot is claimed before it is filled, so that a
 * handler that runs in between records its own in the next; it is cleared
 * before it is given up. A thread nested deeper than FASTCPU_HELD_MAX takes
 * none. Items are never 0.
 */
#define FASTCPU_HELD_MAX 4

struct fastcpu_held {
	uintptr_t item[FASTCPU_HELD_MAX];
	unsigned int count;
};

/* The slot for the thread's next item, or -1 where it holds the most. Read
 * before the item is taken (a handler that runs in between has given back
 * what it took by the time it returns), so that recording the item does not
 * load the count again behind the taking's atomic. */
static inline int fastcpu_held_next_slot(const struct fastcpu_held *h)
{
	unsigned int slot = h->count;

	return slot < FASTCPU_HELD_MAX ? (int)slot : -1;
}

static inline bool fastcpu_held_has(const struct fastcpu_held *h, uintptr_t item)
{
	for (unsigned int i = 0; i < h->count && i < FASTCPU_HELD_MAX; i++)
		if (h->item[i] == item)
			return true;
	return false;
}

/* Records item, which the thread has just taken, in slot (from
 * fastcpu_held_next_slot, not -1). */
static inline void fastcpu_held_push(struct fastcpu_held *h, int slot, uintptr_t item)
{
	h->count = (unsigned int)slot + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	h->item[slot] = item;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Forgets the innermost item, before the thread gives it up. */
static inline void fastcpu_held_pop(struct fastcpu_held *h)
{
	unsigned int slot = h->count - 1;

	h->item[slot] = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	h->count = slot;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

#endif /* FASTCPU_HELD_H */
