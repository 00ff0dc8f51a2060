#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hazptr_retire() under load, two ways:
#  - the hazptr-retire torture type on the 'preempt' kernel, once per
#    reader count and reader hold time, and the worker's counters at the
#    end: passes, objects freed per pass, objects kept for a later pass
#    (protected when the pass ran), the largest backlog of retired, not yet
#    freed objects, and the writer's replacements per second.  Its backlog
#    is bounded by the torture test's object pool;
#  - a storm: refscale's hazptr-retire type on the 'bench' kernel, STORM
#    back-to-back calls (each replaces the object its readers acquire and
#    retires the old one, no pool), once per STORM_READERS count: the cost
#    of a call, the worker's passes and objects freed per pass, the largest
#    backlog, and how long hazptr_retire_barrier() then took.
#
#   bench-retire.sh      READERS="1 2 4" SLEEP_US="0 100 1000" SECS=20 SMP=2
#                        STORM="10000 100000 1000000" STORM_READERS="1 2"
#
# Writes results/bench/retire.csv, retire-storm.csv and their logs, and
# prints the tables.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

readers=${READERS:-1 2 4} sleeps=${SLEEP_US:-0 100 1000} secs=${SECS:-20} smp=${SMP:-2}
storms=${STORM:-10000 100000 1000000} storm_readers=${STORM_READERS:-1 2}
is_uint "$secs" SECS
is_uint "$smp" SMP
for n in $readers; do is_uint "$n" READERS; done
for c in $storms; do is_uint "$c" STORM; done
for n in $storm_readers; do
	is_uint "$n" STORM_READERS
	[ "$n" -le "$smp" ] || die "STORM_READERS value $n exceeds the guest's $smp CPUs (SMP)"
done
for s in $sleeps; do
	[[ $s =~ ^[0-9]+$ ]] || die "SLEEP_US values must be integers >= 0, not '$s'"
done
[ "$secs" -ge 5 ] || die "SECS must be at least 5 (the torture test needs time to start), not $secs"

"$TOP/scripts/build.sh" preempt >/dev/null
"$TOP/scripts/build.sh" bench >/dev/null
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
		require_clean "$log" "boot retire-r$n-s$s: not a clean SUCCESS" --expect SUCCESS
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

scsv=$out/retire-storm.csv
echo "nreaders,calls,median_ns,p99_ns,max_ns,scans,freed,freed_per_scan,backlog_max,backlog_end,barrier_us" >"$scsv"
for n in $storm_readers; do
	for c in $storms; do
		log=$out/retire-storm-r$n-c$c.log
		"$TOP/scripts/boot.sh" -k bench -n "retire-storm-r$n-c$c" -s "$smp" -t 900 -l "$log" -- \
			hazptr_job=syncscale hazptr_syncscale=hazptr-retire \
			hazptr_sync_calls="$c" hazptr_sync_readers="$n" >/dev/null ||
			die "boot retire-storm-r$n-c$c failed (log: ${log#"$TOP"/})"
		require_clean "$log" "boot retire-storm-r$n-c$c: not clean"
		# refscale's SYNC-LATENCY and RETIRE-STORM lines.
		tr -d '\r' <"$log" | grep -oE '(SYNC-LATENCY|RETIRE-STORM) .*' |
			awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
			END { if (v["scans"] == "") exit 1
			      printf "%d,%d,%d,%d,%d,%d,%d,%.1f,%d,%d,%d\n", v["nreaders"], v["calls"],
				v["median_ns"], v["p99_ns"], v["max_ns"], v["scans"], v["freed"],
				v["scans"] ? v["freed"] / v["scans"] : 0, v["backlog_max"],
				v["backlog_end"], v["barrier_us"] }' >>"$scsv" ||
			die "boot retire-storm-r$n-c$c: no RETIRE-STORM result (log: ${log#"$TOP"/})"
		note "storm readers $n calls $c: $(tail -1 "$scsv")"
	done
done

echo
echo "hazptr_retire() storms: refscale hazptr-retire, back-to-back calls ($smp vCPUs, TCG):"
column -t -s, "$scsv"
echo "(csv and logs: ${out#"$TOP"/}/)"
