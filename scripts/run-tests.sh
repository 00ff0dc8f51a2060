#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the test matrix of configs/tests.list (format described there): build
# each kernel it needs once, build the initramfs, boot every test under QEMU
# and check its log.
#
#   TESTS="hazptr stress-smoke" run-tests.sh    # a subset (default: all)
#
# Prints "PASS NAME" or "FAIL NAME (reason)" per test, then the summary
# table, then as its last line "N passed, N failed"; exits 1 on any failure.
# SMP (default 2), ACCEL, STAT_INTERVAL (default 10) and TIMEOUT (overrides
# the per-test 2 x DURATION + 60 s) are passed on; TESTS_LIST picks another
# matrix file; TEST_DURATION replaces every test's DURATION, stress-ng's -t
# and a native test's seconds (make soak).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

list=${TESTS_LIST:-$CONFIGS/tests.list}
[ -f "$list" ] || die "no test list $list"
stat_interval=${STAT_INTERVAL:-10}
is_uint "$stat_interval" STAT_INTERVAL
[ -z "${TIMEOUT:-}" ] || is_uint "$TIMEOUT" TIMEOUT
[ -z "${TEST_DURATION:-}" ] || is_uint "$TEST_DURATION" TEST_DURATION
export SMP=${SMP:-2}
is_uint "$SMP" SMP

declare -A t_kernel t_expect t_duration t_params
order=()
n=0
while read -r tname tkernel texpect tduration tparams; do
	n=$((n + 1))
	case $tname in ''|'#'*) continue ;; esac
	where="${list#"$TOP"/}:$n"
	[ -n "${t_kernel[$tname]:-}" ] && die "$where: test '$tname' defined twice"
	case $tkernel in native|model) ;; *)
		[ -f "$CONFIGS/kernels/$tkernel" ] ||
			die "$where: unknown kernel '$tkernel' (known: native model $(known_kernels))" ;;
	esac
	case $texpect in SUCCESS|FAILURE|-) ;; *) die "$where: EXPECT must be SUCCESS, FAILURE or -, not '$texpect'" ;; esac
	[[ $tduration =~ ^[0-9]+$ ]] && [ "$tduration" -gt 0 ] ||
		die "$where: DURATION must be a positive integer, not '$tduration'"
	t_kernel[$tname]=$tkernel t_expect[$tname]=$texpect
	t_duration[$tname]=$tduration t_params[$tname]=$tparams
	order+=("$tname")
