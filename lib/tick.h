/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/tick.h: the clock that ages the answer cache. */

#ifndef FASTCPU_TICK_H
#define FASTCPU_TICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cache's clock (tick.c): chosen by fastcpu_tick_usable() when binding;
 * fastcpu_tick() is never 0 and changes at least every 10 ms. */
bool fastcpu_tick_usable(void);
extern uint32_t (*fastcpu_tick_fn)(void);
static inline uint32_t fastcpu_tick(void)
{
	return __atomic_load_n(&fastcpu_tick_fn, __ATOMIC_RELAXED)();
}
/* Which clock, and what reading it cost when chosen, into buf. */
void fastcpu_tick_describe(char *buf, size_t size);

#endif /* FASTCPU_TICK_H */
