#!/bin/sh
# t_badinput -- the bad-input matrix: every row a named case that asserts
# the exact one-line message and exit status of `ptbrowse dump`, `index`,
# `info` and the headless browser (--script) on inputs a capture can
# produce: nothing, the wrong kind of file, garbage, truncation at every
# byte, reserved payloads, a sparse trace past 4 GiB, a file that shrinks
# or grows while open, an unusable state directory, a corrupted index
# cache, no terminal, a 1x1 terminal, a non-UTF-8 locale.  No case may end
# in a signal.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
tmp=$(mktemp -d)
mnt=
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
chmod 755 "$tmp"
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
npass=0 nfail=0 status=0
row=

pass() { npass=$((npass + 1)); echo "ok    $row${1:+: $1}"; }
fail() { nfail=$((nfail + 1)); status=1; echo "FAIL  $row: $*"; }
skip() { echo "skip  $row: $*"; }

# run CMD...: stdout to $tmp/out, stderr to $tmp/err, status in $rc; a
# signal is always a failure.
run() {
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ $rc -ge 124 ]; then
		fail "'$*' ended with status $rc (signal or timeout): $(head -c 300 "$tmp/err")"
		return 1
	fi
	return 0
}

# expect STATUS MESSAGE CMD...: exit STATUS and stderr exactly MESSAGE
# (one line).
expect() {
	want_rc=$1 want=$2
	shift 2
	run "$@" || return 1
	got=$(cat "$tmp/err")
	if [ $rc -ne "$want_rc" ] || [ "$got" != "$want" ]; then
		fail "'$*': exit $rc (want $want_rc), stderr '$got' (want '$want')"
		return 1
	fi
	return 0
}

# expect_first STATUS LINE CMD...: exit STATUS, first stderr line LINE
# (usage text may follow).
expect_first() {
	want_rc=$1 want=$2
	shift 2
	run "$@" || return 1
	got=$(head -n 1 "$tmp/err")
	if [ $rc -ne "$want_rc" ] || [ "$got" != "$want" ]; then
		fail "'$*': exit $rc (want $want_rc), first stderr line '$got' (want '$want')"
		return 1
	fi
	return 0
}

# The browser on a script of keys, quitting at the end.
keys=$tmp/keys
printf ':save-screen %s\nq\n' "$tmp/screen.txt" >"$keys"
browse() { rm -f "$tmp/screen.txt"; "$PTBROWSE" --no-index --script "$keys" --size 80x24 "$@"; }

# Every command on one input: expect_all STATUS MSG_DUMP MSG_INDEX MSG_INFO MSG_BROWSE FILE
expect_all() {
	ok=1
	expect "$1" "$2" "$PTBROWSE" dump "$6" || ok=0
	expect "$1" "$3" "$PTBROWSE" index --no-cache "$6" || ok=0
	expect "$1" "$4" "$PTBROWSE" info "$6" || ok=0
	expect "$1" "$5" browse "$6" || ok=0
	[ $ok = 1 ] && pass
}

