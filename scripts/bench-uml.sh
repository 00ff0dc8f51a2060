#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fd_install() timed on the host's CPU: the same kernel code as the QEMU
# benchmarks, built as a User-Mode Linux kernel (ARCH=um), which runs it
# natively, with no emulator between the code and the CPU's caches and
# barriers.  Needs no KVM.
#
#   bench-uml.sh      ROUNDS=5 ITERS=1000000 REPS=21 SIDES="base users control"
#                     PADS="0 336 688 ... 4048" (12 layouts) HOSTCPU=1
#
# Sides, as bench-icount.sh builds them: 'base' the series without
# patches/users/, 'users' the whole series, 'control' the whole series +
# configs/ab/fs-control.patch (installs never take the shared-table path:
# the series' code and layout without its claim), 'control-pad' the
# control + configs/ab/fs-control-pad.patch.  Every side gets
# configs/ab/uml-fdbench.patch: a kernel thread times
# get_unused_fd_flags() + fd_install() + close_fd() into its table, shared
# with every kernel thread, REPS rounds of ITERS, then unshares the table
# and does it again, and the kernel powers off.  Each round runs every
# side at every layout once, pinned to host CPU HOSTCPU, the sides in an
# order rotated from round to round.
#
# PADS lists code layouts, as for bench-fdinstall.sh: for each N other
# than 0 every side is also built with an N-byte function, never called,
# added to fs/file.c (pad_patch), which moves the code placed after it.  On
# hardware too, where code sits moves its time (alignment of loops and
# branch targets, the decoded-instruction cache, branch predictor
# aliasing), so one layout alone cannot tell the patch from its layout.
#
# UML is uniprocessor in 6.12: LOCK prefixes and smp_mb() compile away
# there, spinlocks become preemption toggles, per-CPU data has absolute
# addresses; so the loop around the install is cheaper than on SMP x86,
# and a side that adds a locked instruction is timed too cheaply.  The fs
# patch's claim has none (a load, a test and two stores).
#
# Writes results/bench/uml.csv (kernel,pad,round,table,median_ns,min_ns)
# and results/bench/uml-host.txt (CPU model, kernel, date, load) and
# prints, per table and layout, the base's median over rounds of its
# median ns per install + close and each other side's median per-round
# ratio to it; then, over all layouts, the median of the per-round ratios
# with the lowest and highest layout's median; then, per side, the median
# of shared - unshared within each run, which cancels what differs from
# one run to the next.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

rounds=${ROUNDS:-5} iters=${ITERS:-1000000} reps=${REPS:-21}
sides=${SIDES:-base users control} hostcpu=${HOSTCPU:-1}
pads=${PADS:-0 336 688 1056 1440 1968 2224 2608 3152 3424 3776 4048}
is_uint "$rounds" ROUNDS
is_uint "$iters" ITERS
[ "$iters" -le 100000000 ] || die "ITERS must be 100000000 or less, not '$iters'"
is_uint "$reps" REPS
[ "$reps" -le 101 ] || die "REPS must be 101 or less, not '$reps'"
check_pads "$pads"
[[ $hostcpu =~ ^[0-9]+$ ]] || die "HOSTCPU must be a host CPU number, not '$hostcpu'"
[ "$hostcpu" -lt "$(nproc)" ] || die "HOSTCPU=$hostcpu: this host has CPUs 0-$(( $(nproc) - 1 ))"
check_sides "$sides" base users control control-pad
for f in uml-fdbench fs-control fs-control-pad; do
	[ -f "$CONFIGS/ab/$f.patch" ] || die "missing configs/ab/$f.patch"
done
[ -f "$CONFIGS/uml.config" ] || die "missing configs/uml.config"
need taskset util-linux
need ccache ccache
need gcc build-essential
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
ab_base_rev >/dev/null # dies now if $TREE lacks the series

