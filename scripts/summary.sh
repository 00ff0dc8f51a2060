#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One table for console logs written by boot.sh.
#
#   summary.sh LOG...
#
# Columns (a missing field shows '-'):
#   TEST, KERNEL  from boot.sh's header "# boot.sh: test=NAME kernel=KERNEL ..."
#                 (else the log's file name and '-')
#   VERDICT       last "End of test: SUCCESS|FAILURE" of a torture test
#   LOG           'clean', or check-log.sh's reason (without --expect)
#   READER-PIPE   numbers of the last "<type>-torture: Reader Pipe:  N0 N1 ..."
#   OPS           the last "<type>-torture: Ops: acq N rel N acqirq N ..."
#                 without the prefix; for hazptr-retire, then the last
#                 "Retire:" line: worker passes, objects freed (per pass)
#                 and the largest backlog (and passes without a snapshot,
#                 if any); when some hazptr_synchronize() pass let several
#                 callers return or a release kicked the worker, the last
#                 "Sync:" line
#   STRESS        stress-ng's result: rc=N, then stressor=bogo-ops/s (real
#                 time) per stressor of --metrics-brief, from the lines
#                 between HAZPTR-STRESS-BEGIN and HAZPTR-STRESS-END; and
#                 fdexpand(n=N)=MEDIANus,p99=Xus, expand_fdtable() latency
#                 from the fdexpand job (guest/fdexpand.c); and
#                 NAME=MEDIANus for each HAZPTR-TIMEIT line (lockdepkeys
#                 job, guest/timeit.c)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: summary.sh LOG..."
for log in "$@"; do
	[ -f "$log" ] || die "no such log: $log"
done

# The last "<type>-torture: WHAT: key value ..." line of $body, printed by the
# awk statement PRINT over v["key"]; nothing if the log has no such line.
torture_stats() {
	printf '%s\n' "$body" | grep -E -- "-torture: $1:" | tail -1 |
		awk "{ for (i = 1; i < NF; i++) v[\$i] = \$(i + 1) } END { if (NR) $2 }" || true
}

row() {
	local log=$1 test kernel verdict check pipe ops stress body retire sync
	body=$(grep -v '^# boot.sh: cmdline' "$log" | tr -d '\r')
	test=$(sed -n 's/^# boot.sh: test=\([^ ]*\).*/\1/p' "$log" | head -1)
	kernel=$(sed -n 's/^# boot.sh: .* kernel=\([^ ]*\).*/\1/p' "$log" | head -1)
	[ -n "$test" ] || test=$(basename "$log" .log)
	verdict=$(printf '%s\n' "$body" | grep -oE 'End of test: (SUCCESS|FAILURE)' | tail -1 | awk '{print $4}' || true)
	# The whole output (KCSAN-OUTSIDE lines may come first), then its verdict.
	check=$("$TOP/scripts/check-log.sh" "$log" 2>/dev/null || true)
	check=$(printf '%s\n' "$check" | sed -n "s|^FAIL-LOG $log: ||p" | head -1)
	[ -n "$check" ] || check=clean
	pipe=$(printf '%s\n' "$body" | grep -E 'Reader Pipe:' | tail -1 |
		sed 's/.*Reader Pipe:[[:space:]]*//' | tr -s ' \t' ' ' | sed 's/ $//' || true)
	ops=$(printf '%s\n' "$body" | grep -E -- '-torture: Ops:' | tail -1 |
		sed 's/.*-torture: Ops:[[:space:]]*//' | tr -s ' \t' ' ' | sed 's/ $//' || true)
	# hazptr-retire: the worker's passes and objects freed per pass.
	retire=$(torture_stats Retire 'printf "retire: scans %d freed %d (%.1f/scan) backlog_max %d",
		v["scans"], v["freed"], v["scans"] ? v["freed"] / v["scans"] : 0, v["backlog_max"]
		if (v["nosnap"]) printf " nosnap %d", v["nosnap"]')
	[ -z "$retire" ] || ops=${ops:+$ops; }$retire
	# Several writers: hazptr_synchronize() passes that served several calls.
	sync=$(torture_stats Sync 'if (v["shared"] || v["kicks"]) printf "sync: waits %d scans %d shared %d done_max %d kicks %d",
		v["waits"], v["scans"], v["shared"], v["done_max"], v["kicks"]')
	[ -z "$sync" ] || ops=${ops:+$ops; }$sync
	stress=$(printf '%s\n' "$body" | awk '
		/^HAZPTR-STRESS-BEGIN/ { in_s = 1; next }
		# Several runs: the first non-zero rc, the stressors of all.
		/^HAZPTR-STRESS-END/ { in_s = 0; sub(/.*rc=/, ""); if (rc == "" || rc == "0") rc = $0; done = 1; next }
		in_s && /stress-ng: [a-z]+: +\[[0-9]+\] / {
			# stressor, bogo ops, real, usr, sys, ops/s (real), ops/s (usr+sys)
			n = split($0, f, /[ \t]+/)
			for (i = 1; i <= n; i++) if (f[i] ~ /^\[[0-9]+\]$/) break
			if (n - i == 7 && f[i + 2] ~ /^[0-9]+$/ && f[i + 6] ~ /^[0-9.]+$/)
				out = out (out == "" ? "" : " ") f[i + 1] "=" f[i + 6]
		}
		END { if (done || in_s) printf "rc=%s%s%s", (done ? rc : "none"), (out == "" ? "" : " "), out }')
	fdx=$(printf '%s\n' "$body" | grep -E '^HAZPTR-FDEXPAND ' | tail -1 |
		sed -n 's/.* n=\([0-9]*\) median_us=\([^ ]*\) .*p99_us=\([^ ]*\).*/fdexpand(n=\1)=\2us,p99=\3us/p' || true)
	[ -z "$fdx" ] || stress=${stress:+$stress }$fdx
	tim=$(printf '%s\n' "$body" | grep -E '^HAZPTR-TIMEIT ' |
		sed -n 's/^HAZPTR-TIMEIT name=\([^ ]*\) .*median_us=\([0-9.]*\).*/\1=\2us/p' | tr '\n' ' ' || true)
	tim=${tim% }
	[ -z "$tim" ] || stress=${stress:+$stress }$tim
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$test" "${kernel:--}" "${verdict:--}" \
		"${check:--}" "${pipe:--}" "${ops:--}" "${stress:--}"
}

{
	printf 'TEST\tKERNEL\tVERDICT\tLOG\tREADER-PIPE\tOPS\tSTRESS (bogo-ops/s)\n'
	for log in "$@"; do
		row "$log"
	done
} | awk -F'\t' '
	{ rows[NR] = $0; for (i = 1; i <= NF; i++) if (length($i) > w[i]) w[i] = length($i); nf = NF }
	END {
		for (r = 1; r <= NR; r++) {
			n = split(rows[r], f, "\t")
			line = ""
			for (i = 1; i <= n; i++)
				line = line (i < n ? sprintf("%-" w[i] "s  ", f[i]) : f[i])
			print line
		}
	}'
