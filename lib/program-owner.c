/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/program-owner.c: find who else owns the threads' rseq areas. */

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include "arch.h"
#include "elf-reader.h"
#include "internal.h"
#include "program-owner.h"

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
 * librseq aborts on that. So the library looks for the symbols at load,
 * before any thread registers, and defers to them (program-area.c).
 *
 * Looked up in the dynamic symbol tables of the objects loaded then, in
 * load order, through their hash tables (elf-reader.c): dlsym() would allocate its
 * error string for the usual answer, "not found", in every process. The
 * area is initial-exec by its convention, so in static TLS: at the same
 * offset from every thread's pointer.
 */
static struct fastcpu_program_owner found;
static bool searched;

/* The offset from the thread pointer of name in this object's TLS. */
static bool tls_offset(const struct dl_phdr_info *info, const struct fastcpu_elf *e,
		       const char *name, ptrdiff_t *offset)
{
	const ElfW(Sym) *s = fastcpu_elf_lookup(e, name, STT_TLS, NULL);

	if (s == NULL || info->dlpi_tls_data == NULL)
		return false;
	*offset = (char *)info->dlpi_tls_data + s->st_value -
		  (char *)fastcpu_arch_thread_pointer();
	return true;
}

/* What the walk over the loaded objects found, in load order. */
struct search {
	struct fastcpu_program_owner owner;
	const ptrdiff_t *first_rseq_offset;
	const char *librseq;	/* the first object with librseq's functions */
};

static int look_in(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct search *s = arg;
	struct fastcpu_program_owner *o = &s->owner;
	const ElfW(Sym) *sym;
	struct fastcpu_elf e;

	if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof(void *) ||
	    !fastcpu_elf_open_loaded(&e, info->dlpi_phdr, info->dlpi_phnum,
				     info->dlpi_addr, 0, UINTPTR_MAX))
		return 0;
	if (tls_offset(info, &e, "__rseq_abi", &o->area_offset)) {
		o->convention = tls_offset(info, &e, "__rseq_refcount", &o->refcount_offset) ?
				FASTCPU_OWNER_REFCOUNTED : FASTCPU_OWNER_EXPORTED;
		return 1;	/* the first definition, as the loader binds */
	}
	/* The first definition in load order is the live one: a program that
	 * reads rseq_offset has a copy of it, which librseq's code uses. */
	sym = fastcpu_elf_lookup(&e, "rseq_offset", STT_OBJECT, NULL);
	if (sym != NULL && sym->st_size == sizeof(ptrdiff_t) && s->first_rseq_offset == NULL)
		s->first_rseq_offset = (const ptrdiff_t *)(info->dlpi_addr + sym->st_value);
	if (s->librseq == NULL &&
	    fastcpu_elf_lookup(&e, "rseq_register_current_thread", STT_FUNC, NULL))
		s->librseq = info->dlpi_name;
	return 0;
}

void fastcpu_program_owner_search(void)
{
	struct search s = { .owner.convention = FASTCPU_OWNER_NONE };

	dl_iterate_phdr(look_in, &s);
	if (s.owner.convention == FASTCPU_OWNER_NONE && s.librseq && s.first_rseq_offset) {
		s.owner.convention = FASTCPU_OWNER_PUBLISHED;
		s.owner.published_offset = s.first_rseq_offset;
		/* The program itself is named "": its constructors run last. */
		if (s.librseq[0] != '\0')
			s.owner.object = s.librseq;
	}
	found = s.owner;
	__atomic_store_n(&searched, true, __ATOMIC_RELEASE);
}

const struct fastcpu_program_owner *fastcpu_program_owner(void)
{
	return __atomic_load_n(&searched, __ATOMIC_ACQUIRE) ? &found : NULL;
}

/*
 * A program linked with -lrseq before -lfastcpu has the loader initialise
 * this library first: librseq's constructor, which publishes its offset,
 * runs after. dlopen() of an object that is loaded but not yet initialised
 * runs its constructors then (and not again later), as its own first use
 * would; the reference it takes is given back at once. Only at load, where
 * dlopen() may allocate and lock.
 */
ptrdiff_t fastcpu_program_owner_offset_at_load(const struct fastcpu_program_owner *o)
{
	ptrdiff_t offset = __atomic_load_n(o->published_offset, __ATOMIC_ACQUIRE);
	void *handle;

	if (offset != 0 || o->object == NULL)
		return offset;
	handle = dlopen(o->object, RTLD_LAZY | RTLD_NOLOAD);
	if (handle != NULL)
		dlclose(handle);
	return __atomic_load_n(o->published_offset, __ATOMIC_ACQUIRE);
}
