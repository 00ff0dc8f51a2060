#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions executed per fd-installing call, base against the series:
# what the fs patch adds to every open, pipe, socket and dup of a threaded
# program, counted, where TCG's timing cannot price it.
#
#   bench-icount.sh      BOOTS=2 FDINSTALL=1,3 CALLS= TRACE=
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
# CALLS, comma-separated, limits the calls timed.
#
# TRACE=SECONDS, with one call in CALLS, also says where a difference comes
# from: one second after the guest's userspace is up, QEMU logs every
# translated block it runs for SECONDS of host time (-d exec with nochain,
# switched on and off through a monitor socket), each block is counted
# against the function of the image's System.map it starts in (static
# functions of one name told apart by address), and its instructions are
# estimated from the disassembly (see blocks()), per call: per entry of
# __x64_sys_close, two per pipe2.  The window is a few ms of guest time
# (some hundred calls): work done in the call is counted exactly, work
# deferred from it (RCU callbacks, the slab and page allocators) only as
# far as the window samples it.
#
# Writes results/bench/icount.csv (kernel,boot,call,instructions) and prints
# per call the median of each side, the difference and the ratio; with
# TRACE, also results/bench/tbtrace.csv
# (kernel,boot,calls,function,blocks_per_call,insns_per_call) and the
# functions whose median instructions per call differ between the sides.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

