#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the bzImage of kernel NAME in $BUILD/NAME (configuring it first when
# its fragments or the tree's Kconfig files changed since the last config.sh).
#
#   build.sh NAME
#
# Compiles with CC="ccache gcc" (CCACHE_DIR defaults to ~/.cache/ccache, which
# 'make clean' keeps) and JOBS=3 parallel jobs. Prints the image path on
# stdout. On failure: the last 40 lines of $BUILD/NAME/build.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

[ $# = 1 ] || die "usage: build.sh NAME (known: $(known_kernels))"
name=$1
check_kernel "$name"
need ccache ccache
need gcc build-essential
is_uint "$JOBS" JOBS
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
if ! make -C "$TREE" O="$out" -j"$JOBS" CC="$KCC" bzImage >"$log" 2>&1; then
	echo "---- last 40 lines of $log ----" >&2
	tail -40 "$log" >&2
	die "build of kernel '$name' failed after $(( $(date +%s) - start ))s (log: $log)"
fi
image=$out/arch/x86/boot/bzImage
[ -f "$image" ] || die "build of '$name' succeeded but $image is missing"
note "built $name in $(( $(date +%s) - start ))s: $image"
echo "$image"
