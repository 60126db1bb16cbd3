/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/wing-thread.c: what a thread keeps in the per-CPU data wing (wing-thread.h). */

#include "wing-thread.h"

/* Zero in a new thread (static TLS starts zeroed): no upper slot asked,
 * no lock held, no serial yet, no front. */
FASTCPU_TLS struct fastcpu_wing_thread fastcpu_wing_thread;
