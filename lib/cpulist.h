/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cpulist.h: sysfs CPU lists. */

#ifndef FASTCPU_CPULIST_H
#define FASTCPU_CPULIST_H

/* Calls fn(i, arg) for each number of a sysfs list ("0-3,8"), read from fd
 * or from the file at path (cpulist.c). */
void fastcpu_cpulist_read(int fd, void (*fn)(unsigned long, void *), void *arg);
void fastcpu_cpulist_read_file(const char *path,
			       void (*fn)(unsigned long, void *), void *arg);

#endif /* FASTCPU_CPULIST_H */
