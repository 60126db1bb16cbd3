/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fuzz/fuzz-elf.c: the ELF reader (lib/elf-reader.c) on any bytes. */

#include <assert.h>
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf-reader.h"

/*
 * The bytes are an ELF image lying in memory, as the vDSO does, of which
 * the reader may read exactly these bytes (its bounds). The same bytes are
 * then an object the loader mapped at the buffer: its program headers, read
 * here where the image has a header that says where they are, are what the
 * loader would give, and the buffer is the only memory behind them (so the
 * reader's bounds are the buffer's). Every lookup the library makes, by
 * the names and versions it makes them with, must end without reading
 * outside, and what it finds must lie inside.
 */
static const struct {
	const char *name;
	unsigned int type;
	const char *version;
} lookups[] = {
	{ "__vdso_getcpu", STT_FUNC, "LINUX_2.6" },
	{ "__kernel_getcpu", STT_FUNC, "LINUX_2.6.15" },
	{ "__vdso_clock_gettime", STT_FUNC, "LINUX_2.6" },
	{ "__kernel_clock_gettime", STT_FUNC, "LINUX_2.6.39" },
	{ "__rseq_abi", STT_TLS, NULL },
	{ "__rseq_refcount", STT_TLS, NULL },
	{ "rseq_offset", STT_OBJECT, NULL },
	{ "rseq_register_current_thread", STT_FUNC, NULL },
};

static void look_up_all(const struct fastcpu_elf *e, const char *lo, size_t size)
{
	for (size_t i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++) {
		const ElfW(Sym) *s = fastcpu_elf_lookup(e, lookups[i].name, lookups[i].type,
							lookups[i].version);

		if (s != NULL)
			assert((const char *)s >= lo &&
			       (const char *)(s + 1) <= lo + size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Aligned as malloc aligns (enough for any ELF structure); nothing
	 * past size belongs to it, so that a read there is the sanitizer's. */
	char *image = malloc(size ? size : 1);
	const ElfW(Ehdr) *eh = (const void *)image;
	struct fastcpu_elf e;

	if (image == NULL)
		return 0;
	memcpy(image, data, size);
	if (fastcpu_elf_open_image(&e, image, size))
		look_up_all(&e, image, size);
	if (size >= sizeof(*eh) && eh->e_phoff <= size &&
	    eh->e_phentsize == sizeof(ElfW(Phdr)) &&
	    eh->e_phnum <= (size - eh->e_phoff) / sizeof(ElfW(Phdr)) &&
	    eh->e_phoff % _Alignof(ElfW(Phdr)) == 0 &&
	    fastcpu_elf_open_loaded(&e, (const void *)(image + eh->e_phoff), eh->e_phnum,
				    (uintptr_t)image, (uintptr_t)image,
				    (uintptr_t)image + size))
		look_up_all(&e, image, size);
	free(image);
	return 0;
}
