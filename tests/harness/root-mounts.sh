# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/harness/root-mounts.sh: sourced by the scripts that test inside a
# Debian root. The host's /proc, /sys and /dev are mounted into it, so taking
# them out must never fail quietly: a root removed while /dev is still bound
# in removes the host's device nodes.

# root_mount ROOT: /proc, /sys and /dev in ROOT (affinity, NUMA nodes,
# /dev/null).
root_mount() {
	mount -t proc proc "$1/proc"
	mount --rbind /sys "$1/sys"
	mount --rbind /dev "$1/dev"
}

# root_mounted ROOT: prints each mount point still at or below ROOT.
root_mounted() {
	awk -v root="$1" '$5 == root || index($5, root "/") == 1 { print $5 }' /proc/self/mountinfo
}

# root_unmount ROOT: ends what still runs in ROOT, then detaches its mounts.
# A lazy detach takes a bound tree whole: a container copies the host's
# submounts of /sys and /dev locked to their parent, where "umount -R"
# fails on the first child and leaves all of them. Fails if any remains.
root_unmount() {
	local pid dir
	for pid in $(ls /proc | grep -E '^[0-9]+$'); do
		if [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$1" ]; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
	for dir in dev sys proc; do
		if root_mounted "$1/$dir" | grep -q .; then
			umount -R -l "$1/$dir" 2>/dev/null || true
		fi
	done
	if root_mounted "$1" | grep -q .; then
		echo "root-mounts.sh: still mounted under $1:" $(root_mounted "$1") >&2
		return 1
	fi
}

# root_remove ROOT: ROOT removed, never across a mount point.
root_remove() {
	root_unmount "$1" || return 1
	rm -rf --one-file-system "$1"
}
