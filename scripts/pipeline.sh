# SPDX-License-Identifier: GPL-2.0
# Definitions shared by the build-boot-check scripts (config.sh, build.sh,
# initramfs.sh, boot.sh, run-tests.sh); sourced after lib.sh, never run.

INITRAMFS=${INITRAMFS:-$WORK/initramfs.cpio.gz}
# Compiler cache: ccache's own default (~/.cache/ccache) unless CCACHE_DIR
# is set, so that every clone and 'make clean' keep it.
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}
# Paths under the clone are hashed relative to the build directory, so
# that clones in other places (CI, work trees of check-series) share hits.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
JOBS=${JOBS:-3}

# known_kernels: the named kernel builds, one per file in configs/kernels/.
known_kernels() {
	ls "$CONFIGS/kernels" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

# check_kernel NAME: die unless NAME is a known kernel build.
check_kernel() {
	[ -n "$1" ] && [ -f "$CONFIGS/kernels/$1" ] ||
		die "unknown kernel '${1}' (known: $(known_kernels))"
}

# kernel_fragments NAME: the fragment files of kernel NAME, in merge order.
kernel_fragments() {
	local f
	for f in $(sed 's/#.*//' "$CONFIGS/kernels/$1"); do
		[ -f "$CONFIGS/$f.config" ] ||
			die "kernel '$1' lists fragment '$f' but configs/$f.config does not exist"
		echo "$CONFIGS/$f.config"
	done
}

# require_clean LOG MESSAGE [--expect SUCCESS|FAILURE]: unless check-log.sh
# passes LOG, print its report and die with MESSAGE.
require_clean() {
	local log=$1 msg=$2
	shift 2
	"$TOP/scripts/check-log.sh" "$log" "$@" >/dev/null && return
	"$TOP/scripts/check-log.sh" "$log" "$@" || true
	die "$msg"
}

# kernel_arch NAME: the ARCH= of kernel NAME, from an "# arch: ARCH" line of
# configs/kernels/NAME (default x86_64).
kernel_arch() {
	local a
	a=$(sed -n 's/^# arch: *//p' "$CONFIGS/kernels/$1" | head -1)
	echo "${a:-x86_64}"
}

# arch_conf ARCH: source scripts/qemu/ARCH.conf, the data of one guest
# architecture: QEMU's settings, the kernel image and the make target that
# builds it, the cross compiler, and the guest's compiler and busybox.
# i386 (check-series builds it, nothing boots it) builds as x86_64 does.
arch_conf() {
	local f=$TOP/scripts/qemu/${1/#i386/x86_64}.conf
	[ -f "$f" ] || die "no settings for ARCH=$1 (known: $(ls "$TOP/scripts/qemu" | sed 's/\.conf$//' | tr '\n' ' '))"
	# shellcheck disable=SC1090
	. "$f"
	# The kernel's compiler: ccache and the architecture's cross gcc, or
	# for the host's architecture KCC if set, else ccache gcc.
	if [ -n "$CROSS_COMPILE" ]; then
		kcc="ccache ${CROSS_COMPILE}gcc"
	else
		kcc=${KCC:-ccache gcc}
	fi
}

# arch_initramfs ARCH: the initramfs of ARCH's guests (initramfs.sh).
arch_initramfs() {
	case $1 in
	x86_64|i386) echo "$INITRAMFS" ;;
	*) echo "${INITRAMFS%.cpio.gz}-$1.cpio.gz" ;;
	esac
}

# config_stamp NAME: a hash of what the configuration of NAME depends on: its
# fragment list, its fragments and every Kconfig file of the tree.
config_stamp() {
	{
		cat "$CONFIGS/kernels/$1" $(kernel_fragments "$1")
		cd "$TREE" && find . -name .git -prune -o -name 'Kconfig*' -type f -print |
			LC_ALL=C sort | xargs cat
	} | sha1sum | cut -d' ' -f1
}

# A/B benchmarks build two revisions of the tree in a second work tree,
# $WORK/ab/linux (a git worktree of $TREE, built in $WORK/ab/build, laid out
# like $WORK so that ccache hits what the main tree compiled).
#
# ab_checkout REV [PATCH...]: check out revision REV in the A/B work tree
# $WORK/ab/linux, discarding whatever was left there, and apply each PATCH (a
# file for git apply) on top in turn; prints "+ PATCH" for each.
ab_checkout() {
	local rev=$1 ab=$WORK/ab/linux patch
	shift
	mkdir -p "$WORK/ab"
	[ -e "$ab/.git" ] || git -C "$TREE" worktree add -q --detach "$ab" "$rev" ||
		die "cannot create the work tree $ab"
	# A scratch tree: whatever was left in it goes.
	git -C "$ab" checkout -q -f --detach "$rev" || die "cannot check out $rev in $ab"
	git -C "$ab" clean -q -f -d -x || die "cannot clean the work tree $ab"
	for patch; do
		git -C "$ab" apply "$patch" ||
			die "${patch#"$TOP"/} no longer applies to $(git -C "$ab" log -1 --format='%h %s')"
		printf ' + %s' "${patch#"$TOP"/}"
	done
}

