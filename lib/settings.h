/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/settings.h: the FASTCPU_* settings. */

#ifndef FASTCPU_SETTINGS_H
#define FASTCPU_SETTINGS_H

/* The FASTCPU_* variables (settings.c), read once. */
enum fastcpu_choice { FASTCPU_CHOOSE_AUTO, FASTCPU_CHOOSE_RSEQ,
		      FASTCPU_CHOOSE_RDPID, FASTCPU_CHOOSE_VDSO,
		      FASTCPU_CHOOSE_SYSCALL };
enum fastcpu_cache_choice { FASTCPU_CACHE_AUTO, FASTCPU_CACHE_ON,
			    FASTCPU_CACHE_OFF };
/* FASTCPU_SEQUENCES: whether the per-CPU operations run sequences where a
 * thread has an area (sequence-guard.c decides auto). */
enum fastcpu_sequences_choice { FASTCPU_SEQUENCES_CHOOSE_AUTO, FASTCPU_SEQUENCES_CHOOSE_ON,
				FASTCPU_SEQUENCES_CHOOSE_OFF };
/* FASTCPU_POSSIBLE_CPUS: size everything by CPU numbers as if at least
 * that many were possible (kernel.c), for tests and capacity planning; 0
 * where unset. */
struct fastcpu_settings {
	enum fastcpu_choice backend;
	enum fastcpu_cache_choice cache;
	enum fastcpu_sequences_choice sequences;
	unsigned int possible_cpus;
};
struct fastcpu_settings fastcpu_settings(void);
/* What values of FASTCPU_BACKEND, FASTCPU_CACHE, FASTCPU_SEQUENCES and
 * FASTCPU_POSSIBLE_CPUS ask for (NULL or empty: auto, unset); an unknown
 * one gives its one line on stderr and auto (a number not from 1 to
 * FASTCPU_MAX_CPUS: unset). */
struct fastcpu_settings fastcpu_settings_parse(const char *backend, const char *cache,
					      const char *sequences, const char *possible_cpus);

#endif /* FASTCPU_SETTINGS_H */
