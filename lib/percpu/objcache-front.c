/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-front.c: the upper path's front: the few objects a thread without sequences keeps. */

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "objcache-front.h"
#include "util.h"
#include "wing.h"

/*
 * Every front on one list, under a lock of the wing (an outer one: under
 * it the upper half's index locks are waited for, to give objects back).
 * A front is made at its thread's first use, or one no thread has is
 * taken again; none is unmapped, so the list is as long as the most
 * threads that kept objects at once.
 *
 * A front belongs to a kernel thread id, and the kernel says when that
 * thread is gone: an id names one live thread of the process, so a front
 * whose id names none (tgkill with no signal says ESRCH), or names the
 * thread making its own front now (the id was freed and given again), is
 * a gone thread's. Its objects go back to their caches when one of these
 * learns it:
 * - its thread's exit, through a key's destructor: at once, most times;
 * - a thread making its front, which looks at every front for one no thread
 *   has or one of its own id, and asks the kernel about two more in turn;
 * - a census; a fork child, for every thread it does not have.
 * The destructor is only the quick way. A thread whose first use comes in
 * the last round of destructors (after which none runs), or whose key was
 * not set (below), is found gone by the others, as is a thread that ended
 * any other way. Each give-back runs under the list's lock, and a cache's
 * destruction forgets its objects under it: no give-back writes a cache
 * being destroyed. A front whose thread vanished while changing it (a fork
 * of another thread; a program's pthread_exit or longjmp out of a signal
 * handler that interrupted the library) is half changed: its objects are
 * lost with the thread, as objects handed out to it are.
 */
#define FRONTS_ASKED_PER_MAKING 2

static struct {
	uint64_t lock;
	struct fastcpu_front *first;
	struct fastcpu_front *next_asked;	/* where the next making asks the kernel */
	pthread_key_t exit_key;
	bool exit_key_set;			/* set in place (below): exits give back */
	bool held_for_fork;
} fronts;

/* The calling thread's front while it makes its own: a signal handler
 * that interrupts the making finds it being changed, and takes the upper
 * half an object at a time. */
static struct fastcpu_front making = { .changing = 1 };

/*
 * A thread's first use sets its exit key's value, and may come in a signal
 * handler. glibc stores the values of the process's first 32 keys in the
 * thread's own descriptor, but a later key's first value in a thread
 * callocs a block for it: no call a handler may make. So where the key
 * made at the first cache is not one of those 32 (a program that made many
 * before), it is given back, and the fronts of threads that end are found
 * gone by the others. Not made at load: a preloaded library takes no key
 * from a process that never makes a cache. musl stores every key's value
 * in place.
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

static pid_t thread_id(void)
{
	return (pid_t)fastcpu_raw_syscall_errno(SYS_gettid, 0, 0, 0, 0);
}

/* The list held: f's objects back to their caches where they are whole
 * (its thread did not vanish halfway through changing it), and f no
 * thread's, for the next to take. */
static void give_back(struct fastcpu_front *f, bool whole)
{
	for (int i = 0; i < FASTCPU_FRONT_CACHES; i++) {
		struct fastcpu_front_kept *k = &f->kept[i];

		if (k->cache != NULL && k->count != 0 && whole)
			fastcpu_objcache_upper_give((struct fastcpu_objcache *)(uintptr_t)k->cache,
						    k->objects, k->count);
		k->count = 0;
		k->cache = NULL;
	}
}

static void give_back_gone(struct fastcpu_front *f)
{
	give_back(f, !f->changing);
	f->changing = 0;
	f->tid = 0;
}

/* The list held: whether f's thread is gone; mine, the calling thread's id,
 * which has no front (making) or has another. */
static bool gone(const struct fastcpu_front *f, pid_t mine)
{
	if (f->tid == 0 || f == fastcpu_wing_thread.front)
		return false;
	return f->tid == mine || fastcpu_raw_syscall_errno(SYS_tgkill, getpid(), f->tid, 0, 0) == -ESRCH;
}

/* The list held: a front no thread has, the calling thread's gone fronts
 * given back first, and a few others asked about; NULL where there is
 * none. */
static struct fastcpu_front *front_free(pid_t mine)
{
	struct fastcpu_front *f, *found = NULL;

	for (int k = 0; k < FRONTS_ASKED_PER_MAKING && fronts.first != NULL; k++) {
		f = fronts.next_asked != NULL ? fronts.next_asked : fronts.first;
		fronts.next_asked = f->next;
		if (gone(f, mine))
			give_back_gone(f);
	}
	for (f = fronts.first; f != NULL; f = f->next) {
		if (f->tid == mine)
			give_back_gone(f);
		if (f->tid == 0 && found == NULL)
			found = f;
	}
	return found;
}

/* The calling thread's front, made or taken again; NULL without memory, or
 * in a handler whose thread holds the list. */
static struct fastcpu_front *front_made(void)
{
	pid_t mine = thread_id();
	struct fastcpu_front *f;

	fastcpu_wing_thread.front = &making;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!fastcpu_lock_take(&fronts.lock, FASTCPU_LOCK_OUTER)) {
		fastcpu_wing_thread.front = NULL;
		return NULL;
	}
	f = front_free(mine);
	if (f == NULL) {
		f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (f == MAP_FAILED) {
			fastcpu_lock_give(&fronts.lock, FASTCPU_LOCK_OUTER);
			fastcpu_wing_thread.front = NULL;
			return NULL;
		}
		f->next = fronts.first;
		fronts.first = f;
	}
	f->tid = mine;
	fastcpu_lock_give(&fronts.lock, FASTCPU_LOCK_OUTER);
	if (fronts.exit_key_set)
		(void)pthread_setspecific(fronts.exit_key, f);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fastcpu_wing_thread.front = f;
	return f;
}

