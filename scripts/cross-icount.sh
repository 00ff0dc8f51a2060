#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the fs patch adds to fd_install() on other architectures, by reading
# the compiler's output: builds fs/file.o before and with the fs patch for
# each architecture of ARCHES (default "x86_64 arm64 powerpc"; powerpc is
# ppc64le), and writes the disassembly of fd_install() of each
# (results/bench/cross-ARCH-SIDE.dis) and the instruction counts
# (results/bench/cross-icount.csv: arch,side,insns,branches,calls; calls
# are call relocations, tail calls included).  With the patch it also
# compiles kernel/hazptr.o and counts the same of the out-of-line reader,
# hazptr_acquire() and hazptr_release(), which the lockdep user of
# patches/next/ calls on its fast path (results/bench/cross-hazptr.csv:
# arch,function,insns,branches,calls; listings cross-ARCH-FUNCTION.dis).
#
#   cross-icount.sh      ARCHES="x86_64 arm64 powerpc"
#
# The kernel is each architecture's defconfig with CONFIG_HAZPTR and
# CONFIG_PREEMPT (the bench kernel's preemption model), no debug options:
# the claim is the inline one.  Only fs/file.o is compiled (after 'make
# prepare'), in a work tree of its own ($WORK/cross/linux, a git worktree of
# $TREE) and $WORK/cross/ARCH.  Static counts: which of them a call runs
# depends on the path, which docs/users.md reads off the listings.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arches=${ARCHES:-x86_64 arm64 powerpc}
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
fs_rev=$(user_rev 'fs: ')

out=$RESULTS/bench
mkdir -p "$out"
wt=$WORK/cross/linux
if [ ! -e "$wt/.git" ]; then
	mkdir -p "$WORK/cross"
	git -C "$TREE" worktree add -q --detach "$wt" "$fs_rev" || die "cannot add the work tree $wt"
fi

echo "arch,side,insns,branches,calls" >"$out/cross-icount.csv"
echo "arch,function,insns,branches,calls" >"$out/cross-hazptr.csv"

# count ARCH LABEL LISTING: one CSV row of LISTING's instructions (the
# alignment padding after the last one not counted), branches and calls.
count() {
	awk -v a="$1" -v s="$2" '
		/^ +[0-9a-f]+:/ {
			if ($2 ~ /^(nop|nopw|nopl|data16|xchg)$/) { pad++; next }
			n += pad + 1; pad = 0
			if ($2 ~ /^(j[a-z]*|b|b\.[a-z]+|cbn?z|tbn?z|bl?r?|beq|bne|blt|bgt|ble|bge|bc|bdnz|beqlr|bnelr)$/) br++
		}
		/R_X86_64_PLT32|R_AARCH64_CALL26|R_AARCH64_JUMP26|R_PPC64_REL24/ { calls++ }
		END { printf "%s,%s,%d,%d,%d\n", a, s, n, br, calls }' "$3"
}

# listing OBJDUMP-OUTPUT FUNCTION: the disassembly of FUNCTION.
listing() {
	awk -v f="$2" '$0 ~ "^[0-9a-f]+ <" f ">:" { p = 1 } p && /^$/ { exit } p' "$1"
}
for arch in $arches; do
	case $arch in
	x86_64) cross= karch=x86_64 defconfig=x86_64_defconfig gcc=gcc ;;
	arm64) cross=aarch64-linux-gnu- karch=arm64 defconfig=defconfig gcc=gcc-aarch64-linux-gnu ;;
	powerpc) cross=powerpc64le-linux-gnu- karch=powerpc defconfig=ppc64le_defconfig gcc=gcc-powerpc64le-linux-gnu ;;
	*) die "ARCHES: unknown architecture '$arch' (x86_64 arm64 powerpc)" ;;
	esac
	command -v "${cross}gcc" >/dev/null || die "no ${cross}gcc (package '$gcc': run 'make deps')"
	build=$WORK/cross/$arch
	mk=(make -C "$wt" O="$build" ARCH="$karch" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" -j"$(nproc)" -s)
	for side in base users; do
		rev=$fs_rev
		[ "$side" = users ] || rev=$fs_rev~1
		git -C "$wt" checkout -q --detach "$rev" || die "cannot check out $rev in $wt"
		if [ ! -f "$build/.config" ]; then
			"${mk[@]}" "$defconfig" >/dev/null
			"$wt/scripts/config" --file "$build/.config" -e HAZPTR -d PREEMPT_NONE \
				-d PREEMPT_VOLUNTARY -e PREEMPT
			"${mk[@]}" olddefconfig >/dev/null
			"${mk[@]}" prepare >"$build/prepare.log" 2>&1 ||
				die "make prepare failed for $arch (log: $build/prepare.log)"
		fi
		grep -q '^CONFIG_HAZPTR=y' "$build/.config" || die "$arch: CONFIG_HAZPTR did not stick"
		"${mk[@]}" fs/file.o >"$build/file.log" 2>&1 || die "fs/file.o failed for $arch $side (log: $build/file.log)"
		dis=$out/cross-$arch-$side.dis
		"${cross}objdump" -dr --no-show-raw-insn "$build/fs/file.o" >"$build/file.dis" ||
			die "${cross}objdump failed on $arch's fs/file.o"
		listing "$build/file.dis" fd_install >"$dis"
		[ -s "$dis" ] || die "no fd_install() in $arch's fs/file.o"
		count "$arch" "$side" "$dis" >>"$out/cross-icount.csv"
		note "$arch $side: $(tail -1 "$out/cross-icount.csv")"
	done
	# The tree is at the fs patch: the core is the series'.
	"${mk[@]}" kernel/hazptr.o >"$build/hazptr.log" 2>&1 ||
		die "kernel/hazptr.o failed for $arch (log: $build/hazptr.log)"
	"${cross}objdump" -dr --no-show-raw-insn "$build/kernel/hazptr.o" >"$build/hazptr.dis" ||
		die "${cross}objdump failed on $arch's kernel/hazptr.o"
	for fn in hazptr_acquire hazptr_release; do
		dis=$out/cross-$arch-$fn.dis
		listing "$build/hazptr.dis" "$fn" >"$dis"
		[ -s "$dis" ] || die "no $fn() in $arch's kernel/hazptr.o"
		count "$arch" "$fn" "$dis" >>"$out/cross-hazptr.csv"
	done
done
column -t -s, "$out/cross-icount.csv"
column -t -s, "$out/cross-hazptr.csv"
echo "(listings: ${out#"$TOP"/}/cross-*.dis)"
