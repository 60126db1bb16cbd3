/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/vdso.h: find a symbol in the vDSO the kernel mapped. */

#ifndef FASTCPU_VDSO_H
#define FASTCPU_VDSO_H

/* The address of the function name@version in the vDSO, or NULL when the
 * kernel mapped none or it lacks that symbol. No libdl, no allocation. */
void *fastcpu_vdso_lookup(const char *name, const char *version);

#endif /* FASTCPU_VDSO_H */
