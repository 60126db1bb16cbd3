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
# Table 1 without the raw empty loop and the syscall, which would flatten it.
# Rows are table,"case",threads,best_ns,median_ns; the quoted case may hold
# commas, the other fields never do.
sed -n 's/^reading,\("[^"]*"\),[^,]*,[^,]*,\([^,]*\)$/\1 \2/p' "$csv" |
	grep -v -e '^"empty loop' -e 'system call' >"$dir/reading.dat"
# Table 4: one file a counter, c1.dat ..., its name in names.txt.
sed -n 's/^counters,"\([^"]*\)",\([^,]*\),[^,]*,\([^,]*\)$/\1|\2 \3/p' "$csv" |
	awk -F'|' -v dir="$dir" '{
		if (!($1 in n)) { n[$1] = ++k; print $1 > (dir "/names.txt") }
		print $2 > (dir "/c" n[$1] ".dat") }'
plots=""
i=0
while IFS= read -r title; do
	i=$((i + 1))
	plots="$plots${plots:+, }'$dir/c$i.dat' using 1:2 title '$title'"
done <"$dir/names.txt"
gnuplot <<GP
set terminal svg size 1000,900 dynamic font 'sans,11'
set output '$svg'
set multiplot layout 2,1
set title 'Reading the current CPU: median ns per call, empty loop subtracted'
set style data histogram
set style fill solid 0.7
set boxwidth 0.8
set xtics rotate by 35 right noenhanced
set bmargin 9
set ylabel 'ns'
set grid ytics
unset key
plot '$dir/reading.dat' using 2:xtic(1)
set title 'Counter increments: ns per increment per thread'
set style data linespoints
set xtics norotate enhanced
set bmargin 4
set xlabel 'threads'
set logscale x 2
set logscale y
set key left top noenhanced
plot $plots
unset multiplot
GP
echo "plot.sh: wrote $svg"
