/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/rseq-owner.h: the stand-in rseq owner libraries' interface. */

#ifndef FASTCPU_TESTS_RSEQ_OWNER_H
#define FASTCPU_TESTS_RSEQ_OWNER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Registers the calling thread's __rseq_abi (glibc's area serves when glibc
 * registered one); 0 or -1. librseq's variants abort on a failure after
 * another thread's success. */
int rseq_owner_register(void);
/* The cpu_id of the calling thread's area, and its address. */
int rseq_owner_cpu(void);
const volatile int *rseq_owner_cpu_id_word(void);
/* The signature the owner registers its areas with. */
unsigned int rseq_owner_signature(void);
/* Whether the kernel has this thread's __rseq_abi registered. */
bool rseq_owner_registered_here(void);
/* Adds 1 to the counter stride bytes apart from counters for the calling
 * thread's CPU, with the owner's own restartable sequence (x86-64); how
 * many of those the kernel aborted so far, in all threads. */
void rseq_owner_percpu_inc(long *counters, size_t stride);
unsigned long rseq_owner_aborts(void);

#endif /* FASTCPU_TESTS_RSEQ_OWNER_H */
