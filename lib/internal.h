/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/internal.h: declarations shared inside the library, all hidden. */

#ifndef FASTCPU_INTERNAL_H
#define FASTCPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fastcpu.h"

#include "arch.h"
#include "private.h"
#include "rseq-abi.h"

#define FASTCPU_EXPORT	__attribute__((visibility("default")))
/* For the few helpers every out-of-line path starts with: a copy of its
 * own in each caller, never a call (a call makes its caller build a frame). */
#define FASTCPU_INLINE	static inline __attribute__((always_inline))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* Initial-exec TLS: a static TLS slot read at a fixed offset from the thread
 * pointer, never allocated lazily (so async-signal-safe), and initialised by
 * the TLS image before the thread runs any code. */
#define FASTCPU_TLS __thread __attribute__((tls_model("initial-exec")))

/*
 * Whether this object can see every affinity change made in the process:
 * only the shared library interposes the affinity functions (affinity.c);
 * libfastcpu.a defines no glibc names a program or shared object would
 * export (libtool builds the shared library's objects with -DPIC).
 */
#ifdef PIC
# define FASTCPU_SEES_AFFINITY	1
# define FASTCPU_GLIBC_NAME	FASTCPU_EXPORT
#else
# define FASTCPU_SEES_AFFINITY	0
# define FASTCPU_GLIBC_NAME	__attribute__((visibility("hidden")))
#endif

/* Linux's largest NR_CPUS: no CPU number reaches it. */
#define FASTCPU_MAX_CPUS 8192

/* The floors of lib/, top down (README.md): each file calls only below. */

/* ---- set-up (attach.c) -------------------------------------------------- */

/* Once per thread, on its first call (its fastcpu_cpu_id_ref still at the
 * unattached marker): bind the process, find or register the thread's area.
 * Returns the thread's pointer then: an area's cpu_id, or a marker. */
const volatile int *fastcpu_attach(void);
/* Whether the library may run its sequences on a thread's area: not known
 * yet (another owner's, not asked yet), yes, or no (none, or another
 * owner's registered with another signature). */
enum fastcpu_sequences { FASTCPU_SEQUENCES_UNKNOWN, FASTCPU_SEQUENCES_YES,
			 FASTCPU_SEQUENCES_NO };
/* The calling thread's answer as far as known, set when it attaches. */
extern __thread unsigned char fastcpu_thread_sequences
	__attribute__((visibility("hidden"), tls_model("initial-exec")));
/* Finds it out in the calling thread, whose area's cpu_id is at cpu_id
 * (registered: non-negative), and keeps it once known. */
bool fastcpu_thread_sequences_decide(const volatile int *cpu_id);
FASTCPU_INLINE bool fastcpu_thread_runs_sequences(const volatile int *cpu_id)
{
	unsigned char known = fastcpu_thread_sequences;

	if (likely(known != FASTCPU_SEQUENCES_UNKNOWN))
		return known == FASTCPU_SEQUENCES_YES;
	return fastcpu_thread_sequences_decide(cpu_id);
}
/* Which area the calling thread reads (private.h names them). */
enum fastcpu_area_kind fastcpu_area_kind(void);
/* glibc (2.35+) registered its area in every thread: it owns them all. */
bool fastcpu_glibc_registered_rseq(void);

/* ---- the areas a thread may read ---------------------------------------- */

struct fastcpu_program_owner;

/* The library's own (own-area.c): its cpu_id once registered for the
 * calling thread, or NULL (one line on stderr if forced); publish at load;
 * unregister (musl's thread exit). */
const volatile int *fastcpu_own_area_register(bool forced);
void fastcpu_own_area_publish(void);
void fastcpu_own_area_unregister(const volatile int *cpu_id);

/* The program owner's (program-area.c; the owner: program-owner.c): its cpu_id in the calling thread,
 * registered there first under the reference-count convention; NULL while
 * librseq has not published where its areas are. */
const volatile int *fastcpu_program_area_cpu_id(const struct fastcpu_program_owner *o);
void fastcpu_program_area_publish(const struct fastcpu_program_owner *o);
/* Whether the library may run its sequences on the owner's areas: decided
 * once, in a thread where the area at cpu_id is registered (not known
 * until then); publishes them for the inline operations when it may. */
