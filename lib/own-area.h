/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/own-area.h: the library's own rseq area. */

#ifndef FASTCPU_OWN_AREA_H
#define FASTCPU_OWN_AREA_H

#include <stdbool.h>

/* The library's own (own-area.c): its cpu_id once registered for the
 * calling thread, or NULL (one line on stderr if forced); publish at load;
 * unregister (musl's thread exit). */
const volatile int *fastcpu_own_area_register(bool forced);
void fastcpu_own_area_publish(void);
void fastcpu_own_area_unregister(const volatile int *cpu_id);

#endif /* FASTCPU_OWN_AREA_H */