done <"$list"
[ ${#order[@]} -gt 0 ] || die "$list lists no test"

selected=()
if [ -n "${TESTS:-}" ]; then
	for tname in $(echo "$TESTS" | tr ',' ' '); do
		[ -n "${t_kernel[$tname]:-}" ] ||
			die "unknown test '$tname' (known: ${order[*]})"
		selected+=("$tname")
	done
else
	selected=("${order[@]}")
fi

passed=0 failed=0 logs=() failures=() kcsan=()
pass() { echo "PASS $1"; passed=$((passed + 1)); }
# fail NAME REASON [FIRST-OFFENDING-LINE]: the failures are repeated after
# the summary table, so that the end of the output alone says what broke.
fail() {
	echo "FAIL $1 ($2)"
	failed=$((failed + 1))
	failures+=("FAIL $1 ($2)${3:+: $3}")
}

# Build each kernel once, the initramfs once ('native' and 'model' tests
# need neither).
host_test() { [ "$1" = native ] || [ "$1" = model ]; }
declare -A built
for tname in "${selected[@]}"; do
	k=${t_kernel[$tname]}
	host_test "$k" && continue
	[ -n "${built[$k]:-}" ] && continue
	if "$TOP/scripts/build.sh" "$k" >/dev/null; then built[$k]=ok; else built[$k]=failed; fi
done
# One initramfs per guest architecture among the selected kernels.
declare -A initramfs
for tname in "${selected[@]}"; do
	k=${t_kernel[$tname]}
	host_test "$k" && continue
	a=$(kernel_arch "$k")
	[ -n "${initramfs[$a]:-}" ] && continue
	if "$TOP/scripts/initramfs.sh" "$a"; then initramfs[$a]=ok; else initramfs[$a]=failed; fi
done

mkdir -p "$RESULTS"
for tname in "${selected[@]}"; do
	k=${t_kernel[$tname]} d=${TEST_DURATION:-${t_duration[$tname]}} expect=${t_expect[$tname]}
	params=${t_params[$tname]}
	# make soak: stress-ng runs as long as the torture tests.
	[ -z "${TEST_DURATION:-}" ] ||
		params=$(echo "$params" | sed -E "s/-t,[0-9]+s/-t,${TEST_DURATION}s/g")
	if host_test "$k"; then
		# The core on the host CPU (scripts/native.sh) or a model
		# (scripts/model.sh): exit 0 PASS, 1 FAIL, 2 neither, 3 the
		# harness or model did not build.
		log=$RESULTS/$tname.log
		rc=0
		# shellcheck disable=SC2086
		"$TOP/scripts/$k.sh" run "$log" -d "$d" $params 2>/dev/null || rc=$?
		verdict=$(grep -m1 -E '^(PASS|FAIL)|^WARNING: ThreadSanitizer' "$log" 2>/dev/null || true)
		case $expect:$rc in
		SUCCESS:0|-:0) pass "$tname" ;;
		FAILURE:1)
			if [ -n "$verdict" ] && [ "${verdict#PASS}" = "$verdict" ]; then
				pass "$tname"
			else
				fail "$tname" "expected FAIL, the harness did not run" "$(tail -1 "$log" 2>/dev/null)"
			fi
			;;
		*) fail "$tname" "expected ${expect/-/PASS}, got exit $rc" "${verdict:-$(tail -1 "$log" 2>/dev/null)}" ;;
		esac
		continue
	fi
	if [ "${built[$k]}" != ok ]; then fail "$tname" "kernel $k did not build"; continue; fi
	a=$(kernel_arch "$k")
	if [ "${initramfs[$a]}" != ok ]; then fail "$tname" "the $a initramfs did not build"; continue; fi
	case " $params " in
	*" hazptr_job="*) ;;
	*)
		# A torture boot: it needs the torture test built in.
		if ! grep -qx 'CONFIG_HAZPTR_TORTURE_TEST=y' "$BUILD/$k/.config"; then
			fail "$tname" "kernel $k lacks CONFIG_HAZPTR_TORTURE_TEST=y"
			continue
		fi
		params+=" hazptrtorture.shutdown_secs=$d hazptrtorture.stat_interval=$stat_interval"
		# If the test never shuts down, /init gives up a minute later.
		params+=" hazptr_job=idle hazptr_idle_max=$((d + 60))"
		;;
	esac
	log=$RESULTS/$tname.log
	timeout=${TIMEOUT:-$((2 * d + 60))}
	rm -f "$log"
	if ! "$TOP/scripts/boot.sh" -k "$k" -n "$tname" -t "$timeout" -l "$log" -- $params >/dev/null 2>"$RESULTS/$tname.boot.err"; then
		cat "$RESULTS/$tname.boot.err"
		[ -f "$log" ] && logs+=("$log")
		if grep -q 'timed out after' "$RESULTS/$tname.boot.err"; then
			fail "$tname" "QEMU timed out after ${timeout}s"
		else
			fail "$tname" "$(grep -m1 'error:' "$RESULTS/$tname.boot.err" | sed 's/.*error: //')"
		fi
		continue
	fi
	logs+=("$log")
	args=("$log")
	[ "$expect" = - ] || args+=(--expect "$expect")
	rc=0
	out=$("$TOP/scripts/check-log.sh" "${args[@]}") || rc=$?
	# KCSAN reports outside the series' code: listed after the summary.
	while read -r line; do
		kcsan+=("$tname: ${line#KCSAN-OUTSIDE: }")
	done < <(echo "$out" | grep '^KCSAN-OUTSIDE: ' || true)
	out=$(echo "$out" | grep -v '^KCSAN-OUTSIDE: ' || true)
	if [ "$rc" = 0 ]; then
		pass "$tname"
	else
		echo "$out" | tail -n +2
		fail "$tname" "$(echo "$out" | head -1 | sed "s|^FAIL-LOG $log: ||")" \
			"$(echo "$out" | sed -n '/^---- offending lines/{n;p;q}')"
	fi
done

if [ ${#logs[@]} -gt 0 ]; then
	echo
	"$TOP/scripts/summary.sh" "${logs[@]}" || true
fi
if [ ${#kcsan[@]} -gt 0 ]; then
	echo
	echo "KCSAN reports outside the series' code (not failures; see check-log.sh):"
	printf '  %s\n' "${kcsan[@]}"
fi
if [ ${#failures[@]} -gt 0 ]; then
	echo
	printf '%s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
