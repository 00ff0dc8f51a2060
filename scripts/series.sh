#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as it would be mailed: extract the tarball afresh (the base
# commit is the same on every machine, see extract_base in lib.sh), git am
# patches/*/ onto it (naming a patch that does not apply), and write with
# git format-patch --cover-letter --base --thread, into results/series/:
#
#   0000-cover-letter.patch ... 00NN-*.patch   the mbox parts, the cover
#                          letter rendered by scripts/cover-letter.sh
#   series.mbox            the patches without the cover letter, in order:
#                          what git am (or b4 am) applies
#   maintainers.txt        scripts/get_maintainer.pl per patch
#   checkpatch.txt         scripts/checkpatch.pl --strict per patch
#
# Fails if a patch does not apply or checkpatch reports an error; warnings
# are listed (each patch's commit message says why it keeps them).
#
#   series.sh              PREFIX="PATCH" (the subject prefix)
#                          SIGNOFF="Name <mail>" (default: git's user.name
#                          and user.email): the submitter, written into
#                          every patch's From: and Signed-off-by: and into
#                          the MAINTAINERS entry in place of the repository's
#                          placeholder; required
set -euo pipefail
. "$(dirname "$0")/lib.sh"

prefix=${PREFIX:-PATCH}
out=$RESULTS/series
placeholder='Hazptr Project <hazptr@hazptr.invalid>'

# The submitter: never the placeholder, which no mail may carry.
signoff=${SIGNOFF:-}
if [ -z "$signoff" ]; then
	name=$(git -C "$TOP" config user.name 2>/dev/null || true)
	mail=$(git -C "$TOP" config user.email 2>/dev/null || true)
	[ -n "$name" ] && [ -n "$mail" ] && signoff="$name <$mail>"
fi
[ -n "$signoff" ] && [ "$signoff" != "$placeholder" ] ||
	die "make series needs the submitter's identity: SIGNOFF='Name <mail>', or git's user.name and user.email (not the placeholder '$placeholder')"
echo "$signoff" | grep -qE '^[^<>]+ <[^<> ]+@[^<> ]+>$' ||
	die "SIGNOFF='$signoff' is not of the form 'Name <mail@host>'"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hazptr-series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mapfile -t patches < <(series_files $SERIES_DIRS)
[ ${#patches[@]} -gt 0 ] || die "no patch in patches/"

note "extracting $(basename "$TARBALL") afresh"
extract_base "$tmp/linux"
apply_series "$tmp/linux" "${patches[@]}"
note "git am: ${#patches[@]} patches apply on $(git -C "$tmp/linux" log -1 --format='%h %s' base)"

# The submitter's identity in place of the placeholder: authorship, the
# Signed-off-by lines and the MAINTAINERS entry of every patch.
sname=${signoff% <*}
smail=${signoff##*<}
smail=${smail%>}
SIGNOFF=$signoff PLACEHOLDER=$placeholder SNAME=$sname SMAIL=$smail \
FILTER_BRANCH_SQUELCH_WARNING=1 git -C "$tmp/linux" filter-branch -f \
	--env-filter 'export GIT_AUTHOR_NAME="$SNAME" GIT_AUTHOR_EMAIL="$SMAIL" GIT_COMMITTER_NAME="$SNAME" GIT_COMMITTER_EMAIL="$SMAIL"' \
	--msg-filter 'sed "s|^Signed-off-by: $PLACEHOLDER\$|Signed-off-by: $SIGNOFF|"' \
	--index-filter 'if git cat-file -e :MAINTAINERS 2>/dev/null; then
		blob=$(git cat-file blob :MAINTAINERS | sed "s|^M:\t$PLACEHOLDER\$|M:\t$SIGNOFF|" | git hash-object -w --stdin)
		git update-index --cacheinfo 100644,"$blob",MAINTAINERS
	fi' base..upstream >"$tmp/filter.log" 2>&1 ||
	die "could not write the submitter's identity into the series (log: $(tail -1 "$tmp/filter.log"))"
! git -C "$tmp/linux" log --format=%B base..upstream | grep -qF "$placeholder" ||
	die "the placeholder identity is still in a commit message"
note "submitter: $signoff"

"$TOP/scripts/cover-letter.sh" >"$tmp/cover.txt"
# format-patch takes the cover letter's subject and body from the branch
# description (--cover-from-description=subject: first paragraph).
git -C "$tmp/linux" config branch.upstream.description "$(cat "$tmp/cover.txt")"
rm -rf "$out"
mkdir -p "$out"
git -C "$tmp/linux" format-patch -q --cover-letter --cover-from-description=subject \
	--base=base --thread=shallow --zero-commit --subject-prefix="$prefix" \
	-o "$out" base..upstream
for f in "$out"/0*.patch; do
	[ "$(basename "$f")" = 0000-cover-letter.patch ] || cat "$f"
done >"$out/series.mbox"

errors=0
: >"$out/checkpatch.txt"
: >"$out/maintainers.txt"
for f in "$out"/0*.patch; do
	name=$(basename "$f")
	[ "$name" = 0000-cover-letter.patch ] && continue
	res=$("$tmp/linux/scripts/checkpatch.pl" --strict --quiet --no-summary "$f" 2>&1 || true)
	{
		echo "== $name"
		echo "${res:-clean}"
	} >>"$out/checkpatch.txt"
	if echo "$res" | grep -q '^ERROR:'; then
		errors=$((errors + 1))
		note "checkpatch errors in $name"
	fi
	{
		echo "== $name"
		(cd "$tmp/linux" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats "$f" 2>/dev/null) || echo "(get_maintainer.pl failed)"
	} >>"$out/maintainers.txt"
done

# git am of the mbox on another fresh base: what a maintainer (or b4) does.
git -C "$tmp/linux" checkout -q -B check base
if ! git -C "$tmp/linux" am -q "$out/series.mbox" >"$tmp/am.log" 2>&1; then
	git -C "$tmp/linux" am --abort >/dev/null 2>&1 || true
	die "series.mbox does not apply with git am on a fresh base: $(head -1 "$tmp/am.log")"
fi
[ "$(git -C "$tmp/linux" rev-parse 'check^{tree}')" = "$(git -C "$tmp/linux" rev-parse 'upstream^{tree}')" ] ||
	die "git am of the mbox gives another tree than the patches"

note "wrote ${out#"$TOP"/}/: $(ls "$out"/0*.patch | wc -l) mails (cover letter included), series.mbox"
note "base-commit: $(git -C "$tmp/linux" rev-parse base)"
echo "checkpatch: $(grep -c '^ERROR:' "$out/checkpatch.txt" || true) errors," \
	"$(grep -c '^WARNING:' "$out/checkpatch.txt" || true) warnings," \
	"$(grep -c '^CHECK:' "$out/checkpatch.txt" || true) checks (${out#"$TOP"/}/checkpatch.txt)"
echo "recipients per patch: ${out#"$TOP"/}/maintainers.txt"
[ "$errors" = 0 ] || die "$errors patches with checkpatch errors"
