/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-upper.h: the object cache's upper half: its indexes' magazines under their locks. */

#ifndef FASTCPU_PERCPU_OBJCACHE_UPPER_H
#define FASTCPU_PERCPU_OBJCACHE_UPPER_H

#include "objcache-layout.h"

/*
 * A thread without sequences reaches the upper half's index of its CPU
 * (upper.h) under that index's lock (lock.h, an inner one): the steps and
 * the trade of objcache-index.h, bound with the lock held. Where the lock
 * is not the thread's to wait for (a signal handler inside its own
 * thread's step, or one that may not wait: lock.h's order), nothing is
 * taken, and what is given goes object by object into the depot's
 * magazines (fastcpu_depot_give_one): a give never fails, and never waits.
 */
/* Up to n objects into out: their number (0 also where there is no memory
 * left for a first one). */
unsigned int fastcpu_objcache_upper_take(struct fastcpu_objcache *cache, void **out,
					 unsigned int n);
/* One object: the index's, else the depot's or fresh; NULL without memory. */
void *fastcpu_objcache_upper_take_one(struct fastcpu_objcache *cache);
/* The n objects of objects given back. */
void fastcpu_objcache_upper_give(struct fastcpu_objcache *cache, void **objects, unsigned int n);

#endif /* FASTCPU_PERCPU_OBJCACHE_UPPER_H */