enum fastcpu_sequences fastcpu_program_area_takes_sequences(const struct fastcpu_program_owner *o,
							    const volatile int *cpu_id);
/* Whether the calling thread holds a reference to the shared area, and
 * giving it back (musl's thread exit). */
bool fastcpu_program_area_shared(void);
void fastcpu_program_area_release(const struct fastcpu_program_owner *o);

/* ---- the choice of fallback (bind.c, settings.c) ------------------------ */

/* A way to ask for the CPU without rseq. cpu() serves sched_getcpu() and
 * returns the CPU or -1 with errno set as the kernel set it; cpu_node()
 * serves getcpu() as the kernel's does: a consistent pair into the words
 * that are not NULL (the node last, where both are one word), returning 0
 * or -1 with errno set. Both are async-signal-safe and leave errno alone
 * on success; only a system call can fail. */
struct fastcpu_backend {
	const char *name;
	int (*cpu)(void);
	int (*cpu_node)(unsigned int *cpu, unsigned int *node);
	/* cpu, with errno as it was even where it fails (the per-CPU
	 * operations set no errno): cpu itself where it cannot fail. */
	int (*cpu_quiet)(void);
};

/* What the process uses, chosen once on first use from the settings. */
struct fastcpu_binding {
	bool use_rseq;			/* try rseq in each thread first */
	bool rseq_forced;		/* FASTCPU_BACKEND=rseq */
};
struct fastcpu_binding fastcpu_bind(void);
/* What serves a thread without rseq (the cache in front if chosen), set
 * by fastcpu_bind(): read inline by every call a fallback answers, all of
 * them made by threads that attached, which binds first. */
extern const struct fastcpu_backend *fastcpu_bound_fallback;
static inline const struct fastcpu_backend *fastcpu_fallback(void)
{
	return __atomic_load_n(&fastcpu_bound_fallback, __ATOMIC_ACQUIRE);
}
/* ...and the same without the cache: where an answer must be the CPU of
 * this moment (concurrency ids). */
const struct fastcpu_backend *fastcpu_uncached_fallback(void);

/* The FASTCPU_* variables (settings.c), read once. */
enum fastcpu_choice { FASTCPU_CHOOSE_AUTO, FASTCPU_CHOOSE_RSEQ,
		      FASTCPU_CHOOSE_RDPID, FASTCPU_CHOOSE_VDSO,
		      FASTCPU_CHOOSE_SYSCALL };
enum fastcpu_cache_choice { FASTCPU_CACHE_AUTO, FASTCPU_CACHE_ON,
			    FASTCPU_CACHE_OFF };
struct fastcpu_settings {
	enum fastcpu_choice backend;
	enum fastcpu_cache_choice cache;
};
struct fastcpu_settings fastcpu_settings(void);
/* What values of FASTCPU_BACKEND and FASTCPU_CACHE ask for (NULL or empty:
 * auto); an unknown one gives its one line on stderr and auto. */
struct fastcpu_settings fastcpu_settings_parse(const char *backend, const char *cache);

/* ---- where a thread's cpu_id is (cpu-id.c) ------------------------------ */

/* Values fastcpu_cpu_id_ref points at before and instead of an area. */
#define FASTCPU_CPU_UNATTACHED	(-1)	/* thread has not asked yet */
#define FASTCPU_CPU_NO_RSEQ	(-2)	/* thread uses the fallback */

/* The calling thread's cpu_id: an area's, or a marker (cpu-id.c says how it
 * relates to the offsets <fastcpu.h> reads). */
extern __thread const volatile int *fastcpu_cpu_id_ref
	__attribute__((visibility("default"), tls_model("initial-exec")));
/* The marker of a thread that has not attached, known by its address: an
 * owner's area not registered in the thread reads -1 too. */
extern const int fastcpu_cpu_unattached __attribute__((visibility("hidden")));
/* The calling thread reads this area's cpu_id from now on (NULL: the
 * fallback serves it). */
void fastcpu_thread_reads(const volatile int *cpu_id);

/* Calls an unattached thread lets pass before it tries to attach again
 * (attach.c: a vfork child, which may not), answered by the fallback:
 * whether this one does. */
extern __thread unsigned int fastcpu_attach_skips
	__attribute__((visibility("hidden"), tls_model("initial-exec")));
