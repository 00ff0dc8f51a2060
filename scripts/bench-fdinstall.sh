#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fd_install() into a shared table, timed under TCG, with a control: does
# the time the fs patch adds come from the instructions it adds?
#
#   bench-fdinstall.sh      PAIRS=3 CPUS=1 FDINSTALL=1,5
#
# Three sides of the 'bench' kernel, built in the A/B work tree
# (pipeline.sh): 'base', the series without patches/users/; 'users', the
# whole series; 'control', the whole series + configs/ab/fs-control.patch,
# which keeps the shared-table path compiled in but never takes it.  Boots
# them interleaved, PAIRS rounds at each CPU count of CPUS, each running
# guest/fdinstall.c only (ns per call + close into a table shared with an
# idle thread).  If 'control' is as slow as 'users', the difference from
# 'base' comes from elsewhere than the install path (code layout, say);
# make bench-icount counts the instructions themselves.
#
# Writes results/bench/fdinstall3.csv (kernel,cpus,round,call,median_ns)
# and prints per call the median of the per-round ratios users/base and
# control/base, with their spread.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

pairs=${PAIRS:-3} cpus=${CPUS:-1} fdinstall=${FDINSTALL:-1,5}
is_uint "$pairs" PAIRS
for c in $cpus; do is_uint "$c" CPUS; done
[[ $fdinstall =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "FDINSTALL must be SECONDS,RUNS, not '$fdinstall'"
[ -d "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
[ -f "$CONFIGS/ab/fs-control.patch" ] || die "missing configs/ab/fs-control.patch"
base_rev=$(ab_base_rev)
users_rev=$(git -C "$TREE" rev-parse HEAD)

out=$RESULTS/bench
mkdir -p "$out"
ab_build bench control "$users_rev" "$CONFIGS/ab/fs-control.patch" >/dev/null
ab_build bench users "$users_rev" >/dev/null
ab_build bench base "$base_rev" >/dev/null
"$TOP/scripts/initramfs.sh"

csv=$out/fdinstall3.csv
echo "kernel,cpus,round,call,median_ns" >"$csv"
for n in $cpus; do
	for p in $(seq "$pairs"); do
		for side in base users control; do
			log=$(ab_boot "fdinstall3-$side-${n}cpu-$p" "$WORK/ab/bench.$side" "$n" \
				kunit.enable=0 hazptr_job=fdinstall hazptr_fdinstall="$fdinstall")
			fdinstall_rows "$log" "$side,$n,$p" >>"$csv"
		done
		note "${n} vCPU round $p done"
	done
done

echo
echo "ns per call + close into a shared table (TCG); median of the per-round"
echo "ratios to base, spread in brackets:"
awk -F, "$AWK_MED"'
	NR > 1 { v[$1, $2, $3, $4] = $5; key[$4 SUBSEP $2] = 1; if ($3 > np) np = $3 }
	END {
		printf "%-8s %5s %9s %22s %22s\n", "call", "cpus", "base ns", "users/base", "control/base"
		for (k in key) {
			split(k, kk, SUBSEP); c = kk[1]; n = kk[2]; nb = nu = nc = 0
			for (p = 1; p <= np; p++) {
				b = v["base", n, p, c]
				if (b == "") continue
				B[++nb] = b
				if (v["users", n, p, c] != "") U[++nu] = v["users", n, p, c] / b
				if (v["control", n, p, c] != "") C[++nc] = v["control", n, p, c] / b
			}
			mb = med(B, nb); mu = med(U, nu); mc = med(C, nc)
			printf "%-8s %5s %9.1f %9.4fx (%.3f-%.3f) %9.4fx (%.3f-%.3f)\n", c, n, mb, mu, U[1], U[nu], mc, C[1], C[nc]
		}
	}' "$csv" | { read -r h; echo "$h"; sort; }
echo "(csv and logs: ${out#"$TOP"/}/)"
