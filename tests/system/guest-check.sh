#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/system/guest-check.sh: /usr/local/sbin/fastcpu-check.sh in the
# guests check-system.sh boots. A transient timer starts it once boot is
# over; it waits for systemd to say how the boot went, looks at every
# process, runs the checker as root, through sudo and in sandboxed services,
# prints what it found on the serial console, each line "system: ...", which
# the host reads, and powers off. It checks nothing itself: the host judges.
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# Each line opens the console afresh: a getty may hang it up in between.
say() {
	printf 'system: %s\n' "$*" >/dev/ttyS0
	printf 'system: %s\n' "$*"
}

# A getty's prompt may end the console's last line.
printf '\n' >/dev/ttyS0
boot=$(sed -n 's/.*fastcpu\.boot=\([^ ]*\).*/\1/p' /proc/cmdline)
say "boot ${boot:-unknown}, kernel $(uname -r), $(nproc) CPUs"
say "state $(timeout 900 systemctl is-system-running --wait 2>&1)"
say "uptime $(cut -d' ' -f1 /proc/uptime) s"
say "ld.so.preload $(cat /etc/ld.so.preload 2>/dev/null || echo none)"
say "environment GLIBC_TUNABLES=${GLIBC_TUNABLES:-unset}"

# A process whose root is another tree read that tree's /etc/ld.so.preload,
# not this one's: the initramfs's udevd, when a slow boot leaves a worker of
# it behind past the switch of roots, or a chroot's. This chrooted sleep is
# one on every boot, so that the host sees such a process told apart.
chroot /opt/fastcpu-outside /usr/bin/sleep 600 &
outsider=$!
tries=0
while [ "$(readlink "/proc/$outsider/exe")" != /opt/fastcpu-outside/usr/bin/sleep ] &&
	[ $tries -lt 100 ]; do
	sleep 0.1
	tries=$((tries + 1))
done

# Every process with a memory map; kernel threads (and zombies) have an
# empty one. A process that ends while we look is not counted, nor is one
# run from another root (named "outside").
system_root=$(stat -L -c %d:%i /)
total=0 mapped=0
for dir in /proc/[0-9]*; do
	grep -q . "$dir/maps" 2>/dev/null || continue
	root=$(stat -L -c %d:%i "$dir/root" 2>/dev/null) || continue
	if [ "$root" != "$system_root" ]; then
		say "outside ${dir#/proc/} $(cat "$dir/comm" 2>/dev/null) $(readlink "$dir/exe" 2>/dev/null)"
		continue
	fi
	if grep -q 'libfastcpu\.so\.0' "$dir/maps" 2>/dev/null; then
		mapped=$((mapped + 1))
	elif [ -e "$dir/maps" ]; then
		say "unmapped ${dir#/proc/} $(cat "$dir/comm" 2>/dev/null) $(readlink "$dir/exe" 2>/dev/null)"
	else
		continue
	fi
	total=$((total + 1))
done
say "maps $mapped of $total processes map libfastcpu.so.0"
kill "$outsider" 2>/dev/null
if grep -q 'libfastcpu\.so\.0' /proc/1/maps; then
	say "pid1 maps $(grep -m 1 'libfastcpu\.so\.0' /proc/1/maps | awk '{ print $6 }')"
else
	say "pid1 maps nothing of libfastcpu"
fi

# run NAME COMMAND...: its output, one "NAME rc=N ..." line per line.
run() {
	name=$1
	shift
	out=$("$@" 2>&1) && rc=0 || rc=$?
	printf '%s\n' "$out" | while IFS= read -r line; do
		say "$name rc=$rc $line"
	done
}
run checker-root /usr/local/bin/getcpu-checker
run checker-nobody sudo -u nobody /usr/local/bin/getcpu-checker
run info fastcpu info
# sudo clears the environment: which backend serves a setuid-started process.
run info-nobody sh -c 'sudo -u nobody fastcpu info | grep "^backend:"'

# The sandboxed services: each runs the checker, then fastcpu info, into
# a file of its own that PID 1 opens before sandboxing.
for unit in filter norseq mdwx; do
	rm -f "/run/fastcpu-sandbox-$unit.out"
	systemctl start "fastcpu-sandbox-$unit.service" 2>/dev/null
	say "sandbox-$unit result=$(systemctl show -P Result "fastcpu-sandbox-$unit.service")" \
		"status=$(systemctl show -P ExecMainStatus "fastcpu-sandbox-$unit.service")"
	while IFS= read -r line; do
		say "sandbox-$unit out $line"
	done <"/run/fastcpu-sandbox-$unit.out"
done

# Last, so that what the checks above did is in them too.
systemctl --failed --plain --no-legend | while read -r unit _; do
	say "failed-unit $unit"
done
journalctl -b -p err --no-pager -o cat | while IFS= read -r line; do
	say "err $line"
done
say "coredumps $(coredumpctl list --no-pager --no-legend 2>/dev/null | wc -l)" \
	"files $(find /var/lib/systemd/coredump -type f 2>/dev/null | wc -l)"
say "end"
systemctl poweroff
