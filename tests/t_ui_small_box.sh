#!/bin/sh
# t_ui_small_box -- keys on the too-small screen ("need 20x6") with the
# region summary box up, headless (--script): they never reach the
# browser hidden under it through the box (its key op passes keys on to
# the browser: G moved the cursor from 0x2000 to the trace's end), and q
# still quits there, as over the browser.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
ok() { echo "ok   $*"; }
T=$tmp/r.pt
"$BUILD/tools/ptgen" --size 256KiB -o "$T" >/dev/null 2>&1 || { echo "FAIL ptgen"; exit 1; }

# run: the keys in $tmp/keys on $T at 100x30
run() {
	"$PTBROWSE" --no-state --size 100x30 --script "$tmp/keys" "$T" >"$tmp/out" 2>&1 ||
		bad "script: $(cat "$tmp/out")"
}

# G and j on the too-small screen, the box up: the cursor stays at 0x2000
cat > "$tmp/keys" <<EOF
:region hot 0x1000 0x8000
:goto 0x2000
resize=15x5
G
j
resize=100x30
:save-screen $tmp/s.txt
EOF
run
if ! grep -Eq '^ 0x0*2000/0x' "$tmp/s.txt"; then
	bad "keys on the too-small screen moved the cursor: $(grep -E '^ 0x' "$tmp/s.txt")"
elif ! grep -q 'region hot  0x1000-0x8000' "$tmp/s.txt"; then
	bad "no region box after the resize: $(cat "$tmp/s.txt")"
fi

# q there quits (the box does not take it)
cat > "$tmp/keys" <<EOF
:region hot 0x1000 0x8000
:goto 0x2000
resize=15x5
q
resize=100x30
:save-screen $tmp/q.txt
EOF
run
[ -e "$tmp/q.txt" ] && bad "q on the too-small screen with the box up did not quit"
[ $fail = 0 ] && ok "the too-small screen over the region box: keys stay off the browser, q quits"
exit $fail