boots=${BOOTS:-2} fdinstall=${FDINSTALL:-1,3} calls=${CALLS:-} trace=${TRACE:-}
is_uint "$boots" BOOTS
[[ $fdinstall =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "FDINSTALL must be SECONDS,RUNS, not '$fdinstall'"
[[ $calls =~ ^([a-z0-9]+(,[a-z0-9]+)*)?$ ]] || die "CALLS must be a comma-separated list of calls, not '$calls'"
if [ -n "$trace" ]; then
	is_uint "$trace" TRACE
	[[ $calls =~ ^[a-z0-9]+$ ]] || die "TRACE needs one call in CALLS, not '$calls'"
	(( ${fdinstall%,*} * ${fdinstall#*,} >= trace + 2 )) ||
		die "TRACE=$trace needs FDINSTALL to run the call for $((trace + 2)) s or more, not '$fdinstall'"
fi
[ -d "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
base_rev=$(ab_base_rev)

out=$RESULTS/bench
mkdir -p "$out"
# TRACE reads each side's vmlinux: keep it beside the image.
ab_build bench users "$(git -C "$TREE" rev-parse HEAD)" >/dev/null
[ -z "$trace" ] || cp "$WORK/ab/build/bench/vmlinux" "$WORK/ab/bench.users.vmlinux"
ab_build bench base "$base_rev" >/dev/null
[ -z "$trace" ] || cp "$WORK/ab/build/bench/vmlinux" "$WORK/ab/bench.base.vmlinux"
"$TOP/scripts/initramfs.sh"

# monitor SOCKET COMMAND: one command to a QEMU monitor (HMP) socket; fails
# unless the monitor answers with its next prompt and no error.
monitor() {
	python3 - "$1" "$2" <<-'EOF' || die "monitor: '$2' to $1 failed"
	import socket, sys
	s = socket.socket(socket.AF_UNIX)
	s.settimeout(10)
	s.connect(sys.argv[1])
	def upto_prompt():
	    buf = b""
	    while not buf.endswith(b"(qemu) "):
	        b = s.recv(4096)
	        if not b:
	            sys.exit("monitor closed")
	        buf += b
	    return buf
	upto_prompt()
	s.sendall(sys.argv[2].encode() + b"\n")
	reply = upto_prompt().decode(errors="replace")
	if "rror" in reply or "nvalid" in reply:
	    sys.exit(reply.strip())
	EOF
}

# trace LOG SOCKET: once LOG shows the guest's userspace, log the blocks
# QEMU runs for $trace seconds.
trace() {
	wait_userspace "$1" trace
	sleep 1
	monitor "$2" "log exec,nochain"
	sleep "$trace"
	monitor "$2" "log nochain"
}

# blocks EXECLOG SYSTEM.MAP VMLINUX: "function blocks instructions entries"
# for each function of SYSTEM.MAP that the blocks of EXECLOG start in
# ('(user)' below the first symbol; a name that System.map has more than
# once gets '@' and the address's last 8 digits; entries: blocks at the
# function's address).  A block's instructions are estimated from
# VMLINUX's disassembly: from its start to the first instruction that ends
# a TCG block (a jump, call or return, a rep-prefixed string instruction,
# one that changes interrupt or control state, I/O under -icount) or to
# the end of its page.  Code patched at boot (alternatives, static keys,
# stac/clac) is read as built, and QEMU may end a block earlier, before an
# instruction that crosses a page: an estimate.  A block that starts
# where the disassembly has no instruction (user space) counts no
# instructions.  Addresses are compared as 16-digit hex strings.
blocks() {
	{
		sed -nE 's/^(Trace|Chain) [0-9]+: 0x[0-9a-f]+ \[[0-9a-f]+\/([0-9a-f]{16})\/.*/\2/p' "$1" |
			LC_ALL=C sort | uniq -c | awk '{ print $2, "P", $1 }'
		objdump -d --no-show-raw-insn "$3" | awk -F'\t' '
			/^ffffffff[0-9a-f]+:\t/ {
				n = split($2, w, " ")
				m = w[1] ~ /^(notrack|bnd|cs|ds|data16|addr32)$/ ? w[2] : w[1]
				e = m ~ /^(j|call|ret|lret|iret|sys|int|ud|hlt|rep|sti|popf|wrmsr|lgdt|lidt|ltr|invlpg|pause|rdtsc|in$|out$|ins|outs)/ ||
					(m ~ /^mov/ && $2 ~ /%[cd]r[0-9]/)
				print substr($1, 1, 16), "I", e ? 1 : 0
			}'
	} | LC_ALL=C sort -k1,1r -k2,2 | awk '
		# Descending: a block runs from its start to the first end at or
		# after it, within the page it starts in.
		$2 == "I" {
			pg = substr($1, 1, 13)
			run = ($3 || pg != lastpg) ? 1 : run + 1
			lastpg = pg
			last = $1
			next
		}
		{ print $1, "P", $3, $1 == last ? run : 0 }' |
		cat - <(awk 'NR == FNR { n[$3]++; next }
			$2 ~ /^[tTwW]$/ { print $1, "S", (n[$3] > 1 ? $3 "@" substr($1, 9) : $3) }' "$2" "$2") |
		LC_ALL=C sort -k1,1 -k2,2r | awk '
		$2 == "S" { f = $3; fa = $1; next }
		{ k = f == "" ? "(user)" : f; b[k] += $3; i[k] += $3 * $4; if ($1 == fa) e[k] += $3 }
		END { for (k in b) print k, b[k], i[k], e[k] + 0 }'
}

csv=$out/icount.csv tcsv=$out/tbtrace.csv
echo "kernel,boot,call,instructions" >"$csv"
[ -z "$trace" ] || echo "kernel,boot,calls,function,blocks_per_call,insns_per_call" >"$tcsv"
closes=1
[ "$calls" != pipe2 ] || closes=2
for b in $(seq "$boots"); do
	for side in base users; do
		name=icount-$side-$b img=$WORK/ab/bench.$side
		qemu_args="-icount shift=0"
		if [ -n "$trace" ]; then
			for f in "$img.map" "$img.vmlinux"; do
				[ -s "$f" ] || die "TRACE: no ${f#"$TOP"/} (System.map and vmlinux of the build)"
			done
			# QEMU_ARGS is split on spaces: the log and the
			# monitor socket go to a short path of their own.
			tmp=$(mktemp -d /tmp/hazptr-trace.XXXXXX)
			rm -f "$out/$name.log"
			qemu_args+=" -d nochain -D $tmp/exec -monitor unix:$tmp/monitor,server=on,wait=off"
			trace "$out/$name.log" "$tmp/monitor" &
			# A boot that fails must not leave the trace or its
			# log (about 45 MB a second) behind.
			trap 'kill $! 2>/dev/null; rm -rf "$tmp"' EXIT
		fi
		log=$(QEMU_ARGS=$qemu_args ab_boot "$name" "$img" 1 \
			kunit.enable=0 hazptr_job=fdinstall hazptr_fdinstall="$fdinstall${calls:+,$calls}")
		fdinstall_rows "$log" "$side,$b" >>"$csv"
		note "$side boot $b: $(grep -c "^$side,$b," "$csv") calls"
		if [ -n "$trace" ]; then
			wait $! || die "trace of $name failed"
			blocks "$tmp/exec" "$img.map" "$img.vmlinux" >"$out/$name.blocks"
			rm -rf "$tmp"
			trap - EXIT
			awk -v side="$side" -v b="$b" -v closes="$closes" '
				{ n[$1] = $2; i[$1] = $3; e[$1] = $4; allb += $2; alli += $3 }
				END {
					c = e["__x64_sys_close"] / closes
					if (c < 1) { print "no call traced" > "/dev/stderr"; exit 1 }
					pre = side "," b "," c
					for (f in n) printf "%s,%s,%.3f,%.2f\n", pre, f, n[f] / c, i[f] / c
					printf "%s,(all),%.3f,%.2f\n", pre, allb / c, alli / c
				}' "$out/$name.blocks" >>"$tcsv" || die "$name: no close() in the trace"
			note "$side boot $b: $(awk '$1 == "__x64_sys_close" { print $4 }' "$out/$name.blocks") closes traced"
		fi
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
[ -n "$trace" ] || exit 0
echo
echo "Where the instructions of a $calls + close go, by function: translated"
echo "blocks run per call, and their instructions estimated from the"
echo "disassembly ((all): every function; $(awk -F, 'NR > 1 && $4 == "(all)" { printf "%s%s %s", s, $1, $3; s = ", " }' "$tcsv") calls traced; median over $boots boots of each"
echo "side; functions whose medians differ by 0.5 instructions or more):"
awk -F, "$AWK_MED"'
	NR > 1 { k = $1 SUBSEP $4; n[k]++; B[k, n[k]] = $5; I[k, n[k]] = $6; fn[$4] = 1; boot[$1, $2] = 1 }
	# A function that a boot did not run counts 0 there.
	function m(side, f, A,   i, k, a, nb, bb) {
		k = side SUBSEP f
		for (bb in boot) if (index(bb, side SUBSEP) == 1) nb++
		for (i = 1; i <= nb; i++) a[i] = i <= n[k] ? A[k, i] : 0
		return nb ? med(a, nb) : 0
	}
	END {
		for (f in fn) {
			bi = m("base", f, I); ui = m("users", f, I)
			if (ui - bi >= 0.5 || bi - ui >= 0.5 || f == "(all)")
				printf "%-36s %8.2f %8.2f %9.1f %9.1f %+8.1f\n", f, m("base", f, B), m("users", f, B), bi, ui, ui - bi
		}
	}' "$tcsv" | sort -k6,6gr |
	{ printf "%-36s %8s %8s %9s %9s %8s\n" function "blocks" "" "insns" "" ""; printf "%-36s %8s %8s %9s %9s %8s\n" "" base users base users added; cat; }
echo "(csv: ${tcsv#"$TOP"/})"
