/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/answer-cache.h: the per-thread cache of a slow backend's answer. */

#ifndef FASTCPU_ANSWER_CACHE_H
#define FASTCPU_ANSWER_CACHE_H

#include "backends.h"

/* The jiffy-style per-thread cache in front of a backend (answer-cache.c). */
const struct fastcpu_backend *fastcpu_cache_wrap(const struct fastcpu_backend *b);
/* Around every affinity change in the process (affinity.c): no cached answer
 * is served or stored between the two, none from before is served after. */
void fastcpu_affinity_change_begin(void);
void fastcpu_affinity_change_end(void);

#endif /* FASTCPU_ANSWER_CACHE_H */
