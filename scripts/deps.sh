#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package the project needs. Idempotent.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Target tree, kernel build, guest (TCG), initramfs userspace (busybox,
# stress-ng, iproute2), static checks (make check-series), benchmark plots
# liburcu, which the native bench (tools/testing/hazptr) compares with, and
# perf, which profiles QEMU itself (bench-fdinstall.sh PROFILE=), and spin,
# the model checker of models/ (scripts/model.sh), and the arm64 and ppc64el
# cross compilers for the users' instruction counts (scripts/cross-icount.sh),
# and the arm64 guest: QEMU's virt machine, and static glibc for its
# programs (its busybox is unpacked below).
PACKAGES=(
	linux-source-6.12
	build-essential bc bison flex libelf-dev libssl-dev dwarves
	ccache cpio xz-utils kmod rsync python3 python3-ply python3-git
	qemu-system-x86
	busybox-static stress-ng iproute2
	sparse coccinelle
	gnuplot-nox
	liburcu-dev
	linux-perf
	spin
	gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu
	qemu-system-arm libc6-dev-arm64-cross qemu-user
	git
)

[ "$(id -u)" = 0 ] || die "must run as root to install packages (try: sudo make deps)"
command -v apt-get >/dev/null || die "apt-get not found: this project targets Debian 12"
export DEBIAN_FRONTEND=noninteractive
# arm64's package lists, for the arm64 guest's busybox.
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64 ||
	die "dpkg --add-architecture arm64 failed"
apt-get update -q || die "apt-get update failed"
apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" ||
	die "apt-get install failed for: ${PACKAGES[*]}"
[ -f "$TARBALL" ] || die "$TARBALL missing after installing linux-source-6.12"

# The arm64 guest's busybox (scripts/qemu/arm64.conf): Debian's
# busybox-static for arm64, of the host's version (whose applet list
# initramfs.sh uses), cannot be installed beside the host's: download and
# unpack it into work/arm64/.
bb=$WORK/arm64/busybox
ver=$(dpkg-query -W -f '${Version}' busybox-static)
if [ ! -x "$bb" ] || [ "$(cat "$bb.version" 2>/dev/null)" != "$ver" ]; then
	tmp=$(mktemp -d)
	# apt downloads as its _apt user where that user can write.
	chown _apt "$tmp" 2>/dev/null || true
	(cd "$tmp" && apt-get download -q "busybox-static:arm64=$ver") ||
		die "cannot download busybox-static:arm64=$ver"
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/x" ||
		die "cannot unpack busybox-static:arm64"
	install -D -m 755 "$tmp/x/bin/busybox" "$bb"
	echo "$ver" >"$bb.version"
	rm -rf "$tmp"
fi
note "all packages installed"
