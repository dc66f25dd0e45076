#!/bin/sh
# ptrecord's numeric options are range-checked as the numbers given, not
# as cut to 32 bits: --cpus 4294967298 was 2 CPUs, --mtc-freq 4294967296
# was 0, --cbr 4294967320 was 24.  Each is a usage error (exit 2), one line
# naming the option and its range.
set -u
BUILD=${BUILD:-build}
rec=$BUILD/tools/ptrecord
prog=$BUILD/progs/p_loops
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=1; }
for f in "$rec" "$prog"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done

for opt in "--cpus 4294967298" "--cpus 18446744073709551615" \
	   "--mtc-freq 4294967296" "--mtc-freq 4294967299" "--cbr 4294967320" \
	   "--cbr 0x100000018"; do
	# shellcheck disable=SC2086
	out=$(timeout 60 "$rec" -q $opt -o "$tmp/u.pt" "$prog" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
	   printf '%s\n' "$out" | grep -q -- "${opt% *} is [0-9]*\.\.[0-9]*" ||
		bad "ptrecord $opt: exit $rc, '$out'"
	[ -e "$tmp/u.pt" ] && bad "ptrecord $opt: recorded"
	rm -rf "$tmp"/u.pt*
done
[ $fail = 0 ] && echo "ok   ptrecord --cpus, --mtc-freq, --cbr past 32 bits refused"
exit $fail
