#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/abi.sh: the library exports exactly what lib/fastcpu.abi
# writes down (lib/abi.awk reads it), at the libtool version-info it names.
# The affinity functions' glibc version nodes differ per architecture, so
# only their GLIBC prefix is compared. The name is the last field: ppc64
# adds "[<localentry>: 8]" after the visibility. A "?" entry is exported on
# some architectures only (lib/task-tls.c's stubs).
set -eu
: "${FASTCPU_LIB:?set by make check}" "${FASTCPU_LT_VERSION:?set by make check}"
: "${FASTCPU_LIB_SRC:?set by make check}"
abi() { awk -v what="$1" -f "$FASTCPU_LIB_SRC/abi.awk" "$FASTCPU_LIB_SRC/fastcpu.abi"; }
recorded=$(abi version)
if [ "$recorded" != "$FASTCPU_LT_VERSION" ]; then
	echo "abi.sh: built with version-info $FASTCPU_LT_VERSION, lib/fastcpu.abi says $recorded: configure again" >&2
	exit 1
fi
# AddressSanitizer adds an __odr_asan.NAME for each exported variable.
readelf --dyn-syms -W "$FASTCPU_LIB" |
	awk '$5 == "GLOBAL" && !/ (UND|ABS) / && $NF !~ /^__odr_asan/ { print $NF }' |
	sed 's/@GLIBC_[0-9.]*$/@GLIBC/' | sort -u >"$$.have"
{
	abi exports | grep -v '^?'
	abi exports | sed -n 's/^? //p' | grep -x -F -f "$$.have" || true
} | sort >"$$.want"
if ! diff -u "$$.want" "$$.have"; then
	rm -f "$$.have" "$$.want"
	echo "abi.sh: the exports are not what lib/fastcpu.abi says (- written, + exported)" >&2
	exit 1
fi
echo "abi.sh: $(wc -l <"$$.have") symbols, as lib/fastcpu.abi writes them for version-info $recorded"
rm -f "$$.have" "$$.want"
