#!/bin/sh
# `ptbrowse flow`: --insn-only equals libipt's instruction flow on every
# kAFL trace with its memory (../shared/traces/libxdc-kafl-flow:
# expected/NAME.flow.gz, dyn_test's decode errors included, but for the
# TIP.PGE after a PSB+ FUP that libipt refuses, below) and equals
# tools/iptflow (libipt run here); --raw given on the command line does as
# --options; a range starts at a PSB; the full form disassembles; --summary
# counts what --insn-only lists, and cycles where there are CYC packets,
# the same with the timing options, which add its time in ms;
# bad images get one clear line naming the file and exit 1.
set -u
: "${PTBROWSE:?}" "${SHARED:?}" "${BUILD:?}"
dir=$SHARED/traces/libxdc-kafl-flow
iptflow=$BUILD/tools/iptflow
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -d "$dir" ] || { echo "skip: no $dir"; exit 0; }

# Where libipt refuses a TIP.PGE right after a PSB+ with a FUP ("unexpected
# packet context": KVM-PT's PSB+ restate the IP where tracing stopped, as
# dyn_test's every one), we take it as the enable it is and decode more:
# libipt's instructions are among ours in order, and that error is gone.
# (test_flow compares the two exactly with flow_config.libipt set.)
more_than_libipt() { # EXPECTED OURS
	grep -q 'error: unexpected packet context' "$1" &&
	! grep -q 'error: unexpected packet context' "$2" &&
	grep '^[0-9a-f]' "$1" >"$tmp/lib.i" && grep '^[0-9a-f]' "$2" >"$tmp/our.i" &&
	[ "$(wc -l <"$tmp/our.i")" -gt "$(wc -l <"$tmp/lib.i")" ] &&
	awk 'BEGIN { k = n = 0 } NR == FNR { want[n++] = $0; next } k < n && $0 == want[k] { k++ }
	     END { exit k < n }' "$tmp/lib.i" "$tmp/our.i"
}

