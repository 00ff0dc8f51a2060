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
# and the arm64 guest: QEMU's virt machine, static glibc for its programs,
# and qemu-aarch64 for the harness (its busybox: initramfs.sh).
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
note "all packages installed"
