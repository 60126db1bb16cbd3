#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/system/check-system.sh DEBS_DIR [WORKDIR]: "make check-system". The
# packages in DEBS_DIR, installed with dpkg as a distribution would, serving
# a whole booted Debian bookworm from /etc/ld.so.preload: PID 1, udev, dbus,
# journald, sudo and sandboxed services all run with the library and must
# boot as cleanly as without it. A bookworm root (debootstrap: systemd,
# udev, dbus, sudo, Debian's kernel and initramfs) becomes an ext4 image
# (mkfs.ext4 -d: no loop device) booted under qemu-system-x86_64 three
# ways, each from a fresh copy: a) no preload, the baseline; b) the preload;
# c) the preload with GLIBC_TUNABLES=glibc.pthread.rseq=0 for every service,
# so that the library registers its own rseq areas. In each guest
# guest-check.sh prints its findings on the serial console; this script
# judges them and prints a table. KVM where it can run Debian's kernel, else
# TCG. Needs root, debootstrap, e2fsprogs, qemu-system-x86, gcc and Debian's
# archive (FASTCPU_DEBIAN_MIRROR). The root (a tarball) and the downloads
# are kept in WORKDIR (default $FASTCPU_SYSTEM_DIR, else
# $TMPDIR/fastcpu-system): a second run only installs and boots.
# "check-system.sh --root-only [WORKDIR]" makes that root and stops (CI makes
# it ahead, beside other work: it waits on the archive more than the CPU).
set -eu
usage() {
	echo "usage: tests/system/check-system.sh DEBS_DIR|--root-only [WORKDIR]" >&2
	exit 2
}
[ $# = 1 ] || [ $# = 2 ] || usage
[ "$(id -u)" = 0 ] || { echo "check-system.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
for tool in debootstrap mkfs.ext4 debugfs qemu-system-x86_64 gcc timeout; do
	command -v "$tool" >/dev/null || {
		echo "check-system.sh: no $tool: apt-get install debootstrap e2fsprogs qemu-system-x86 gcc" >&2
		exit 2
	}
done
here=$(cd "$(dirname "$0")" && pwd)
root_only= debs=
if [ "$1" = --root-only ]; then root_only=yes; else debs=$(realpath "$1"); fi
work=${2:-${FASTCPU_SYSTEM_DIR:-${TMPDIR:-/tmp}/fastcpu-system}}
mirror=${FASTCPU_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# A guest still running after this many seconds is killed and has failed.
seconds=${FASTCPU_SYSTEM_TIMEOUT:-900}
suite=bookworm
lib=/usr/lib/x86_64-linux-gnu/libfastcpu.so.0
mkdir -p "$work"
work=$(realpath "$work")
run=$work/run
root=$run/root

# The packages as dpkg-buildpackage leaves them, one of each (not dbgsym).
packages=
for name in libfastcpu0 libfastcpu-dev fastcpu-tools; do
	[ -z "$root_only" ] || break
	set -- "$debs/${name}"_*_amd64.deb
	if [ $# != 1 ] || [ ! -f "$1" ]; then
		echo "check-system.sh: want one $name .deb in $debs" >&2
		exit 2
	fi
	packages="$packages $1"
done

mounted=
unmount() {
	for dir in $mounted; do umount "$dir" 2>/dev/null || true; done
	mounted=
}
trap unmount EXIT
trap 'exit 130' INT TERM

now() { cut -d. -f1 /proc/uptime; }
phase() { echo "check-system.sh: $1 took $(($(now) - $2)) s"; }

# The root, made once: minbase plus what a booted system needs. Its name
# carries what it was made from, so a change here makes another.
include=systemd,systemd-sysv,udev,dbus,sudo,systemd-coredump
kernel="linux-image-amd64 initramfs-tools"
key=$(printf '%s\n' "$suite" "$mirror" "$include" "$kernel" | sha256sum | cut -c1-12)
tarball=$work/root-$suite-$key.tar.gz
t0=$(now)
if [ -f "$tarball" ]; then
	echo "check-system.sh: reusing $tarball"
	phase "the root (cached)" "$t0"
else
	build=$work/build-root
	rm -rf "$build"
	mkdir -p "$build" "$work/downloads/debootstrap" "$work/downloads/apt"
	debootstrap --variant=minbase --include="$include" \
		--cache-dir="$work/downloads/debootstrap" \
		"$suite" "$build" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log"; exit 1; }
	# The kernel through apt, as a user installs it: its postinst makes the
	# initramfs. The downloads stay in WORKDIR.
	cp /etc/resolv.conf "$build/etc/resolv.conf"
	mount -t proc proc "$build/proc" && mounted="$build/proc"
	mount --bind "$work/downloads/apt" "$build/var/cache/apt/archives" &&
		mounted="$mounted $build/var/cache/apt/archives"
	# shellcheck disable=SC2086 # a list of packages
	chroot "$build" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends $kernel" \
		>"$work/kernel.log" 2>&1 || { tail -20 "$work/kernel.log"; exit 1; }
	unmount
	rm -rf "$build"/var/lib/apt/lists/* "$build/etc/resolv.conf"
	tar --numeric-owner --xattrs -C "$build" -czf "$tarball.part" .
	mv "$tarball.part" "$tarball"
	rm -rf "$build"
	phase "the root (debootstrap, kernel, initramfs)" "$t0"
fi
[ -z "$root_only" ] || exit 0

# A fresh root each run: the packages installed with dpkg, the checker,
# the guest's script and units, then one image.
t0=$(now)
rm -rf "$run"
mkdir -p "$root"
tar --numeric-owner --xattrs -C "$root" -xzf "$tarball"
mkdir -p "$root/tmp/debs"
# shellcheck disable=SC2086 # a list of files
cp $packages "$root/tmp/debs/"
chroot "$root" sh -c 'dpkg -i /tmp/debs/*.deb' >"$run/dpkg.log" 2>&1 ||
	{ tail -20 "$run/dpkg.log"; exit 1; }
rm -rf "$root/tmp/debs"
if [ ! -f "$root$lib" ] || [ ! -x "$root/usr/bin/fastcpu" ]; then
	echo "check-system.sh: the packages installed no $lib or fastcpu" >&2
	exit 1
fi
# Built on the host against bookworm's glibc, which the guest has too.
gcc -O2 -Wall -pthread "$here/getcpu-checker.c" -o "$root/usr/local/bin/getcpu-checker"
install -m 755 "$here/guest-check.sh" "$root/usr/local/sbin/fastcpu-check.sh"
# A root of its own, with no /etc/ld.so.preload, for the guest's outsider:
# sleep and what the root's loader says it loads.
outside=$root/opt/fastcpu-outside
for file in /usr/bin/sleep $(chroot "$root" ldd /usr/bin/sleep | grep -o '/[^ ]*'); do
	mkdir -p "$outside$(dirname "$file")"
	cp "$root$(chroot "$root" readlink -f "$file")" "$outside$file"
done

echo fastcpu-system >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 fastcpu-system\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"
units=$root/etc/systemd/system
# A unit of the boot transaction cannot wait for the boot to end: this one
# leaves a timer that starts the checks once it has.
cat >"$units/fastcpu-check-arm.service" <<'EOF'
[Unit]
Description=Arm the libfastcpu system checks

[Service]
Type=oneshot
ExecStart=/usr/bin/systemd-run --on-active=20s --unit=fastcpu-check /usr/local/sbin/fastcpu-check.sh

[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$units/multi-user.target.wants"
ln -s ../fastcpu-check-arm.service "$units/multi-user.target.wants/"
# Services sandboxed as distributions ship them: each runs the checker
# and says which backend serves it.
sandbox() {
	cat >"$units/fastcpu-sandbox-$1.service" <<EOF
[Unit]
Description=libfastcpu in a sandboxed service ($1)

[Service]
Type=oneshot
ExecStart=/usr/local/bin/getcpu-checker
ExecStart=/usr/bin/fastcpu info
StandardOutput=append:/run/fastcpu-sandbox-$1.out
StandardError=inherit
$2
EOF
}
sandbox filter "NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service"
sandbox norseq "SystemCallFilter=~rseq
SystemCallErrorNumber=EPERM"
sandbox mdwx "MemoryDenyWriteExecute=yes
RestrictNamespaces=yes"

base=$run/base.ext4
# The root plus room for a journal and core dumps.
size=$(($(du -sm "$root" | cut -f1) * 5 / 4 + 512))
mkfs.ext4 -q -F -L fastcpu-root -d "$root" "$base" "${size}M" >"$run/mkfs.log" 2>&1 ||
	{ cat "$run/mkfs.log"; exit 1; }
# The root's own kernel and initramfs boot it; the root itself is done.
version=$(find "$root/boot" -name 'vmlinuz-*' | sed 's,.*/vmlinuz-,,' | sort -V | tail -n 1)
kernel_image=$run/vmlinuz-$version
initrd=$run/initrd.img-$version
cp "$root/boot/vmlinuz-$version" "$kernel_image"
cp "$root/boot/initrd.img-$version" "$initrd"
rm -rf "$root"
echo "$lib" >"$run/ld.so.preload"
printf '[Manager]\nDefaultEnvironment=GLIBC_TUNABLES=glibc.pthread.rseq=0\n' >"$run/rseq-off.conf"
phase "unpacking the root, installing the packages, making the image (${size} MiB)" "$t0"

# kvm where it runs Debian's kernel, else tcg. A nested KVM may open and
# still not run it (this machine's PVM: qemu aborts with -cpu host, and
# hangs before the kernel's first line with other models), so the kernel
# is booted once without a root: under a working KVM it panics for want of
# one within seconds.
accel=${FASTCPU_SYSTEM_ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		timeout --kill-after=5 30 qemu-system-x86_64 -accel kvm -cpu host -smp 2 -m 512M \
			-nographic -no-reboot -nodefaults -serial mon:stdio -kernel "$kernel_image" \
			-append "console=ttyS0 panic=-1" </dev/null >"$run/kvm-probe.log" 2>&1 || true
		if grep -aq 'Kernel panic' "$run/kvm-probe.log"; then
			accel=kvm
		else
			echo "check-system.sh: KVM cannot run Debian's kernel here ($(grep -a -m 1 . "$run/kvm-probe.log" | tr -d '\r' | cut -c1-80)): TCG"
		fi
	fi
fi

# boot NAME: NAME's image (a fresh copy of the base, edited with debugfs)
# booted until it powers off; its "system:" lines into $run/NAME.found.
boot() {
	image=$run/$1.ext4
	log=$run/$1.log
	cp --sparse=always "$base" "$image"
	case $1 in
	b-preload) debugfs -w -R "write $run/ld.so.preload /etc/ld.so.preload" "$image" ;;
	c-own-rseq)
		debugfs -w -f - "$image" <<-EOF
			write $run/ld.so.preload /etc/ld.so.preload
			mkdir /etc/systemd/system.conf.d
			write $run/rseq-off.conf /etc/systemd/system.conf.d/fastcpu-rseq-off.conf
		EOF
		;;
	esac >"$run/$1.debugfs.log" 2>&1
	case $accel in
	kvm) cpu=host ;;
	*) cpu=max ;;
	esac
	rc=0
	timeout --kill-after=10 "$seconds" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" \
		-smp 2 -m 2048M -nographic -no-reboot -nodefaults -serial mon:stdio \
		-drive "file=$image,format=raw,if=virtio" \
		-kernel "$kernel_image" -initrd "$initrd" \
		-append "root=/dev/vda rw console=ttyS0 quiet panic=-1 fastcpu.boot=$1" \
		</dev/null >"$log" 2>&1 || rc=$?
	tr -d '\r' <"$log" | sed -n 's/^system: //p' >"$run/$1.found"
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "check-system.sh: $1: killed, still running after ${seconds} s" >&2
	elif ! grep -qx end "$run/$1.found"; then
		echo "check-system.sh: $1: the guest stopped before the end (qemu exit $rc); $log:" >&2
		tail -n 15 "$log" >&2
	fi
	rm -f "$image"
}

# Findings and verdicts: one "CHECK BOOT ok|FAILED|-" line each.
verdicts=$run/verdicts
: >"$verdicts"
verdict() {
	echo "$1 $2 $3" >>"$verdicts"
}
# found BOOT PREFIX: the findings of BOOT that start with PREFIX, without it.
found() {
	sed -n "s/^$2 //p" "$run/$1.found"
}
# is BOOT CHECK CONDITION...: a verdict from a shell test; a guest that
# never finished has failed them all, even those nothing found would pass.
is() {
	b=$1 c=$2
	shift 2
	if grep -qx end "$run/$b.found" && "$@"; then
		verdict "$c" "$b" ok
	else
		verdict "$c" "$b" FAILED
	fi
}
has() { grep -q "$@"; }

# The boots side by side: a TCG guest keeps about one host CPU busy.
t0=$(now)
for name in a-baseline b-preload c-own-rseq; do
	(boot "$name" && phase "booting $name ($accel)" "$t0") >"$run/$name.phase" 2>&1 &
done
wait
for name in a-baseline b-preload c-own-rseq; do
	cat "$run/$name.phase"
	echo "--- $name: what the guest found"
	sed 's/^/  /' "$run/$name.found"
done

rm -f "$base"

# The baseline's failed units and error lines are what the others may have.
found a-baseline failed-unit | sort >"$run/failed.baseline"
found a-baseline err | sort -u >"$run/err.baseline"
for b in a-baseline b-preload c-own-rseq; do
	f=$run/$b.found
	is "$b" booted true
	is "$b" running has -qx 'state running' "$f"
	found "$b" failed-unit | sort >"$run/failed.$b"
	if [ "$b" = a-baseline ]; then
		is "$b" "failed-units(a:none)" test ! -s "$run/failed.$b"
		verdict errors-not-in-baseline "$b" -
	else
		is "$b" "failed-units(a:none)" cmp -s "$run/failed.baseline" "$run/failed.$b"
		found "$b" err | sort -u | comm -23 - "$run/err.baseline" >"$run/err.new.$b"
		is "$b" errors-not-in-baseline test ! -s "$run/err.new.$b"
		sed "s/^/check-system.sh: $b: error not in the baseline: /" "$run/err.new.$b"
	fi
	is "$b" no-coredumps has -qx 'coredumps 0 files 0' "$f"
	# Every process with a memory map maps the library, PID 1 first; in the
	# baseline none does, so that it is one.
	counts=$(found "$b" maps | sed -n 's/^\([0-9]*\) of \([0-9]*\) processes.*/\1 \2/p')
	# A process run from another root is named and not counted; the
	# guest's chrooted sleep is one in every boot.
	is "$b" outside-root-apart has -qx 'outside [0-9]* sleep /opt/fastcpu-outside/usr/bin/sleep' "$f"
	if [ "$b" = a-baseline ]; then
		is "$b" "lib-in-all-procs(a:none)" test "${counts%% *}" = 0 -a -n "${counts#* }"
		is "$b" "lib-in-pid1(a:not)" has -qx 'pid1 maps nothing of libfastcpu' "$f"
	else
		is "$b" "lib-in-all-procs(a:none)" test -n "$counts" -a "${counts%% *}" = "${counts#* }" -a "${counts#* }" != 0
		is "$b" "lib-in-pid1(a:not)" has -q "^pid1 maps $lib" "$f"
	fi
	is "$b" checker-root has -qx 'checker-root rc=0 checker: right, 4 threads' "$f"
	is "$b" checker-sudo-nobody has -qx 'checker-nobody rc=0 checker: right, 4 threads' "$f"
	# Which backend serves a service of this boot: glibc's area where glibc
	# registered one, the library's own where the tunable forbade glibc's.
	case $b in
	c-own-rseq) own='rseq (own)' ;;
	*) own='rseq (glibc)' ;;
	esac
	is "$b" info-backend has -qx "info rc=0 backend: *$own" "$f"
	for unit in filter norseq mdwx; do
		ok=true
		has -qx "sandbox-$unit result=success status=0" "$f" || ok=false
		has -qx "sandbox-$unit out checker: right, 4 threads" "$f" || ok=false
		backend=$(found "$b" "sandbox-$unit out backend:" | sed 's/^ *//')
		case $unit in
		# rseq refused with EPERM: glibc's registration fails too, so
		# in boot b as in c there is no area in the process, and the
		# library's own attempt fails the same way: a fallback serves,
		# RDPID where the CPU has it (KVM), else the vDSO (TCG's CPU
		# has no RDPID), else the system call.
		norseq) case $backend in rdpid* | vdso* | syscall*) ;; *) ok=false ;; esac ;;
		*) [ "$backend" = "$own" ] || ok=false ;;
		esac
		is "$b" "sandbox-$unit" $ok
	done
done

# The table: one row per check, one column per boot.
echo
awk '
	{ if (!($1 in row)) { order[++n] = $1; row[$1] = 1 } cell[$1, $2] = $3 }
	END {
		printf "%-26s %-12s %-12s %-12s\n", "check", "a-baseline", "b-preload", "c-own-rseq"
		for (i = 1; i <= n; i++)
			printf "%-26s %-12s %-12s %-12s\n", order[i], cell[order[i], "a-baseline"],
				cell[order[i], "b-preload"], cell[order[i], "c-own-rseq"]
	}' "$verdicts"
if grep -q ' FAILED$' "$verdicts"; then
	echo "check-system.sh: FAILED ($(grep -c ' FAILED$' "$verdicts") checks); logs in $run"
	exit 1
fi
echo "check-system.sh: every check passed in every boot"