# uml_build NAME REV [PATCH...]: the UML kernel of REV + uml-fdbench +
# PATCH..., built in $WORK/ab/build/uml and copied to $WORK/ab/uml.NAME.
uml_build() {
	local name=$1 rev=$2 ab=$WORK/ab/linux out=$WORK/ab/build/uml names start
	shift 2
	names=$(ab_checkout "$rev" "$CONFIGS/ab/uml-fdbench.patch" "$@") || exit 1
	mkdir -p "$out" "$CCACHE_DIR"
	start=$(date +%s)
	note "building uml.$name (log: ${out#"$TOP"/}/build.log)"
	if ! { make -C "$ab" O="$out" ARCH=um SUBARCH=x86_64 tinyconfig &&
	       "$ab/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$CONFIGS/uml.config" &&
	       make -C "$ab" O="$out" ARCH=um SUBARCH=x86_64 olddefconfig &&
	       make -C "$ab" O="$out" ARCH=um SUBARCH=x86_64 -j"$JOBS" CC="${KCC:-ccache gcc}" linux
	     } >"$out/build.log" 2>&1; then
		tail -40 "$out/build.log" >&2
		die "the UML kernel $name did not build (log: ${out#"$TOP"/}/build.log)"
	fi
	# Every line of the fragment must have survived olddefconfig.
	grep -E '^(CONFIG_.*=y|# CONFIG_.* is not set)$' "$CONFIGS/uml.config" | while read -r l; do
		if [[ $l == "#"* ]]; then
			l=${l#\# }; l=${l% is not set}
			! grep -q "^$l=" "$out/.config" || die "uml.config: $l is set after olddefconfig"
		else
			grep -qx "$l" "$out/.config" || die "uml.config: $l did not survive olddefconfig"
		fi
	done
	cp "$out/linux" "$WORK/ab/uml.$name"
	note "uml.$name: $(git -C "$ab" log -1 --format='%h %s')$names ($(( $(date +%s) - start ))s)"
}

for n in $pads; do
	extra=()
	[ "$n" = 0 ] || extra=("$(pad_patch "$n")")
	for side in $sides; do
		name=$(side_name "$side" "$n")
		args=$(side_args "$side") || exit 1
		mapfile -t args <<<"$args"
		uml_build "$name" "${args[@]}" ${extra[@]+"${extra[@]}"}
	done
done

out=$RESULTS/bench
mkdir -p "$out"
csv=$out/uml.csv
echo "kernel,pad,round,table,median_ns,min_ns" >"$csv"
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
	echo "host: $model, $(nproc) CPUs, HOSTCPU=$hostcpu"
	echo "kernel: $(uname -r); date: $(date -u '+%F %T UTC'); load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "ROUNDS=$rounds ITERS=$iters REPS=$reps SIDES=\"$sides\" PADS=\"$pads\""
} >"$out/uml-host.txt"
# UML keeps its memory in a file under TMPDIR: on tmpfs, so that no
# writeback of an earlier run's pages lands in a timed one.
tmp=$(mktemp -d -p /dev/shm) || die "cannot make a directory in /dev/shm (UML needs tmpfs there)"
trap 'rm -rf "$tmp"' EXIT
# A run of both tables takes about 2 x REPS x ITERS x 25 ns; allow 10x.
limit=$(( 60 + reps * iters / 2000000 ))
nsides=$(printf '%s\n' $sides | wc -l)
for r in $(seq "$rounds"); do
	# The sides in an order rotated by one each round.
	order=$(printf '%s\n' $sides | awk -v k=$(( (r - 1) % nsides )) -v n="$nsides" \
		'{ a[NR - 1] = $0 } END { for (i = 0; i < n; i++) print a[(i + k) % n] }')
	for pad in $pads; do
		for side in $order; do
			name=$(side_name "$side" "$pad")
			log=$out/uml-$name-$r.log
			rc=0
			TMPDIR=$tmp timeout "$limit" taskset -c "$hostcpu" "$WORK/ab/uml.$name" mem=64M \
				con=null con0=fd:0,fd:1 fdbench.iters="$iters" fdbench.reps="$reps" \
				</dev/null >"$log" 2>&1 || rc=$?
			rows=$(sed -n "s/^HAZPTR-UMLFD table=\([a-z]*\) count=[0-9]* iters=$iters reps=$reps median_ns=\([0-9.]*\) min_ns=\([0-9.]*\)\$/\1,\2,\3/p" "$log")
			if [ "$rc" != 0 ] || ! grep -q '^HAZPTR-UMLFD done' "$log" ||
			   grep -q '^HAZPTR-UMLFD .*error=' "$log" ||
			   [ "$(echo "$rows" | cut -d, -f1 | tr '\n' ' ')" != "shared unshared " ]; then
				tail -20 "$log" >&2
				[ "$rc" = 124 ] && die "uml.$name round $r hung (killed after $limit s; log: ${log#"$TOP"/})"
				die "uml.$name round $r failed (exit $rc, or not one shared and one unshared result of ITERS=$iters REPS=$reps; log: ${log#"$TOP"/})"
			fi
			echo "$rows" | sed "s/^/$side,$pad,$r,/" >>"$csv"
		done
	done
	note "round $r of $rounds done"
