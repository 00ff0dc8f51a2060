#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's linux-source-6.12 into $TREE (ignored by git), commit it as
# the base, then apply patches/{core,torture,users} in order with git am,
# and after them the test-only commits of configs/test-only/ (lib.sh).
#
#   prepare-tree.sh [--base-only] [--next] [--dirs "core torture"]
#
# --next applies patches/next/ too (make test-next uses its own tree,
# TREE=work/next).
#
# The tree records which series it carries (.git/hazptr-series). When the
# patch files change, the tree is reset to the base and the series re-applied,
# unless the tree has commits of its own that were not exported: then it is
# built as it is, with a warning (scripts/export-patches.sh writes them out).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dirs=$SERIES_DIRS
while [ $# -gt 0 ]; do
	case $1 in
	--base-only) dirs="" ;;
	--next) dirs=$ALL_DIRS ;;
	--dirs) dirs=${2:?--dirs needs a list}; shift ;;
	*) die "unknown argument '$1' (use --base-only, --next or --dirs LIST)" ;;
	esac
	shift
done
# A series directory may be empty (git keeps no empty directories, so a
# fresh clone may not have it at all): only the name is checked.
for d in $dirs; do
	case " $ALL_DIRS " in
	*" $d "*) ;;
	*) die "unknown series directory '$d' (known: $ALL_DIRS)" ;;
	esac
done

need git git

G() { git -C "$TREE" "$@"; }

if [ ! -e "$TREE/.git" ]; then
	note "extracting $(basename "$TARBALL") into $TREE"
	rm -rf "$TREE"
	extract_base "$TREE"
fi

want=$(for f in $(tree_files $dirs); do sha1sum "$f"; done | sha1sum | cut -d' ' -f1)
stamp=$(series_stamp "$TREE")
if [ -f "$stamp" ]; then
	read -r have_series have_head <"$stamp"
	head=$(G rev-parse HEAD)
	if [ "$have_series" = "$want" ] && [ "$have_head" = "$head" ]; then
		note "tree up to date with the series"
		exit 0
	fi
	if [ "$have_head" != "$head" ] && [ -z "${FORCE:-}" ]; then
		note "warning: $TREE has commits not exported to patches/;" \
			"using it as it is (scripts/export-patches.sh exports them, FORCE=1 discards them)"
		exit 0
	fi
fi

G am --abort >/dev/null 2>&1 || true
G checkout -q -B hazptr base
G reset -q --hard base
G clean -q -fdx
# shellcheck disable=SC2046
apply_series "$TREE" $(tree_files $dirs)
echo "$want $(G rev-parse HEAD)" >"$stamp"
note "applied $(tree_files $dirs | wc -l) patches on $(G log -1 --format=%s base)"
