#!/bin/sh
# tools/ptrecord: the test programs of tests/progs recorded under ptrace;
# libipt's instruction decoder (tools/iptflow) must decode each stream into
# exactly the recorder's own instruction log, `ptbrowse dump` must decode
# every packet, and `ptbrowse flow --insn-only` (once it exists) must print
# what libipt prints.  Also: the same program gives the same trace, the
# options change the packets as they say, threads land on two streams with
# their sideband, and pt2perf wraps it all into a perf.data.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
rec=$BUILD/tools/ptrecord
iptflow=$BUILD/tools/iptflow
pt2perf=$BUILD/tools/pt2perf
progs=$BUILD/progs
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

bad() {
	echo "FAIL $*"
	fail=1
}

for f in "$rec" "$iptflow" "$pt2perf" "$PTBROWSE" "$progs/p_loops" \
	 "$progs/p_longjmp" "$progs/p_signal" "$progs/p_threads" "$progs/p_exec"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
# Lazy binding would add thousands of resolver steps to each first call.
LD_BIND_NOW=1
export LD_BIND_NOW

# The --raw options of a recording, with paths made absolute (its first
# line is the timing options).
raw_opts() {
	dir=$(dirname "$1")
	sed -n "s#^--raw #--raw $dir/#p" "$1.options" | tr '\n' ' '
}

