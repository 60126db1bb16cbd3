/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/wing.h: what the per-CPU data wing shares. */

#ifndef FASTCPU_PERCPU_WING_H
#define FASTCPU_PERCPU_WING_H

/*
 * The per-CPU data wing: everything of lib/percpu/ takes from the core
 * (lib/) what a thread reads and what answers it without rseq, and from
 * here what the wing shares: the upper half's CPU, waiting for a holder,
 * the turns. The core never calls the wing.
 */
#include <stdbool.h>
#include <stddef.h>

#include "attach.h"
#include "bind.h"
#include "cid.h"
#include "internal.h"
#include "kernel.h"
#include "upper.h"

/* One step of waiting for what another thread holds (wait.c), attempt
 * counting from 0: spins, then yields, then sleeps from this attempt on. */
#define FASTCPU_WAIT_SPINS 64
#define FASTCPU_WAIT_YIELDS 16
#define FASTCPU_WAIT_SLEEPS (FASTCPU_WAIT_SPINS + FASTCPU_WAIT_YIELDS)
void fastcpu_wait_for_holder(unsigned int attempt);

/* Turns for the pops of the upper half's lists, one per CPU index
 * (turns.c): taking one never waits; a fork child finds them all free but
 * one its own thread held. */
bool fastcpu_turn_take(size_t cpu);
void fastcpu_turn_give(size_t cpu);
/* Whether the calling thread holds a turn (a signal handler interrupted
 * its pop). */
bool fastcpu_turn_held_here(void);

#endif /* FASTCPU_PERCPU_WING_H */
