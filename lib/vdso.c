/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/vdso.c: a minimal reader of the vDSO's ELF dynamic symbol table. */

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>
#include <sys/auxv.h>

#include "internal.h"
#include "vdso.h"

/* What the dynamic section of the vDSO tells us, at run-time addresses. */
struct vdso_image {
	ElfW(Addr) bias;		/* run-time address - link-time address */
	const ElfW(Sym) *symtab;
	const char *strtab;
	const fastcpu_sysv_hash_entry *hash;	/* SysV: symbol count in [1] */
	const ElfW(Word) *gnu_hash;
	const ElfW(Versym) *versym;
	const ElfW(Verdef) *verdef;
};

static bool read_image(const ElfW(Ehdr) *eh, struct vdso_image *img)
{
	const ElfW(Phdr) *ph = (const void *)((const char *)eh + eh->e_phoff);
	const ElfW(Dyn) *dyn = NULL;
	bool have_load = false;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return false;
	memset(img, 0, sizeof(*img));
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !have_load) {
			img->bias = (ElfW(Addr))eh + ph[i].p_offset - ph[i].p_vaddr;
			have_load = true;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const void *)((const char *)eh + ph[i].p_offset);
		}
	}
	if (!have_load || dyn == NULL)
		return false;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		const void *p = (const void *)(dyn->d_un.d_ptr + img->bias);

		switch (dyn->d_tag) {
		case DT_SYMTAB: img->symtab = p; break;
		case DT_STRTAB: img->strtab = p; break;
		case DT_HASH: img->hash = p; break;
		case DT_GNU_HASH: img->gnu_hash = p; break;
		case DT_VERSYM: img->versym = p; break;
		case DT_VERDEF: img->verdef = p; break;
		}
	}
	return img->symtab && img->strtab && (img->hash || img->gnu_hash);
}

/* Number of dynamic symbols: SysV hash says it; GNU hash needs the walk to
 * the end of the longest chain. */
static ElfW(Word) symbol_count(const struct vdso_image *img)
{
	const ElfW(Word) *gh = img->gnu_hash;
	ElfW(Word) nbuckets, symoffset, last = 0;
	const ElfW(Word) *buckets, *chain;

	if (img->hash)
		return (ElfW(Word))img->hash[1];
	nbuckets = gh[0];
	symoffset = gh[1];
	buckets = gh + 4 + gh[2] * (sizeof(ElfW(Addr)) / sizeof(ElfW(Word)));
	chain = buckets + nbuckets;
	for (ElfW(Word) i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	while ((chain[last - symoffset] & 1) == 0)
		last++;
	return last + 1;
}

static bool version_matches(const struct vdso_image *img, ElfW(Word) sym,
			    const char *version)
{
	const ElfW(Verdef) *def = img->verdef;
	ElfW(Half) index;

	if (img->versym == NULL || def == NULL)
		return true;	/* an unversioned vDSO: the name decides */
	index = img->versym[sym] & 0x7fff;
	for (;;) {
		if ((def->vd_flags & VER_FLG_BASE) == 0 && def->vd_ndx == index) {
			const ElfW(Verdaux) *aux = (const void *)
				((const char *)def + def->vd_aux);

			return strcmp(img->strtab + aux->vda_name, version) == 0;
		}
		if (def->vd_next == 0)
			return false;
		def = (const void *)((const char *)def + def->vd_next);
	}
}

void *fastcpu_vdso_lookup(const char *name, const char *version)
{
	const ElfW(Ehdr) *eh = (const void *)fastcpu_getauxval(AT_SYSINFO_EHDR);
	struct vdso_image img;
	ElfW(Word) count;

	if (eh == NULL || !read_image(eh, &img))
		return NULL;
	count = symbol_count(&img);
	for (ElfW(Word) i = 1; i < count; i++) {
		const ElfW(Sym) *s = &img.symtab[i];

		if (ELF64_ST_TYPE(s->st_info) /* same in ELF32 */ != STT_FUNC ||
		    s->st_shndx == SHN_UNDEF ||
		    strcmp(img.strtab + s->st_name, name) != 0 ||
		    !version_matches(&img, i, version))
			continue;
		return (void *)(s->st_value + img.bias);
	}
	return NULL;
}
