#!/bin/sh
# `ptbrowse export`: a slice of a real trace starts at the PSB at or before
# FROM, ends on a packet boundary at or after TO, decodes with zero errors
# (our dump and, when built, libipt via tools/ptcheck), and its packets
# equal that range of the original's dump.  Names from the marks file and
# goto targets work; a region on a PSB starts the slice there; -o -; a
# trace that shrinks mid-copy is said to have shrunk; a perf.data's stream
# taken without --stream is named.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
say() { echo "$*"; }
bad() { echo "FAIL: $*"; fail=1; }

T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
P=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14
[ -f "$T" ] || { echo "missing $T"; exit 1; }

"$PTBROWSE" dump "$T" >"$tmp/full" || { echo "dump failed"; exit 1; }

# The packets of [A, B) of the full dump (offsets are 16 hex digits, so
# string order is numeric order), without the offset column.
range() {
	awk -v a="$1" -v b="$2" '($1 "") >= (a "") && ($1 "") < (b "")' "$tmp/full" |
		sed 's/^[0-9a-f]\{16\} //'
}
hex16() { printf '%016x' "$1"; }

# check NAME FROM TO [export args...]: export, then compare
check() {
	name=$1 from=$2 to=$3; shift 3
	out="$tmp/$name.pt"
	if ! "$PTBROWSE" export "$@" -o "$out" 2>"$tmp/err"; then
		bad "$name: export failed: $(cat "$tmp/err")"; return
	fi
	# "wrote FILE: 0xSTART-0xEND of ..."
	se=$(sed -n 's/.*wrote .*: \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\) of .*/\1 \2/p' "$tmp/err")
	start=${se% *} end=${se#* }
	[ -n "$se" ] || { bad "$name: no 'wrote' line: $(cat "$tmp/err")"; return; }
	grep -q "^$(hex16 "$start")  psb$" "$tmp/full" ||
		bad "$name: slice starts at $start, not on a PSB"
	[ $((start)) -le $((from)) ] || bad "$name: start $start after FROM $from"
	[ $((end)) -ge $((to)) ] || bad "$name: end $end before TO $to"
	[ "$(wc -c <"$out")" -eq $((end - start)) ] || bad "$name: size mismatch"
	"$PTBROWSE" dump "$out" >"$tmp/slice" 2>&1 || bad "$name: dump of slice failed"
	if grep -q '^\[' "$tmp/slice"; then
		bad "$name: decode errors in the slice:"; grep '^\[' "$tmp/slice" | head -5
	fi
	sed 's/^[0-9a-f]\{16\} //' "$tmp/slice" >"$tmp/slice.p"
	range "$(hex16 "$start")" "$(hex16 "$end")" >"$tmp/orig.p"
	if ! cmp -s "$tmp/slice.p" "$tmp/orig.p"; then
		bad "$name: packets differ from the original's range"
		diff "$tmp/orig.p" "$tmp/slice.p" | head -10
	else
		say "ok   $name: $start-$end, $(wc -l <"$tmp/slice.p") packets equal the original's"
	fi
	if [ -x "$BUILD/tools/ptcheck" ]; then
		"$BUILD/tools/ptcheck" "$out" >"$tmp/ptcheck" 2>&1 ||
			bad "$name: libipt finds errors: $(cat "$tmp/ptcheck")"
	fi
}

# from the middle of a segment to the middle of a later one
check mid 0x8100 0x10123 "$T" 0x8100 0x10123
# decimal offsets, FROM exactly on a PSB, TO at the end
size=$(wc -c <"$T")
check tail 49296 "$size" "$T" 49296 "$size"
# the same stream inside perf.data
check perf 0x8100 0x10123 --stream cpu3 "$P" 0x8100 0x10123

# names from the marks file: find it through `marks --json`
file=$("$PTBROWSE" marks --json "$T" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
[ -n "$file" ] || bad "marks --json names no file"
mkdir -p "$(dirname "$file")"
cat >"$file" <<MARKS
# ptbrowse marks v1
mark a 0x4300
region hot 0xc100 0x14000 "a \"hot\" loop"
MARKS
check region 0xc100 0x14000 "$T" hot
check names 0x4300 0x14000 "$T" a hot.end

# A region that starts on a PSB: the slice starts there (not at the PSB
# before), and libipt (ptcheck, ptdump's decoder) decodes it alone.
psb5=$(grep '  psb$' "$tmp/full" | sed -n 6p | cut -c1-16)
psb8=$(grep '  psb$' "$tmp/full" | sed -n 9p | cut -c1-16)
cat >>"$file" <<MARKS
region onpsb 0x$psb5 0x$psb8
MARKS
check onpsb "0x$psb5" "0x$psb8" "$T" onpsb
grep -q "wrote .*: 0x$(printf '%x' "0x$psb5")-" "$tmp/err" &&
	say "ok   a region on a PSB starts the slice there" ||
	bad "region on a PSB: $(cat "$tmp/err")"

# Goto targets, as :goto takes them: psb N, a relative TO from FROM,
# percentages, $; the same slice as the offsets they name.
check gotopsb "0x$psb5" "0x$psb8" "$T" 'psb 5' 'psb 8'
check gotorel "0x$psb5" "$(printf '0x%x' $((0x$psb5 + 0x1000)))" "$T" 'psb 5' +4KiB
check gotoend 0x8100 "$size" "$T" 0x8100 '$'
check gotomark 0x4300 "$(printf '0x%x' $((0x4300 + 0x800)))" "$T" "'a" +0x800
"$PTBROWSE" export "$T" 'psb 99999' '$' -o "$tmp/x.pt" 2>"$tmp/err" && bad "psb 99999 accepted"
grep -q "there is no psb 99999" "$tmp/err" && say "ok   psb 99999: $(cat "$tmp/err")" ||
	bad "psb 99999: $(cat "$tmp/err")"

# -o - writes the same bytes to standard output, and no options file.
"$PTBROWSE" export "$T" 'psb 5' 'psb 8' -o - >"$tmp/stdout.pt" 2>"$tmp/err" ||
	bad "-o -: $(cat "$tmp/err")"
cmp -s "$tmp/stdout.pt" "$tmp/gotopsb.pt" && say "ok   -o - writes the slice to standard output" ||
	bad "-o - differs from -o FILE"
[ -e "$tmp/gotopsb.pt.options" ] && say "ok   -o FILE writes FILE.options" ||
	bad "no gotopsb.pt.options"
ls -a . "$tmp" | grep -q '^-\.options$' && bad "-o - wrote -.options"

# The slice shows the same times as its source: FILE.options keeps
# --tsc-freq and --cpuid-0x15.ecx (given, they win over the CPUID ratio
# with the model's crystal), and info's timing line shows them.
"$BUILD/tools/ptgen" --seed 5 --size 256KiB -o "$tmp/tf.pt" >/dev/null || bad "ptgen"
base=$(cat "$tmp/tf.pt.options")
dur() { "$PTBROWSE" info "$1" | awk '$1 == "0" { print $NF }'; }
for extra in "--tsc-freq 2400000000" "--cpuid-0x15.ecx 38400000" \
	"--tsc-freq 3000000000 --cpuid-0x15.ecx 38400000"; do
	echo "$base $extra" >"$tmp/tf.pt.options"
	"$PTBROWSE" export "$tmp/tf.pt" 0 '$' -o "$tmp/tf2.pt" 2>"$tmp/err" ||
		bad "export with $extra: $(cat "$tmp/err")"
	a=$(dur "$tmp/tf.pt") b=$(dur "$tmp/tf2.pt")
	[ -n "$a" ] && [ "$a" = "$b" ] && say "ok   $extra: the slice lasts $b as its source" ||
		bad "$extra: the source lasts '$a', the slice '$b' ($(cat "$tmp/tf2.pt.options"))"
	grep -q -- "$extra\$" "$tmp/tf2.pt.options" ||
		bad "$extra: not in the slice's options: $(cat "$tmp/tf2.pt.options")"
done
# given on export's command line, it goes into FILE.options too
echo "$base" >"$tmp/tf.pt.options"
"$PTBROWSE" export --tsc-freq 2.5GHz "$tmp/tf.pt" 0 '$' -o "$tmp/tf2.pt" 2>"$tmp/err" ||
	bad "export --tsc-freq: $(cat "$tmp/err")"
grep -q -- "--tsc-freq 2500000000\$" "$tmp/tf2.pt.options" &&
	say "ok   export --tsc-freq goes into FILE.options" ||
	bad "export --tsc-freq: $(cat "$tmp/tf2.pt.options")"
# info's timing line: only --tsc-freq is not "(none recorded)"
echo "--tsc-freq 2.4GHz" >"$tmp/tf.pt.options"
"$PTBROWSE" info "$tmp/tf.pt" | grep -q '^timing  *--tsc-freq 2400000000$' &&
	say "ok   info's timing line shows --tsc-freq" ||
	bad "info's timing line: $("$PTBROWSE" info "$tmp/tf.pt" | grep timing)"

# errors: one clear line, no output file left, non-zero status
"$PTBROWSE" export "$T" nosuch 0x100 -o "$tmp/x.pt" 2>"$tmp/err" && bad "unknown name accepted"
grep -q "'nosuch' is neither an offset" "$tmp/err" || bad "unknown name: $(cat "$tmp/err")"
rm -f "$tmp/x.pt.options"
"$PTBROWSE" export "$T" 0x200 0x100 -o "$tmp/x.pt" 2>"$tmp/err" && bad "reversed range accepted"
"$PTBROWSE" export "$T" 0 0x100 -o "$T" 2>"$tmp/err" && bad "overwrote the trace"
"$PTBROWSE" export "$T" 0 0x100 2>/dev/null; [ $? -eq 2 ] || bad "no -o: not a usage error"
[ -e "$tmp/x.pt" ] && bad "a failed export left a file"

# A perf.data with more than one stream: without --stream, export says
# which one it takes, as dump, flow and calls do.
"$PTBROWSE" export "$P" 0 0x100 -o "$tmp/m.pt" 2>"$tmp/err" ||
	bad "export of a perf.data: $(cat "$tmp/err")"
grep -qx "ptbrowse export: $P has 2 streams; exporting 'cpu0' (choose with --stream)" \
	"$tmp/err" && say "ok   $(head -n 1 "$tmp/err")" ||
	bad "export of a perf.data without --stream: '$(cat "$tmp/err")'"
"$PTBROWSE" export --stream cpu3 "$P" 0 0x100 -o "$tmp/m.pt" 2>"$tmp/err" ||
	bad "export --stream cpu3: $(cat "$tmp/err")"
grep -q 'streams;' "$tmp/err" && bad "export --stream cpu3: '$(cat "$tmp/err")'"

# A trace that shrinks mid-copy is the trace's fault, not the output's:
# write() straight from the mapping failed with EFAULT ("-: Bad address").
# Deterministic: -o - into a FIFO nobody reads blocks export after its
# first bytes (a pipe holds 64KiB); the trace is cut far past them, then
# the FIFO is drained.
"$BUILD/tools/ptgen" --seed 7 --size 8MiB -o "$tmp/s.pt" >/dev/null || bad "ptgen 8MiB"
mkfifo "$tmp/fifo" || bad "mkfifo"
"$PTBROWSE" export "$tmp/s.pt" 0 '$' -o - >"$tmp/fifo" 2>"$tmp/err" &
pid=$!
exec 3<"$tmp/fifo"
dd bs=1 count=1 <&3 >/dev/null 2>&1
truncate -s 2MiB "$tmp/s.pt"
cat <&3 >/dev/null
exec 3<&-
wait $pid
st=$?
[ $st = 1 ] && [ "$(cat "$tmp/err")" = "ptbrowse export: $tmp/s.pt: the file shrank while being read" ] &&
	say "ok   a trace shrunk mid-copy: $(cat "$tmp/err")" ||
	bad "a trace shrunk mid-copy: exit $st, '$(cat "$tmp/err")'"
exit $fail
