#!/bin/sh
# perf.data end to end on the quipper files (file and pipe mode, CPUs 0
# and 3): `info` lists both streams with the sizes of the extracted .pt
# files there and the timing of SOURCE.txt; `extract` writes byte-identical
# streams and their ptdump options; `dump --stream cpuN` equals ptdump's
# output on the extracted stream, and `dump --time` without options equals
# ptdump --time given SOURCE.txt's timing options.  Also: a raw file is one stream "raw",
# and a file that is not perf.data or lacks Intel PT gets a clear error.
# And a generated trace wrapped by tools/pt2perf into AUXTRACE records of an
# odd size (every kind of packet cut by a record boundary) dumps as the raw
# file does given ptgen's timing options: plain, --time, and --cycles but
# for the ns column (perf.data's TIME_CONV gives wall-clock time).
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
q="$SHARED/traces/quipper-perf-intel-pt"
exp_dir="$SHARED/traces/expected"
opts="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=1; }

for f in perf.data.intel_pt-4.14 perf.data.piped.intel_pt-4.14; do
	"$PTBROWSE" info "$q/$f" >"$tmp/info" 2>"$tmp/err" ||
		{ bad "$f: info: $(cat "$tmp/err")"; continue; }
	"$PTBROWSE" info --json "$q/$f" >"$tmp/json" 2>"$tmp/err" ||
		bad "$f: info --json: $(cat "$tmp/err")"
	grep -q "^timing  *$opts\$" "$tmp/info" ||
		{ bad "$f: timing differs from SOURCE.txt"; cat "$tmp/info"; }
	case $f in
	*piped*) kind='perf.data (pipe mode)' ;;
	*) kind='perf.data,' ;;
	esac
	grep -q "^container  $kind" "$tmp/info" || bad "$f: container kind"
	[ "$(grep -c '^[0-9]' "$tmp/info")" = 2 ] || bad "$f: not 2 streams"
	mkdir "$tmp/x.$f"
	"$PTBROWSE" extract "$q/$f" -o "$tmp/x.$f" >/dev/null 2>"$tmp/err" ||
		bad "$f: extract: $(cat "$tmp/err")"
	for c in 0 3; do
		pt="$q/$f.idx$c.cpu$c.pt"
		size=$(wc -c <"$pt")
		# stream  name  cpu  tid  bytes ...
		awk -v c="cpu$c" -v s="$size" -v n="$c" \
		    '$2 == c && $3 == n && $5 == s { ok = 1 } END { exit !ok }' \
		    "$tmp/info" || bad "$f: info has no 'cpu$c' of $size bytes"
		grep -q "\"name\": \"cpu$c\", \"cpu\": $c, \"tid\": -1, \"bytes\": $size," \
		    "$tmp/json" || bad "$f: info --json lacks cpu$c"
		out="$tmp/x.$f/$f.cpu$c.pt"
		cmp -s "$out" "$pt" || bad "$f: extracted cpu$c differs from $pt"
		[ "$(cat "$out.options" 2>/dev/null)" = "$opts" ] ||
			bad "$f: $out.options: '$(cat "$out.options" 2>/dev/null)'"
		exp="$exp_dir/$f.idx$c.cpu$c.pt.lastip.ptdump.gz"
		"$PTBROWSE" dump --lastip --exec-mode --stream "cpu$c" "$q/$f" \
			>"$tmp/our" 2>"$tmp/err" ||
			{ bad "$f: dump --stream cpu$c: $(cat "$tmp/err")"; continue; }
		gzip -dc "$exp" | tr -s ' \t' ' ' >"$tmp/exp"
		tr -s ' \t' ' ' <"$tmp/our" >"$tmp/our2"
		if cmp -s "$tmp/our2" "$tmp/exp"; then
			echo "ok   $f cpu$c ($size bytes, $(wc -l <"$tmp/exp") lines)"
		else
			bad "$f: dump --stream cpu$c differs from ptdump"
			diff "$tmp/exp" "$tmp/our2" | head -10
		fi
		# --time with no timing options: the file's configuration
		# must do what ptdump needed $opts for
		exp="$exp_dir/$f.idx$c.cpu$c.pt.time.ptdump.gz"
		[ -f "$exp" ] || continue
		"$PTBROWSE" dump --lastip --exec-mode --time --stream "cpu$c" \
			"$q/$f" 2>"$tmp/err" | tr -s ' \t' ' ' >"$tmp/our2"
		gzip -dc "$exp" | tr -s ' \t' ' ' >"$tmp/exp"
		if cmp -s "$tmp/our2" "$tmp/exp"; then
			echo "ok   $f cpu$c --time, timing from the file"
		else
			bad "$f: dump --time --stream cpu$c differs from ptdump $opts"
			diff "$tmp/exp" "$tmp/our2" | head -10
		fi
	done