[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
"$GEN" --seed 3 --size 600 -o "$tmp/small.pt" || exit 1
"$GEN" --seed 4 --size 64KiB --psb-period 1024 -o "$tmp/mid.pt" || exit 1

row=no_argument
ok=1
expect_first 2 "ptbrowse dump: no trace given" "$PTBROWSE" dump || ok=0
expect_first 2 "ptbrowse index: no trace given" "$PTBROWSE" index || ok=0
expect_first 2 "ptbrowse info: no trace given" "$PTBROWSE" info || ok=0
expect_first 2 "ptbrowse: no trace given" "$PTBROWSE" --script "$keys" || ok=0
[ $ok = 1 ] && pass

# Numbers parsed by hand refuse what is not one (--threads abc ran with
# one per CPU; --stress-save -1 meant 2^64 - 1 saves; --size 80x24junk).
row=bad_numbers
ok=1
for v in abc 4x '' 0 -1 99999999999999999999; do
	expect 2 "ptbrowse index: --threads: bad argument: $v (a number from 1 to 1024)" \
		"$PTBROWSE" index --no-cache --threads "$v" "$tmp/small.pt" || ok=0
done
expect 2 "ptbrowse marks: --stress-save: bad count '-1'" \
	"$PTBROWSE" marks --stress-save -1 "$tmp/small.pt" || ok=0
expect 2 "ptbrowse: --size 80x24junk: want COLSxROWS, e.g. 120x40" \
	"$PTBROWSE" --no-state --size 80x24junk "$tmp/small.pt" || ok=0
[ $ok = 1 ] && pass

row=missing_file
f=$tmp/missing.pt
expect_all 1 "ptbrowse dump: $f: No such file or directory" \
	"ptbrowse index: $f: No such file or directory" \
	"ptbrowse info: $f: No such file or directory" \
	"ptbrowse: $f: No such file or directory" "$f"

row=directory
mkdir "$tmp/dir.pt"
f=$tmp/dir.pt
expect_all 1 "ptbrowse dump: $f: is a directory, not a trace file" \
	"ptbrowse index: $f: is a directory, not a trace file" \
	"ptbrowse info: $f: is a directory, not a trace file" \
	"ptbrowse: $f: is a directory, not a trace file" "$f"

row=fifo
f=$tmp/fifo.pt
if mkfifo "$f" 2>/dev/null; then
	# dump, index and info read a FIFO whole, as a pipe (t_dump_pipe): one
	# a writer closes at once is empty; standard input (-) from /dev/null
	# too.  The browser refuses a FIFO (its keys need the terminal).
	ok=1
	for c in dump index info; do
		timeout 20 sh -c ': >"$1"' sh "$f" &
		if [ $c = index ]; then
			expect 1 "ptbrowse index: $f: empty (0 bytes), no trace came through it" \
				"$PTBROWSE" index --no-cache "$f" || ok=0
		else
			expect 1 "ptbrowse $c: $f: empty (0 bytes), no trace came through it" \
				"$PTBROWSE" $c "$f" || ok=0
		fi
		wait
		expect 1 "ptbrowse $c: standard input (-): empty (0 bytes), no trace came through it" \
			"$PTBROWSE" $c - || ok=0
	done
	expect 1 "ptbrowse: $f: is a FIFO, not a regular file (save the stream to a file first)" \
		browse "$f" || ok=0
	[ $ok = 1 ] && pass
else
	skip "mkfifo failed"
fi

row=no_read_permission
f=$tmp/noperm.pt
cp "$tmp/small.pt" "$f" && chmod 000 "$f"
if [ "$(id -u)" != 0 ]; then
	expect_all 1 "ptbrowse dump: $f: Permission denied" "ptbrowse index: $f: Permission denied" \
		"ptbrowse info: $f: Permission denied" "ptbrowse: $f: Permission denied" "$f"
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	# root reads anything: drop to nobody for this row
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	ok=1
	expect 1 "ptbrowse dump: $f: Permission denied" nobody "$PTBROWSE" dump "$f" || ok=0
	expect 1 "ptbrowse index: $f: Permission denied" nobody "$PTBROWSE" index --no-cache "$f" || ok=0
	expect 1 "ptbrowse info: $f: Permission denied" nobody "$PTBROWSE" info "$f" || ok=0
	expect 1 "ptbrowse: $f: Permission denied" nobody "$PTBROWSE" --no-state --script "$keys" "$f" || ok=0
	[ $ok = 1 ] && pass "as nobody (setpriv)"
else
	skip "running as root and setpriv cannot drop to nobody: permissions cannot be denied"
fi

row=empty_file
f=$tmp/empty.pt
: >"$f"
m="$f: empty file (0 bytes), nothing to show"
expect_all 1 "ptbrowse dump: $m" "ptbrowse index: $m" "ptbrowse info: $m" "ptbrowse: $m" "$f"

# No PSB anywhere: dump prints nothing and says why; index says the same;
# info reports 0 PSBs, says the same and exits 1; the browser shows one
# error row, not a crash.
nopsb_row() {
	f=$1
	m="$f: no PSB found: this is not an Intel PT trace, or it starts mid-stream without a synchronisation point"
	ok=1
	expect 0 "ptbrowse dump: $m" "$PTBROWSE" dump "$f" || ok=0
	[ -s "$tmp/out" ] && { fail "dump printed packets: $(head -n 1 "$tmp/out")"; ok=0; }
	expect 0 "ptbrowse index: $m" "$PTBROWSE" index --no-cache "$f" || ok=0
	grep -q '^  psbs:     0$' "$tmp/out" || { fail "index: no 'psbs: 0' line"; ok=0; }
	expect 1 "ptbrowse info: $m" "$PTBROWSE" info --json "$f" || ok=0
	grep -q '"psbs": *0' "$tmp/out" || { fail "info --json: no '\"psbs\": 0'"; ok=0; }
	expect 0 "" browse "$f" || ok=0
	[ -s "$tmp/screen.txt" ] || { fail "browser: no screen"; ok=0; }
	# with its index, the browser says why there is nothing to decode
	printf 'wait-index\n:save-screen %s\nq\n' "$tmp/screen.txt" >"$tmp/keysn"
	rm -f "$tmp/screen.txt"
	expect 0 "" "$PTBROWSE" --no-state --script "$tmp/keysn" --size 300x24 "$f" || ok=0
	msg=$(tail -n 1 "$tmp/screen.txt" | sed 's/ *$//')
	[ "$msg" = "$(basename "$f"): no PSB found: this is not an Intel PT trace, or it starts mid-stream without a synchronisation point" ] ||
		{ fail "browser: message '$msg'"; ok=0; }
	[ $ok = 1 ] && pass
}

row=zeros
head -c 65536 /dev/zero >"$tmp/zeros.pt"
nopsb_row "$tmp/zeros.pt"

row=random_bytes
# awk's generator with a fixed seed: the same bytes on every run.
LC_ALL=C awk 'BEGIN { srand(9); for (i = 0; i < 16384; i++) printf "%c", int(rand() * 256) }' \
	</dev/null >"$tmp/random.pt"
nopsb_row "$tmp/random.pt"

row=no_psb
printf 'this is a text file, not a trace\n' >"$tmp/text.pt"
nopsb_row "$tmp/text.pt"

row=psb_cut_in_half
# A whole trace, then the first 8 bytes of a PSB: the last line is the
# truncated packet at the cut PSB's offset.
cat "$tmp/small.pt" >"$tmp/half.pt"
head -c 8 "$tmp/small.pt" >>"$tmp/half.pt"
ok=1
expect 0 "" "$PTBROWSE" dump "$tmp/half.pt" || ok=0
[ "$(tail -n 1 "$tmp/out")" = "[258: error decoding packet: truncated packet]" ] ||
	{ fail "dump's last line: $(tail -n 1 "$tmp/out")"; ok=0; }
expect 0 "" "$PTBROWSE" index --no-cache "$tmp/half.pt" || ok=0
grep -q '^  errors:   1$' "$tmp/out" || { fail "index does not count 1 error"; ok=0; }
# only half a PSB: no PSB at all
head -c 8 "$tmp/small.pt" >"$tmp/halfonly.pt"
expect 0 "ptbrowse dump: $tmp/halfonly.pt: no PSB found: this is not an Intel PT trace, or it starts mid-stream without a synchronisation point" \
	"$PTBROWSE" dump "$tmp/halfonly.pt" || ok=0
[ $ok = 1 ] && pass

row=truncated_at_every_byte
# Every prefix of a small trace: dump decodes up to the cut and ends with
# "[OFFSET: error decoding packet: truncated packet]" where OFFSET is the
# cut packet's (or with the last whole packet if the cut is on a packet
# boundary); prefixes shorter than the first PSB print nothing.
"$PTBROWSE" dump "$tmp/small.pt" >"$tmp/full"
for o in $(awk '/^[0-9a-f]/ { print $1 }' "$tmp/full"); do
	echo $((0x$o))
done >"$tmp/offsets"
size=$(wc -c <"$tmp/small.pt")
# The last line each prefix should end with, for every L at once (one awk
# for all 600 prefixes keeps this row fast):
awk -v size="$size" '
	FILENAME == ARGV[1] { offs[++n] = $1; next }
	/^[0-9a-f]/ { o = 0; h = $1
		for (k = 1; k <= length(h); k++) o = o * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1
		line[o] = $0 }
	END {
		for (L = 1; L <= size; L++) {
			start = -1; on = 0
			for (i = 1; i <= n && offs[i] < L; i++) start = offs[i]
			for (i = 1; i <= n; i++) if (offs[i] == L) on = 1
			if (L < 16) want = ""
			else if (on || L == size) want = line[start]
			else want = sprintf("[%x: error decoding packet: truncated packet]", start)
			print L "\t" want
		}
	}' "$tmp/offsets" "$tmp/full" >"$tmp/want.all"
ok=1 n=0 L=1
: >"$tmp/got.all"
while [ $L -le "$size" ]; do
	head -c $L "$tmp/small.pt" >"$tmp/cut.pt"
	"$PTBROWSE" dump "$tmp/cut.pt" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "cut at $L: exit $rc: $(head -n 1 "$tmp/err")"; ok=0; break
	fi
	printf '%s\t%s\n' $L "$(tail -n 1 "$tmp/out")" >>"$tmp/got.all"
	# and the index agrees on the error count now and then
	if [ $((L % 37)) -eq 0 ]; then
		"$PTBROWSE" index --no-cache "$tmp/cut.pt" >"$tmp/out" 2>"$tmp/err" </dev/null
		[ $? -lt 124 ] || { fail "index on cut at $L died"; ok=0; break; }
	fi
	n=$((n + 1))
	L=$((L + 1))
done
if [ $ok = 1 ] && ! cmp -s "$tmp/want.all" "$tmp/got.all"; then
	d=$(diff "$tmp/want.all" "$tmp/got.all" | sed -n 2,3p | tr '\n' ' ')
	fail "cut: last lines differ (< want, > got): $d"; ok=0
fi
[ $ok = 1 ] && pass "$n prefixes"

row=reserved_ip_compression
# PSB, PSBEND, then TIPs with IPC 101 and 111 (reserved).
psb='\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202'
ok=1
for opc in '\255' '\355'; do
	printf "$psb"'\002\043'"$opc"'\021\042\063\104\125\146\167\210' >"$tmp/ipc.pt"
	expect 0 "" "$PTBROWSE" dump "$tmp/ipc.pt" || ok=0
	# in libipt's words, as ptdump prints it
	printf '0000000000000000  psb\n0000000000000010  psbend\n[12: error decoding packet: unknown packet]\n' \
		>"$tmp/want"
	cmp -s "$tmp/want" "$tmp/out" || { fail "dump: $(cat "$tmp/out")"; ok=0; }
done
expect 0 "" "$PTBROWSE" index --no-cache "$tmp/ipc.pt" || ok=0
grep -q '^  errors:   1$' "$tmp/out" || { fail "index does not count the error"; ok=0; }
[ $ok = 1 ] && pass

row=larger_than_4GiB
# A sparse file of 4 GiB + 128 KiB: a trace at 0 ending in a bad opcode
# (so the 4 GiB hole is skipped, not decoded as PADs), another trace at
# 4 GiB + 4 KiB.  The index finds its PSBs at their 64-bit offsets (the
# browser's "goto psb 1" lands there, offsets shown in full) and dump
# decodes a range past 4 GiB.
big=$tmp/big.pt
hi=$((4 * 1024 * 1024 * 1024 + 4096))
if truncate -s $((4 * 1024 * 1024 * 1024 + 131072)) "$big" 2>/dev/null &&
   dd if="$tmp/small.pt" of="$big" conv=notrunc 2>/dev/null &&
   printf '\002\377' | dd of="$big" bs=1 seek=600 conv=notrunc 2>/dev/null &&
   dd if="$tmp/mid.pt" of="$big" bs=4096 seek=$((hi / 4096)) conv=notrunc 2>/dev/null; then
	ok=1
	expect 0 "" "$PTBROWSE" dump "$big:$(printf '0x%x' $((hi - 16)))-$(printf '0x%x' $((hi + 64)))" || ok=0
	[ "$(head -n 1 "$tmp/out")" = "$(printf '%016x' $hi)  psb" ] ||
		{ fail "dump past 4 GiB: $(head -n 2 "$tmp/out")"; ok=0; }
	# the same packets as mid.pt alone
	"$PTBROWSE" dump "$tmp/mid.pt:0-0x40" | sed -n 2p | cut -c17- >"$tmp/want"
	sed -n 2p "$tmp/out" | cut -c17- | cmp -s - "$tmp/want" ||
		{ fail "dump past 4 GiB differs: $(sed -n 2p "$tmp/out")"; ok=0; }
	# psb 0 is small.pt's; psb N is mid.pt's last
	n=$("$PTBROWSE" dump "$tmp/mid.pt" | grep -c ' psb$')
	last=$("$PTBROWSE" dump "$tmp/mid.pt" | grep ' psb$' | tail -n 1 | cut -c1-16)
	printf 'wait-index\n:goto psb 1\n:save-screen %s\n:goto psb %s\n:save-screen %s\nq\n' \
		"$tmp/b1.txt" "$n" "$tmp/b2.txt" >"$tmp/keysb"
	expect 0 "" "$PTBROWSE" --no-state --ascii --script "$tmp/keysb" --size 100x12 "$big" || ok=0
	grep -q "^> .0x100001000  psb" "$tmp/b1.txt" 2>/dev/null ||
		{ fail "goto psb 1: $(grep '^>' "$tmp/b1.txt" 2>/dev/null)"; ok=0; }
	grep -q "^> .$(printf '0x%x' $((hi + 0x$last)))  psb" "$tmp/b2.txt" 2>/dev/null ||
		{ fail "goto psb $n: $(grep '^>' "$tmp/b2.txt" 2>/dev/null)"; ok=0; }
	[ $ok = 1 ] && pass
	rm -f "$big"
else
	skip "no sparse 4 GiB file here (truncate or dd failed)"
fi

row=shrinks_while_open
# The deterministic part is tests/test_sigbus.c (trace_guard, the index
# builder, trace_refresh).  Here: dump and index of a trace cut short by
# another process while they read it either finish or say so; never a
# SIGBUS.  Which one happens depends on timing; both are right.
"$GEN" --seed 5 --size 32MiB -o "$tmp/shrink.pt" || exit 1
ok=1
for cmd in dump index; do
	cp "$tmp/shrink.pt" "$tmp/s.pt"
	( sleep 0.2; truncate -s 4096 "$tmp/s.pt" ) &
	if [ $cmd = dump ]; then
		"$PTBROWSE" dump "$tmp/s.pt" >/dev/null 2>"$tmp/err" </dev/null
	else
		"$PTBROWSE" index --no-cache --threads 2 "$tmp/s.pt" >/dev/null 2>"$tmp/err" </dev/null
	fi
	rc=$?
	wait
	case $cmd:$rc in
	dump:0|index:0) ;;
	dump:1) [ "$(cat "$tmp/err")" = "ptbrowse dump: $tmp/s.pt: the file shrank while being read" ] ||
			{ fail "dump: $(cat "$tmp/err")"; ok=0; } ;;
	index:*) [ "$(head -n 1 "$tmp/err")" = "ptbrowse index: $tmp/s.pt: the file shrank while being indexed" ] ||
			{ fail "index: exit $rc: $(cat "$tmp/err")"; ok=0; } ;;
	*) fail "$cmd: exit $rc: $(cat "$tmp/err")"; ok=0 ;;
	esac
	[ $rc -ge 124 ] && { fail "$cmd died with status $rc"; ok=0; }
