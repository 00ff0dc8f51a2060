#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest's initramfs ($WORK/initramfs.cpio.gz): busybox-static with
# its applet links, stress-ng and iproute2's ip and tc (in place of
# busybox's) with every library ldd lists and the dynamic loader, the
# programs of guest/ (static), and scripts/guest-init as /init.
#
#   initramfs.sh [ARCH]
#
# For another ARCH than x86_64 ($WORK/initramfs-ARCH.cpio.gz): the
# busybox and compiler of scripts/qemu/ARCH.conf (arm64: Debian's arm64
# busybox-static of the host busybox's version, downloaded into
# work/arm64/ when missing, and aarch64-linux-gnu-gcc), without stress-ng
# and iproute2.  BUSYBOX (x86_64 only) overrides the host's busybox.
#
# /init reads its job from the kernel command line (see scripts/guest-init).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

[ $# -le 1 ] || die "usage: initramfs.sh [ARCH]"
arch=${1:-x86_64}
arch_conf "$arch"
out=$(arch_initramfs "$arch")
need cpio cpio
need gzip gzip
need ldd libc-bin
# The host's busybox-static gives the applet list, also for another
# architecture's busybox, which is fetched at the host's version below.
HOST_BUSYBOX=$(command -v busybox || true)
[ -n "$HOST_BUSYBOX" ] && [ -x "$HOST_BUSYBOX" ] ||
	die "'busybox' not found: install package 'busybox-static' (run 'make deps')"
if [ -z "$GUEST_BUSYBOX" ]; then
	BUSYBOX=${BUSYBOX:-$HOST_BUSYBOX}
	ldd "$BUSYBOX" >/dev/null 2>&1 &&
		die "$BUSYBOX is dynamically linked: install package 'busybox-static' (run 'make deps')"
else
	# Another architecture's busybox-static cannot be installed beside
	# the host's: fetch the package of the host's version (whose applet
	# list is used below) and unpack its binary.
	BUSYBOX=$GUEST_BUSYBOX
	need apt-get apt
	need dpkg-deb dpkg
	ver=$(dpkg-query -W -f '${Version}' busybox-static 2>/dev/null) ||
		die "no version of package 'busybox-static' (run 'make deps')"
	if [ ! -x "$BUSYBOX" ] || [ "$(cat "$BUSYBOX.version" 2>/dev/null)" != "$ver" ]; then
		note "downloading busybox-static:$DEB_ARCH=$ver into ${BUSYBOX#"$TOP"/}"
		dl=$(mktemp -d)
		# apt downloads as its _apt user where that user may write.
		chown _apt "$dl" 2>/dev/null || true
		(cd "$dl" && apt-get download -q "busybox-static:$DEB_ARCH=$ver" >/dev/null 2>&1) || {
			rm -rf "$dl"
			die "cannot download busybox-static:$DEB_ARCH=$ver (run 'make deps': it adds Debian's $DEB_ARCH package lists)"
		}
		dpkg-deb -x "$dl"/busybox-static_*_"$DEB_ARCH".deb "$dl/x" &&
			install -D -m 755 "$dl/x/bin/busybox" "$BUSYBOX" || {
			rm -rf "$dl"
			die "cannot unpack busybox-static:$DEB_ARCH into ${BUSYBOX#"$TOP"/}"
		}
		rm -rf "$dl"
		echo "$ver" >"$BUSYBOX.version"
	fi
fi
if [ -n "$GUEST_FULL" ]; then
	STRESS_NG=${STRESS_NG:-$(command -v stress-ng || true)}
	[ -n "$STRESS_NG" ] && [ -x "$STRESS_NG" ] ||
		die "'stress-ng' not found: install package 'stress-ng' (run 'make deps')"
	IP=${IP:-$(PATH=$PATH:/usr/sbin:/sbin command -v ip || true)}
	TC=${TC:-$(PATH=$PATH:/usr/sbin:/sbin command -v tc || true)}
	for prog in "$IP" "$TC"; do
		[ -n "$prog" ] && [ -x "$prog" ] && ! "$prog" -V 2>&1 | grep -qi busybox ||
			die "iproute2's 'ip' or 'tc' not found: install package 'iproute2' (run 'make deps')"
	done
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/hazptr-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,etc,root}
chmod 1777 "$root/tmp"

# busybox and its applets (relative links, so the tree can be inspected).
cp "$BUSYBOX" "$root/bin/busybox"
for applet in $("$HOST_BUSYBOX" --list-full); do
	case $applet in linuxrc|init|sbin/init) continue ;; esac
	[ -e "$root/$applet" ] && continue
	mkdir -p "$root/$(dirname "$applet")"
	rel=$(realpath -m --relative-to="$root/$(dirname "$applet")" "$root/bin/busybox")
	ln -s "$rel" "$root/$applet"
done

# install_dynamic PROGRAM DEST: PROGRAM as DEST in the guest (replacing a
# busybox applet of that name anywhere on the guest's PATH), with what it
# loads.
install_dynamic() {
	local prog=$1 dest=$2 lib libs d
	for d in bin sbin usr/bin usr/sbin; do
		rm -f "$root/$d/$(basename "$dest")"
	done
	cp "$prog" "$root/$dest"
	libs=$(ldd "$prog" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
	[ -n "$libs" ] || die "ldd lists no library for $prog"
	for lib in $libs; do
		[ -e "$root/$lib" ] && continue
		mkdir -p "$root/$(dirname "$lib")"
		cp -L "$lib" "$root/$lib" || die "cannot copy $lib"
	done
}

if [ -n "$GUEST_FULL" ]; then
	install_dynamic "$STRESS_NG" usr/bin/stress-ng
	install_dynamic "$IP" usr/sbin/ip
	install_dynamic "$TC" usr/sbin/tc
fi

# The guest's own benchmark programs (guest/*.c), linked statically.
need "$GUEST_CC" "$CROSS_PACKAGE"
for src in "$TOP"/guest/*.c; do
	[ -e "$src" ] || continue
	bin=$root/usr/bin/$(basename "$src" .c)
	"$GUEST_CC" -O2 -Wall -static -pthread -o "$bin" "$src" ||
		die "cannot build $(basename "$src") with $GUEST_CC (static glibc: package '$GUEST_LIBC_PACKAGE')"
done

# The kernel opens /dev/console before devtmpfs is mounted.
mknod -m 600 "$root/dev/console" c 5 1 || die "mknod /dev/console failed (run as root)"
mknod -m 666 "$root/dev/null" c 1 3 || die "mknod /dev/null failed (run as root)"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
install -m 755 "$TOP/scripts/guest-init" "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 | gzip -9n) >"$out.tmp" ||
	die "cpio failed"
mv "$out.tmp" "$out"
if [ -n "$GUEST_FULL" ]; then
	note "wrote $out ($(du -h "$out" | cut -f1), busybox + stress-ng $("$STRESS_NG" --version 2>/dev/null | awk '{print $3; exit}') + $("$IP" -V 2>/dev/null | grep -o 'iproute2-[0-9.]*' | head -1))"
else
	note "wrote $out ($(du -h "$out" | cut -f1), $arch: busybox and guest/ only)"
fi
