/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/signature-probe.c: every sequence of <fastcpu.h> once, and the
 * signature the library registers, as data: compiled for each architecture
 * by signature-bytes.sh, which compares the two in the object's bytes. */

#include "fastcpu.h"

__attribute__((section("registered_signature"), used))
static const unsigned int registered = FASTCPU_RSEQ_SIGNATURE;

void *signature_probe(void *base, void *node);

void *signature_probe(void *base, void *node)
{
	int slot;

	fastcpu_percpu_add(base, 64, FASTCPU_BY_CPU, 1);
	fastcpu_percpu_push(base, 64, FASTCPU_BY_CID, node, 0);
	slot = fastcpu_percpu_lock(base, 64, FASTCPU_BY_CPU);
	fastcpu_percpu_unlock(base, 64, slot);
	/* The object cache's magazine sequences, on any words. */
	(void)fastcpu_rseq_magazine_push_(base, base, 0, base, node, 4095);
	(void)fastcpu_rseq_magazine_pop_(base, base, 0, base, 4095, node);
	/* The counter tree's leaf. */
	(void)fastcpu_rseq_add_return_(base, base, 0, base, 1, node);
	return fastcpu_percpu_pop(base, 64, FASTCPU_BY_CPU, 0);
}
