#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/structure/layers.sh: the call graphs of lib/ (the core), lib/percpu/
# (its per-CPU data wing) and tools/, drawn from the objects each is built
# from (a file calls another where it uses a symbol the other defines), have
# no circle: every arrow points down; and the wing calls the core, never
# the reverse. Prints each one's floors, top down, and checks that lib's
# README.md names every file.
set -eu
: "${FASTCPU_LIB_SRC:?set by make check}" "${FASTCPU_LIB_OBJECTS:?set by make check}"
: "${FASTCPU_TOOLS_SRC:?set by make check}" "${FASTCPU_TOOLS_OBJECTS:?set by make check}"
nm=${NM:-nm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# house SRC OBJECTS PREFIX [SKIP [README]]: the files of SRC, each object
# named PREFIX + file name + .o in OBJECTS; SKIP a file that is a program of
# its own; README the map that names every file (SRC/README.md).
house() {
src=$1 objects=$2 prefix=$3 skip=${4:-} readme=${5:-$1/README.md}
files=$(for c in "$src"/*.c; do [ "$(basename "$c")" = "$skip" ] || echo "$c"; done)
for c in $files; do
	name=$(basename "$c" .c)
	obj=$objects/$prefix$name.o
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
for c in $files; do
	echo "$(basename "$c") $(basename "$c")"	# every file, called or not
done >>"$tmp/arrows"

if ! tsort "$tmp/arrows" >"$tmp/order" 2>"$tmp/loop"; then
	cat "$tmp/loop" >&2
	echo "layers.sh: the files of $src above call each other in a circle" >&2
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
for c in "$src"/*.c; do
	grep -q "$(basename "$c")" "$readme" || missing="$missing $(basename "$c")"
done
if [ -n "$missing" ]; then
	echo "layers.sh: $readme does not name:$missing" >&2
	exit 1
fi
echo "layers.sh: $src: $(wc -l <"$tmp/order") files, $(awk '$1 != $2' "$tmp/arrows" | wc -l) arrows, all pointing down"
}

house "$FASTCPU_LIB_SRC" "$FASTCPU_LIB_OBJECTS" ""
core_defines=$(awk '$2 == "defines" { print $3 }' "$tmp/symbols" | sort -u)
house "$FASTCPU_LIB_SRC/percpu" "$FASTCPU_LIB_OBJECTS/../percpu/.libs" "" "" "$FASTCPU_LIB_SRC/README.md"
wing_defines=$(awk '$2 == "defines" { print $3 }' "$tmp/symbols" | sort -u)
# The core never calls the wing: no core object uses what a wing object defines.
for c in "$FASTCPU_LIB_SRC"/*.c; do
	# shellcheck disable=SC2086 # NM may carry its options (libtool: nm -B)
	$nm "$FASTCPU_LIB_OBJECTS/$(basename "$c" .c).o" | awk '$1 == "U" { print $2 }'
done | sort -u >"$tmp/core-uses"
printf '%s\n' "$wing_defines" >"$tmp/wing-defines"
up=$(comm -12 "$tmp/core-uses" "$tmp/wing-defines")
if [ -n "$up" ]; then
	echo "layers.sh: the core calls the wing:" $up >&2
	exit 1
fi
echo "layers.sh: the wing calls the core ($(printf '%s\n' "$core_defines" | wc -l) names there), never the reverse"
house "$FASTCPU_TOOLS_SRC" "$FASTCPU_TOOLS_OBJECTS" fastcpu- count-shim.c
