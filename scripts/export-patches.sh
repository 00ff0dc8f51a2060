#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the work tree's commits (base..HEAD) back to patches/{core,torture,users}.
#
# A commit goes to the directory that already holds a patch of the same name
# (the name git format-patch derives from the subject); a new commit goes to
# the directory of the commit before it, or to $NEW_DIR (default: that of the
# previous commit, core for the first).  Patch files are numbered across the
# whole series, so `ls patches/*/*.patch | sort -t/ -k3` is also the order.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no work tree at $TREE: run scripts/prepare-tree.sh first"
git -C "$TREE" rev-parse -q --verify base >/dev/null || die "work tree has no 'base' tag"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	note "warning: uncommitted changes in $TREE are not exported"
case ${NEW_DIR:-} in ""|core|torture|users) ;; *) die "NEW_DIR must be one of: $SERIES_DIRS" ;; esac

declare -A dir_of
for d in $SERIES_DIRS; do
	for f in $(series_files "$d"); do
		name=$(basename "$f" .patch)
		dir_of[${name#*-}]=$d
	done
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$TREE" -c core.abbrev=9 format-patch -q --zero-commit --no-signature -o "$tmp" base..HEAD
for d in $SERIES_DIRS; do
	rm -f "$TOP/patches/$d"/*.patch
done

prev=core
n=0
for f in "$tmp"/*.patch; do
	[ -e "$f" ] || break
	name=$(basename "$f" .patch)
	d=${dir_of[${name#*-}]:-${NEW_DIR:-$prev}}
	mkdir -p "$TOP/patches/$d"
	mv "$f" "$TOP/patches/$d/"
	prev=$d
	n=$((n + 1))
done
# The tree now matches the series: record it so prepare-tree.sh keeps it.
want=$(for f in $(series_files $SERIES_DIRS); do sha1sum "$f"; done | sha1sum | cut -d' ' -f1)
echo "$want $(git -C "$TREE" rev-parse HEAD)" >"$TREE/.git/hazptr-series"
for d in $SERIES_DIRS; do
	note "patches/$d: $(series_files "$d" | wc -l) patches"
done
note "exported $n patches"
