#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/owner.sh: libfastcpu beside another owner of the threads' rseq areas
# (an exported __rseq_abi as tcmalloc's; older librseq's reference count;
# current librseq's published offset), linked with the program and
# preloaded, in both rseq setups.
set -eu
: "${FASTCPU_LIB:?set by make check}"
owner_lib() { echo "$PWD/.libs/librseq_owner$1.so"; }
# 77: no rseq in this kernel (qemu-user): nothing to own.
./owner_probe_bare >/dev/null 2>&1 || [ $? != 77 ] || { ./owner_probe_bare; exit 77; }
for setup in "" glibc.pthread.rseq=0; do
	for kind in "" _refcount _published; do
		echo "owner$kind, both linked, GLIBC_TUNABLES=$setup"
		GLIBC_TUNABLES=$setup ./owner_probe$kind
		echo "owner$kind, both preloaded, GLIBC_TUNABLES=$setup"
		GLIBC_TUNABLES=$setup LD_PRELOAD="$(owner_lib "$kind") $FASTCPU_LIB" \
			./owner_probe_bare
	done
done
