/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache.h: what the object cache's entry points tell the census. */

#ifndef FASTCPU_PERCPU_OBJCACHE_H
#define FASTCPU_PERCPU_OBJCACHE_H

/* Sequences of the object cache the kernel aborted in this process (the
 * entry points' out-of-line steps; a program's inline ones count their own). */
unsigned long fastcpu_objcache_aborts(void);

#endif /* FASTCPU_PERCPU_OBJCACHE_H */
