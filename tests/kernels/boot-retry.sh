#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/kernels/boot-retry.sh: boot.sh boots again a kernel that panicked
# or stalled before the guest's tests started (TCG's live-patching fault,
# seen in CI as an int3 Oops while the guest took CPU 1 offline), up to 3
# boots, and says so; a panic after "matrix: tests start" fails at once.
# A stand-in qemu on PATH plays each boot's serial output from a plan.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/fastcpu-boot-retry.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
cat >"$work/bin/qemu-system-x86_64" <<'QEMU'
#!/bin/sh
# One boot per call: the plan's next word says how it goes.
n=$(($(cat "$FAKE_DIR/calls" 2>/dev/null || echo 0) + 1))
echo $n >"$FAKE_DIR/calls"
panic() {
	echo "[    3.392162] RIP: 0010:update_sd_lb_stats.constprop.0+0x4d9/0xe40"
	echo "[    3.394689] Kernel panic - not syncing: Fatal exception in interrupt"
}
case $(echo "$FAKE_PLAN" | cut -d, -f$n) in
stall) exec sleep 30 ;;
in-boot) panic ;;
in-setup) echo "matrix: kernel 7.2.13 x86_64"; echo "matrix: rseq debug checks: on"; panic ;;
in-tests) echo "matrix: tests start"; panic ;;
ok) echo "matrix: tests start"; echo "matrix: result glibc-rseq rc=0"; echo "matrix: end" ;;
esac
QEMU
chmod +x "$work/bin/qemu-system-x86_64"

failed=0
# expect PLAN STATUS CALLS KEPT: boot.sh's exit status, the boots it made,
# and the logs it kept of boots it tried again, each said on stderr.
expect() {
	rm -f "$work/calls" "$work"/guest.log.*
	# An earlier run's logs: a kept one, and a whole boot's.
	: >"$work/guest.log.before-tests.1"
	printf 'matrix: tests start\nmatrix: end\n' >"$work/guest.log"
	status=0
	FAKE_PLAN=$1 FAKE_DIR=$work PATH="$work/bin:$PATH" FASTCPU_GUEST_INIT_SECONDS=1 \
		sh "$here/boot.sh" amd64 kernel initrd "$work/guest.log" 60 \
		>"$work/out" 2>"$work/err" || status=$?
	calls=$(cat "$work/calls")
	kept=0
	for f in "$work"/guest.log.before-tests.*; do
		[ -e "$f" ] && kept=$((kept + 1))
	done
	said=$(grep -c '^boot.sh: the kernel .*; booting again' "$work/err" || true)
	[ "$said" = "$kept" ] || kept="$kept (said $said)"
	if [ "$status $calls $kept" = "$2 $3 $4" ]; then
		echo "ok: $1: exit $status after $calls boot(s), $kept kept"
	else
		echo "FAILED: $1: exit $status after $calls boot(s), $kept kept;" \
			"expected exit $2 after $3, $4 kept"
		sed 's/^/  stdout: /' "$work/out"
		sed 's/^/  stderr: /' "$work/err"
		failed=1
	fi
}
# said SOURCE TEXT: the last run's stdout or stderr says TEXT.
said() {
	grep -q "$2" "$work/$1" || { echo "FAILED: boot.sh's $1 does not say: $2"; failed=1; }
}
expect ok 0 1 0
expect in-boot,ok 0 2 1
expect in-setup,ok 0 2 1
said err 'panicked before the tests started, RIP: 0010:update_sd_lb_stats'
expect stall,in-setup,ok 0 3 2
said err 'did not reach init in 1s'
expect in-setup,in-setup,in-setup 1 3 2
said out '^the kernel panicked: .*Fatal exception in interrupt'
expect stall,stall,stall 1 3 2
said out '^the kernel did not reach init in 1s'
expect in-setup,in-tests,ok 1 2 1
expect in-tests,ok 1 1 0
said out '^the kernel panicked: .*Fatal exception in interrupt'
exit $failed
