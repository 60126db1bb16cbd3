/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/private.c: what the fastcpu tool asks the library, and nobody else. */

#include <stdio.h>

#include "attach.h"
#include "bind.h"
#include "internal.h"
#include "private.h"
#include "tick.h"
#include "vdso.h"

FASTCPU_EXPORT void fastcpu_private_facts(struct fastcpu_private_facts *facts)
{
	facts->area = *fastcpu_attached_cpu_id() >= 0 ? fastcpu_area_kind() : FASTCPU_AREA_NONE;
	facts->rdpid = fastcpu_arch_has_rdpid();
#ifdef FASTCPU_VDSO_GETCPU
	facts->vdso_getcpu = fastcpu_vdso_lookup(FASTCPU_VDSO_GETCPU,
						 FASTCPU_VDSO_VERSION) != NULL;
#else
	facts->vdso_getcpu = false;
#endif
	(void)fastcpu_bind();
	snprintf(facts->fallback, sizeof(facts->fallback), "%s", fastcpu_fallback()->name);
	if (fastcpu_tick_usable())
		fastcpu_tick_describe(facts->tick, sizeof(facts->tick));
	else
		snprintf(facts->tick, sizeof(facts->tick),
			 "none usable: the cache stays off");
}
