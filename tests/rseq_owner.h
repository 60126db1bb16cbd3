/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/rseq_owner.h: the stand-in rseq owner libraries' interface. */

#ifndef FASTCPU_TESTS_RSEQ_OWNER_H
#define FASTCPU_TESTS_RSEQ_OWNER_H

#include <pthread.h>
#include <stdbool.h>

/* Registers the calling thread's __rseq_abi (glibc's area serves when glibc
 * registered one); 0 or -1. librseq's variants abort on a failure after
 * another thread's success. */
int rseq_owner_register(void);
/* The cpu_id of the calling thread's area. */
int rseq_owner_cpu(void);
/* Whether the kernel has this thread's __rseq_abi registered. */
bool rseq_owner_registered_here(void);

#endif /* FASTCPU_TESTS_RSEQ_OWNER_H */
