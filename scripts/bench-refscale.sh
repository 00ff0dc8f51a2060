#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reader and updater cost of hazard pointers beside RCU, SRCU and a
# reference count, in one boot of the 'bench' kernel:
#  - refscale loaded once per mechanism and reader count: ns per read
#    section (median over NRUNS runs) with the ratios to rcu and refcnt,
#    results/bench/refscale.csv;
#  - refscale with sync_calls=SYNC_CALLS for rcu, srcu, hazptr,
#    hazptr-asym and hazptr-retire, readers running on every CPU: latency
#    of hazptr_synchronize(), hazptr_synchronize_asym(), synchronize_rcu()
#    and synchronize_rcu_expedited() (and SRCU's), and the cost of one
#    hazptr_retire() with the replacement it frees, median and p99 in us,
#    results/bench/sync.csv.
#
#   bench-refscale.sh      TYPES="rcu srcu refcnt hazptr hazptr-asym" READERS="1 2"
#                          NRUNS=9 LOOPS=20000 SMP=2 SYNC_CALLS=1000
# Under TCG only the ratios mean something.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

types=${TYPES:-rcu srcu refcnt hazptr hazptr-asym}
readers=${READERS:-1 2}
nruns=${NRUNS:-9}
loops=${LOOPS:-20000}
smp=${SMP:-2}
sync_calls=${SYNC_CALLS:-1000}
is_uint "$sync_calls" SYNC_CALLS
is_uint "$nruns" NRUNS
is_uint "$loops" LOOPS
is_uint "$smp" SMP
for t in $types; do
	case $t in rcu|srcu|refcnt|hazptr|hazptr-asym|rwlock|rwsem|lock|acqrel) ;;
	*) die "unknown refscale type '$t' (known: rcu srcu refcnt hazptr hazptr-asym rwlock rwsem lock acqrel)" ;;
	esac
done
for n in $readers; do
	is_uint "$n" READERS
	[ "$n" -le "$smp" ] || die "READERS value $n exceeds the guest's $smp CPUs (SMP)"
done

"$TOP/scripts/build.sh" bench >/dev/null
[ -f "$INITRAMFS" ] || "$TOP/scripts/initramfs.sh"
out=$RESULTS/bench
mkdir -p "$out"
log=$out/refscale.log
comma() { echo "$*" | tr ' ' ','; }
"$TOP/scripts/boot.sh" -k bench -n refscale -s "$smp" -t "${TIMEOUT:-1800}" -l "$log" -- \
	hazptr_job=refscale,syncscale hazptr_refscale="$(comma $types)" \
	hazptr_syncscale=rcu,srcu,hazptr,hazptr-asym,hazptr-retire hazptr_sync_calls="$sync_calls" hazptr_sync_readers="$smp" \
	hazptr_refscale_readers="$(comma $readers)" \
	hazptr_refscale_args="nruns=$nruns,loops=$loops" >/dev/null
require_clean "$log" "the refscale boot was not clean"

csv=$out/refscale.csv
echo "type,nreaders,runs,median_ns,min_ns,max_ns" >"$csv"
tr -d '\r' <"$log" | sed -n 's/^HAZPTR-REFSCALE //p' |
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	       print v["type"] "," v["nreaders"] "," v["runs"] "," v["median_ns"] "," v["min_ns"] "," v["max_ns"] }' >>"$csv"
[ "$(wc -l <"$csv")" -gt 1 ] || die "no refscale results in $log"

echo "refscale: ns per read section, median of $nruns runs of $loops loops (TCG: compare ratios only)"
awk -F, 'NR > 1 { ns[$1, $2] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++nr] = $2 }
		  if (!($1 in tseen)) { tseen[$1] = 1; torder[++nt] = $1 } }
	END {
		printf "%-12s %8s %12s %8s %10s\n", "type", "readers", "ns/section", "vs rcu", "vs refcnt"
		for (r = 1; r <= nr; r++)
			for (t = 1; t <= nt; t++) {
				x = ns[torder[t], order[r]]
				rcu = ns["rcu", order[r]]; ref = ns["refcnt", order[r]]
				printf "%-12s %8s %12s %8s %10s\n", torder[t], order[r], x,
					(rcu > 0 && x != "" ? sprintf("%.2fx", x / rcu) : "-"),
					(ref > 0 && x != "" ? sprintf("%.2fx", x / ref) : "-")
			}
	}' "$csv"

scsv=$out/sync.csv
# The last column names the kernel function timed, for the table and plot.
echo "type,sync,nreaders,calls,median_ns,p90_ns,p99_ns,max_ns,function" >"$scsv"
tr -d '\r' <"$log" | grep -o 'SYNC-LATENCY .*' |
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	       t = v["type"]; f = (t == "rcu" ? "synchronize_rcu" : "synchronize_srcu") (v["sync"] == "sync_exp" ? "_expedited" : "")
	       f = (t == "hazptr" ? "hazptr_synchronize" : (t == "hazptr-asym" ? "hazptr_synchronize_asym" : f))
	       f = (t == "hazptr-retire" ? "hazptr_retire" : f)
	       # sync_other: an object no reader holds, readers busy with another.
	       f = f (v["sync"] == "sync_other" ? "(free)" : "")
	       print t "," v["sync"] "," v["nreaders"] "," v["calls"] "," v["median_ns"] "," v["p90_ns"] "," v["p99_ns"] "," v["max_ns"] "," f }' >>"$scsv"
[ "$(wc -l <"$scsv")" -gt 1 ] || die "no SYNC-LATENCY results in $log"
echo
echo "update side: $sync_calls calls each, $smp readers running (TCG: compare ratios only)"
awk -F, 'NR > 1 { n[++k] = $9; m[k] = $5 / 1000; p[k] = $7 / 1000; if ($1 == "hazptr" && $2 == "sync") hm = $5 / 1000 }
	END {
		printf "%-30s %12s %12s %14s\n", "function", "median_us", "p99_us", "vs hazptr"
		for (i = 1; i <= k; i++)
			printf "%-30s %12.1f %12.1f %13.1fx\n", n[i], m[i], p[i], (hm > 0 ? m[i] / hm : 0)
	}' "$scsv"
"$TOP/scripts/plot.sh" "$out" || note "no plots (gnuplot missing?)"
echo "(csv: ${csv#"$TOP"/} ${scsv#"$TOP"/}, log: ${log#"$TOP"/})"
