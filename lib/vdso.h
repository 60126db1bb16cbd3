/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/vdso.h: find a symbol in the vDSO the kernel mapped. */

#ifndef FASTCPU_VDSO_H
#define FASTCPU_VDSO_H

/* The address of the function name@version in the vDSO, or NULL when the
 * kernel mapped none or it lacks that symbol. No libdl, no allocation. */
void *fastcpu_vdso_lookup(const char *name, const char *version);

/* The kernel's version as its build named it (LINUX_VERSION_CODE: major <<
 * 16 | minor << 8 | sublevel, which stops at 255), from the vDSO's "Linux"
 * note; 0 without one. No system call. */
unsigned int fastcpu_vdso_linux_version(void);

#endif /* FASTCPU_VDSO_H */
