#!/bin/sh
# t_ui_time_origin -- one time origin for the whole trace: the earliest
# first TSC of its streams.  On the sample's perf.data (its CPUs start
# thousands of ticks apart) `:goto t X` on cpu1 with the time cpu0 shows
# at its middle lands at about cpu0's TSC there (counted from cpu1's own
# first TSC it landed that far off), and export's 't X' lands there too.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data

# run NAME "KEYS": the 120x40 screen after KEYS into $tmp/NAME.
run() {
	printf 'wait-index\n%s\n:save-screen %s\n' "$2" "$tmp/$1" >"$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$perf" \
		>/dev/null 2>"$tmp/err" || bad "$1: $(cat "$tmp/err")"
}
# The status line's TSC and time (the number and unit) of screen NAME.
tsc_of() { sed -n 's/^ 0x.*  tsc ~*\(0x[0-9a-f]*\) .*/\1/p' "$tmp/$1" | head -n 1; }
time_of() {
	sed -n 's/^ 0x.*  tsc ~*0x[0-9a-f]*  [~≈]*\([0-9.]* [mun]*s\)  .*/\1/p' "$tmp/$1" |
		head -n 1 | tr -d ' '
}

f0=$("$PTBROWSE" dump --stream cpu0 "$perf" 2>/dev/null | awk '$2 == "tsc" { print "0x" $3; exit }')
f1=$("$PTBROWSE" dump --stream cpu1 "$perf" 2>/dev/null | awk '$2 == "tsc" { print "0x" $3; exit }')
[ -n "$f0" ] && [ -n "$f1" ] && [ $((f1 > f0 ? f1 - f0 : f0 - f1)) -gt 1000 ] ||
	bad "the sample's CPUs start at about the same TSC ($f0, $f1): the test proves nothing"

run mid ":goto 50%"
a=$(tsc_of mid) t=$(time_of mid)
if [ -z "$a" ] || [ -z "$t" ]; then
	bad "no TSC or time at cpu0's middle: $(tail -n 2 "$tmp/mid" | head -n 1)"
else
	run other "J
wait-index
:goto t $t"
	b=$(tsc_of other)
	grep -q ' cpu1$' "$tmp/other" || bad "not on cpu1: $(tail -n 2 "$tmp/other" | head -n 1)"
	d=$((b - a))
	[ "${d#-}" -lt 2000 ] ||
		bad ":goto t $t on cpu1 landed at TSC $b, $d ticks from cpu0's $a there"
	# export's 't X' counts from the same origin: its TO is that row
	o=$(sed -n 's/^ \(0x[0-9a-f]*\)\/.*/\1/p' "$tmp/other" | head -n 1)
	"$PTBROWSE" export --stream cpu1 "$perf" 0 "t $t" -o "$tmp/x.pt" 2>"$tmp/err" ||
		bad "export: $(cat "$tmp/err")"
	grep -q "0x0-$o of" "$tmp/err" ||
		bad "export 0 't $t' on cpu1 is not 0x0-$o as :goto says: $(cat "$tmp/err")"
fi
echo "ok   one time origin: :goto t on cpu1 lands at cpu0's instant shown at that time"

# A damaged first TSC on another stream (0x1000, hours before) is not the
# origin: cpu0's times stay those of a file without it (they read
# 10858.792 s, as exact).
"$BUILD/tools/ptgen" --seed 3 --size 256KiB -o "$tmp/a.pt" >/dev/null &&
"$BUILD/tools/ptgen" --seed 4 --size 256KiB -o "$tmp/b.pt" >/dev/null || bad "ptgen"
cp "$tmp/b.pt" "$tmp/bd.pt"
printf '\000\020\000\000\000\000\000' |
	dd of="$tmp/bd.pt" bs=1 seek=$((0x22)) conv=notrunc 2>/dev/null
"$PTBROWSE" dump "$tmp/bd.pt" 2>/dev/null | grep -q ' tsc  *1000$' || bad "bd.pt: its first TSC is not 0x1000"
"$BUILD/tools/pt2perf" --cpu 0 "$tmp/a.pt" --cpu 1 "$tmp/bd.pt" -o "$tmp/d.data" &&
"$BUILD/tools/pt2perf" --cpu 0 "$tmp/a.pt" --cpu 1 "$tmp/b.pt" -o "$tmp/g.data" || bad "pt2perf"
for f in d g; do
	printf 'wait-index\n:goto 0x1033\n:save-screen %s\n' "$tmp/o.$f" >"$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$tmp/$f.data" \
		>/dev/null 2>"$tmp/err" || bad "$f.data: $(cat "$tmp/err")"
done
td=$(grep '^ 0x1033/' "$tmp/o.d") tg=$(grep '^ 0x1033/' "$tmp/o.g")
[ -n "$tg" ] && [ "$td" = "$tg" ] ||
	bad "a damaged first TSC on cpu1 moved cpu0's time at 0x1033: $td, not $tg"
echo "ok   a damaged first TSC on another stream is not the origin"

exit $fail
