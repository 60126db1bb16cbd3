#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/layers.sh: the call graph of lib/, drawn from the objects the shared
# library is built from (a file calls another where it uses a symbol the
# other defines), has no circle: every arrow points down. Prints the floors,
# top down, and checks that lib/README.md names every file of lib/.
set -eu
: "${FASTCPU_LIB_SRC:?set by make check}" "${FASTCPU_LIB_OBJECTS:?set by make check}"
nm=${NM:-nm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

for c in "$FASTCPU_LIB_SRC"/*.c; do
	name=$(basename "$c" .c)
	obj=$FASTCPU_LIB_OBJECTS/$name.o
	[ -f "$obj" ] || { echo "layers.sh: no object $obj for $c" >&2; exit 1; }
	# shellcheck disable=SC2086 # NM may carry its options (libtool: nm -B)
	$nm "$obj" | awk -v f="$name.c" '
		$1 == "U" { print f, "uses", $2 }
		NF == 3 && $2 ~ /^[TDBRVWGS]$/ { print f, "defines", $3 }'
done >"$tmp/symbols"
awk '$2 == "defines" { where[$3] = $1 }
     $2 == "uses" { n++; user[n] = $1; sym[n] = $3 }
     END { for (i = 1; i <= n; i++)
		if ((sym[i] in where) && where[sym[i]] != user[i])
			print user[i], where[sym[i]] }' "$tmp/symbols" | sort -u >"$tmp/arrows"
for c in "$FASTCPU_LIB_SRC"/*.c; do
	echo "$(basename "$c") $(basename "$c")"	# every file, called or not
done >>"$tmp/arrows"

if ! tsort "$tmp/arrows" >"$tmp/order" 2>"$tmp/loop"; then
	cat "$tmp/loop" >&2
	echo "layers.sh: the files of lib/ above call each other in a circle" >&2
	exit 1
fi

# A file's floor: one below the lowest of its callers (0: nobody calls it).
awk 'NR == FNR { if ($1 != $2) callers[$2] = callers[$2] " " $1; next }
     { split(callers[$1], c, " "); f = 0
       for (i in c) if (floor[c[i]] + 1 > f) f = floor[c[i]] + 1
       floor[$1] = f; if (f > top) top = f }
     END { for (f = 0; f <= top; f++) { line = ""
		for (x in floor) if (floor[x] == f) line = line " " x
		print "floor " f ":" line } }' "$tmp/arrows" "$tmp/order"

missing=
for c in "$FASTCPU_LIB_SRC"/*.c; do
	grep -q "$(basename "$c")" "$FASTCPU_LIB_SRC/README.md" || missing="$missing $(basename "$c")"
done
if [ -n "$missing" ]; then
	echo "layers.sh: lib/README.md does not name:$missing" >&2
	exit 1
fi
echo "layers.sh: $(wc -l <"$tmp/order") files, $(awk '$1 != $2' "$tmp/arrows" | wc -l) arrows, all pointing down"
