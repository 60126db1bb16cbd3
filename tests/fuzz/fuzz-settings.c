/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fuzz/fuzz-settings.c: the FASTCPU_* settings parser on any strings. */

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "settings.h"

/* The bytes are FASTCPU_BACKEND, FASTCPU_CACHE, FASTCPU_SEQUENCES and
 * FASTCPU_POSSIBLE_CPUS, each ended by a NUL (an empty or absent part: the
 * variable unset); whatever they are, the settings are one of the values
 * the library knows. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	const char *part[4] = { NULL, NULL, NULL, NULL };
	struct fastcpu_settings s;
	size_t at = 0;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (int k = 0; k < 4 && at <= size; k++) {
		if (text[at] != '\0')
			part[k] = text + at;
		at += strlen(text + at) + 1;
	}
	s = fastcpu_settings_parse(part[0], part[1], part[2], part[3]);
	assert(s.backend <= FASTCPU_CHOOSE_SYSCALL);
	assert(s.cache <= FASTCPU_CACHE_OFF);
	assert(s.sequences <= FASTCPU_SEQUENCES_CHOOSE_OFF);
	assert(s.possible_cpus <= FASTCPU_MAX_CPUS);
	free(text);
	return 0;
}
