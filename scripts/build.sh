#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the image of kernel NAME in $BUILD/NAME (configuring it first when
# its fragments or the tree's Kconfig files changed since the last config.sh):
# for its architecture ("# arch:" in configs/kernels/NAME), the make target
# and cross compiler of scripts/qemu/ARCH.conf.
#
#   build.sh NAME
#
# Compiles with CC="ccache gcc" (KCC overrides it), or ccache and the cross
# gcc, CCACHE_DIR defaulting to ~/.cache/ccache, which 'make clean' keeps,
# and JOBS=3 parallel jobs. Prints the image path on
# stdout. On failure: the last 40 lines of $BUILD/NAME/build.log. A kernel
# with CONFIG_MODULES=y also gets $BUILD/NAME/modules.cpio.gz.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

[ $# = 1 ] || die "usage: build.sh NAME (known: $(known_kernels))"
name=$1
check_kernel "$name"
need ccache ccache
is_uint "$JOBS" JOBS
arch=$(kernel_arch "$name")
arch_conf "$arch"
need "${CROSS_COMPILE}gcc" "$CROSS_PACKAGE"
[ -f "$TREE/Makefile" ] || die "no kernel tree at $TREE (run 'make' or scripts/prepare-tree.sh)"

out=$BUILD/$name
log=$out/build.log
# Reconfigure when a fragment, the kernel's fragment list or any Kconfig
# file of the tree changed (new symbols appear when the series lands).
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.hazptr-config-stamp" 2>/dev/null)" != "$(config_stamp "$name")" ]; then
	"$TOP/scripts/config.sh" "$name"
fi

mkdir -p "$CCACHE_DIR"
note "building $name (make -j$JOBS, ccache in $CCACHE_DIR, log: $log)"
start=$(date +%s)
K() { make -C "$TREE" O="$out" ARCH="$arch" CROSS_COMPILE="$CROSS_COMPILE" -j"$JOBS" CC="$kcc" "$@"; }
if ! K "$KERNEL_TARGET" >"$log" 2>&1; then
	echo "---- last 40 lines of $log ----" >&2
	tail -40 "$log" >&2
	die "build of kernel '$name' failed after $(( $(date +%s) - start ))s (log: $log)"
fi
image=$out/$QEMU_IMAGE
[ -f "$image" ] || die "build of '$name' succeeded but $image is missing"
# A kernel with modules gets them as a second cpio archive, which boot.sh
# appends to the initramfs (the kernel unpacks concatenated archives).
rm -f "$out/modules.cpio.gz"
if grep -qx 'CONFIG_MODULES=y' "$out/.config"; then
	need depmod kmod
	need cpio cpio
	rm -rf "$out/modroot"
	if ! { K modules && K INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 modules_install; } >>"$log" 2>&1; then
		tail -40 "$log" >&2
		die "modules of kernel '$name' failed to build (log: $log)"
	fi
	(cd "$out/modroot" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 | gzip -9n) \
		>"$out/modules.cpio.gz" || die "cannot pack the modules of '$name'"
fi
note "built $name in $(( $(date +%s) - start ))s: $image"
echo "$image"
