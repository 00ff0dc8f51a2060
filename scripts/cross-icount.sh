#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the fs patch adds to fd_install() on other architectures, by reading
# the compiler's output: builds fs/file.o before and with the fs patch for
# each architecture of ARCHES (default "x86_64 arm64 powerpc"; powerpc is
# ppc64le), and writes the disassembly of fd_install() of each
# (results/bench/cross-ARCH-SIDE.dis) and the instruction counts
# (results/bench/cross-icount.csv: arch,side,insns,branches,calls; calls
# are call relocations, tail calls included).  It also counts the reader
# hazptr_acquire() + hazptr_release() at a call site, refscale's
# ref_hazptr_section() (built in: the inline path), before the patch that
# inlines them ('before': the loop calls them out of line, whose functions
# are counted too) and with it ('after'; its out-of-line slow paths
# __hazptr_acquire() and __hazptr_release() as well), in
# results/bench/cross-hazptr.csv (arch,side,function,insns,branches,calls;
# listings cross-ARCH-SIDE-FUNCTION.dis).
#
#   cross-icount.sh      ARCHES="x86_64 arm64 powerpc"
#
# The kernel is each architecture's defconfig with CONFIG_HAZPTR,
# CONFIG_PREEMPT (the bench kernel's preemption model) and refscale built
# in, no hazptr debug options: the readers are the inline ones.  Only
# fs/file.o, kernel/hazptr.o and kernel/rcu/refscale.o are compiled (after
# 'make prepare'), in a work tree of its own ($WORK/cross/linux, a git worktree of
# $TREE) and $WORK/cross/ARCH.  Static counts: which of them a call runs
# depends on the path, which docs/users.md reads off the listings.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arches=${ARCHES:-x86_64 arm64 powerpc}
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
fs_rev=$(user_rev 'fs: ')
inline_rev=$(user_rev 'hazptr: Inline the reader')

out=$RESULTS/bench
mkdir -p "$out"
wt=$WORK/cross/linux
if [ ! -e "$wt/.git" ]; then
	mkdir -p "$WORK/cross"
	git -C "$TREE" worktree add -q --detach "$wt" "$fs_rev" || die "cannot add the work tree $wt"
fi

echo "arch,side,insns,branches,calls" >"$out/cross-icount.csv"
echo "arch,side,function,insns,branches,calls" >"$out/cross-hazptr.csv"

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
		fi
		if ! grep -q '^CONFIG_RCU_REF_SCALE_TEST=y' "$build/.config"; then
			"$wt/scripts/config" --file "$build/.config" -e HAZPTR -d PREEMPT_NONE \
				-d PREEMPT_VOLUNTARY -e PREEMPT -e DEBUG_KERNEL \
				-e RCU_REF_SCALE_TEST
			"${mk[@]}" olddefconfig >/dev/null
			"${mk[@]}" prepare >"$build/prepare.log" 2>&1 ||
				die "make prepare failed for $arch (log: $build/prepare.log)"
		fi
		grep -q '^CONFIG_HAZPTR=y' "$build/.config" || die "$arch: CONFIG_HAZPTR did not stick"
		grep -q '^CONFIG_RCU_REF_SCALE_TEST=y' "$build/.config" ||
			die "$arch: CONFIG_RCU_REF_SCALE_TEST=y did not stick"
		"${mk[@]}" fs/file.o >"$build/file.log" 2>&1 || die "fs/file.o failed for $arch $side (log: $build/file.log)"
		dis=$out/cross-$arch-$side.dis
		"${cross}objdump" -dr --no-show-raw-insn "$build/fs/file.o" >"$build/file.dis" ||
			die "${cross}objdump failed on $arch's fs/file.o"
		listing "$build/file.dis" fd_install >"$dis"
		[ -s "$dis" ] || die "no fd_install() in $arch's fs/file.o"
		count "$arch" "$side" "$dis" >>"$out/cross-icount.csv"
		note "$arch $side: $(tail -1 "$out/cross-icount.csv")"
	done
	# The reader before and after the patch that inlines it.
	for side in before after; do
		rev=$inline_rev
		fns="ref_hazptr_section __hazptr_acquire __hazptr_release"
		maybe=
		if [ "$side" = before ]; then
			rev=$inline_rev~1
			fns="ref_hazptr_section hazptr_acquire hazptr_release"
			# Called, not inlined, on some architectures (arm64).
			maybe=hazptr_slot_end
		fi
		git -C "$wt" checkout -q --detach "$rev" || die "cannot check out $rev in $wt"
		for o in kernel/hazptr kernel/rcu/refscale; do
			"${mk[@]}" "$o.o" >"$build/reader.log" 2>&1 ||
				die "$o.o failed for $arch $side (log: $build/reader.log)"
			"${cross}objdump" -dr --no-show-raw-insn "$build/$o.o" >"$build/${o##*/}.dis" ||
				die "${cross}objdump failed on $arch's $o.o"
		done
		for fn in $fns $maybe; do
			dis=$out/cross-$arch-$side-$fn.dis
			listing "$build/hazptr.dis" "$fn" >"$dis"
			[ -s "$dis" ] || listing "$build/refscale.dis" "$fn" >"$dis"
			if [ ! -s "$dis" ]; then
				rm -f "$dis"
				[ "$fn" = "$maybe" ] && continue
				die "no $fn() in $arch's kernel/hazptr.o or refscale.o ($side)"
			fi
			count "$arch" "$side,$fn" "$dis" >>"$out/cross-hazptr.csv"
		done
	done
done
column -t -s, "$out/cross-icount.csv"
column -t -s, "$out/cross-hazptr.csv"
echo "(listings: ${out#"$TOP"/}/cross-*.dis)"
