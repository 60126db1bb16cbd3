#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/percpu/signature-bytes.sh: the 4 bytes before every abort handler are the
# signature the library registers, as the kernel reads them: as data, in
# the target's byte order. tests/percpu/signature-probe.c, built by clang for each
# architecture with sequences (aarch64_be among them, whose instructions
# are little-endian and its data big-endian: there the two forms differ),
# holds both; each abort handler's signature (section __rseq_failure, or
# the text on riscv64, which keeps its handlers there) must be the bytes of
# the registered value, once per descriptor in __rseq_cs.
set -eu
: "${FASTCPU_INCLUDE:?set by make check}"
command -v clang >/dev/null 2>&1 || { echo "signature-bytes.sh: no clang: skipped"; exit 77; }
objcopy=$(command -v llvm-objcopy || command -v llvm-objcopy-14 || true)
[ -n "$objcopy" ] || { echo "signature-bytes.sh: no llvm-objcopy: skipped"; exit 77; }
probe=$(dirname "$0")/signature-probe.c
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }

for target in x86_64-linux-gnu i686-linux-gnu aarch64-linux-gnu aarch64_be-linux-gnu \
	powerpc64le-linux-gnu s390x-linux-gnu riscv64-linux-gnu; do
	o=$dir/$target.o
	clang --target="$target" -O2 -ffreestanding -nostdlibinc -Wall -Werror \
		-I"$FASTCPU_INCLUDE" -c "$probe" -o "$o"
	handlers=__rseq_failure
	[ "$target" != riscv64-linux-gnu ] || handlers=.text
	for section in __rseq_cs "$handlers" registered_signature; do
		"$objcopy" -O binary --only-section="$section" "$o" "$dir/$section"
	done
	descriptors=$(($(wc -c <"$dir/__rseq_cs") / 32))
	signature=$(hex "$dir/registered_signature")
	found=$(hex "$dir/$handlers" | awk -v s="$signature" '{
		n = 0
		for (i = 1; i <= length($0) - 7; i += 2)
			if (substr($0, i, 8) == s) n++
		print n }')
	echo "$target: registered $signature, before $found of $descriptors abort handlers"
	if [ "$descriptors" -lt 3 ] || [ "$found" -lt "$descriptors" ]; then
		echo "signature-bytes.sh: $target: the abort handlers do not follow the registered signature" >&2
		exit 1
	fi
done