FASTCPU_INLINE bool fastcpu_attach_passes(void)
{
	if (likely(fastcpu_attach_skips == 0))
		return false;
	fastcpu_attach_skips--;
	return true;
}

/* The calling thread's pointer, the thread attached first if it has not
 * (and may now). */
FASTCPU_INLINE const volatile int *fastcpu_attached_cpu_id(void)
{
	const volatile int *ref = fastcpu_cpu_id_ref;

	if (unlikely(ref == &fastcpu_cpu_unattached) && !fastcpu_attach_passes())
		return fastcpu_attach();
	return ref;
}
/*
 * Whether the fallback answers the calling thread now: it has attached and
 * reads no registered area (no rseq, or an owner's area that the owner has
 * not registered in this thread yet, -1 until it does), or it lets this
 * call pass unattached. The case the entry points and operations make
 * short (entry.c, percpu.c): one more compare than a thread without rseq,
 * and no attach, while the owner has not registered; the fast path's own
 * load sees the registration at once.
 */
FASTCPU_INLINE bool fastcpu_served_by_fallback(void)
{
	const volatile int *ref = fastcpu_cpu_id_ref;

	return *ref < 0 && (ref != &fastcpu_cpu_unattached || fastcpu_attach_passes());
}
/* Publishes the cpu_id word at this address (every thread's area at the
 * same offset from its anchor), with the node and cid words it implies;
 * false if another one was published before. */
bool fastcpu_publish_cpu_id(const volatile int *cpu_id);
/* The inline per-CPU operations may run their sequences on the areas at
 * the published cpu_id word (fastcpu_percpu_cpu_id_offset). */
void fastcpu_publish_sequences(void);
/* ...or, where they may not, change the upper half's slot of the CPU read
 * there (fastcpu_percpu_upper_cpu_id_offset). */
void fastcpu_publish_upper(void);
/* What the library's entry points read: its own copy of the published
 * offsets, reached without the GOT (the exported words may live in the
 * program, copied there by copy relocations), written with them. */
struct fastcpu_offsets {
	ptrdiff_t cpu_id, node_id, cid;	/* 0: not published */
	ptrdiff_t percpu;		/* fastcpu_percpu_cpu_id_offset's copy */
};
extern struct fastcpu_offsets fastcpu_offsets;
/* The calling thread's word at a published offset (the anchor, -1, at 0). */
static inline const volatile int *fastcpu_published_word(const ptrdiff_t *offset)
{
	return fastcpu_tls_word_(__atomic_load_n(offset, __ATOMIC_RELAXED));
}

/* ---- mechanisms --------------------------------------------------------- */

/* The backends (backend-*.c), and whether each works on this machine. */
extern const struct fastcpu_backend fastcpu_backend_rdpid;
extern const struct fastcpu_backend fastcpu_backend_vdso;
extern const struct fastcpu_backend fastcpu_backend_syscall;
bool fastcpu_rdpid_usable(void);
bool fastcpu_vdso_usable(void);

/* The jiffy-style per-thread cache in front of a backend (cache.c). */
const struct fastcpu_backend *fastcpu_cache_wrap(const struct fastcpu_backend *b);
/* Around every affinity change in the process (affinity.c): no cached answer
 * is served or stored between the two, none from before is served after. */
void fastcpu_affinity_change_begin(void);
void fastcpu_affinity_change_end(void);

/* The cache's clock (tick.c): chosen by fastcpu_tick_usable() when binding;
 * fastcpu_tick() is never 0 and changes at least every 10 ms. */
bool fastcpu_tick_usable(void);
extern uint32_t (*fastcpu_tick_fn)(void);
static inline uint32_t fastcpu_tick(void)
{
	return __atomic_load_n(&fastcpu_tick_fn, __ATOMIC_RELAXED)();
}
/* Which clock, and what reading it cost when chosen, into buf. */
void fastcpu_tick_describe(char *buf, size_t size);

/* The NUMA node of a CPU from sysfs, read once on first need (node.c); -1
 * when the table does not know the CPU: ask the kernel then. */
int fastcpu_node_of_cpu(unsigned int cpu);
/* Fills a zeroed table of FASTCPU_MAX_CPUS entries (node + 1) from a sysfs
 * node directory (a parameter so that tests can give it fake trees). */
