#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A/B of the user conversions (patches/users/) against the same tree without
# them, in one run: on a shared TCG host only ratios are stable.
#
#   bench-users.sh      PAIRS=5 CPUS="1 2" STRESS_SECS=10 ROUNDS=25
#                       FDINSTALL=2,5
#
# Builds the 'bench' kernel twice in a second work tree ($WORK/ab/linux, a
# git worktree of $TREE, built in $WORK/ab/build, laid out like $WORK so that
# ccache hits what the main tree compiled): 'base' is the series up to the
# last patch of patches/torture/, 'users' the whole series. Then boots them
# interleaved, base users base users ..., PAIRS pairs at each guest CPU count
# of CPUS; every boot runs stress-ng's close and dup stressors one after the
# other for STRESS_SECS each (N instances, N = CPUs), fdexpand
# (guest/fdexpand.c: ROUNDS x 4 expand_fdtable() calls on a shared table)
# and fdinstall (guest/fdinstall.c: ns per pipe2/open/dup/socket + close
# into a table shared with an idle thread, FDINSTALL=SECONDS,RUNS: the
# fd_install() path the fs conversion changes, which stress-ng --dup's
# single-threaded loop never reaches). The instructions of fd_install() in
# both fs/file.o are counted too.
# The lockdep user needs a lockdep kernel: scripts/bench-lockdep.sh.
#
# Writes results/bench/users.csv (kernel,cpus,pair,stressor,bogo_ops_s),
# fdexpand.csv (kernel,cpus,pair,n,median_us,p90_us,p99_us,max_us),
# fdinstall.csv (kernel,cpus,pair,call,median_ns), the logs, and prints the
# table of medians, of the median per-pair ratio users/base and its spread.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

