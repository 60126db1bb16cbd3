/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/harness/expect.c: the library's documented selection rules, restated. */

#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "helpers.h"

static bool is(const char *value, const char *name)
{
	return value != NULL && strcmp(value, name) == 0;
}

bool expect_rseq_ok(void)
{
	return test_glibc_registered_rseq() || test_kernel_rseq_usable();
}

const char *expect_rseq_name(void)
{
	return test_glibc_registered_rseq() ? "rseq (glibc)" : "rseq (own)";
}

/*
 * auto: rseq, else RDPID, else the vDSO, else the syscall; the cache in
 * front of the syscall only, and with FASTCPU_CACHE=on in front of the vDSO
 * too (where the library measures it slower than a hit: the caller accepts
 * "vdso" then), never RDPID. A forced backend the machine lacks is auto.
 */
const char *expect_backend_name(const char *backend, const char *cache,
				bool rseq_ok, char *buf, size_t size)
{
	bool forced = (is(backend, "rdpid") && test_cpu_has_rdpid()) ||
		      (is(backend, "vdso") && test_has_vdso_getcpu()) ||
		      is(backend, "syscall");
	const char *base;
	bool cached;

	if (!forced && rseq_ok)
		return expect_rseq_name();
	if (forced)
		base = backend;
	else if (test_cpu_has_rdpid())
		base = "rdpid";
	else if (test_has_vdso_getcpu())
		base = "vdso";
	else
		base = "syscall";
	cached = (is(cache, "on") && !is(base, "rdpid")) ||
		 (!is(cache, "off") && is(base, "syscall"));
	snprintf(buf, size, "%s%s", base, cached ? "+cache" : "");
	return buf;
}