# ab_build KERNEL SIDE REV [PATCH...]: build kernel KERNEL at revision REV
# there, with each PATCH applied on top (ab_checkout), copy
# the image to $WORK/ab/KERNEL.SIDE (the path is printed) and its System.map
# to $WORK/ab/KERNEL.SIDE.map.
ab_build() {
	local k=$1 side=$2 rev=$3 ab=$WORK/ab/linux img names
	shift 3
	names=$(ab_checkout "$rev" "$@") || exit 1
	img=$(TREE=$ab BUILD=$WORK/ab/build "$TOP/scripts/build.sh" "$k") ||
		die "the $side side of kernel '$k' did not build"
	cp "$img" "$WORK/ab/$k.$side"
	cp "$WORK/ab/build/$k/System.map" "$WORK/ab/$k.$side.map" 2>/dev/null || true
	note "$k.$side: $(git -C "$ab" log -1 --format='%h %s')$names"
	echo "$WORK/ab/$k.$side"
}

# pad_patch N: a patch that adds an N-byte function, never called, above
# every definition in fs/file.c's source (GCC decides where it goes in
# fs/file.o), to move code for the layout sweeps of bench-fdinstall.sh and
# bench-uml.sh; writes it to $WORK/ab/pad-N.patch and prints its path.
pad_patch() {
	local f=$WORK/ab/pad-$1.patch
	mkdir -p "$WORK/ab"
	cat >"$f" <<-PATCH
	--- a/fs/file.c
	+++ b/fs/file.c
	@@ -27,2 +27,9 @@
	 #include "internal.h"
	+
	+/* Code layout for the bench scripts: never called. */
	+void bench_layout_pad(void);
	+void bench_layout_pad(void)
	+{
	+	asm volatile(".skip $1, 0x90");
	+}
	 
	PATCH
	echo "$f"
}

# side_name SIDE PAD: a side's name at layout PAD (pad_patch), which names
# its image: SIDE itself at 0, else SIDE-padPAD.
side_name() { if [ "$2" = 0 ]; then echo "$1"; else echo "$1-pad$2"; fi; }

# side_args SIDE: what side SIDE of an A/B benchmark builds, one per line:
# the revision of $TREE (base: the series without patches/users/, the
# others: HEAD), then the configs/ab/ patches applied on top of it
# ('control': installs kept off the shared-table path; 'control-pad': the
# same, padded to the series' instructions per install).
side_args() {
	case $1 in
	base) ab_base_rev ;;
	users) series_head ;;
	control) series_head && echo "$CONFIGS/ab/fs-control.patch" ;;
	control-pad) series_head && echo "$CONFIGS/ab/fs-control.patch" &&
		echo "$CONFIGS/ab/fs-control-pad.patch" ;;
	*) die "unknown side '$1'" ;;
	esac
}

# check_pads PADS: die unless PADS lists distinct byte counts, 0 to 99999.
check_pads() {
	local n
	[ -n "${1// /}" ] || die "PADS must list at least one byte count"
	for n in $1; do
		[[ $n =~ ^(0|[1-9][0-9]{0,4})$ ]] || die "PADS must list byte counts from 0 to 99999, not '$n'"
	done
	[ "$(printf '%s\n' $1 | sort | uniq -d)" = "" ] || die "PADS lists a byte count twice: '$1'"
}

# check_sides SIDES KNOWN...: die unless SIDES starts with base, the side
# the others are compared with, and lists only sides of KNOWN, each once.
check_sides() {
	local sides=$1 s
	shift
	[ "$(printf '%s\n' $sides | head -1)" = base ] || die "SIDES must start with base, not '$sides'"
	[ "$(printf '%s\n' $sides | sort | uniq -d)" = "" ] || die "SIDES lists a side twice: '$sides'"
	for s in $sides; do
		[[ " $* " == *" $s "* ]] || die "unknown side '$s' in SIDES (known: $*)"
	done
}

# ab_base_rev: the commit of $TREE that ends patches/core/ and
# patches/torture/, the series without its users; dies if $TREE lacks it.
ab_base_rev() {
	local nbase rev
	nbase=$(series_files core torture | wc -l)
	rev=$(git -C "$TREE" rev-list --reverse base..HEAD | sed -n "${nbase}p")
	[ -n "$rev" ] || die "$TREE has fewer than $nbase commits on top of base (run 'make prepare')"
	echo "$rev"
}

# fdinstall_rows LOG PREFIX: guest/fdinstall.c's results in LOG, one
# "PREFIX,call,median_ns" line per call; dies if it reported an error.
fdinstall_rows() {
	local log=$1 prefix=$2 c v
	tr -d '\r' <"$log" | grep -q '^HAZPTR-FDINSTALL .*error=' &&
		die "fdinstall failed in ${log#"$TOP"/}"
	tr -d '\r' <"$log" |
		sed -n 's/^HAZPTR-FDINSTALL call=\([a-z0-9]*\) .*median_ns=\([0-9.]*\).*/\1 \2/p' |
		while read -r c v; do echo "$prefix,$c,$v"; done
}

# wait_userspace LOG WHO: wait (up to 300 s) until the boot logging to LOG
# has started the guest's userspace.
wait_userspace() {
	local i
	for i in $(seq 600); do
		grep -q "^HAZPTR-INIT: userspace up" "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	die "$2: the guest's userspace did not start in 300 s (${1#"$TOP"/})"
}

# ab_boot NAME KERNEL-IMAGE CPUS PARAMS...: one boot whose log must be
# clean; prints the log's path.
ab_boot() {
	local name=$1 image=$2 n=$3 log=$RESULTS/bench/$1.log
	shift 3
	mkdir -p "$RESULTS/bench"
	"$TOP/scripts/boot.sh" -k "$image" -n "$name" -s "$n" -t "${TIMEOUT:-900}" -l "$log" -- "$@" >/dev/null ||
		die "boot $name failed (log: ${log#"$TOP"/})"
	require_clean "$log" "boot $name: log not clean"
	echo "$log"
}