done
rm -f "$tmp/shrink.pt" "$tmp/s.pt"
[ $ok = 1 ] && pass

# Drive the browser through a FIFO: feed KEYS..., wait for screen FILE.
# start_browser STATE_DIR ARGS...
start_browser() {
	rm -f "$tmp/kf"
	mkfifo "$tmp/kf" || return 1
	( export XDG_STATE_HOME="$1" TMPDIR="$tmp"; shift
	  timeout 60 "$PTBROWSE" --script "$tmp/kf" --size 400x20 "$@" >"$tmp/bout" 2>&1
	  echo $? >"$tmp/brc" ) &
	exec 3>"$tmp/kf"
}
send() { printf '%s\n' "$@" >&3; }
wait_screen() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}
stop_browser() {
	send q
	exec 3>&-
	wait
	[ "$(cat "$tmp/brc")" = 0 ] || fail "browser: exit $(cat "$tmp/brc"): $(cat "$tmp/bout")"
}

row=grows_while_open
# The index cache carries over to the grown trace ("index grown"); the
# browser's reload (R) offers the new tail.
cp "$tmp/mid.pt" "$tmp/grow.pt"
ok=1
expect 0 "" "$PTBROWSE" index "$tmp/grow.pt" || ok=0
cat "$tmp/small.pt" >>"$tmp/grow.pt"
expect 0 "" "$PTBROWSE" index "$tmp/grow.pt" || ok=0
grep -q "^stream:   raw (66136 bytes, index grown)" "$tmp/out" || { fail "index: $(sed -n 3p "$tmp/out")"; ok=0; }
grep -q '^  psbs:     65$' "$tmp/out" || { fail "index: $(grep psbs "$tmp/out")"; ok=0; }
cp "$tmp/mid.pt" "$tmp/grow.pt"
start_browser "$XDG_STATE_HOME" --no-state "$tmp/grow.pt"
send ":save-screen $tmp/g1.txt"
wait_screen "$tmp/g1.txt" || { fail "no first screen"; ok=0; }
cat "$tmp/small.pt" >>"$tmp/grow.pt"
send R ":save-screen $tmp/g3.txt" G ":save-screen $tmp/g2.txt"
wait_screen "$tmp/g2.txt"
stop_browser
[ $ok = 1 ] && pass "index"
row=grows_while_open_browser
msg=$(tail -n 1 "$tmp/g3.txt" 2>/dev/null | sed 's/ *$//')
if ! grep -q "0x10258" "$tmp/g2.txt" 2>/dev/null; then
	fail "R did not reload: '$msg'"
