#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/reading/preload.sh: LD_PRELOAD into a program not linked with libfastcpu.
#
# The dynamic linker must bind the program's versioned references
# sched_getcpu@GLIBC_2.6 (or the architecture's first version, GLIBC_2.17 on
# arm64) and getcpu@GLIBC_2.29 (and sched_setaffinity, which
# invalidates the cache) to libfastcpu, and the answers must be right: with
# glibc's rseq area, with the library's own, and through the syscall+cache
# fallback, where the probe's pinning must be seen by the very next call.
set -eu
: "${FASTCPU_LIB:?set by make check}"
probe=./preload-probe
run() {
	log=$(mktemp)
	if ! env "$@" LD_DEBUG=bindings LD_PRELOAD="$FASTCPU_LIB" \
		"$probe" >"$log.out" 2>"$log"; then
		cat "$log.out" "$log" | grep -v 'binding file' >&2
		exit 1
	fi
	for sym in "sched_getcpu' \[GLIBC_[0-9.]*\]" "getcpu' \[GLIBC_2.29\]" \
		"sched_setaffinity' \[GLIBC_[0-9.]*\]"; do
		if ! grep -E "binding file $probe .* to .*libfastcpu\.so[^ ]* \[0\]: normal symbol \`$sym" "$log" >/dev/null; then
			echo "preload.sh: $sym not bound to libfastcpu ($*)" >&2
			grep -E "symbol \`(sched_)?(get|setaffinity)" "$log" >&2 || true
			exit 1
		fi
	done
	echo "$*: $(cat "$log.out")"
	rm -f "$log" "$log.out"
}
run GLIBC_TUNABLES=
run GLIBC_TUNABLES=glibc.pthread.rseq=0
run FASTCPU_BACKEND=syscall FASTCPU_CACHE=on
