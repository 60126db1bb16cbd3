/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/internal.h: declarations shared inside the library, all hidden. */

#ifndef FASTCPU_INTERNAL_H
#define FASTCPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one file that publishes the offsets <fastcpu.h> declares const. */
#define FASTCPU_LIBRARY_PUBLISHES_OFFSETS
#include "fastcpu.h"

#define FASTCPU_EXPORT	__attribute__((visibility("default")))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * A way to ask for the CPU without rseq. cpu() serves sched_getcpu() and
 * returns the CPU or -1 with errno set as the kernel set it; cpu_node()
 * serves getcpu() and stores a consistent pair (both pointers non-NULL),
 * returning 0 or -1 with errno set. Both are async-signal-safe and leave
 * errno alone on success.
 */
struct fastcpu_backend {
	const char *name;
	int (*cpu)(void);
	int (*cpu_node)(unsigned int *cpu, unsigned int *node);
};

extern const struct fastcpu_backend fastcpu_backend_rdpid;
extern const struct fastcpu_backend fastcpu_backend_vdso;
extern const struct fastcpu_backend fastcpu_backend_syscall;

/* Whether a backend works on this machine; probed once by bind.c. */
bool fastcpu_rdpid_usable(void);
bool fastcpu_vdso_usable(void);

/* The process-wide choice, made once on first use (bind.c) from the
 * settings read at load. */
struct fastcpu_binding {
	bool use_rseq;			/* try rseq in each thread first */
	bool rseq_forced;		/* FASTCPU_BACKEND=rseq */
};
struct fastcpu_binding fastcpu_bind(void);
/* The fallback fastcpu_bind() chose (with the cache if chosen), published
 * before any thread can have attached; read by attached threads' slow paths. */
extern const struct fastcpu_backend *fastcpu_bound_fallback;
/* The same without the cache: where an answer must be the CPU of this
 * moment (concurrency ids). */
const struct fastcpu_backend *fastcpu_uncached_fallback(void);
/* First call of the calling thread (fastcpu_cpu_id_ref still at its
 * initial marker): bind the process, find or register the thread's area. */
void fastcpu_attach_calling_thread(void);
/* One line on stderr, at most once per process per distinct key. */
void fastcpu_warn_once(unsigned int key, const char *line);
enum { FASTCPU_WARN_BACKEND, FASTCPU_WARN_CACHE, FASTCPU_WARN_UNAVAILABLE,
       FASTCPU_WARN_RSEQ, FASTCPU_WARN_STATIC_CACHE };

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

/* The jiffy-style per-thread cache in front of a backend (cache.c). */
const struct fastcpu_backend *fastcpu_cache_wrap(const struct fastcpu_backend *b);
/* Around every affinity change in the process (affinity.c): no cached answer
 * is served or stored between the two, none from before is served after. */
void fastcpu_affinity_change_begin(void);
void fastcpu_affinity_change_end(void);

/* The cache's clock (tick.c): chosen by fastcpu_tick_usable() when binding;
 * fastcpu_tick() is never 0 and changes at least every 10 ms. */
bool fastcpu_tick_usable(void);
/* Which clock, and what reading it cost when it was chosen (into buf);
 * built only into the tool (FASTCPU_TICK_SOURCE). */
const char *fastcpu_tick_source(char *buf, size_t size);
extern uint32_t (*fastcpu_tick_fn)(void);
static inline uint32_t fastcpu_tick(void)
{
	return __atomic_load_n(&fastcpu_tick_fn, __ATOMIC_RELAXED)();
}

/* Per-thread rseq attachment (rseq.c). */
enum fastcpu_rseq_owner { FASTCPU_RSEQ_NONE, FASTCPU_RSEQ_GLIBC,
			  FASTCPU_RSEQ_PROGRAM, FASTCPU_RSEQ_OWN };
/* Points fastcpu_cpu_id_ref at the thread's rseq cpu_id (glibc's area, the
 * area of the program's own rseq owner, or the library's own, registered
 * now), or at the "no rseq" marker. A task running on another thread's TLS
 * (vfork) gets no registration and publishes nothing. */
