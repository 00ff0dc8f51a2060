#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What an uncontended hazptr_synchronize() costs as CPUs are added, beside
# synchronize_rcu_expedited() in the same boot: one boot of the 'bench'
# kernel per vCPU count (CPUS), and one at 2 vCPUs with POSSIBLE possible
# CPUs (the slots of every possible CPU are read).  In each boot refscale
# runs the rcu and hazptr types with sync_calls=SYNC_CALLS and one reader per
# vCPU: the readers acquire one object in a loop while the timed
# hazptr_synchronize() calls wait for another (sync=sync_other).
#
#   bench-sync.sh      CPUS="1 2 4 8" POSSIBLE=64 SYNC_CALLS=1000
#
# Writes results/bench/sync-cpus.csv and prints the medians with their
# ratio.  TCG runs more vCPUs than the host has cores, so compare within a
# row (one boot), not across rows.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

cpus=${CPUS:-1 2 4 8}
possible=${POSSIBLE:-64}
sync_calls=${SYNC_CALLS:-1000}
is_uint "$sync_calls" SYNC_CALLS
is_uint "$possible" POSSIBLE
for n in $cpus; do
	is_uint "$n" CPUS
done

"$TOP/scripts/build.sh" bench >/dev/null
nr_cpus=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$BUILD/bench/.config")
[ "$possible" -le "$nr_cpus" ] ||
	die "POSSIBLE=$possible exceeds the bench kernel's CONFIG_NR_CPUS=$nr_cpus"
[ -f "$INITRAMFS" ] || "$TOP/scripts/initramfs.sh"
out=$RESULTS/bench
mkdir -p "$out"
csv=$out/sync-cpus.csv
echo "vcpus,possible,function,median_ns,p99_ns" >"$csv"

# run VCPUS POSSIBLE-OR-EMPTY
run() {
	local n=$1 p=$2 log
	log=$out/sync-cpus-$n${p:+-p$p}.log
	note "boot: $n vCPUs${p:+, $p possible}, $sync_calls calls per function"
	"$TOP/scripts/boot.sh" -k bench -n "sync-cpus-$n${p:+-p$p}" -s "$n" \
		-t "${TIMEOUT:-1800}" -l "$log" -- ${p:+possible_cpus=$p} \
		hazptr_job=syncscale hazptr_syncscale=rcu,hazptr \
		hazptr_sync_calls="$sync_calls" hazptr_sync_readers="$n" >/dev/null
	require_clean "$log" "the boot with $n vCPUs was not clean"
	tr -d '\r' <"$log" | grep -o 'SYNC-LATENCY .*' |
		awk -v n="$n" -v p="${p:-$n}" '
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		  f = ""
		  if (v["type"] == "rcu" && v["sync"] == "sync_exp") f = "synchronize_rcu_expedited"
		  if (v["type"] == "hazptr" && v["sync"] == "sync_other") f = "hazptr_synchronize"
		  if (f != "") print n "," p "," f "," v["median_ns"] "," v["p99_ns"] }' >>"$csv"
	[ "$(grep -c "^$n,${p:-$n}," "$csv")" = 2 ] ||
		die "missing SYNC-LATENCY lines in $log"
}

for n in $cpus; do
	run "$n" ""
done
run 2 "$possible"

echo "uncontended hazptr_synchronize() vs synchronize_rcu_expedited(), same boot, $sync_calls calls each"
awk -F, 'NR > 1 { k = $1 "," $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		  m[k, $3] = $4 / 1000; q[k, $3] = $5 / 1000 }
	END {
		printf "%6s %9s %14s %10s %14s %10s %8s\n", "vcpus", "possible", "hazptr_us", "p99", "rcu_exp_us", "p99", "ratio"
		for (i = 1; i <= n; i++) {
			split(order[i], a, ",")
			h = m[order[i], "hazptr_synchronize"]; e = m[order[i], "synchronize_rcu_expedited"]
			printf "%6s %9s %14.2f %10.2f %14.2f %10.2f %7.4fx\n", a[1], a[2], h,
				q[order[i], "hazptr_synchronize"], e,
				q[order[i], "synchronize_rcu_expedited"], (e > 0 ? h / e : 0)
		}
	}' "$csv"
echo "(csv: ${csv#"$TOP"/})"
