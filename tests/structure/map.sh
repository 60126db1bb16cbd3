#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/structure/map.sh: tests/README.md names every test program and
# script of tests/ (a file it does not name fails), and every file it names
# exists: a newcomer finds the test for a behaviour by reading the map.
set -eu
tests=$(cd "$(dirname "$0")/.." && pwd)
map=$tests/README.md
missing= stale=
for f in $(cd "$tests" && find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' \
	-o -name '*.setup' -o -name '*.txt' -o -name '*.map' \) ! -path './fuzz/corpus/*' | sort); do
	name=$(basename "$f")
	grep -q -e "\`$name\`" -e "/$name\`" "$map" || missing="$missing ${f#./}"
done
for name in $(grep -o '`[a-z0-9][a-z0-9-]*\.\(c\|h\|sh\|setup\|txt\|map\)`' "$map" | tr -d '`' | sort -u); do
	[ -n "$(find "$tests" -name "$name" ! -path '*/fuzz/corpus/*')" ] || stale="$stale $name"
done
[ -z "$missing" ] || { echo "map.sh: tests/README.md does not name:$missing" >&2; exit 1; }
[ -z "$stale" ] || { echo "map.sh: tests/README.md names what is not there:$stale" >&2; exit 1; }
echo "map.sh: tests/README.md names all $(cd "$tests" && find . -type f \( -name '*.c' -o -name '*.h' \
	-o -name '*.sh' -o -name '*.setup' -o -name '*.txt' -o -name '*.map' \) ! -path './fuzz/corpus/*' | wc -l) files"
