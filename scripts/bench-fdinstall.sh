#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fd_install() into a shared table, timed under TCG, with a control and
# with the code moved: does the time the fs patch adds come from the
# instructions it adds?
#
#   bench-fdinstall.sh      PAIRS=2 CPUS=1 FDINSTALL=1,3 CALLS=
#                           PADS="0 336 688 ... 4048" (12 layouts)
#                           SIDES="base users" PROFILE= REUSE=
#
# Up to three sides of the 'bench' kernel (SIDES), built in the A/B work
# tree (pipeline.sh): 'base', the series without patches/users/; 'users',
# the whole series; 'control', the whole series +
# configs/ab/fs-control.patch, which keeps the shared-table path compiled
# in but never takes it.  Boots them interleaved, PAIRS rounds at each CPU
# count of CPUS, each running guest/fdinstall.c only (ns per call + close
# into a table shared with an idle thread; CALLS, comma-separated, limits
# it to those calls).  If 'control' is as slow as 'users', the difference
# from 'base' comes from elsewhere than the install path; make
# bench-icount counts the instructions themselves.
#
# PADS lists code layouts: for each N other than 0, every side is also
# built with an N-byte function, never called, added to fs/file.c; GCC
# places it where it likes in fs/file.o (after fd_install() in the builds
# checked), so it moves the code placed after it and all code linked after
# fs/file.o by N bytes.  QEMU finds the translated code of a guest address
# through a 4096-entry direct-mapped cache hashed on that address, so
# moving code changes which hot blocks evict each other there.  At one pad
# the sides still differ in layout after their own changes; 'control' has
# the same code as 'users' there.  Each round boots every side at every
# layout.  ab_build keeps each image's System.map beside it.
#
# REUSE=1 boots the images that an earlier run built (and its pad
# patches), without building: for a run that stopped after its builds.
#
# PROFILE=SECONDS samples QEMU itself (perf, on the host) for SECONDS from
# one second after the guest's userspace starts: it needs one call in CALLS
# and FDINSTALL running that call for at least SECONDS + 2.  Each boot's
# samples are split into the translated guest code ([JIT]), QEMU's named
# functions that look up the translated block of a guest address that
# missed that cache (qht_lookup_custom, get_page_addr_code_hostp,
# qemu_ram_block_from_host, qemu_ram_addr_from_host_nofail), QEMU addresses
# without a symbol (Debian's binary is stripped: the rest of the lookup
# path may be among them), and everything else.
#
# Writes results/bench/fdinstall3.csv (kernel,cpus,pad,round,call,median_ns)
# and prints per call and layout the median of the per-round ratios
# users/base and control/base with their spread, then over all layouts;
# with PROFILE, also results/bench/fdprofile.csv
# (kernel,cpus,pad,round,call_ns,jit_pct,lookup_pct,unnamed_pct,other_pct)
# and the medians per side and layout of those parts, in ns per call.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