done

echo
echo "ns per get_unused_fd_flags() + fd_install() + close_fd() in a kernel thread,"
echo "UML on host CPU $hostcpu ($model):"
echo "base: median over $rounds rounds of each run's median of $reps x $iters;"
echo "others: median of the per-round ratios to the base at the same layout"
awk -F, -v sides="$sides" -v pads="$pads" "$AWK_MED"'
	NR > 1 { v[$1, $2, $3, $4] = $5; if (!($4 in seen)) { seen[$4] = 1; tabs[++nt] = $4 } if ($3 > nr) nr = $3 }
	# ratios(side, t, p): the per-round ratios side/base of table t at
	# layout p appended to R[1..nR].
	function ratios(side, t, p,   r) {
		for (r = 1; r <= nr; r++)
			if ((side, p, r, t) in v && (s[1], p, r, t) in v)
				R[++nR] = v[side, p, r, t] / v[s[1], p, r, t]
	}
	END {
		ns = split(sides, s, " "); np = split(pads, P, " ")
		printf "%-9s %5s %9s", "table", "pad", "base ns"
		for (i = 2; i <= ns; i++) printf " %14s", s[i] "/base"
		printf "\n"
		for (ti = 1; ti <= nt; ti++) {
			t = tabs[ti]
			for (j = 1; j <= np; j++) {
				k = 0; delete a
				for (r = 1; r <= nr; r++) if ((s[1], P[j], r, t) in v) a[++k] = v[s[1], P[j], r, t]
				printf "%-9s %5s %9.2f", t, P[j], med(a, k)
				for (i = 2; i <= ns; i++) {
					nR = 0; delete R; ratios(s[i], t, P[j])
					m = med(R, nR); lm[i, j] = m
					printf " %13.3fx", m
				}
				printf "\n"
			}
			if (np < 2) continue
			printf "%-9s %5s %9s", t, "all", ""
			for (i = 2; i <= ns; i++) {
				nR = 0; delete R
				for (j = 1; j <= np; j++) ratios(s[i], t, P[j])
				k = 0; delete a
				for (j = 1; j <= np; j++) a[++k] = lm[i, j]
				med(a, k)
				printf " %6.3fx %.3f-%.3f", med(R, nR), a[1], a[k]
			}
			printf "\n"
		}
	}' "$csv"
echo "(all: median of every round at every layout, then the lowest and highest"
echo "layout median)"
echo
echo "shared - unshared within each run, ns (median over every round and layout;"
echo "runs in which shared was slower):"
awk -F, -v sides="$sides" "$AWK_MED"'
	NR > 1 { v[$1, $2, $3, $4] = $5 }
	END {
		ns = split(sides, s, " ")
		for (i = 1; i <= ns; i++) {
			k = 0; up = 0; delete a
			for (key in v) {
				split(key, f, SUBSEP)
				if (f[1] != s[i] || f[4] != "shared" || !((f[1], f[2], f[3], "unshared") in v)) continue
				a[++k] = v[key] - v[f[1], f[2], f[3], "unshared"]
				if (a[k] > 0) up++
			}
			printf "%-12s %+7.3f  %d of %d\n", s[i], med(a, k), up, k
		}
	}' "$csv"
echo "(csv, host and logs: ${out#"$TOP"/}/)"
