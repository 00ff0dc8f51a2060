#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check a console log written by boot.sh.
#
#   check-log.sh LOG [--expect SUCCESS|FAILURE]
#
# Fails (exit 1, showing the offending lines and the log's last 40 lines) on
#  - any kernel splat: WARNING:, BUG:, KASAN, Kernel panic, Oops, lockdep
#    reports, RCU stalls, soft lockups, hung tasks, Call Trace:, and a
#    test-only boot parameter the kernel rejected (configs/test-only/)
#  - QEMU not having exited by itself (boot.sh's footer rc=N, N != 0)
#  - a stress-ng job that did not end, or ended with rc != 0
#    (HAZPTR-STRESS-BEGIN ... HAZPTR-STRESS-END rc=N)
#  - a job of /init that failed ("HAZPTR-INIT: error: ...", or a result
#    line "HAZPTR-<JOB> ... error=...")
#  - KUnit output (KTAP) with a "not ok" line, or without "# Totals: pass:N
#    fail:0"; a warning a KUnit test announces with "expect one WARNING:
#    TEXT" is not a splat, nor are the lines containing TEXT between a
#    test's "expect lines: TEXT" and "no more lines: TEXT"
#    A failure injected on request ("FAULT_INJECTION: forcing a failure."
#    and its stack) is not a splat either.
#  - a hazard pointer stall report ("hazptr: stall: ...")
#  - a KCSAN report ("BUG: KCSAN: ...", up to its closing "=====" line)
#    whose title ("data-race in A / B": the functions that made the two
#    accesses, series code inlined into them included) names code of the
#    series: hazptr, fd_install, expand_fdtable, is_dynamic_key,
#    lockdep_unregister_key.  A race between two other functions is listed
#    ("KCSAN-OUTSIDE: TITLE") and is not a failure, even when series code
#    is further down a stack (a torture reader sleeping in usleep, the
#    worker queued by hazptr_kick())
#  - with --expect V: no "End of test: V" line, or an "End of test:" line
#    with the other verdict (torture tests print e.g.
#    "[   12.3] hazptr-torture: --- End of test: SUCCESS ...").
# Prints one line "PASS-LOG ..." when the log is clean.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage="usage: check-log.sh LOG [--expect SUCCESS|FAILURE]"
log= expect=
while [ $# -gt 0 ]; do
	case $1 in
	--expect)
		expect=${2:-}
		case $expect in SUCCESS|FAILURE) ;; *) die "--expect needs SUCCESS or FAILURE, not '$expect'" ;; esac
		shift ;;
	-*) die "unknown option '$1' ($usage)" ;;
	*) [ -z "$log" ] || die "$usage"; log=$1 ;;
	esac
	shift
done
[ -n "$log" ] || die "$usage"
[ -f "$log" ] || die "no such log: $log"

# Kernel splats, one extended regex per line.
SPLATS='WARNING:
BUG:
KASAN
Kernel panic
Oops
possible recursive locking
circular locking dependency
inconsistent lock state
INFO: possible
BUG: sleeping function
rcu_.* self-detected stall
detected stalls
rcu: INFO:
hazptr: stall
soft lockup
hung_task
blocked for more than
Call Trace:
test-only: bad boot parameter'

problems=()
offending=
body=$(grep -v '^# boot.sh:' "$log" | tr -d '\r' || true)
# grepn ERE: matching lines of the log as "NUMBER:TEXT", boot.sh's lines excluded.
grepn() {
	tr -d '\r' <"$log" | grep -nE "$@" | grep -v '^[0-9]*:# boot.sh:' || true
}

