/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/thread.c: what a thread knows, in one place (thread.h). */

#include "thread.h"

/* Zero in a new thread (static TLS starts zeroed): not attached, nothing
 * kept, no lock held, no serial yet. */
FASTCPU_TLS struct fastcpu_thread fastcpu_thread;