elif [ "$msg" != "reloaded: $(wc -c <"$tmp/small.pt") new bytes (now $(wc -c <"$tmp/grow.pt"))" ]; then
	fail "R: message '$msg'"
else
	pass "R offers the new tail"
fi

row=shrinks_while_open_browser
# The browser reads where the file no longer is: it maps what is left,
# says so, goes on, and the marks set before are still saved (in the file
# of the content they were set on: as after R on a shorter file, said
# not to apply to what is left, last, where it shows).
"$GEN" --seed 5 --size 4MiB -o "$tmp/shr.pt" || exit 1
ok=1
start_browser "$tmp/shrstate" "$tmp/shr.pt"
send "m a" ":save-screen $tmp/h1.txt"
wait_screen "$tmp/h1.txt" || { fail "no first screen"; ok=0; }
truncate -s 4096 "$tmp/shr.pt"
send ":goto 90%" ":save-screen $tmp/h2.txt" "j j" ":save-screen $tmp/h3.txt" \
	":messages" ":save-screen $tmp/h4.txt" q
wait_screen "$tmp/h4.txt"
stop_browser
msg=$(tail -n 1 "$tmp/h2.txt" | sed 's/ *$//')
case $msg in
"warning: $tmp/shr.pt changed since marks were saved for it (then 4194304 bytes, now 4096); those marks stay in "*) ;;
*) fail "message: '$msg'"; ok=0 ;;
esac
grep -q "$tmp/shr.pt: the file shrank from 4194304 to 4096 bytes; showing what is left" "$tmp/h4.txt" ||
	{ fail "messages: $(cat "$tmp/h4.txt")"; ok=0; }
