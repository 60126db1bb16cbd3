/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/setups.h: every setup the library meets, each in a process of its own. */

#ifndef FASTCPU_BENCH_SETUPS_H
#define FASTCPU_BENCH_SETUPS_H

#include "rows.h"

/* The rows of the setup table, in its order: each names a state a thread
 * can be in when it asks (setups.c says how each is made). */
enum setup_id {
	SETUP_GLIBC,			/* glibc registered its area */
	SETUP_OWN,			/* glibc did not: the library's own area */
	SETUP_PUBLISHED_REGISTERED,	/* librseq 0.1+'s convention, thread registered */
	SETUP_PUBLISHED_UNREGISTERED,	/* the same, thread never registered */
	SETUP_REFCOUNT,			/* older librseq's reference count */
	SETUP_EXPORTED_REGISTERED,	/* an exported __rseq_abi (tcmalloc's shape) */
	SETUP_EXPORTED_UNREGISTERED,	/* the same, thread never registered */
	SETUP_OTHER_SIGNATURE,		/* an owner registering with its own signature */
	SETUP_SECCOMP,			/* a thread a seccomp filter refuses rseq */
	SETUP_RDPID,			/* each backend forced, the cache off and on */
	SETUP_RDPID_CACHE,
	SETUP_VDSO,
	SETUP_VDSO_CACHE,
	SETUP_SYSCALL,
	SETUP_SYSCALL_CACHE,
	SETUP_VFORK,			/* a vfork child, its parent attached */
	SETUP_VFORK_FRESH,		/* a vfork child, its parent never asked */
	SETUP_COUNT
};

/* Each row's name, its key for machines, and the fastcpu_backend_id() it
 * forces (cache off; 0 where it forces none). */
const char *setup_name(enum setup_id id);
const char *setup_key(enum setup_id id);
int setup_backend_id(enum setup_id id);

/* The table's cells (key.cell_*), libfastcpu / glibc in the setup's
 * process, ratios of medians: their aim, each at most this. */
#define SETUP_CELL_MOST 1.05

/*
 * Table 10, rows of table "setup": each setup in a process of its own,
 * pinned where this one is (nothing may be bound here yet); the rows of a
 * setup keyed by its key, and key.served, named what served its thread or
 * why it did not run (its figure fastcpu_backend_id() there, NAN where it
 * did not run); the aim of its highest cell.
 */
void setups_measure(struct rows *out);

/* The workload of a setup's process (id: its setup). */
void setups_workload(int id, struct rows *out);

#endif /* FASTCPU_BENCH_SETUPS_H */
