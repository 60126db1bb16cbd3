#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/readme-c.sh: every C block of every README of the tree
# compiles with -Wall -Wextra -Werror, links with the built library and runs.
set -eu
: "${CC:?set by make check}" "${FASTCPU_INCLUDE:?set by make check}" "${FASTCPU_LIB:?set by make check}"
top=$(dirname "$0")/../..
# Every README of the tree (a new one goes here too): a missing one fails.
readmes="README.md bench/README.md tests/README.md lib/README.md tools/README.md"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
count=0
for readme in $readmes; do
	[ -f "$top/$readme" ] || { echo "readme-c.sh: no $readme" >&2; exit 1; }
	rm -f "$dir"/block*
	awk -v dir="$dir" '
		/^```c$/ { n++; file = dir "/block" n ".c"; inside = 1; next }
		/^```/ { inside = 0; next }
		inside { print > file }
	' "$top/$readme"
	for block in "$dir"/block*.c; do
		[ -f "$block" ] || continue
		n=${block##*/block}
		echo "readme-c.sh: $readme, C block ${n%.c}"
		$CC -Wall -Wextra -Werror -I"$FASTCPU_INCLUDE" -o "${block%.c}" "$block" "$FASTCPU_LIB"
		LD_LIBRARY_PATH=$(dirname "$FASTCPU_LIB") "${block%.c}"
		count=$((count + 1))
	done
done
[ "$count" -gt 0 ] || { echo "readme-c.sh: no C block in the READMEs" >&2; exit 1; }
echo "readme-c.sh: $count C block(s) of the READMEs ($readmes) compile with -Wall -Wextra -Werror and run"
