#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# bench/clients.sh LIB [ROUNDS]: real programs that ask for the CPU, built
# against glibc alone, run with and without LIB preloaded, in both rseq
# setups: ns per operation, the median and quartiles of ROUNDS runs
# (default 21) of each, the two alternating in pairs (which goes first
# alternates too), and the ratio as the median of the pairs' ratios with
# their quartiles: a pair's two runs share the machine's moment, so a slow
# moment cancels out of its ratio. Run from the bench build directory; a
# client not built or not installed (liburcu-dev, libjemalloc2,
# rocksdb-tools, lttng-tools and liblttng-ust-dev) is left out, said so.
# FASTCPU_TOOL, the fastcpu command, counts the calls of the clients that
# are not ours.
set -eu
lib=$(realpath "$1")
rounds=${2:-21}
tool=${FASTCPU_TOOL:-}
dir=$(mktemp -d)
chmod 755 "$dir"
sessiond_pid=
cleanup() {
	[ -z "$sessiond_pid" ] || kill "$sessiond_pid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# quartiles FILE: "median (first-third)" of the numbers in FILE.
quartiles() {
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		q1 = v[int((NR + 3) / 4)]; m = v[int((NR + 1) / 2)]; q3 = v[int((3 * NR + 3) / 4)]
		printf "%.2f (%.2f-%.2f)", m, q1, q3 }'
}

# once PRELOAD TUNABLES COMMAND...: one run, its number appended to $out.
once() {
	preload=$1 tunables=$2
	shift 2
	GLIBC_TUNABLES=$tunables LD_PRELOAD=$preload "$@" >>"$out"
}

# row NAME TUNABLES BASE_PRELOAD COMMAND...: the alternating pairs, a line.
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
	paste "$dir/with" "$dir/without" | awk '{ print $1 / $2 }' >"$dir/ratios"
	printf '%-30s %-20s %24s %24s %20s\n' "$name" "${tunables:-glibc registers}" \
		"$(quartiles "$dir/without")" "$(quartiles "$dir/with")" \
		"$(quartiles "$dir/ratios" | sed 's/^\([0-9.]*\)/\1x/')"
}

printf 'Real clients, unmodified: ns per operation, median (quartiles) of %d alternating\n' "$rounds"
printf 'pairs of runs; the ratio is the median (quartiles) of the pairs'"'"' ratios\n'
printf '%-30s %-20s %24s %24s %20s\n' client "rseq setup" "without libfastcpu" \
	"with libfastcpu" "with / without"
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

# calls_per LOG OPERATIONS: fastcpu count's sched_getcpu() calls per operation.
calls_per() {
	awk -v ops="$2" '/^  sched_getcpu\(\): / { printf "%.1f", $2 / ops; found = 1 }
		END { exit !found }' "$1"
}

# RocksDB's db_bench: Get()s of a small database from 2 threads, with its
# statistics on (a per-core sharded counter set, which asks the CPU on each
# update). ns per Get of each thread, from its micros/op.
reads=100000
if command -v db_bench >/dev/null 2>&1 &&
	db_bench --benchmarks=fillseq --db="$dir/rocksdb" --num=100000 \
		--compression_type=none >"$dir/fillseq.log" 2>&1; then
	cat >"$dir/get.sh" <<-EOF
		db_bench --benchmarks=readrandom --use_existing_db=1 --db="$dir/rocksdb" \\
			--num=100000 --reads=$reads --threads=2 --statistics=1 \\
			--compression_type=none 2>&1 |
		awk '/^readrandom / { print \$3 * 1000; found = 1 } END { exit !found }'
	EOF
	for tunables in "" glibc.pthread.rseq=0; do
		row "RocksDB readrandom, 2 threads" "$tunables" "" sh "$dir/get.sh"
	done
	if [ -n "$tool" ] && "$tool" count --children --output "$dir/count" --library "$lib" -- \
		sh "$dir/get.sh" >/dev/null 2>&1 &&
		per=$(calls_per "$dir/count" $((2 * reads))); then
		echo "clients.sh: RocksDB asks sched_getcpu() $per times per Get (fastcpu count)"
	fi
else
	echo "clients.sh: db_bench (rocksdb-tools) not installed or failed: RocksDB left out"
fi

# LTTng-UST: events into a per-CPU ring buffer of a snapshot session (the
# buffer is overwritten, never written to disk) of a session daemon of this
# script's own, in LTTNG_HOME under $dir. Root's daemon would be the
# machine's, so root runs it, and the client, as nobody.
# lttng_start: the daemon and the session up, or a line saying why not.
lttng_start() {
	if [ ! -x ./client-lttng ]; then
		why="liblttng-ust-dev was not installed at configure time"
	elif ! command -v lttng-sessiond >/dev/null 2>&1; then
		why="lttng-tools not installed"
	elif [ "$(id -u)" = 0 ] && ! setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
		why="root cannot run the daemon as nobody"
	else
		why=
	fi
	[ -z "$why" ] || { echo "clients.sh: LTTng left out: $why"; return 1; }
	as_user=
	[ "$(id -u)" != 0 ] || as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	# The client and the library where nobody reads them.
	mkdir -p "$dir/lttng/home"
	cp ./client-lttng "$lib" "$dir/lttng/"
	[ -z "$as_user" ] || chown -R nobody "$dir/lttng"
	# A loaded machine may take more than the default 3 s to register.
	export LTTNG_HOME="$dir/lttng/home" LTTNG_UST_REGISTER_TIMEOUT=30000
	if ! $as_user lttng-sessiond --daemonize --pidfile="$LTTNG_HOME/sessiond.pid" \
		>"$dir/lttng.log" 2>&1; then
		echo "clients.sh: LTTng left out: lttng-sessiond: $(tail -1 "$dir/lttng.log")"
		return 1
	fi
	sessiond_pid=$(cat "$LTTNG_HOME/sessiond.pid")
	for step in "create fastcpu-bench --snapshot --output=$LTTNG_HOME/trace" \
		"enable-channel --userspace --overwrite per-cpu" \
		"enable-event --userspace --channel=per-cpu fastcpu_bench:tick" "start"; do
		# shellcheck disable=SC2086 # the step's words
		if ! $as_user lttng $step >"$dir/lttng.log" 2>&1; then
			echo "clients.sh: LTTng left out: lttng $step: $(tail -1 "$dir/lttng.log")"
			return 1
		fi
	done
}
if lttng_start; then
	events=1000000
	all_lib=$lib lib=$dir/lttng/$(basename "$lib")
	for tunables in "" glibc.pthread.rseq=0; do
		# shellcheck disable=SC2086 # as_user's words
		row "LTTng-UST event, 2 threads" "$tunables" "" $as_user "$dir/lttng/client-lttng" "$events"
	done
	# shellcheck disable=SC2086 # as_user's words
	if [ -n "$tool" ] && $as_user "$tool" count --output "$dir/lttng/count" --library "$lib" -- \
		"$dir/lttng/client-lttng" 100000 >/dev/null 2>&1 &&
		per=$(calls_per "$dir/lttng/count" 200000); then
		echo "clients.sh: LTTng-UST asks sched_getcpu() $per times per event (fastcpu count)"
	fi
	lib=$all_lib
	$as_user lttng destroy fastcpu-bench >/dev/null 2>&1 || true
	kill "$sessiond_pid" 2>/dev/null || true
	sessiond_pid=
fi