grep -q '/0x1000 ' "$tmp/h3.txt" || { fail "still the old size: $(tail -n 2 "$tmp/h3.txt")"; ok=0; }
# The file of the content the mark was set on (4 MiB), the only one.
f=$(grep -l ' size=4194304 ' $(find "$tmp/shrstate" -name '*.marks') 2>/dev/null)
[ "$(find "$tmp/shrstate" -name '*.marks' | wc -l)" = 1 ] ||
	{ fail "marks files: $(find "$tmp/shrstate" -name '*.marks')"; ok=0; }
grep -q '^mark a 0x0$' "$f" 2>/dev/null || { fail "marks file: $(cat "$f" 2>&1)"; ok=0; }
[ $ok = 1 ] && pass

row=state_dir_unwritable
# The state directory's parent is a file: marks cannot be saved; the
# browser says so, keeps them in memory, and saves them all once the
# directory can be made.
ok=1
: >"$tmp/blocker"
start_browser "$tmp/blocker/state" "$tmp/small.pt"
send "m a" ":save-screen $tmp/s1.txt"
wait_screen "$tmp/s1.txt" || { fail "no screen"; ok=0; }
msg=$(tail -n 1 "$tmp/s1.txt" | sed 's/ *$//')
case $msg in
"marks not saved: cannot create directory $tmp/blocker/state: Not a directory; they are kept in memory"*) ;;
*) fail "message: '$msg'"; ok=0 ;;
esac
rm "$tmp/blocker" && mkdir "$tmp/blocker"
send "j j m b" ":save-screen $tmp/s2.txt"
wait_screen "$tmp/s2.txt"
stop_browser
f=$(find "$tmp/blocker/state" -name '*.marks' 2>/dev/null | head -n 1)
if [ -z "$f" ]; then
	fail "no marks file after the directory became writable"; ok=0
