#!/bin/sh
# t_numbers -- never a cut or rounded-away number on screen (issue 14, 4).
# Hand-built traces: a CYC of 14183744690 and a TSC 64880456425 ticks after
# the first (no timing options: time in ticks); TSCs 10 ns apart 27 s into
# a trace.  The browser's cycle pane widens its columns (or fills a cell
# with '#' when the pane has no room), never drops digits; times carry the
# digits their spacing on screen needs, in the pane, the status line and
# the timeline's axis labels (which stay distinct when zoomed in); `dump
# --cycles` prints every digit.  A last IP before the first PSB keeps its
# unknown upper bytes unknown.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# PSB, TSC 1000, PSBEND, CYC 14183744690, PAD, TSC 1000 + 64880456425, PAD,
# CYC 3, PAD; a 2-byte TIP before the PSB.
perl -e '
sub cyc { my $v = shift; my $f = (($v & 0x1f) << 3) | 3; $v >>= 5;
	$f |= 4 if $v; my @b = ($f);
	while ($v) { my $x = ($v & 0x7f) << 1; $v >>= 7; $x |= 1 if $v; push @b, $x }
	return pack("C*", @b) }
sub tsc { return "\x19" . substr(pack("Q<", shift), 0, 7) }
my $psb = "\x02\x82" x 8;
print "\x2d\x63\x1d", $psb, tsc(1000), "\x02\x23", cyc(14183744690), "\x00",
	tsc(1000 + 64880456425), "\x00", cyc(3), "\x00";
' >"$tmp/wide.pt"
# TSCs 10 ns apart (at --tsc-freq 1GHz) 27 s after the first.
perl -e '
sub tsc { return "\x19" . substr(pack("Q<", shift), 0, 7) }
print "\x02\x82" x 8, tsc(1000), "\x02\x23";
print tsc(1000 + 27000000000 + 10 * $_), "\x00" for 0 .. 11;
' >"$tmp/deep.pt"

# The digit runs of the cycle pane (right of its bar) in screen @1.
pane_numbers() {
	grep '[│|]' "$1" | sed 's/.*[│|]//' | tr -c '0-9\n' ' ' | tr ' ' '\n' | grep .
}

# --- wide numbers, every pane width ---------------------------------------
printf 'wait-index\n:save-screen %s/s.txt\nq\n' "$tmp" >"$tmp/keys"
for w in 80 90 96 100 110 120 140 160; do
	rm -f "$tmp/s.txt"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size ${w}x16 "$tmp/wide.pt" \
		>"$tmp/out" 2>&1 || fail "${w} columns: exit $? ($(cat "$tmp/out"))"
	[ -f "$tmp/s.txt" ] || { fail "${w} columns: no screen"; continue; }
	for n in $(pane_numbers "$tmp/s.txt"); do
		for full in 14183744690 14183744693 64880456425; do
			case $full in
			"$n") ;;
			"$n"*) [ ${#n} -ge 4 ] && fail "${w} columns: $n is $full cut" ;;
			esac
		done
	done
done
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x16 "$tmp/wide.pt" >/dev/null 2>&1
grep -q ' 14183744690 ' "$tmp/s.txt" || fail "the CYC's delta is not shown whole"
grep -q '+64880456425t' "$tmp/s.txt" || fail "the time in ticks is not shown whole"
grep -q '14183744690+3' "$tmp/s.txt" || fail "the bounded count is not lo+n"
# A pane too narrow for the widened column: '#', not digits.
"$PTBROWSE" --no-state --script "$tmp/keys" --size 80x16 "$tmp/wide.pt" >/dev/null 2>&1
pane_numbers "$tmp/s.txt" | grep -q '^14183744690$' ||
	grep -q '#####' "$tmp/s.txt" || fail "80 columns: neither the number nor an overflow mark"

# The 2-byte TIP before the first PSB: the upper bytes of its last IP are
# unknown (it showed 0000000000001d63).
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x16 "$tmp/wide.pt" >/dev/null 2>&1
sed -n 3p "$tmp/s.txt" | grep -q 'tip  *1: ????????????1d63  ????????????1d63' ||
	fail "last IP before the first PSB: $(sed -n 3p "$tmp/s.txt")"
# The status line's time without a TSC frequency is in ticks, not '?'.
printf 'wait-index\nG\n:save-screen %s/s.txt\nq\n' "$tmp" >"$tmp/keysG"
"$PTBROWSE" --no-state --script "$tmp/keysG" --size 120x16 "$tmp/wide.pt" >/dev/null 2>&1
# (the last row, a PAD, has its TSC's time: estimated, '~')
sed -n 15p "$tmp/s.txt" | grep -q 'tsc ~0xf1b2d36d1  ~+64880456425t' ||
	fail "status line in ticks: $(sed -n 15p "$tmp/s.txt")"

# dump --cycles prints every digit.
"$PTBROWSE" dump --cycles "$tmp/wide.pt" >"$tmp/dump" 2>&1 || fail "dump --cycles: exit $?"
grep -q '^ *14183744690= ' "$tmp/dump" || fail "dump --cycles: $(head -5 "$tmp/dump")"

# --- precision deep in a trace --------------------------------------------
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x22 --tsc-freq 1GHz "$tmp/deep.pt" \
	>"$tmp/out" 2>&1 || fail "deep: exit $?"
for t in 27.00000000 27.00000001 27.00000002 27.00000005; do
	grep -q " $t s" "$tmp/s.txt" || fail "deep: no time $t s: $(sed -n 2,12p "$tmp/s.txt")"
done
grep '│' "$tmp/s.txt" | grep -q '27\.000 s' && fail "deep: a time rounded to 27.000 s"
# The status line at the end, and the axis labels zoomed in, distinct.
printf 'wait-index\nG\n%s\n:save-screen %s/z.txt\nq\n' \
	"z z z z z z z z z z z z z z z z z z z z" "$tmp" >"$tmp/keys2"
"$PTBROWSE" --no-state --script "$tmp/keys2" --size 120x22 --tsc-freq 1GHz "$tmp/deep.pt" \
	>"$tmp/out" 2>&1 || fail "zoom: exit $?"
status_line=$(sed -n 21p "$tmp/z.txt")
case $status_line in
*27.000000*) ;;
*) fail "status line rounds the time: $status_line" ;;
esac
axis=$(sed -n 20p "$tmp/z.txt")
case $axis in 2[67].*" s "*"span "*" of 27.00 s"*) ;; *) fail "axis: $axis" ;; esac
ticks=$(echo "$axis" | tr -s ' ' '\n' | grep '^+')
[ "$(echo "$ticks" | wc -l)" -ge 3 ] || fail "axis: few ticks: $axis"
[ -z "$(echo "$ticks" | sort | uniq -d)" ] || fail "axis labels not distinct: $axis"

