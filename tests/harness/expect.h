/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/harness/expect.h: what fastcpu_backend() should say, worked out apart. */

#ifndef FASTCPU_TESTS_EXPECT_H
#define FASTCPU_TESTS_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

/* The name for FASTCPU_BACKEND=backend and FASTCPU_CACHE=cache (NULL for
 * unset), given whether rseq can serve this thread. Written into buf. */
const char *expect_backend_name(const char *backend, const char *cache,
				bool rseq_ok, char *buf, size_t size);
/* Whether rseq serves a thread of this process: glibc's area or our own. */
bool expect_rseq_ok(void);
/* "rseq (glibc)" or "rseq (own)" for this process. */
const char *expect_rseq_name(void);

#endif /* FASTCPU_TESTS_EXPECT_H */
