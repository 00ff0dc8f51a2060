#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel with the initramfs under QEMU, with a hard timeout, logging
# the serial console to a file under $RESULTS.
#
#   boot.sh [-k KERNEL] [-n NAME] [-t TIMEOUT] [-s SMP] [-m MEM] [-l LOG]
#           [--] [KERNEL-CMDLINE-PARAMS...]
#
#   -k KERNEL   kernel name (configs/kernels/) or path to an image
#               (default: $KERNEL, else preempt)
#   -n NAME     test name, used for the log name (default: boot)
#   -t TIMEOUT  seconds before QEMU is killed (default: $TIMEOUT, else 300)
#   -s SMP      guest CPUs (default: $SMP, else 2)
#   -m MEM      guest memory (default: $MEM, else 1G)
#   -l LOG      log file (default: $RESULTS/NAME.log)
# The guest's architecture is the kernel's ("# arch:" in configs/kernels/;
# ARCH for an image path, default x86_64), and with it the QEMU settings
# (scripts/qemu/ARCH.conf) and the initramfs (initramfs.sh ARCH).
# ACCEL overrides the accelerator (default from scripts/qemu/ARCH.conf: tcg).
# QEMU_ARGS adds arguments to QEMU's command line (e.g. '-icount shift=0').
# Prints the log path on stdout. Exits non-zero if QEMU cannot start, exits
# with an error, or is still running at the timeout (then the last 40 lines
# of the log are shown).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

kernel=${KERNEL:-preempt} name=boot timeout=${TIMEOUT:-300} smp=${SMP:-2} mem=${MEM:-1G} log=
while [ $# -gt 0 ]; do
	case $1 in
	-k) kernel=${2:?-k needs a kernel}; shift ;;
	-n) name=${2:?-n needs a name}; shift ;;
	-t) timeout=${2:?-t needs seconds}; shift ;;
	-s) smp=${2:?-s needs a CPU count}; shift ;;
	-m) mem=${2:?-m needs a size}; shift ;;
	-l) log=${2:?-l needs a file}; shift ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (see the header of scripts/boot.sh)" ;;
	*) break ;;
	esac
	shift
done
is_uint "$timeout" TIMEOUT
is_uint "$smp" SMP
[[ $mem =~ ^[0-9]+[MG]?$ ]] || die "MEM must be a size like 1G or 512M, not '$mem'"

arch=${ARCH:-x86_64}
[ -f "$kernel" ] || { check_kernel "$kernel" && arch=$(kernel_arch "$kernel"); }
arch_conf "$arch"
accel=${ACCEL:-$QEMU_ACCEL}
need "$QEMU_BIN" "$QEMU_PACKAGE"
need timeout coreutils

kdir=
if [ -f "$kernel" ]; then
	image=$kernel kname=$(basename "$kernel")
else
	check_kernel "$kernel"
	kdir=$BUILD/$kernel
	image=$kdir/$QEMU_IMAGE kname=$kernel
	[ -f "$image" ] || die "kernel '$kernel' is not built: $image missing (run scripts/build.sh $kernel)"
fi
initramfs=$(arch_initramfs "$arch")
[ -f "$initramfs" ] || die "$initramfs missing (run scripts/initramfs.sh $arch)"

log=${log:-$RESULTS/$name.log}
mkdir -p "$(dirname "$log")"
# Modules built with the kernel (build.sh) go in a second archive.
initrd=$initramfs
if [ -n "$kdir" ] && [ -f "$kdir/modules.cpio.gz" ]; then
	initrd=$(mktemp "${TMPDIR:-/tmp}/hazptr-initrd.XXXXXX")
	trap 'rm -f "$initrd"' EXIT
	cat "$initramfs" "$kdir/modules.cpio.gz" >"$initrd"
fi
# panic=-1: a panic reboots at once, and -no-reboot turns that into an exit.
append="console=$QEMU_CONSOLE panic=-1 ${QEMU_CMDLINE:+$QEMU_CMDLINE }$*"
cmd=("$QEMU_BIN" -accel "$accel" -machine "$QEMU_MACHINE" -cpu "$QEMU_CPU"
	-smp "$smp" -m "$mem" -nographic -no-reboot ${QEMU_EXTRA:-} ${QEMU_ARGS:-}
	-kernel "$image" -initrd "$initrd" -append "$append")
{
	echo "# boot.sh: test=$name kernel=$kname smp=$smp mem=$mem accel=$accel${QEMU_ARGS:+ $QEMU_ARGS} timeout=${timeout}s"
	echo "# boot.sh: cmdline: $append"
} >"$log"
note "booting $kname ($name, $smp CPUs, $accel, timeout ${timeout}s), log: $log"
start=$(date +%s)
rc=0
timeout -k 10 "$timeout" "${cmd[@]}" </dev/null >>"$log" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))
echo "# boot.sh: qemu exited rc=$rc after ${secs}s" >>"$log"

if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "$(basename "$0"): error: $name: QEMU timed out after ${timeout}s (log: $log)" >&2
	echo "---- last 40 lines of $log ----" >&2
	tail -40 "$log" >&2
	exit 1
fi
if [ $rc != 0 ]; then
	echo "---- last 40 lines of $log ----" >&2
	tail -40 "$log" >&2
	die "$name: QEMU failed with exit code $rc after ${secs}s (log: $log)"
fi
up=$(sed -n 's/^HAZPTR-INIT: userspace up at \([0-9.]*\)s.*/\1/p' "$log" | head -1)
note "$name: QEMU powered off after ${secs}s (guest userspace up at ${up:--}s of guest time)"
echo "$log"
