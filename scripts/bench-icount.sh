#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions executed per fd-installing call, base against the series:
# what the fs patch adds to every open, pipe, socket and dup of a threaded
# program, counted, where TCG's timing cannot price it.
#
#   bench-icount.sh      BOOTS=2 FDINSTALL=1,3
#
# Builds the 'bench' kernel as bench-users.sh does ('base': the series
# without patches/users/, 'users': the whole series), then boots each BOOTS
# times, interleaved, on one vCPU with QEMU's '-icount shift=0': the guest's
# clock then advances one nanosecond per instruction executed, so
# guest/fdinstall.c's "ns per call + close" is the number of instructions a
# call and its close() execute (timer interrupts included, amortized).  The
# count repeats to the instruction from boot to boot; only the socket call,
# which allocates, varies by some tens.
#
# Writes results/bench/icount.csv (kernel,boot,call,instructions) and prints
# per call the median of each side, the difference and the ratio.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

boots=${BOOTS:-2} fdinstall=${FDINSTALL:-1,3}
is_uint "$boots" BOOTS
[[ $fdinstall =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "FDINSTALL must be SECONDS,RUNS, not '$fdinstall'"
[ -d "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
base_rev=$(ab_base_rev)

out=$RESULTS/bench
mkdir -p "$out"
ab_build bench users "$(git -C "$TREE" rev-parse HEAD)" >/dev/null
ab_build bench base "$base_rev" >/dev/null
"$TOP/scripts/initramfs.sh"

csv=$out/icount.csv
echo "kernel,boot,call,instructions" >"$csv"
for b in $(seq "$boots"); do
	for side in base users; do
		log=$(QEMU_ARGS="-icount shift=0" ab_boot "icount-$side-$b" "$WORK/ab/bench.$side" 1 \
			kunit.enable=0 hazptr_job=fdinstall hazptr_fdinstall="$fdinstall")
		fdinstall_rows "$log" "$side,$b" >>"$csv"
		note "$side boot $b: $(grep -c "^$side,$b," "$csv") calls"
	done
done

echo
echo "Instructions per call + close into a table shared with an idle thread"
echo "(QEMU -icount shift=0, 1 vCPU; median over $boots boots of each side):"
awk -F, "$AWK_MED"'
	NR > 1 { n[$1, $3]++; v[$1, $3, n[$1, $3]] = $4; calls[$3] = 1 }
	END {
		printf "%-8s %10s %10s %8s %8s\n", "call", "base", "users", "added", "ratio"
		for (c in calls) {
			for (i = 1; i <= n["base", c]; i++) B[i] = v["base", c, i]
			for (i = 1; i <= n["users", c]; i++) U[i] = v["users", c, i]
			b = med(B, n["base", c]); u = med(U, n["users", c])
			printf "%-8s %10.1f %10.1f %8.1f %7.4fx\n", c, b, u, u - b, u / b
		}
	}' "$csv" | { read -r h; echo "$h"; sort; }
echo "(csv and logs: ${out#"$TOP"/}/)"
