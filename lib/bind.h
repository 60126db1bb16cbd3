/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/bind.h: what serves a thread without rseq, chosen once. */

#ifndef FASTCPU_BIND_H
#define FASTCPU_BIND_H

#include <stdbool.h>

#include "backends.h"

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

#endif /* FASTCPU_BIND_H */
