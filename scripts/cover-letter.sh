#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Render the series' cover letter from docs/cover-letter.in and the data the
# benchmarks write: each @@NAME@@ line becomes a table built from a CSV of
# results/bench/ (what the last make bench-* wrote here) or, when that
# file is missing, of docs/data/ (the copy `cover-letter.sh --save` keeps
# in the repository).  Prints the subject line, an empty line and the body.
#
#   cover-letter.sh            render to stdout
#   cover-letter.sh --save     copy results/bench/*.csv the letter uses to
#                              docs/data/, then render
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tmpl=$TOP/docs/cover-letter.in
data=$TOP/docs/data
[ -f "$tmpl" ] || die "missing ${tmpl#"$TOP"/}"
CSVS="refscale sync sync-cpus switch lockdep native fdexpand fdexpand5 fdinstall fdinstall3 fdprofile icount"

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

refscale() {
	local f
	f=$(csv refscale) || true
	[ -n "$f" ] || { echo "  (no refscale data: run make bench-refscale)"; return; }
	echo "Reader cost, ns per acquire+release section, refscale (TCG):"
	echo
	awk -F, 'NR > 1 { v[$1, $2] = $4; if (!($1 in t)) { t[$1]; o[++n] = $1 } r[$2] = 1 }
		END {
			printf "  %-12s %10s %10s\n", "type", "1 reader", "2 readers"
			for (i = 1; i <= n; i++) printf "  %-12s %10.1f %10.1f\n", o[i], v[o[i], 1], v[o[i], 2]
		}' "$f"
}

sync() {
	local f
	f=$(csv sync) || true
	[ -n "$f" ] || { echo "  (no sync data: run make bench-refscale)"; return; }
	echo "Update side, 1000 calls with 2 readers running, median us (TCG):"
	echo
	awk -F, 'NR > 1 { printf "  %-42s %10.1f\n", $9 ($2 == "sync_other" ? " (object not held)" : ""), $5 / 1000 }' "$f"
}

synccpus() {
	local f
	f=$(csv sync-cpus) || true
	[ -n "$f" ] || return 0
	echo "Uncontended hazptr_synchronize() against synchronize_rcu_expedited(),"
	echo "median us, by vCPUs and possible CPUs (TCG; more vCPUs than host cores"
	echo "from 4 on):"
	echo
	awk -F, 'NR > 1 { k = $1 "/" $2; if (!(k in s)) { s[k]; o[++n] = k } v[k, $3] = $4 / 1000 }
		END {
			printf "  %-14s %12s %12s\n", "vCPUs/possible", "hazptr", "rcu_exp"
			for (i = 1; i <= n; i++)
				printf "  %-14s %12.2f %12.2f\n", o[i], v[o[i], "hazptr_synchronize"], v[o[i], "synchronize_rcu_expedited"]
		}' "$f"
}

switch() {
	local f
	f=$(csv switch) || true
	[ -n "$f" ] || return 0
	awk -F, "$AWK_MED"'
		NR > 1 { v[$1, $2] = $3; if ($2 > np) np = $2 }
		END {
			for (p = 1; p <= np; p++) { B[p] = v["base", p]; S[p] = v["series", p]; R[p] = S[p] / B[p] }
			b = med(B, np); s = med(S, np); r = med(R, np)
			printf "Context switch cost of the scheduler hook (pipe ping-pong, 1 vCPU, %d\n", np
			printf "interleaved boot pairs, TCG): %.1f ns per switch without the series,\n", b
			printf "%.1f with it; per-pair ratio median %.4f (%.4f-%.4f), so %.4fx\n", s, r, R[1], R[np], 1 / r
			printf "the switches per second.\n"
		}' "$f"
}

lockdep() {
	local f
	f=$(csv lockdep) || true
	[ -n "$f" ] || { echo "   (no data: run make bench-lockdep)"; return; }
	echo "   ms per tc qdisc replace of an mq root on a 16-queue dummy device"
	echo "   (17 keys unregistered), debug kernel, median of rounds (TCG):"
	echo
	awk -F, "$AWK_MED"'
		NR > 1 && $4 == "qdisc-replace" { m[$1, $2, ++c[$1, $2]] = $5; ipi[$1, $2] += $7; cp[$2] = 1 }
		END {
			printf "     %-28s", "vCPUs"
			n = 0; for (x in cp) C[++n] = x
			for (i = 2; i <= n; i++) for (j = i; j > 1 && C[j - 1] + 0 > C[j] + 0; j--) { t = C[j]; C[j] = C[j - 1]; C[j - 1] = t }
			for (i = 1; i <= n; i++) printf " %7s", C[i]
			printf "   IPIs@%s\n", C[n]
			split("base expedited hazptr", S, " ")
			split("synchronize_rcu()|synchronize_rcu_expedited()|hazptr_synchronize()", L, "|")
			for (s = 1; s <= 3; s++) {
				printf "     %-28s", L[s]
				for (i = 1; i <= n; i++) {
					k = c[S[s], C[i]]
					for (j = 1; j <= k; j++) M[j] = m[S[s], C[i], j]
					printf " %7.0f", med(M, k) / 1000
				}
				printf "   %.0f\n", ipi[S[s], C[n]] / c[S[s], C[n]]
			}
		}' "$f"
}

native() {
	local f
	f=$(csv native) || true
	[ -n "$f" ] || { echo "  (no native data: run make native)"; return; }
	echo "Native (tools/testing/hazptr on the host CPU, x86-64), ns per operation,"
	echo "median of runs:"
	echo
	awk -F, 'NR > 1 { k = $1 ($1 ~ /synchronize|retire/ ? ", " $3 " CPUs" : ""); if (!(k in s)) { s[k]; o[++n] = k } v[k, $2] = $4 }
		END {
			printf "  %-40s %9s %9s\n", "", "1 thread", "2 threads"
			for (i = 1; i <= n; i++) printf "  %-40s %9s %9s\n", o[i], v[o[i], 1], v[o[i], 2]
		}' "$f"
}

