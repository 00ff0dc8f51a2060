#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PNG plots of the benchmark CSVs in DIR (default results/bench), one per
# CSV present, with gnuplot:
#   refscale.png  ns per read section per mechanism, one cluster per reader
#                 count (refscale.csv)
#   sync.png      median and p99 latency of each synchronize function, log
#                 scale (sync.csv)
#   users.png     stress-ng bogo-ops/s, base vs users, median over the
#                 pairs, per stressor and CPU count (users.csv)
#   fdexpand.png  expand_fdtable() median and p99 per side and CPU count,
#                 log scale (fdexpand.csv)
#   lockdep.png   us per tc qdisc replace and per link add+del, base,
#                 expedited and hazptr, median over rounds (lockdep.csv)
#   native.png    ns per operation on the host CPU, 1 and 2 threads, log
#                 scale (native.csv)
#
#   plot.sh [DIR]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=${1:-$RESULTS/bench}
[ -d "$dir" ] || die "no benchmark results in $dir (run 'make bench')"
need gnuplot gnuplot-nox
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

plot() {	# plot NAME GNUPLOT-COMMANDS
	gnuplot -e "set terminal pngcairo size 900,500 noenhanced; set output '$dir/$1.png'; $2" ||
		die "gnuplot failed on $1"
	note "wrote ${dir#"$TOP"/}/$1.png"
}

if [ -f "$dir/refscale.csv" ]; then
	# rows: type; columns: ns at each reader count.
	awk -F, 'NR > 1 { v[$1, $2] = $4; if (!($1 in t)) { t[$1]; to[++nt] = $1 } if (!($2 in r)) { r[$2]; ro[++nr] = $2 } }
		END { printf "type"; for (j = 1; j <= nr; j++) printf " %s_readers", ro[j]; print ""
		      for (i = 1; i <= nt; i++) { printf "%s", to[i]; for (j = 1; j <= nr; j++) printf " %s", (v[to[i], ro[j]] == "" ? "-" : v[to[i], ro[j]]); print "" } }' \
		"$dir/refscale.csv" >"$tmp/refscale.dat"
	ncol=$(head -1 "$tmp/refscale.dat" | wc -w)
	plot refscale "set title 'refscale: ns per read section (median of runs; TCG guest)'; set ylabel 'ns'; set style data histograms; set style fill solid border -1; set key top left autotitle columnhead; set yrange [0:*]; plot for [c=2:$ncol] '$tmp/refscale.dat' using c:xtic(1)"
fi

if [ -f "$dir/sync.csv" ]; then
	# Column 9: the function name, written by bench-refscale.sh.
	awk -F, 'NR > 1 { print $9, $5 / 1000, $7 / 1000 }' "$dir/sync.csv" >"$tmp/sync.dat"
	plot sync "set title 'synchronize latency with readers running (TCG guest)'; set ylabel 'us (log)'; set logscale y; set style data histograms; set style fill solid border -1; set xtics rotate by -20; plot '$tmp/sync.dat' using 2:xtic(1) title 'median', '' using 3 title 'p99'"
fi

if [ -f "$dir/users.csv" ]; then
	awk -F, "$AWK_MED"'
		NR > 1 { k = $4 "/" $2 "cpu"; if (!(k in seen)) { seen[k]; ko[++nk] = k }
			 if ($1 == "base") b[k, ++nb[k]] = $5; else u[k, ++nu[k]] = $5 }
		END { for (i = 1; i <= nk; i++) { k = ko[i]
			for (j = 1; j <= nb[k]; j++) B[j] = b[k, j]; for (j = 1; j <= nu[k]; j++) U[j] = u[k, j]
			print k, med(B, nb[k]), med(U, nu[k]) } }' "$dir/users.csv" >"$tmp/users.dat"
	plot users "set title 'ops/s (stress-ng bogo-ops): base vs hazptr users (median of pairs; TCG guest)'; set ylabel 'ops/s (log)'; set xtics rotate by -30; set logscale y; set style data histograms; set style fill solid border -1; plot '$tmp/users.dat' using 2:xtic(1) title 'base', '' using 3 title 'users'"
fi

if [ -f "$dir/fdexpand.csv" ]; then
	awk -F, "$AWK_MED"'
		NR > 1 { k = $1 "/" $2 "cpu"; if (!(k in seen)) { seen[k]; ko[++nk] = k }; m[k, ++c[k]] = $5; p[k, c[k]] = $7 }
		END { for (i = 1; i <= nk; i++) { k = ko[i]
			for (j = 1; j <= c[k]; j++) { M[j] = m[k, j]; P[j] = p[k, j] }
			print k, med(M, c[k]), med(P, c[k]) } }' "$dir/fdexpand.csv" >"$tmp/fdexpand.dat"
	plot fdexpand "set title 'expand_fdtable() with a shared table (TCG guest)'; set ylabel 'us (log)'; set logscale y; set style data histograms; set style fill solid border -1; plot '$tmp/fdexpand.dat' using 2:xtic(1) title 'median', '' using 3 title 'p99'"
fi

if [ -f "$dir/lockdep.csv" ]; then
	# rows: op/cpus; columns: base, expedited, hazptr.
	awk -F, "$AWK_MED"'
		NR > 1 { k = $4 "/" $2 "cpu"; if (!(k in seen)) { seen[k]; ko[++nk] = k }; m[$1, k, ++c[$1, k]] = $5 }
		END { for (i = 1; i <= nk; i++) { k = ko[i]; printf "%s", k
			for (s = 1; s <= 3; s++) { side = s == 1 ? "base" : s == 2 ? "expedited" : "hazptr"
				for (j = 1; j <= c[side, k]; j++) M[j] = m[side, k, j]
				printf " %s", med(M, c[side, k]) / 1000 }
			print "" } }' "$dir/lockdep.csv" >"$tmp/lockdep.dat"
	plot lockdep "set title 'lockdep_unregister_key(): ms per operation, debug kernel (TCG guest)'; set ylabel 'ms'; set yrange [0:*]; set xtics rotate by -20; set key top left; set style data histograms; set style fill solid border -1; plot '$tmp/lockdep.dat' using 2:xtic(1) title 'synchronize_rcu()', '' using 3 title 'synchronize_rcu_expedited()', '' using 4 title 'hazptr_synchronize()'"
fi

if [ -f "$dir/native.csv" ]; then
	# op (cpus), ns at 1 thread, ns at 2 threads.
	awk -F, 'NR > 1 { k = $1 ($3 != 2 ? "(" $3 "cpus)" : ""); if (!(k in seen)) { seen[k]; ko[++nk] = k }; v[k, $2] = $4 }
		END { for (i = 1; i <= nk; i++) print ko[i], v[ko[i], 1], v[ko[i], 2] }' "$dir/native.csv" >"$tmp/native.dat"
	plot native "set title 'ns per operation, host CPU (tools/testing/hazptr, native)'; set ylabel 'ns (log)'; set logscale y; set xtics rotate by -30; set style data histograms; set style fill solid border -1; plot '$tmp/native.dat' using 2:xtic(1) title '1 thread', '' using 3 title '2 threads'"
fi
