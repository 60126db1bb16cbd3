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
# Rows are table,key,"case",threads,best_ns,median_ns: rows are told apart by
# their key (what a row measures, kept when its wording changes), named by
# their case; the quoted case may hold commas, the other fields never do.
#
# Table 1, without the raw empty loop and the system call (which would
# flatten it), as two groups of bars. pairs.dat: a way of asking that
# libfastcpu and glibc both have (keys fastcpu_X and glibc_X), their medians
# side by side, labelled by the case less its "libfastcpu " or "glibc ".
# others.dat: the rest (the inline reads, the floors, the mechanisms
# underneath), one bar each, on a log scale (0.01 ns where nothing was left
# after the empty loop), so that bars of 0.01 ns show beside ones of 20 ns.
sed -n 's/^reading,\([a-z0-9_]*\),"\([^"]*\)",[^,]*,[^,]*,\([^,]*\)$/\1|\2|\3/p' "$csv" |
	awk -F'|' -v dir="$dir" '
		$1 == "empty_loop" || $1 == "syscall" { next }
		function way(key, label) {
			if (!(key in lib)) { order[++n] = key; lib[key] = "-"; glibc[key] = "-"; name[key] = label }
		}
		$1 ~ /^fastcpu_/ { k = substr($1, 9); sub(/^libfastcpu /, "", $2); way(k, $2); lib[k] = $3; next }
		$1 ~ /^glibc_/ { k = substr($1, 7); sub(/^glibc /, "", $2); way(k, $2); glibc[k] = $3; next }
		{ other($2, $3) }
		function other(label, ns) { print "\"" label "\" " (ns > 0.01 ? ns : 0.01) > (dir "/others.dat") }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				if (lib[k] == "-" || glibc[k] == "-")
					other((lib[k] == "-" ? "glibc " : "") name[k], lib[k] == "-" ? glibc[k] : lib[k])
				else
					print "\"" name[k] "\" " lib[k] " " glibc[k] > (dir "/pairs.dat")
			}
		}'
# Table 4 with threads (threads 0: the one-thread table): one file a
# counter, c1.dat ..., its key and name in series.txt.
sed -n 's/^counters,\([a-z0-9_]*\),"\([^"]*\)",\([^,]*\),[^,]*,\([^,]*\)$/\1|\2|\3 \4/p' "$csv" |
	awk -F'|' -v dir="$dir" '$3 !~ /^0 / {
		if (!($1 in n)) { n[$1] = ++k; print $1 "|" $2 > (dir "/series.txt") }
		print $3 > (dir "/c" n[$1] ".dat") }'
# A counter's line: a colour of its own (gnuplot's default cycle has 8, the
# table up to 11 counters); solid for the per-CPU adds (libfastcpu's and
# librseq's), dashed for those that ask glibc, dotted for the rest (one
# global counter, the reference).
colours="#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #393b79 #ad494a"
plots=""
i=0
while IFS='|' read -r key title; do
	i=$((i + 1))
	case $key in
	*glibc*) dash=2 ;;
	fastcpu_* | librseq_*) dash=1 ;;
	*) dash=3 ;;
	esac
	colour=$(echo $colours | cut -d' ' -f$(((i - 1) % 12 + 1)))
	plots="$plots${plots:+, }'$dir/c$i.dat' using 1:2 title '$title' dashtype $dash lw 1.5 lc rgb '$colour'"
done <"$dir/series.txt"
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
set title 'inline reads, floors and mechanisms underneath (log scale)'
set ylabel ''
set logscale y
set yrange [0.005:*]
plot '$dir/others.dat' using 2:xtic(1) lc rgb '#7f7f7f'
unset logscale y
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