fdexpand() {
	local f
	f=$(csv fdexpand5) || true
	if [ -z "$f" ]; then
		echo "   (no fdexpand5 data: run make bench-fdexpand)"
		return
	fi
	echo "   us per expand_fdtable() of a shared table while another thread"
	echo "   installs fds into it, median of boots (TCG):"
	echo
	awk -F, -v sides="rcu expedited polled hazptr-sym hazptr-asym" "$AWK_MED"'
		NR > 1 { k = $1 SUBSEP $2; m[k, ++c[k]] = $5; cp[$2] = 1; if ($2 > nc) nc = $2 }
		END {
			n = split(sides, s, " ")
			printf "     %-8s", "vCPUs"
			for (i = 1; i <= n; i++) printf " %11s", s[i]
			printf "\n"
			for (x = 1; x <= nc; x++) {
				if (!(x in cp)) continue
				printf "     %-8s", x
				for (i = 1; i <= n; i++) {
					k = s[i] SUBSEP x
					for (j = 1; j <= c[k]; j++) a[j] = m[k, j]
					printf " %11.1f", med(a, c[k])
				}
				printf "\n"
			}
		}' "$f"
}

fdinstall() {
	local f
	f=$(csv fdinstall3) || true
	[ -n "$f" ] || return 0
	echo
	echo "   Time per call + close into a table shared with an idle thread (TCG),"
	echo "   median of the per-round ratios to the unpatched kernel over every"
	echo "   code layout measured, with the lowest and highest layout's median:"
	echo
	awk -F, "$AWK_MED$AWK_FDRATIOS"'
		NR > 1 { v[$1, $2, $3, $4, $5] = $6; key[$5 SUBSEP $2] = 1; pads[$3] = 1; if ($4 > np) np = $4 }
		END {
			for (q in pads) { all = all " " q; npads++ }
			for (k in key) {
				split(k, kk, SUBSEP); c = kk[1]; n = kk[2]
				printf "     %-7s %s vCPU, %d layouts:", c, n, npads
				for (si = 1; si <= 2; si++) {
					side = si == 1 ? "users" : "control"
					if (!(m = ratios(side, c, n, all))) continue
					pooled = med(R, m); nl = 0
					for (q in pads) if ((m = ratios(side, c, n, q))) L[++nl] = med(R, m)
					med(L, nl)
					printf " %s %.3fx (%.3f-%.3f)", si == 1 ? "series" : "control", pooled, L[1], L[nl]
				}
				printf "\n"
			}
		}' "$f" | sort
}

fdprofile() {
	local f
	f=$(csv fdprofile) || true
	[ -n "$f" ] || return 0
	echo
	echo "   Where QEMU's time goes (perf on the host while the guest loops on"
	echo "   one call; medians of ns per call + close): in translated guest"
	echo "   code, in QEMU's named lookups of translated blocks, at QEMU"
	echo "   addresses without a symbol, elsewhere; at two code layouts:"
	echo
	printf "     %-12s %-6s %7s %10s %8s %8s %6s\n" "" "" "total" "translated" "lookups" "unnamed" "other"
	awk -F, "$AWK_MED"'
		NR > 1 { k = $3 SUBSEP $1; i = ++n[k]; for (c = 5; c <= 9; c++) V[k, c, i] = c == 5 ? $5 : $5 * $c / 100; pads[$3] = 1 }
		END {
			w[5] = 7; w[6] = 10; w[7] = 8; w[8] = 8; w[9] = 6
			for (q in pads)
				for (si = 1; si <= 2; si++) {
					k = q SUBSEP (si == 1 ? "base" : "users")
					printf "%s\t%d\t     %-12s %-6s", q, si, si == 1 ? "layout " q : "", si == 1 ? "base" : "series"
					for (c = 5; c <= 9; c++) {
						for (i = 1; i <= n[k]; i++) a[i] = V[k, c, i]
						printf " %*.0f", w[c], med(a, n[k])
					}
					printf "\n"
				}
		}' "$f" | sort -t"$(printf '\t')" -k1,1n -k2,2n | cut -f3-
}

icount() {
	local f
	f=$(csv icount) || true
	[ -n "$f" ] || return 0
	echo
	echo "   Instructions executed per call + close into a table shared with an"
	echo "   idle thread, unpatched -> patched (QEMU -icount shift=0, 1 vCPU):"
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

ntorture=$(awk '$1 !~ /^#/ && NF >= 5 && $3 ~ /^(SUCCESS|FAILURE)$/ && $2 != "native"' "$TOP/configs/tests.list" | wc -l)
version=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || echo "6.12")

while IFS= read -r line; do
	case $line in
	@@REFSCALE@@) refscale ;;
	@@SYNC@@) sync ;;
	@@SYNCCPUS@@) synccpus ;;
	@@SWITCH@@) switch ;;
	@@LOCKDEP@@) lockdep ;;
	@@NATIVE@@) native ;;
	@@FDEXPAND@@) fdexpand ;;
	@@FDINSTALL@@) fdinstall ;;
	@@FDPROFILE@@) fdprofile ;;
	@@ICOUNT@@) icount ;;
	*)
		line=${line//@@NTORTURE@@/$ntorture}
		line=${line//@@VERSION@@/$version}
		printf '%s\n' "$line"
		;;
	esac
done <"$tmpl"
