#!/bin/sh
# t_ui_script -- the headless mode: a fixed script on a shared trace gives
# the screens in tests/golden/ui_script/, with no terminal and TERM unset.
# UPDATE=1 rewrites the golden screens (look at them before committing).
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin
OPTS="--cpu 6/85/7 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"
golden=tests/golden/ui_script
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0

fail() { echo "FAIL: $*"; status=1; }

cat > "$tmp/keys" <<EOF
# wait for the index so ordinals and the timeline are complete
wait-index
:save-screen $tmp/start.txt
} j j j
:save-screen $tmp/psb.txt
50%
:save-screen $tmp/half.txt
G
:save-screen $tmp/end.txt
g 3 0 j m a 2 0 j
:save-screen $tmp/mark.txt
:goto 0x40
:set raw on
:save-screen $tmp/raw.txt
:set raw off
F1
:save-screen $tmp/help.txt
q
resize=40x10
:save-screen $tmp/small.txt
resize=1x1
:save-screen $tmp/tiny.txt
q
EOF
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 $OPTS "$T" \
	> "$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
for s in start psb half end mark raw help small tiny; do
	if [ "${UPDATE:-}" = 1 ]; then
		mkdir -p "$golden" && cp "$tmp/$s.txt" "$golden/$s.txt"
		continue
	fi
	[ -f "$tmp/$s.txt" ] || { fail "no screen $s"; continue; }
	diff -u "$golden/$s.txt" "$tmp/$s.txt" || fail "screen $s differs"
done

# The same in ASCII: not one byte outside ASCII.
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii --script "$tmp/keys" --size 100x30 \
	$OPTS "$T" > "$tmp/out" 2>&1 || fail "--ascii: exit status $?"
if LC_ALL=C grep -q '[^ -~]' "$tmp/start.txt" "$tmp/psb.txt" "$tmp/help.txt"; then
	fail "--ascii screens hold non-ASCII bytes"
fi
grep -q psb "$tmp/psb.txt" || fail "--ascii psb screen"

# Without a terminal the interactive browser says so in one line.
"$PTBROWSE" "$T" < /dev/null > "$tmp/out" 2>&1 && fail "no terminal: exit 0"
grep -q 'TERM' "$tmp/out" || fail "no TERM: $(cat "$tmp/out")"
TERM=dumb "$PTBROWSE" "$T" < /dev/null > "$tmp/out" 2>&1 && fail "dumb: exit 0"
grep -q "'dumb'" "$tmp/out" || fail "TERM=dumb: $(cat "$tmp/out")"
[ "$(wc -l < "$tmp/out")" -eq 1 ] || fail "TERM=dumb: more than one line"

# A missing trace: one line naming the file.
"$PTBROWSE" --script "$tmp/keys" /nonexistent.pt > "$tmp/out" 2>&1 && fail "missing file: exit 0"
grep -q '/nonexistent.pt' "$tmp/out" || fail "missing file: $(cat "$tmp/out")"
# A bad script key file.
"$PTBROWSE" --script /nonexistent.keys "$T" > "$tmp/out" 2>&1 && fail "missing script: exit 0"
grep -q '/nonexistent.keys' "$tmp/out" || fail "missing script: $(cat "$tmp/out")"

[ $status = 0 ] && echo ok
exit $status
