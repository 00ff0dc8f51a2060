#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the tests can see the bugs this code could have: apply each
# mutation of configs/mutations/ to the work tree, rebuild incrementally,
# run the tests that mutation names, restore the tree, and say whether a
# test failed (the mutation is caught) and how long it took.
#
#   mutate.sh [NAME...]       (default: every configs/mutations/*.patch)
#
# A mutation is a patch file against the work tree with the series applied;
# its header, before the diff, says what it breaks and which tests of
# configs/tests.list must catch it:
#
#   # what: the full barrier of hazptr_acquire() removed
#   # tests: hazptr-windows
#
# Prints "CAUGHT NAME by TEST in Ns" or "MISSED NAME", then as its last
# line "N caught, N missed"; exits 1 if a mutation was missed or does not
# apply.  Logs: results/mutate/NAME/.  Not part of make test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

dir=$CONFIGS/mutations
[ -d "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: a mutation run would mix them in"

if [ $# -gt 0 ]; then
	muts=()
	for name in "$@"; do
		[ -f "$dir/$name.patch" ] ||
			die "unknown mutation '$name' (known: $(ls "$dir" | sed 's/\.patch$//' | tr '\n' ' '))"
		muts+=("$dir/$name.patch")
	done
else
	muts=("$dir"/*.patch)
	[ -e "${muts[0]}" ] || die "no mutation in $dir"
fi

restore() {
	git -C "$TREE" checkout -q -- . 2>/dev/null || true
}
trap restore EXIT

caught=0 missed=0
for m in "${muts[@]}"; do
	name=$(basename "$m" .patch)
	tests=$(sed -n 's/^# tests: //p' "$m" | head -1)
	[ -n "$tests" ] || die "$name: no '# tests:' line"
	if ! git -C "$TREE" apply --check "$m" 2>/dev/null; then
		echo "MISSED $name: does not apply to the work tree (update ${m#"$TOP"/})"
		missed=$((missed + 1))
		continue
	fi
	git -C "$TREE" apply "$m"
	out=$RESULTS/mutate/$name
	mkdir -p "$out"
	start=$(date +%s)
	RESULTS=$out TESTS="$tests" "$TOP/scripts/run-tests.sh" >"$out/run.log" 2>&1 && rc=0 || rc=$?
	secs=$(($(date +%s) - start))
	restore
	if grep -q '^FAIL .*did not build' "$out/run.log"; then
		echo "MISSED $name: the mutated kernel does not build (log: ${out#"$TOP"/}/run.log)"
		missed=$((missed + 1))
	elif [ "$rc" != 0 ]; then
		by=$(sed -n 's/^FAIL \([^ ]*\) (.*/\1/p' "$out/run.log" | sort -u | tr '\n' ' ' | sed 's/ $//')
		echo "CAUGHT $name by $by in ${secs}s"
		caught=$((caught + 1))
	else
		echo "MISSED $name: $tests passed (log: ${out#"$TOP"/}/run.log)"
		missed=$((missed + 1))
	fi
done
echo "$caught caught, $missed missed"
[ "$missed" = 0 ]
