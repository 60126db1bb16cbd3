/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/elf-reader.c: a bounded reader of ELF dynamic symbol tables. */

#include <elf.h>
#include <string.h>

#include "elf-reader.h"
#include "internal.h"

/*
 * This runs in every process that preloads the library, on objects it did
 * not build, so a malformed object must read as "no such symbol", never as
 * a crash. What it trusts, and why:
 * - the program headers it is given: for a loaded object the dynamic
 *   loader mapped the object by them, for the vDSO the kernel built the
 *   image; a PT_LOAD with PF_R there is memory that can be read.
 * - nothing else. Every address that the object's own bytes lead to (the
 *   dynamic section's entries, the tables, their counts and indexes, string
 *   and version offsets) is checked, whole and aligned, to lie inside one
 *   readable PT_LOAD and inside [lo, hi) before it is read, and every walk
 *   is bounded by the bytes it walks over. [lo, hi) is open for the real
 *   objects, which the segments bound; a fuzz target gives its buffer.
 */

static bool readable(const struct fastcpu_elf *e, uintptr_t at, size_t size)
{
	if (at < e->lo || at > e->hi || size > e->hi - at)
		return false;
	for (size_t i = 0; i < e->phnum; i++) {
		const ElfW(Phdr) *ph = &e->phdr[i];
		uintptr_t start = e->bias + ph->p_vaddr, end = start + ph->p_memsz;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && end >= start &&
		    at >= start && at <= end && size <= end - at)
			return true;
	}
	return false;
}

/* Entry i of the table at base, entries of size bytes aligned to align:
 * NULL unless all of it is readable. */
static const void *entry(const struct fastcpu_elf *e, const void *base,
			 uint64_t i, size_t size, size_t align)
{
	uintptr_t offset, at;

	if (base == NULL || __builtin_mul_overflow(i, size, &offset) ||
	    __builtin_add_overflow((uintptr_t)base, offset, &at) ||
	    at % align != 0 || !readable(e, at, size))
		return NULL;
	return (const void *)at;
}

#define ENTRY(e, base, i) \
	((__typeof__(&(base)[0]))entry((e), (base), (i), sizeof((base)[0]), \
				       _Alignof(__typeof__((base)[0]))))

/* Whether the string at offset in the string table is name. */
static bool name_is(const struct fastcpu_elf *e, uint64_t offset, const char *name)
{
	size_t len = strlen(name) + 1;	/* its terminator must match too */
	uintptr_t at;

	if (e->strsz != 0 && (offset >= e->strsz || len > e->strsz - offset))
		return false;
	if (__builtin_add_overflow((uintptr_t)e->strtab, offset, &at) ||
	    !readable(e, at, len))
		return false;
	return memcmp((const void *)at, name, len) == 0;
}

/* Whether symbol sym is defined at version (the vDSO's way of naming its
 * ABI). An object without version tables has every version. */
static bool version_is(const struct fastcpu_elf *e, uint64_t sym, const char *version)
{
	const ElfW(Versym) *index = ENTRY(e, e->versym, sym);
	const ElfW(Verdef) *def = e->verdef;
	uintptr_t at;

	if (e->versym == NULL || e->verdef == NULL)
		return true;
	if (index == NULL)
		return false;
	/* vd_next only goes forward: the walk ends where readable memory does. */
	while ((def = ENTRY(e, def, 0)) != NULL) {
		if ((def->vd_flags & VER_FLG_BASE) == 0 &&
		    def->vd_ndx == (*index & 0x7fff)) {
			const ElfW(Verdaux) *aux;

			if (__builtin_add_overflow((uintptr_t)def, def->vd_aux, &at))
				return false;
			aux = ENTRY(e, (const ElfW(Verdaux) *)at, 0);
			return aux != NULL && name_is(e, aux->vda_name, version);
		}
		if (def->vd_next == 0 ||
		    __builtin_add_overflow((uintptr_t)def, def->vd_next, &at))
			return false;
		def = (const ElfW(Verdef) *)at;
	}
	return false;
}

static const ElfW(Sym) *defined(const struct fastcpu_elf *e, uint64_t i,
				const char *name, unsigned int type,
				const char *version)
{
	const ElfW(Sym) *s = ENTRY(e, e->symtab, i);

	if (s == NULL || ELF64_ST_TYPE(s->st_info) /* same in ELF32 */ != type ||
	    s->st_shndx == SHN_UNDEF || !name_is(e, s->st_name, name) ||
	    (version != NULL && !version_is(e, i, version)))
		return NULL;
	return s;
}