# A KUnit test that provokes a warning on purpose announces it with
# "expect one WARNING: TEXT"; the first report that starts with a line
# containing TEXT, up to its "---[ end trace" line, is then not a splat (the
# announcements themselves neither). Line numbers are kept.  Reports printed
# at once on two CPUs interleave (an exiting kthread's report runs on while
# the next test provokes its own): each expected report that starts inside
# another adds one "---[ end trace" line to wait for.  A report whose end
# never comes stops being skipped 150 lines after the last one started.
#
# Likewise, the lines that contain TEXT between "expect lines: TEXT" and "no
# more lines: TEXT" (a test that provokes a report of several lines, such as
# a stall report).
#
# A KCSAN report that names no code of the series (KCSAN_SERIES) is left
# out of the scan, its title written to $kcsan_out.
KCSAN_SERIES='hazptr|fd_install|expand_fdtable|is_dynamic_key|lockdep_unregister_key'
kcsan_out=$(mktemp)
trap 'rm -f "$kcsan_out"' EXIT
expected=$(tr -d '\r' <"$log" | sed -n 's/.*expect one WARNING: //p')
scan=$(tr -d '\r' <"$log" | awk -v expected="$expected" -v series="$KCSAN_SERIES" -v out="$kcsan_out" '
	BEGIN { n = split(expected, want, "\n") }
	/BUG: KCSAN: / {
		kc = 1; kn = 0; title = $0; sub(/.*BUG: KCSAN: /, "", title)
		ours = title ~ series
	}
	kc {
		kb[++kn] = $0
		if (kn > 1 && /==========/) {
			for (i = 1; i <= kn; i++) print (ours ? kb[i] : "")
			if (!ours) print "KCSAN-OUTSIDE: " title >out
			kc = 0
		}
		next
	}
	# A failure injected by a fail_* boot parameter (its stack, up to the
	# end of the task context), which the test asked for.
	/FAULT_INJECTION: forcing a failure/ { fi = 1; fin = 0; print ""; next }
	fi { print ""; if (/<\/TASK>/ || ++fin > 60) fi = 0; next }
	/expect one WARNING: / { print ""; next }
	/expect lines: / { sub(/.*expect lines: /, ""); lines = $0; print ""; next }
	/no more lines: / { lines = ""; print ""; next }
	lines != "" && index($0, lines) { print ""; next }
	{
		for (i = 1; i <= n; i++)
			if (want[i] != "" && index($0, want[i])) {
				want[i] = ""; skip++; since = 0; print ""; next
			}
	}
	skip && ++since > 150 { skip = 0 }
	skip { print ""; if (/---\[ end trace/) skip--; next }
	{ print }')
splat=$(printf '%s\n' "$scan" | grep -nE -f <(printf '%s\n' "$SPLATS") |
	grep -v '^[0-9]*:# boot.sh:' | head -20 || true)
if [ -n "$splat" ]; then
	problems+=("kernel splat")
	offending+=$splat$'\n'
fi

qrc=$(sed -n 's/^# boot.sh: qemu exited rc=\([0-9]*\).*/\1/p' "$log" | tail -1)
if [ -n "$qrc" ] && [ "$qrc" != 0 ]; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		problems+=("QEMU timed out")
	else
		problems+=("QEMU exited with $qrc")
	fi
fi

nbegin=$(printf '%s\n' "$body" | grep -c '^HAZPTR-STRESS-BEGIN' || true)
if [ "$nbegin" -gt 0 ]; then
	rcs=$(printf '%s\n' "$body" | sed -n 's/^HAZPTR-STRESS-END rc=\([0-9]*\).*/\1/p')
	src=$(printf '%s\n' "$rcs" | grep -v '^0$' | head -1 || true)
	if [ "$(printf '%s\n' "$rcs" | grep -c .)" -lt "$nbegin" ]; then
		problems+=("stress-ng did not finish")
	elif [ -n "$src" ]; then
		problems+=("stress-ng rc=$src")
		offending+=$(grepn 'stress-ng: (fail|error)|HAZPTR-STRESS-END' | head -10)$'\n'
	fi
fi

# A job of /init that failed (unknown job, missing parameter, a benchmark
# program's error).
joberr=$(grepn '^HAZPTR-INIT: error:|^HAZPTR-[A-Z]+ .*error=' | head -10)
if [ -n "$joberr" ]; then
	problems+=("guest job error")
	offending+=$joberr$'\n'
fi

# KUnit (KTAP) results, when the kernel ran KUnit tests: none may fail.
if grep -q 'KTAP version' "$log"; then
	notok=$(grepn '^(\[[^]]*\] )? *not ok ' | head -10)
	if [ -n "$notok" ]; then
		problems+=("KUnit test failed")
		offending+=$notok$'\n'
	elif ! grep -qE '# Totals: pass:[1-9][0-9]* fail:0 ' "$log"; then
		problems+=("no KUnit totals with fail:0")
	fi
fi

verdicts=$(grepn 'End of test: (SUCCESS|FAILURE)')
if [ -n "$expect" ]; then
	other=SUCCESS; [ "$expect" = SUCCESS ] && other=FAILURE
	if ! printf '%s\n' "$verdicts" | grep -q "End of test: $expect"; then
		if [ -n "$verdicts" ]; then
			problems+=("verdict not $expect")
			offending+=$verdicts$'\n'
		else
			problems+=("no 'End of test:' verdict (expected $expect)")
		fi
	elif printf '%s\n' "$verdicts" | grep -q "End of test: $other"; then
		problems+=("both verdicts present")
		offending+=$verdicts$'\n'
	fi
fi

# KCSAN reports outside the series: listed, not failures.
sort "$kcsan_out" | uniq -c | sed 's/^ *\([0-9]*\) KCSAN-OUTSIDE: \(.*\)/KCSAN-OUTSIDE: \2 (x\1)/'

if [ ${#problems[@]} -gt 0 ]; then
	reason=$(IFS=';'; echo "${problems[*]}" | sed 's/;/; /g')
	echo "FAIL-LOG $log: $reason"
	if [ -n "$offending" ]; then
		echo "---- offending lines (line number: text) ----"
		printf '%s' "$offending" | head -30
	fi
	echo "---- last 40 lines of $log ----"
	tail -40 "$log"
	exit 1
fi
echo "PASS-LOG $log${expect:+: End of test: $expect}"
