#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the scheduler hook costs a context switch that holds no hazard
# pointer: guest/pingpong.c (two processes on CPU 0 passing a byte over
# pipes) on the 'bench' kernel of linux-source-6.12 without the series
# ('base') and with it ('series'), booted interleaved, PAIRS pairs.
#
#   bench-switch.sh      PAIRS=7 SECS=2 RUNS=5
#
# Writes results/bench/switch.csv (kernel,pair,median_ns) and prints the
# medians and the median per-pair ratio series/base (goal: at most 1.01,
# i.e. >= 0.99x the switches per second), and the instructions the hook
# adds to __schedule(), counted in both vmlinux images.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

pairs=${PAIRS:-7} secs=${SECS:-2} runs=${RUNS:-5}
is_uint "$pairs" PAIRS
is_uint "$secs" SECS
is_uint "$runs" RUNS
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
series_rev=$(series_head)
out=$RESULTS/bench
mkdir -p "$out"

ab_build bench series "$series_rev" >/dev/null
objdump -d --no-show-raw-insn "$WORK/ab/build/bench/kernel/sched/core.o" >"$out/switch-series.dis" 2>/dev/null || true
ab_build bench base base >/dev/null
objdump -d --no-show-raw-insn "$WORK/ab/build/bench/kernel/sched/core.o" >"$out/switch-base.dis" 2>/dev/null || true
"$TOP/scripts/initramfs.sh"

csv=$out/switch.csv
echo "kernel,pair,median_ns" >"$csv"
for p in $(seq "$pairs"); do
	for side in base series; do
		log=$(ab_boot "switch-$side-$p" "$WORK/ab/bench.$side" 1 \
			hazptr_job=pingpong hazptr_pingpong="$secs,$runs")
		ns=$(tr -d '\r' <"$log" | sed -n 's/^HAZPTR-PINGPONG .*median_ns=\([0-9.]*\).*/\1/p')
		[ -n "$ns" ] || die "no HAZPTR-PINGPONG result in ${log#"$TOP"/}"
		echo "$side,$p,$ns" >>"$csv"
		note "pair $p $side: $ns ns per switch"
	done
done

echo "context switch (pipe ping-pong on one vCPU), ns per switch; $pairs interleaved pairs"
awk -F, "$AWK_MED"'
	NR > 1 { v[$1, $2] = $3; if ($2 > np) np = $2 }
	END {
		for (p = 1; p <= np; p++) { B[p] = v["base", p]; S[p] = v["series", p]; R[p] = S[p] / B[p] }
		b = med(B, np); s = med(S, np); r = med(R, np)	# R is now sorted
		printf "base %.1f ns, series %.1f ns, series/base per pair: median %.4f (min %.4f, max %.4f)\n",
			b, s, r, R[1], R[np]
		printf "switches per second, series/base: %.4fx\n", 1 / r
	}' "$csv"
# __schedule()'s instructions in each build (its inlined hook included).
count() {
	awk '/^[0-9a-f]+ <__schedule>:$/ { t = 1; next } t && /^$/ { exit } t && /:\t/ { n++ } END { print n + 0 }' "$1"
}
echo "__schedule() instructions: base $(count "$out/switch-base.dis"), series $(count "$out/switch-series.dis")"
echo "(csv: ${csv#"$TOP"/})"
