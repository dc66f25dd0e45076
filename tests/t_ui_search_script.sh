#!/bin/sh
# t_ui_search_script -- search and filter headless (--script, no terminal):
# '/tip' and 'n' land on the tip packets 'ptbrowse dump' lists, the status
# line counts as many tips as dump does, '?' and 'N' go back, wrapping is
# reported, a bad expression is an error, and the filter view lists
# exactly dump's OVFs, row by row, in the packet pane; a search there too
# long together with the filter is refused, and one on a gap in time
# units without a TSC frequency says why.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
PTGEN=$BUILD/tools/ptgen

[ -r "$T" ] || { echo "no trace $T"; exit 1; }
[ -x "$PTGEN" ] || { echo "no $PTGEN"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# The status line (second from the bottom) and the message line.
st() { tail -n 2 "$tmp/$1.txt" | head -n 1; }
msg() { tail -n 1 "$tmp/$1.txt"; }
# The offset in the status line, in decimal.
st_off() { echo $(($(st "$1" | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'))); }

"$PTBROWSE" dump "$T" | awk '$2 == "tip" { print "0x" $1 }' > "$tmp/tips"
ntips=$(wc -l < "$tmp/tips")
tip() { echo $(($(sed -n "$1p" "$tmp/tips"))); }

cat > "$tmp/keys" <<EOK
wait-index
/ t i p Enter
:save-screen $tmp/s1.txt
n
:save-screen $tmp/s2.txt
2 n
wait-search
:save-screen $tmp/s3.txt
? t i p Enter
:save-screen $tmp/s4.txt
N
:save-screen $tmp/s5.txt
g ? t i p Enter
:save-screen $tmp/s6.txt
/ b o g u s Enter
:save-screen $tmp/s7.txt
q
EOK
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 "$T" > "$tmp/out" 2>&1 ||
	fail "exit status $? ($(cat "$tmp/out"))"
[ "$(st_off s1)" -eq "$(tip 1)" ] || fail "/tip: at $(st_off s1), not the first tip $(tip 1)"
[ "$(st_off s2)" -eq "$(tip 2)" ] || fail "n: at $(st_off s2), not the second tip $(tip 2)"
[ "$(st_off s3)" -eq "$(tip 4)" ] || fail "2n: at $(st_off s3), not the fourth tip $(tip 4)"
st s3 | grep -q "/tip \[4/$ntips\]" || fail "the status line does not say [4/$ntips]: $(st s3)"
[ "$(st_off s4)" -eq "$(tip 3)" ] || fail "?tip: at $(st_off s4), not the third tip $(tip 3)"
[ "$(st_off s5)" -eq "$(tip 4)" ] || fail "N after ?: at $(st_off s5), not the fourth tip"
[ "$(st_off s6)" -eq "$(tip "$ntips")" ] || fail "?tip from the start: not the last tip"
msg s6 | grep -q 'search hit TOP, continuing at BOTTOM' || fail "no wrap message: $(msg s6)"
msg s7 | grep -q '^search: .*bogus' || fail "no parser error: $(msg s7)"

# emacs: C-s opens the prompt, C-s in it searches, C-s on an empty line
# repeats; C-r the same backward.
cat > "$tmp/keys" <<EOK
C-s t i p C-s
:save-screen $tmp/e1.txt
C-s C-s
:save-screen $tmp/e2.txt
C-r C-r
:save-screen $tmp/e3.txt
q
EOK
LANG=C.UTF-8 "$PTBROWSE" --keymap emacs --no-state --script "$tmp/keys" --size 120x30 "$T" \
	> "$tmp/out" 2>&1 || fail "emacs: exit status $? ($(cat "$tmp/out"))"
[ "$(st_off e1)" -eq "$(tip 1)" ] || fail "emacs C-s tip C-s: at $(st_off e1), not the first tip"
[ "$(st_off e2)" -eq "$(tip 2)" ] || fail "emacs C-s C-s: at $(st_off e2), not the second tip"
[ "$(st_off e3)" -eq "$(tip 1)" ] || fail "emacs C-r C-r: at $(st_off e3), not the first tip"

# The filter view on a generated trace with OVFs.
"$PTGEN" --seed 5 --size 2MiB --ovf-rate 0.001 -o "$tmp/ovf.pt" > /dev/null || fail "ptgen"
"$PTBROWSE" dump "$tmp/ovf.pt" | awk '$2 == "ovf" { print "0x" $1 }' |
	while read -r o; do echo $((o)); done > "$tmp/ovfs"
cat > "$tmp/keys" <<EOK
:filter ovf
:save-screen $tmp/f1.txt
j
:save-screen $tmp/f2.txt
G
:save-screen $tmp/f3.txt
:goto 50%
:save-screen $tmp/f5.txt
/ t i p Enter
:save-screen $tmp/f6.txt
& Enter
:save-screen $tmp/f4.txt
q
EOK
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 "$tmp/ovf.pt" > "$tmp/out" 2>&1 ||
	fail "exit status $? ($(cat "$tmp/out"))"
rows() {
	head -n 25 "$tmp/$1.txt" | tail -n +3 |
		sed -n 's/^.\{3\}\(0x[0-9a-f]*\)  *\([a-z][a-z0-9.]*\).*/\1 \2/p'
}
[ "$(rows f1 | awk '{ print $2 }' | sort -u)" = ovf ] || fail "the filter view shows other packets"
rows f1 | while read -r o t; do echo $((o)); done > "$tmp/shown"
n=$(wc -l < "$tmp/shown")
[ "$n" -ge 20 ] || fail "the filter view shows $n rows"
head -n "$n" "$tmp/ovfs" | cmp -s - "$tmp/shown" || fail "the filter view's rows are not dump's first OVFs"
st f1 | grep -q 'filter: ovf' || fail "the status line does not say 'filter: ovf'"
[ "$(st_off f2)" -eq "$(sed -n 2p "$tmp/ovfs")" ] || fail "j in the filter view: not the second OVF"
[ "$(st_off f3)" -eq "$(tail -n 1 "$tmp/ovfs")" ] || fail "G in the filter view: not the last OVF"
half=$(awk '$1 >= 1048560 { print; exit }' "$tmp/ovfs")
[ "$(st_off f5)" -eq "$half" ] || fail ":goto 50% in the filter view: at $(st_off f5), not the next OVF $half"
msg f6 | grep -q 'not found: tip (among the filter' || fail "a search in the filter view: $(msg f6)"
[ "$(rows f4 | awk '{ print $2 }' | sort -u | wc -l)" -gt 1 ] || fail "'&' Enter did not clear the filter"
st f4 | grep -q 'filter:' && fail "the status line still names a filter"
# '*' and '#' on an OVF: the next and the previous OVF (a search for the
# type, which 'n' goes on with), far beyond what a packet walk would see.
o5=$(sed -n 5p "$tmp/ovfs")
cat > "$tmp/keys" <<EOK
wait-index
:goto $o5
*
wait-search
:save-screen $tmp/a1.txt
*
wait-search
:save-screen $tmp/a2.txt
n
wait-search
:save-screen $tmp/a3.txt
:prev-same-type
wait-search
:save-screen $tmp/a4.txt
3
*
wait-search
:save-screen $tmp/a5.txt
q
EOK
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 "$tmp/ovf.pt" > "$tmp/out" 2>&1 ||
	fail "star: exit status $? ($(cat "$tmp/out"))"
[ "$(st_off a1)" -eq "$(sed -n 6p "$tmp/ovfs")" ] || fail "'*' on OVF 5: at $(st_off a1), not OVF 6"
[ "$(st_off a2)" -eq "$(sed -n 7p "$tmp/ovfs")" ] || fail "'*' again: at $(st_off a2), not OVF 7"
[ "$(st_off a3)" -eq "$(sed -n 8p "$tmp/ovfs")" ] || fail "'n' after '*': at $(st_off a3), not OVF 8"
[ "$(st_off a4)" -eq "$(sed -n 7p "$tmp/ovfs")" ] || fail "'#' (a script line can't start with it): at $(st_off a4), not OVF 7"
[ "$(st_off a5)" -eq "$(sed -n 10p "$tmp/ovfs")" ] || fail "'3*' from OVF 7: at $(st_off a5), not OVF 10"
st a1 | grep -q '/ovf \[' || fail "'*' does not show the search: $(st a1)"
# A count on a new '*' goes to that hit.
cat > "$tmp/keys" <<EOK
wait-index
:goto $o5
3
*
wait-search
:save-screen $tmp/a6.txt
q
EOK
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 "$tmp/ovf.pt" > "$tmp/out" 2>&1 ||
	fail "3*: exit status $? ($(cat "$tmp/out"))"
[ "$(st_off a6)" -eq "$(sed -n 8p "$tmp/ovfs")" ] || fail "'3*' on OVF 5: at $(st_off a6), not OVF 8"

# In the filter view a search is combined with the filter; when the two
# are too long together, the search is refused with the parser's reason
# (it searched the whole trace for the search alone, and "searching..."
# hid the message).
F=$(printf 'ovf|%.0s' $(seq 19))ovf
S=$(printf 'psb|%.0s' $(seq 19))psb
cat > "$tmp/keys" <<EOK
wait-index
:filter $F
wait-search
:search $S
wait-search
:save-screen $tmp/c1.txt
q
EOK
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 "$tmp/ovf.pt" > "$tmp/out" 2>&1 ||
	fail "filter and search too long: exit status $? ($(cat "$tmp/out"))"
msg c1 | grep -q 'search: expression too long' || fail "filter and search too long: $(msg c1)"
st c1 | grep -q '/psb' && fail "filter and search too long: searched anyway: $(st c1)"

# A filter on a gap in time units without a TSC frequency says so, as the
# search does (it said "no gap > 1us packets", as though it had looked).
"$PTGEN" --seed 5 --size 64KiB -o "$tmp/nofreq.pt" > /dev/null || fail "ptgen nofreq"
rm -f "$tmp/nofreq.pt.options"
printf 'wait-index\n:filter gap > 1us\n:save-screen %s/g1.txt\nq\n' "$tmp" > "$tmp/keys"
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 "$tmp/nofreq.pt" > "$tmp/out" 2>&1 ||
	fail "filter gap without a frequency: exit status $? ($(cat "$tmp/out"))"
msg g1 | grep -q 'filter: a gap in time units needs the TSC frequency' ||
	fail "filter gap without a frequency: $(msg g1)"

# In the timeline, l and h move the cursor a column right and left.
cat > "$tmp/keys" <<EOK
wait-index
Tab
Tab
l
:save-screen $tmp/l1.txt
l
:save-screen $tmp/l2.txt
h
:save-screen $tmp/l3.txt
q
EOK
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 "$tmp/ovf.pt" > "$tmp/out" 2>&1 ||
	fail "timeline keys: exit status $? ($(cat "$tmp/out"))"
[ "$(st_off l1)" -gt 0 ] && [ "$(st_off l2)" -gt "$(st_off l1)" ] &&
	[ "$(st_off l3)" -lt "$(st_off l2)" ] ||
	fail "l l h in the timeline: $(st_off l1) $(st_off l2) $(st_off l3)"

[ -n "${VERBOSE:-}" ] && for s in s1 s2 s3 s4 s5 s6 s7 e1 e2 e3 f1 f2 f3 f4 f5 f6; do st $s; msg $s; done
[ $status -eq 0 ] && echo "ok"
exit $status
