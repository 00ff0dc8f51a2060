#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A protocol of the core, model-checked with spin: models/NAME.pml, every
# interleaving of its processes.
#
#   model.sh run LOG -d SECONDS NAME [VARIANT]    one test of configs/tests.list
#                                                 whose KERNEL is 'model'
#   model.sh list NAME                            the variants the model defines
#
# VARIANT compiles the model with -DVARIANT: a MUTANT_* is a bug the model
# must catch, an ASSERT_* an assertion that must fail (a check that a state
# is reached).
# run exits 0 when the search covered every state and found no error (it
# prints PASS), 1 when it found one (FAIL, then the trail of the
# counterexample), 2 when it could not finish (depth, memory or SECONDS
# exhausted), 3 when the model does not build; its output goes to LOG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"

usage="usage: model.sh run LOG -d SECONDS NAME [VARIANT] | model.sh list NAME"

model_file() {
	[[ $1 =~ ^[a-z0-9-]+$ ]] || die "model name must be [a-z0-9-]+, not '$1'"
	local f=$TOP/models/$1.pml
	[ -f "$f" ] || die "no model ${f#"$TOP"/} (known: $(cd "$TOP/models" && ls ./*.pml | sed 's|./||; s|\.pml$||' | xargs))"
	echo "$f"
}

variants() {
	grep -E '^#if' "$1" | grep -oE '(MUTANT|ASSERT)_[A-Z_]+' | sort -u
}

case ${1:-} in
list)
	[ $# -eq 2 ] || die "$usage"
	variants "$(model_file "$2")"
	;;
run)
	[ $# -ge 5 ] && [ "$3" = -d ] || die "$usage"
	log=$2 secs=$4 name=$5 variant=${6:-}
	# Everything, errors included, goes to LOG (run-tests.sh shows its
	# last line).
	mkdir -p "$(dirname "$log")"
	exec >"$log" 2>&1
	is_uint "$secs" SECONDS
	[ "$secs" -gt 0 ] || die "SECONDS must be positive"
	f=$(model_file "$name")
	if [ -n "$variant" ]; then
		variants "$f" | grep -qx -- "$variant" ||
			die "${f#"$TOP"/} defines no variant $variant (it has: $(variants "$f" | xargs))"
	fi
	need spin spin
	need gcc build-essential
	dir=$WORK/model/$name${variant:+-$variant}
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$f" "$dir/"
	cd "$dir"
	echo "model ${f#"$TOP"/}${variant:+ with -D$variant}: spin $(spin -V | awk '{print $3}')"
	spin -a ${variant:+-D$variant} "$name.pml" && gcc -O2 -w -DSAFETY -DBFS -DCOLLAPSE -o pan pan.c || {
		echo "the model does not build"
		exit 3
	}
	rc=0
	# Breadth first: a counterexample is a shortest one.  -n: no list of
	# unreached states.
	timeout "$secs" ./pan -m1000000 -n >pan.out 2>&1 || rc=$?
	cat pan.out
	errors=$(sed -nE 's/.*errors: ([0-9]+).*/\1/p' pan.out)
	if [ "$rc" = 124 ]; then
		echo "NEITHER: the search did not end in ${secs}s"
		exit 2
	elif [ "${errors:-0}" -gt 0 ]; then
		echo "FAIL: $(grep -m1 -E 'assertion violated|invalid end state|pan:1:' pan.out)"
		echo "the counterexample, shortest (printf of each step):"
		spin -t ${variant:+-D$variant} "$name.pml" 2>&1 | sed -n "1,/^#processes/p"
		exit 1
	elif [ "$rc" != 0 ] || [ -z "$errors" ] || grep -qE 'max search depth too small|out of memory' pan.out; then
		echo "NEITHER: the search did not cover every state"
		exit 2
	fi
	echo "PASS: $(grep -m1 'states, stored' pan.out | xargs), no error"
	;;
*)
	die "$usage"
	;;
esac
