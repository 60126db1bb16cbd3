/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/task-tls.h: whether the calling task runs on a TLS of its own. */

#ifndef FASTCPU_TASK_TLS_H
#define FASTCPU_TASK_TLS_H

#include <stdbool.h>

/* Whether the calling task runs on a TLS of its own, not a vfork parent's
 * (task-tls.c): a system call only in processes that made such a task; and
 * what it checks once, at load. */
bool fastcpu_task_owns_tls(void);
void fastcpu_task_tls_at_load(void);

#endif /* FASTCPU_TASK_TLS_H */
