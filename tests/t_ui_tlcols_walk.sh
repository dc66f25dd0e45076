#!/bin/sh
# t_ui_tlcols_walk -- the timeline's walk for trouble in long PSB segments
# (tl_cols.c) goes on where it stopped instead of starting over, and what
# it has not reached is a '?', not a '!'.  A one-PSB 16 MiB trace with ten
# OVFs, in --script screens: zoomed in on bytes, every g/G walked the
# same 262144 rows from the view's start again (30 ms a key) and put the
# rest of the trouble as a '!' where it stopped, never reaching the OVFs
# farther in; on the time axis zoomed in deep the walk started at the PSB
# and put a '!' in column 0.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C.UTF-8
unset TERM	# --script needs none
export XDG_CONFIG_HOME=$tmp/xdg/config XDG_STATE_HOME=$tmp/xdg/state \
	XDG_CACHE_HOME=$tmp/xdg/cache
status=0 nfail=0
fail() { echo "FAIL: $*"; status=1; nfail=$((nfail + 1)); }
# ok TEXT: an 'ok' line if the section since the last one had no failure.
ok() {
	[ "$nfail" -eq 0 ] && echo "ok   $*"
	nfail=0
}

# Screen $1's marker row (the line above the axis row, which ends with
# "span ..."), every cell but '!' and '?' as '.'.
marks() {
	awk '/ span [0-9]/ { print prev; exit } { prev = $0 }' "$1" | sed 's/[^!?]/./g'
}
# The 0-based columns of glyph $2 on screen $1's marker row, blank-separated.
cols() {
	marks "$1" | awk -v g="$2" '{ for (i = 1; i <= length($0); i++)
		if (substr($0, i, 1) == g) printf "%d ", i - 1 }'
}
# keys N KEYS: N lines of KEYS.
keys() {
	n=$1
	shift
	i=0
	while [ $i -lt "$n" ]; do
		echo "$@"
		i=$((i + 1))
	done
}
# run TRACE NAME: the script in $tmp/keys, then the screen (100x30) saved
# as $tmp/NAME.txt.
run() {
	echo ":save-screen $tmp/$2.txt" >>"$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 "$tmp/$1" \
		>"$tmp/out" 2>&1 || fail "$2: exit $? ($(cat "$tmp/out"))"
}

# One PSB, ten OVFs; on the byte axis zoomed to its last 4 MiB (G z z:
# 0xc00000 to the end) the OVFs are in columns 3, 5, 62 and 76.
"$PTGEN" -S 16M --psb-period 1GiB -s 5 -o "$tmp/big.pt" >/dev/null || exit 1
{
	echo wait-index
	echo :timeline-axis
	echo G z z
	keys 200 g G
} >"$tmp/keys"
run big.pt gG
bang=$(cols "$tmp/gG.txt" '!')
case " $bang" in *" 62 "*) ;; *) fail "g/G: the walk never reached the OVF in column 62 ('!' at $bang)" ;; esac
for c in $bang; do
	case " 3 5 62 76 " in *" $c "*) ;; *) fail "g/G: a '!' in column $c, where no OVF is: $(marks "$tmp/gG.txt")" ;; esac
done
ok "200 g/G zoomed in: the walk went on to the OVFs at columns $bang"

# Just indexed, unzoomed: the walk has not reached the first OVF (column
# 25 of 4 MiB): a '?' where it stopped, no '!'; redraws walk on to it.
"$PTGEN" -S 4M --psb-period 100000000 -s 5 -o "$tmp/one.pt" >/dev/null || exit 1
printf 'wait-index\n:timeline-axis\n' >"$tmp/keys"
run one.pt first
[ -z "$(cols "$tmp/first.txt" '!')" ] || fail "a '!' before the walk got to the OVF: $(marks "$tmp/first.txt")"
[ -n "$(cols "$tmp/first.txt" '?')" ] || fail "no '?' for the OVF not placed yet: $(marks "$tmp/first.txt")"
keys 40 j j j j j j j j j j >>"$tmp/keys"
run one.pt later
[ "$(cols "$tmp/later.txt" '!')" = "25 " ] ||
	fail "after 400 redraws: '!' at $(cols "$tmp/later.txt" '!'), not column 25: $(marks "$tmp/later.txt")"
[ -z "$(cols "$tmp/later.txt" '?')" ] || fail "a '?' once all was placed: $(marks "$tmp/later.txt")"
ok "'?' until the walk reaches the OVF, then '!' in its column"

# The time axis zoomed in deep at the end (G z z z): the walk starts near
# the view's time, not at the PSB; the OVFs are in columns 19 and 57.
{
	echo wait-index
	echo G z z z
	keys 40 k k k k k k k k k k
} >"$tmp/keys"
run big.pt deep
[ "$(cols "$tmp/deep.txt" '!')" = "19 57 " ] ||
	fail "time axis zoomed: '!' at $(cols "$tmp/deep.txt" '!'), not 19 57: $(marks "$tmp/deep.txt")"
ok "time axis zoomed in deep: '!' at the OVFs' columns"

exit $status
