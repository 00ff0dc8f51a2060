#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fs patch beside the change a VFS maintainer would make instead, on
# the same workloads (docs/users.md, section 1):
#
#   bench-fsalt.sh      PAIRS=3 CPUS="1 2" STORM_CPUS="4 8" STORM_PAIRS=2 ROUNDS=25
#                       STORM=10,4000 PROCS=500
#                       SIDES="rcu expedited pregrow hazptr hazptr-all"
#
# The 'bench' kernel, built in the A/B work tree (see pipeline.sh):
#   rcu        the series without its fs patch: synchronize_rcu()
#   expedited  the same + configs/ab/fs-expedited.patch
#   pregrow    the same + configs/ab/fs-pregrow.patch: a table grown to
#              min(RLIMIT_NOFILE, 1024) fds when first shared, and
#              synchronize_rcu_expedited() for the resizes that remain
#   hazptr     the fs patch
#   hazptr-all the fs patch + configs/ab/fs-ipi-all.patch: its IPIs go to
#              every CPU that RCU watches, not only to those running a task
#              of the table
# Boots them interleaved, PAIRS rounds at each guest CPU count of CPUS and
# STORM_PAIRS at each of STORM_CPUS.  At CPUS each boot runs guest/fdexpand.c (ROUNDS rounds of
# 4 resizes, 64 -> 1024 fds) with one installer thread and then with the
# sibling idle, guest/fdgrow.c's 'open' (a threaded process opening 4096
# fds, 5 rounds) and 'mem' (slab bytes per process of PROCS processes that
# share their table).  At STORM_CPUS each boot runs fdgrow's 'storm' (a
# loop of fresh shared tables grown to a high fd, STORM=SECONDS,HIGHFD,
# beside a CPU-bound bystander on the last CPU), counting the IPIs per CPU.
#
# Writes results/bench/fsalt-expand.csv
# (kernel,cpus,round,installers,n,median_us,p99_us,installs,lost,ipis),
# fsalt-grow.csv (kernel,cpus,round,fds,us), fsalt-mem.csv
# (kernel,cpus,round,procs,bytes_per_proc), fsalt-storm.csv
# (kernel,cpus,round,secs,resizes,per_s,ipis_per_resize,ipis_per_s,percpu)
# with percpu the IPIs per resize of CPU 0, 1, ... separated by '/', and
# prints the medians over rounds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

pairs=${PAIRS:-3} cpus=${CPUS:-1 2} storm_cpus=${STORM_CPUS:-4 8} rounds=${ROUNDS:-25}
storm=${STORM:-10,4000} procs=${PROCS:-500} storm_pairs=${STORM_PAIRS:-2}
sides=${SIDES:-rcu expedited pregrow hazptr hazptr-all}
is_uint "$pairs" PAIRS
is_uint "$storm_pairs" STORM_PAIRS
is_uint "$rounds" ROUNDS
is_uint "$procs" PROCS
[[ $storm =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "STORM must be SECONDS,HIGHFD, not '$storm'"
for c in $cpus $storm_cpus; do is_uint "$c" "CPUS/STORM_CPUS"; done
for s in $sides; do
	case $s in rcu|expedited|pregrow|hazptr|hazptr-all) ;;
	*) die "SIDES: unknown side '$s' (rcu expedited pregrow hazptr hazptr-all)" ;;
	esac
done
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
fs_rev=$(user_rev 'fs: ')
base_rev=$(git -C "$TREE" rev-parse "$fs_rev~1")
for p in fs-expedited fs-pregrow fs-ipi-all; do
	[ -f "$CONFIGS/ab/$p.patch" ] || die "missing configs/ab/$p.patch"
done

out=$RESULTS/bench
mkdir -p "$out"

for side in $sides; do
	case $side in
	rcu) ab_build bench rcu "$base_rev" ;;
	expedited) ab_build bench expedited "$base_rev" "$CONFIGS/ab/fs-expedited.patch" ;;
	pregrow) ab_build bench pregrow "$base_rev" "$CONFIGS/ab/fs-pregrow.patch" ;;
	hazptr) ab_build bench hazptr "$fs_rev" ;;
	hazptr-all) ab_build bench hazptr-all "$fs_rev" "$CONFIGS/ab/fs-ipi-all.patch" ;;
	esac >/dev/null
done
"$TOP/scripts/initramfs.sh"

echo "kernel,cpus,round,installers,n,median_us,p99_us,installs,lost,ipis" >"$out/fsalt-expand.csv"
echo "kernel,cpus,round,fds,us" >"$out/fsalt-grow.csv"
echo "kernel,cpus,round,procs,bytes_per_proc" >"$out/fsalt-mem.csv"
echo "kernel,cpus,round,secs,resizes,per_s,ipis_per_resize,ipis_per_s,percpu" >"$out/fsalt-storm.csv"

# kv LINE KEY: the value of KEY=VALUE in LINE.
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

