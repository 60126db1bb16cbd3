#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/host/owner.sh: libfastcpu beside another owner of the threads' rseq areas
# (an exported __rseq_abi as tcmalloc's; older librseq's reference count;
# current librseq's published offset; an exported area registered with
# another signature), linked with the program and preloaded, in both rseq
# setups.
set -eu
: "${FASTCPU_LIB:?set by make check}" "${FASTCPU_BENCH_DIR:?set by make check}"
owner_lib() { echo "$FASTCPU_BENCH_DIR/.libs/librseq-owner$1.so"; }
# 77: no rseq in this kernel (qemu-user): nothing to own.
./owner-probe-bare >/dev/null 2>&1 || [ $? != 77 ] || { ./owner-probe-bare; exit 77; }
for setup in "" glibc.pthread.rseq=0; do
	for kind in "" -refcount -published -other; do
		echo "owner$kind, both linked, GLIBC_TUNABLES=$setup"
		GLIBC_TUNABLES=$setup ./owner-probe$kind
		echo "owner$kind, both preloaded, GLIBC_TUNABLES=$setup"
		GLIBC_TUNABLES=$setup LD_PRELOAD="$(owner_lib "$kind") $FASTCPU_LIB" \
			./owner-probe-bare
	done
	# librseq's convention in both orders of initialisation (the ones
	# above initialise libfastcpu first, linked, and the owner first,
	# preloaded).
	echo "owner-published, both linked, the owner initialised first, GLIBC_TUNABLES=$setup"
	GLIBC_TUNABLES=$setup ./owner-probe-published-ahead
	echo "owner-published, both preloaded, libfastcpu initialised first, GLIBC_TUNABLES=$setup"
	GLIBC_TUNABLES=$setup LD_PRELOAD="$FASTCPU_LIB $(owner_lib -published)" ./owner-probe-bare
done