pairs=${PAIRS:-5} cpus=${CPUS:-1 2} secs=${STRESS_SECS:-10} rounds=${ROUNDS:-25}
is_uint "$pairs" PAIRS
is_uint "$secs" STRESS_SECS
is_uint "$rounds" ROUNDS
fdinstall=${FDINSTALL:-2,5}
[[ $fdinstall =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "FDINSTALL must be SECONDS,RUNS, not '$fdinstall'"
for c in $cpus; do is_uint "$c" CPUS; done
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
nusers=$(series_files users | wc -l)
[ "$nusers" -gt 0 ] || die "patches/users/ has no patch: nothing to compare"
base_rev=$(ab_base_rev)
users_rev=$(series_head)

out=$RESULTS/bench
mkdir -p "$out"

# KERNEL.base and KERNEL.users, users first: the main tree's build of the
# same kernel is in ccache, and the second build is incremental.
ab_build bench users "$users_rev" >/dev/null
objdump -d --no-show-raw-insn "$WORK/ab/build/bench/fs/file.o" >"$out/fdinstall-users.dis" 2>/dev/null || true
ab_build bench base "$base_rev" >/dev/null
objdump -d --no-show-raw-insn "$WORK/ab/build/bench/fs/file.o" >"$out/fdinstall-base.dis" 2>/dev/null || true
"$TOP/scripts/initramfs.sh"

# bogo_ops LOG: "stressor ops/s" per stressor of --metrics-brief.
bogo_ops() {
	tr -d '\r' <"$1" | awk '/stress-ng: [a-z]+: +\[[0-9]+\] / {
		n = split($0, f, /[ \t]+/)
		for (i = 1; i <= n; i++) if (f[i] ~ /^\[[0-9]+\]$/) break
		if (n - i == 7 && f[i + 2] ~ /^[0-9]+$/ && f[i + 6] ~ /^[0-9.]+$/) print f[i + 1], f[i + 6]
	}'
}

echo "kernel,cpus,pair,stressor,bogo_ops_s" >"$out/users.csv"
echo "kernel,cpus,pair,n,median_us,p90_us,p99_us,max_us" >"$out/fdexpand.csv"
echo "kernel,cpus,pair,call,median_ns" >"$out/fdinstall.csv"
for n in $cpus; do
	stress=$(printf -- "--%s,$n,-t,${secs}s,--metrics-brief+" close dup)
	stress=${stress%+}
	for p in $(seq "$pairs"); do
		for side in base users; do
			log=$(ab_boot "users-$side-${n}cpu-$p" "$WORK/ab/bench.$side" "$n" \
				hazptr_job=stress,fdexpand,fdinstall hazptr_stress="$stress" \
				hazptr_fdexpand="$rounds" hazptr_fdinstall="$fdinstall")
			fdinstall_rows "$log" "$side,$n,$p" >>"$out/fdinstall.csv"
			res=$(bogo_ops "$log")
			[ -z "$res" ] ||
				echo "$res" | while read -r s v; do echo "$side,$n,$p,$s,$v"; done >>"$out/users.csv"
			tr -d '\r' <"$log" | sed -n 's/^HAZPTR-FDEXPAND //p' | awk -v k="$side" -v c="$n" -v p="$p" '
				{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				  print k "," c "," p "," v["n"] "," v["median_us"] "," v["p90_us"] "," v["p99_us"] "," v["max_us"] }' \
				>>"$out/fdexpand.csv"
			note "$side ${n}cpu pair $p: $(echo "$res" | tr '\n' ' ')"
		done
	done
done


# ratio_table CSV NAME UNIT FMT: for a CSV of kernel,cpus,pair,NAME,value,
# per NAME and CPU count the medians of each side, the median of the per-pair
# ratios users/base and their spread (min-max); FMT prints a value.
ratio_table() {
	awk -F, -v name="$2" -v unit="$3" -v fmt="$4" "$AWK_MED"'
		NR > 1 { v[$1, $2, $3, $4] = $5; key[$2 "," $4] = 1; if ($3 > np) np = $3 }
		END {
			printf "%-10s %5s %14s %14s %11s %16s\n", name, "cpus", "base " unit, "users " unit, "users/base", "spread"
			for (k in key) {
				split(k, kk, ","); c = kk[1]; s = kk[2]; nb = nu = nr = 0
				for (p = 1; p <= np; p++) {
					b = v["base", c, p, s]; u = v["users", c, p, s]
					if (b != "") B[++nb] = b
					if (u != "") U[++nu] = u
					if (b > 0 && u != "") R[++nr] = u / b
				}
				m = med(R, nr)	# R is now sorted
				printf "%-10s %5s %14" fmt " %14" fmt " %10.4fx %7.4f-%.4f\n", s, c, med(B, nb), med(U, nu), m, R[1], R[nr]
			}
		}' "$1" | { read -r h; echo "$h"; sort; }
}

echo
echo "A/B of the user conversions: base = series without patches/users, users = whole series"
echo "(TCG guest: compare ratios only; ${pairs} interleaved pairs; ratio = median of per-pair users/base)"
ratio_table "$out/users.csv" stressor ops/s .2f
echo
echo "expand_fdtable() with a shared table (fdexpand), us; medians over the boots of each side:"
awk -F, "$AWK_MED"'
	NR > 1 { k = $1 " " $2; n[k] += $4; m[k, ++c[k]] = $5; q[k, c[k]] = $7 }
	END {
		printf "%-6s %5s %8s %12s %10s\n", "kernel", "cpus", "calls", "median_us", "p99_us"
		for (k in c) {
			for (i = 1; i <= c[k]; i++) { M[i] = m[k, i]; Q[i] = q[k, i] }
			split(k, kk, " ")
			printf "%-6s %5s %8d %12.1f %10.1f\n", kk[1], kk[2], n[k], med(M, c[k]), med(Q, c[k])
		}
	}' "$out/fdexpand.csv" | { read -r h; echo "$h"; sort -k2,2n -k1,1; }
echo
echo "fd_install() into a shared table (fdinstall), ns per call + close:"
ratio_table "$out/fdinstall.csv" call ns .1f
# Instructions of fd_install() and of the out-of-line helpers the series
# gives it (fd_install_shared(), fdt_store(), if the compiler kept them).
count() {
	awk '/^[0-9a-f]+ <(fd_install|fd_install_shared|fdt_store)(\.[a-z.0-9]*)?>:$/ { t = 1; next }
		t && /^$/ { t = 0 } t && /:\t/ { n++ } END { print n + 0 }' "$1"
}
echo "fd_install() instructions (with fd_install_shared() and fdt_store() if out of line): base $(count "$out/fdinstall-base.dis"), users $(count "$out/fdinstall-users.dis")"
"$TOP/scripts/plot.sh" "$out" || note "no plots (gnuplot missing?)"
echo "(csv, png and logs: ${out#"$TOP"/}/)"
