#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak one entry of the test matrix (configs/tests.list, the model checks
# and the tests that must fail left out), the next in a fixed rotation:
# the entry after the one of the last row of docs/data/soak.tsv.  It runs
# for DURATION seconds (default 1800; a stress-ng or native test runs that
# long too), and one row is appended to docs/data/soak.tsv:
#
#   date  commit  test  seconds  ops  verdict
#
# ops: the reads of a torture test (all ages), a stress-ng or native test's
# first count, '-' if none.  verdict: PASS or FAIL (the run's reason).
#
#   soak-next.sh            TEST=NAME soaks NAME instead (no rotation)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list=$CONFIGS/tests.list
tsv=$TOP/docs/data/soak.tsv
secs=${DURATION:-1800}
is_uint "$secs" DURATION
[ "$secs" -gt 0 ] || die "DURATION must be positive"

# Tests that must fail (hazptr-busted, a mutation's native run) prove
# nothing by running longer: they are left out.
mapfile -t names < <(awk '!/^#/ && NF && $2 != "model" && $3 != "FAILURE" { print $1 }' "$list")
[ ${#names[@]} -gt 0 ] || die "$list lists no test to soak"
if [ -n "${TEST:-}" ]; then
	printf '%s\n' "${names[@]}" | grep -qx -- "$TEST" ||
		die "unknown test '$TEST' (known: ${names[*]})"
	name=$TEST
else
	last=$( [ -f "$tsv" ] && awk -F'\t' 'NR > 1 { t = $3 } END { print t }' "$tsv" || true)
	next=0
	for i in "${!names[@]}"; do
		[ "${names[$i]}" = "$last" ] && next=$(( (i + 1) % ${#names[@]} ))
	done
	name=${names[$next]}
fi

mkdir -p "$RESULTS/soak" "$(dirname "$tsv")"
log=$RESULTS/soak/$name.log
note "soaking $name for $secs s (log: ${log#"$TOP"/})"
start=$(date +%s)
rc=0
TEST_DURATION=$secs TESTS=$name "$TOP/scripts/run-tests.sh" >"$log" 2>&1 || rc=$?
took=$(( $(date +%s) - start ))
tail -n 1 "$log"
if [ "$rc" = 0 ]; then
	verdict=PASS
else
	verdict="FAIL $(grep -m1 "^FAIL $name" "$log" | sed "s/^FAIL $name //")"
fi
# The reads of the summary row's reader pipe, or a native run's reads=.
ops=$(awk -v t="$name" '$1 == t && $5 ~ /^[0-9]+$/ { s = 0; for (i = 5; i <= 15; i++) s += $i; print s; exit }' "$log")
[ -n "$ops" ] || ops=$(sed -n 's/.*reads=\([0-9]*\).*/\1/p; s/.*reader_protections=\([0-9]*\).*/\1/p' \
	"$RESULTS/$name.log" 2>/dev/null | head -1)
[ -f "$tsv" ] || printf 'date\tcommit\ttest\tseconds\tops\tverdict\n' >"$tsv"
printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
	"$(git -C "$TOP" rev-parse --short HEAD)" "$name" "$took" "${ops:--}" \
	"$verdict" >>"$tsv"
note "appended to ${tsv#"$TOP"/}: $name $verdict"
[ "$rc" = 0 ]
