#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions executed per fd-installing call, base against the series:
# what the fs patch adds to every open, pipe, socket and dup of a threaded
# program, counted, where TCG's timing cannot price it.
#
#   bench-icount.sh      BOOTS=2 FDINSTALL=1,3 CALLS= TRACE= SIDES="base users"
#                        KERNEL=bench
#
# Builds the 'bench' kernel as bench-users.sh does ('base': the series
# without patches/users/, 'users': the whole series; 'control' in SIDES:
# the whole series + configs/ab/fs-control.patch, whose installs never take
# the shared-table path, so that what it adds to the base is not the fs
# patch's; 'control-pad': the control + configs/ab/fs-control-pad.patch,
# as many instructions per install as the series; KERNEL=bench-slub: the same with SLUB in place of SLUB_TINY),
# then boots each BOOTS times, interleaved, on one vCPU with QEMU's '-icount shift=0': the guest's
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
# functions of one name told apart by their order in it: name#2 is the
# second by address), and its instructions are
# estimated from the disassembly (see blocks()), per call: per entry of
# __x64_sys_close, two per pipe2.  The window is a few ms of guest time
# (some hundred calls): work done in the call is counted exactly, work
# deferred from it (RCU callbacks, the slab and page allocators) only as
# far as the window samples it.
#
# Writes results/bench/icount.csv (icount-slub.csv with KERNEL=bench-slub;
# kernel,boot,call,instructions) and prints
# per call the median of each side, its difference from the base and the
# ratio; with
# TRACE, also results/bench/tbtrace.csv
# (kernel,boot,calls,function,blocks_per_call,insns_per_call,entries:
# the blocks run at the function's address in the window, its calls
# unless it loops to its start) and the
# functions whose median instructions per call differ between the sides.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

boots=${BOOTS:-2} fdinstall=${FDINSTALL:-1,3} calls=${CALLS:-} trace=${TRACE:-}
sides=${SIDES:-base users} kernel=${KERNEL:-bench}
check_kernel "$kernel"
is_uint "$boots" BOOTS
check_sides "$sides" base users control control-pad
for f in fs-control fs-control-pad; do
	[ -f "$CONFIGS/ab/$f.patch" ] || die "missing configs/ab/$f.patch"