done

# A raw file: one stream "raw"; extract writes it back unchanged.
raw="$q/perf.data.intel_pt-4.14.idx0.cpu0.pt"
"$PTBROWSE" info "$raw" >"$tmp/info" 2>&1 || bad "raw: info: $(cat "$tmp/info")"
grep -q '^container  raw' "$tmp/info" || bad "raw: container"
awk '$2 == "raw" && $5 == 12240 { ok = 1 } END { exit !ok }' "$tmp/info" ||
	bad "raw: no stream 'raw' of 12240 bytes"
mkdir "$tmp/raw"
"$PTBROWSE" extract "$raw" -o "$tmp/raw" >/dev/null 2>"$tmp/err" ||
	bad "raw: extract: $(cat "$tmp/err")"
cmp -s "$tmp/raw/$(basename "$raw").raw.pt" "$raw" || bad "raw: extract differs"

# Clear errors, not crashes.
printf 'PERFILE2\020\0\0\0\0\0\0\0' >"$tmp/empty.data"
if "$PTBROWSE" info "$tmp/empty.data" >"$tmp/out" 2>&1; then
	bad "a perf.data without Intel PT was accepted"
else
	grep -q "empty.data: offset 0x10: no Intel PT" "$tmp/out" ||
		bad "no-PT message: $(cat "$tmp/out")"
fi
# A missing directory is made; one under a file is an error naming it.
"$PTBROWSE" extract "$q/perf.data.intel_pt-4.14" -o "$tmp/none" \
	>/dev/null 2>"$tmp/err" && [ -s "$tmp/none/perf.data.intel_pt-4.14.cpu3.pt" ] ||
	bad "extract into a missing directory: $(cat "$tmp/err")"
: >"$tmp/plain"
"$PTBROWSE" extract "$q/perf.data.intel_pt-4.14" -o "$tmp/plain/x" \
	>/dev/null 2>"$tmp/err" && bad "extract under a file"
grep -q "extract: $tmp/plain/x: Not a directory" "$tmp/err" ||
	bad "extract error: $(cat "$tmp/err")"

BUILD=${BUILD:-build}
"$BUILD/tools/ptgen" --seed 7 --size 512KiB --ovf-rate 0.001 -o "$tmp/g.pt" || bad "ptgen"
"$BUILD/tools/pt2perf" --chunk 4093 "$tmp/g.pt" -o "$tmp/g.perf" || bad "pt2perf"
# (the MHz of --cycles at the perf.data's TSC Hz: pt2perf's TIME_CONV,
# 873813/2^20 ns a tick, the 1.2 GHz the raw file's CPUID.15H gives)
for o in "" "--time" "--cycles"; do
	# shellcheck disable=SC2086
	"$PTBROWSE" dump $o $opts "$tmp/g.pt" 2>&1 | awk -v o="$o" 'o == "--cycles" { $3 = "" } { print }' >"$tmp/g.raw.txt"
	"$PTBROWSE" dump $o "$tmp/g.perf" 2>&1 | awk -v o="$o" 'o == "--cycles" { $3 = "" } { print }' >"$tmp/g.perf.txt"
	[ -s "$tmp/g.raw.txt" ] && cmp -s "$tmp/g.raw.txt" "$tmp/g.perf.txt" ||
		bad "pt2perf (chunks of 4093 bytes): dump $o differs from the raw file's"
