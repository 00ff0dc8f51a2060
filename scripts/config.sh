#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure kernel NAME in $BUILD/NAME: tinyconfig, then the fragments listed
# in configs/kernels/NAME merged in order, then olddefconfig.
#
#   config.sh NAME
#
# Every CONFIG_X=value line of the fragments must survive olddefconfig. A
# symbol that the tree's Kconfig does not define (e.g. CONFIG_HAZPTR before
# the hazptr series is applied) only gives a warning, unless STRICT=1; a
# symbol that exists but was dropped (missing dependency) is an error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

[ $# = 1 ] || die "usage: config.sh NAME (known: $(known_kernels))"
name=$1
check_kernel "$name"
need make build-essential
need flex flex
need bison bison
need bc bc
[ -f "$TREE/Makefile" ] || die "no kernel tree at $TREE (run 'make' or scripts/prepare-tree.sh)"

out=$BUILD/$name
mkdir -p "$out"
log=$out/config.log
frags=$(kernel_fragments "$name")
stamp=$(config_stamp "$name")
rm -f "$out/.hazptr-config-stamp"

arch=$(kernel_arch "$name")
arch_conf "$arch"
need "${CROSS_COMPILE}gcc" "$CROSS_PACKAGE"
K() { make -C "$TREE" O="$out" ARCH="$arch" CROSS_COMPILE="$CROSS_COMPILE" CC="$kcc" "$@" >>"$log" 2>&1; }
: >"$log"
K tinyconfig || { tail -20 "$log" >&2; die "make tinyconfig failed (log: $log)"; }
"$TREE/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags >>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; die "merge_config.sh failed (log: $log)"; }
K olddefconfig || { tail -20 "$log" >&2; die "make olddefconfig failed (log: $log)"; }

# Which requested values did not survive?  "# CONFIG_X is not set" asks for
# X off; a fragment's "# drops: CONFIG_Y ..." line names options that an
# earlier fragment asked for and that its own choices remove (dependents of
# an option it turns off).
drops=" $(sed -n 's/^# drops: *//p' $frags | tr '\n' ' ') "
missing=() unknown=()
while IFS= read -r line; do
	sym=${line%%=*}
	case $drops in *" $sym "*) continue ;; esac
	if [ "${line#*=}" = n ]; then
		grep -qE "^$sym=[ym]" "$out/.config" || continue
	fi
	grep -qxF -- "$line" "$out/.config" && continue
	if grep -rqE "^[[:space:]]*(menu)?config[[:space:]]+${sym#CONFIG_}[[:space:]]*$" \
		--include='Kconfig*' "$TREE"; then
		missing+=("$line")
	else
		unknown+=("$line")
	fi
done < <(grep -hE '^CONFIG_[A-Za-z0-9_]+=|^# CONFIG_[A-Za-z0-9_]+ is not set' $frags |
	sed -E 's/^# (CONFIG_[A-Za-z0-9_]+) is not set/\1=n/' |
	# A later fragment overrides an earlier one: check the last value only.
	awk -F= '{ v[$1] = $0; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
		END { for (i = 1; i <= n; i++) print v[order[i]] }')

if [ ${#unknown[@]} -gt 0 ]; then
	[ -n "${STRICT:-}" ] && die "$name: not in the tree's Kconfig: ${unknown[*]}"
	note "warning: $name: not in the tree's Kconfig, ignored: ${unknown[*]}"
fi
[ ${#missing[@]} -eq 0 ] ||
	die "$name: dropped by olddefconfig (unmet dependency?): ${missing[*]} (log: $log)"
echo "$stamp" >"$out/.hazptr-config-stamp"
note "configured $name in $out ($(echo $frags | xargs -n1 basename | tr '\n' ' '| sed 's/ $//'))"
