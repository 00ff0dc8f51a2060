#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's linux-source-6.12 into $TREE (ignored by git), commit it as
# the base, then apply patches/{core,torture,users} in order with git am.
#
#   prepare-tree.sh [--base-only] [--dirs "core torture"]
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
	--dirs) dirs=${2:?--dirs needs a list}; shift ;;
	*) die "unknown argument '$1' (use --base-only or --dirs LIST)" ;;
	esac
	shift
done
# A series directory may be empty (git keeps no empty directories, so a
# fresh clone may not have it at all): only the name is checked.
for d in $dirs; do
	case " $SERIES_DIRS " in
	*" $d "*) ;;
	*) die "unknown series directory '$d' (known: $SERIES_DIRS)" ;;
	esac
done

need git git
need xz xz-utils
[ -f "$TARBALL" ] || die "$TARBALL not found: install package 'linux-source-6.12' (run 'make deps')"

G() { git -C "$TREE" "$@"; }

if [ ! -d "$TREE/.git" ]; then
	note "extracting $(basename "$TARBALL") into $TREE"
	rm -rf "$TREE" "$WORK/linux-source-6.12"
	mkdir -p "$WORK"
	tar -C "$WORK" -xf "$TARBALL" || die "cannot extract $TARBALL"
	mv "$WORK/linux-source-6.12" "$TREE"
	G init -q -b upstream
	G config user.name "Hazptr Project"
	G config user.email hazptr@hazptr.invalid
	G config core.autocrlf false
	# The distro tarball's top-level .gitignore ignores everything: -f.
	G add -f -A .
	G commit -q -m "linux-source-6.12 $(make -s -C "$TREE" kernelversion)"
	G tag base
fi

want=$(for f in $(series_files $dirs); do sha1sum "$f"; done | sha1sum | cut -d' ' -f1)
stamp=$TREE/.git/hazptr-series
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
for f in $(series_files $dirs); do
	if ! G am -q --keep-cr "$f" >/dev/null 2>&1; then
		G am --abort >/dev/null 2>&1 || true
		die "patch does not apply: ${f#"$TOP"/}"
	fi
done
echo "$want $(G rev-parse HEAD)" >"$stamp"
note "applied $(series_files $dirs | wc -l) patches on $(G log -1 --format=%s base)"
