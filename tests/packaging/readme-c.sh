#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/readme-c.sh: every C block of the README compiles with -Wall -Werror,
# links with the built library and runs.
set -eu
: "${CC:?set by make check}" "${FASTCPU_INCLUDE:?set by make check}" "${FASTCPU_LIB:?set by make check}"
readme=$(dirname "$0")/../../README.md
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk -v dir="$dir" '
	/^```c$/ { n++; file = dir "/block" n ".c"; inside = 1; next }
	/^```/ { inside = 0; next }
	inside { print > file }
' "$readme"
count=0
for block in "$dir"/block*.c; do
	[ -f "$block" ] || continue
	$CC -Wall -Wextra -Werror -I"$FASTCPU_INCLUDE" -o "${block%.c}" "$block" "$FASTCPU_LIB"
	LD_LIBRARY_PATH=$(dirname "$FASTCPU_LIB") "${block%.c}"
	count=$((count + 1))
done
[ "$count" -gt 0 ] || { echo "readme-c.sh: no C block in the README" >&2; exit 1; }
echo "readme-c.sh: $count C block(s) of the README compile with -Wall -Wextra -Werror and run"
