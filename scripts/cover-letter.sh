#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Render the series' cover letter from docs/cover-letter.in and the data the
# benchmarks write: each @@NAME@@ line becomes a table built from a CSV of
# results/bench/ (what the last make bench-* or make native wrote here) or,
# when that file is missing, of docs/data/ (the copy `cover-letter.sh
# --save` keeps in the repository).  Prints the subject line, an empty line
# and the body.
#
#   cover-letter.sh            render to stdout
#   cover-letter.sh --save     copy results/bench/*.csv the letter uses to
#                              docs/data/, then render
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tmpl=$TOP/docs/cover-letter.in
data=$TOP/docs/data
[ -f "$tmpl" ] || die "missing ${tmpl#"$TOP"/}"
CSVS="native-compare native-gate fdexpand5 icount-slub icount-slub-final"

if [ "${1:-}" = --save ]; then
	mkdir -p "$data"
	for c in $CSVS; do
		[ -f "$RESULTS/bench/$c.csv" ] && cp "$RESULTS/bench/$c.csv" "$data/$c.csv"
	done
	note "saved the benchmark CSVs to ${data#"$TOP"/}"
elif [ -n "${1:-}" ]; then
	die "usage: cover-letter.sh [--save]"
fi

# csv NAME: the path of NAME.csv, fresh results first; empty if none.
csv() {
	if [ -f "$RESULTS/bench/$1.csv" ]; then
		echo "$RESULTS/bench/$1.csv"
	elif [ -f "$data/$1.csv" ]; then
		echo "$data/$1.csv"
	fi
}

fdexpand() {
	local f
	f=$(csv fdexpand5) || true
	[ -n "$f" ] || { echo "   (no data: run make bench-fdexpand)"; return; }
	echo "   us per expand_fdtable() of a shared table while another thread"
	echo "   installs fds into it, median of boots (TCG), median and p99:"
	echo
	awk -F, -v sides="rcu expedited polled hazptr-sym hazptr-asym" "$AWK_MED"'
		NR > 1 { k = $1 SUBSEP $2; i = ++c[k]; m[k, i] = $5; p[k, i] = $7; cp[$2] = 1; if ($2 > nc) nc = $2 }
		END {
			n = split(sides, s, " ")
			split("synchronize_rcu()|.._expedited()|polled grace period|symmetric hazptr|claim (patch 16)", L, "|")
			printf "     %-22s", ""
			for (x = 1; x <= nc; x++) if (x in cp) printf " %17s", x " vCPU" (x > 1 ? "s" : " ")
			printf "\n     %-22s", ""
			for (x = 1; x <= nc; x++) if (x in cp) printf " %8s %8s", "median", "p99"
			printf "\n"
			for (i = 1; i <= n; i++) {
				printf "     %-22s", L[i]
				for (x = 1; x <= nc; x++) {
					if (!(x in cp)) continue
					k = s[i] SUBSEP x
					for (j = 1; j <= c[k]; j++) { a[j] = m[k, j]; b[j] = p[k, j] }
					printf " %8.1f %8.1f", med(a, c[k]), med(b, c[k])
				}
				printf "\n"
			}
		}' "$f"
}

icount() {
	local f
	# The final series' count when there is one (docs/data/icount-slub-final.csv).
	f=$(csv icount-slub-final) || true
	[ -n "$f" ] || f=$(csv icount-slub) || true
	[ -n "$f" ] || return 0
	echo
	echo "   Instructions executed per call + close into a table shared with an"
	echo "   idle thread, without -> with the fs patch (QEMU -icount shift=0,"
	echo "   1 vCPU, SLUB):"
	echo
	awk -F, "$AWK_MED"'
		NR > 1 { n[$1, $3]++; v[$1, $3, n[$1, $3]] = $4; calls[$3] = 1 }
		END {
			for (c in calls) {
				for (i = 1; i <= n["base", c]; i++) B[i] = v["base", c, i]
				for (i = 1; i <= n["users", c]; i++) U[i] = v["users", c, i]
				b = med(B, n["base", c]); u = med(U, n["users", c])
				printf "     %-7s %8.1f -> %8.1f  (+%.1f, %.2f%%)\n", c, b, u, u - b, 100 * (u - b) / b
			}
		}' "$f" | sort
}

native() {
	local f
	# The inline readers' comparison (docs/data/native-inline.csv) first.
	f=$(csv native-inline) || true
	[ -n "$f" ] || f=$(csv native-compare) || true
	[ -n "$f" ] || { echo "  (no native data: run make native)"; return; }
	echo "Native (tools/testing/hazptr, the unchanged kernel/hazptr.c on the host"
	echo "CPU, x86-64), ns per operation, one thread, median of rounds:"
	echo
	awk -F, '$1 == "new" && $3 == 1 {
			k = $2 ($2 ~ /synchronize/ ? ", " $4 " possible CPUs" : "")
			printf "  %-52s %8s\n", k, $5
		}' "$f"
}

gate() {
	local f
	f=$(csv native-gate) || true
	[ -n "$f" ] || return 0
	echo "Gate storms (the same harness): readers on every other simulated CPU"
	echo "protect one address back to back, the simulated CPUs time-shared on"
	echo "two host CPUs; longest wait of the updater on that address, ms:"
	echo
	awk -F, '$1 == "new" { v[$2, $3] = $8 == "PASS" ? sprintf("%.0f", $7 / 1000) : "none ended"
			if (!($2 in m)) o[++nm] = $2; m[$2]; if (!($3 in c)) C[++nc] = $3; c[$3] }
		END {
			printf "  %-10s", "CPUs"
			for (i = 1; i <= nc; i++) printf " %10s", C[i]
			printf "\n"
			for (j = 1; j <= nm; j++) {
				printf "  %-10s", o[j]
				for (i = 1; i <= nc; i++) printf " %10s", v[o[j], C[i]]
				printf "\n"
			}
		}' "$f"
}

ntorture=$(awk '$1 !~ /^#/ && NF >= 5 && $2 != "native" && $2 != "model"' "$TOP/configs/tests.list" | wc -l)
nmut=$(find "$TOP/configs/mutations" -maxdepth 1 -name '*.patch' | wc -l)
version=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || echo "6.12")

while IFS= read -r line; do
	case $line in
	@@NATIVE@@) native ;;
	@@GATE@@) gate ;;
	@@FDEXPAND@@) fdexpand ;;
	@@ICOUNT@@) icount ;;
	*)
		line=${line//@@NTORTURE@@/$ntorture}
		line=${line//@@NMUT@@/$nmut}
		line=${line//@@VERSION@@/$version}
		printf '%s\n' "$line"
		;;
	esac
done <"$tmpl"
