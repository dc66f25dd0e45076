#!/bin/sh
# t_dump_options -- ptdump's display options of `ptbrowse dump`, each
# checked against an expectation derived from libipt ptdump's own output
# (../shared/traces/expected/*.lastip and *.time): --no-pad, --no-timing
# and --no-cyc drop exactly their packets (--no-cyc leaves --cycles'
# columns as they were: it is for libipt's --time), --no-offset drops the offset
# column, --raw adds the packet's bytes, --no-sync decodes from the first
# byte, --time-delta turns the time column into differences, and a
# FROM-TO range keeps to its bytes.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config
fail=0
bad() { echo "FAIL $*"; fail=1; }
quipper="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"

# same NAME WANT GOT: report whether two files are equal.
same() {
	if cmp -s "$2" "$3"; then
		echo "ok   $1 ($(wc -c <"$2") bytes)"
	else
		bad "$1"
		diff "$2" "$3" | head -n 6
	fi
}

n=0
for trace in "$SHARED"/traces/dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin \
	     "$SHARED"/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt; do
	name=$(basename "$trace")
	exp=$SHARED/traces/expected/$name.lastip.ptdump.gz
	[ -f "$trace" ] && [ -f "$exp" ] || { bad "$name: trace or expected output missing"; continue; }
	n=$((n + 1))
	gzip -dc "$exp" >"$tmp/exp"
	d() { "$PTBROWSE" dump --lastip --exec-mode "$@" "$trace" >"$tmp/got" 2>&1; }

	# The second column is the packet's name.
	d --no-pad
	awk '$2 != "pad"' "$tmp/exp" >"$tmp/want"
	same "$name --no-pad" "$tmp/want" "$tmp/got"
	d --no-timing
	awk '$2 !~ /^(tsc|tma|mtc|cbr|cyc)$/' "$tmp/exp" >"$tmp/want"
	same "$name --no-timing" "$tmp/want" "$tmp/got"
	d --no-cyc
	awk '$2 != "cyc"' "$tmp/exp" >"$tmp/want"
	same "$name --no-cyc" "$tmp/want" "$tmp/got"
	d --no-offset
	sed 's/^[0-9a-f]\{16\}  //' "$tmp/exp" >"$tmp/want"
	same "$name --no-offset" "$tmp/want" "$tmp/got"

	# --raw: without its column the lines are ptdump's, and the columns
	# joined are the trace's bytes from the first PSB on.
	d --raw
	cut -c1-18,53- "$tmp/got" | sed 's/ *$//' >"$tmp/got2"
	sed 's/ *$//' "$tmp/exp" >"$tmp/want"
	same "$name --raw (other columns)" "$tmp/want" "$tmp/got2"
	first=$(head -n 1 "$tmp/got" | cut -c1-16)
	cut -c19-52 "$tmp/got" | tr -d ' \n' >"$tmp/rawcol"
	od -An -v -tx1 -j $((0x$first)) "$trace" | tr -d ' \n' >"$tmp/bytes"
	same "$name --raw (the bytes)" "$tmp/bytes" "$tmp/rawcol"

	# --no-sync: three pad bytes in front are decoded, not skipped.
	printf '\000\000\000' | cat - "$trace" >"$tmp/pre.pt"
	"$PTBROWSE" dump --lastip --exec-mode --no-sync --no-offset "$tmp/pre.pt" >"$tmp/got" 2>&1
	{ printf 'pad\npad\npad\n'; sed 's/^[0-9a-f]\{16\}  //' "$tmp/exp"; } >"$tmp/want"
	same "$name --no-sync" "$tmp/want" "$tmp/got"
	"$PTBROWSE" dump --lastip --exec-mode "$tmp/pre.pt" | head -n 1 |
		grep -q '^0000000000000003  psb$' || bad "$name: without --no-sync the dump does not start at the PSB"

	# FROM-TO: the decoder sees only those bytes (as ptdump's range):
	# from the first PSB in them, ptdump's lines up to TO.
	from=$(awk '$2 == "psb" { n++; if (n == 2) { print $1; exit } }' "$tmp/exp")
	to=$(awk '$2 == "psb" { n++; if (n == 3) { print $1; exit } }' "$tmp/exp")
	[ -n "$to" ] || to=$(printf %016x "$(wc -c <"$trace")")
	if [ -n "$from" ]; then
		"$PTBROWSE" dump --lastip --exec-mode \
			"$trace:0x$(printf %x $((0x$from - 5)))-0x$to" >"$tmp/got" 2>&1
		# strings: "00000000000007e3" would compare as the number 7e3
		awk -v a="$from" -v b="$to" '($1 "") >= (a "") && ($1 "") < (b "")' "$tmp/exp" >"$tmp/want"
		same "$name FROM-TO (one segment)" "$tmp/want" "$tmp/got"
	else
		echo "skip $name FROM-TO: one PSB only"
	fi
done
[ $n -gt 0 ] || bad "no traces"

# --no-cyc is ptdump's: it leaves CYC packets out of libipt's estimate
# (--time, --tcal) but not out of --cycles, whose columns are the
# browser's, and --help says so (it said "ignore them for time").
g=$tmp/nocyc.pt
"${BUILD:-build}/tools/ptgen" --seed 3 --size 64KiB -o "$g" >/dev/null 2>&1 || bad "ptgen"
"$PTBROWSE" dump --cycles "$g" | awk '{ split(substr($0, 88), a, " ") } a[1] != "cyc"' >"$tmp/want"
"$PTBROWSE" dump --cycles --no-cyc "$g" >"$tmp/got"
same "--cycles --no-cyc: the --cycles rows less the CYC packets'" "$tmp/want" "$tmp/got"
"$PTBROWSE" dump --help | grep -A1 -- '--no-cyc' | tr '\n' ' ' | tr -s ' ' |
	grep -q -- 'ignore them for --time and --tcal; --cycles still counts them' &&
	echo "ok   dump --help: --no-cyc is for --time and --tcal" ||
	bad "dump --help does not say --no-cyc is for --time and --tcal only"

# --time-delta: each time is the difference to the one printed before
# (the first to zero), in hex with a sign, derived from ptdump's --time.
trace=$SHARED/traces/quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx0.cpu0.pt
exp=$SHARED/traces/expected/perf.data.piped.intel_pt-4.14.idx0.cpu0.pt.time.ptdump.gz
if [ -f "$exp" ]; then
	# shellcheck disable=SC2086
	"$PTBROWSE" dump --lastip --exec-mode --time --time-delta $quipper "$trace" 2>&1 |
		head -n 3000 | awk '$(NF - 1) == "tsc" { print $NF }' >"$tmp/got"
	gzip -dc "$exp" | head -n 3000 | awk '$(NF - 1) == "tsc" { print $NF }' >"$tmp/abs"
	prev=0
	while read -r v; do
		printf '+%x\n' $((0x$v - prev))
		prev=$((0x$v))
	done <"$tmp/abs" >"$tmp/want"
	[ -s "$tmp/want" ] || bad "--time-delta: no times in the expected output"
	same "--time-delta (3000 lines)" "$tmp/want" "$tmp/got"
else
	bad "--time-delta: $exp missing"
fi
exit $fail
