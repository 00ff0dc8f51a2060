# SPDX-License-Identifier: GPL-2.0
# Common definitions for the hazptr scripts; sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Absolute: the scripts change directories and hand these to make -C.
WORK=$(realpath -m "${WORK:-$TOP/work}")
TREE=$(realpath -m "${TREE:-$WORK/linux}")
BUILD=$(realpath -m "${BUILD:-$WORK/build}")
RESULTS=$(realpath -m "${RESULTS:-$TOP/results}")
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
SERIES_DIRS="core torture users"

die() {
	echo "$(basename "$0"): error: $*" >&2
	exit 1
}

note() {
	echo "$(basename "$0"): $*" >&2
}

# need CMD PACKAGE: fail with one line naming the package that provides CMD.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install package '$2' (run 'make deps')"
}

# series_files DIR...: the patch files of these series directories, in
# application order: by their number, which runs across the directories
# (a feature's tests follow it, so core/ and torture/ interleave).
series_files() {
	local d
	for d in "$@"; do
		ls "$TOP/patches/$d"/*.patch 2>/dev/null || true
	done | awk -F/ '{ print $NF "\t" $0 }' | LC_ALL=C sort | cut -f2
}
