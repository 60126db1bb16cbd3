/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/wait.h: how a thread waits for what another holds. */

#ifndef FASTCPU_PERCPU_WAIT_H
#define FASTCPU_PERCPU_WAIT_H

/* One step of waiting, attempt counting from 0: spins, then yields, then
 * sleeps, for as long as the holder takes (wait.c). */
#define FASTCPU_WAIT_SPINS 64
#define FASTCPU_WAIT_YIELDS 16
void fastcpu_wait_for_holder(unsigned int attempt);

#endif /* FASTCPU_PERCPU_WAIT_H */
