/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/private.h: what the fastcpu tool, the tests and the benchmark of the
 * same tree ask the library (private.c, objcache-census.c). */

#ifndef FASTCPU_PRIVATE_H
#define FASTCPU_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "abort-probe.h"
#include "area-kind.h"

/*
 * Exported at version FASTCPU_PRIVATE, for the tool, tests and benchmark
 * built in the same tree only: no compatibility is promised, and this
 * header is not installed.
 */


struct fastcpu_private_facts {
	enum fastcpu_area_kind area;	/* what serves the calling thread */
	bool rdpid;			/* the CPU has RDPID */
	bool vdso_getcpu;		/* the vDSO has a getcpu the library would use */
	char tick[160];			/* the cache's clock, as chosen */
	char fallback[32];		/* what answers a thread without rseq here */
	bool sequences;			/* the per-CPU operations run sequences here */
	char sequences_why[200];	/* why they do or do not */
	int possible_cpus;		/* what the library sizes by (kernel.h) */
	int kernel_possible_cpus;	/* the kernel's own count */
};

/* Fills facts as the calling thread and the library see them now. */
void fastcpu_private_facts(struct fastcpu_private_facts *facts);

/* An object cache counted, while no thread uses it (the tests, the
 * benchmark): every object it carved is given out or free in one place. */
struct fastcpu_private_census {
	size_t carved;			/* objects ever carved */
	size_t listed;			/* free, in the CPU indexes' magazines and kept */
	size_t in_depot;		/* free, in the depot */
	size_t batches;			/* the depot's magazines with objects */
	size_t magazines;		/* every magazine: the indexes' and the depot's */
	size_t longest;			/* the fullest index's objects */
	size_t limit;			/* what an index may hold: its capacity */
	size_t object_bytes;		/* an object's bytes, rounded */
	size_t repeated;		/* objects found free twice */
	size_t strays;			/* free, not the cache's */
	size_t indexes_used;		/* indexes that hold a magazine */
	unsigned long aborts;		/* the process's objcache sequences aborted */
	size_t kept;			/* of listed, in threads' fronts (objcache-front.h) */
};

/* Whether the calling thread's per-CPU operations run sequences (else the
 * upper half), decided as its first one would. */
bool fastcpu_private_runs_sequences(void);

/* The abort probe (abort-probe.c) run now, where run is 1 (2: with its
 * fault caused, the spinner's area unregistered); and what the process's
 * guard (sequence-guard.c) knows. */
struct fastcpu_private_probe {
	int outcome;			/* 0 aborted, 1 resumed, 2 undecided */
	unsigned long preemptions, read, missed;	/* abort-probe.h's */
	const char *why;		/* undecided: why */
	unsigned long guard_probes;	/* probes the guard ran in this process */
	int guard;			/* 0 undecided, 1 sequences, 2 none */
};
void fastcpu_private_probe(struct fastcpu_private_probe *probe, int run);

struct fastcpu_objcache;
/* 0, or -1 (errno ENOMEM: no memory to count with). */
int fastcpu_private_objcache_census(const struct fastcpu_objcache *cache,
				    struct fastcpu_private_census *census);
/* The cache's index, from now on: FASTCPU_BY_CID (what new makes) or
 * FASTCPU_BY_CPU, for the benchmark to measure both; before any use. */
void fastcpu_private_objcache_index(struct fastcpu_objcache *cache, int by);

struct fastcpu_counter_tree;
/* Whether the tree is settled (counter-tree-shape.h): every carry landed,
 * every word within its range; for the tests, while no add runs. */
bool fastcpu_private_counter_tree_settled(const struct fastcpu_counter_tree *tree);

#endif /* FASTCPU_PRIVATE_H */