for opt in "$dir"/*.options; do
	name=$(basename "$opt" .options)
	trace=$(ls "$dir/$name"*.pt | head -n 1)
	base=$(basename "$trace")
	"$PTBROWSE" flow --insn-only --options "$opt" "$trace" >"$tmp/our" 2>"$tmp/err" || {
		echo "FAIL $name: flow exited non-zero: $(cat "$tmp/err")"; fail=1; continue; }
	gzip -dc "$dir/expected/$base.flow.gz" >"$tmp/exp"
	if cmp -s "$tmp/our" "$tmp/exp"; then
		echo "ok   $name: $(grep -c '^[0-9a-f]' "$tmp/exp") instructions, $(grep -c 'error:' "$tmp/exp") errors, as libipt's expected flow"
	elif more_than_libipt "$tmp/exp" "$tmp/our"; then
		echo "ok   $name: $(grep -c '^[0-9a-f]' "$tmp/our") instructions, libipt's $(grep -c '^[0-9a-f]' "$tmp/exp") among them (its TIP.PGE after a PSB+ FUP taken)"
	else
		echo "FAIL $name differs from expected/$base.flow.gz"; diff "$tmp/exp" "$tmp/our" | head; fail=1
	fi
	"$iptflow" --options "$opt" "$trace" >"$tmp/ipt"
	cmp -s "$tmp/our" "$tmp/ipt" || more_than_libipt "$tmp/ipt" "$tmp/our" ||
		{ echo "FAIL $name differs from iptflow"; fail=1; }
	# --summary counts the same instructions
	n=$(grep -c '^[0-9a-f]' "$tmp/our")
	"$PTBROWSE" flow --summary --options "$opt" "$trace" >"$tmp/sum"
	grep -q "^total  *$n " "$tmp/sum" || { echo "FAIL $name: --summary total is not $n"; cat "$tmp/sum"; fail=1; }
done

# --raw on the command line, and the full form
"$PTBROWSE" flow --raw "$dir/unzip.0x400000.bin:0x400000" --insn-only \
	"$dir/unzip_trace.pt" >"$tmp/raw"
gzip -dc "$dir/expected/unzip_trace.pt.flow.gz" | cmp -s - "$tmp/raw" ||
	{ echo "FAIL --raw on the command line"; fail=1; }
"$PTBROWSE" flow --options "$dir/unzip.options" "$dir/unzip_trace.pt" >"$tmp/full"
sed -n 3p "$tmp/full" | grep -q '^000000000041ac60  push r15$' ||
	{ echo "FAIL disassembly: $(sed -n 3p "$tmp/full")"; fail=1; }
[ "$(grep -c '^[0-9a-f]' "$tmp/full")" = "$(grep -c '^[0-9a-f]' "$tmp/raw")" ] ||
	{ echo "FAIL the full form lists other instructions"; fail=1; }
# --offset: the deciding packet first
"$PTBROWSE" flow --offset --insn-only --options "$dir/unzip.options" \
	"$dir/unzip_trace.pt" | sed -n 3p | grep -q '^0000000000000[0-9a-f]*  000000000041ac60$' ||
	{ echo "FAIL --offset"; fail=1; }

# a range from a PSB gives the tail of the whole (this one resyncs cleanly)
"$PTBROWSE" flow --insn-only --options "$dir/foo.options" "$dir/foo_trace.pt" >"$tmp/foo"
psb=$("$PTBROWSE" dump "$dir/foo_trace.pt" | awk '$2 == "psb" { n++; if (n == 5) { print $1; exit } }')
"$PTBROWSE" flow --insn-only --options "$dir/foo.options" "$dir/foo_trace.pt:0x$psb" >"$tmp/foo5"
n=$(wc -l <"$tmp/foo5")
[ "$n" -gt 100 ] && tail -n "$n" "$tmp/foo" | sed 's/\[resumed\]/[enabled]/' >"$tmp/a" &&
	sed 's/\[resumed\]/[enabled]/' "$tmp/foo5" | cmp -s - "$tmp/a" ||
	{ echo "FAIL flow from the PSB at 0x$psb is not the tail"; fail=1; }

# a range FROM-TO: what packets before TO decided, nothing after
to=$(printf '0x%x' $((0x$psb + 0x400)))
"$PTBROWSE" flow --offset --insn-only --options "$dir/foo.options" "$dir/foo_trace.pt:0x$psb" >"$tmp/from"
"$PTBROWSE" flow --offset --insn-only --options "$dir/foo.options" "$dir/foo_trace.pt:0x$psb-$to" >"$tmp/range"
n=$(wc -l <"$tmp/range")
last=$(tail -n 1 "$tmp/range" | cut -c1-16)
if [ "$n" -gt 10 ] && head -n "$n" "$tmp/from" | cmp -s - "$tmp/range" &&
   [ $((0x$last)) -lt $((to)) ] &&
   [ $((0x$(sed -n "$((n + 1))p" "$tmp/from" | cut -c1-16))) -ge $((to)) ]; then
	echo "ok   flow 0x$psb-$to: the $n lines packets before $to decided"
else
	echo "FAIL flow 0x$psb-$to ($n lines, the last decided at 0x$last)"; fail=1
fi

# --summary's cycles on a trace with CYC packets (a ptrecord recording):
# counted, never more than the CYC packets hold; none without CYCs
if [ -x "$BUILD/tools/ptrecord" ] && [ -x "$BUILD/progs/p_loops" ]; then
	"$BUILD/tools/ptrecord" -q -o "$tmp/loops.pt" "$BUILD/progs/p_loops" >/dev/null 2>&1
	# untimed: without the timing options ptrecord writes first
	sed -i '/^--cpu /d' "$tmp/loops.pt.options"
	"$PTBROWSE" flow --summary --options "$tmp/loops.pt.options" "$tmp/loops.pt" >"$tmp/sum"
	cyc=0
	for h in $("$PTBROWSE" dump "$tmp/loops.pt" | awk '$2 == "cyc" { print $3 }'); do
		cyc=$((cyc + 0x$h))
	done
	got=$(awk '$1 == "total" { print $4 + $5 }' "$tmp/sum")
	if [ "$got" -gt 0 ] && [ "$got" -le "$cyc" ]; then
		echo "ok   --summary counts $got of the trace's $cyc CYC cycles"
	else
		echo "FAIL --summary cycles $got (the CYC packets hold $cyc)"; cat "$tmp/sum"; fail=1
	fi
	grep '^total' "$tmp/sum" | grep -q ' - ' && { echo "FAIL cycles shown as unknown"; fail=1; }
	# the timing options (ptrecord's configuration, which a raw trace
	# does not carry): the same instructions and CYC cycles, and a time
	# in ms only with them; without them the TSC span is a lower bound,
	# or unknown where the estimate held at one TSC throughout
	"$PTBROWSE" flow --summary --options "$tmp/loops.pt.options" --cpu 6/78/3 \
		--mtc-freq 3 --nom-freq=12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 \
		--tsc-freq 2GHz "$tmp/loops.pt" >"$tmp/sumt" 2>"$tmp/err"
	if [ "$(grep '^total' "$tmp/sum")" = "$(grep '^total' "$tmp/sumt")" ] &&
	   grep -q '^time: [1-9][0-9]* TSC ticks (estimated) .*, [0-9]*\.[0-9]\{6\} ms at 2000000000 Hz (--tsc-freq)$' "$tmp/sumt" &&
	   ! grep -q ' ms' "$tmp/sum" &&
	   grep -q '^time: \(at least .*a lower bound\|unknown (the TSC estimate did not move\)' "$tmp/sum"; then
		echo "ok   --summary with the timing options: the same cycles, and $(grep '^time' "$tmp/sumt" | grep -o '[0-9.]* ms')"
	else
		echo "FAIL --summary with the timing options: $(grep -e '^total' -e '^time' "$tmp/sum" "$tmp/sumt") $(cat "$tmp/err")"; fail=1
	fi
	# the same timing from one options file with the code images (the
	# man page's TRACE.options for flow --options): timing lines were
	# refused; the command line's timing wins over the file's
	{ echo "--cpu 6/78/3 --mtc-freq 3 --nom-freq=12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"
	  echo "--tsc-freq 2GHz"; cat "$tmp/loops.pt.options"; } >"$tmp/all.options"
	"$PTBROWSE" flow --summary --options "$tmp/all.options" "$tmp/loops.pt" >"$tmp/suma" 2>"$tmp/err"
	"$PTBROWSE" flow --summary --options "$tmp/all.options" --tsc-freq 1GHz "$tmp/loops.pt" \
		>"$tmp/sumb" 2>>"$tmp/err"
	if [ "$(grep -e '^total' -e '^time' "$tmp/suma")" = "$(grep -e '^total' -e '^time' "$tmp/sumt")" ] &&
	   grep -q '^time: .* ms at 1000000000 Hz (--tsc-freq)$' "$tmp/sumb"; then
		echo "ok   --options with timing and image lines: as on the command line, which wins"
	else
		echo "FAIL --options with timing lines: $(grep '^time' "$tmp/suma" "$tmp/sumb") $(cat "$tmp/err")"; fail=1
	fi
	# CPUID.15H alone gives the frequency too: the model's 24 MHz crystal
	"$PTBROWSE" flow --summary --options "$tmp/loops.pt.options" --cpu 6/78 \
		--mtc-freq 3 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 "$tmp/loops.pt" |
		grep -q '^time: .* ms at 1200000000 Hz (--cpuid-0x15.eax/ebx and the CPU model' ||
		{ echo "FAIL --summary time from CPUID.15H and the model's crystal"; fail=1; }
fi
# a bad timing value: one line, exit 2
for o in "--mtc-freq abc" "--tsc-freq=fast" "--cpu 6/x"; do
	# shellcheck disable=SC2086
	"$PTBROWSE" flow --summary $o "$dir/unzip_trace.pt" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^ptbrowse flow: ${o%%[ =]*}: bad argument" "$tmp/err" &&
	   [ ! -s "$tmp/out" ]; then
		echo "ok   $(cat "$tmp/err")"
	else
		echo "FAIL flow $o: exit $rc, $(cat "$tmp/err")"; fail=1
	fi
done
"$PTBROWSE" flow --summary --options "$dir/unzip.options" "$dir/unzip_trace.pt" |
	grep -q '^total  *149576  *46761  *-  *-$' || { echo "FAIL cycles where the trace has no CYC"; fail=1; }

# bad images: one line, naming the file, exit 1
bad() {
	want=$1; shift
	"$PTBROWSE" flow "$@" "$dir/unzip_trace.pt" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q -- "$want" "$tmp/err"; then
		echo "FAIL flow $*: exit $rc, stderr: $(cat "$tmp/err") (wanted '$want')"; fail=1
	else
		echo "ok   $(cat "$tmp/err")"
	fi
}
bad "nothere.bin: No such file or directory" --raw "$tmp/nothere.bin:0x400000"
bad "overlaps $dir/unzip.0x400000.bin at 0x400000-0x426fff" \
	--raw "$dir/unzip.0x400000.bin:0x400000" --raw "$dir/foo.0x7ffff7819000.bin:0x401000"
# a --raw that is not FILE:ADDR is a usage error, exit 2 (was 1)
for raw in "$dir/unzip.0x400000.bin:zz" "$dir/unzip.0x400000.bin"; do
	"$PTBROWSE" flow --raw "$raw" "$dir/unzip_trace.pt" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
	   ! grep -q -- "bad address 'zz'\|expected FILE:ADDR" "$tmp/err"; then
		echo "FAIL flow --raw $raw: exit $rc, stderr: $(cat "$tmp/err")"; fail=1
	else
		echo "ok   $(cat "$tmp/err") (exit 2)"
	fi
done
printf -- '--raw nothere.bin:0x1000\n' >"$tmp/x.options"
bad "x.options:1: $tmp/nothere.bin: No such file" --options "$tmp/x.options"
# every image option is taken from the file (only --raw was: "--elf a.out"
# was "expected '--raw FILE:ADDR'"), relative to it; timing lines too
printf -- '--elf a.out\n' >"$tmp/y.options"
bad "flow: $tmp/a.out: No such file or directory" --options "$tmp/y.options"
printf -- '--cpu 6/78/3\n--mtc-freq x\n' >"$tmp/y.options"
bad "flow: $tmp/y.options:2: --mtc-freq: bad value 'x'" --options "$tmp/y.options"
printf -- '--kallsyms\n' >"$tmp/y.options"
bad "flow: $tmp/y.options:1: --kallsyms: missing value" --options "$tmp/y.options"
# no code at all: said once, and every instruction is an error
"$PTBROWSE" flow --insn-only "$dir/unzip_trace.pt" >"$tmp/out" 2>"$tmp/err"
grep -q "no code given" "$tmp/err" && grep -q "no memory mapped at this address" "$tmp/out" ||
	{ echo "FAIL flow without code"; fail=1; }
exit $fail
