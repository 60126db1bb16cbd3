/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/elf-reader.h: a bounded reader of ELF dynamic symbol tables. */

#ifndef FASTCPU_ELF_READER_H
#define FASTCPU_ELF_READER_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <link.h>

/*
 * An entry of an ELF SysV hash table (DT_HASH): 64 bits on s390x, whose ABI
 * is the exception, 32 everywhere else. GNU hash tables are 32-bit
 * everywhere.
 */
#ifdef __s390x__
typedef uint64_t fastcpu_sysv_hash_entry;
#else
typedef uint32_t fastcpu_sysv_hash_entry;
#endif

/* What an object's dynamic section says, at run-time addresses, and the
 * bytes the reader may read to follow it (elf-reader.c says which it trusts). */
struct fastcpu_elf {
	const ElfW(Phdr) *phdr;		/* its readable PT_LOADs bound reads */
	size_t phnum;
	uintptr_t bias;			/* run-time address - link-time address */
	uintptr_t lo, hi;		/* and nothing outside [lo, hi) is read */
	const ElfW(Sym) *symtab;
	const char *strtab;
	size_t strsz;			/* 0: unknown, the segments bound it */
	const fastcpu_sysv_hash_entry *hash;
	const uint32_t *gnu_hash;
	const ElfW(Versym) *versym;
	const ElfW(Verdef) *verdef;
};

/* A loaded object, from the program headers the dynamic loader gives
 * (dl_iterate_phdr), with its load bias; false without a dynamic section
 * that has a symbol table, a string table and a hash table. */
bool fastcpu_elf_open_loaded(struct fastcpu_elf *e, const ElfW(Phdr) *phdr,
			     size_t phnum, uintptr_t bias, uintptr_t lo,
			     uintptr_t hi);
/* An ELF image as it lies in memory from its header on (the vDSO), of
 * which size bytes may be read. */
bool fastcpu_elf_open_image(struct fastcpu_elf *e, const void *image, size_t size);
/* The defined symbol name of type (STT_*), at version when not NULL (an
 * unversioned object matches any), or NULL. Found through the object's GNU
 * or SysV hash table, as the dynamic loader finds it. */
const ElfW(Sym) *fastcpu_elf_lookup(const struct fastcpu_elf *e, const char *name,
				    unsigned int type, const char *version);

/* The descriptor of the first note of its PT_NOTE segments with this name,
 * type and descriptor size, or NULL. */
const void *fastcpu_elf_note(const struct fastcpu_elf *e, const char *name, uint32_t type,
			     uint32_t size);

#endif /* FASTCPU_ELF_READER_H */
