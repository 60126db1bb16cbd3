/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/util.h: async-signal-safe helpers. */

#ifndef FASTCPU_UTIL_H
#define FASTCPU_UTIL_H

#include <stdint.h>

/* Async-signal-safe helpers (util.c). */
long fastcpu_raw_syscall_errno(long nr, long a, long b, long c, long d);
/* The file calls the library makes, none a cancellation point (util.c):
 * a descriptor or -errno, bytes or -errno. */
int fastcpu_open_nocancel(const char *path, int flags);
long fastcpu_read_nocancel(int fd, void *buf, unsigned long count);
long fastcpu_write_nocancel(int fd, const void *buf, unsigned long count);
void fastcpu_close_nocancel(int fd);
/* Sleeps ns nanoseconds (less where a signal comes), no cancellation point. */
void fastcpu_nap_nocancel(long ns);
/* The rseq system call with the library's signature: 0 or -errno. */
long fastcpu_rseq_call(volatile void *area, unsigned long length, int flags);
const char *fastcpu_getenv(const char *name);
unsigned long fastcpu_getauxval(unsigned long type);
/* Nanoseconds a call of fn takes, at best (async-signal-safe). */
uint64_t fastcpu_cost_ns(int (*fn)(void));
/* One line on stderr, at most once per process per distinct key. */
void fastcpu_warn_once(unsigned int key, const char *line);
enum { FASTCPU_WARN_BACKEND, FASTCPU_WARN_CACHE, FASTCPU_WARN_UNAVAILABLE,
       FASTCPU_WARN_RSEQ, FASTCPU_WARN_STATIC_CACHE, FASTCPU_WARN_SEQUENCES,
       FASTCPU_WARN_POSSIBLE_CPUS };

#endif /* FASTCPU_UTIL_H */