# The marks list: two marks 100 ns apart at 27 s keep every digit (a's, on
# the last row, a PAD, estimated: '~').
printf 'wait-index\nG\nm a\n:goto 0x23\nm b\n:marks\n:save-screen %s/m.txt\nq\nq\n' "$tmp" >"$tmp/keysM"
"$PTBROWSE" --no-state --script "$tmp/keysM" --size 120x22 --tsc-freq 1GHz "$tmp/deep.pt" \
	>"$tmp/out" 2>&1 || fail "marks list: exit $?"
grep -q '^ mark  *b  *0x00000023  *27\.000000010 s' "$tmp/m.txt" &&
	grep -q '^ mark  *a  *0x00000085  *~27\.000000110 s' "$tmp/m.txt" ||
	fail "marks list times: $(grep '^ mark' "$tmp/m.txt")"

# --- the TSC frequency: derived where possible, an estimate marked -------
# 3187200000 ticks: one second at the Alder Lake's 38.4 MHz * 166 / 2.
perl -e '
sub tsc { return "\x19" . substr(pack("Q<", shift), 0, 7) }
print "\x02\x82" x 8, tsc(1000), "\x02\x23", "\x00", tsc(1000 + 3187200000), "\x00";
' >"$tmp/adl.pt"
ADL="--cpu 6/154/3 --nom-freq 32 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 166"
"$PTBROWSE" --no-state --script "$tmp/keysG" --size 120x16 $ADL --cpuid-0x15.ecx 38400000 \
	"$tmp/adl.pt" >"$tmp/out" 2>&1 || fail "adl: exit $?"
grep -q ' 1\.000 s' "$tmp/s.txt" || fail "adl with ECX: not 1.000 s: $(grep tsc "$tmp/s.txt")"
grep -q '≈' "$tmp/s.txt" && fail "adl with ECX: marked as an estimate"
# Without the crystal: P1's 3.2 GHz, marked as an estimate in the heading,
# the status line and the timeline.
"$PTBROWSE" --no-state --script "$tmp/keysG" --size 120x16 $ADL "$tmp/adl.pt" \
	>"$tmp/out" 2>&1 || fail "adl P1: exit $?"
grep -q ' 996\.000 ms' "$tmp/s.txt" || fail "adl P1: not 996.000 ms: $(grep tsc "$tmp/s.txt")"
sed -n 2p "$tmp/s.txt" | grep -q 'time≈' || fail "adl P1: heading $(sed -n 2p "$tmp/s.txt")"
sed -n 15p "$tmp/s.txt" | grep -q '≈996\.000 ms' || fail "adl P1: status $(sed -n 15p "$tmp/s.txt")"
sed -n 14p "$tmp/s.txt" | grep -q 'span ≈' || fail "adl P1: axis $(sed -n 14p "$tmp/s.txt")"
# Skylake client (6/78, as the quipper traces): the model's 24 MHz crystal.
"$PTBROWSE" --no-state --script "$tmp/keysG" --size 120x16 --cpu 6/78/3 --nom-freq 12 \
	--cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 "$tmp/adl.pt" >"$tmp/out" 2>&1 || fail "skl: exit $?"
