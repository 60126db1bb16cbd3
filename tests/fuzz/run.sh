#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/fuzz/run.sh SRCDIR BUILDDIR: each parser the library runs in other
# people's processes fuzzed with clang's libFuzzer under AddressSanitizer
# and UndefinedBehaviorSanitizer, for FASTCPU_FUZZ_SECONDS (default 60) each:
# the ELF reader, the sysfs CPU list reader, the FASTCPU_* settings parser
# (tests/fuzz/fuzz-*.c, linked with the library's own files). Each starts
# from its committed corpus (tests/fuzz/corpus/TARGET) and from inputs of
# this machine: its vDSO, the dynamic data of small shared objects it has,
# its sysfs lists. Prints each target's executions; exits 1 on any crash,
# leak, timeout or sanitizer report, leaving the input that caused it in
# BUILDDIR/fuzz (add it to the corpus once fixed: make check replays it).
set -eu
[ $# = 2 ] || { echo "usage: tests/fuzz/run.sh SRCDIR BUILDDIR" >&2; exit 2; }
src=$(realpath "$1") build=$(realpath "$2")
seconds=${FASTCPU_FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang}
work=$build/fuzz
rm -rf "$work" && mkdir -p "$work"
command -v "$cc" >/dev/null || { echo "run.sh: no $cc: apt-get install clang libclang-rt-dev" >&2; exit 1; }

flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-include $build/config.h -I$src/include -I$src/lib"
lib_files() {
	case $1 in
	fuzz-elf) echo "$src/lib/elf-reader.c" ;;
	fuzz-cpulist) echo "$src/lib/cpulist.c $src/lib/util.c" ;;
	fuzz-settings) echo "$src/lib/settings.c $src/lib/util.c" ;;
	esac
}
corpus_of() { echo "${1#fuzz-}"; }

# This machine's inputs: the vDSO image, small shared objects, sysfs lists.
machine=$work/machine
mkdir -p "$machine/elf" "$machine/cpulist" "$machine/settings"
cat >"$work/dump_vdso.c" <<'DUMP'
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <sys/auxv.h>
int main(int argc, char **argv)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	size_t size = 0;
	FILE *f;

	if (eh == NULL || argc != 2)
		return 0;
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > size)
			size = ph[i].p_offset + ph[i].p_filesz;
	f = fopen(argv[1], "wb");
	return f == NULL || fwrite(eh, 1, size, f) != size || fclose(f) != 0;
}
DUMP
cc -o "$work/dump_vdso" "$work/dump_vdso.c"
"$work/dump_vdso" "$machine/elf/vdso"
for lib in $(find /lib/*-linux-gnu /usr/lib/*-linux-gnu -maxdepth 1 -name 'lib*.so.*' \
		-type f -size -64k 2>/dev/null | sort | head -n 8); do
	cp "$lib" "$machine/elf/$(basename "$lib")"
done
i=0
for list in /sys/devices/system/cpu/possible /sys/devices/system/cpu/online \
	/sys/devices/system/node/node*/cpulist; do
	[ -r "$list" ] && cp "$list" "$machine/cpulist/sysfs-$i" && i=$((i + 1))
done
printf 'auto' >"$machine/settings/plain"

failed=0
for target in fuzz-elf fuzz-cpulist fuzz-settings; do
	name=$(corpus_of "$target")
	# shellcheck disable=SC2046,SC2086 # lists of words by design
	$cc $flags -o "$work/$target" "$src/tests/fuzz/$target.c" $(lib_files "$target")
	mkdir -p "$work/corpus-$name" "$work/artifacts-$name"
	start=$(date +%s)
	if ! (cd "$work/artifacts-$name" &&
	      "$work/$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
		-print_final_stats=1 "$work/corpus-$name" "$src/tests/fuzz/corpus/$name" \
		"$machine/$name" >"$work/$target.log" 2>&1); then
		failed=1
		tail -40 "$work/$target.log"
		echo "run.sh: $target FAILED; the input: $(ls "$work/artifacts-$name")"
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log")
	echo "run.sh: $target: ${runs:-?} executions in $(($(date +%s) - start)) s," \
		"corpus $(ls "$work/corpus-$name" | wc -l) new inputs"
done
exit $failed