void fastcpu_node_table_fill(uint16_t *nodes, const char *dir);

/* Another owner of threads' rseq areas (program-owner.c), searched once, at
 * load, in the objects loaded then: an exported initial-exec TLS area
 * __rseq_abi (tcmalloc, older librseq), with __rseq_refcount where shared
 * by reference count, both offsets from the thread pointer; or librseq's
 * published offset of its area (0 until librseq initialises). */
enum fastcpu_owner_convention { FASTCPU_OWNER_NONE, FASTCPU_OWNER_EXPORTED,
				FASTCPU_OWNER_REFCOUNTED, FASTCPU_OWNER_PUBLISHED };
struct fastcpu_program_owner {
	enum fastcpu_owner_convention convention;
	ptrdiff_t area_offset;
	ptrdiff_t refcount_offset;
	const ptrdiff_t *published_offset;
	const char *object;	/* the shared object publishing it; NULL: the program */
};
void fastcpu_program_owner_search(void);
/* What the search found; NULL before it ran. */
const struct fastcpu_program_owner *fastcpu_program_owner(void);
/* librseq publishes its offset in its constructor, which the loader may run
 * after this library's: at load, a publishing owner whose offset is still 0
 * is initialised now, if it is a shared object the loader has not
 * initialised yet. Then the offset, 0 while still unknown. */
ptrdiff_t fastcpu_program_owner_offset_at_load(const struct fastcpu_program_owner *o);

/* ---- readers of what the kernel and the loader give --------------------- */

/* What the kernel's rseq areas hold, from the auxiliary vector (kernel.c):
 * whether it keeps node_id and mm_cid, and the length the library
 * registers its own area with. */
struct fastcpu_rseq_kernel {
	unsigned int feature_size;	/* AT_RSEQ_FEATURE_SIZE; 0 before 6.3 */
	unsigned int own_length;
	bool node_id;
	bool mm_cid;
};
struct fastcpu_rseq_kernel fastcpu_rseq_kernel(void);
/* CPU numbers are below this (the kernel's nr_cpu_ids): counted once,
 * read inline where a fallback answers every call. */
extern int fastcpu_possible_cpus_word;
int fastcpu_count_possible_cpus(void);
static inline int fastcpu_possible_cpus(void)
{
	int n = __atomic_load_n(&fastcpu_possible_cpus_word, __ATOMIC_ACQUIRE);

	return likely(n != 0) ? n : fastcpu_count_possible_cpus();
}

/* Calls fn(i, arg) for each number of a sysfs list ("0-3,8"), read from fd
 * or from the file at path (cpulist.c). */
void fastcpu_cpulist_read(int fd, void (*fn)(unsigned long, void *), void *arg);
void fastcpu_cpulist_read_file(const char *path,
			       void (*fn)(unsigned long, void *), void *arg);

/* Whether the calling task runs on a TLS of its own, not a vfork parent's
 * (task-tls.c): a system call only in processes that made such a task; and
 * what it checks once, at load. */
bool fastcpu_task_owns_tls(void);
void fastcpu_task_tls_at_load(void);

/* Async-signal-safe helpers (util.c). */
long fastcpu_raw_syscall_errno(long nr, long a, long b, long c, long d);
/* The rseq system call with the library's signature: 0 or -errno. */
long fastcpu_rseq_call(volatile void *area, unsigned long length, int flags);
const char *fastcpu_getenv(const char *name);
unsigned long fastcpu_getauxval(unsigned long type);
/* Nanoseconds a call of fn takes, at best (async-signal-safe). */
uint64_t fastcpu_cost_ns(int (*fn)(void));
/* One line on stderr, at most once per process per distinct key. */
void fastcpu_warn_once(unsigned int key, const char *line);
enum { FASTCPU_WARN_BACKEND, FASTCPU_WARN_CACHE, FASTCPU_WARN_UNAVAILABLE,
       FASTCPU_WARN_RSEQ, FASTCPU_WARN_STATIC_CACHE };

/* The object at offset from the calling thread's thread pointer. */
static inline void *fastcpu_thread_at(ptrdiff_t offset)
{
	return (char *)fastcpu_arch_thread_pointer() + offset;
}