for n in $cpus $storm_cpus; do
	storm_boot=false
	for c in $storm_cpus; do [ "$c" != "$n" ] || storm_boot=true; done
	np=$pairs
	! $storm_boot || np=$storm_pairs
	for p in $(seq "$np"); do
		for side in $sides; do
			if $storm_boot; then
				args=(hazptr_job=fdgrow hazptr_fdgrow="storm,$storm")
			else
				args=(hazptr_job=fdexpand,fdgrow hazptr_fdexpand="$rounds,1+$rounds,0"
				      hazptr_fdgrow="open,5,4096+mem,$procs")
			fi
			log=$(ab_boot "fsalt-$side-${n}cpu-$p" "$WORK/ab/bench.$side" "$n" kunit.enable=0 "${args[@]}")
			tr -d '\r' <"$log" | grep -E '^HAZPTR-FD(EXPAND|GROW|MEM|STORM) ' >"$log.rows" || true
			grep -q 'error=' "$log.rows" && die "a job failed in ${log#"$TOP"/}: $(grep 'error=' "$log.rows" | head -1)"
			i=0
			while read -r tag rest; do
				case $tag in
				HAZPTR-FDEXPAND)
					inst=$([ $i = 0 ] && echo 1 || echo 0); i=$((i + 1))
					echo "$side,$n,$p,$inst,$(kv "$rest" n),$(kv "$rest" median_us),$(kv "$rest" p99_us),$(kv "$rest" installs),$(kv "$rest" lost),$(kv "$rest" ipis)" >>"$out/fsalt-expand.csv" ;;
				HAZPTR-FDGROW)
					for f in $rest; do
						case $f in n*_us=*) f=${f#n}; echo "$side,$n,$p,${f%%_us=*},${f#*=}" ;; esac
					done >>"$out/fsalt-grow.csv" ;;
				HAZPTR-FDMEM)
					echo "$side,$n,$p,$(kv "$rest" procs),$(kv "$rest" sunreclaim_per_proc)" >>"$out/fsalt-mem.csv" ;;
				HAZPTR-FDSTORM)
					percpu=$(echo "$rest" | tr ' ' '\n' | sed -n 's/^cpu[0-9]*=\([^/]*\)\/.*/\1/p' | paste -sd/)
					echo "$side,$n,$p,$(kv "$rest" secs),$(kv "$rest" resizes),$(kv "$rest" per_s),$(kv "$rest" ipis_per_resize),$(kv "$rest" ipis_per_s),$percpu" >>"$out/fsalt-storm.csv" ;;
				esac
			done <"$log.rows"
			want=3; $storm_boot && want=1
			[ "$(wc -l <"$log.rows")" -ge "$want" ] || die "missing result lines in ${log#"$TOP"/}"
			note "$side ${n}cpu round $p: $(tr '\n' ' ' <"$log.rows" | cut -c1-200)"
		done
	done
done

echo
echo "The fs patch and its counter-proposals (QEMU TCG: compare within a CPU count); medians over the boots"
awk -F, -v sides="$sides" -v cpus="$cpus" -v scpus="$storm_cpus" "$AWK_MED"'
	FNR == 1 { f++; next }
	f == 1 { k = $1 SUBSEP $2 SUBSEP $4; e[k, ++ne[k]] = $6; q[k, ne[k]] = $7; lost[$1] += $9 }
	f == 2 { k = $1 SUBSEP $2 SUBSEP $4; g[k, ++ng[k]] = $5 }
	f == 3 { k = $1 SUBSEP $2; m[k, ++nm[k]] = $5 }
	f == 4 { k = $1 SUBSEP $2; r[k, ++nr[k]] = $6; ipr[k, nr[k]] = $7; ips[k, nr[k]] = $8; pc[k] = pc[k] " " $9 }
	function m_of(a, cnt, k,   i, x) { for (i = 1; i <= cnt; i++) x[i] = a[k, i]; return med(x, cnt) }
	END {
		ns = split(sides, s, " "); nc = split(cpus, c, " "); nsc = split(scpus, sc, " ")
		print "resize 64 -> 1024 fds, us: median and p99 with an installer running | with the sibling idle"
		for (j = 1; j <= nc; j++) for (i = 1; i <= ns; i++) {
			k1 = s[i] SUBSEP c[j] SUBSEP 1; k0 = s[i] SUBSEP c[j] SUBSEP 0
			if (ne[k1]) printf "  %2s vCPU %-10s %9.1f %9.1f | %9.1f %9.1f\n", c[j], s[i],
				m_of(e, ne[k1], k1), m_of(q, ne[k1], k1), m_of(e, ne[k0], k0), m_of(q, ne[k0], k0)
		}
		print "a threaded process opening fds, us to reach 1024 and 4096"
		for (j = 1; j <= nc; j++) for (i = 1; i <= ns; i++) {
			k1 = s[i] SUBSEP c[j] SUBSEP 1024; k4 = s[i] SUBSEP c[j] SUBSEP 4096
			if (ng[k1]) printf "  %2s vCPU %-10s %9.1f %9.1f\n", c[j], s[i], m_of(g, ng[k1], k1), m_of(g, ng[k4], k4)
		}
		print "unreclaimable slab per process that shares its table, bytes"
		for (j = 1; j <= nc; j++) for (i = 1; i <= ns; i++) {
			k = s[i] SUBSEP c[j]
			if (nm[k]) printf "  %2s vCPU %-10s %9.0f\n", c[j], s[i], m_of(m, nm[k], k)
		}
		print "fresh-table storm: resizes/s, IPIs per resize, IPIs/s; each boot'"'"'s IPIs per resize on CPU 0/1/... (last: the bystander)"
		for (j = 1; j <= nsc; j++) for (i = 1; i <= ns; i++) {
			k = s[i] SUBSEP sc[j]
			if (nr[k]) printf "  %2s vCPU %-10s %8.1f %6.2f %8.1f %s\n", sc[j], s[i],
				m_of(r, nr[k], k), m_of(ipr, nr[k], k), m_of(ips, nr[k], k), pc[k]
		}
		for (x in lost) if (lost[x]) printf "LOST INSTALLS on %s: %d\n", x, lost[x]
	}' "$out/fsalt-expand.csv" "$out/fsalt-grow.csv" "$out/fsalt-mem.csv" "$out/fsalt-storm.csv"
echo "(csv and logs: ${out#"$TOP"/}/)"
