/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/bind.c: choose, once per process, how the CPU number is read. */

#include <string.h>

#include "internal.h"

/*
 * Why no IFUNC: an IFUNC resolver runs during relocation, before libc is
 * usable from a preloaded library and before TLS exists in a static link,
 * so it could read neither FASTCPU_BACKEND nor probe RDPID against the
 * kernel; and the rseq path needs no dispatch at all: like glibc's own
 * sched_getcpu, it is one load and a sign test (2.16 ns for both, measured
 * side by side). Only the fallback is chosen here, and called through one
 * pointer from the out-of-line path, which also works in libfastcpu.a.
 *
 * The settings are read at load, by a constructor: no system call, and
 * before the program can setenv() from a thread or a signal handler can be
 * the first to ask. The program's own rseq owner is looked for there too,
 * where glibc did not register rseq. A
 * call that comes before the constructor (another library's constructor)
 * does both itself. The choice is made on first use, not at load: a
 * preloaded library costs a process no system call until it asks. Every
 * thread that races here computes the same answer from the same settings
 * and machine, so the result is simply published with atomic stores; nobody
 * waits, which keeps the first call safe in a signal handler that
 * interrupted another first call.
 */
enum { BOUND = 1, USE_RSEQ = 2, RSEQ_FORCED = 4 };

static unsigned int bound_flags;
const struct fastcpu_backend *fastcpu_bound_fallback;
static const struct fastcpu_backend *bound_uncached;

enum choice { CHOOSE_AUTO, CHOOSE_RSEQ, CHOOSE_RDPID, CHOOSE_VDSO,
	      CHOOSE_SYSCALL };
enum cache_choice { CACHE_AUTO, CACHE_ON, CACHE_OFF };

static const char *const choice_names[] = {
	"auto", "rseq", "rdpid", "vdso", "syscall",
};
static const char *const cache_names[] = { "auto", "on", "off" };

/* Index of value in names; unset or empty means the first (auto). */
static int parse(const char *value, const char *const *names, int count)
{
	if (value == NULL || *value == '\0')
		return 0;
	for (int i = 0; i < count; i++)
		if (strcmp(value, names[i]) == 0)
			return i;
	return -1;
}

static enum choice read_backend_choice(void)
{
	int c = parse(fastcpu_getenv("FASTCPU_BACKEND"), choice_names, 5);

	if (c < 0) {
		fastcpu_warn_once(FASTCPU_WARN_BACKEND,
			"libfastcpu: FASTCPU_BACKEND must be one of auto, rseq, rdpid, vdso, syscall; using auto\n");
		return CHOOSE_AUTO;
	}
	return c;
}

static enum cache_choice read_cache_choice(void)
{
	int c = parse(fastcpu_getenv("FASTCPU_CACHE"), cache_names, 3);

	if (c < 0) {
		fastcpu_warn_once(FASTCPU_WARN_CACHE,
			"libfastcpu: FASTCPU_CACHE must be one of auto, on, off; using auto\n");
		return CACHE_AUTO;
	}
	return c;
}

/* What the environment asked for, read once at load. */
static struct settings {
	bool read;
	enum choice backend;
	enum cache_choice cache;
} settings;

static void read_settings(void)
{
	struct settings now = {
		.read = true,
		.backend = read_backend_choice(),
		.cache = read_cache_choice(),
	};

	/* Where glibc registered rseq, no other owner is ever asked for. */
	if (!fastcpu_glibc_registered_rseq())
		fastcpu_find_program_owner();
	settings = now;
}

/* Also publishes where the inline reads find the rseq areas, if they may
 * be used: the earlier, the fewer loops of a program start with the old
 * answer (the anchor, answered out of line). */
__attribute__((constructor)) static void read_settings_at_load(void)
{
	if (!settings.read)
		read_settings();
	if (settings.backend == CHOOSE_AUTO || settings.backend == CHOOSE_RSEQ)
		fastcpu_rseq_publish_early();
}

/* The best non-rseq backend this machine has. */
static const struct fastcpu_backend *best_fallback(void)
{
	if (fastcpu_rdpid_usable())
		return &fastcpu_backend_rdpid;
	if (fastcpu_vdso_usable())
		return &fastcpu_backend_vdso;
	return &fastcpu_backend_syscall;
}

static const struct fastcpu_backend *forced_fallback(enum choice c)
{
	if (c == CHOOSE_RDPID && fastcpu_rdpid_usable())
		return &fastcpu_backend_rdpid;
	if (c == CHOOSE_VDSO && fastcpu_vdso_usable())
		return &fastcpu_backend_vdso;
	if (c == CHOOSE_SYSCALL)
		return &fastcpu_backend_syscall;
	fastcpu_warn_once(FASTCPU_WARN_UNAVAILABLE, c == CHOOSE_RDPID ?
		"libfastcpu: FASTCPU_BACKEND=rdpid is not available on this machine; using auto\n" :
		"libfastcpu: FASTCPU_BACKEND=vdso is not available on this machine; using auto\n");
	return NULL;
}

/*
 * The cache costs a clock read per hit. auto puts it only in front of the
 * system call: measured on x86-64 a hit is ~5 ns against ~150 ns for the
 * syscall but 3-4 ns for RDPID and the vDSO, and on arm64 and riscv (no
 * real vDSO getcpu) the syscall is all there is without rseq. A static link
 * cannot see the program's affinity changes, which the cache must see.
 */
static const struct fastcpu_backend *
apply_cache(const struct fastcpu_backend *b, enum cache_choice c)
{
	bool on = c == CACHE_ON || (c == CACHE_AUTO && b == &fastcpu_backend_syscall);

	if (on && !FASTCPU_SEES_AFFINITY) {
		if (c == CACHE_ON)
			fastcpu_warn_once(FASTCPU_WARN_STATIC_CACHE,
				"libfastcpu: FASTCPU_CACHE=on needs the shared library (a static link cannot see affinity changes); using off\n");
		on = false;
	}
	return on && fastcpu_tick_usable() ? fastcpu_cache_wrap(b) : b;
}

static unsigned int bind_now(void)
{
	enum choice c;
	enum cache_choice cache;
	const struct fastcpu_backend *fallback = NULL;
	unsigned int flags = BOUND;

	if (!settings.read)
		read_settings();
	c = settings.backend;
	cache = settings.cache;
	if (c == CHOOSE_AUTO || c == CHOOSE_RSEQ)
		flags |= USE_RSEQ;
	if (c == CHOOSE_RSEQ)
		flags |= RSEQ_FORCED;
	if (c >= CHOOSE_RDPID)
		fallback = forced_fallback(c);
	if (fallback == NULL) {
		fallback = best_fallback();
		if (c >= CHOOSE_RDPID)
			flags |= USE_RSEQ;	/* forced one missing: auto */
	}
	__atomic_store_n(&bound_uncached, fallback, __ATOMIC_RELAXED);
	__atomic_store_n(&fastcpu_bound_fallback, apply_cache(fallback, cache),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&bound_flags, flags, __ATOMIC_RELEASE);
	return flags;
}

struct fastcpu_binding fastcpu_bind(void)
{
	unsigned int flags = __atomic_load_n(&bound_flags, __ATOMIC_ACQUIRE);

	if (unlikely(flags == 0))
		flags = bind_now();
	return (struct fastcpu_binding){
		.use_rseq = flags & USE_RSEQ,
		.rseq_forced = flags & RSEQ_FORCED,
	};
}

const struct fastcpu_backend *fastcpu_uncached_fallback(void)
{
	(void)fastcpu_bind();
	return __atomic_load_n(&bound_uncached, __ATOMIC_RELAXED);
}