else
	grep -q '^mark a 0x0$' "$f" && grep -q '^mark b 0x11$' "$f" ||
		{ fail "marks file: $(cat "$f")"; ok=0; }
fi
[ $ok = 1 ] && pass

row=state_dir_read_only_or_full
# A tiny tmpfs, full and then read-only (needs mount: root outside CI
# sandboxes).
mnt=$tmp/mnt
mkdir -p "$mnt"
if mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
	ok=1
	mkdir -p "$mnt/state/ptbrowse/traces"
	dd if=/dev/zero of="$mnt/fill" bs=4096 2>/dev/null
	start_browser "$mnt/state" "$tmp/small.pt"
	send "m a" ":save-screen $tmp/f1.txt"
	wait_screen "$tmp/f1.txt" || { fail "no screen"; ok=0; }
	msg=$(tail -n 1 "$tmp/f1.txt" | sed 's/ *$//')
	case $msg in
	"marks not saved: $mnt/state/ptbrowse/traces/"*": cannot write it: No space left on device; they are kept in memory"*) ;;
	*) fail "full: message '$msg'"; ok=0 ;;
	esac
	rm -f "$mnt/fill"
	send "j j m b" ":save-screen $tmp/f2.txt"
	wait_screen "$tmp/f2.txt"
	mount -o remount,ro "$mnt" 2>/dev/null
	send "j m c" ":save-screen $tmp/f3.txt"
	wait_screen "$tmp/f3.txt"
	msg3=$(tail -n 1 "$tmp/f3.txt" | sed 's/ *$//')
	# mark c never made it to disk: the browser says so as it ends, exit 1
	send q
	exec 3>&-
	wait
	[ "$(cat "$tmp/brc")" = 1 ] && grep -q "^ptbrowse: marks not saved: .*Read-only file system" "$tmp/bout" ||
		{ fail "read-only: at exit $(cat "$tmp/brc"): $(cat "$tmp/bout")"; ok=0; }
	f=$(find "$mnt/state" -name '*.marks' | head -n 1)
	if [ -z "$f" ] || ! grep -q '^mark a 0x0$' "$f" || ! grep -q '^mark b 0x11$' "$f"; then
		fail "after space was freed, the marks file is '$(cat "$f" 2>/dev/null)'"; ok=0
	fi
	case $msg3 in
	"marks not saved: $mnt/state/ptbrowse/traces/"*": cannot create a temporary file beside it: Read-only file system; they are kept in memory"*) ;;
	*) fail "read-only: message '$msg3'"; ok=0 ;;
	esac
	umount "$mnt" && mnt=
	[ $ok = 1 ] && pass
