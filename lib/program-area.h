/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/program-area.h: the rseq area of the program's own rseq owner. */

#ifndef FASTCPU_PROGRAM_AREA_H
#define FASTCPU_PROGRAM_AREA_H

#include <stdbool.h>

#include "program-owner.h"
#include "sequence-guard.h"

/* The program owner's (program-area.c; the owner: program-owner.c): its cpu_id in the calling thread,
 * registered there first under the reference-count convention; NULL while
 * librseq has not published where its areas are. */
const volatile int *fastcpu_program_area_cpu_id(const struct fastcpu_program_owner *o);
void fastcpu_program_area_publish(const struct fastcpu_program_owner *o);
/* Whether the library may run its sequences on the owner's areas: decided
 * once, in a thread where the area at cpu_id is registered (not known
 * until then); publishes them for the inline operations when it may. */
enum fastcpu_sequences fastcpu_program_area_takes_sequences(const struct fastcpu_program_owner *o,
							    const volatile int *cpu_id);
/* Whether the calling thread holds a reference to the shared area, and
 * giving it back (musl's thread exit). */
bool fastcpu_program_area_shared(void);
void fastcpu_program_area_release(const struct fastcpu_program_owner *o);

#endif /* FASTCPU_PROGRAM_AREA_H */
