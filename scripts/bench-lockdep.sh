#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lockdep_unregister_key() four ways, on the 'debug' kernel (lockdep,
# KASAN): synchronize_rcu() ('base': the series, which leaves lockdep
# alone), synchronize_rcu_expedited() ('expedited': base plus
# configs/ab/lockdep-expedited.patch, what mainline did in 6.17), no wait
# for the qdisc paths that free the key after a grace period of their own
# ('nosync': base plus configs/ab/lockdep-nosync.patch, the lockdep
# maintainers' cheaper change) and the hazard pointer ('hazptr': base plus
# the lockdep patch of patches/next/, which waits there because it did not
# beat nosync).
#
#   bench-lockdep.sh      PAIRS=3 CPUS="1 2" RUNS=20 SIDES="base expedited nosync hazptr"
#
# Boots the sides interleaved, PAIRS rounds at each guest CPU count of CPUS.
# Each boot times RUNS runs of `tc qdisc replace` of an mq root on a dummy
# device with 16 TX queues (17 qdiscs created and 17 destroyed, each
# destroy unregistering a lockdep key) and RUNS runs of `ip link add` + `ip
# link del` of such a device (guest/timeit.c), with the function-call IPIs
# per run from /proc/interrupts, then reads lockdep's class counts.
#
# Writes results/bench/lockdep.csv
# (kernel,cpus,round,op,median_us,p90_us,cal_per_run), lockdep-stats.csv
# (kernel,cpus,round,classes,zapped) and prints the medians over rounds and
# each side's ratio to hazptr.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

pairs=${PAIRS:-3} cpus=${CPUS:-1 2} runs=${RUNS:-20} sides=${SIDES:-base expedited nosync hazptr}
for s in $sides; do
	case $s in base|expedited|nosync|hazptr) ;; *) die "SIDES: unknown side '$s' (base expedited nosync hazptr)" ;; esac
done
is_uint "$pairs" PAIRS
is_uint "$runs" RUNS
for c in $cpus; do is_uint "$c" CPUS; done
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
base_rev=$(series_head)
lockdep_patch=$(ls "$TOP"/patches/next/*-lockdep-*.patch 2>/dev/null | head -1)
exp_patch=$CONFIGS/ab/lockdep-expedited.patch
nosync_patch=$CONFIGS/ab/lockdep-nosync.patch
[ -n "$lockdep_patch" ] || die "no lockdep patch in patches/next/"
[ -f "$exp_patch" ] || die "missing $exp_patch"
[ -f "$nosync_patch" ] || die "missing $nosync_patch"

out=$RESULTS/bench
mkdir -p "$out"

for side in $sides; do
	case $side in
	hazptr) ab_build debug hazptr "$base_rev" "$lockdep_patch" ;;
	expedited) ab_build debug expedited "$base_rev" "$exp_patch" ;;
	nosync) ab_build debug nosync "$base_rev" "$nosync_patch" ;;
	base) ab_build debug base "$base_rev" ;;
	esac >/dev/null
done
"$TOP/scripts/initramfs.sh"

csv=$out/lockdep.csv
echo "kernel,cpus,round,op,median_us,p90_us,cal_per_run" >"$csv"
echo "kernel,cpus,round,classes,zapped" >"$out/lockdep-stats.csv"
for n in $cpus; do
	for p in $(seq "$pairs"); do
		for side in $sides; do
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
			tr -d '\r' <"$log" | awk -v k="$side" -v n="$n" -v p="$p" '
				/^HAZPTR-LOCKDEP-STATS lock-classes:/ { c = $3 }
				/^HAZPTR-LOCKDEP-STATS zapped classes:/ { z = $4 }
				END { print k "," n "," p "," c "," z }' >>"$out/lockdep-stats.csv"
			note "$side ${n}cpu round $p: $(echo "$lines" | sed 's/^HAZPTR-TIMEIT //' | tr '\n' ';')"
		done
	done
done

echo "lockdep_unregister_key(): us per operation on the debug kernel (lockdep, KASAN), TCG; median over $pairs rounds of $runs runs"
echo "(each side: median us, its ratio to hazptr, function-call IPIs per operation)"
awk -F, -v sides="$sides" "$AWK_MED"'
	NR > 1 { k = $2 SUBSEP $4; m[$1, k, ++c[$1, k]] = $5; ipi[$1, k] += $7; keys[k] = 1 }
	END {
		ns = split(sides, s, " ")
		printf "%-5s %-14s", "cpus", "op"
		for (i = 1; i <= ns; i++) printf " %24s", s[i]
		printf "\n"
		for (k in keys) {
			split(k, f, SUBSEP)
			h = side("hazptr", k)
			printf "%-5s %-14s", f[1], f[2]
			for (i = 1; i <= ns; i++) {
				v = side(s[i], k)
				printf " %9.0f %5.2fx %6.1f", v, (h > 0 ? v / h : 0), (c[s[i], k] ? ipi[s[i], k] / c[s[i], k] : 0)
			}
			printf "\n"
		}
	}
	# The median of side s for key k.
	function side(sd, k,   a, i) {
		for (i = 1; i <= c[sd, k]; i++) a[i] = m[sd, k, i]
		return med(a, c[sd, k])
	}' "$csv" | sort
echo "lockdep classes in use and zapped after the loops, per boot:"
awk -F, 'NR > 1 { printf "  %s %scpu round %s: %s in use, %s zapped\n", $1, $2, $3, $4, $5 }' "$out/lockdep-stats.csv"
echo "(csv: ${csv#"$TOP"/}, ${out#"$TOP"/}/lockdep-stats.csv)"
