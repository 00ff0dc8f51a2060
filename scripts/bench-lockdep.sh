#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lockdep_unregister_key() three ways, on the 'debug' kernel (lockdep,
# KASAN): synchronize_rcu() ('base': the series without its lockdep patch),
# synchronize_rcu_expedited() ('expedited': base plus
# configs/ab/lockdep-expedited.patch, what mainline did in 6.17) and the
# hazard pointer ('hazptr': the series).
#
#   bench-lockdep.sh      PAIRS=3 CPUS="1 2" RUNS=20
#
# Boots the three interleaved, PAIRS rounds at each guest CPU count of CPUS.
# Each boot times RUNS runs of `tc qdisc replace` of an mq root on a dummy
# device with 16 TX queues (17 qdiscs created and 17 destroyed, each
# destroy unregistering a lockdep key) and RUNS runs of `ip link add` + `ip
# link del` of such a device (guest/timeit.c), with the function-call IPIs
# per run from /proc/interrupts.
#
# Writes results/bench/lockdep.csv
# (kernel,cpus,round,op,median_us,p90_us,cal_per_run) and prints the medians
# over rounds and each side's speed-up over base.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

pairs=${PAIRS:-3} cpus=${CPUS:-1 2} runs=${RUNS:-20}
is_uint "$pairs" PAIRS
is_uint "$runs" RUNS
for c in $cpus; do is_uint "$c" CPUS; done
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
hazptr_rev=$(git -C "$TREE" log --format=%H --grep='^lockdep: ' base..HEAD | head -1)
[ -n "$hazptr_rev" ] || die "no 'lockdep:' patch in $TREE (run 'make prepare')"
base_rev=$(git -C "$TREE" rev-parse "$hazptr_rev~1")
exp_patch=$CONFIGS/ab/lockdep-expedited.patch
[ -f "$exp_patch" ] || die "missing $exp_patch"

out=$RESULTS/bench
mkdir -p "$out"

ab_build debug hazptr "$hazptr_rev" >/dev/null
ab_build debug expedited "$base_rev" "$exp_patch" >/dev/null
ab_build debug base "$base_rev" >/dev/null
"$TOP/scripts/initramfs.sh"

csv=$out/lockdep.csv
echo "kernel,cpus,round,op,median_us,p90_us,cal_per_run" >"$csv"
for n in $cpus; do
	for p in $(seq "$pairs"); do
		for side in base expedited hazptr; do
			log=$(ab_boot "lockdep-$side-${n}cpu-$p" "$WORK/ab/debug.$side" "$n" \
				kunit.enable=0 hazptr_job=lockdepkeys hazptr_lockdepkeys="$runs")
			lines=$(tr -d '\r' <"$log" | grep '^HAZPTR-TIMEIT ' || true)
			echo "$lines" | grep -q ' error=' && die "a run failed in ${log#"$TOP"/}: $(echo "$lines" | grep ' error=')"
			[ "$(echo "$lines" | grep -c median_us=)" = 2 ] ||
				die "no HAZPTR-TIMEIT results in ${log#"$TOP"/}"
			echo "$lines" | awk -v k="$side" -v n="$n" -v p="$p" '{
				for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				print k "," n "," p "," v["name"] "," v["median_us"] "," v["p90_us"] "," v["cal_per_run"]
			}' >>"$csv"
			note "$side ${n}cpu round $p: $(echo "$lines" | sed 's/^HAZPTR-TIMEIT //' | tr '\n' ';')"
		done
	done
done

echo "lockdep_unregister_key(): us per operation on the debug kernel (lockdep, KASAN), TCG; median over $pairs rounds of $runs runs"
printf "%-5s %-14s %12s %12s %12s %10s %10s %18s\n" cpus op base_us expedited_us hazptr_us base/hz exp/hz "IPIs b/e/h per op"
awk -F, "$AWK_MED"'
	NR > 1 { k = $2 SUBSEP $4; m[$1, k, ++c[$1, k]] = $5; ipi[$1, k] += $7; keys[k] = 1 }
	END {
		for (k in keys) {
			split(k, f, SUBSEP)
			b = side("base", k); e = side("expedited", k); h = side("hazptr", k)
			printf "%-5s %-14s %12.0f %12.0f %12.0f %9.1fx %9.1fx %6.1f/%.1f/%.1f\n", f[1], f[2], b, e, h,
				b / h, e / h, ipi["base", k] / c["base", k], ipi["expedited", k] / c["expedited", k],
				ipi["hazptr", k] / c["hazptr", k]
		}
	}
	# The median of side s for key k.
	function side(s, k,   a, i) {
		for (i = 1; i <= c[s, k]; i++) a[i] = m[s, k, i]
		return med(a, c[s, k])
	}' "$csv" | sort
echo "(csv: ${csv#"$TOP"/})"
