#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/structure/named-files.sh: every file of ours that a comment in the C
# sources names exists. A comment that names a file tells a reader where to
# look; one that names a file since renamed or merged sends them nowhere
# (#40 found six). A name with a directory of ours (lib/, include/, tests/,
# bench/, tools/) must be that path; a bare name (percpu.c) must be some
# file of the tree; a name under another project's directory
# (kernel/rseq.c, include/linux/...) and a placeholder in capitals
# (lib/arch/NAME.h) are not ours to check.
set -eu
top=${FASTCPU_TOP_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

find lib include tests bench tools man m4 -type f 2>/dev/null | sort >"$tmp/tree"
ls >>"$tmp/tree"
sources=$(find lib include tests bench tools -name '*.[ch]' | sort)

# FILE:LINE NAME for each file name inside a comment.
# shellcheck disable=SC2086 # a list of paths without spaces
awk '
	FNR == 1 { inside = 0 }
	{
		line = $0; text = ""
		while (line != "") {
			if (inside) {
				end = index(line, "*/")
				if (end == 0) { text = text " " line; line = "" }
				else { text = text " " substr(line, 1, end - 1); line = substr(line, end + 2); inside = 0 }
			} else {
				open = index(line, "/*"); slash = index(line, "//")
				if (slash > 0 && (open == 0 || slash < open)) { text = text " " substr(line, slash + 2); line = "" }
				else if (open > 0) { line = substr(line, open + 2); inside = 1 }
				else line = ""
			}
		}
		while (match(text, /[A-Za-z0-9_.\/-]*[A-Za-z0-9_-]\.(c|h|sh|am|ac|awk|md)([^A-Za-z0-9_]|$)/)) {
			name = substr(text, RSTART, RLENGTH)
			sub(/[^A-Za-z0-9_]$/, "", name)
			sub(/^[.\/]+/, "", name)
			print FILENAME ":" FNR, name
			text = substr(text, RSTART + RLENGTH)
		}
	}' $sources >"$tmp/named"

bad=0
while read -r where name; do
	case $name in
	*[A-Z][A-Z][A-Z]*) continue ;;	# a placeholder: NAME.h
	include/linux/* | include/uapi/*) continue ;;	# the kernel's
	lib/* | include/* | tests/* | bench/* | tools/*)
		grep -qx "$name" "$tmp/tree" && continue ;;
	*/*)
		# Another project's (kernel/rseq.c, linux/rseq.h), or a path
		# below one of ours (percpu/lock.c, fastcpu/rseq.h).
		grep -q "/$name\$" "$tmp/tree" || [ "${name%%/*}" = fastcpu ] || continue
		grep -q "/$name\$" "$tmp/tree" && continue ;;
	*)
		grep -q "/$name\$" "$tmp/tree" || grep -qx "$name" "$tmp/tree" && continue ;;
	esac
	echo "named-files.sh: $where names $name, which this tree does not have" >&2
	bad=1
done <"$tmp/named"
[ $bad = 0 ] || exit 1
echo "named-files.sh: $(wc -l <"$tmp/named") file names in the C sources' comments, each a file of the tree or another project's"