void fastcpu_rseq_attach(const struct fastcpu_binding *b);
enum fastcpu_rseq_owner fastcpu_rseq_owner(void);
/* glibc (2.35+) registered its area in every thread: it owns them all. */
bool fastcpu_glibc_registered_rseq(void);

/* Another owner of threads' rseq areas in the process (owner.c), looked up
 * once, at load: an object exporting the initial-exec TLS area __rseq_abi
 * (tcmalloc, older librseq) and, where shared by reference count,
 * __rseq_refcount, both offsets from the thread pointer; or librseq's
 * published offset of its area (0 until librseq initialises). */
struct fastcpu_rseq_program_owner {
	bool found;
	bool refcounted;
	ptrdiff_t area_offset;
	ptrdiff_t refcount_offset;
	const ptrdiff_t *published_offset;	/* or NULL */
};
void fastcpu_find_program_owner(void);
extern struct fastcpu_rseq_program_owner fastcpu_program_owner;
/* What the kernel's rseq areas hold, from the auxiliary vector (read once):
 * whether it keeps node_id and mm_cid, and the length the library
 * registers its own area with. */
struct fastcpu_rseq_kernel {
	unsigned int own_length;
	bool node_id;
	bool mm_cid;
};
struct fastcpu_rseq_kernel fastcpu_rseq_kernel(void);
/* Finds where this process's rseq areas are before any thread asks
 * (bind.c's constructor; no system call), and publishes it. */
void fastcpu_rseq_publish_early(void);

/* The offsets <fastcpu.h>'s inline reads use (published.c). Publishes the
 * cpu_id word at this address (every thread's area at the same offset from
 * its anchor); false if another one was published before. */
bool fastcpu_publish_cpu_id(const volatile void *cpu_id);
/* Publishes the cid word once the source below is decided. */
void fastcpu_publish_cid(void);

/* The concurrency ids' source for the process (cid.c). */
enum fastcpu_cid_source { FASTCPU_CID_UNDECIDED, FASTCPU_CID_CPU,
			  FASTCPU_CID_MM_CID };
enum fastcpu_cid_source fastcpu_cid_source(void);

/* Values fastcpu_cpu_id_ref points at before and instead of an rseq area. */
#define FASTCPU_CPU_UNATTACHED	(-1)	/* thread has not asked yet */
#define FASTCPU_CPU_NO_RSEQ	(-2)	/* thread uses the fallback */

/* Linux's largest NR_CPUS: no CPU number reaches it. */
#define FASTCPU_MAX_CPUS 8192

/* The NUMA node of a CPU from sysfs, read once on first need (node.c); -1
 * when the table does not know the CPU: ask the kernel then. */
int fastcpu_node_of_cpu(unsigned int cpu);
/* Calls fn(i, arg) for each number i of a sysfs list file ("0-3,8"). */
void fastcpu_for_each_in_list(const char *path,
			      void (*fn)(unsigned long, void *), void *arg);
/* Fills a zeroed table of 8192 CPUs from a sysfs node directory (node.c;
 * a parameter so that tests can give it fake trees). */
void fastcpu_node_table_fill(uint16_t *nodes, const char *dir);

/* Async-signal-safe helpers (util.c). */
long fastcpu_raw_syscall_errno(long nr, long a, long b, long c, long d);
const char *fastcpu_getenv(const char *name);
unsigned long fastcpu_getauxval(unsigned long type);

/* Whether the calling task runs on a TLS of its own, not a vfork parent's
 * (task-tls.c): a system call only in processes that made such a task. */
bool fastcpu_task_owns_tls(void);

/* An entry of an ELF SysV hash table (DT_HASH), which vdso.c and owner.c
 * read: 64 bits on s390x, whose ABI is the exception (the kernel's own vDSO
 * parser once read it as 32), 32 everywhere else. GNU hash tables are 32-bit
 * everywhere. */
#ifdef __s390x__
typedef uint64_t fastcpu_sysv_hash_entry;
#else
typedef uint32_t fastcpu_sysv_hash_entry;
#endif

#endif /* FASTCPU_INTERNAL_H */
