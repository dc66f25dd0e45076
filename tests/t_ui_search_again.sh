#!/bin/sh
# t_ui_search_again -- what n, N and * go on with (headless, --script):
# a search made in the filter view is searched again under the filter
# there is when n or N comes (it kept the filter it was made under after
# the filter changed or went: wrong hits, the old count); a search refused
# (comm on a raw trace) leaves the last one to n; lines longer than 255
# bytes search and filter (they were refused, "search: search: the line is
# too long"); a gap's count without the index's time pass is marked an
# estimate ("~": it varied with where the search began).
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

args="--seed 9 --size 512KiB --psb-period 300 --ovf-rate 0.01 --corrupt-rate 0.0003 --exstop-rate 0.01"
# shellcheck disable=SC2086
"$gen" $args -o "$tmp/t.pt" > /dev/null || { echo "FAIL: ptgen"; exit 1; }
# shellcheck disable=SC2086
opts=$("$gen" $args --print-config)
# run NAME [OPTION...]: the keys in $tmp/NAME.keys
run() {
	k=$1
	shift
	# shellcheck disable=SC2086
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state "$@" --script "$tmp/$k.keys" \
		--size 160x24 $opts "$tmp/t.pt" > "$tmp/out" 2>&1 ||
		fail "$k: exit status $? ($(cat "$tmp/out"))"
}
st() { tail -n 2 "$tmp/$1.txt" | head -n 1; }
msg() { tail -n 1 "$tmp/$1.txt"; }
off() { echo $(($(st "$1" | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'))); }
"$PTBROWSE" dump "$tmp/t.pt" > "$tmp/dump"
# the offsets (decimal) of packets of the types given, in order
offs() { awk -v t=" $* " 'index(t, " " $2 " ") { print $1 }' "$tmp/dump" |
	while read -r o; do echo $((0x$o)); done; }
offs tip fup tip.pge tip.pgd > "$tmp/ip"
offs fup > "$tmp/fup"
offs mode.exec > "$tmp/exec"
nip=$(wc -l < "$tmp/ip") nfup=$(wc -l < "$tmp/fup")
# the first of file $1 after $2 (before, with $3 = -1)
after() { awk -v x="$2" '$1 > x { print; exit }' "$tmp/$1"; }
before() { awk -v x="$2" '$1 < x { p = $1 } END { print p }' "$tmp/$1"; }

# 1. A search in the filter view, then the filter cleared or changed.
cat > "$tmp/f.keys" <<KEYS
wait-index
:filter tip
:search ip
wait-search
:save-screen $tmp/f1.txt
:filter
n
wait-search
:save-screen $tmp/f2.txt
:filter fup
:save-screen $tmp/f3.txt
N
wait-search
:save-screen $tmp/f4.txt
:filter fup
:search mode.exec
wait-search
:filter
:goto $(sed -n 5p "$tmp/exec")
*
wait-search
:save-screen $tmp/f5.txt
q
KEYS
run f
a=$(off f1)
[ "$(off f2)" = "$(after ip "$a")" ] || fail "n after the filter went: at $(off f2), not $(after ip "$a")"
st f2 | grep -q "/ip \[[0-9]*/$nip\]" || fail "n after the filter went: $(st f2), not $nip hits"
st f3 | grep -q "/ip \[" && fail "the filter changed: the old hits still counted: $(st f3)"
b=$(off f2)
[ "$(off f4)" = "$(before fup "$b")" ] || fail "N under filter fup: at $(off f4), not $(before fup "$b")"
st f4 | grep -q "/ip \[[0-9]*/$nfup\]" || fail "N under filter fup: $(st f4), not $nfup hits"
[ "$(off f5)" = "$(sed -n 6p "$tmp/exec")" ] || fail "* after the filter went: at $(off f5) ($(msg f5))"

# The same for a search with sideband terms in a filter view by such
# terms: the task 'prog' runs from the middle on (a perf.data file of
# the trace and a written sideband).
t0=$((0x$(awk '$2 == "tsc" { print $3; exit }' "$tmp/dump")))
T=$((t0 - 40000)) M=$((t0 + 3000000))
cat > "$tmp/sb" <<EOF
# ptrecord sideband v1: times in TSC ticks
comm 100 100 $T 1 prog
comm 200 200 $T 1 other
switch 0 $T in 200 200 -1 -1 0
switch 0 $M out 200 200 100 100 1
switch 0 $M in 100 100 200 200 0
EOF
"$BUILD/tools/pt2perf" --sideband "$tmp/sb" --cpu 0 "$tmp/t.pt" -o "$tmp/t.data" > /dev/null ||
	fail "pt2perf"
offs psb > "$tmp/psb"
npsb=$(wc -l < "$tmp/psb")
cat > "$tmp/p.keys" <<KEYS
wait-index
:filter comm prog
:search psb
wait-search
:save-screen $tmp/p1.txt
:filter
n
wait-search
:save-screen $tmp/p2.txt
q
KEYS
# shellcheck disable=SC2086
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/p.keys" --size 160x24 \
	$opts "$tmp/t.data" > "$tmp/out" 2>&1 || fail "p: exit status $? ($(cat "$tmp/out"))"
a=$(off p1)
[ "$(off p2)" = "$(after psb "$a")" ] || fail "n after the terms' filter went: at $(off p2), not $(after psb "$a")"
st p2 | grep -q "/psb \[[0-9]*/$npsb\]" || fail "n after the terms' filter went: $(st p2), not $npsb PSBs"

# 4. A refused search leaves the last one.
cat > "$tmp/r.keys" <<KEYS
wait-index
/ f u p Enter
wait-search
:search comm foo
:save-screen $tmp/r1.txt
n
:save-screen $tmp/r2.txt
q
KEYS
run r
msg r1 | grep -q "comm, pid, tid and switch need" || fail "comm on a raw trace: $(msg r1)"
[ "$(off r2)" = "$(sed -n 2p "$tmp/fup")" ] || fail "n after a refused search: $(msg r2)"

# 5. Long lines: 400 bytes of search, of filter.
long="tip$(printf ' | tip.pge     %.0s' $(seq 28))"
[ ${#long} -gt 400 ] || fail "the long line is ${#long} bytes"
offs tip tip.pge > "$tmp/tips"
cat > "$tmp/l.keys" <<KEYS
wait-index
:search $long
wait-search
:save-screen $tmp/l1.txt
:filter $long
:search psb
wait-search
:save-screen $tmp/l2.txt
q
KEYS
run l
[ "$(off l1)" = "$(head -n 1 "$tmp/tips")" ] || fail "a long search: at $(off l1): $(msg l1)"
msg l1 | grep -q "too long" && fail "a long search: $(msg l1)"
msg l2 | grep -q "not found: psb (among the filter's tip | tip.pge" ||
	fail "a long filter: $(msg l2)"

# 2. gap > 1us: from the start and from 0x1fe4f the same count with the
# index; without it (no time pass) an estimate, marked.
gapc() { st "$1" | sed -n 's/.*\/gap > 1us \[[-0-9]*\/\([~0-9]*\)\].*/\1/p'; }
for at in 0 0x1fe4f; do
	printf 'wait-index\n:goto %s\n:search gap > 1us\nwait-search\n:save-screen %s\nq\n' \
		"$at" "$tmp/g$at.txt" > "$tmp/g.keys"
	run g
	printf ':goto %s\n:search gap > 1us\nwait-search\n:save-screen %s\nq\n' \
		"$at" "$tmp/n$at.txt" > "$tmp/n.keys"
	run n --no-index
done
[ -n "$(gapc g0)" ] && [ "$(gapc g0)" = "$(gapc g0x1fe4f)" ] ||
	fail "gap counts with the index: '$(gapc g0)' and '$(gapc g0x1fe4f)'"
case $(gapc g0) in *~*) fail "gap with the time pass: an estimate '$(gapc g0)'" ;; esac
for at in 0 0x1fe4f; do
	case $(gapc "n$at") in ~[0-9]*) ;; *) fail "gap without the index from $at: '$(gapc "n$at")'" ;; esac
done

[ $status = 0 ] && echo "ok   n, N and * under a changed filter, after a refused search; long lines; gap estimates"
exit $status
