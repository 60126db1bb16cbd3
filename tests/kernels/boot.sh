#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/kernels/boot.sh ARCH KERNEL INITRD LOG SECONDS [MODE]: boots KERNEL with
# INITRD under qemu-system's TCG (no KVM: this machine's nested KVM cannot
# run Debian's kernels), serial console into LOG. Exit 0 once the guest has
# printed "matrix: end", else 1 and one line saying why: a guest still
# running after SECONDS is killed and counts as failed.
#
# Topology: 3 CPUs; nodes 0 (CPUs 0-1) and 1 (CPU 2) with memory, node 2 with
# memory only (the CXL/PMem/HBM case), in 256 MiB steps as ppc64 needs; the
# guest takes CPU 1 offline. The kernel's rseq debug checks are on where the
# kernel has them (6.19+): a write to a field the kernel owns kills the
# writer. FASTCPU_RSEQ_DEBUG=0 boots with them off, as distributions ship.
#
# MODE (default full) is what the guest runs (guest-init.sh): full, the
# whole suite under TCG's threads, with the tool, the benchmark and the
# probes; suite, the Check suite alone, in glibc's setup; exact, the tests of what the kernel does
# to sequences, under instruction counting (-icount shift=auto): the
# guest's clock follows the instructions it runs, so a timer tick lands at
# any instruction, where plain TCG takes interrupts only between
# translated blocks and never preempts a branch-free sequence (an add)
# inside. Counting runs every vCPU on one host thread: a few times slower.
# There an idle guest's clock jumps to its next timer (sleep=off), and the
# kernel is told its delay loop (lpj=) instead of measuring it: x86-64's
# measured it for each CPU under counting for a minute and more, and its
# boot took 200 s where the tests take 5.
set -eu
[ $# = 5 ] || [ $# = 6 ] ||
	{ echo "usage: tests/kernels/boot.sh ARCH KERNEL INITRD LOG SECONDS [full|suite|exact]" >&2; exit 2; }
arch=$1 kernel=$2 initrd=$3 log=$4 seconds=$5 mode=${6:-full}
rseq_debug=${FASTCPU_RSEQ_DEBUG:-1}
smp=3
case $mode in
full | suite) icount= lpj= ;;
exact) icount="-icount shift=auto,sleep=off" lpj=" lpj=4000000" ;;
*) echo "boot.sh: no mode $mode" >&2; exit 2 ;;
esac

numa="-object memory-backend-ram,id=m0,size=512M
	-object memory-backend-ram,id=m1,size=256M
	-object memory-backend-ram,id=m2,size=256M
	-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2,memdev=m1
	-numa node,nodeid=2,memdev=m2"
case $arch in
amd64) qemu="qemu-system-x86_64 -cpu max" console=ttyS0 ;;
# Pointer authentication with qemu's own cipher, not the architected QARMA:
# the same instructions, several times faster to emulate.
arm64) qemu="qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on" console=ttyAMA0 ;;
ppc64el) qemu="qemu-system-ppc64 -M pseries -cpu power9" console=hvc0 ;;
# qemu's riscv virt board makes each node a socket of as many harts as the
# others and cannot give a node no harts: 4 harts in 2 nodes, none memory-only.
riscv64)
	qemu="qemu-system-riscv64 -M virt -cpu rv64" console=ttyS0 smp=4
	numa="-object memory-backend-ram,id=m0,size=512M
		-object memory-backend-ram,id=m1,size=512M
		-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1" ;;
# s390x guests have no NUMA nodes in qemu: one node, the rest still holds.
s390x) qemu="qemu-system-s390x -M s390-ccw-virtio -cpu max" console=ttysclp0 numa= ;;
*) echo "boot.sh: no machine for $arch" >&2; exit 2 ;;
esac

command -v "${qemu%% *}" >/dev/null || {
	echo "boot.sh: no ${qemu%% *}: apt-get install qemu-system-x86 qemu-system-arm qemu-system-ppc qemu-system-misc opensbi" >&2
	exit 2
}

# The guest's serial output goes to LOG as it comes, so that a hung guest
# still shows how far it got.
#
# A kernel that panics or stalls before the first test starts never ran the
# library: TCG's cross-modifying code now and then breaks the kernel's live
# patching (an int3 Oops in a static branch of the scheduler). 7.2.13 amd64
# did so in 6 of 100 boots here, one of them while the guest took CPU 1
# offline, as it did once in CI; one more boot stalled before init. Such a
# boot is tried again, up to 3 boots in all (at 7 in 100, all three fail
# for one kernel in 3000), each said and its log kept; a panic after
# "matrix: tests start" always fails. A kernel reaches init in 3 s here:
# one that has not in FASTCPU_GUEST_INIT_SECONDS (300) has stalled.
init_seconds=${FASTCPU_GUEST_INIT_SECONDS:-300}

# boot_once: one boot into LOG; rc is qemu's exit status, stalled says
# whether it was stopped for not reaching init.
boot_once() {
	rc=0 stalled=no
	# Emptied here, not only by the guest's redirection: the watch below
	# must not read an earlier run's "matrix:" lines before that happens.
	: >"$log"
	# shellcheck disable=SC2086 # options are words by design
	timeout --kill-after=10 "$seconds" $qemu -accel tcg $icount -smp $smp -m 1024M $numa \
		-nographic -no-reboot -nodefaults -serial mon:stdio -kernel "$kernel" \
		-initrd "$initrd" -append "console=$console panic=-1 quiet loglevel=3 rseq_debug=$rseq_debug matrix=$mode$lpj" \
		</dev/null >"$log" 2>&1 &
	guest=$!
	tenths=0
	while ! grep -aq '^matrix: ' "$log" && kill -0 $guest 2>/dev/null; do
		if [ $tenths -ge $((init_seconds * 10)) ]; then
			stalled=yes
			kill $guest # timeout passes it on to qemu
			break
		fi
		sleep 0.1
		tenths=$((tenths + 1))
	done
	wait $guest || rc=$?
}

rm -f "$log".before-tests.*
for attempt in 1 2 3; do
	boot_once
	if grep -aq '^matrix: tests start' "$log" || [ $attempt = 3 ]; then
		break
	elif [ $stalled = yes ]; then
		why="did not reach init in ${init_seconds}s"
	elif grep -aq 'Kernel panic' "$log"; then
		why="panicked before the tests started, $(grep -a -m 1 -o 'RIP: .*' "$log" | tr -d '\r')"
	else
		break
	fi
	mv "$log" "$log.before-tests.$attempt"
	echo "boot.sh: the kernel $why; booting again (its log: $log.before-tests.$attempt)" >&2
done
grep -aq '^matrix: end' "$log" && exit 0
if [ $stalled = yes ]; then
	echo "the kernel did not reach init in ${init_seconds}s"
elif [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "killed: still running after ${seconds}s"
elif grep -aq 'Kernel panic' "$log"; then
	echo "the kernel panicked: $(grep -a -m 1 'Kernel panic' "$log" | tr -d '\r')"
else
	echo "the guest stopped before the end (qemu exit $rc)"
fi
exit 1
