#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The core on the host CPU: tools/testing/hazptr of the series (the
# unchanged kernel/hazptr.c over shim headers) built with the host's gcc.
#
#   native.sh bench                  ns per operation, host CPU:
#                                    results/bench/native.csv
#   native.sh run LOG PARAMS...      one test of configs/tests.list whose
#                                    KERNEL is 'native' (run-tests.sh)
#   native.sh compare [REF]          bench and the gate storm at 8, 64 and
#                                    256 CPUs, over this series' core and
#                                    over the core of the series in this
#                                    repository's commit REF (default
#                                    $COMPARE_REF), in the same run:
#                                    results/bench/native-compare.csv
#
# PARAMS of a test: the arguments of the harness's ./stress, plus
#   gate              run ./gate (the gate storm) instead of ./stress
#   tsan              run the ThreadSanitizer build (stress-tsan)
#   debug             run the CONFIG_HAZPTR_DEBUG and CONFIG_HAZPTR_TEST_HOOKS
#                     build (stress-debug)
#   mutation=NAME     run the program over hazptr.c with
#                     configs/mutations/NAME.patch applied to a copy (the
#                     tree is left alone)
#   arm64             build it with aarch64-linux-gnu-gcc -static, in a
#                     copy of the harness in work/native-arm64/, and run
#                     it under qemu-aarch64 (user mode: arm64's atomics and
#                     barrier macros, on the host's memory model)
# run exits 0 when the harness printed PASS (and ThreadSanitizer reported
# nothing), 1 when it printed FAIL or TSan reported, 3 when the harness does
# not build, 2 on any other outcome (a crash); its output goes to LOG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

# The last commit of this repository with the core before per-slot waits.
COMPARE_REF=${COMPARE_REF:-f2f9276}

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
	base=stress variant= m= args=() cross=() runner=()
	for p in "$@"; do
		case $p in
		arm64)
			need aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
			need qemu-aarch64 qemu-user
			need rsync rsync
			# A copy at the tree's depth (the shim includes
			# ../../../../../include/linux/hazptr.h), without the
			# host's binaries, which make would take as up to date.
			x=$WORK/native-arm64
			mkdir -p "$x/tools/testing/hazptr"
			rsync -a --delete --exclude='/.mutant' \
				--exclude='/bench' --exclude='/gate' --exclude='/gate-mutant' \
				--exclude='/stress' --exclude='/stress-debug' \
				--exclude='/stress-tsan' --exclude='/stress-mutant' \
				"$dir/" "$x/tools/testing/hazptr/" ||
				die "cannot copy the harness to ${x#"$TOP"/}"
			for d in include kernel tools/include; do
				ln -sfn "$TREE/$d" "$x/$d"
			done
			dir=$x/tools/testing/hazptr
			# -B: the copy is shared by the trees (work/linux,
			# work/next), whose sources make's timestamps
			# cannot tell apart; a build takes a second.
			cross=(-B CC="aarch64-linux-gnu-gcc -static")
			runner=(qemu-aarch64)
			;;
		gate) base=gate ;;
		tsan) variant=-tsan ;;
		debug) variant=-debug ;;
		mutation=*)
			m=$CONFIGS/mutations/${p#mutation=}.patch
			[ -f "$m" ] || die "no mutation ${m#"$TOP"/}"
			variant=-mutant
			;;
		*) args+=("$p") ;;
		esac
	done
	[ "$base$variant" != gate-tsan ] && [ "$base$variant" != gate-debug ] ||
		die "gate has no ${variant#-} build"
	[ ${#cross[@]} = 0 ] || [ "$variant" != -tsan ] || die "no ThreadSanitizer build for arm64"
	prog=$base$variant
	# A build that fails is neither a pass nor a catch (exit 3).
	case $variant in
	-mutant) (hmake "$prog" MUTATION="$m" "${cross[@]}") || exit 3 ;;
	*) (hmake "$prog" "${cross[@]}") || exit 3 ;;
	esac
	mkdir -p "$(dirname "$log")"
	rc=0
	(cd "$dir" && "${runner[@]}" "./$prog" "${args[@]}") >"$log" 2>&1 || rc=$?
	tail -n 3 "$log" >&2
	grep -q '^WARNING: ThreadSanitizer' "$log" && exit 1
	grep -q '^PASS' "$log" && [ "$rc" = 0 ] && exit 0
	grep -q '^FAIL' "$log" && [ "$rc" = 1 ] && exit 1
	note "$prog ${args[*]}: neither PASS nor FAIL (exit $rc), see ${log#"$TOP"/}"
	exit 2
	;;
