/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fuzz/fuzz-settings.c: the FASTCPU_* settings parser on any strings. */

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

/* The bytes are FASTCPU_BACKEND, a NUL, FASTCPU_CACHE, a NUL, then
 * FASTCPU_SEQUENCES (an empty or absent part: the variable unset); whatever
 * they are, the settings are one of the values the library knows. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 3);
	const char *backend, *cache, *sequences;
	struct fastcpu_settings s;
	size_t first, second;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = text[size + 1] = text[size + 2] = '\0';
	first = strlen(text);
	backend = first ? text : NULL;
	cache = first < size && text[first + 1] ? text + first + 1 : NULL;
	second = first < size ? first + 1 + strlen(text + first + 1) : size;
	sequences = second < size && text[second + 1] ? text + second + 1 : NULL;
	s = fastcpu_settings_parse(backend, cache, sequences);
	assert(s.backend <= FASTCPU_CHOOSE_SYSCALL);
	assert(s.cache <= FASTCPU_CACHE_OFF);
	assert(s.sequences <= FASTCPU_SEQUENCES_CHOOSE_OFF);
	free(text);
	return 0;
}