/* The address count entries of size bytes past base, or 0 on overflow. */
static uintptr_t past(const void *base, uint64_t count, size_t size)
{
	uintptr_t bytes, at;

	if (__builtin_mul_overflow(count, size, &bytes) ||
	    __builtin_add_overflow((uintptr_t)base, bytes, &at))
		return 0;
	return at;
}

/* The GNU hash table: a Bloom filter, then one bucket's chain, which ends
 * at an entry with its low bit set. */
static const ElfW(Sym) *gnu_lookup(const struct fastcpu_elf *e, const char *name,
				   unsigned int type, const char *version)
{
	const unsigned int bits = sizeof(ElfW(Addr)) * 8;
	const uint32_t *header = entry(e, e->gnu_hash, 0, 4 * sizeof(uint32_t),
				       _Alignof(ElfW(Addr)));
	const ElfW(Addr) *bloom, *word;
	const uint32_t *buckets, *chain, *first;
	uint32_t nbuckets, symoffset, nbloom, shift, h = 5381;
	ElfW(Addr) mask;

	if (header == NULL)
		return NULL;
	nbuckets = header[0];
	symoffset = header[1];
	nbloom = header[2];
	shift = header[3];
	if (nbuckets == 0 || nbloom == 0 || shift >= 32)
		return NULL;
	for (const char *c = name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	bloom = (const ElfW(Addr) *)(const void *)(header + 4);
	word = ENTRY(e, bloom, (h / bits) % nbloom);
	mask = (ElfW(Addr))1 << (h % bits) | (ElfW(Addr))1 << ((h >> shift) % bits);
	if (word == NULL || (*word & mask) != mask)
		return NULL;
	buckets = (const uint32_t *)past(bloom, nbloom, sizeof(*bloom));
	chain = (const uint32_t *)past(buckets, nbuckets, sizeof(*buckets));
	first = ENTRY(e, buckets, h % nbuckets);
	if (first == NULL || chain == NULL)
		return NULL;
	for (uint64_t i = *first; i >= symoffset; i++) {
		const uint32_t *h2 = ENTRY(e, chain, i - symoffset);
		const ElfW(Sym) *s;

		if (h2 == NULL)
			return NULL;
		if ((h | 1) == (*h2 | 1) && (s = defined(e, i, name, type, version)))
			return s;
		if (*h2 & 1)
			return NULL;
	}
	return NULL;
}

/* The SysV hash table: a bucket's chain of symbol indexes, ended by 0; no
 * longer than the chain array, which must be readable whole. */
static const ElfW(Sym) *sysv_lookup(const struct fastcpu_elf *e, const char *name,
				    unsigned int type, const char *version)
{
	const fastcpu_sysv_hash_entry *header = entry(e, e->hash, 0, 2 * sizeof(*header),
						      _Alignof(fastcpu_sysv_hash_entry));
	const fastcpu_sysv_hash_entry *buckets, *chain, *first;
	uint64_t nbuckets, nchain, i;
	uintptr_t chain_bytes;
	uint32_t h = 0;

	if (header == NULL)
		return NULL;
	nbuckets = header[0];
	nchain = header[1];
	buckets = header + 2;
	chain = (const fastcpu_sysv_hash_entry *)past(buckets, nbuckets, sizeof(*buckets));
	if (nbuckets == 0 || chain == NULL ||
	    __builtin_mul_overflow(nchain, sizeof(*chain), &chain_bytes) ||
	    entry(e, chain, 0, chain_bytes, _Alignof(fastcpu_sysv_hash_entry)) == NULL)
		return NULL;
	for (const char *c = name; *c; c++) {
		h = (h << 4) + (unsigned char)*c;
		h ^= (h >> 24) & 0xf0;
	}
	h &= 0x0fffffff;
	first = ENTRY(e, buckets, h % nbuckets);
	if (first == NULL)
		return NULL;
	i = *first;
	for (uint64_t steps = 0; i != 0 && i < nchain && steps < nchain; steps++) {
		const ElfW(Sym) *s = defined(e, i, name, type, version);

		if (s != NULL)
			return s;
		i = chain[i];
	}
	return NULL;
}

const ElfW(Sym) *fastcpu_elf_lookup(const struct fastcpu_elf *e, const char *name,
				    unsigned int type, const char *version)
{
	return e->gnu_hash ? gnu_lookup(e, name, type, version) :
			     sysv_lookup(e, name, type, version);
}

/* The dynamic section's addresses: link-time ones in an image; a loaded
 * object's the loader relocated in place on most architectures (not riscv,
 * mips), so there an address below the load bias is still a link-time one. */
static const void *dynamic_address(const struct fastcpu_elf *e, ElfW(Addr) at,
				   bool image)
{
	return (const void *)(image || at < e->bias ? at + e->bias : at);
}

static bool read_dynamic(struct fastcpu_elf *e, bool image)
{
	const ElfW(Dyn) *dynamic = NULL, *d;

	for (size_t i = 0; i < e->phnum && dynamic == NULL; i++)
		if (e->phdr[i].p_type == PT_DYNAMIC)
			dynamic = (const ElfW(Dyn) *)(e->bias + e->phdr[i].p_vaddr);
	for (uint64_t i = 0; (d = ENTRY(e, dynamic, i)) != NULL && d->d_tag != DT_NULL; i++) {
		const void *p = dynamic_address(e, d->d_un.d_ptr, image);

		switch (d->d_tag) {
		case DT_SYMTAB: e->symtab = p; break;
		case DT_STRTAB: e->strtab = p; break;
		case DT_STRSZ: e->strsz = d->d_un.d_val; break;
		case DT_HASH: e->hash = p; break;
		case DT_GNU_HASH: e->gnu_hash = p; break;
		case DT_VERSYM: e->versym = p; break;
		case DT_VERDEF: e->verdef = p; break;
		}
	}
	return e->symtab && e->strtab && (e->hash || e->gnu_hash);
}

bool fastcpu_elf_open_loaded(struct fastcpu_elf *e, const ElfW(Phdr) *phdr,
			     size_t phnum, uintptr_t bias, uintptr_t lo,
			     uintptr_t hi)
{
	*e = (struct fastcpu_elf){ .phdr = phdr, .phnum = phnum, .bias = bias,
				   .lo = lo, .hi = hi };
	return read_dynamic(e, false);
}

/* The header and program headers are checked against size, the rest as
 * any loaded object's; the first PT_LOAD places the image. */
bool fastcpu_elf_open_image(struct fastcpu_elf *e, const void *image, size_t size)
{
	const ElfW(Ehdr) *eh = image;
	const ElfW(Phdr) *ph;
	uintptr_t lo = (uintptr_t)image, hi;

	if (size < sizeof(*eh) || __builtin_add_overflow(lo, size, &hi) ||
	    lo % _Alignof(ElfW(Ehdr)) != 0 ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_phentsize != sizeof(*ph) || eh->e_phoff > size ||
	    eh->e_phnum > (size - eh->e_phoff) / sizeof(*ph) ||
	    (lo + eh->e_phoff) % _Alignof(ElfW(Phdr)) != 0)
		return false;
	ph = (const ElfW(Phdr) *)(lo + eh->e_phoff);
	*e = (struct fastcpu_elf){ .phdr = ph, .phnum = eh->e_phnum, .lo = lo, .hi = hi };
	for (size_t i = 0; i < e->phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			e->bias = lo + ph[i].p_offset - ph[i].p_vaddr;
			return read_dynamic(e, true);
		}
	}
	return false;
}

