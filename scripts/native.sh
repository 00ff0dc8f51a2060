#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The core on the host CPU: tools/testing/hazptr of the series (the
# unchanged kernel/hazptr.c over shim headers) built with the host's gcc.
#
#   native.sh bench                  ns per operation, host CPU:
#                                    results/bench/native.csv
#   native.sh run LOG PARAMS...      one test of configs/tests.list whose
#                                    KERNEL is 'native' (run-tests.sh)
#
# PARAMS of a test: the arguments of the harness's ./stress, plus
#   tsan              run the ThreadSanitizer build (stress-tsan)
#   debug             run the CONFIG_HAZPTR_DEBUG build (stress-debug)
#   mutation=NAME     run stress over hazptr.c with configs/mutations/NAME.patch
#                     applied to a copy (the tree is left alone)
# run exits 0 when the harness printed PASS (and ThreadSanitizer reported
# nothing), 1 when it printed FAIL or TSan reported, 3 when the harness does
# not build, 2 on any other outcome (a crash); its output goes to LOG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

dir=$TREE/tools/testing/hazptr
[ -f "$dir/Makefile" ] ||
	die "no $dir/Makefile: the tree lacks the series' tools/testing/hazptr (run 'make prepare')"
need gcc build-essential

# hmake TARGET...: build in the harness directory, output to stderr.
hmake() {
	make -s -C "$dir" "$@" >&2 || die "make -C ${dir#"$TOP"/} $* failed"
}

case ${1:-} in
bench)
	hmake bench
	mkdir -p "$RESULTS/bench"
	csv=$RESULTS/bench/native.csv
	(cd "$dir" && ./bench -C "$RESULTS/bench/native-cputime.csv") >"$csv" ||
		die "the native bench failed"
	# The Makefile leaves liburcu out when its header is missing.
	grep -q '^urcu' "$csv" ||
		note "liburcu-dev is not installed: no RCU rows (run 'make deps')"
	echo "native (host CPU, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), ns per operation:"
	column -s, -t "$csv"
	echo "(csv: ${csv#"$TOP"/}; per-thread CPU time: results/bench/native-cputime.csv)"
	;;
run)
	[ $# -ge 2 ] || die "usage: native.sh run LOG PARAMS..."
	log=$2
	shift 2
	prog=stress args=()
	for p in "$@"; do
		case $p in
		tsan) prog=stress-tsan ;;
		debug) prog=stress-debug ;;
		mutation=*)
			m=$CONFIGS/mutations/${p#mutation=}.patch
			[ -f "$m" ] || die "no mutation ${m#"$TOP"/}"
			prog=stress-mutant
			;;
		*) args+=("$p") ;;
		esac
	done
	# A build that fails is neither a pass nor a catch (exit 3).
	case $prog in
	stress-mutant) (hmake mutant MUTATION="$m") || exit 3 ;;
	stress-tsan) (hmake tsan) || exit 3 ;;
	*) (hmake "$prog") || exit 3 ;;
	esac
	mkdir -p "$(dirname "$log")"
	rc=0
	(cd "$dir" && "./$prog" "${args[@]}") >"$log" 2>&1 || rc=$?
	tail -n 3 "$log" >&2
	grep -q '^WARNING: ThreadSanitizer' "$log" && exit 1
	grep -q '^PASS' "$log" && [ "$rc" = 0 ] && exit 0
	grep -q '^FAIL' "$log" && [ "$rc" = 1 ] && exit 1
	note "$prog ${args[*]}: neither PASS nor FAIL (exit $rc), see ${log#"$TOP"/}"
	exit 2
	;;
*)
	die "usage: native.sh bench | native.sh run LOG PARAMS..."
	;;
esac
