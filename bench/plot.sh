#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# bench/plot.sh CSV SVG: tables 1 and 4 of fastcpu-bench --csv as one SVG.
# Without gnuplot it says so and succeeds: the plot is a convenience.
set -eu
csv=$1
svg=$2
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "plot.sh: gnuplot not installed, no $svg"
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Rows are table,"case",threads,best_ns,median_ns; the quoted case may hold
# commas, the other fields never do.
#
# Table 1, without the raw empty loop and the system call (which would
# flatten it), as two groups of bars. pairs.dat: a way of asking a row, its
# libfastcpu and glibc medians side by side ("-" where one has no such call),
# keyed by the case's name less its "libfastcpu " or "glibc ". others.dat:
# the floors and the mechanisms underneath, one bar each.
sed -n 's/^reading,"\([^"]*\)",[^,]*,[^,]*,\([^,]*\)$/\1|\2/p' "$csv" |
	grep -v -e '^empty loop' -e 'system call' |
	awk -F'|' -v dir="$dir" '
		function way(name) {
			if (!(name in lib)) { order[++n] = name; lib[name] = "-"; glibc[name] = "-" }
		}
		/^libfastcpu / { sub(/^libfastcpu /, ""); way($1); lib[$1] = $2; next }
		/^glibc / { sub(/^glibc /, ""); way($1); glibc[$1] = $2; next }
		/^fastcpu_/ { way($1); lib[$1] = $2; next }
		{ print "\"" $1 "\" " $2 > (dir "/others.dat") }
		END {
			for (i = 1; i <= n; i++)
				print "\"" order[i] "\" " lib[order[i]] " " glibc[order[i]] > (dir "/pairs.dat")
		}'
# Table 4 with threads (threads 0: the one-thread table): one file a
# counter, c1.dat ..., its name in names.txt.
sed -n 's/^counters,"\([^"]*\)",\([^,]*\),[^,]*,\([^,]*\)$/\1|\2 \3/p' "$csv" |
	awk -F'|' -v dir="$dir" '$2 !~ /^0 / {
		if (!($1 in n)) { n[$1] = ++k; print $1 > (dir "/names.txt") }
		print $2 > (dir "/c" n[$1] ".dat") }'
# A counter's line: solid for libfastcpu's, dashed for those that ask
# glibc, dotted for the rest (one global counter, the reference).
plots=""
i=0
while IFS= read -r title; do
	i=$((i + 1))
	case $title in
	*glibc*) dash=2 ;;
	*fastcpu* | *per-CPU\ rseq*) dash=1 ;;
	*) dash=3 ;;
	esac
	plots="$plots${plots:+, }'$dir/c$i.dat' using 1:2 title '$title' dashtype $dash"
done <"$dir/names.txt"
gnuplot <<GP
set terminal svg size 1100,1100 dynamic font 'sans,11'
set output '$svg'
set datafile missing '-'
set multiplot
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by 30 right noenhanced
set ylabel 'ns per call'
set grid ytics
set yrange [0:*]
set key outside top center horizontal noenhanced
set size 0.62,0.5
set origin 0,0.5
set title 'Table 1: reading the CPU, libfastcpu beside glibc: median ns, empty loop subtracted'
plot '$dir/pairs.dat' using 2:xtic(1) title 'libfastcpu' lc rgb '#1f77b4', \
     '' using 3 title 'glibc' lc rgb '#ff7f0e'
unset key
set size 0.38,0.5
set origin 0.62,0.5
set title 'the floors and mechanisms underneath'
set ylabel ''
plot '$dir/others.dat' using 2:xtic(1) lc rgb '#7f7f7f'
set size 1,0.5
set origin 0,0
set title 'Table 4: counter increments by threads: ns per increment per thread'
set style data linespoints
set xtics norotate enhanced
set ylabel 'ns'
set yrange [*:*]
set logscale x 2
set logscale y
set key outside below center horizontal noenhanced
plot $plots
unset multiplot
GP
echo "plot.sh: wrote $svg"
