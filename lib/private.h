/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/private.h: what the fastcpu tool asks the library (private.c). */

#ifndef FASTCPU_PRIVATE_H
#define FASTCPU_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Exported at version FASTCPU_PRIVATE, for the tool built in the same tree
 * only: no compatibility is promised, and this header is not installed.
 */

/* Which rseq area a thread reads. */
enum fastcpu_area_kind { FASTCPU_AREA_NONE, FASTCPU_AREA_GLIBC,
			 FASTCPU_AREA_PROGRAM, FASTCPU_AREA_OWN };

struct fastcpu_private_facts {
	enum fastcpu_area_kind area;	/* what serves the calling thread */
	bool rdpid;			/* the CPU has RDPID */
	bool vdso_getcpu;		/* the vDSO has a getcpu the library would use */
	char tick[160];			/* the cache's clock, as chosen */
};

/* Fills facts as the calling thread and the library see them now. */
void fastcpu_private_facts(struct fastcpu_private_facts *facts);

#endif /* FASTCPU_PRIVATE_H */