done
[ $fail = 0 ] && echo "ok   pt2perf: 512 KiB in 4093-byte AUXTRACE records dumps as the raw file"
# info counts the PSBs that straddle records, however small they are.
n=$(XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" index --no-cache "$tmp/g.pt" | sed -n 's/^  psbs: *//p')
for c in 37 1000; do
	"$BUILD/tools/pt2perf" --chunk $c "$tmp/g.pt" -o "$tmp/g$c.perf" || bad "pt2perf"
	m=$("$PTBROWSE" info "$tmp/g$c.perf" | awk '$2 == "cpu0" { print $8 }')
	[ "$m" = "$n" ] || bad "info: $m PSBs in $c-byte records, the raw file has $n"
done

# Lost AUX data (a hole in the buffer offsets) is one gap line; nothing is
# decoded until the next PSB, and from there the packets are the raw
# file's from that PSB.
"$BUILD/tools/ptgen" --seed 9 --size 256KiB -o "$tmp/h.pt" || bad "ptgen"
"$BUILD/tools/pt2perf" --chunk 4093 --hole 100000:3000 "$tmp/h.pt" -o "$tmp/h.perf" ||
	bad "pt2perf --hole"
"$PTBROWSE" dump --no-offset --lastip "$tmp/h.perf" >"$tmp/h.txt" 2>&1
grep '^\[' "$tmp/h.txt" >"$tmp/h.diag"
[ "$(cat "$tmp/h.diag")" = "[186a0: gap in the trace: data lost; 3733 bytes skipped to the next PSB]" ] ||
	bad "hole: diagnostics: $(cat "$tmp/h.diag")"
sed -n '/gap in the trace/,$p' "$tmp/h.txt" | tail -n +2 >"$tmp/h.after"
"$PTBROWSE" dump --no-offset --lastip "$tmp/h.pt:0x1a0ed" >"$tmp/h.raw"
[ -s "$tmp/h.raw" ] && cmp -s "$tmp/h.after" "$tmp/h.raw" ||
	bad "hole: the packets after the gap differ from the raw file's from its next PSB"
"$PTBROWSE" info "$tmp/h.perf" | grep -q '^0      cpu0 .* 259144 *64 *1 *63 ' ||
	bad "hole: info: $("$PTBROWSE" info "$tmp/h.perf" | tail -n 1)"
# The index counts it as a gap, as the region summary does, not an error.
"$PTBROWSE" index --no-cache "$tmp/h.perf" >"$tmp/h.index" 2>&1
grep -q '^  errors:   0$' "$tmp/h.index" && grep -q '^  gaps:     1$' "$tmp/h.index" ||
	bad "hole: index: $(grep -E 'errors|gaps' "$tmp/h.index" | tr '\n' ' ')"
"$PTBROWSE" index --json --no-cache "$tmp/h.perf" | grep -q '"errors": 0, "gaps": 1}' ||
	bad "hole: index --json: $("$PTBROWSE" index --json --no-cache "$tmp/h.perf")"
[ $fail = 0 ] && echo "ok   pt2perf --hole: one gap line, decoding resumes at the next PSB"

# A hole that cuts a packet (the mtc at 0x186ab) is a gap at that packet,
# not a truncated packet; one that ends right at a PSB is a gap before it.
# Either is one gap for index, dump and info, and 'e' / 'E' in the browser
# stop at it.
for case in "100012:3000 186ab 3722 bytes skipped" "100000:2636 186a0 "; do
	set -- $case
	"$BUILD/tools/pt2perf" --chunk 4093 --hole "$1" "$tmp/h.pt" -o "$tmp/c.perf" || bad "pt2perf --hole $1"
	"$PTBROWSE" dump --no-offset "$tmp/c.perf" 2>&1 | grep '^\[' >"$tmp/c.diag"
	[ "$(wc -l <"$tmp/c.diag")" = 1 ] && grep -q "^\[$2: gap in the trace: data lost" "$tmp/c.diag" ||
		bad "hole $1: dump: $(cat "$tmp/c.diag")"
	"$PTBROWSE" index --no-cache "$tmp/c.perf" >"$tmp/c.index" 2>&1
	grep -q '^  errors:   0$' "$tmp/c.index" && grep -q '^  gaps:     1$' "$tmp/c.index" ||
		bad "hole $1: index: $(grep -E 'errors|gaps' "$tmp/c.index" | tr '\n' ' ')"
	printf 'wait-index\ne\n:save-screen %s\nG\nE\n:save-screen %s\n' "$tmp/c1.txt" "$tmp/c2.txt" >"$tmp/c.keys"
	"$PTBROWSE" --no-state --script "$tmp/c.keys" --size 120x12 "$tmp/c.perf" >/dev/null 2>&1 ||
		bad "hole $1: browser exit $?"
	for s in c1 c2; do
		grep -q "^ 0x$2/" "$tmp/$s.txt" || bad "hole $1: $s: not on the gap: $(grep '^ 0x' "$tmp/$s.txt")"
	done
done
[ $fail = 0 ] && echo "ok   a hole cutting a packet or ending at a PSB: one gap everywhere, 'e'/'E' stop at it"

# Data loss reported after thousands of context switches still shows: the
# browser names the AUX record nearest the cursor at the loss.
"$BUILD/tools/ptgen" --seed 9 --size 1MiB -o "$tmp/sb.pt" >/dev/null || bad "ptgen"
"$BUILD/tools/pt2perf" --switches 5000 --lost-at 943718 "$tmp/sb.pt" -o "$tmp/sb.perf" ||
	bad "pt2perf --switches --lost-at"
"$PTBROWSE" info "$tmp/sb.perf" | grep -q '^sideband   aux 1 itrace_start 0 switch_in 2500 switch_out 2500' ||
	bad "sideband: info: $("$PTBROWSE" info "$tmp/sb.perf" | grep sideband)"
printf 'wait-index\nt\n:goto 943700\n:save-screen %s\nq\n' "$tmp/sb.txt" >"$tmp/sb.keys"
XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" --no-state --script "$tmp/sb.keys" --size 100x12 \
	"$tmp/sb.perf" >/dev/null 2>&1 || bad "sideband: browser exit $?"
tail -n 1 "$tmp/sb.txt" | grep -q '^sideband: aux truncated at .*, stream 0xe6666, 4096 bytes' ||
	bad "sideband: the loss is not named at the cursor: $(tail -n 1 "$tmp/sb.txt")"
[ $fail = 0 ] && echo "ok   sideband: a loss after 5000 context switches is shown"

# Sideband perf dropped (LOST, LOST_SAMPLES records) is said, in text and
# JSON: the threads the context switches give are then incomplete.
printf 'switch 0 100 out 1 1 -1 -1 0\nlost 0 200 12\nlost 0 300 3\nlost_samples 0 400 9\n' >"$tmp/lost.sb"
"$BUILD/tools/pt2perf" --sideband "$tmp/lost.sb" "$tmp/h.pt" -o "$tmp/lost.perf" ||
	bad "pt2perf --sideband with lost lines"
"$PTBROWSE" info "$tmp/lost.perf" >"$tmp/lost.txt" 2>&1
grep -q '^warning    perf lost 15 sideband records (2 LOST records): ' "$tmp/lost.txt" &&
	grep -q '^note       perf lost 9 samples (1 LOST_SAMPLES records)$' "$tmp/lost.txt" ||
	bad "lost: info: $(grep -i lost "$tmp/lost.txt")"
"$PTBROWSE" info --json "$tmp/lost.perf" |
	grep -q '"lost": 15, "lost_records": 2, "lost_samples": 9, "lost_samples_records": 1,' ||
	bad "lost: info --json: $("$PTBROWSE" info --json "$tmp/lost.perf" | grep -o '"lost[^,]*,')"
"$PTBROWSE" info "$tmp/h.perf" | grep -qi 'lost' && bad "lost: said of a file that lost nothing"
[ $fail = 0 ] && echo "ok   sideband perf lost: info and info --json say so"

# The browser on one stream of a perf.data: --stream, named in the header.
printf ':save-screen %s\nq\n' "$tmp/st.txt" >"$tmp/st.keys"
XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" --no-state --stream cpu3 --script "$tmp/st.keys" \
	--size 100x12 "$q/perf.data.intel_pt-4.14" >/dev/null 2>&1 || bad "--stream cpu3: exit $?"
head -n 1 "$tmp/st.txt" | grep -q '^ ptbrowse perf.data.intel_pt-4.14:cpu3 134.5KiB' ||
	bad "--stream cpu3: header '$(head -n 1 "$tmp/st.txt")'"
XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" --no-state --stream cpu9 --script "$tmp/st.keys" \
	"$q/perf.data.intel_pt-4.14" >"$tmp/out" 2>&1 && bad "--stream cpu9 was accepted"
grep -q "no stream 'cpu9'" "$tmp/out" || bad "--stream cpu9: $(cat "$tmp/out")"
[ $fail = 0 ] && echo "ok   --stream cpu3 opens that stream; an unknown stream is an error"
exit $fail
