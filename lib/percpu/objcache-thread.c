/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-thread.c: the few objects a thread without sequences keeps of its own. */

#include <pthread.h>
#include <sys/mman.h>

#include "objcache-thread.h"
#include "wing.h"

/*
 * Each thread's objects in a page of its own (fastcpu_thread.own), every
 * such page on one list: a cache's destruction, a census and a fork child
 * walk it. The list has a lock of the wing (lock.h); a page is added at a
 * thread's first use and taken off at its exit.
 */
static struct {
	uint64_t lock;
	struct fastcpu_own *first;
	pthread_key_t exit_key;
	fastcpu_own_give_back_fn *give_back;
} threads;

/*
 * A thread's first use sets its exit key's value, and may come in a signal
 * handler. glibc stores the values of the process's first 32 keys in the
 * thread's own descriptor, but a later key's first value in a thread
 * callocs a block for it: no call a handler may make. So where the key
 * made at the first cache is not one of those 32 (a program that made
 * many before), it is given back and threads keep nothing: the upper half
 * serves them an object at a time. Not made at load: a preloaded library
 * takes no key from a process that never makes a cache. musl stores every
 * key's value in place.
 */
#define KEYS_IN_PLACE 32		/* glibc's PTHREAD_KEY_2NDLEVEL_SIZE */

static bool set_in_place(pthread_key_t key)
{
#ifdef __GLIBC__
	return key < KEYS_IN_PLACE;
#else
	(void)key;
	return true;
#endif
}

static void give_back_all(struct fastcpu_own *own)
{
	for (int i = 0; i < FASTCPU_OWN_CACHES; i++) {
		struct fastcpu_own_objects *k = &own->kept[i];

		if (k->cache != NULL && k->count != 0)
			threads.give_back((void *)(uintptr_t)k->cache, k->objects, k->count);
		k->cache = NULL;
		k->count = 0;
	}
}

/* Takes own off the list (the lock held). */
static void unlink_own(struct fastcpu_own *own)
{
	for (struct fastcpu_own **p = &threads.first; *p != NULL; p = &(*p)->next)
		if (*p == own) {
			*p = own->next;
			return;
		}
}

/*
 * At a thread's exit (its key's destructor): its objects back, its page
 * gone, and the thread closed: another key's destructor that uses a cache
 * after this one finds a page always being changed, and takes the upper
 * half an object at a time. A page made then would set the key again, and
 * in the last round of destructors nothing would give it back.
 */
static struct fastcpu_own closed = { .changing = 1 };

static void at_thread_exit(void *arg)
{
	struct fastcpu_own *own = arg;

	own->changing = 1;
	give_back_all(own);
	fastcpu_thread.own = &closed;
	if (fastcpu_lock_take(&threads.lock, FASTCPU_LOCK_OUTER)) {
		unlink_own(own);
		fastcpu_lock_give(&threads.lock, FASTCPU_LOCK_OUTER);
		munmap(own, sizeof(*own));
	}
}

/* Around a fork, the list held (a thread adding itself is not cut in
 * half); in the child, the threads it does not have give their objects
 * back, unless they were changing them. */
static bool held_for_fork;

static void before_fork(void)
{
	held_for_fork = fastcpu_lock_take(&threads.lock, FASTCPU_LOCK_OUTER);
}

static void after_fork_parent(void)
{
	if (held_for_fork)
		fastcpu_lock_give(&threads.lock, FASTCPU_LOCK_OUTER);
}

static void after_fork_child(void)
{
	struct fastcpu_own *own = threads.first, *next;

	threads.first = NULL;
	for (; own != NULL; own = next) {
		next = own->next;
		if (own == fastcpu_thread.own) {
			own->next = threads.first;
			threads.first = own;
			continue;
		}
		if (!own->changing)
			give_back_all(own);
		munmap(own, sizeof(*own));
	}
	after_fork_parent();
}

/* Registered after lock.c's at-load handler: in a child, the locks that
 * vanished threads held read free before these give objects back. Without
 * an exit key set in place, no thread keeps anything (give_back NULL). */
void fastcpu_own_setup(fastcpu_own_give_back_fn *give_back)
{
	if (pthread_key_create(&threads.exit_key, at_thread_exit) != 0)
		return;
	if (!set_in_place(threads.exit_key)) {
		(void)pthread_key_delete(threads.exit_key);
		return;
	}
	threads.give_back = give_back;
	(void)pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* The calling thread's page, made and listed; NULL without memory, or in a
 * handler whose thread holds the list. */
static struct fastcpu_own *own_make(void)
{
	struct fastcpu_own *own;

	if (threads.give_back == NULL)
		return NULL;
	own = mmap(NULL, sizeof(*own), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own == MAP_FAILED)
		return NULL;
	if (!fastcpu_lock_take(&threads.lock, FASTCPU_LOCK_OUTER)) {
		munmap(own, sizeof(*own));
		return NULL;
	}
	own->next = threads.first;
	threads.first = own;
	fastcpu_lock_give(&threads.lock, FASTCPU_LOCK_OUTER);
	if (pthread_setspecific(threads.exit_key, own) != 0) {
		fastcpu_lock_take(&threads.lock, FASTCPU_LOCK_OUTER);
		unlink_own(own);
		fastcpu_lock_give(&threads.lock, FASTCPU_LOCK_OUTER);
		munmap(own, sizeof(*own));
		return NULL;
	}
	fastcpu_thread.own = own;
	return own;
}

/* Where the thread has no page yet, is changing it (its handler), or
 * keeps nothing of cache yet. */
struct fastcpu_own_objects *fastcpu_own_claim(const void *cache, unsigned int most)
{
	struct fastcpu_own *own = fastcpu_thread.own;

	if (own == NULL && (own = own_make()) == NULL)
		return NULL;
	if (own->changing)
		return NULL;
	own->changing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (int i = 0; i < FASTCPU_OWN_CACHES; i++)
		if (own->kept[i].cache == cache)
			return &own->kept[i];
	for (int i = 0; i < FASTCPU_OWN_CACHES; i++)
		if (own->kept[i].cache == NULL) {
			own->kept[i].count = 0;
			own->kept[i].most = most < FASTCPU_OWN_OBJECTS ? most : FASTCPU_OWN_OBJECTS;
			own->kept[i].cache = cache;
			return &own->kept[i];
		}
	fastcpu_own_leave();
	return NULL;
}

void fastcpu_own_forget(const void *cache)
{
	bool taken = fastcpu_lock_take(&threads.lock, FASTCPU_LOCK_OUTER);

	for (struct fastcpu_own *own = threads.first; own != NULL; own = own->next)
		for (int i = 0; i < FASTCPU_OWN_CACHES; i++)
			if (own->kept[i].cache == cache) {
				own->kept[i].count = 0;
				own->kept[i].cache = NULL;
			}
	if (taken)
		fastcpu_lock_give(&threads.lock, FASTCPU_LOCK_OUTER);
}

void fastcpu_own_walk(const void *cache, void (*fn)(void *object, void *arg), void *arg)
{
	bool taken = fastcpu_lock_take(&threads.lock, FASTCPU_LOCK_OUTER);

	for (struct fastcpu_own *own = threads.first; own != NULL; own = own->next)
		for (int i = 0; i < FASTCPU_OWN_CACHES; i++)
			if (own->kept[i].cache == cache)
				for (unsigned int k = 0; k < own->kept[i].count; k++)
					fn(own->kept[i].objects[k], arg);
	if (taken)
		fastcpu_lock_give(&threads.lock, FASTCPU_LOCK_OUTER);
}
