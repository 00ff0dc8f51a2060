# SPDX-License-Identifier: GPL-2.0
# Common definitions for the hazptr scripts; sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Absolute: the scripts change directories and hand these to make -C.
WORK=$(realpath -m "${WORK:-$TOP/work}")
TREE=$(realpath -m "${TREE:-$WORK/linux}")
BUILD=$(realpath -m "${BUILD:-$WORK/build}")
RESULTS=$(realpath -m "${RESULTS:-$TOP/results}")
CONFIGS=${CONFIGS:-$TOP/configs}
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# The series as mailed (v1), and with the follow-up series that waits for
# its users (patches/next/, applied on top by make test-next).
SERIES_DIRS="core torture users"
ALL_DIRS="$SERIES_DIRS next"

die() {
	echo "$(basename "$0"): error: $*" >&2
	exit 1
}

# is_uint VALUE NAME: die unless VALUE is a positive integer.
is_uint() {
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ] ||
		die "$2 must be a positive integer, not '$1'"
}

note() {
	echo "$(basename "$0"): $*" >&2
}

# need CMD PACKAGE: fail with one line naming the package that provides CMD.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install package '$2' (run 'make deps')"
}

# AWK_MED: an awk function for the benchmark scripts (awk "$AWK_MED"'...'):
# med(a, n) is the median of a[1..n], 0 for n = 0; it sorts a in place, so
# a[1] and a[n] are then the minimum and the maximum.
AWK_MED='function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0
}'

# AWK_FDRATIOS: for scripts/bench-fdinstall.sh's CSV
# (kernel,cpus,pad,round,call,median_ns), read into v[kernel, cpus, pad,
# round, call] with np the highest round: ratios(side, c, n, list) puts the
# per-round ratios side/base of call c at n vCPUs, over the pads in the
# space-separated list, into R[1..] and returns their count.  The summary
# of bench-fdinstall.sh and the cover letter pair rounds the same way.
AWK_FDRATIOS='function ratios(side, c, n, list,   i, p, b, m, pp) {
	m = 0
	for (i = split(list, pp, " "); i > 0; i--)
		for (p = 1; p <= np; p++) {
			b = v["base", n, pp[i], p, c]
			if (b > 0 && v[side, n, pp[i], p, c] != "") R[++m] = v[side, n, pp[i], p, c] / b
		}
	return m
}'

# series_files DIR...: the patch files of these series directories, in
# application order: by their number, which runs across the directories
# (a feature's tests follow it, so core/ and torture/ interleave).
series_files() {
	local d
	for d in "$@"; do
		ls "$TOP/patches/$d"/*.patch 2>/dev/null || true
	done | awk -F/ '{ print $NF "\t" $0 }' | LC_ALL=C sort | cut -f2
}

# test_only_files: configs/test-only/*.patch, commits whose subject starts
# with "TEST ONLY: ": race windows and tests for the users' conversions,
# applied after patches/users/ in the test trees, never mailed, and left out
# of what check-series.sh checks and the benchmarks build (series_head).
test_only_files() {
	ls "$CONFIGS/test-only"/*.patch 2>/dev/null | LC_ALL=C sort || true
}

# test_only_next_files: configs/test-only/next/*.patch, the test-only
# commits for the users that wait in patches/next/, applied after it.
test_only_next_files() {
	ls "$CONFIGS/test-only/next"/*.patch 2>/dev/null | LC_ALL=C sort || true
}

# tree_files DIR...: the patches prepare-tree.sh applies for these series
# directories, in order: the series, the test-only patches if users/ is
# among them, then next/ and its test-only patches.
tree_files() {
	local d main=() next=
	for d in "$@"; do
		if [ "$d" = next ]; then next=1; else main+=("$d"); fi
	done
	[ ${#main[@]} -eq 0 ] || series_files "${main[@]}"
	case " ${main[*]} " in *" users "*) test_only_files ;; esac
	[ -z "$next" ] || { series_files next; test_only_next_files; }
}

# series_head [TREE]: the commit that ends the series as mailed: the one
# before the first "TEST ONLY: " commit, or HEAD if there is none.
series_head() {
	local t=${1:-$TREE} first
	first=$(git -C "$t" log --reverse --format=%H --grep='^TEST ONLY: ' base..HEAD | head -1)
	if [ -n "$first" ]; then
		git -C "$t" rev-parse "$first^"
	else
		git -C "$t" rev-parse HEAD
	fi
}

# user_rev PREFIX: the commit of $TREE whose subject starts with PREFIX (a
# user patch: 'fs: ', 'lockdep: '); dies if the tree has none.
user_rev() {
	local rev
	rev=$(git -C "$TREE" log --format=%H --grep="^$1" base..HEAD | head -1)
	[ -n "$rev" ] || die "no '${1% }' patch in $TREE (run 'make prepare')"
	echo "$rev"
}

# extract_base DIR: extract $TARBALL into DIR (which must not exist) and make
# it a git repository whose one commit, tagged 'base' on branch 'upstream',
# holds the tarball.  Name, address and dates are fixed, so every machine
# gets the same commit id (the base-commit of make series).
extract_base() {
	local dir=$1 parent
	need git git
	need xz xz-utils
	[ -f "$TARBALL" ] || die "$TARBALL not found: install package 'linux-source-6.12' (run 'make deps')"
	[ ! -e "$dir" ] || die "$dir already exists"
	parent=$(dirname "$dir")
	mkdir -p "$parent"
	rm -rf "$parent/linux-source-6.12"
	tar -C "$parent" -xf "$TARBALL" || die "cannot extract $TARBALL"
	mv "$parent/linux-source-6.12" "$dir"
	git -C "$dir" init -q -b upstream
	git -C "$dir" config user.name "Hazptr Project"
	git -C "$dir" config user.email hazptr@hazptr.invalid
	git -C "$dir" config core.autocrlf false
	# The distro tarball's top-level .gitignore ignores everything: -f.
	git -C "$dir" add -f -A .
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$dir" commit -q -m "linux-source-6.12 $(make -s -C "$dir" kernelversion)"
	git -C "$dir" tag base
}

# apply_series DIR PATCH...: git am each patch on DIR's current branch; dies
# naming the first one that does not apply.
apply_series() {
	local dir=$1 f
	shift
	git -C "$dir" am --abort >/dev/null 2>&1 || true
	for f in "$@"; do
		if ! git -C "$dir" am -q --keep-cr "$f" >/dev/null 2>&1; then
			git -C "$dir" am --abort >/dev/null 2>&1 || true
			die "patch does not apply: ${f#"$TOP"/}"
		fi
	done
}


# series_stamp TREE: the file in which the tree records the series it carries.
series_stamp() {
	echo "$(git -C "$1" rev-parse --absolute-git-dir)/hazptr-series"
}
