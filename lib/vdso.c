/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/vdso.c: find a function in the vDSO the kernel mapped. */

#include <elf.h>
#include <stdint.h>
#include <sys/auxv.h>

#include "elf-reader.h"
#include "internal.h"
#include "util.h"
#include "vdso.h"

/* The vDSO is the kernel's image, headers included: its bounds are open,
 * and its one PT_LOAD bounds every read (elf-reader.c). */
static bool open_vdso(struct fastcpu_elf *e)
{
	const void *image = (const void *)fastcpu_getauxval(AT_SYSINFO_EHDR);

	return image != NULL &&
	       fastcpu_elf_open_image(e, image, UINTPTR_MAX - (uintptr_t)image);
}

void *fastcpu_vdso_lookup(const char *name, const char *version)
{
	struct fastcpu_elf e;
	const ElfW(Sym) *s;

	if (!open_vdso(&e))
		return NULL;
	s = fastcpu_elf_lookup(&e, name, STT_FUNC, version);
	return s ? (void *)(e.bias + s->st_value) : NULL;
}

/* The kernel's vDSOs carry it in a note of type 0 named "Linux"
 * (include/linux/elfnote.h, the vDSOs' note.S). */
unsigned int fastcpu_vdso_linux_version(void)
{
	struct fastcpu_elf e;
	const uint32_t *code;

	if (!open_vdso(&e))
		return 0;
	code = fastcpu_elf_note(&e, "Linux", 0, 4);
	return code ? *code : 0;
}