pairs=${PAIRS:-2} cpus=${CPUS:-1} fdinstall=${FDINSTALL:-1,3} calls=${CALLS:-}
pads=${PADS:-0 336 688 1056 1440 1968 2224 2608 3152 3424 3776 4048}
sides=${SIDES:-base users} profile=${PROFILE:-} reuse=${REUSE:-}
case $reuse in ""|1) ;; *) die "REUSE must be 1 or empty, not '$reuse'" ;; esac
is_uint "$pairs" PAIRS
for c in $cpus; do is_uint "$c" CPUS; done
check_pads "$pads"
[[ $fdinstall =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "FDINSTALL must be SECONDS,RUNS, not '$fdinstall'"
[[ -z $calls || $calls =~ ^(pipe2|open|dup|socket)(,(pipe2|open|dup|socket))*$ ]] ||
	die "CALLS must be a comma-separated list of pipe2, open, dup, socket, not '$calls'"
check_sides "$sides" base users control
if [ -n "$profile" ]; then
	is_uint "$profile" PROFILE
	[[ $calls =~ ^[a-z0-9]+$ ]] || die "PROFILE needs one call in CALLS, not '$calls'"
	(( ${fdinstall%,*} * ${fdinstall#*,} >= profile + 2 )) ||
		die "PROFILE=$profile needs FDINSTALL to run the call for $((profile + 2)) s or more, not '$fdinstall'"
	need perf linux-perf
	perf --version >/dev/null 2>&1 ||
		die "perf does not run here (Debian's wrapper needs linux-perf for the running kernel)"
fi
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
[ -f "$CONFIGS/ab/fs-control.patch" ] || die "missing configs/ab/fs-control.patch"
ab_base_rev >/dev/null # dies now if $TREE lacks the series

out=$RESULTS/bench
mkdir -p "$out"

# profile LOG IMAGE DATA: once LOG shows the guest's userspace, sample the
# QEMU that boots IMAGE for $profile seconds into DATA.
profile() {
	local log=$1 image=$2 data=$3 pid=
	wait_userspace "$log" profile
	sleep 1
	# The QEMU that boots this image, matched on the image's path as
	# fixed text.
	pid=$(pgrep -f "^$QEMU_BIN " | while read -r p; do
		tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -qxF -- "$image" && echo "$p"
	done | head -1)
	[ -n "$pid" ] || die "profile: no QEMU running $image"
	perf record -q -F 999 -p "$pid" -o "$data" -- sleep "$profile" >/dev/null 2>&1 ||
		die "profile: perf record failed on QEMU pid $pid (perf_event_paranoid?)"
}

# profile_row DATA: "jit_pct,lookup_pct,unnamed_pct,other_pct" of a
# profile, from sample counts: translated code, the named lookup
# functions, QEMU addresses without a symbol (Debian's binary is
# stripped), everything else.
profile_row() {
	perf report -i "$1" -n --sort dso,sym --stdio 2>/dev/null | awk '
		/^ *[0-9.]+% +[0-9]+ / {
			n = $2; all += n
			if ($3 == "[JIT]") jit += n
			else if ($NF ~ /^(qht_lookup_custom|get_page_addr_code_hostp|qemu_ram_block_from_host|qemu_ram_addr_from_host_nofail)$/) look += n
			else if ($3 == "qemu-system-x86_64" && $NF ~ /^0x/) unnamed += n
		}
		END {
			if (all) printf "%.2f,%.2f,%.2f,%.2f\n", 100 * jit / all, 100 * look / all,
				100 * unnamed / all, 100 * (all - jit - look - unnamed) / all
		}'
}

for n in $pads; do
	extra=()
	[ "$n" = 0 ] || extra=("$(pad_patch "$n")")
	for side in $sides; do
		name=$(side_name "$side" "$n")
		if [ -n "$reuse" ]; then
			[ -f "$WORK/ab/bench.$name" ] ||
				die "REUSE=1: no image work/ab/bench.$name from an earlier run"
			continue
		fi
		args=$(side_args "$side") || exit 1
		mapfile -t args <<<"$args"
		ab_build bench "$name" "${args[@]}" ${extra[@]+"${extra[@]}"} >/dev/null
	done
done
"$TOP/scripts/initramfs.sh"

csv=$out/fdinstall3.csv prof=$out/fdprofile.csv
echo "kernel,cpus,pad,round,call,median_ns" >"$csv"
[ -z "$profile" ] || echo "kernel,cpus,pad,round,call_ns,jit_pct,lookup_pct,unnamed_pct,other_pct" >"$prof"
. "$TOP/scripts/qemu/${ARCH:-x86_64}.conf"
for n in $cpus; do
	for p in $(seq "$pairs"); do
		for pad in $pads; do
			for side in $sides; do
				name=fdinstall3-$side-pad$pad-${n}cpu-$p
				img=$WORK/ab/bench.$(side_name "$side" "$pad")
				if [ -n "$profile" ]; then
					rm -f "$out/$name.log"
					profile "$out/$name.log" "$img" "$out/$name.perf" &
					# A boot that fails must not leave perf behind.
					trap 'kill $! 2>/dev/null' EXIT
				fi
				log=$(ab_boot "$name" "$img" "$n" \
					kunit.enable=0 hazptr_job=fdinstall hazptr_fdinstall="$fdinstall${calls:+,$calls}")
				rows=$(fdinstall_rows "$log" "$side,$n,$pad,$p")
				[ -z "$rows" ] || echo "$rows" >>"$csv"
				if [ -n "$profile" ]; then
					wait $! || die "profile of $name failed"
					trap - EXIT
					# One call: its row's last field is its ns.
					echo "$side,$n,$pad,$p,${rows##*,},$(profile_row "$out/$name.perf")" >>"$prof"
				fi
			done
		done
		note "${n} vCPU round $p done"
	done
done

echo
echo "ns per call + close into a shared table (TCG); median of the per-round"
echo "ratios to base, spread in brackets; 'all' pools every layout's rounds:"
awk -F, "$AWK_MED$AWK_FDRATIOS"'
	NR > 1 { v[$1, $2, $3, $4, $5] = $6; key[$5 SUBSEP $2] = 1; pads[$3] = 1; if ($4 > np) np = $4 }
	function row(c, n, label, list,   i, p, b, nb, m, s, B, pp) {
		nb = 0
		for (i = split(list, pp, " "); i > 0; i--)
			for (p = 1; p <= np; p++)
				if ((b = v["base", n, pp[i], p, c]) != "") B[++nb] = b
		printf "%-8s %5s %5s %9.1f", c, n, label, med(B, nb)
		for (s = 1; s <= 2; s++)
			if ((m = ratios(s == 1 ? "users" : "control", c, n, list)))
				printf " %9.4fx (%.3f-%.3f)", med(R, m), R[1], R[m]
			else
				printf " %22s", "-"
		printf "\n"
	}
	END {
		printf "%-8s %5s %5s %9s %22s %22s\n", "call", "cpus", "pad", "base ns", "users/base", "control/base"
		for (q in pads) { all = all " " q; npads++ }
		for (k in key) {
			split(k, kk, SUBSEP)
			for (q in pads) row(kk[1], kk[2], q, q)
			if (npads > 1) row(kk[1], kk[2], "all", all)
		}
	}' "$csv" | { read -r h; echo "$h"; sort -k1,1 -k2,2n -k3,3n; }
if [ -n "$profile" ]; then
	echo
	echo "QEMU's time while the guest ran $calls (perf, ${profile}s per boot): median"
	echo "ns per call + close, and of it in translated code, in the named block"
	echo "lookups, at QEMU addresses without a symbol, and elsewhere:"
	awk -F, "$AWK_MED"'
		NR > 1 { k = $1 SUBSEP $2 SUBSEP $3; i = ++n[k]; for (f = 5; f <= 9; f++) V[k, f, i] = f == 5 ? $5 : $5 * $f / 100 }
		END {
			printf "%-8s %5s %5s %9s %9s %9s %9s %9s\n", "kernel", "cpus", "pad", "ns", "jit", "lookup", "unnamed", "other"
			for (k in n) {
				split(k, kk, SUBSEP)
				printf "%-8s %5s %5s", kk[1], kk[2], kk[3]
				for (f = 5; f <= 9; f++) {
					for (i = 1; i <= n[k]; i++) a[i] = V[k, f, i]
					printf " %9.1f", med(a, n[k])
				}
				printf "\n"
			}
		}' "$prof" | { read -r h; echo "$h"; sort -k2,2n -k3,3n -k1,1; }
fi
echo "(csv and logs: ${out#"$TOP"/}/)"