else
	skip "cannot mount a tmpfs here (not root, or a sandbox)"
	mnt=
fi

row=corrupted_index_cache
ok=1
# a cache of its own (grow.pt above shares mid.pt's first 64 KiB, so its
# cache file would be found and rightly ignored as "trace changed")
export XDG_CACHE_HOME=$tmp/cache2
cp "$tmp/mid.pt" "$tmp/cache.pt"
expect 0 "" "$PTBROWSE" index "$tmp/cache.pt" || ok=0
c=$(find "$XDG_CACHE_HOME" -name '*.idx' | head -n 1)
if [ -z "$c" ]; then
	fail "no cache file"; ok=0
else
	for how in flip truncate garbage; do
		case $how in
		flip) printf '\132' | dd of="$c" bs=1 seek=300 conv=notrunc 2>/dev/null; why=corrupt ;;
		truncate) head -c 100 "$c" >"$c.t" && mv "$c.t" "$c"; why=truncated ;;
		garbage) printf 'garbage' >"$c"; why=truncated ;;
		esac
		expect 0 "ptbrowse index: $tmp/cache.pt: index cache ignored ($why), rebuilding it" \
			"$PTBROWSE" index "$tmp/cache.pt" || ok=0
		grep -q "index built" "$tmp/out" || { fail "$how: $(sed -n 3p "$tmp/out")"; ok=0; }
		expect 0 "" "$PTBROWSE" index "$tmp/cache.pt" || ok=0
		grep -q "index hit" "$tmp/out" || { fail "$how: not rewritten"; ok=0; }
	done
fi
[ $ok = 1 ] && pass

row=term_unset_or_dumb
ok=1
expect 2 "ptbrowse: TERM is not set: the browser needs a terminal that can move the cursor (try 'ptbrowse dump' or --script)" \
	"$PTBROWSE" --no-state "$tmp/small.pt" || ok=0
