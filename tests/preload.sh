#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/preload.sh: LD_PRELOAD into a program not linked with libfastcpu.
#
# The dynamic linker must bind the program's versioned references
# sched_getcpu@GLIBC_2.6 and getcpu@GLIBC_2.29 to libfastcpu, and the
# answers must be right, with glibc's rseq area and with the library's own.
set -eu
: "${FASTCPU_LIB:?set by make check}"
probe=./preload_probe
for tunables in "" "glibc.pthread.rseq=0"; do
	log=$(mktemp)
	if ! GLIBC_TUNABLES=$tunables LD_DEBUG=bindings LD_PRELOAD=$FASTCPU_LIB \
		"$probe" >"$log.out" 2>"$log"; then
		cat "$log.out" "$log" | grep -v 'binding file' >&2
		exit 1
	fi
	for sym in "sched_getcpu' \[GLIBC_2.6\]" "getcpu' \[GLIBC_2.29\]"; do
		if ! grep -E "binding file $probe .* to .*libfastcpu\.so[^ ]* \[0\]: normal symbol \`$sym" "$log" >/dev/null; then
			echo "preload.sh: $sym not bound to libfastcpu (GLIBC_TUNABLES=$tunables)" >&2
			grep -E "symbol \`(sched_)?getcpu'" "$log" >&2 || true
			exit 1
		fi
	done
	echo "GLIBC_TUNABLES=$tunables: $(cat "$log.out")"
	rm -f "$log" "$log.out"
done
