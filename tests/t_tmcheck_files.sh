#!/bin/sh
# tools/tmcheck checks every FILE it is given, with the same options, and
# exits with the worst status: it checked only the last one, so a bad
# first file passed unseen (exit 0).
set -u
BUILD=${BUILD:-build}
check=$BUILD/tools/tmcheck gen=$BUILD/tools/ptgen
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=1; }
for f in "$check" "$gen"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
cfg=$("$gen" --print-config)
"$gen" -s 1 -S 64K -o "$tmp/a.pt" && "$gen" -s 2 -S 64K -o "$tmp/b.pt" || bad "ptgen"
head -c 100 /dev/zero >"$tmp/zero.pt"

# shellcheck disable=SC2086
"$check" $cfg "$tmp/a.pt" "$tmp/b.pt" >"$tmp/out" 2>"$tmp/err" ||
	bad "two good files: exit $?, $(cat "$tmp/err")"
[ "$(grep -c ' packets, .* PSBs' "$tmp/out")" = 2 ] && grep -q '^/.*a.pt: ' "$tmp/out" ||
	bad "two files, not two reports: $(grep packets "$tmp/out")"
# options after a file apply to it too
# shellcheck disable=SC2086
"$check" "$tmp/a.pt" $cfg "$tmp/b.pt" >"$tmp/out2" 2>&1 && cmp -s "$tmp/out" "$tmp/out2" ||
	bad "options between the files: $(head -n 2 "$tmp/out2")"
# a bad file first, a good one last: the bad one is reported, exit 2
# shellcheck disable=SC2086
"$check" $cfg "$tmp/zero.pt" "$tmp/b.pt" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q 'zero.pt: no PSB' "$tmp/err" && grep -q 'b.pt: ' "$tmp/out" ||
	bad "a bad first file: exit $rc, '$(cat "$tmp/err")'"
# shellcheck disable=SC2086
"$check" $cfg "$tmp/nonesuch.pt" "$tmp/b.pt" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q 'nonesuch.pt: ' "$tmp/err" || bad "a missing first file: exit $rc"
[ $fail = 0 ] && echo "ok   tmcheck checks every FILE, exit status the worst"
exit $fail
