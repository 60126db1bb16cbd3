/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/settings.c: the FASTCPU_* environment variables, read once. */

#include <string.h>

#include "internal.h"
#include "once.h"
#include "settings.h"
#include "util.h"

struct variable {
	const char *name;
	const char *const *values;	/* values[0] is the default, "auto" */
	unsigned int count;
	unsigned int warn_key;
	const char *warning;
};

static const char *const backend_values[] = {
	[FASTCPU_CHOOSE_AUTO] = "auto", [FASTCPU_CHOOSE_RSEQ] = "rseq",
	[FASTCPU_CHOOSE_RDPID] = "rdpid", [FASTCPU_CHOOSE_VDSO] = "vdso",
	[FASTCPU_CHOOSE_SYSCALL] = "syscall",
};
static const char *const cache_values[] = {
	[FASTCPU_CACHE_AUTO] = "auto", [FASTCPU_CACHE_ON] = "on",
	[FASTCPU_CACHE_OFF] = "off",
};

static const char *const sequences_values[] = {
	[FASTCPU_SEQUENCES_CHOOSE_AUTO] = "auto", [FASTCPU_SEQUENCES_CHOOSE_ON] = "on",
	[FASTCPU_SEQUENCES_CHOOSE_OFF] = "off",
};

static const struct variable backend = {
	"FASTCPU_BACKEND", backend_values, 5, FASTCPU_WARN_BACKEND,
	"libfastcpu: FASTCPU_BACKEND must be one of auto, rseq, rdpid, vdso, syscall; using auto\n",
};
static const struct variable cache = {
	"FASTCPU_CACHE", cache_values, 3, FASTCPU_WARN_CACHE,
	"libfastcpu: FASTCPU_CACHE must be one of auto, on, off; using auto\n",
};
static const struct variable sequences = {
	"FASTCPU_SEQUENCES", sequences_values, 3, FASTCPU_WARN_SEQUENCES,
	"libfastcpu: FASTCPU_SEQUENCES must be one of auto, on, off; using auto\n",
};

/* The index of the variable's value: unset or empty is the default; any
 * other value gives one line on stderr and the default. */
static unsigned int parse_variable(const struct variable *v, const char *value)
{
	if (value == NULL || *value == '\0')
		return 0;
	for (unsigned int i = 0; i < v->count; i++)
		if (strcmp(value, v->values[i]) == 0)
			return i;
	fastcpu_warn_once(v->warn_key, v->warning);
	return 0;
}

/* FASTCPU_POSSIBLE_CPUS: a number of CPUs, decimal digits alone, from 1 to
 * FASTCPU_MAX_CPUS; unset or empty is 0 (the kernel's count stands); any
 * other value gives one line on stderr and 0. Below the kernel's count it
 * is no error: the machine already has that many (kernel.c). */
#define POSSIBLE_CPUS_NAME "FASTCPU_POSSIBLE_CPUS"
#define STR2(x) #x
#define STR(x) STR2(x)

static unsigned int parse_possible_cpus(const char *value)
{
	const char *c = value;
	unsigned int n = 0;

	if (value == NULL || *value == '\0')
		return 0;
	while (*c >= '0' && *c <= '9' && n <= FASTCPU_MAX_CPUS)
		n = n * 10 + (unsigned int)(*c++ - '0');
	if (*c == '\0' && n >= 1 && n <= FASTCPU_MAX_CPUS)
		return n;
	fastcpu_warn_once(FASTCPU_WARN_POSSIBLE_CPUS, "libfastcpu: " POSSIBLE_CPUS_NAME
			  " must be a number of CPUs from 1 to " STR(FASTCPU_MAX_CPUS)
			  "; using the kernel's\n");
	return 0;
}

/* All in one word, with a bit that makes it never 0. */
#define READ		(1u << 12)
#define CACHE_SHIFT	4
#define SEQUENCES_SHIFT	8
#define POSSIBLE_SHIFT	16	/* FASTCPU_MAX_CPUS fits the 16 bits above */
#define FIELD_MASK	0xfu

struct fastcpu_settings fastcpu_settings_parse(const char *backend_value,
					      const char *cache_value,
					      const char *sequences_value,
					      const char *possible_cpus_value)
{
	return (struct fastcpu_settings){
		.backend = parse_variable(&backend, backend_value),
		.cache = parse_variable(&cache, cache_value),
		.sequences = parse_variable(&sequences, sequences_value),
		.possible_cpus = parse_possible_cpus(possible_cpus_value),
	};
}

static unsigned int read_settings(void)
{
	struct fastcpu_settings s =
		fastcpu_settings_parse(fastcpu_getenv(backend.name),
				       fastcpu_getenv(cache.name),
				       fastcpu_getenv(sequences.name),
				       fastcpu_getenv(POSSIBLE_CPUS_NAME));

	return READ | s.backend | s.cache << CACHE_SHIFT | s.sequences << SEQUENCES_SHIFT |
	       s.possible_cpus << POSSIBLE_SHIFT;
}

/* Read with secure_getenv (util.c): ignored in setuid programs. The first
 * call is the library's constructor, before main can setenv(); a call from
 * another library's constructor, earlier, reads them itself. */
struct fastcpu_settings fastcpu_settings(void)
{
	static unsigned int word;
	unsigned int w = fastcpu_once(&word, read_settings());

	return (struct fastcpu_settings){
		.backend = w & FIELD_MASK,
		.cache = (w >> CACHE_SHIFT) & FIELD_MASK,
		.sequences = (w >> SEQUENCES_SHIFT) & FIELD_MASK,
		.possible_cpus = w >> POSSIBLE_SHIFT,
	};
}
