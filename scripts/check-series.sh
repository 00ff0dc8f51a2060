#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check every patch of the series as a maintainer would, in order:
#  - scripts/checkpatch.pl --strict: no error; a warning or check only when
#    the commit message says why (it mentions checkpatch);
#  - scripts/kernel-doc -none -Wall: no new warning in the C files and
#    headers it touches;
#  - the kernel (configs/kernels/check) builds with the series up to it;
#  - sparse (C=2) reports nothing new on the C files it touches, against the
#    same files in the base tree.
# Then the whole series once more in each configuration that automated
# build testing tries and the test kernels do not: !SMP, where
# CONFIG_HAZPTR is off and the users must fall back (configs/kernels/
# check-up, with lockdep), 32-bit x86 (check-i386) and PREEMPT_RT
# (check-rt); a few minutes each.
#
# It does not boot each prefix: a boot of the torture matrix takes ~15 min
# here, 17 of them would take hours.  The core patches come first and the
# torture test right after them, so `git checkout` of a patch and
# `make test TESTS=...` boots what a bisection would; every prefix is
# built here.
#
#   check-series.sh [--no-build]     (--no-build: checkpatch and kernel-doc only)
#
# Works in a git worktree of $TREE ($WORK/check-tree, build in
# $WORK/build-check), so the work tree is left alone. Ends with
# "N passed, N failed" over the patches.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

build=1
case ${1:-} in
"") ;;
--no-build) build= ;;
*) die "unknown argument '$1' (usage: check-series.sh [--no-build])" ;;
esac
need perl perl
[ -z "$build" ] || need sparse sparse
[ -e "$TREE/.git" ] || die "no work tree at $TREE: run scripts/prepare-tree.sh first"

wt=$WORK/check-tree
cbuild=$WORK/build-check
out=$cbuild/check
G() { git -C "$wt" "$@"; }
if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q -f --detach "$wt" base || die "cannot create worktree $wt"
fi
head=$(series_head)
commits=$(git -C "$TREE" rev-list --reverse "base..$head")
[ -n "$commits" ] || die "the work tree has no patches on top of base"
# checkpatch's SPDX check runs Debian's python3, which has python3-ply.
export PATH=/usr/bin:$PATH

# build_at REV: build the check kernel in the worktree at REV.
build_at() {
	G checkout -q -f "$1" && G clean -q -fdx
	TREE=$wt BUILD=$cbuild "$TOP/scripts/build.sh" check >/dev/null
}

# sparse_msgs FILE.c: sparse's messages about FILE.c, without line numbers.
sparse_msgs() {
	local obj=${1%.c}.o
	rm -f "$out/$obj"
	make -C "$wt" O="$out" CC="${KCC:-ccache gcc}" C=2 "$obj" 2>&1 |
		grep -E "^$wt/$1:[0-9]+:[0-9]+: (warning|error):" |
		sed -E "s|^$wt/||; s|:[0-9]+:[0-9]+:|:|" | sort -u || true
}

# kdoc_msgs FILE: kernel-doc's warnings about FILE, without file and line.
kdoc_msgs() {
	"$wt/scripts/kernel-doc" -none -Wall "$1" 2>&1 |
		sed -E 's|^[^ ]*:[0-9]+: ||' | sort -u || true
}

built_c() {
	local f
	for f in "$@"; do
		case $f in *.c) [ -f "$out/${f%.c}.o" ] && echo "$f" ;; esac
	done
	return 0
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A baseline
if [ -n "$build" ]; then
	note "building the base tree for the sparse baseline (log: $out/build.log)"
	build_at base || die "the base tree does not build"
	for f in $(built_c $(git -C "$TREE" diff --name-only "base..$head")); do
		baseline[$f]=$(sparse_msgs "$f")
	done
fi

passed=0 failed=0 i=0
for c in $commits; do
	i=$((i + 1))
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	files=$(git -C "$TREE" diff-tree --no-commit-id --name-only -r "$c")
	problems=()

	G checkout -q -f "$c"
	cp=$(git -C "$TREE" format-patch -1 --stdout "$c" |
		"$wt/scripts/checkpatch.pl" --strict --quiet --no-summary - 2>&1 || true)
	if printf '%s\n' "$cp" | grep -q '^ERROR:'; then
		problems+=("checkpatch errors")
	elif printf '%s\n' "$cp" | grep -qE '^(WARNING|CHECK):'; then
		if git -C "$TREE" log -1 --format=%b "$c" | grep -qi checkpatch; then
			note "$(printf '%04d' $i): checkpatch warnings justified in the commit message"
		else
			problems+=("unjustified checkpatch warnings")
		fi
	fi
	for f in $files; do
		case $f in *.c|*.h) [ -f "$wt/$f" ] || continue ;; *) continue ;; esac
		git -C "$TREE" show "$c^:$f" >"$tmp/old" 2>/dev/null || : >"$tmp/old"
		kd=$(comm -13 <(kdoc_msgs "$tmp/old") <(kdoc_msgs "$wt/$f"))
		[ -z "$kd" ] && continue
		problems+=("kernel-doc: $f")
		cp+=$'\n'$kd
	done
	if [ -n "$build" ]; then
		if build_at "$c"; then
			for f in $(built_c $files); do
				new=$(comm -23 <(sparse_msgs "$f") <(printf '%s\n' "${baseline[$f]:-}" | sort -u))
				[ -z "$new" ] && continue
				problems+=("sparse: $f")
				cp+=$'\n'$new
			done
		else
			problems+=("does not build (log: $out/build.log)")
		fi
	fi

	if [ ${#problems[@]} -eq 0 ]; then
		echo "PASS $(printf '%04d' $i) $subj"
		passed=$((passed + 1))
	else
		echo "FAIL $(printf '%04d' $i) $subj: $(IFS=';'; echo "${problems[*]}")"
		printf '%s\n' "$cp" | grep -v '^$' | head -30 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done
if [ -n "$build" ]; then
	G checkout -q -f "$head" && G clean -q -fdx
	for k in check-up check-i386 check-rt; do
		if TREE=$wt BUILD=$cbuild "$TOP/scripts/build.sh" "$k" >/dev/null; then
			echo "PASS $k: the series builds ($(sed -n 's/^# make check-series: //p' "$CONFIGS/kernels/$k"))"
			passed=$((passed + 1))
		else
			echo "FAIL $k: the series does not build (log: $cbuild/$k/build.log)"
			failed=$((failed + 1))
		fi
	done
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
