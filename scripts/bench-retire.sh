#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hazptr_retire() under load: the hazptr-retire torture type on the
# 'preempt' kernel, once per reader count and reader hold time, and the
# worker's counters at the end: passes, objects freed per pass, objects
# kept for a later pass (protected when the pass ran), the largest backlog
# of retired, not yet freed objects, and the writer's replacements per
# second.
#
#   bench-retire.sh      READERS="1 2 4" SLEEP_US="0 100 1000" SECS=20 SMP=2
#
# Writes results/bench/retire.csv and its logs, and prints the table.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

readers=${READERS:-1 2 4} sleeps=${SLEEP_US:-0 100 1000} secs=${SECS:-20} smp=${SMP:-2}
is_uint "$secs" SECS
is_uint "$smp" SMP
for n in $readers; do is_uint "$n" READERS; done
for s in $sleeps; do
	[[ $s =~ ^[0-9]+$ ]] || die "SLEEP_US values must be integers >= 0, not '$s'"
done
[ "$secs" -ge 5 ] || die "SECS must be at least 5 (the torture test needs time to start), not $secs"

"$TOP/scripts/build.sh" preempt >/dev/null
[ -f "$INITRAMFS" ] || "$TOP/scripts/initramfs.sh"
out=$RESULTS/bench
mkdir -p "$out"
csv=$out/retire.csv
echo "nreaders,reader_sleep_us,secs,replacements,scans,freed,freed_per_scan,kept,backlog_max" >"$csv"
for n in $readers; do
	for s in $sleeps; do
		log=$out/retire-r$n-s$s.log
		"$TOP/scripts/boot.sh" -k preempt -n "retire-r$n-s$s" -s "$smp" -t $((3 * secs + 60)) -l "$log" -- \
			hazptrtorture.torture_type=hazptr-retire hazptrtorture.nreaders="$n" \
			hazptrtorture.reader_sleep_us="$s" hazptrtorture.stutter=0 \
			hazptrtorture.shutdown_secs="$secs" hazptrtorture.stat_interval=0 \
			hazptr_job=idle hazptr_idle_max=$((2 * secs + 30)) >/dev/null ||
			die "boot retire-r$n-s$s failed (log: ${log#"$TOP"/})"
		"$TOP/scripts/check-log.sh" "$log" --expect SUCCESS >/dev/null || {
			"$TOP/scripts/check-log.sh" "$log" --expect SUCCESS || true
			die "boot retire-r$n-s$s: not a clean SUCCESS"
		}
		# The end-of-test statistics: "rtc: ... ver: N" and "Retire: ...".
		tr -d '\r' <"$log" | awk -v n="$n" -v s="$s" -v t="$secs" '
			/-torture: rtc:/ { for (i = 1; i < NF; i++) if ($i == "ver:") ver = $(i + 1) }
			/-torture: Retire:/ { for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
			END { printf "%d,%d,%d,%d,%d,%d,%.1f,%d,%d\n", n, s, t, ver, v["scans"], v["freed"],
				v["scans"] ? v["freed"] / v["scans"] : 0, v["kept"], v["backlog_max"] }' >>"$csv"
		note "readers $n sleep ${s}us: $(tail -1 "$csv")"
	done
done

echo
echo "hazptr_retire() under the hazptr-retire torture test (${secs}s per boot, $smp vCPUs, TCG):"
column -t -s, "$csv"
echo "(csv and logs: ${out#"$TOP"/}/)"
