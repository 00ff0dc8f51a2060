#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# expand_fdtable() of a shared table five ways, with fds being installed
# into it meanwhile: the alternatives a VFS reviewer asks about, measured
# beside the fs patch, and the fs patch with the asymmetric barrier's IPIs
# sent to idle CPUs too.
#
#   bench-fdexpand.sh      PAIRS=3 CPUS="1 2" ROUNDS=25 INSTALLERS=1
#
# The 'bench' kernel, built in the A/B work tree (see pipeline.sh):
#   rcu          the series without its fs patch: synchronize_rcu()
#   expedited    the same + configs/ab/fs-expedited.patch
#   polled       the same + configs/ab/fs-polled.patch:
#                start_poll_synchronize_rcu() before the allocation,
#                cond_synchronize_rcu() after it
#   hazptr-sym   the fs patch + configs/ab/fs-sym.patch: hazptr_protect()
#                of the table and hazptr_synchronize()
#   hazptr-asym  the fs patch: the inline hazptr_claim_local() of the
#                files_struct and hazptr_synchronize_asym()
#   asym-all     the same + configs/ab/asym-all-cpus.patch: its IPIs go to
#                every other online CPU, idle ones too
# Boots them interleaved, PAIRS rounds at each guest CPU count of CPUS; each
# boot runs guest/fdexpand.c for ROUNDS rounds (4 expansions each) with
# INSTALLERS threads installing and checking fds in the table meanwhile
# (0: the sibling thread only sleeps, its CPU idle); fdexpand also counts
# the function-call IPIs of its run.
#
# Writes results/bench/fdexpand5.csv (fdexpand5-inst0.csv etc. when
# INSTALLERS is not 1)
# (kernel,cpus,round,n,median_us,p90_us,p99_us,max_us,installs,ipis) and
# prints, per CPU count, the median over rounds of each side's median and
# p99, the ratio of its median to hazptr-asym's, and installs and IPIs per
# expansion.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

pairs=${PAIRS:-3} cpus=${CPUS:-1 2} rounds=${ROUNDS:-25} inst=${INSTALLERS:-1}
is_uint "$pairs" PAIRS
is_uint "$rounds" ROUNDS
[[ $inst =~ ^[0-9]+$ ]] || die "INSTALLERS must be 0 or a positive integer, not '$inst'"
for c in $cpus; do is_uint "$c" CPUS; done
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
fs_rev=$(user_rev 'fs: ')
base_rev=$(git -C "$TREE" rev-parse "$fs_rev~1")
for p in fs-expedited fs-polled fs-sym asym-all-cpus; do
	[ -f "$CONFIGS/ab/$p.patch" ] || die "missing configs/ab/$p.patch"
done

out=$RESULTS/bench
mkdir -p "$out"

sides="rcu expedited polled hazptr-sym hazptr-asym asym-all"
ab_build bench asym-all "$fs_rev" "$CONFIGS/ab/asym-all-cpus.patch" >/dev/null
ab_build bench hazptr-asym "$fs_rev" >/dev/null
ab_build bench hazptr-sym "$fs_rev" "$CONFIGS/ab/fs-sym.patch" >/dev/null
ab_build bench polled "$base_rev" "$CONFIGS/ab/fs-polled.patch" >/dev/null
ab_build bench expedited "$base_rev" "$CONFIGS/ab/fs-expedited.patch" >/dev/null
ab_build bench rcu "$base_rev" >/dev/null
"$TOP/scripts/initramfs.sh"

csv=$out/fdexpand5.csv
[ "$inst" = 1 ] || csv=$out/fdexpand5-inst$inst.csv
echo "kernel,cpus,round,n,median_us,p90_us,p99_us,max_us,installs,ipis" >"$csv"
for n in $cpus; do
	for p in $(seq "$pairs"); do
		for side in $sides; do
			log=$(ab_boot "fdexpand-$side-${n}cpu-$p" "$WORK/ab/bench.$side" "$n" \
				kunit.enable=0 hazptr_job=fdexpand hazptr_fdexpand="$rounds,$inst")
			line=$(tr -d '\r' <"$log" | grep '^HAZPTR-FDEXPAND ' | tail -1 || true)
			case $line in
			*error=*|"") die "fdexpand failed in ${log#"$TOP"/}: ${line:-no HAZPTR-FDEXPAND line}" ;;
			esac
			echo "$line" | awk -v k="$side" -v c="$n" -v p="$p" '{
				for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				print k "," c "," p "," v["n"] "," v["median_us"] "," v["p90_us"] "," v["p99_us"] "," \
					v["max_us"] "," v["installs"] "," v["ipis"]
			}' >>"$csv"
			note "$side ${n}cpu round $p: ${line#HAZPTR-FDEXPAND }"
		done
	done
done

echo
echo "expand_fdtable() of a shared table, $inst installer thread(s) running; us, median over $pairs boots"
echo "(QEMU TCG: compare within a CPU count only)"
printf "%-5s %-12s %10s %10s %12s %14s %12s\n" cpus kernel median_us p99_us "/hazptr-asym" "installs/exp" "IPIs/exp"
awk -F, -v sides="$sides" "$AWK_MED"'
	NR > 1 { k = $1 SUBSEP $2; c[k]++; m[k, c[k]] = $5; q[k, c[k]] = $7
		 calls[k] += $4; inst[k] += $9; ipi[k] += $10; cp[$2] = 1 }
	END {
		ns = split(sides, s, " ")
		for (n in cp) {
			ref = side("hazptr-asym", n, m)
			for (i = 1; i <= ns; i++) {
				k = s[i] SUBSEP n
				if (!c[k]) continue
				med_k = side(s[i], n, m)
				printf "%-5s %-12s %10.1f %10.1f %11.1fx %14.0f %12.1f\n", n, s[i], med_k,
					side(s[i], n, q), (ref > 0 ? med_k / ref : 0),
					inst[k] / calls[k], ipi[k] / calls[k]
			}
		}
	}
	# The median over the boots of side sd at n CPUs of array a.
	function side(sd, n, a,   k, x, i) {
		k = sd SUBSEP n
		for (i = 1; i <= c[k]; i++) x[i] = a[k, i]
		return med(x, c[k])
	}' "$csv" | sort -k1,1n -s
echo "(csv and logs: ${out#"$TOP"/}/)"
