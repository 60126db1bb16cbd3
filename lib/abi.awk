# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# lib/abi.awk: from lib/fastcpu.abi, with -v what=
#   map        the linker's version script; glibc_nodes: configure's
#              "GLIBC_x { };" nodes, which hold no symbol of their own;
#   exports    what readelf --dyn-syms shows the library exports, one a line
#              (tests/packaging/abi.sh): name@@NODE, name@NODE (compat),
#              name (Base), name@GLIBC; "? name" where only some
#              architectures export it;
#   debian     debian/libfastcpu0.symbols;
#   version    the libtool version-info.
$1 == "version-info" { version = $2; next }
/^#/ || NF == 0 { next }
$1 == "local" { locals[++nlocal] = $3; next }
{
	n++; node[n] = $1; since[n] = $2; name[n] = $3; note[n] = $4
	if ($1 ~ /^FASTCPU_/ && !($1 in seen)) { seen[$1] = 1; order[++nnode] = $1 }
	if ($1 ~ /^FASTCPU_/ && (!($1 in first) || $2 < first[$1])) first[$1] = $2
}
function archs(s) { sub(/^arch=/, "", s); gsub(/,/, " ", s); return s }
END {
	if (what == "version") { print version; exit }
	if (what == "map") {
		print "/* lib/fastcpu.map: made by lib/abi.awk from lib/fastcpu.abi. */"
		print glibc_nodes
		previous = ""
		for (i = 1; i <= nnode; i++) {
			printf "%s {\n\tglobal:\n", order[i]
			for (k = 1; k <= n; k++)
				if (node[k] == order[i] && note[k] != "compat")
					printf "\t\t%s;\n", name[k]
			if (i == 1 && nlocal) {
				printf "\tlocal:\n"
				for (k = 1; k <= nlocal; k++)
					printf "\t\t%s;\n", locals[k]
			}
			chained = order[i] ~ /^FASTCPU_[0-9]/
			printf "}%s;\n", chained && previous != "" ? " " previous : ""
			if (chained)
				previous = order[i]
		}
		exit
	}
	if (what == "exports") {
		for (k = 1; k <= n; k++) {
			s = name[k]
			if (node[k] == "GLIBC")
				s = s "@GLIBC"
			else if (node[k] != "Base")
				s = s (note[k] == "compat" ? "@" : "@@") node[k]
			print (note[k] ~ /^arch=/ ? "? " : "") s
		}
		exit
	}
	if (what == "debian") {
		print "libfastcpu.so.0 libfastcpu0 #MINVER#"
		print "* Build-Depends-Package: libfastcpu-dev"
		for (i = 1; i <= nnode; i++)
			printf " %s@%s %s\n", order[i], order[i], first[order[i]]
		for (k = 1; k <= n; k++) {
			if (node[k] == "GLIBC") {
				if (glibc == "" || since[k] < glibc)
					glibc = since[k]
				regex[++nregex] = sprintf(" (regex)\"^%s@GLIBC_[0-9.]+$\" %s", name[k], since[k])
				continue
			}
			line = sprintf("%s@%s %s", name[k], node[k], since[k])
			if (note[k] ~ /^arch=/)
				line = "(arch=" archs(note[k]) ")" line
			print " " line | "sort -t@ -k1,1 -k2"
		}
		close("sort -t@ -k1,1 -k2")
		printf " (regex)\"^GLIBC_[0-9.]+@GLIBC_[0-9.]+$\" %s\n", glibc
		for (k = 1; k <= nregex; k++)
			print regex[k]
		exit
	}
	print "abi.awk: what=map, exports, debian or version" > "/dev/stderr"
	exit 2
}