done
[[ $fdinstall =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "FDINSTALL must be SECONDS,RUNS, not '$fdinstall'"
[[ $calls =~ ^([a-z0-9]+(,[a-z0-9]+)*)?$ ]] || die "CALLS must be a comma-separated list of calls, not '$calls'"
if [ -n "$trace" ]; then
	is_uint "$trace" TRACE
	[[ $calls =~ ^[a-z0-9]+$ ]] || die "TRACE needs one call in CALLS, not '$calls'"
	(( ${fdinstall%,*} * ${fdinstall#*,} >= trace + 2 )) ||
		die "TRACE=$trace needs FDINSTALL to run the call for $((trace + 2)) s or more, not '$fdinstall'"
fi
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE (run 'make prepare')"
ab_base_rev >/dev/null # dies now if $TREE lacks the series

out=$RESULTS/bench
mkdir -p "$out"
for side in $sides; do
	args=$(side_args "$side") || exit 1
	mapfile -t args <<<"$args"
	ab_build "$kernel" "$side" "${args[@]}" >/dev/null
	# TRACE reads each side's vmlinux: keep it beside the image.
	[ -z "$trace" ] || cp "$WORK/ab/build/$kernel/vmlinux" "$WORK/ab/$kernel.$side.vmlinux"
done
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
# once gets '#' and its place among them by address, which two builds
# of the series share while their addresses differ; entries: blocks at the
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
		cat - <(awk 'NR == FNR { if ($2 ~ /^[tTwW]$/) n[$3]++; next }
			$2 ~ /^[tTwW]$/ { print $1, "S", (n[$3] > 1 ? $3 "#" ++k[$3] : $3) }' "$2" "$2") |
		LC_ALL=C sort -k1,1 -k2,2r | awk '
		$2 == "S" { f = $3; fa = $1; next }
		{ k = f == "" ? "(user)" : f; b[k] += $3; i[k] += $3 * $4; if ($1 == fa) e[k] += $3 }
		END { for (k in b) print k, b[k], i[k], e[k] + 0 }'
}

csv=$out/icount${kernel#bench}.csv tcsv=$out/tbtrace.csv
echo "kernel,boot,call,instructions" >"$csv"
[ -z "$trace" ] || echo "kernel,boot,calls,function,blocks_per_call,insns_per_call,entries" >"$tcsv"
closes=1
[ "$calls" != pipe2 ] || closes=2
for b in $(seq "$boots"); do
	for side in $sides; do
		name=icount-$side-$b img=$WORK/ab/$kernel.$side
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
					for (f in n) printf "%s,%s,%.3f,%.2f,%d\n", pre, f, n[f] / c, i[f] / c, e[f]
					printf "%s,(all),%.3f,%.2f,\n", pre, allb / c, alli / c
				}' "$out/$name.blocks" >>"$tcsv" || die "$name: no close() in the trace"
			note "$side boot $b: $(awk '$1 == "__x64_sys_close" { print $4 }' "$out/$name.blocks") closes traced"
		fi
	done
done

echo
echo "Instructions per call + close into a table shared with an idle thread"
echo "(QEMU -icount shift=0, 1 vCPU; median over $boots boots of each side):"
awk -F, -v sides="$sides" "$AWK_MED"'
	NR > 1 { n[$1, $3]++; v[$1, $3, n[$1, $3]] = $4; calls[$3] = 1 }
	function m(side, c,   i, a) {
		for (i = 1; i <= n[side, c]; i++) a[i] = v[side, c, i]
		return med(a, n[side, c])
	}
	END {
		ns = split(sides, side, " ")
		printf "%-8s %-8s %10s %10s %8s %8s\n", "call", "side", "base", "side", "added", "ratio"
		for (c in calls)
			for (s = 2; s <= ns; s++) {
				b = m("base", c); u = m(side[s], c)
				printf "%-8s %-8s %10.1f %10.1f %8.1f %7.4fx\n", c, side[s], b, u, u - b, u / b
			}
	}' "$csv" | { read -r h; echo "$h"; sort; }
echo "(csv and logs: ${out#"$TOP"/}/)"
[ -n "$trace" ] || exit 0
echo
echo "Where the instructions of a $calls + close go, by function: their"
echo "instructions per call estimated from the translated blocks run and the"
echo "disassembly ((all): every function; calls traced: $(awk -F, 'NR > 1 && $4 == "(all)" { printf "%s%s %s", s, $1, $3; s = ", " }' "$tcsv");"
echo "median over $boots boots of each side; functions whose medians differ"
echo "from the base's by 0.5 instructions or more on some side):"
awk -F, -v sides="$sides" "$AWK_MED"'
	NR > 1 { k = $1 SUBSEP $4; n[k]++; I[k, n[k]] = $6; fn[$4] = 1; nb[$1] += $4 == "(all)" }
	# A function that a boot did not run counts 0 there.
	function m(side, f,   i, k, a) {
		k = side SUBSEP f
		for (i = 1; i <= nb[side]; i++) a[i] = i <= n[k] ? I[k, i] : 0
		return nb[side] ? med(a, nb[side]) : 0
	}
	END {
		ns = split(sides, side, " ")
		printf "%-40s", "function"
		for (s = 1; s <= ns; s++) printf " %9s", side[s]
		for (s = 2; s <= ns; s++) printf " %9s", "+" side[s]
		printf "\n"
		for (f in fn) {
			show = f == "(all)"
			for (s = 1; s <= ns; s++) v[s] = m(side[s], f)
			for (s = 2; s <= ns; s++) if (v[s] - v[1] >= 0.5 || v[1] - v[s] >= 0.5) show = 1
			if (!show)
				continue
			printf "%-40s", f
			for (s = 1; s <= ns; s++) printf " %9.1f", v[s]
			for (s = 2; s <= ns; s++) printf " %+9.1f", v[s] - v[1]
			printf "\n"
		}
	}' "$tcsv" | { read -r h; echo "$h"; c=$(( $(wc -w <<<"$sides") + 2 )); sort -k"$c,$c"gr; }
echo "(csv: ${tcsv#"$TOP"/})"
