/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/ops.h: the per-CPU operations the wing calls out of line. */

#ifndef FASTCPU_PERCPU_OPS_H
#define FASTCPU_PERCPU_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Adds value to the calling thread's slot, by its path (ops.c): the slot's
 * index, and the value the slot held before in *old. Async-signal-safe. */
int fastcpu_percpu_add_return(void *base, size_t stride, enum fastcpu_index by, intptr_t value,
			      intptr_t *old);

#endif /* FASTCPU_PERCPU_OPS_H */
