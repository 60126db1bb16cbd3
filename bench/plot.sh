#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# bench/plot.sh CSV SVG: fastcpu-bench's tables 1 and 4, or fastcpu-memory-bench's pair by
# size beside each malloc and over processes, as one SVG. Without gnuplot it says so and
# succeeds: the plot is a convenience.
set -eu
csv=$1
svg=$2
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "plot.sh: gnuplot not installed, no $svg"
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Rows are table,key,"case",threads,best,median,worst,processes,unit: told
# apart by their key (what a row measures, kept when its wording changes),
# labelled by their case; the quoted case may hold commas, the other fields
# never do. rows TABLE: its rows as key|case|threads|best|median|worst.
rows() {
	sed -n "s/^$1,\([a-z0-9_.]*\),\"\([^\"]*\)\",\([^,]*\),\([^,]*\),\([^,]*\),\([^,]*\),.*\$/\1|\2|\3|\4|\5|\6/p" \
		"$csv"
}
# A line each key of series.txt (key|title, a file d<n>.dat each): a colour
# of its own (gnuplot's default cycle has 8, the tables up to 11); solid for
# libfastcpu's and librseq's, dashed for what asks glibc, dotted for the rest.
lines() {
	colours="#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #393b79 #ad494a"
	plots="" i=0
	while IFS='|' read -r key title; do
		i=$((i + 1))
		case $key in
		*glibc*) dash=2 ;;
		fastcpu_* | librseq_* | objcache*) dash=1 ;;
		*) dash=3 ;;
		esac
		colour=$(echo $colours | cut -d' ' -f$(((i - 1) % 12 + 1)))
		title=$(printf '%s' "$title" | sed "s/'/''/g")	# gnuplot's quote in quotes
		plots="$plots${plots:+, }'$dir/d$i.dat' using 1:2 title '$title' dashtype $dash lw 1.5 lc rgb '$colour'"
	done <"$dir/$1"
	echo "$plots"
}
# series FILE: key|title|x y lines as d<n>.dat, one a key, FILE naming them.
series() {
	awk -F'|' -v dir="$dir" -v list="$1" '{
		if (!($1 in n)) { n[$1] = ++k; print $1 "|" $2 > (dir "/" list) }
		print $3 > (dir "/d" n[$1] ".dat") }'
}
if grep -q '^8a,' "$csv"; then
	# Table 8 (a), one thread pinned: each allocator's pair by size; and
	# Table 8 (e): the pair, the better floor's and glibc's in each fresh
	# process, best / median / worst over the processes of each setup.
	rows 8a | awk -F'|' '$1 ~ /\.pair_[0-9]+$/ && $3 == 0 {
		split($1, k, "."); sub(/:.*/, "", $2); print k[1] "|" $2 "|" substr(k[2], 6) " " $5 }' |
		series series.txt
	rows 8e | awk -F'|' -v out="$dir/spread.dat" '$1 ~ /_pair_64$/ && $5 != "" {
		split($1, k, "."); setup = $2; sub(/:.*/, "", setup)
		if (!(k[1] in at)) { at[k[1]] = ++n; name[n] = setup }
		v[at[k[1]], k[2]] = $5 " " $4 " " $6 }
		END { for (i = 1; i <= n; i++) print "\"" name[i] "\" " v[i, "objcache_pair_64"] " " \
			v[i, "floor_pair_64"] " " v[i, "glibc_pair_64"] > out }'
	spread="'$dir/spread.dat' using 2:3:4:xtic(1) title 'objcache pair' lc rgb '#1f77b4', \\
	     '' using 5:6:7 title 'the better floor' lc rgb '#2ca02c', '' using 8:9:10 title \"glibc's pair\" lc rgb '#ff7f0e'"
	[ -s "$dir/spread.dat" ] ||	# no process had a setup (qemu-user): the panel says so
		spread="[0:1] [0:1] -1 title 'no process here had an rseq area: n/a, not here'"
	gnuplot <<GP
set terminal svg size 1100,1000 dynamic font 'sans,11'
set output '$svg'
set multiplot
set key outside right top vertical noenhanced
set grid ytics
set size 1,0.55
set origin 0,0.45
set title 'Table 8 (a): an allocation and its free, one thread pinned: CPU ns per pair, median of the rounds'
set xlabel 'bytes'
set ylabel 'ns'
set logscale x 2
set logscale y
set style data linespoints
plot $(lines series.txt)
unset logscale
set xlabel ''
set key outside below center horizontal
set size 1,0.45
set origin 0,0
set title 'Table 8 (e): the pair over fresh processes, 64 bytes: median, bars from best to worst'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set yrange [0:*]
plot $spread
unset multiplot
GP
	echo "plot.sh: wrote $svg"
	exit 0
fi
# Table 1, without the raw empty loop and the system call (which would
# flatten it), as two groups of bars. pairs.dat: a way of asking that
# libfastcpu and glibc both have (keys fastcpu_X and glibc_X), their medians
# side by side, labelled by the case less its "libfastcpu " or "glibc ".
# others.dat: the rest (the inline reads, the floors, the mechanisms
# underneath), one bar each, on a log scale (0.01 ns where nothing was left
# after the empty loop), so that bars of 0.01 ns show beside ones of 20 ns.
rows reading | awk -F'|' -v dir="$dir" '
	$1 == "empty_loop" || $1 == "syscall" { next }
	function way(key, label) {
		if (!(key in lib)) { order[++n] = key; lib[key] = "-"; glibc[key] = "-"; name[key] = label }
	}
	$1 ~ /^fastcpu_/ { k = substr($1, 9); sub(/^libfastcpu /, "", $2); way(k, $2); lib[k] = $5; next }
	$1 ~ /^glibc_/ { k = substr($1, 7); sub(/^glibc /, "", $2); way(k, $2); glibc[k] = $5; next }
	{ other($2, $5) }
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
# Table 4 with threads (threads 0: the one-thread table): a line a counter.
rows counters | awk -F'|' '$3 != 0 { print $1 "|" $2 "|" $3 " " $5 }' | series series.txt
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
plot $(lines series.txt)
unset multiplot
GP
echo "plot.sh: wrote $svg"