compare)
	ref=${2:-$COMPARE_REF}
	git -C "$TOP" rev-parse -q --verify "$ref^{commit}" >/dev/null ||
		die "no commit '$ref' in this repository (a shallow clone? fetch its history, or give REF)"
	old=$(mktemp -d)
	trap 'rm -rf "$old"' EXIT
	# The old core and harness: the files of the series at REF that
	# kernel/hazptr.c, include/linux/hazptr.h and tools/testing/hazptr
	# need, rebuilt from its patches alone.
	for f in $(git -C "$TOP" ls-tree -r --name-only "$ref" patches/ |
		   awk -F/ '{ print $NF "\t" $0 }' | LC_ALL=C sort | cut -f2); do
		git -C "$TOP" show "$ref:$f" |
			git -C "$old" apply --include='kernel/hazptr.c' \
				--include='include/linux/hazptr.h' \
				--include='tools/testing/hazptr/*' - 2>/dev/null ||
			die "a patch of $ref ($f) does not apply to the old core's files"
	done
	[ -f "$old/kernel/hazptr.c" ] || die "$ref has no kernel/hazptr.c in its patches"
	hmake bench gate
	# This series' programs, over the old core and its shim.
	cp "$dir/bench.c" "$dir/gate.c" "$old/tools/testing/hazptr/"
	flags=$(make -s -C "$dir" print-cflags 2>/dev/null) ||
		die "the harness Makefile has no print-cflags target"
	(cd "$old/tools/testing/hazptr" &&
		gcc $flags -o bench bench.c shim.c ../../../kernel/hazptr.c $(make -s -C "$dir" print-libs) &&
		gcc $flags -o gate gate.c shim.c ../../../kernel/hazptr.c) >&2 ||
		die "bench.c or gate.c does not build over the core of $ref"
	mkdir -p "$RESULTS/bench"
	csv=$RESULTS/bench/native-compare.csv
	echo "core,op,threads,cpus,ns_median,ns_min,ns_max,runs" >"$csv"
	# Rounds alternate the two cores, so that a host that changes speed
	# during the run (a VM's neighbours) weighs on both alike; each row is
	# the median of the rounds' medians, the least minimum and the
	# greatest maximum.
	rounds=${BENCH_ROUNDS:-3}
	is_uint "$rounds" BENCH_ROUNDS
	raw=$(mktemp)
	for r in $(seq "$rounds"); do
		for side in new old; do
			d=$dir
			[ $side = old ] && d=$old/tools/testing/hazptr
			(cd "$d" && ./bench) | sed 1d | sed "s/^/$side,/" >>"$raw" ||
				die "the bench over the $side core failed"
		done
	done
	awk -F, -v OFS=, '
		{ k = $1 OFS $2 OFS $3 OFS $4; if (!(k in n)) o[++nk] = k
		  v[k, ++n[k]] = $5
		  if (!(k in lo) || $6 < lo[k]) lo[k] = $6
		  if ($7 > hi[k]) hi[k] = $7
		  runs[k] += $8 }
		END { for (i = 1; i <= nk; i++) { k = o[i]
			for (a = 1; a <= n[k]; a++) m[a] = v[k, a]
			for (a = 2; a <= n[k]; a++) for (b = a; b > 1 && m[b - 1] > m[b]; b--) { t = m[b]; m[b] = m[b - 1]; m[b - 1] = t }
			print k, m[int((n[k] + 1) / 2)], lo[k], hi[k], runs[k] } }' "$raw" |
		sort -t, -s -k1,1 >>"$csv"
	rm -f "$raw"
	gcsv=$RESULTS/bench/native-gate.csv
	echo "core,mode,cpus,waits,median_us,p99_us,max_us,verdict" >"$gcsv"
	for mode in claim acquire switch; do
		for cpus in ${GATE_CPUS:-8 16 32 64 256}; do
			for side in new old; do
				d=$dir
				[ $side = old ] && d=$old/tools/testing/hazptr
				out=$(cd "$d" && ./gate -c "$cpus" -d "${GATE_SECS:-3}" -m $mode) || true
				echo "$out" | awk -v s=$side -v m=$mode -v c="$cpus" '
					/^waits=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
					/^(PASS|FAIL)/ { verdict = $1 }
					END { printf "%s,%s,%s,%s,%s,%s,%s,%s\n", s, m, c, v["waits"], v["median_us"], v["p99_us"], v["max_us"], verdict }' >>"$gcsv"
			done
		done
	done
	echo "native (host CPU, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), this series (new) and $ref (old), ns per operation:"
	column -s, -t "$csv"
	echo "gate storm, bound ${GATE_BOUND_MS:-2000} ms per wait:"
	column -s, -t "$gcsv"
	echo "(csv: ${csv#"$TOP"/}, ${gcsv#"$TOP"/})"
	;;
*)
	die "usage: native.sh bench | native.sh run LOG PARAMS... | native.sh compare [REF]"
	;;
esac
