#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/kernels/fetch.sh DIR ARCH SUITE PACKAGE...: Debian's own packages,
# downloaded and unpacked under DIR without touching the machine's apt setup.
#
# PACKAGE linux-image is the newest kernel of SUITE (or SUITE-security) for
# ARCH, followed from the flavour's metapackage to the package that holds the
# image (linux-image-VERSION, or linux-binary-VERSION since 7.x); other names
# are taken as they are. Each unpacks into DIR/ARCH-SUITE-PACKAGE (kept: a
# second run downloads nothing); prints the directories, one a line.
set -eu
[ $# -ge 4 ] || { echo "usage: tests/kernels/fetch.sh DIR ARCH SUITE PACKAGE..." >&2; exit 2; }
dir=$1 arch=$2 suite=$3
shift 3
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial"
dir=$(realpath "$dir")
apt=$dir/apt

# One private list for the releases and architectures the matrix uses (the
# stable releases and trixie-backports: x86-64 and arm64 only): the suites' Release files are
# checked against the machine's keyring; sid's and experimental's may be
# older than their Valid-Until when a mirror lags.
if [ ! -e "$apt/sources.list" ]; then
	for s in bullseye bookworm trixie; do
		echo "deb [arch=amd64,arm64] http://deb.debian.org/debian $s main"
		echo "deb [arch=amd64,arm64] http://deb.debian.org/debian-security $s-security main"
	done >"$apt/sources.list"
	# The kernels since 6.19, the ones whose rseq broke among them.
	echo "deb [arch=amd64,arm64] http://deb.debian.org/debian trixie-backports main" \
		>>"$apt/sources.list"
	for s in sid experimental; do
		echo "deb [arch=amd64,arm64,ppc64el,s390x,riscv64] http://deb.debian.org/debian $s main"
	done >>"$apt/sources.list"
	: >"$apt/status"
fi
opts="-o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists=$apt/lists -o Dir::State::status=$apt/status
	-o Dir::Cache=$apt -o Dir::Cache::archives=$apt/archives
	-o Dir::Cache::pkgcache=$apt/pkgcache.bin -o Dir::Cache::srcpkgcache=$apt/srcpkgcache.bin
	-o APT::Architecture=amd64 -o APT::Architectures::=arm64
	-o APT::Architectures::=ppc64el -o APT::Architectures::=s390x
	-o APT::Architectures::=riscv64 -o Acquire::Check-Valid-Until=false
	-o Acquire::Languages=none -o APT::Sandbox::User=root
	-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
	-o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false
	-o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false
	-o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false"
# A day-old list is fresh enough; the lock keeps parallel runs apart.
stamp=$apt/lists/.updated
if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
	# shellcheck disable=SC2086 # the options are words by design
	apt-get $opts -qq update >"$apt/update.log" 2>&1 ||
		{ tail -20 "$apt/update.log" >&2; exit 1; }
	touch "$stamp"
fi

# The newest version SUITE (or its security updates) has of PACKAGE.
newest() {
	# shellcheck disable=SC2086
	apt-cache $opts madison "$1:$arch" 2>/dev/null |
		awk -F' *[|] *' -v s="$suite" '
			$3 ~ ("/debian(-security)? " s "(-security)?/") { print $2; exit }'
}

# The package of PACKAGE=VERSION's dependencies that NAME_PREFIX begins.
dependency() {
	# shellcheck disable=SC2086
	apt-cache $opts show "$1:$arch=$2" 2>/dev/null | sed -n 's/^Depends: //p' |
		head -n 1 | tr ',' '\n' | sed 's/^ *//; s/ .*//; s/:.*//' | grep "^$3" | head -n 1
}

for package in "$@"; do
	out=$dir/$arch-$suite-$package
	if [ ! -e "$out/.done" ]; then
		name=$package
		if [ "$package" = linux-image ]; then
			case $arch in
			ppc64el) name=linux-image-powerpc64le ;;
			*) name=linux-image-$arch ;;
			esac
			version=$(newest "$name")
			[ -n "$version" ] ||
				{ echo "fetch.sh: $suite has no $name for $arch" >&2; exit 1; }
			name=$(dependency "$name" "$version" linux-image-)
			binary=$(dependency "$name" "$version" linux-binary-)
			[ -z "$binary" ] || name=$binary
		fi
		version=$(newest "$name")
		[ -n "$version" ] ||
			{ echo "fetch.sh: $suite has no $name for $arch" >&2; exit 1; }
		rm -rf "$out" && mkdir -p "$out"
		# shellcheck disable=SC2086
		(cd "$apt/archives" && apt-get $opts -qq download "$name:$arch=$version") \
			>"$out.log" 2>&1 || { tail -5 "$out.log" >&2; exit 1; }
		deb=$(ls "$apt/archives/${name}_"*"_$arch.deb" | head -n 1)
		dpkg -x "$deb" "$out"
		echo "$name $version" >"$out/.done"
		rm -f "$deb" "$out.log"
	fi
	echo "$out"
done