/* Where the concurrency id is, from a thread's cpu_id: mm_cid where the
 * kernel keeps it, else cpu_id itself. The one home of that fact: the
 * words cpu-id.c publishes and the library's own reads (cid.c, percpu.c)
 * both take it from here. */
static inline ptrdiff_t fastcpu_cid_distance(void)
{
	return fastcpu_rseq_kernel().mm_cid ?
	       (ptrdiff_t)(offsetof(struct fastcpu_rseq_abi, mm_cid) -
			   offsetof(struct fastcpu_rseq_abi, cpu_id)) : 0;
}

static inline const volatile int *fastcpu_cid_word(const volatile int *cpu_id)
{
	return (const volatile int *)((uintptr_t)cpu_id + (uintptr_t)fastcpu_cid_distance());
}

/* The index of a thread without an area (no rseq, or sequences not allowed
 * on its area): its CPU plus the number of possible CPUs, the upper half
 * that no thread with an area reaches (cid.c, percpu.c). */
static inline int fastcpu_upper_index(int cpu)
{
	return cpu + fastcpu_possible_cpus();
}

/* The calling thread's cpu_id where the library runs its sequences on its
 * area; NULL where the thread takes the upper half (percpu.c, objcache.c),
 * as every thread does where this build has no sequences. It attaches. */
FASTCPU_INLINE const volatile int *fastcpu_sequence_cpu_id(void)
{
	const volatile int *ref = fastcpu_attached_cpu_id();

#ifdef FASTCPU_RSEQ_INLINE
	return *ref >= 0 && fastcpu_thread_runs_sequences(ref) ? ref : NULL;
#else
	(void)ref;
	return NULL;
#endif
}

/*
 * The CPU whose slot of the upper half a thread without sequences takes
 * (percpu.c, objcache.c): any is right (that half changes only by atomic
 * instructions), the nearer the less contended. Its area's cpu_id where it
 * reads a registered one; else the fallback's answer, kept for the next
 * FASTCPU_UPPER_REUSES takes: a thread is seldom moved that often, and
 * asking (a call, a clock, a system call) would cost more than the atomic
 * it chooses a line for. 0 where nothing can answer, errno kept. The
 * thread has attached.
 */
#define FASTCPU_UPPER_REUSES 32
struct fastcpu_upper_seen {
	int cpu;
	int index;		/* fastcpu_upper_index(cpu) */
	unsigned int reuses;	/* takes left before asking again */
};
extern __thread struct fastcpu_upper_seen fastcpu_upper_seen
	__attribute__((visibility("hidden"), tls_model("initial-exec")));
int fastcpu_upper_cpu_ask(void);
FASTCPU_INLINE int fastcpu_upper_cpu(void)
{
	int cpu = *fastcpu_cpu_id_ref;

	if (cpu >= 0)
		return cpu;
	if (likely(fastcpu_upper_seen.reuses != 0)) {
		fastcpu_upper_seen.reuses--;
		return fastcpu_upper_seen.cpu;
	}
	return fastcpu_upper_cpu_ask();
}

/* One step of waiting for what another thread holds (wait.c), attempt
 * counting from 0: spins, then yields, then sleeps from this attempt on. */
#define FASTCPU_WAIT_SPINS 64
#define FASTCPU_WAIT_YIELDS 16
#define FASTCPU_WAIT_SLEEPS (FASTCPU_WAIT_SPINS + FASTCPU_WAIT_YIELDS)
void fastcpu_wait_for_holder(unsigned int attempt);

/* The kernel's time-slice extension for lock holders (slice.c): the
 * flags the library's own area is registered with (its length), and the
 * enabling of a thread on glibc's area, where the kernel offers it. */
unsigned int fastcpu_slice_registration_flags(unsigned int length);
void fastcpu_slice_enable(const volatile int *cpu_id);

/* Turns for the pops of the upper half's lists, one per CPU index
 * (turns.c): taking one never waits; a fork child finds them all free but
 * one its own thread held. */
bool fastcpu_turn_take(size_t cpu);
void fastcpu_turn_give(size_t cpu);
/* Whether the calling thread holds a turn (a signal handler interrupted
 * its pop). */
bool fastcpu_turn_held_here(void);
void fastcpu_turns_at_load(void);

#endif /* FASTCPU_INTERNAL_H */
