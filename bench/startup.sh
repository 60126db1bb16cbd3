#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# bench/startup.sh [--syscalls-only] LIB: what preloading LIB costs a process
# that never asks for the CPU (/bin/true), against preloading an empty shared
# object: the system calls (strace) and the start-up time (hyperfine). Either
# tool missing: that half is skipped, said so (exit 77 if nothing ran, the
# automake code for a skipped test).
set -eu
only_syscalls=false
if [ "$1" = --syscalls-only ]; then
	only_syscalls=true
	shift
fi
lib=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'int fastcpu_startup_empty;\n' | ${CC:-cc} -shared -fPIC -x c - -o "$dir/empty.so"

syscalls() {	# the system calls of /bin/true with $1 preloaded, one a line
	LD_PRELOAD=$1 strace -f -qq -o "$dir/trace" /bin/true
	sed 's/^[0-9]* *//; s/(.*//' "$dir/trace"
}
if command -v strace >/dev/null 2>&1; then
	syscalls "$dir/empty.so" >"$dir/empty.calls"
	syscalls "$lib" >"$dir/lib.calls"
	printf 'system calls of /bin/true: %d with an empty preloaded object, %d with %s\n' \
		"$(wc -l <"$dir/empty.calls")" "$(wc -l <"$dir/lib.calls")" "$(basename "$lib")"
	if ! diff "$dir/empty.calls" "$dir/lib.calls" >"$dir/diff"; then
		echo "startup.sh: the library adds system calls:"
		cat "$dir/diff"
		exit 1
	fi
	echo "same system calls, in the same order"
else
	echo "startup.sh: strace not installed, system calls not compared"
	$only_syscalls && exit 77
fi
$only_syscalls && exit 0
if command -v hyperfine >/dev/null 2>&1; then
	runs=2000
	[ -z "${FASTCPU_BENCH_QUICK:-}" ] || runs=200
	hyperfine -N --warmup 100 --runs "$runs" --style basic \
		"env LD_PRELOAD=$dir/empty.so /bin/true" \
		"env LD_PRELOAD=$lib /bin/true" 2>&1 | grep -v '^ *$'
else
	echo "startup.sh: hyperfine not installed, start-up time not measured"
fi
