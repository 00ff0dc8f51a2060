#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the tests can see the bugs this code could have: apply each
# mutation of configs/mutations/ to the work tree, rebuild incrementally,
# run the tests that mutation names, restore the tree, and say whether a
# test failed (the mutation is caught) and how long it took.
#
#   mutate.sh [NAME...]       (default: every configs/mutations/*.patch)
#   REPEAT=5 mutate.sh NAME   apply once, run the tests 5 times (each run
#                             re-checks the build, a no-op, and the initramfs)
#   MUTATE_TESTS="a b" mutate.sh NAME
#                             run tests a and b instead of those the
#                             mutation's header names
#   MUTATIONS=DIR             the mutations of DIR (default configs/mutations;
#                             make mutate-next: configs/mutations/next/ with
#                             TREE=work/next and configs/tests-next.list)
#
# A mutation is a patch file against the work tree with the series applied;
# its header, before the diff, says what it breaks and which tests of
# configs/tests.list (TESTS_LIST) must catch it:
#
#   # what: the full barrier of hazptr_acquire() removed
#   # tests: hazptr-windows
#
# Prints "CAUGHT NAME by TEST in Ns" or "MISSED NAME", then as its last
# line "N caught, N missed"; exits 1 if a mutation was missed or does not
# apply.  With REPEAT=N a mutation counts as caught only if every one of
# the N runs failed; each run's failing tests and time are printed, then
# how many of the N runs each named test failed.  Logs:
# results/mutate/NAME/ (runN/ with REPEAT).  Not part of make test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

dir=${MUTATIONS:-$CONFIGS/mutations}
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: a mutation run would mix them in"

if [ $# -gt 0 ]; then
	muts=()
	for name in "$@"; do
		[ -f "$dir/$name.patch" ] ||
			die "unknown mutation '$name' (known: $(find "$dir" -maxdepth 1 -name '*.patch' -printf '%f\n' | sed 's/\.patch$//' | LC_ALL=C sort | tr '\n' ' '))"
		muts+=("$dir/$name.patch")
	done
else
	muts=("$dir"/*.patch)
	[ -e "${muts[0]}" ] || die "no mutation in $dir"
fi

repeat=${REPEAT:-1}
is_uint "$repeat" REPEAT
repeat=$((10#$repeat))

restore() {
	git -C "$TREE" checkout -q -- . 2>/dev/null || true
}
trap restore EXIT

# The tests a mutation names, each with how many of the runs it failed.
per_test() {
	local t list=
	for t in $tests; do list+="$t ${fails[$t]:-0}/$repeat, "; done
	echo "${list%, }"
}

caught=0 missed=0
for m in "${muts[@]}"; do
	name=$(basename "$m" .patch)
	tests=$(sed -n 's/^# tests: //p' "$m" | head -1)
	[ -n "$tests" ] || die "$name: no '# tests:' line"
	tests=${MUTATE_TESTS:-$tests}
	if ! git -C "$TREE" apply --check "$m" 2>/dev/null; then
		echo "MISSED $name: does not apply to the work tree (update ${m#"$TOP"/})"
		missed=$((missed + 1))
		continue
	fi
	git -C "$TREE" apply "$m"
	rm -rf "$RESULTS/mutate/$name"
	declare -A fails=()
	runs_caught=0 broken=''
	for ((i = 1; i <= repeat; i++)); do
		out=$RESULTS/mutate/$name
		[ "$repeat" -eq 1 ] || out+=/run$i
		mkdir -p "$out"
		start=$(date +%s)
		RESULTS=$out TESTS="$tests" "$TOP/scripts/run-tests.sh" >"$out/run.log" 2>&1 && rc=0 || rc=$?
		secs=$(($(date +%s) - start))
		# A kernel, the initramfs or the native harness (native.sh exit
		# 3) that does not build is neither a catch nor a miss.
		broken=$(grep -m1 -E '^FAIL .*(did not build|got exit 3)' "$out/run.log" || true)
		if [ -n "$broken" ]; then
			broken="run $i: $broken"
			[ "$i" -eq 1 ] || broken+=" (runs 1-$((i - 1)) built)"
			break
		fi
		by=$(sed -n 's/^FAIL \([^ ]*\) (.*/\1/p' "$out/run.log" | sort -u | tr '\n' ' ' | sed 's/ $//')
		[ "$rc" = 0 ] || [ -n "$by" ] ||
			die "$name: run-tests.sh failed without a FAIL line (log: ${out#"$TOP"/}/run.log)"
		for t in $by; do fails[$t]=$((${fails[$t]:-0} + 1)); done
		[ "$rc" = 0 ] || runs_caught=$((runs_caught + 1))
		[ "$repeat" -eq 1 ] ||
			echo "  $name run $i/$repeat: ${by:-nothing failed} (${secs}s, build and initramfs included)"
	done
	restore
	if [ -n "$broken" ]; then
		echo "MISSED $name: does not build, $broken (log: ${out#"$TOP"/}/run.log)"
		missed=$((missed + 1))
	elif [ "$runs_caught" -eq "$repeat" ]; then
		if [ "$repeat" -eq 1 ]; then
			echo "CAUGHT $name by $by in ${secs}s"
		else
			echo "CAUGHT $name in $repeat/$repeat runs ($(per_test))"
		fi
		caught=$((caught + 1))
	elif [ "$repeat" -eq 1 ]; then
		echo "MISSED $name: $tests passed (log: ${out#"$TOP"/}/run.log)"
		missed=$((missed + 1))
	else
		echo "MISSED $name: caught in $runs_caught/$repeat runs ($(per_test))"
		missed=$((missed + 1))
	fi
	unset fails
done
echo "$caught caught, $missed missed"
[ "$missed" = 0 ]
