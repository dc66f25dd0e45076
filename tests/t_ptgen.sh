#!/bin/sh
# ptgen: the same seed gives the same bytes, --size is exact, and what it
# writes decodes without a single error by libipt (tools/ptcheck) and by
# `ptbrowse dump`; --truncate and --corrupt-rate damage it as promised;
# -o FILE replaces FILE and FILE.options together, or neither.
set -u
BUILD=${BUILD:-build}
ptgen=$BUILD/tools/ptgen
ptcheck=$BUILD/tools/ptcheck
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

bad() {
	echo "FAIL $*"
	fail=1
}

for f in "$ptgen" "$ptcheck"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done

# -o FILE: FILE and FILE.options are replaced together, once the trace is
# whole: a run that fails half way (the file size limit) or is killed
# leaves both as they were and no temporary file; FILE.options is a name
# ptgen makes up, so a symbolic link there is refused, never followed.
mkdir "$tmp/o"
echo oldtrace >"$tmp/o/t.pt"
echo '--mtc-freq 9' >"$tmp/o/t.pt.options"
(trap '' XFSZ; ulimit -f 64; "$ptgen" --seed 3 --size 1MiB -o "$tmp/o/t.pt") 2>"$tmp/err" &&
	bad "ptgen past the file size limit: exit 0"
sh -c 'ulimit -f 64; "$0" --seed 3 --size 1MiB -o "$1"' "$ptgen" "$tmp/o/t.pt" 2>/dev/null &&
	bad "ptgen killed by SIGXFSZ: exit 0"
[ "$(cat "$tmp/o/t.pt")" = oldtrace ] || bad "a failed ptgen replaced the trace"
[ "$(cat "$tmp/o/t.pt.options")" = '--mtc-freq 9' ] ||
	bad "a failed ptgen replaced t.pt.options: $(cat "$tmp/o/t.pt.options")"
ls "$tmp/o" | grep -q '\.tmp\.' && bad "a failed ptgen left temporary files: $(ls "$tmp/o")"
echo precious >"$tmp/o/victim"
ln -s victim "$tmp/o/l.pt.options"
"$ptgen" --seed 3 --size 64KiB -o "$tmp/o/l.pt" 2>"$tmp/err" && bad "ptgen through a link at FILE.options: exit 0"
[ "$(cat "$tmp/o/victim")" = precious ] || bad "ptgen wrote through a link at FILE.options"
grep -q 'l.pt.options: is a symbolic link' "$tmp/err" || bad "ptgen link: $(cat "$tmp/err")"
[ -e "$tmp/o/l.pt" ] && bad "ptgen refused FILE.options but wrote FILE"
"$ptgen" --seed 3 --size 64KiB -o "$tmp/o/t.pt" 2>"$tmp/err" || bad "ptgen -o: $(cat "$tmp/err")"
[ "$(wc -c <"$tmp/o/t.pt")" = 65536 ] && [ "$(cat "$tmp/o/t.pt.options")" = "$("$ptgen" --seed 3 --print-config)" ] &&
	echo "ok   ptgen -o replaces FILE and FILE.options together, never through a link" ||
	bad "ptgen -o over the old pair: $(ls -l "$tmp/o")"
# FILE.options is a name ptgen makes up: one that holds something else
# than options (the user's notes) is not replaced, and nothing is
# written (it was wiped); an empty one is.
echo "user notes" >"$tmp/o/notes.options"
echo data >"$tmp/o/notes"
out=$("$ptgen" --size 64KiB -o "$tmp/o/notes" 2>&1)
rc=$?
[ $rc = 1 ] && [ "$out" = "ptgen: $tmp/o/notes.options: not an options file: not replaced (move it away to write $tmp/o/notes)" ] &&
   [ "$(cat "$tmp/o/notes.options")" = "user notes" ] && [ "$(cat "$tmp/o/notes")" = data ] ||
	bad "ptgen -o notes over notes.options: exit $rc, '$out', $(cat "$tmp/o/notes.options")"
: >"$tmp/o/e.options"
"$ptgen" --seed 3 --size 64KiB -o "$tmp/o/e" && [ "$(cat "$tmp/o/e.options")" = "$("$ptgen" --seed 3 --print-config)" ] ||
	bad "ptgen -o over an empty e.options: $(cat "$tmp/o/e.options")"
[ $fail = 0 ] && echo "ok   FILE.options that is not an options file is left alone (only an empty or options file replaced)"

# Determinism: hash a few MiB twice; another seed differs.
"$ptgen" --seed 7 --size 4MiB -o "$tmp/a" || bad "ptgen exited non-zero"
"$ptgen" --seed 7 --size 4MiB -o - > "$tmp/b" || bad "ptgen to stdout exited non-zero"
"$ptgen" --seed 8 --size 4MiB -o "$tmp/c" || bad "ptgen exited non-zero"
ha=$(cksum < "$tmp/a") hb=$(cksum < "$tmp/b") hc=$(cksum < "$tmp/c")
if [ "$ha" = "$hb" ]; then
	echo "ok   same seed, same bytes ($ha)"
