#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# bench/clients.sh LIB [ROUNDS]: real programs that ask for the CPU, built
# against glibc alone, run with and without LIB preloaded, in both rseq
# setups: ns per operation, the median of ROUNDS runs (default 11) of each,
# the two alternating (which goes first alternates too), with the range.
# Run from the bench build directory; a client not built or not installed
# (liburcu-dev, libjemalloc2) is left out, said so.
set -eu
lib=$(realpath "$1")
rounds=${2:-11}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
range() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.2f-%.2f", v[1], v[NR] }'; }

# once PRELOAD TUNABLES COMMAND...: one run, its number appended to $out.
once() {
	preload=$1 tunables=$2
	shift 2
	GLIBC_TUNABLES=$tunables LD_PRELOAD=$preload "$@" >>"$out"
}

# row NAME TUNABLES BASE_PRELOAD COMMAND...: the alternating runs, a line.
row() {
	name=$1 tunables=$2 base=$3
	shift 3
	with="${base:+$base }$lib"
	: >"$dir/without"
	: >"$dir/with"
	i=0
	while [ "$i" -lt "$rounds" ]; do
		if [ $((i % 2)) = 0 ]; then
			out=$dir/without once "$base" "$tunables" "$@"
			out=$dir/with once "$with" "$tunables" "$@"
		else
			out=$dir/with once "$with" "$tunables" "$@"
			out=$dir/without once "$base" "$tunables" "$@"
		fi
		i=$((i + 1))
	done
	a=$(median "$dir/without") b=$(median "$dir/with")
	printf '%-30s %-20s %8.2f %-15s %8.2f %-15s %6.2fx\n' "$name" \
		"${tunables:-glibc registers}" "$a" "($(range "$dir/without"))" \
		"$b" "($(range "$dir/with"))" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
}

printf 'Real clients, unmodified: ns per operation, median (range) of %d alternating runs\n' "$rounds"
printf '%-30s %-20s %24s %24s %7s\n' client "rseq setup" "without libfastcpu" \
	"with libfastcpu" "ratio"
jemalloc=$(ldconfig -p 2>/dev/null | awk '/libjemalloc\.so\.2 /{ print $NF; exit }')
for tunables in "" glibc.pthread.rseq=0; do
	row "per-CPU counter (own code)" "$tunables" "" ./client-counter
	if [ -x ./client-rcu ]; then
		row "liburcu call_rcu, per-CPU" "$tunables" "" ./client-rcu
	fi
	if [ -n "$jemalloc" ]; then
		MALLOC_CONF=percpu_arena:percpu row "jemalloc percpu_arena malloc" \
			"$tunables" "$jemalloc" ./client-malloc
	fi
done
[ -x ./client-rcu ] || echo "clients.sh: liburcu-dev was not installed at configure time: liburcu left out"
[ -n "$jemalloc" ] || echo "clients.sh: libjemalloc2 not installed: jemalloc left out"
