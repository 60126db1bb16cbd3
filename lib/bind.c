/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/bind.c: choose, once per process, what serves a thread without rseq. */

#include "answer-cache.h"
#include "backends.h"
#include "bind.h"
#include "internal.h"
#include "once.h"
#include "settings.h"
#include "tick.h"
#include "util.h"

/*
 * Why no IFUNC: an IFUNC resolver runs during relocation, before libc is
 * usable from a preloaded library and before TLS exists in a static link,
 * so it could read neither FASTCPU_BACKEND nor probe RDPID against the
 * kernel; and the rseq path needs no dispatch at all: like glibc's own
 * sched_getcpu, it is one load and a sign test. Only the fallback is chosen
 * here, and called through one pointer from the out-of-line path, which
 * also works in libfastcpu.a.
 *
 * The choice is made on first use, not at load: a preloaded library costs
 * a process no system call until it asks. Racing first uses each make the
 * same choice from the same settings and machine (once.h).
 */
enum { KIND_RDPID, KIND_VDSO, KIND_SYSCALL };

static const struct fastcpu_backend *const fallbacks[] = {
	[KIND_RDPID] = &fastcpu_backend_rdpid,
	[KIND_VDSO] = &fastcpu_backend_vdso,
	[KIND_SYSCALL] = &fastcpu_backend_syscall,
};

/* The binding in one word: flags, the fallback's kind above them. */
enum { BOUND = 1, USE_RSEQ = 2, RSEQ_FORCED = 4, CACHED = 8, KIND_SHIFT = 4 };

/* The best non-rseq backend this machine has. */
static unsigned int best_fallback(void)
{
	if (fastcpu_rdpid_usable())
		return KIND_RDPID;
	if (fastcpu_vdso_usable())
		return KIND_VDSO;
	return KIND_SYSCALL;
}

/* The forced one, or -1 with one line on stderr if the machine lacks it. */
static int forced_fallback(enum fastcpu_choice c)
{
	if (c == FASTCPU_CHOOSE_RDPID && fastcpu_rdpid_usable())
		return KIND_RDPID;
	if (c == FASTCPU_CHOOSE_VDSO && fastcpu_vdso_usable())
		return KIND_VDSO;
	if (c == FASTCPU_CHOOSE_SYSCALL)
		return KIND_SYSCALL;
	fastcpu_warn_once(FASTCPU_WARN_UNAVAILABLE, c == FASTCPU_CHOOSE_RDPID ?
		"libfastcpu: FASTCPU_BACKEND=rdpid is not available on this machine; using auto\n" :
		"libfastcpu: FASTCPU_BACKEND=vdso is not available on this machine; using auto\n");
	return -1;
}

/*
 * A hit of the cache costs a clock read and two compares, more than RDPID
 * or a vDSO that reads what RDPID reads (or the CPU's own register:
 * powerpc, s390, loongarch) would: in front of those it would only slow
 * them. So the cache goes where it helps: in front of the system call
 * (auto: on arm64 and riscv without rseq it is all there is), and with
 * FASTCPU_CACHE=on also in front of a vDSO that costs more than a hit
 * (x86 without RDPID: LSL or RDTSCP), measured here; never in front of
 * RDPID. A static link cannot see the program's affinity changes, which the
 * cache must see.
 */
static bool cache_helps(unsigned int kind)
{
	if (kind == KIND_SYSCALL)
		return true;
	if (kind == KIND_RDPID)
		return false;
	return fastcpu_cost_ns(fastcpu_cache_wrap(fallbacks[kind])->cpu) <
	       fastcpu_cost_ns(fallbacks[kind]->cpu);
}

static bool use_cache(unsigned int kind, enum fastcpu_cache_choice c)
{
	bool on = c == FASTCPU_CACHE_ON || (c == FASTCPU_CACHE_AUTO && kind == KIND_SYSCALL);

	if (on && !FASTCPU_SEES_AFFINITY) {
		if (c == FASTCPU_CACHE_ON)
			fastcpu_warn_once(FASTCPU_WARN_STATIC_CACHE,
				"libfastcpu: FASTCPU_CACHE=on needs the shared library (a static link cannot see affinity changes); using off\n");
		return false;
	}
	return on && fastcpu_tick_usable() && cache_helps(kind);
}

static unsigned int bind_now(void)
{
	struct fastcpu_settings s = fastcpu_settings();
	unsigned int flags = BOUND;
	int kind = -1;

	if (s.backend == FASTCPU_CHOOSE_AUTO || s.backend == FASTCPU_CHOOSE_RSEQ)
		flags |= USE_RSEQ;
	if (s.backend == FASTCPU_CHOOSE_RSEQ)
		flags |= RSEQ_FORCED;
	if (s.backend >= FASTCPU_CHOOSE_RDPID)
		kind = forced_fallback(s.backend);
	if (kind < 0) {
		kind = (int)best_fallback();
		flags |= USE_RSEQ;	/* a forced one missing is auto */
	}
	if (use_cache((unsigned int)kind, s.cache))
		flags |= CACHED;
	return flags | (unsigned int)kind << KIND_SHIFT;
}

static unsigned int binding(void)
{
	static unsigned int word;

	return fastcpu_once(&word, bind_now());
}

const struct fastcpu_backend *fastcpu_bound_fallback;

static const struct fastcpu_backend *bound_fallback(unsigned int w)
{
	const struct fastcpu_backend *b = fallbacks[w >> KIND_SHIFT];

	return w & CACHED ? fastcpu_cache_wrap(b) : b;
}

struct fastcpu_binding fastcpu_bind(void)
{
	unsigned int w = binding();

	(void)fastcpu_once(&fastcpu_bound_fallback, bound_fallback(w));
	return (struct fastcpu_binding){
		.use_rseq = w & USE_RSEQ,
		.rseq_forced = w & RSEQ_FORCED,
	};
}

const struct fastcpu_backend *fastcpu_uncached_fallback(void)
{
	return fallbacks[binding() >> KIND_SHIFT];
}

