/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/setups.h: every setup the library meets, each in a process of its own. */

#ifndef FASTCPU_BENCH_SETUPS_H
#define FASTCPU_BENCH_SETUPS_H

#include <stdbool.h>

#include "latency.h"
#include "measure.h"

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

/* What a row's process measured, in the thread of its setup. */
struct setup_result {
	char served[32];	/* fastcpu_backend() there; "" where not run */
	int served_id;		/* fastcpu_backend_id() there */
	char why_not[64];	/* where not run: why */
	/* Nothing waits on the answer: ns a call, the empty loop subtracted;
	 * plain_* are glibc's (the system call on the rows where glibc has
	 * no other way: setup_plain_is_syscall()). */
	struct bench_result sched, plain_sched, getcpu, plain_getcpu, generic, syscall;
	/* A locked add on the answer's shard follows: ns beyond the add. */
	struct bench_result add_alone, sched_add, plain_sched_add, getcpu_add, plain_getcpu_add;
	/* The per-CPU add, against an atomic add on the shard of
	 * fastcpu_current_cpu(); not in a vfork child. */
	struct bench_result counter, shard;
	/* The object cache's pair against malloc's, 64 bytes; not in a vfork
	 * child either. */
	struct bench_result objcache_pair, malloc_pair;
	bool has_counter, has_getcpu;
	/* Seed 000's MISS and HIT, where a backend is forced. */
	struct bench_result miss, hit;
};

/* Each row's name, its key for machines, FASTCPU_BACKEND (NULL: none
 * forced) and FASTCPU_CACHE. */
const char *setup_name(enum setup_id id);
const char *setup_key(enum setup_id id);
const char *setup_backend(enum setup_id id);
/* The forced backend's fastcpu_backend_id(), cache off; 0 where none is. */
int setup_backend_id(enum setup_id id);
const char *setup_cache(enum setup_id id);
/* Where glibc has nothing but the system call (the forced syscall rows:
 * a kernel without a vDSO getcpu), plain_* time that. */
bool setup_plain_is_syscall(enum setup_id id);

/* Runs each row in a new process of this program (argv its arguments),
 * pinned where this one is; nothing may be bound here yet. */
void setups_run_all(struct setup_result out[SETUP_COUNT], char **argv,
		    const struct bench_config *cfg);

/* In such a process (FASTCPU_BENCH_SETUP set): measures its row, sends it
 * to the parent and exits; elsewhere returns. */
void setups_child_if_asked(const struct bench_config *cfg);

#endif /* FASTCPU_BENCH_SETUPS_H */
