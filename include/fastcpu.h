/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu.h: the current CPU number, as fast as the kernel allows,
 * and the per-CPU data built on it: every header of the library's. */

#ifndef FASTCPU_H
#define FASTCPU_H

#include "fastcpu/cpu.h"		/* fastcpu(3) */
#include "fastcpu/percpu.h"		/* fastcpu_percpu(3) */
#include "fastcpu/percpu-alloc.h"	/* fastcpu_percpu_alloc(3) */
#include "fastcpu/objcache.h"		/* fastcpu_objcache(3) */

#endif /* FASTCPU_H */
