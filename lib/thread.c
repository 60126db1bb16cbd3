/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/thread.c: what a thread knows in the core, in one place (thread.h). */

#include "thread.h"

/* Zero in a new thread (static TLS starts zeroed): not attached, no
 * answer kept. */
FASTCPU_TLS struct fastcpu_thread fastcpu_thread;
