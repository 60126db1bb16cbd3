#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/link-abi.sh: what linking with libfastcpu does to a program's ABI.
#
# 1. A program linked with -lfastcpu that calls glibc's affinity functions
#    requires no GLIBC_* version of libfastcpu.so.0, only FASTCPU_*.
# 2. A binary bound to every libc version of those functions (GLIBC_2.3.3
#    without a set size) gets each one's own ABI from the preloaded library,
#    which the dynamic linker binds, and the cache sees every pinning.
# 3. libfastcpu.a linked into a shared object exports none of glibc's names.
set -eu
: "${FASTCPU_LIB:?set by make check}" "${CC:?set by make check}"
real() { if [ -x ".libs/$1" ]; then echo ".libs/$1"; else echo "$1"; fi; }

needs=$(readelf -V "$(real link-abi-probe)" |
	awk '/ File: / { file = $5 } / Name: / && file ~ /^libfastcpu/ { print $3 }')
needs=$(echo $needs)
echo "link-abi-probe requires of libfastcpu.so.0: $needs"
case " $needs " in
*GLIBC_*) echo "link-abi.sh: a glibc version node of libfastcpu.so.0 is required" >&2; exit 1 ;;
*" FASTCPU_1."*) ;;
*) echo "link-abi.sh: cannot read the program's requirements" >&2; exit 1 ;;
esac
./link-abi-probe

log=$(mktemp)
status=0
FASTCPU_BACKEND=syscall FASTCPU_CACHE=on LD_DEBUG=bindings LD_DEBUG_OUTPUT="$log" \
	LD_PRELOAD="$FASTCPU_LIB" ./old-abi-probe || status=$?
if [ "$status" = 77 ]; then
	echo "link-abi.sh: no symbol versions in this libc: old ABI not tested"
else
	[ "$status" = 0 ] || { echo "link-abi.sh: old-abi-probe failed" >&2; exit 1; }
	for version in $(sed -n 's/.*symbol `\(sched\|pthread\)_setaffinity[_np]*'"'"' \[\(GLIBC_[0-9.]*\)\]$/\2/p' "$log".* | sort -u); do
		if ! grep -h "setaffinity.* \[$version\]" "$log".* | grep -q 'libfastcpu'; then
			echo "link-abi.sh: the $version reference is not bound to libfastcpu" >&2
			exit 1
		fi
	done
	grep -h 'setaffinity' "$log".* | sed 's/.*binding file //' | sort -u
fi
rm -f "$log" "$log".*

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%s\n' '#define _GNU_SOURCE' '#include <sched.h>' '#include "fastcpu.h"' \
	'int uses_fastcpu(void) { unsigned int c; return sched_getcpu() + getcpu(&c, 0) + fastcpu_sched_getcpu(); }' \
	>"$dir/uses.c"
$CC -shared -fPIC -I"$FASTCPU_INCLUDE" -o "$dir/uses.so" "$dir/uses.c" "$FASTCPU_ARCHIVE" -lpthread
exported=$(readelf --dyn-syms -W "$dir/uses.so" | awk '$7 != "UND" { print $8 }' |
	grep -E '^(sched_getcpu|getcpu|sched_setaffinity|pthread_setaffinity_np)(@|$)' || true)
if [ -n "$exported" ]; then
	echo "link-abi.sh: a shared object with libfastcpu.a exports $exported" >&2
	exit 1
fi
echo "link-abi.sh: libfastcpu.a in a shared object exports no glibc name"
