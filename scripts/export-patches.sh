#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the work tree's commits (base..HEAD) back to patches/{core,torture,users},
# and those whose subject starts with "TEST ONLY: " to configs/test-only/.
# With TREE=work/next (the tree of make test-next), to patches/next/ too: its
# commits up to those of the main tree must be the main tree's (rebase it
# first), and new commits after them go to next/.
#
# A commit goes to the directory that already holds a patch of the same name
# (the name git format-patch derives from the subject); a new commit goes to
# the directory of the commit before it, or to $NEW_DIR (default: that of the
# previous commit, core for the first).  Patch files are numbered across the
# whole series, so `ls patches/*/*.patch | sort -t/ -k3` is also the order.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -e "$TREE/.git" ] || die "no work tree at $TREE: run scripts/prepare-tree.sh first"
git -C "$TREE" rev-parse -q --verify base >/dev/null || die "work tree has no 'base' tag"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	note "warning: uncommitted changes in $TREE are not exported"
case ${NEW_DIR:-} in ""|core|torture|users|next) ;; *) die "NEW_DIR must be one of: $ALL_DIRS" ;; esac
dirs=$SERIES_DIRS
main=$WORK/linux
if [ "$(realpath "$TREE")" != "$(realpath "$main")" ] &&
   git -C "$TREE" merge-base --is-ancestor "$(git -C "$main" rev-parse HEAD 2>/dev/null)" HEAD 2>/dev/null; then
	# The next tree: the main tree's series, then next/.
	dirs=$ALL_DIRS
	main_head=$(git -C "$main" rev-parse HEAD)
fi

declare -A dir_of
for d in $dirs; do
	for f in $(series_files "$d"); do
		name=$(basename "$f" .patch)
		dir_of[${name#*-}]=$d
	done
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$TREE" -c core.abbrev=9 format-patch -q --no-numbered --zero-commit --no-signature -o "$tmp" base..HEAD
for d in $dirs; do
	rm -f "$TOP/patches/$d"/*.patch
done
nmain=0
[ -z "${main_head:-}" ] || nmain=$(git -C "$TREE" rev-list --count "base..$main_head")

rm -f "$CONFIGS/test-only"/*.patch
[ -z "${main_head:-}" ] || rm -f "$CONFIGS/test-only/next"/*.patch

prev=core
n=0 m=0
for f in "$tmp"/*.patch; do
	[ -e "$f" ] || break
	name=$(basename "$f" .patch)
	n=$((n + 1))
	# Test-only commits go to configs/test-only/ (those after the main
	# tree's commits in the next tree to configs/test-only/next/),
	# unnumbered; the series' numbers skip them.
	if [[ ${name#*-} == TEST-ONLY-* ]]; then
		t=$CONFIGS/test-only
		[ "$n" -le "$nmain" ] || [ -z "${main_head:-}" ] || t=$t/next
		mkdir -p "$t"
		mv "$f" "$t/${name#*-}.patch"
		continue
	fi
	m=$((m + 1))
	d=${dir_of[${name#*-}]:-${NEW_DIR:-$prev}}
	# In the next tree, what comes after the main tree's commits is next/.
	[ "$n" -le "$nmain" ] || [ -z "${main_head:-}" ] || d=next
	mkdir -p "$TOP/patches/$d"
	mv "$f" "$TOP/patches/$d/$(printf '%04d' "$m")-${name#*-}.patch"
	prev=$d
done
# The tree now matches the series: record it so prepare-tree.sh keeps it.
want=$(for f in $(tree_files $dirs); do sha1sum "$f"; done | sha1sum | cut -d' ' -f1)
echo "$want $(git -C "$TREE" rev-parse HEAD)" >"$(series_stamp "$TREE")"
for d in $dirs; do
	note "patches/$d: $(series_files "$d" | wc -l) patches"
done
[ -z "$(test_only_files)" ] || note "configs/test-only: $(test_only_files | wc -l) patches"
[ -z "${main_head:-}" ] || [ -z "$(test_only_next_files)" ] ||
	note "configs/test-only/next: $(test_only_next_files | wc -l) patches"
note "exported $n patches"