expect 2 "ptbrowse: TERM is 'dumb': the browser needs a terminal that can move the cursor (try 'ptbrowse dump' or --script)" \
	env TERM=dumb "$PTBROWSE" --no-state "$tmp/small.pt" || ok=0
expect 0 "" env TERM=dumb "$PTBROWSE" --no-state --script "$keys" "$tmp/small.pt" || ok=0
[ $ok = 1 ] && pass

row=terminal_1x1
printf ':save-screen %s\nj G g } {\nresize=1x1\n:save-screen %s\nresize=2x2\nj\nresize=80x24\n:save-screen %s\nq\n' \
	"$tmp/t1.txt" "$tmp/t2.txt" "$tmp/t3.txt" >"$tmp/keys1"
ok=1
expect 0 "" "$PTBROWSE" --no-state --script "$tmp/keys1" --size 1x1 "$tmp/mid.pt" || ok=0
for s in t1 t2 t3; do [ -f "$tmp/$s.txt" ] || { fail "no screen $s"; ok=0; }; done
[ "$(wc -c <"$tmp/t1.txt")" -le 4 ] || { fail "1x1 screen holds $(wc -c <"$tmp/t1.txt") bytes"; ok=0; }
[ $ok = 1 ] && pass

# A trace whose TSCs all come early, then only PADs where they were, and
# one whose 02 82 runs (1 MiB each) hold 65536 PSBs: `info` counts and
# finds the end time in one pass (it was quadratic: minutes at this size).
row=info_long_tails
ok=1
"$PTBROWSE" dump "$tmp/mid.pt" | awk '$2 == "tsc" { n++; if (n > 2) print $1 }' |
	perl -e 'open(F, "<", $ARGV[0]) or die; binmode F; { local $/; $d = <F>; }
		while (<STDIN>) { substr($d, hex($_), 8) = "\0" x 8 }
		open(G, ">", $ARGV[1]) or die; binmode G; print G $d' \
		"$tmp/mid.pt" "$tmp/notsc.pt" || { fail "cannot make the trace"; ok=0; }
perl -e 'print "\x02\x82" x 524288' >"$tmp/run.pt"
cat "$tmp/run.pt" "$tmp/notsc.pt" "$tmp/run.pt" >"$tmp/runs.pt"
expect 0 "" timeout 120 "$PTBROWSE" info --json "$tmp/notsc.pt" || ok=0
last=$(sed -n 's/.*"last_tsc": *\([0-9]*\).*/\1/p' "$tmp/out")
psbs=$(sed -n 's/.*"psbs": *\([0-9]*\).*/\1/p' "$tmp/out")
want=$("$PTBROWSE" dump --cycles "$tmp/notsc.pt" | tail -n 1 | awk '{ print $2 }')
[ -n "$last" ] && [ "$(printf '%016x' "$last")" = "${want%.*}" ] ||
	{ fail "notsc: last_tsc '$last', dump's last estimate $want"; ok=0; }
expect 0 "" timeout 120 "$PTBROWSE" info --json "$tmp/runs.pt" || ok=0
grep -q "\"psbs\": $((psbs + 131072)), .*\"last_tsc\": $last," "$tmp/out" ||
	{ fail "runs: want $((psbs + 131072)) PSBs, last_tsc $last: $(cat "$tmp/out")"; ok=0; }
[ $ok = 1 ] && pass

row=non_utf8_locale
ok=1
printf ':save-screen %s\n} j m a\n:save-screen %s\nF1\n:save-screen %s\nq\n' \
	"$tmp/c1.txt" "$tmp/c2.txt" "$tmp/c3.txt" >"$tmp/keysc"
expect 0 "" env LC_ALL=C LANG=C "$PTBROWSE" --no-state --script "$tmp/keysc" "$tmp/mid.pt" || ok=0
for s in c1 c2 c3; do
	[ -s "$tmp/$s.txt" ] || { fail "no screen $s"; ok=0; continue; }
	if LC_ALL=C grep -q '[^ -~]' "$tmp/$s.txt"; then
		fail "screen $s holds non-ASCII bytes under LC_ALL=C"; ok=0
	fi
done
[ $ok = 1 ] && pass

echo "$npass passed, $nfail failed"
exit $status
