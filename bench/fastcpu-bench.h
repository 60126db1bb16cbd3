/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/fastcpu-bench.h: what fastcpu-bench measures, each table a module's workload. */

#ifndef FASTCPU_BENCH_FASTCPU_BENCH_H
#define FASTCPU_BENCH_FASTCPU_BENCH_H

#include <stdbool.h>

#include "measure.h"

/* ---- cases.c: the ways of reading the CPU (Tables 1, 7, 5) ---------------- */

/* Looks up glibc's sched_getcpu and getcpu in libc itself, so that the
 * comparison holds with libfastcpu linked or preloaded, and the vDSO's;
 * glibc's getcpu: NULL before glibc 2.29. */
void cases_init(void);
extern int (*volatile glibc_getcpu_p)(unsigned int *, unsigned int *);

/* Table 1, rows of "reading": each way of asking this machine has. */
void cases_reading(struct rows *out);

/* Table 7: each way again, keyed as Table 1's (work_alone: the work alone),
 * ns beyond the work: a locked add on the answer's shard follows (rows of
 * "latency-locked-add"), the answer indexes a load the next adds ("latency-
 * chained-load"); or (waited not NULL: a setup's process) the locked add of
 * glibc's and the library's calls and the system call only, rows of waited. */
void latency_measure(struct rows *out, const char *waited, const struct bench_config *cfg);

/* Table 5, rows of "loop": the inline reads in a loop, with librseq-style
 * reference rows where the thread reads an rseq area: its cpu_id where
 * <fastcpu.h> reads it (after its first call), NULL where it has none. */
void loops_measure(struct rows *out);
const volatile int *loops_rseq_cpu_id(void);

/* What the setup table's processes time too; single shots; glibc's own
 * sched_getcpu(), whoever interposes it. */
unsigned long loop_empty(unsigned long n);
unsigned long loop_fastcpu_sched_getcpu(unsigned long n);
unsigned long loop_fastcpu_getcpu_generic(unsigned long n);
unsigned long loop_fastcpu_getcpu(unsigned long n);
unsigned long loop_glibc_sched_getcpu(unsigned long n);
unsigned long loop_glibc_getcpu(unsigned long n);
unsigned long loop_syscall_getcpu(unsigned long n);
void once_fastcpu_sched_getcpu(void);
void once_glibc_sched_getcpu(void);
int glibc_sched_getcpu(void);

/* ---- counters.c: seed 001's counter table (Table 4) ---------------------- */

/* The kinds of counter, each an id, its row's key and name: the seed's
 * rows first, in its order, then the atomic adds on a shard found by
 * reading the CPU, then the reference (x86-64). */
#define COUNTER_KINDS_(X)							\
	X(COUNTER_EMPTY, "empty_loop", "empty loop (subtracted)")		\
	X(COUNTER_GLOBAL_PLAIN, "global_plain", "global non-atomic increment")	\
	X(COUNTER_PERCPU_RSEQ, "fastcpu_counter_add", "per-CPU rseq add: fastcpu_counter_add()") \
	X(COUNTER_PERCID_RSEQ, "fastcpu_percpu_add_cid", "per-CPU rseq add by concurrency id") \
	X(COUNTER_PERCPU_LOCK, "fastcpu_percpu_lock", "per-CPU rseq lock: fastcpu_percpu_lock()") \
	X(COUNTER_ATOMIC_ADD, "global_atomic_add", "global atomic add")		\
	X(COUNTER_CAS_LOOP, "global_cas_loop", "global CAS loop")		\
	X(COUNTER_MUTEX, "global_mutex", "global pthread mutex")		\
	X(COUNTER_PERCPU_FASTCPU, "shard_fastcpu_current_cpu",			\
	  "atomic add, shard of fastcpu_current_cpu()")				\
	X(COUNTER_PERCPU_GLIBC, "shard_glibc_sched_getcpu", "atomic add, shard of glibc sched_getcpu()") \
	X(COUNTER_PERCID_FASTCPU, "shard_fastcpu_current_cid",			\
	  "atomic add, shard of fastcpu_current_cid()")				\
	X(COUNTER_REFERENCE, "librseq_percpu_add", "librseq-shaped per-CPU add (reference)") \
	X(COUNTER_REFERENCE_CLEARED, "librseq_percpu_add_cleared",		\
	  "the same, rseq_cs cleared after it (as the library's are)")
#define COUNTER_ID_(id, key, name) id,
enum counter_kind { COUNTER_KINDS_(COUNTER_ID_) COUNTER_KINDS };

/* Makes the library's counter and the per-CPU locks (after the calling
 * thread's first call); a kind's increments, one thread, for
 * bench_measure(). */
void counters_init(void);
extern const bench_loop_fn counter_measure_loops[COUNTER_KINDS];

/* Table 4, rows of "counters": one thread pinned (threads 0) and the aims
 * of it, a workload (arg unused) for fresh processes; then, in the calling
 * process, threads free to migrate, 1 to 2x CPUs, the CPU time of each,
 * median of the rounds. */
void counters_measure(int arg, struct rows *out);
void counters_with_threads(struct rows *out);

/* ---- preempted.c: Table 9, rows of "preempted-lock" ---------------------- */

/* A holder and a waiter on one CPU, the holder taking the lock for about 2
 * us at a time: how often the waiter finds it taken (its holder preempted
 * inside) and the waiter's CPU time an acquisition; without, then with the
 * kernel's time-slice extension where offered (which lets a holder
 * preempted inside finish first). A workload (arg unused). */
void preempted_measure(int arg, struct rows *out);

/* ---- setups.c: Table 10, rows of "setup" --------------------------------- */

/* Each setup in a process of its own, pinned where this one is (nothing
 * may be bound here yet): its rows keyed KEY.*, KEY.served named what
 * served its thread (its figure fastcpu_backend_id() there) or why it did
 * not run (NAN); its cells KEY.cell_*, libfastcpu / glibc there, each at
 * most SETUP_CELL_MOST; the aim of the highest. The workload of a setup's
 * process, id its setup. */
#define SETUP_CELL_MOST 1.05
void setups_measure(struct rows *out);
void setups_workload(int id, struct rows *out);

/* ---- tree-counters.c: the counter tree beside the field's counters (#46) - */

/* Rows of "counter-tree" keyed LINE.COUNTER.OP, each LINE (here, cpus_64,
 * cpus_256, cpus_1024: FASTCPU_POSSIBLE_CPUS; here_no_sequences) from
 * processes of its own; the workload of one, arg its CPUs (0: the
 * machine's; -1: the machine's, sequences off). */
void counter_tree_measure(struct rows *out);
void counter_tree_workload(int arg, struct rows *out);

#endif /* FASTCPU_BENCH_FASTCPU_BENCH_H */
