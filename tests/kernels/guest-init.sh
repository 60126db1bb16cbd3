#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/kernels/guest-init.sh: /init of a kernel-matrix guest (busybox sh as
# PID 1). Takes CPU 1 offline, runs the tests on the serial console and
# powers off. Every line the host reads starts with "matrix:"; the host
# treats a guest that never prints "matrix: end" as failed.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# / is the initramfs, in memory and writable: /tmp needs no mount (and the
# build tree may live under it).
. /etc/matrix.env

say() { echo "matrix: $*"; }

say "kernel $(uname -r) $(uname -m)"
# The kernel's rseq debug checks (6.19+, on by boot.sh's rseq_debug=1) say
# whether they are on in debugfs; older kernels have none.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -r /sys/kernel/debug/rseq/debug ]; then
	say "rseq debug checks: $(sed 's/^1$/on/; s/^0$/off/' /sys/kernel/debug/rseq/debug)"
else
	say "rseq debug checks: none in this kernel"
fi
# The node table with a hole in it: a CPU the kernel knows but will not run.
if echo 0 >/sys/devices/system/cpu/cpu1/online; then
	say "cpu1 taken offline"
else
	say "skip: cpu1 cannot be taken offline (no CPU hotplug in this kernel)"
fi
say "cpus online $(cat /sys/devices/system/cpu/online)"
for n in /sys/devices/system/node/node*; do
	[ -e "$n/cpulist" ] && say "$(basename "$n") cpus [$(cat "$n/cpulist")]"
done

# run NAME COMMAND...: one result line, with the Check summary when there is one.
run() {
	name=$1
	shift
	start=$(cut -d. -f1 /proc/uptime)
	# Shown as it comes: a hung guest's log says where it hung.
	{ "$@" 2>&1; echo $? >/tmp/rc; } | tee /tmp/out
	rc=$(cat /tmp/rc)
	# The suite names what it could not do here (its notes end "skipped").
	grep 'skipped$' /tmp/out | sed 's/^/matrix: skip: /'
	checks=$(sed -n 's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' /tmp/out)
	say "result $name rc=$rc checks=[$checks] seconds=$(($(cut -d. -f1 /proc/uptime) - start))"
}

cd "$BUILD/tests"
export LD_LIBRARY_PATH="$BUILD/lib/.libs" FASTCPU_LIB="$BUILD/lib/.libs/libfastcpu.so.0"
# A tenth of the threads and signals, a twentieth of the calls per CPU:
# TCG runs them tens of times slower, and s390x's guests make threads ten
# times slower still (2,000 took more than 5 minutes).
# There a signal handler that asks also outlasts the 50 us timer period.
case $(uname -m) in
s390x) export FASTCPU_STRESS=0.01 FASTCPU_TEST_SIGNAL_US=2000 ;;
*) export FASTCPU_STRESS=0.1 ;;
esac
export FASTCPU_TEST_CALLS=100
# Nothing of the library's has run before this line: boot.sh boots again a
# kernel that panics before it (TCG's fault, not the library's).
say "tests start"
# boot.sh's exact mode: the tests of what the kernel does to sequences, in
# both setups, under instruction counting (one host thread: a smaller
# share of the calls), and what the library decided here.
if grep -q 'matrix=exact' /proc/cmdline; then
	export FASTCPU_STRESS=0.01 FASTCPU_TEST_SIGNAL_US=1000
	run glibc-rseq-exact env CK_RUN_CASE=exact ./check-fastcpu
	run own-rseq-exact env CK_RUN_CASE=exact GLIBC_TUNABLES=glibc.pthread.rseq=0 ./check-fastcpu
	say "sequences $("$BUILD/tools/fastcpu" info | sed -n 's/^sequences: *//p')"
	say end
	sync
	poweroff -f
fi
run glibc-rseq ./check-fastcpu
# boot.sh's suite mode (a kernel kept for one fault): the suite alone, in
# glibc's setup (the exact boot has both).
if grep -q 'matrix=suite' /proc/cmdline; then
	say end
	sync
	poweroff -f
fi
run own-rseq env GLIBC_TUNABLES=glibc.pthread.rseq=0 ./check-fastcpu
# A setup that did not take would test the other one twice.
if ! grep -q '^setup: glibc rseq not registered' /tmp/out; then
	say "glibc registered rseq despite glibc.pthread.rseq=0"
	say "result own-rseq-setup rc=1 checks=[] seconds=0"
fi
run node-table ./node-table
run ctor-probe ./ctor-probe
for backend in auto rseq rdpid vdso syscall; do
	FASTCPU_BACKEND=$backend run "info-$backend" "$BUILD/tools/fastcpu" info
done
run bench "$BUILD/bench/fastcpu-bench" --quick
say end
sync
poweroff -f
