/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/owner.c: find a rseq area owner other than glibc in the process. */

#include <elf.h>
#include <link.h>
#include <string.h>

#include "arch.h"
#include "internal.h"

/*
 * Where glibc does not register rseq (glibc.pthread.rseq=0, glibc < 2.35,
 * musl), a thread's one rseq registration belongs to whoever the program
 * chose: librseq, tcmalloc, ClickHouse and others export an initial-exec TLS
 * area __rseq_abi (older librseq also a __rseq_refcount shared with anyone
 * who follows it). If libfastcpu registered first, such an owner would get
 * EINVAL, and librseq aborts on that. So the library looks for the symbols
 * before any thread registers, and defers to them (rseq.c).
 *
 * Looked up once, at load (bind.c), in the dynamic symbol tables of the
 * objects loaded then, in load order, through their hash tables: dlsym()
 * would allocate its error string for the usual answer, "not found", in
 * every process. The area is initial-exec by its convention, so in static
 * TLS: at the same offset from every thread's pointer.
 */
struct fastcpu_rseq_program_owner fastcpu_program_owner;

struct object {
	const ElfW(Sym) *symtab;
	const char *strtab;
	const uint32_t *hash;		/* SysV */
	const uint32_t *gnu_hash;
};

/* The loader relocates the dynamic section in place on most architectures
 * (not riscv, mips): an address below the load bias is still a link-time
 * one. */
static const void *dynamic_address(const struct dl_phdr_info *info, ElfW(Addr) at)
{
	return (const void *)(at < info->dlpi_addr ? at + info->dlpi_addr : at);
}

static bool read_object(const struct dl_phdr_info *info, struct object *o)
{
	const ElfW(Dyn) *dyn = NULL;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (dyn == NULL)
		return false;
	memset(o, 0, sizeof(*o));
	for (; dyn->d_tag != DT_NULL; dyn++) {
		const void *p = dynamic_address(info, dyn->d_un.d_ptr);

		switch (dyn->d_tag) {
		case DT_SYMTAB: o->symtab = p; break;
		case DT_STRTAB: o->strtab = p; break;
		case DT_HASH: o->hash = p; break;
		case DT_GNU_HASH: o->gnu_hash = p; break;
		}
	}
	return o->symtab && o->strtab && (o->hash || o->gnu_hash);
}

static bool is_defined_tls(const struct object *o, uint32_t i, const char *name)
{
	const ElfW(Sym) *s = &o->symtab[i];

	return ELF64_ST_TYPE(s->st_info) /* same in ELF32 */ == STT_TLS &&
	       s->st_shndx != SHN_UNDEF && strcmp(o->strtab + s->st_name, name) == 0;
}

/* The GNU hash table: a Bloom filter, then one bucket's chain. */
static const ElfW(Sym) *gnu_lookup(const struct object *o, const char *name)
{
	const uint32_t *gh = o->gnu_hash;
	const unsigned int bits = sizeof(ElfW(Addr)) * 8;
	uint32_t nbuckets = gh[0], symoffset = gh[1], nbloom = gh[2], shift = gh[3];
	const ElfW(Addr) *bloom = (const void *)(gh + 4);
	const uint32_t *buckets = (const void *)(bloom + nbloom);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t h = 5381;
	ElfW(Addr) word, mask;

	if (nbuckets == 0 || nbloom == 0)
		return NULL;
	for (const char *c = name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	word = bloom[(h / bits) % nbloom];
	mask = (ElfW(Addr))1 << (h % bits) | (ElfW(Addr))1 << ((h >> shift) % bits);
	if ((word & mask) != mask)
		return NULL;
	for (uint32_t i = buckets[h % nbuckets]; i >= symoffset; i++) {
		uint32_t h2 = chain[i - symoffset];

		if ((h | 1) == (h2 | 1) && is_defined_tls(o, i, name))
			return &o->symtab[i];
		if (h2 & 1)
			break;
	}
	return NULL;
}

static const ElfW(Sym) *sysv_lookup(const struct object *o, const char *name)
{
	uint32_t nbuckets = o->hash[0], h = 0;
	const uint32_t *buckets = o->hash + 2, *chain = buckets + nbuckets;

	for (const char *c = name; *c; c++) {
		h = (h << 4) + (unsigned char)*c;
		h ^= (h >> 24) & 0xf0;
	}
	h &= 0x0fffffff;
	if (nbuckets == 0)
		return NULL;
	for (uint32_t i = buckets[h % nbuckets]; i != 0; i = chain[i])
		if (is_defined_tls(o, i, name))
			return &o->symtab[i];
	return NULL;
}

/* The offset from the thread pointer of name in this object's TLS. */
static bool tls_offset(const struct dl_phdr_info *info, const struct object *o,
		       const char *name, ptrdiff_t *offset)
{
	const ElfW(Sym) *s = o->gnu_hash ? gnu_lookup(o, name) : sysv_lookup(o, name);

	if (s == NULL || info->dlpi_tls_data == NULL)
		return false;
	*offset = (char *)info->dlpi_tls_data + s->st_value -
		  (char *)fastcpu_arch_thread_pointer();
	return true;
}

static int look_in(struct dl_phdr_info *info, size_t size, void *found)
{
	struct fastcpu_rseq_program_owner *o = found;
	struct object obj;

	if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof(void *) ||
	    !read_object(info, &obj) ||
	    !tls_offset(info, &obj, "__rseq_abi", &o->area_offset))
		return 0;
	o->found = true;
	o->refcounted = tls_offset(info, &obj, "__rseq_refcount",
				   &o->refcount_offset);
	return 1;	/* the first definition, as the dynamic linker binds */
}

void fastcpu_find_program_owner(void)
{
	struct fastcpu_rseq_program_owner o = { .found = false };

	dl_iterate_phdr(look_in, &o);
	fastcpu_program_owner = o;
}
