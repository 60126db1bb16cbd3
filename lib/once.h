/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/once.h: the library's one idiom for set-up done once, on first use. */

#ifndef FASTCPU_ONCE_H
#define FASTCPU_ONCE_H

#include <stdbool.h>

/*
 * A value set once per process lives in one word that reads 0 until set.
 * Whoever finds it 0 computes the value and offers it with a
 * compare-and-swap: the first offer is kept, and every caller goes on with
 * the kept value. Nobody waits, so a first use that a signal handler
 * interrupts, and whose handler needs the value too, cannot deadlock: the
 * handler computes its own. compute must be safe to run more than once at
 * the same time; one that gives 0 is made again on the next use. What it
 * writes elsewhere before the offer is published with it. The offer is
 * sequentially consistent: two set-ups that each read the other's word
 * after making their own offer cannot both miss the other (cpu-id.c).
 */
#define fastcpu_once(word, compute)					\
	__extension__({							\
		__typeof__(*(word)) once_value_ =			\
			__atomic_load_n((word), __ATOMIC_ACQUIRE);	\
		if (__builtin_expect(once_value_ == 0, 0))		\
			once_value_ = fastcpu_once_offer((word), (compute)); \
		once_value_;						\
	})

/* The offer alone: the value kept, which is value if this offer won (a
 * caller whose value lost may have to undo what computing it did). */
#define fastcpu_once_offer(word, value)					\
	__extension__({							\
		__typeof__(*(word)) offer_seen_ = 0, offer_value_ = (value); \
		__atomic_compare_exchange_n((word), &offer_seen_, offer_value_, \
					    false, __ATOMIC_SEQ_CST,	\
					    __ATOMIC_SEQ_CST) ?		\
			offer_value_ : offer_seen_;			\
	})

#endif /* FASTCPU_ONCE_H */
