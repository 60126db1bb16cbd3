/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/area-kind.h: which rseq area a thread reads (attach.c decides it). */

#ifndef FASTCPU_AREA_KIND_H
#define FASTCPU_AREA_KIND_H

/* Its own header: attach.h and the tool's private.h both name it, and
 * neither may include the other. */
enum fastcpu_area_kind { FASTCPU_AREA_NONE, FASTCPU_AREA_GLIBC,
			 FASTCPU_AREA_PROGRAM, FASTCPU_AREA_OWN };

#endif /* FASTCPU_AREA_KIND_H */