else
	bad "seed 7 twice gave different bytes: $ha / $hb"
fi
if [ "$ha" != "$hc" ]; then
	echo "ok   another seed, other bytes"
else
	bad "seeds 7 and 8 gave the same bytes"
fi
# A prefix does not depend on the size asked for (streaming, no look-ahead
# beyond the last event).
"$ptgen" --seed 7 --size 1MiB -o "$tmp/p"
if cmp -s -n 1000000 "$tmp/p" "$tmp/a"; then
	echo "ok   a smaller size is a prefix, up to its tail"
else
	bad "--size 1MiB is not a prefix of --size 4MiB"
fi

# --size is exact, in every unit, down to tiny sizes.
for spec in 0:0 1:1 15:15 100:100 4095:4095 4096:4096 3kB:3000 \
	    2KiB:2048 1MB:1000000 1MiB:1048576 5K:5120; do
	arg=${spec%%:*} want=${spec#*:}
	got=$("$ptgen" --seed 3 --size "$arg" 2>/dev/null | wc -c)
	[ "$got" -eq "$want" ] || bad "--size $arg wrote $got bytes, not $want"
	"$ptgen" --seed 3 --truncate --size "$arg" -o "$tmp/s" 2>/dev/null
	got=$(wc -c < "$tmp/s")
	[ "$got" -eq "$want" ] || bad "--truncate --size $arg wrote $got bytes, not $want"
done
[ $fail -eq 0 ] && echo "ok   --size exact from 0 bytes to 1 MiB, with and without --truncate"
# Under the first PSB+ the file holds only PADs, no trace: said (it was
# written with exit status 0 and no word)
out=$("$ptgen" --seed 1 --size 64 -o "$tmp/s" 2>&1)
rc=$?
[ $rc = 0 ] && [ "$(wc -c <"$tmp/s")" = 64 ] &&
   [ "$out" = "ptgen: --size 64: smaller than the first PSB+ (80 bytes with these options): only PADs, no trace" ] ||
	bad "--size 64: exit $rc, '$out'"
out=$("$ptgen" --seed 1 --size 80 -o "$tmp/s" 2>&1)
[ -z "$out" ] || bad "--size 80 (the first PSB+): '$out'"
[ $fail -eq 0 ] && echo "ok   --size under the first PSB+: said"

# Bad arguments are refused with a message and exit status 2.
for args in "--size 10XB" "--size -1" "--seed x --size 1" "--ovf-rate 2 --size 1" \
	    "--mtc-freq 16 --size 1" "" "--size 1 extra" "--sleep-at 100 --size 1" \
	    "--sleep-at 100:0 --size 1" "--sleep-at 100:99999999 --size 1"; do
	# shellcheck disable=SC2086
	"$ptgen" $args > /dev/null 2> "$tmp/err"
	rc=$?
	if [ $rc -ne 2 ] || [ ! -s "$tmp/err" ]; then
		bad "ptgen $args: exit $rc, message '$(cat "$tmp/err")'"
	fi
done
"$ptgen" --help | grep -q -- --psb-period || bad "--help does not list the options"
cfg=$("$ptgen" --print-config)
if [ "$cfg" = "--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100" ]; then
	echo "ok   --print-config: $cfg"
else
	bad "--print-config printed '$cfg'"
fi

# Zero decode errors by libipt, across the knobs.
i=0
for args in "" "--no-cyc" "--mtc-freq 0" "--mtc-freq 9 --nom-freq 30" \
	    "--psb-period 64KiB" "--ovf-rate 0.01" "--cpuid-0x15.eax 3 --cpuid-0x15.ebx 250"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$ptgen" --seed $i --size 3MiB $args -o "$tmp/g$i" || bad "ptgen $args failed"
	out=$("$ptcheck" "$tmp/g$i") || bad "libipt finds errors with ptgen $args: $out"
	case $out in
	*" 0 errors, 0 bytes skipped") ;;
	*) bad "ptcheck on ptgen $args: $out" ;;
	esac
done
echo "ok   libipt decodes $i generated traces without an error"
# Every packet type ptgen promises turns up in a big enough trace.
"$ptcheck" -v "$tmp/g1" > "$tmp/types"
for t in psb psbend pad tnt.8 tnt.64 tip tip.pge tip.pgd fup mode pip cbr tsc \
	 tma mtc cyc exstop mwait pwre pwrx ptw; do
	grep -q "^  $t " "$tmp/types" || bad "no $t packet in 3 MiB of ptgen output"
