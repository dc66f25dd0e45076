#!/bin/sh
# tools/pt2perf's command line (its output is checked by t_perfdata,
# t_perfcut and t_ptrecord): a value that is not a whole number in the
# option's range is refused in one line naming the option and the value,
# exit status 2, and no output is written; good values are taken.  An
# input that is not a regular file is refused without blocking.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
pt2perf=$BUILD/tools/pt2perf
ptgen=$BUILD/tools/ptgen
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=1; }

for f in "$pt2perf" "$ptgen" "$PTBROWSE"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
"$ptgen" --size 64K -o "$tmp/g.pt" > /dev/null 2>&1 || { echo "FAIL ptgen"; exit 1; }

# refused OPT VALUE: exit 2, one line with both, no output file.
refused() {
	out=$("$pt2perf" "$1" "$2" "$tmp/g.pt" -o "$tmp/r.perf" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
	   printf '%s\n' "$out" | grep -q -F -e "$1" && printf '%s\n' "$out" | grep -q -F -e "'$2'" &&
	   [ ! -e "$tmp/r.perf" ]; then
		n=$((n + 1))
	else
		bad "pt2perf $1 '$2': exit $rc, '$out'"
		rm -f "$tmp/r.perf"
	fi
}
n=0
for v in abc 1x '' ' 1' -1 4294967295 99999999999; do refused --cpu "$v"; done
for v in 1x 0 abc 0x '' -5 18446744073709551616; do refused --chunk "$v"; done
for v in 5:abc 5 :5 5: abc:5 '5:1x' 5:-1 -5:1 18446744073709551615:0 \
	 100:18446744073709551615; do refused --hole "$v"; done
for v in 2x abc -1; do refused --switches "$v"; done
for v in 2x 18446744073709551615; do refused --lost-at "$v"; done
for v in 0 4294967296 1.5; do refused --time-mult "$v"; done
for v in 16 3x; do refused --mtc-freq "$v"; done
echo "ok   $n bad values refused in one line naming the option and value, exit 2"

# Good values, decimal and hex, still work.
if "$pt2perf" --cpu 0x3 --chunk 0x1000 --hole 100:0x20 --switches 2 \
	--lost-at 30000 --time-mult 600 --mtc-freq 3 "$tmp/g.pt" -o "$tmp/ok.perf" &&
   "$PTBROWSE" info "$tmp/ok.perf" 2>&1 | grep -q '^0 *cpu3 '; then
	echo "ok   good values are taken (--cpu 0x3 is stream cpu3)"
else
	bad "good values: $("$PTBROWSE" info "$tmp/ok.perf" 2>&1 | tr '\n' ' ')"
fi

# Inputs must be regular files: a directory failed as "No such device"
# (mmap), a FIFO blocked forever (open), for a RAW and for --sideband.
mkdir "$tmp/d.pt"
mkfifo "$tmp/fifo"
for args in "$tmp/d.pt:Is a directory" "$tmp/fifo:not a regular file" \
	    "/dev/null:not a regular file" "--sideband $tmp/fifo $tmp/g.pt:not a regular file"; do
	in=${args%:*} why=${args##*:} file=${in% *}
	file=${file#--sideband }
	out=$(timeout 10 "$pt2perf" $in -o "$tmp/in.perf" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
	   printf '%s\n' "$out" | grep -q -F -e "$file: $why" && [ ! -e "$tmp/in.perf" ] ||
		bad "pt2perf $in: exit $rc, '$out'"
done
[ $fail = 0 ] && echo "ok   a directory, a FIFO or a device as an input: refused in one line"

[ $fail = 0 ] && echo "all pt2perf tests passed"
exit $fail
