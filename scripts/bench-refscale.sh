#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reader cost of hazard pointers beside RCU, SRCU and a reference count:
# one boot of the 'bench' kernel loads refscale once per mechanism and reader
# count, and a table of ns per read section (median over NRUNS runs) with the
# ratios to rcu and refcnt is printed and written to results/bench/refscale.csv.
#
#   bench-refscale.sh      TYPES="rcu srcu refcnt hazptr" READERS="1 2"
#                          NRUNS=9 LOOPS=20000 SMP=2
# Under TCG only the ratios mean something.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

types=${TYPES:-rcu srcu refcnt hazptr}
readers=${READERS:-1 2}
nruns=${NRUNS:-9}
loops=${LOOPS:-20000}
smp=${SMP:-2}
is_uint "$nruns" NRUNS
is_uint "$loops" LOOPS
is_uint "$smp" SMP
for t in $types; do
	case $t in rcu|srcu|refcnt|hazptr|rwlock|rwsem|lock|acqrel) ;;
	*) die "unknown refscale type '$t' (known: rcu srcu refcnt hazptr rwlock rwsem lock acqrel)" ;;
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
	hazptr_job=refscale hazptr_refscale="$(comma $types)" \
	hazptr_refscale_readers="$(comma $readers)" \
	hazptr_refscale_args="nruns=$nruns,loops=$loops" >/dev/null
"$TOP/scripts/check-log.sh" "$log" >/dev/null || {
	"$TOP/scripts/check-log.sh" "$log" || true
	die "the refscale boot was not clean"
}

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
		printf "%-8s %8s %12s %8s %10s\n", "type", "readers", "ns/section", "vs rcu", "vs refcnt"
		for (r = 1; r <= nr; r++)
			for (t = 1; t <= nt; t++) {
				x = ns[torder[t], order[r]]
				rcu = ns["rcu", order[r]]; ref = ns["refcnt", order[r]]
				printf "%-8s %8s %12s %8s %10s\n", torder[t], order[r], x,
					(rcu > 0 && x != "" ? sprintf("%.2fx", x / rcu) : "-"),
					(ref > 0 && x != "" ? sprintf("%.2fx", x / ref) : "-")
			}
	}' "$csv"
echo "(csv: ${csv#"$TOP"/}, log: ${log#"$TOP"/})"