done
"$ptcheck" -v "$tmp/g6" | grep -q "^  ovf " || bad "--ovf-rate 0.01 wrote no ovf"
# --no-sleep: no sleep packets; --sleep-at: the planted sleeps (80000
# ticks each at most: 13 of them for 1M), decoded by libipt, and the bytes
# before the first planted place as without it.
"$ptgen" --seed 1 --size 3MiB --no-sleep -o "$tmp/ns"
"$ptcheck" -v "$tmp/ns" | grep -Eq "^  (pwre|pwrx|mwait) " && bad "--no-sleep wrote sleeps"
"$ptgen" --seed 1 --size 3MiB --sleep-at 1MiB:1000000 -o "$tmp/sa"
out=$("$ptcheck" "$tmp/sa") || bad "libipt finds errors with --sleep-at: $out"
case $out in *" 0 errors, 0 bytes skipped") ;; *) bad "ptcheck on --sleep-at: $out" ;; esac
cmp -s -n 1000000 "$tmp/sa" "$tmp/g1" || bad "--sleep-at 1MiB changed the bytes before it"
# the first MiB's sleeps, then the first MiB and 16 KiB's with the plant
head -c 1048576 "$tmp/g1" > "$tmp/g1m"
"$ptgen" --seed 1 --size 1064960 --sleep-at 1MiB:1000000 -o "$tmp/sam"
n0=$("$ptcheck" -v "$tmp/g1m" | awk '$1 == "pwrx" { print $2 }')
n1=$("$ptcheck" -v "$tmp/sam" | awk '$1 == "pwrx" { print $2 }')
[ "${n1:-0}" -ge $((${n0:-0} + 13)) ] || bad "--sleep-at 1MiB:1000000: $n1 pwrx, $n0 before"
echo "ok   --no-sleep writes no sleeps, --sleep-at plants them ($n0 -> $n1 pwrx)"

# Our decoder: `ptbrowse dump --quiet` prints errors only.
if [ -x "${PTBROWSE:-}" ] && "$PTBROWSE" dump --help > /dev/null 2>&1; then
	j=1
	while [ $j -le $i ]; do
		"$PTBROWSE" dump --quiet "$tmp/g$j" > "$tmp/dump" 2>&1 ||
			bad "ptbrowse dump exited non-zero on g$j"
		[ -s "$tmp/dump" ] && bad "ptbrowse dump reports on g$j: $(head -n 3 "$tmp/dump")"
		j=$((j + 1))
	done
	# --truncate: the last packet is cut in half, and we say so where it starts.
	"$ptgen" --seed 5 --size 1MiB --truncate -o "$tmp/t"
	"$PTBROWSE" dump --quiet "$tmp/t" > "$tmp/dump" 2>&1
	grep -q "^\[ffffc: .*truncated" "$tmp/dump" ||
		bad "no truncated packet reported at 0xffffc: $(cat "$tmp/dump")"
	# --corrupt-rate: damage is reported, never a crash.
	"$ptgen" --seed 5 --size 1MiB --corrupt-rate 0.001 -o "$tmp/x"
	cmp -s "$tmp/x" "$tmp/t" && bad "--corrupt-rate changed nothing"
	"$PTBROWSE" dump "$tmp/x" > "$tmp/dump" 2>&1
	rc=$?
	[ $rc -lt 128 ] || bad "ptbrowse dump died on a corrupted trace (exit $rc)"
	grep -q "^\[" "$tmp/dump" || bad "no error reported on a corrupted trace"
	echo "ok   ptbrowse dump decodes them without an error; damage is reported"
	# --mix: the TIP-heavy and TNT-heavy kinds b_kinds measures; the
	# default keeps its bytes (the same as without --mix)
	"$ptgen" --seed 8 --size 1MiB -o "$tmp/m0"
	"$ptgen" --seed 8 --size 1MiB --mix default -o "$tmp/m1"
	cmp -s "$tmp/m0" "$tmp/m1" || bad "--mix default changed the bytes"
	for m in m0 tip tnt; do
		[ $m = m0 ] || "$ptgen" --seed 8 --size 1MiB --mix $m -o "$tmp/$m"
		"$PTBROWSE" dump --quiet "$tmp/$m" >"$tmp/dump" 2>&1
		[ -s "$tmp/dump" ] && bad "ptbrowse dump reports on --mix $m: $(head -n 2 "$tmp/dump")"
		"$PTBROWSE" dump "$tmp/$m" | awk '$2 == "tip" { p++ } $2 ~ /^tnt/ { n++ } END { print p + 0, n + 0 }' >"$tmp/$m.n"
	done
	read -r p0 n0 <"$tmp/m0.n"; read -r p1 n1 <"$tmp/tip.n"; read -r p2 n2 <"$tmp/tnt.n"
	[ "$p1" -gt $((3 * p0)) ] && [ "$n2" -gt "$n0" ] && [ "$p2" -lt "$p0" ] ||
		bad "--mix: tips/tnts default $p0/$n0, tip $p1/$n1, tnt $p2/$n2"
	"$ptgen" --mix foo --size 1 -o "$tmp/bad" 2>"$tmp/err" && bad "--mix foo accepted"
	grep -q "for --mix" "$tmp/err" || bad "--mix foo: $(cat "$tmp/err")"
	echo "ok   --mix tip/tnt: tips $p1 vs $p0, tnts $n2 vs $n0; --mix default is the default"
else
	echo "skip ptbrowse dump is not there yet: only libipt checked the output"
fi
exit $fail