grep -q '≈' "$tmp/s.txt" && fail "skl: marked as an estimate: $(sed -n 2p "$tmp/s.txt")"
grep -q ' 2\.656 s' "$tmp/s.txt" || fail "skl: $(grep tsc "$tmp/s.txt")"
# dump --cycles: a frequency measured against the P1 estimate says so.
H=${SHARED:-../shared}/traces/dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin
"$PTBROWSE" dump --cycles --cpu 6/85/7 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 \
	--cpuid-0x15.ebx 308 "$H" >"$tmp/dump" 2>&1 || fail "dump hist: exit $?"
grep -q ' 1201\.2~ ' "$tmp/dump" || fail "dump: MHz from P1 not marked: $(sed -n 40p "$tmp/dump")"
"$PTBROWSE" dump --cycles --cpu 6/78/3 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 \
	--cpuid-0x15.ebx 308 "$H" >"$tmp/dump" 2>&1 || fail "dump hist 6/78: exit $?"
grep -q ' [0-9]*\.[0-9]~ ' "$tmp/dump" && fail "dump: MHz marked with a known crystal: $(sed -n 40p "$tmp/dump")"
# --- region summaries: the time model at the region's two edges -----------
# TSCs 1000, 2000, 3000; the region runs from the pad after the first to
# the third (exclusive): 2000 ticks, not the 0 between its TSC packets (nor
# the 1000 to its last packet).
perl -e '
sub tsc { return "\x19" . substr(pack("Q<", shift), 0, 7) }
print "\x02\x82" x 8, tsc(1000), "\x02\x23", "\x00", tsc(2000), "\x00", tsc(3000), "\x00";
' >"$tmp/r.pt"
printf '# ptbrowse marks v1\nregion reg 0x1a 0x24\n' >"$tmp/r.marks"
"$PTBROWSE" marks --import "$tmp/r.marks" "$tmp/r.pt" >"$tmp/out" 2>&1 || fail "import: $(cat "$tmp/out")"
"$PTBROWSE" marks --summary --tsc-freq 1GHz "$tmp/r.pt" >"$tmp/sum" 2>&1 || fail "summary: exit $?"
grep -q '^  time-ns 2000$' "$tmp/sum" || fail "region duration: $(grep time "$tmp/sum")"
"$PTBROWSE" marks --summary "$tmp/r.pt" >"$tmp/sum" 2>&1 || fail "summary: exit $?"
grep -q '^  time-ticks 2000$' "$tmp/sum" || fail "region ticks: $(grep time "$tmp/sum")"
# The average MHz says whether halted periods count: cycles over the
# wall-clock time include them, the mean of the measurements leaves out
# periods that held a sleep.
printf '# ptbrowse marks v1\nregion reg 0x40 0x2000\n' >"$tmp/h.marks"
cp "$H" "$tmp/h.pt"
"$PTBROWSE" marks --import "$tmp/h.marks" "$tmp/h.pt" >"$tmp/out" 2>&1 || fail "import: $(cat "$tmp/out")"
HOPT="--cpu 6/85/7 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"
"$PTBROWSE" marks --summary $HOPT --tsc-freq 3.7GHz "$tmp/h.pt" >"$tmp/sum" 2>&1
grep -q '^  freq-mhz .* halts included$' "$tmp/sum" || fail "MHz with time: $(grep freq "$tmp/sum")"
"$PTBROWSE" marks --summary $HOPT "$tmp/h.pt" >"$tmp/sum" 2>&1
grep -q '^  freq-mhz .* halts excluded$' "$tmp/sum" || fail "MHz without time: $(grep freq "$tmp/sum")"
# --- the notation is explained: F1 help and the man page --------------------
printf 'F1\nG\n:save-screen %s/h.txt\nq\nq\n' "$tmp" >"$tmp/keysH"
"$PTBROWSE" --no-state --script "$tmp/keysH" --size 100x100 "$tmp/wide.pt" >/dev/null 2>&1
for n in '  123 ' '  +123 ' '  lo-hi ' '  lo+n ' '  ≥N ' '  psb+N ' '  ~12.5 us ' \
	'  +123t ' '  time≈ MHz≈ ' '  #### ' '  ! ' '^ trace start' ', context switch' \
	'c exec' '! data lost'; do
	grep -qF -- "$n" "$tmp/h.txt" || fail "F1 help does not explain '$n'"
done
MAN=${MAN:-doc/ptbrowse.1}
if [ -f "$MAN" ] && command -v man >/dev/null 2>&1; then
	# Wide, and joined into one line: no phrase is split by wrapping.
	MANWIDTH=1000 man -l "$MAN" 2>/dev/null | tr -s ' \n' '  ' >"$tmp/man.txt"
	for n in 'lo-hi ' 'lo+n ' '≥N ' 'psb+N ' '~12.5 us' '+Nt ' 'time≈ MHz≈' '####' \
		't 5000cyc, t +1cyc' '^ tracing started' ', a context switch' 'c an exec' \
		'! data lost' 'P1 × 100 MHz' '--cpuid-0x15.ecx 38400000' 'halts included'; do
		grep -qF -- "$n" "$tmp/man.txt" || fail "the man page does not say '$n'"
	done
fi

[ $status = 0 ] && echo ok
exit $status
