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
 * chose. Two conventions say who that is:
 * - an exported initial-exec TLS area __rseq_abi (tcmalloc, ClickHouse,
 *   librseq before 0.1), older librseq also a __rseq_refcount shared with
 *   anyone who follows it;
 * - librseq 0.1 and later, like glibc: its area is private, its offset from
 *   the thread pointer published in rseq_offset (beside the function
 *   rseq_register_current_thread, which names the convention), 0 until
 *   librseq initialises on its first registration.
 * If libfastcpu registered first, such an owner would get EINVAL, and
 * librseq aborts on that. So the library looks for the symbols before any
 * thread registers, and defers to them (rseq.c).
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
	const fastcpu_sysv_hash_entry *hash;	/* SysV */
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

static bool is_defined(const struct object *o, uint32_t i, const char *name,
		       unsigned int type)
{
	const ElfW(Sym) *s = &o->symtab[i];

	return ELF64_ST_TYPE(s->st_info) /* same in ELF32 */ == type &&
	       s->st_shndx != SHN_UNDEF && strcmp(o->strtab + s->st_name, name) == 0;
}

/* The GNU hash table: a Bloom filter, then one bucket's chain. */
static const ElfW(Sym) *gnu_lookup(const struct object *o, const char *name,
				   unsigned int type)
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

		if ((h | 1) == (h2 | 1) && is_defined(o, i, name, type))
			return &o->symtab[i];
		if (h2 & 1)
			break;
	}
	return NULL;
}

static const ElfW(Sym) *sysv_lookup(const struct object *o, const char *name,
				    unsigned int type)
{
	uint32_t nbuckets = (uint32_t)o->hash[0], h = 0;
	const fastcpu_sysv_hash_entry *buckets = o->hash + 2;
	const fastcpu_sysv_hash_entry *chain = buckets + nbuckets;

	for (const char *c = name; *c; c++) {
		h = (h << 4) + (unsigned char)*c;
		h ^= (h >> 24) & 0xf0;
	}
	h &= 0x0fffffff;
	if (nbuckets == 0)
		return NULL;
	for (uint32_t i = (uint32_t)buckets[h % nbuckets]; i != 0;
	     i = (uint32_t)chain[i])
		if (is_defined(o, i, name, type))
			return &o->symtab[i];
	return NULL;
}

static const ElfW(Sym) *lookup(const struct object *o, const char *name,
				unsigned int type)
{
	return o->gnu_hash ? gnu_lookup(o, name, type) : sysv_lookup(o, name, type);
}

/* The offset from the thread pointer of name in this object's TLS. */
static bool tls_offset(const struct dl_phdr_info *info, const struct object *o,
		       const char *name, ptrdiff_t *offset)
{
	const ElfW(Sym) *s = lookup(o, name, STT_TLS);

	if (s == NULL || info->dlpi_tls_data == NULL)
		return false;
	*offset = (char *)info->dlpi_tls_data + s->st_value -
		  (char *)fastcpu_arch_thread_pointer();
	return true;
}

/* What the walk over the loaded objects found, in load order. */
struct search {
	struct fastcpu_rseq_program_owner owner;
	const ptrdiff_t *first_rseq_offset;
	bool librseq;
};

static int look_in(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct search *found = arg;
	struct fastcpu_rseq_program_owner *o = &found->owner;
	const ElfW(Sym) *s;
	struct object obj;

	if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof(void *) ||
	    !read_object(info, &obj))
		return 0;
	if (tls_offset(info, &obj, "__rseq_abi", &o->area_offset)) {
		o->found = true;
		o->refcounted = tls_offset(info, &obj, "__rseq_refcount",
					   &o->refcount_offset);
		return 1;	/* the first definition, as the loader binds */
	}
	/* The first definition in load order is the live one: a program that
	 * reads rseq_offset has a copy of it, which librseq's code uses. */
	s = lookup(&obj, "rseq_offset", STT_OBJECT);
	if (s != NULL && s->st_size == sizeof(ptrdiff_t) &&
	    found->first_rseq_offset == NULL)
		found->first_rseq_offset = (const ptrdiff_t *)(info->dlpi_addr +
							       s->st_value);
	if (lookup(&obj, "rseq_register_current_thread", STT_FUNC) != NULL)
		found->librseq = true;
	return 0;
}

void fastcpu_find_program_owner(void)
{
	struct search found = { .librseq = false };

	dl_iterate_phdr(look_in, &found);
	if (!found.owner.found && found.librseq && found.first_rseq_offset) {
		found.owner.found = true;
		found.owner.published_offset = found.first_rseq_offset;
	}
	fastcpu_program_owner = found.owner;
}
