#!/bin/sh
# t_ui_paging -- paging through whole shared traces in the browser (headless)
# shows every packet of `ptbrowse dump` exactly once, in order, forward and
# backward: no gap and no duplicate at window and segment boundaries.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
ROWS=300

# Read screens (in order) and check them in one awk pass: the packet rows
# of each screen must be strictly increasing (a duplicate or a step back at
# a window boundary would show here).  Prints every offset seen, decimal,
# and "BAD file" lines.
check_screens() {
	awk -v rows=$ROWS '
	function hex(s,   i, v, c) {
		v = 0
		for (i = 3; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			v = v * 16 + c
		}
		return v
	}
	FNR == 1 { last = -1 }
	FNR >= 3 && FNR <= rows - 5 && match($0, /^...0x[0-9a-f]+  /) {
		o = hex(substr($0, 4, RLENGTH - 5))
		if (o <= last)
			print "BAD " FILENAME
		last = o
		print o
	}' "$@"
}

for rel in dynamorio-drpt2trace/head_test_simple.raw.pt.bin \
	   dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin \
	   keeper-perf-event-sample/traced_data.bin; do
	T=$SHARED/traces/$rel
	name=$(basename "$rel")
	"$PTBROWSE" dump "$T" | sed -n 's/^\([0-9a-f]\{16\}\)  .*/0x\1/p' > "$tmp/dhex"
	xargs printf '%d\n' < "$tmp/dhex" > "$tmp/dump"
	n=$(wc -l < "$tmp/dump")
	first=$(head -n 1 "$tmp/dump")
	pages=$((n / (ROWS - 8) + 2))
	# Forward: a screen per page, then backward from the end.
	{
		i=0
		while [ $i -lt $pages ]; do
			echo ":save-screen $tmp/f$(printf %05d $i).txt"
			echo "Space"
			i=$((i + 1))
		done
		echo "G"
		i=0
		while [ $i -lt $pages ]; do
			echo ":save-screen $tmp/b$(printf %05d $i).txt"
			echo "b"
			i=$((i + 1))
		done
	} > "$tmp/keys"
	rm -f "$tmp"/f*.txt "$tmp"/b*.txt
	"$PTBROWSE" --ascii --no-state --no-index --script "$tmp/keys" --size 100x$ROWS "$T" ||
		{ echo "FAIL: $name: exit $?"; status=1; continue; }
	# Each screen shows rows strictly in order, and the screens together
	# show every packet of the dump and nothing else.
	for d in f b; do
		check_screens "$tmp"/$d*.txt > "$tmp/seen.$d"
		if grep BAD "$tmp/seen.$d"; then
			echo "FAIL: $name: rows out of order or repeated on a screen"
			status=1
		fi
		grep -v BAD "$tmp/seen.$d" | sort -n -u | awk -v f="$first" '$1 >= f' > "$tmp/seen"
		if ! cmp -s "$tmp/dump" "$tmp/seen"; then
			echo "FAIL: $name: paging ($d) does not show exactly the dump's packets"
			diff "$tmp/dump" "$tmp/seen" | head -5
			status=1
		fi
	done
	# Forward, the pages follow each other with nothing in between: the
	# list of rows seen, up to the first step back (the last page, kept
	# full), is the dump itself.
	awk -v f="$first" '$1 >= f { if (n++ && $1 <= last) exit; print; last = $1 }' \
		"$tmp/seen.f" > "$tmp/fwd"
	if ! cmp -s "$tmp/fwd" "$(head -n "$(wc -l < "$tmp/fwd")" "$tmp/dump" > "$tmp/dhead"; echo "$tmp/dhead")"; then
		echo "FAIL: $name: forward pages skip or repeat rows"
		diff "$tmp/dhead" "$tmp/fwd" | head -5
		status=1
	fi
	[ "$(wc -l < "$tmp/fwd")" -gt $((n - ROWS)) ] ||
		{ echo "FAIL: $name: forward pages stop early"; status=1; }
	echo "$name: $n packets, $pages pages each way"
done
[ $status = 0 ] && echo ok
exit $status