/* Notes are 4-byte words (the gABI: ELF64 too, as Linux and every
 * toolchain write them): a header, the name and the descriptor, each
 * padded to 4. */
static const uint32_t *note_in(const struct fastcpu_elf *e, uintptr_t at, uintptr_t end,
			       const char *name, uint32_t type, uint32_t size)
{
	size_t name_size = __builtin_strlen(name) + 1;

	while (at < end && end - at >= 12 && readable(e, at, 12) && at % 4 == 0) {
		const uint32_t *h = (const uint32_t *)at;
		uintptr_t name_words = ((uintptr_t)h[0] + 3) / 4, desc_words = ((uintptr_t)h[1] + 3) / 4;
		uintptr_t length = 12 + 4 * (name_words + desc_words);

		if (h[0] > end - at || h[1] > end - at || length > end - at ||
		    !readable(e, at, length))
			return NULL;
		if (h[0] == name_size && h[1] == size && h[2] == type &&
		    __builtin_memcmp(h + 3, name, name_size) == 0)
			return h + 3 + name_words;
		at += length;
	}
	return NULL;
}

const void *fastcpu_elf_note(const struct fastcpu_elf *e, const char *name, uint32_t type,
			     uint32_t size)
{
	for (size_t i = 0; i < e->phnum; i++) {
		const ElfW(Phdr) *ph = &e->phdr[i];
		uintptr_t start = e->bias + ph->p_vaddr, end = start + ph->p_memsz;
		const uint32_t *desc;

		if (ph->p_type != PT_NOTE || end < start)
			continue;
		desc = note_in(e, start, end, name, type, size);
		if (desc != NULL)
			return desc;
	}
	return NULL;
}