/* A thread's exit (its key's destructor), as soon as it is known: its
 * objects back. Another key's destructor that uses a cache after this one
 * makes the thread a front again (and sets the key for the next round, if
 * there is one; after the last, the others find the front gone). */
static void at_thread_exit(void *unused)
{
	struct fastcpu_front *front = fastcpu_wing_thread.front;

	(void)unused;
	if (front == NULL || front == &making || front->changing)
		return;
	front->changing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!fastcpu_lock_take(&fronts.lock, FASTCPU_LOCK_OUTER)) {
		fastcpu_front_leave();
		return;
	}
	give_back(front, true);
	fastcpu_wing_thread.front = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	front->changing = 0;
	front->tid = 0;
	fastcpu_lock_give(&fronts.lock, FASTCPU_LOCK_OUTER);
}

void fastcpu_fronts_setup(void)
{
	if (pthread_key_create(&fronts.exit_key, at_thread_exit) != 0)
		return;
	if (!set_in_place(fronts.exit_key)) {
		(void)pthread_key_delete(fronts.exit_key);
		return;
	}
	fronts.exit_key_set = true;
}

/* Where the thread has no front yet, is changing it (its handler), or
 * keeps nothing of cache yet. */
struct fastcpu_front_kept *fastcpu_front_claim(const void *cache, unsigned int most)
{
	struct fastcpu_front *front = fastcpu_wing_thread.front;

	if (front == NULL && (front = front_made()) == NULL)
		return NULL;
	if (front->changing)
		return NULL;
	front->changing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (int i = 0; i < FASTCPU_FRONT_CACHES; i++)
		if (front->kept[i].cache == cache)
			return &front->kept[i];
	for (int i = 0; i < FASTCPU_FRONT_CACHES; i++)
		if (front->kept[i].cache == NULL) {
			front->kept[i].count = 0;
			front->kept[i].most = most < FASTCPU_FRONT_OBJECTS ? most : FASTCPU_FRONT_OBJECTS;
			front->kept[i].cache = cache;
			return &front->kept[i];
		}
	fastcpu_front_leave();
	return NULL;
}

void *fastcpu_front_alloc_more(struct fastcpu_objcache *cache, struct fastcpu_front_kept *kept)
{
	void *object = NULL;

	if (kept == NULL)
		return fastcpu_objcache_upper_take_one(cache);
	if (kept->count == 0)
		kept->count = fastcpu_objcache_upper_take(cache, kept->objects, (kept->most + 1) / 2);
	if (kept->count != 0)
		object = kept->objects[--kept->count];
	fastcpu_front_leave();
	return object != NULL ? object : fastcpu_objcache_upper_take_one(cache);
}

void fastcpu_front_free_more(struct fastcpu_objcache *cache, struct fastcpu_front_kept *kept,
			     void *object)
{
	unsigned int half;

	if (kept == NULL) {
		fastcpu_objcache_upper_give(cache, &object, 1);
		return;
	}
	half = (kept->most + 1) / 2;
	kept->count -= half;
	fastcpu_objcache_upper_give(cache, kept->objects + kept->count, half);
	kept->objects[kept->count++] = object;
	fastcpu_front_leave();
}

void fastcpu_fronts_forget(const void *cache)
{
	bool taken = fastcpu_lock_take(&fronts.lock, FASTCPU_LOCK_OUTER);

	for (struct fastcpu_front *f = fronts.first; f != NULL; f = f->next)
		for (int i = 0; i < FASTCPU_FRONT_CACHES; i++)
			if (f->kept[i].cache == cache) {
				f->kept[i].count = 0;
				f->kept[i].cache = NULL;
			}
	if (taken)
		fastcpu_lock_give(&fronts.lock, FASTCPU_LOCK_OUTER);
}

void fastcpu_fronts_collect(void)
{
	pid_t mine = thread_id();

	if (!fastcpu_lock_take(&fronts.lock, FASTCPU_LOCK_OUTER))
		return;
	for (struct fastcpu_front *f = fronts.first; f != NULL; f = f->next)
		if (gone(f, mine))
			give_back_gone(f);
	fastcpu_lock_give(&fronts.lock, FASTCPU_LOCK_OUTER);
}

void fastcpu_fronts_walk(const void *cache, void (*fn)(void *object, void *arg), void *arg)
{
	bool taken = fastcpu_lock_take(&fronts.lock, FASTCPU_LOCK_OUTER);

	for (struct fastcpu_front *f = fronts.first; f != NULL; f = f->next)
		for (int i = 0; i < FASTCPU_FRONT_CACHES; i++)
			if (f->kept[i].cache == cache)
				for (unsigned int k = 0; k < f->kept[i].count; k++)
					fn(f->kept[i].objects[k], arg);
	if (taken)
		fastcpu_lock_give(&fronts.lock, FASTCPU_LOCK_OUTER);
}

void fastcpu_fronts_before_fork(void)
{
	fronts.held_for_fork = fastcpu_lock_take(&fronts.lock, FASTCPU_LOCK_OUTER);
}

/* In a child, every front but the forking thread's is a vanished thread's
 * (and the forking thread has another id now); where the list was not
 * held (a fork in a handler inside its change), they are found gone
 * later. */
void fastcpu_fronts_after_fork(bool child)
{
	if (!fronts.held_for_fork)
		return;
	if (child) {
		pid_t mine = thread_id();

		for (struct fastcpu_front *f = fronts.first; f != NULL; f = f->next)
			if (f == fastcpu_wing_thread.front)
				f->tid = mine;
			else if (f->tid != 0)
				give_back_gone(f);
	}
	fastcpu_lock_give(&fronts.lock, FASTCPU_LOCK_OUTER);
}