flow_checked=0 flow_skipped=
# check NAME TRACE BASE: one stream against its log, libipt and dump.
check() {
	name=$1 trace=$2 base=$3
	"$iptflow" $(raw_opts "$base") "$trace" > "$trace.ipt" 2> "$trace.err" ||
		{ bad "$name: iptflow failed: $(head -c 300 "$trace.err")"; return; }
	if grep -q 'error' "$trace.ipt"; then
		bad "$name: libipt reports errors: $(grep error "$trace.ipt" | head -3)"
	fi
	grep -v '^\[' "$trace.ipt" > "$trace.ips"
	if cmp -s "$trace.ips" "$trace.flow"; then
		echo "ok   $name: libipt decodes $(wc -l < "$trace.flow") instructions, exactly the recorder's log"
	else
		bad "$name: libipt's flow differs from the recorder's log: $(diff "$trace.ips" "$trace.flow" | head -5 | tr '\n' ' ')"
	fi
	if ! "$PTBROWSE" dump "$trace" > "$trace.dump" 2>&1; then
		bad "$name: ptbrowse dump exited non-zero"
	elif grep -q 'error' "$trace.dump"; then
		bad "$name: ptbrowse dump: $(grep error "$trace.dump" | head -2)"
	else
		echo "ok   $name: ptbrowse dump decodes all $(wc -l < "$trace.dump") packets"
	fi
	# The flow command of ptbrowse, where it exists already.
	out=$("$PTBROWSE" flow --insn-only $(raw_opts "$base") "$trace" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && printf '%s\n' "$out" |
	   grep -q -e '^usage: ptbrowse \[options\] TRACE' -e 'unknown option --insn-only'; then
		flow_skipped=1
		return
	fi
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | cmp -s - "$trace.ipt"; then
		flow_checked=$((flow_checked + 1))
	else
		bad "$name: ptbrowse flow --insn-only differs from libipt (exit $rc): $(printf '%s\n' "$out" | diff - "$trace.ipt" | head -4 | tr '\n' ' ')"
	fi
}

# One CPU: each program once.
for p in loops longjmp signal; do
	if "$rec" -q -o "$tmp/$p.pt" "$progs/p_$p" > "$tmp/$p.out" 2> "$tmp/$p.log"; then
		check "p_$p" "$tmp/$p.pt" "$tmp/$p.pt"
	else
		bad "p_$p: ptrecord exited non-zero: $(cat "$tmp/$p.log")"
	fi
done

# Deterministic: no ASLR, a seeded cycle model.
"$rec" -q -o "$tmp/again.pt" "$progs/p_loops" > /dev/null 2>&1 || bad "p_loops again"
if cmp -s "$tmp/loops.pt" "$tmp/again.pt" && cmp -s "$tmp/loops.pt.flow" "$tmp/again.pt.flow"; then
	echo "ok   the same program records to the same bytes twice"
else
	bad "recording p_loops twice gave different traces"
fi

# What the trace holds: indirect branches, TNT, system calls, PSB+.
d=$tmp/loops.pt.dump
for want in psb psbend tsc tma cbr mode.exec tip.pge tip.pgd tip tnt.8 cyc mtc; do
	grep -q "^[0-9a-f]*  $want " "$d" || grep -q "^[0-9a-f]*  $want\$" "$d" ||
		bad "p_loops: no $want packet"
done
# A system call disables tracing with the IP suppressed (SDM: user-only).
grep -q 'tip.pgd    0: ' "$d" || bad "p_loops: the syscall's tip.pgd carries an IP"
# Return compression: without it, more TIPs (each return is one).
"$rec" -q --no-retcomp -o "$tmp/noret.pt" "$progs/p_loops" > /dev/null 2>&1 || bad "--no-retcomp"
check "p_loops --no-retcomp" "$tmp/noret.pt" "$tmp/noret.pt"
n1=$(grep -c '  tip  ' "$d") n2=$(grep -c '  tip  ' "$tmp/noret.pt.dump")
if [ "$n2" -gt "$n1" ]; then
	echo "ok   return compression: $n1 TIPs, $n2 without it"
else
	bad "return compression saves no TIP ($n1 vs $n2)"
fi
# Without CYC: long TNTs, no CYC packets.
"$rec" -q --no-cyc -o "$tmp/nocyc.pt" "$progs/p_loops" > /dev/null 2>&1 || bad "--no-cyc"
check "p_loops --no-cyc" "$tmp/nocyc.pt" "$tmp/nocyc.pt"
if grep -q '  tnt.64 ' "$tmp/nocyc.pt.dump" && ! grep -q '  cyc ' "$tmp/nocyc.pt.dump"; then
	echo "ok   --no-cyc: long TNTs and no CYC"
else
	bad "--no-cyc: expected tnt.64 and no cyc"
fi
# Any seed gives a plausible model: with --seed 2^64-1 the generator's
# state was 0 and stayed so, every memory access a cache miss and every
# branch mispredicted (ten times the cycles of seed 1).
for sd in 1 18446744073709551615; do
	"$rec" -q --seed $sd --log-cycles -o "$tmp/seed$sd.pt" "$progs/p_loops" > /dev/null 2>&1 ||
		bad "--seed $sd"
done
c1=$(tail -n 1 "$tmp/seed1.pt.flow" | awk '{ print $3 }')
c2=$(tail -n 1 "$tmp/seed18446744073709551615.pt.flow" | awk '{ print $3 }')
[ "${c1:-0}" -gt 0 ] && [ "${c2:-0}" -gt 0 ] && [ "$c2" -lt $((c1 * 2)) ] && [ "$c1" -lt $((c2 * 2)) ] &&
	echo "ok   --seed 1 and 2^64-1: $c1 and $c2 cycles" ||
	bad "--seed 1 and 2^64-1: '$c1' and '$c2' cycles"
# Small PSB periods: many PSB+, decoding still exact.
"$rec" -q --psb-period 128 -o "$tmp/psb.pt" "$progs/p_longjmp" > /dev/null 2>&1 || bad "--psb-period"
check "p_longjmp --psb-period 128" "$tmp/psb.pt" "$tmp/psb.pt"
n=$(grep -c '  psb$' "$tmp/psb.pt.dump")
[ "$n" -gt 3 ] && echo "ok   --psb-period 128: $n PSBs" || bad "--psb-period 128: $n PSBs"
# Compressed returns right before a PSB: their TNT bits precede it and the
# call stack is cleared only after them (libipt decodes this).
"$rec" -q --psb-period 128 -o "$tmp/psb2.pt" "$progs/p_loops" > /dev/null 2>&1 || bad "--psb-period"
check "p_loops --psb-period 128" "$tmp/psb2.pt" "$tmp/psb2.pt"
# Stopping early: the stream ends with FUP + TIP.PGD at the next instruction.
"$rec" -q --max-insns 300 -o "$tmp/max.pt" "$progs/p_loops" > /dev/null 2>&1
check "p_loops --max-insns 300" "$tmp/max.pt" "$tmp/max.pt"
[ "$(wc -l < "$tmp/max.pt.flow")" -eq 300 ] || bad "--max-insns 300: $(wc -l < "$tmp/max.pt.flow") instructions"

# From the first instruction after exec (the dynamic loader), cut short.
"$rec" -q --from-exec --max-insns 2000 -o "$tmp/exec0.pt" "$progs/p_loops" > /dev/null 2>&1
check "p_loops --from-exec --max-insns 2000" "$tmp/exec0.pt" "$tmp/exec0.pt"
grep -q 'ld-linux' "$tmp/exec0.pt.options" || bad "--from-exec: no image of the dynamic loader"

# Signals: the handler is entered after the system call (raise) or the
# fault (ud2) left the traced code, and left through sigreturn.
# The fault (ud2) is an asynchronous exit: FUP at the faulting instruction,
# then TIP.PGD; libipt then resumes in the handler.
grep -v '  cyc \|  mtc ' "$tmp/signal.pt.dump" | grep -A1 '  fup  ' | grep -q 'tip.pgd    0:' ||
	bad "p_signal: no FUP + TIP.PGD for the fault"
n=$(grep -c '^\[enabled\]\|^\[resumed\]' "$tmp/signal.pt.ipt")
[ "$n" -ge 5 ] && echo "ok   p_signal: tracing re-enabled $n times (handlers, sigreturn, syscalls)" ||
	bad "p_signal: only $n enables"

# The code images: one per executed mapping, named in the options file,
# after the timing options (as ptgen -o writes them).
sed 1d "$tmp/loops.pt.options" | while read -r opt spec; do
	f=${spec%:*}
	[ "$opt" = --raw ] && [ -s "$tmp/$f" ] || echo "FAIL loops.pt.options: '$opt $spec' names no image"
done | grep FAIL && fail=1
grep -q 'p_loops' "$tmp/loops.pt.options" && grep -q 'libptbdemo.so' "$tmp/loops.pt.options" ||
	bad "loops.pt.options lacks the program or its library"

# Threads on two CPUs: both streams exact, switches in the sideband.
if "$rec" -q --cpus 2 --quantum 1500 --psb-period 1024 -o "$tmp/thr.pt" "$progs/p_threads" > /dev/null 2> "$tmp/thr.log"; then
	for c in 0 1; do
		check "p_threads cpu$c" "$tmp/thr.pt.cpu$c" "$tmp/thr.pt"
	done
else
	bad "p_threads: ptrecord exited non-zero: $(cat "$tmp/thr.log")"
fi
sb=$tmp/thr.pt.sideband
ncomm=$(grep -c '^comm ' "$sb") nin=$(grep -c '^switch [0-9]* [0-9]* in ' "$sb")
nout=$(grep -c '^switch [0-9]* [0-9]* out ' "$sb")
[ "$ncomm" -eq 4 ] || bad "p_threads: $ncomm comm lines, not 4 (main and 3 workers)"
grep -q '^mmap2 .* [0-9a-f]\{40\} .*/libptbdemo.so$' "$sb" ||
	bad "p_threads: no mmap2 line with a build ID for libptbdemo.so"
# Into a perf.data: two streams, the switch and comm records.
"$pt2perf" --sideband "$sb" --cpu 0 "$tmp/thr.pt.cpu0" --cpu 1 "$tmp/thr.pt.cpu1" \
	-o "$tmp/thr.perf" || bad "pt2perf --sideband"
info=$("$PTBROWSE" info "$tmp/thr.perf" 2>&1)
if printf '%s\n' "$info" | grep -q "switch_in $nin switch_out $nout comm $ncomm" &&
   printf '%s\n' "$info" | grep -q '^0 *cpu0 ' && printf '%s\n' "$info" | grep -q '^1 *cpu1 '; then
	echo "ok   perf.data: streams cpu0 and cpu1, $nin switch-ins, $nout switch-outs, $ncomm comms"
else
	bad "perf.data info: $(printf '%s\n' "$info" | grep -E 'sideband|cpu' | tr '\n' ' ')"
fi
# perf's own reader, where perf is installed, sees the same records: MMAP2
# with the build ID of the file behind it, COMM, FORK, SWITCH_CPU_WIDE.
if command -v perf > /dev/null 2>&1; then
	# through a pipe: perf 6.1 reads a pipe-mode file given by name 16
	# bytes off at AUXTRACE data, and may then stop before printing
	cat "$tmp/thr.perf" | perf script -f -D -i - > "$tmp/perf-D" 2>&1
	lib=$(grep '^mmap2 .*/libptbdemo.so$' "$sb" | awk '{ print $13 }')
	n=$(grep -c 'PERF_RECORD_SWITCH_CPU_WIDE' "$tmp/perf-D")
	if ! grep -q 'PERF_RECORD_ATTR' "$tmp/perf-D"; then
		# perf itself did not get going (it reads nothing at all)
		echo "skip perf script -D read nothing: $(head -c 200 "$tmp/perf-D" | tr '\n' ' ')"
	elif grep -q "PERF_RECORD_MMAP2 .*<$lib>\]: r-xp .*/libptbdemo.so\$" "$tmp/perf-D" &&
	   [ "$(grep -c 'PERF_RECORD_COMM\( exec\)\{0,1\}: p_threads' "$tmp/perf-D")" -eq "$ncomm" ] &&
	   [ "$(grep -c 'PERF_RECORD_FORK' "$tmp/perf-D")" -eq 3 ] &&
	   [ "$n" -eq $((nin + nout)) ]; then
		echo "ok   perf reads the MMAP2 (build ID $lib), COMM, FORK and $n switch records"
	else
		bad "perf script -D disagrees: $(grep -E 'MMAP2|COMM|FORK' "$tmp/perf-D" | head -5 | tr '\n' ' ') [$(head -c 300 "$tmp/perf-D")]"
	fi
else
	echo "skip perf is not installed: its reading of the records is not checked"
fi
for c in 0 1; do
	"$PTBROWSE" dump --stream cpu$c "$tmp/thr.perf" > "$tmp/perf$c.dump" 2>&1
	cmp -s "$tmp/perf$c.dump" "$tmp/thr.pt.cpu$c.dump" ||
		bad "perf.data stream cpu$c dumps differently from the raw stream"
done

# exec: the recording stops at the execve, the new program runs untraced.
if "$rec" -o "$tmp/exec.pt" "$progs/p_exec" > /dev/null 2> "$tmp/exec.log" &&
   grep -q 'called exec: recording stops there' "$tmp/exec.log"; then
	check "p_exec" "$tmp/exec.pt" "$tmp/exec.pt"
	tail -n 1 "$tmp/exec.pt.ipt" | grep -q '^\[disabled\]$' ||
		bad "p_exec: the trace does not end disabled at the exec"
else
	bad "p_exec: $(cat "$tmp/exec.log")"
fi

# Random access: ptbrowse flow from each PSB gives the tail of the
# recorder's log (the SDM: nothing is kept across a PSB).
psb_suffix() {
	name=$1 trace=$2 base=$3 k=0
	[ -n "$flow_skipped" ] && return
	for o in $(awk '$2 == "psb" { print $1 }' "$trace.dump"); do
		"$PTBROWSE" flow --insn-only $(raw_opts "$base") "$trace:0x$o" 2>&1 |
			grep -v '^\[' > "$trace.part"
		n=$(wc -l < "$trace.part")
		if ! tail -n "$n" "$trace.flow" | cmp -s - "$trace.part"; then
			bad "$name: flow from the PSB at 0x$o is not the tail of the log"
			return
		fi
		k=$((k + 1))
	done
	echo "ok   $name: flow from each of $k PSBs is the tail of the recorder's log"
}
psb_suffix "p_longjmp --psb-period 128" "$tmp/psb.pt" "$tmp/psb.pt"
psb_suffix "p_threads cpu0" "$tmp/thr.pt.cpu0" "$tmp/thr.pt"
psb_suffix "p_threads cpu1" "$tmp/thr.pt.cpu1" "$tmp/thr.pt"

# The modelled time holds together: our time model finds it monotonic,
# resumes exactly at every PSB, and flags no trouble (no lost MTC, no TSC
# going back, nothing uncalibrated).
tmfail=0
for f in loops.pt signal.pt psb2.pt nocyc.pt thr.pt.cpu0 thr.pt.cpu1; do
	out=$("$BUILD/tools/tmcheck" --cpu 6/78/3 --mtc-freq 3 --nom-freq 12 \
		--cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 "$tmp/$f" 2>&1)
	if [ $? -ne 0 ] || ! printf '%s\n' "$out" | grep -q 'monotonic, PSB carry exact' ||
	   printf '%s\n' "$out" | grep -q '^  [a-z-]*  *[1-9]'; then
		bad "tmcheck $f: $(printf '%s\n' "$out" | tr '\n' ' ')"
		tmfail=1
	fi
done
[ $tmfail = 0 ] && echo "ok   tmcheck: the modelled time is monotonic, exact from every PSB, without trouble"

# Bad input: a clear message, a non-zero exit.
out=$("$rec" -o "$tmp/x.pt" "$tmp/no-such-program" 2>&1) && bad "a missing program succeeded"
printf '%s\n' "$out" | grep -q 'no-such-program' || bad "a missing program: '$out'"
"$rec" 2> /dev/null; [ $? -eq 2 ] || bad "no arguments: not a usage error"
# Values that cannot work are usage errors, said in one line naming the
# option (--quantum 0 preempted every thread before it ran: a hang).
for opt in "--quantum 0" "--cpus 0" "--cbr 0" "--mtc-freq 16" "--quantum -1" "--seed x"; do
	out=$(timeout 20 "$rec" -q $opt -o "$tmp/u.pt" "$progs/p_threads" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
	   printf '%s\n' "$out" | grep -q -- "${opt% *}" ||
		bad "ptrecord $opt: exit $rc, '$out'"
done
"$rec" -q -o "$tmp/f.pt" "$progs/p_loops" fail > /dev/null 2>&1
[ $? -eq 3 ] || bad "a program failing is not exit status 3"
out=$("$rec" -q -o "$tmp/f.pt" /bin/true 2>&1)
[ $? -eq 1 ] && printf '%s\n' "$out" | grep -q "no symbol 'main'.*--from-exec" ||
	bad "a stripped program: '$out'"

# The outputs go through safefile: never over the traced program; a
# recording that fails (here: past the file size limit, SIGXFSZ) leaves
# what had the name before and no file or directory of its own (TRACE.img
# and its .build-id tree are made before the trace is written); a FIFO is
# refused.
libs=$(cd "$progs" && pwd)
cp "$progs/p_loops" "$tmp/self"
out=$(LD_LIBRARY_PATH=$libs "$rec" -q -o "$tmp/self" "$tmp/self" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "self: is the traced program" &&
   cmp -s "$tmp/self" "$progs/p_loops" && [ "$(ls -A "$tmp" | grep -c '^self')" -eq 1 ]; then
	echo "ok   -o the traced program: refused, nothing written ($out)"
else
	bad "-o the traced program: exit $rc, '$out', $(ls -A "$tmp" | grep '^self' | tr '\n' ' ')"
fi
echo old > "$tmp/old.pt"
nfiles=$(find "$tmp" | wc -l)
# (in a command substitution whose stderr takes the shell's report)
rc=$( { (ulimit -f 8; exec "$rec" -q -o "$tmp/old.pt" "$progs/p_loops") >/dev/null 2>&1
	echo $?; } 2>/dev/null)
if [ $rc -ne 0 ] && [ "$(cat "$tmp/old.pt")" = old ] && [ "$(find "$tmp" | wc -l)" -eq "$nfiles" ]; then
	echo "ok   a recording that fails (exit $rc) leaves the old file and nothing of its own"
else
	bad "a failed recording (exit $rc): $(head -c 20 "$tmp/old.pt" | od -c | head -1), $(find "$tmp" -newer "$tmp/self" | tr '\n' ' ')"
fi
# Killed (SIGTERM) while the program runs: sleep is traced from its first
# instruction (it has no main) and then sleeps.  The vDSO's image is in
# TERM.pt.img/.build-id/XX/ID/ by then.
rc=$( { timeout 2 "$rec" -q --from-exec -o "$tmp/term.pt" sleep 5 >/dev/null 2>&1
	echo $?; } 2>/dev/null)
left=$(find "$tmp" -path '*/term.pt*' | tr '\n' ' ')
[ $rc -eq 124 ] && [ -z "$left" ] && [ "$(find "$tmp" | wc -l)" -eq "$nfiles" ] ||
	bad "a recording killed by SIGTERM (exit $rc) leaves $left"
mkfifo "$tmp/fifo"
out=$("$rec" -q -o "$tmp/fifo" "$progs/p_loops" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s\n' "$out" | grep -q 'fifo: is a FIFO' ||
	bad "-o a FIFO: exit $rc, '$out'"
# An empty -o names the option; TRACE.img, where the code images go, must
# be a directory: a file there was found only after the whole program had
# been stepped (five 'Not a directory' lines; p_loops writes 2 bytes from
# main).  Nothing is left behind.
nfiles=$(find "$tmp" | wc -l)
out=$("$rec" -q -o '' "$progs/p_loops" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && [ "$out" = "ptrecord: -o: empty file name" ] || bad "-o '': exit $rc, '$out'"
echo file > "$tmp/imgfile.img"
nfiles=$((nfiles + 1))
out=$("$rec" -q -o "$tmp/imgfile" "$progs/p_loops" 2>&1 >"$tmp/img.out")
rc=$?
[ $rc -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
   printf '%s\n' "$out" | grep -q 'imgfile.img: not a directory' && [ ! -s "$tmp/img.out" ] ||
	bad "TRACE.img a file: exit $rc, '$out', program output '$(cat "$tmp/img.out")'"
rm -f "$tmp/img.out"
[ "$(find "$tmp" | wc -l)" -eq "$nfiles" ] && [ "$(cat "$tmp/imgfile.img")" = file ] ||
	bad "a refused recording left: $(find "$tmp" -newer "$tmp/imgfile.img" | tr '\n' ' ')"

if [ -n "$flow_skipped" ]; then
	echo "skip ptbrowse flow --insn-only: not built yet"
else
	echo "ok   ptbrowse flow --insn-only equals libipt on $flow_checked streams"
fi
[ $fail = 0 ] && echo "all ptrecord tests passed"
exit $fail
