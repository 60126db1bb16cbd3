#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/abi.sh: the library exports exactly what tests/abi.txt lists, for
# the libtool version-info it names. The affinity functions' glibc version
# nodes differ per architecture, so only their GLIBC prefix is compared. The name is
# the last field: ppc64 adds "[<localentry>: 8]" after the visibility.
# A "?" line is exported on some architectures only (lib/task-tls.c's stubs).
set -eu
: "${FASTCPU_LIB:?set by make check}" "${FASTCPU_LT_VERSION:?set by make check}"
want=$(dirname "$0")/abi.txt
recorded=$(sed -n 's/^version-info //p' "$want")
if [ "$recorded" != "$FASTCPU_LT_VERSION" ]; then
	echo "abi.sh: version-info is $FASTCPU_LT_VERSION, tests/abi.txt is for $recorded: update it" >&2
	exit 1
fi
# AddressSanitizer adds an __odr_asan.NAME for each exported variable.
readelf --dyn-syms -W "$FASTCPU_LIB" |
	awk '$5 == "GLOBAL" && !/ (UND|ABS) / && $NF !~ /^__odr_asan/ { print $NF }' |
	sed 's/@GLIBC_[0-9.]*$/@GLIBC/' | sort -u >"$$.have"
{
	grep -v -e '^#' -e '^version-info' -e '^?' "$want"
	sed -n 's/^? //p' "$want" | grep -x -F -f "$$.have" || true
} | sort >"$$.want"
if ! diff -u "$$.want" "$$.have"; then
	rm -f "$$.have" "$$.want"
	echo "abi.sh: exported symbols changed without a version-info bump (- listed, + exported)" >&2
	exit 1
fi
echo "abi.sh: $(wc -l <"$$.have") symbols, as recorded for version-info $recorded"
rm -f "$$.have" "$$.want"
