#!/bin/sh
# t_truthful -- lost data is shown, estimates are never shown as exact.
# A generated trace with overflows, corrupted bytes (decode errors) and
# dropped MTCs (ptgen drops one in 64): `dump --cycles` flags each loss and
# marks no cycle count exact ('=') that a CYC did not give; the browser's
# panes (headless screen dumps) mark OVF and error rows with '!', show
# bounded cycle counts as ranges, and the timeline marks the trouble.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

T=$tmp/t.pt
"$GEN" --seed 11 --size 128KiB --ovf-rate 0.002 --corrupt-rate 0.0002 -o "$T" || exit 1
CFG=$("$GEN" --print-config)
"$PTBROWSE" dump --cycles $CFG "$T" >"$tmp/dump" || fail "dump --cycles: exit $?"
"$PTBROWSE" index --no-cache "$T" >"$tmp/index" || fail "index: exit $?"

# --- dump --cycles ---------------------------------------------------------
# Fields: cycles+mark, tsc, ns, cbr, MHz, [flags], offset (16 hex digits),
# packet, payload.
awk -v out="$tmp" '
function fail(m) {
	print "FAIL: dump --cycles: " m " at: " $0; bad = 1
	if (++nbad > 5) exit 1
}
/^\[/ {			# a diagnostic: data was lost here
	if ($0 ~ /error decoding packet/) nerr++
	after_loss = 1; next
}
{
	c = $1; mark = substr(c, length(c), 1); cyc = substr(c, 1, length(c) - 1)
	if (length($6) == 16 && $6 ~ /^[0-9a-f]+$/) { fl = ""; type = $7 }
	else { fl = $6; type = $8 }
	if (type == "ovf") {
		novf++
		if (fl !~ /o/) fail("an ovf without the o flag")
		if (mark == "=") fail("an ovf marked exact")
		after_loss = 1
	}
	if (fl ~ /l/) {
		nlost++
		if (type != "mtc") fail("l (MTCs lost) on a " type)
	}
	if (type == "cyc") {
		last_cyc = cyc; after_loss = 0
	} else if (mark == "=") {
		if (after_loss) fail("exact after a loss, before any CYC")
		if (cyc != last_cyc) fail("exact " cyc " but the last CYC gave " last_cyc)
	}
	if (mark == "~") nbounded++
}
END {
	printf "%d %d %d %d\n", novf, nerr, nlost, nbounded > (out "/counts")
	exit bad
}' "$tmp/dump" || status=1
read novf nerr nlost nbounded <"$tmp/counts"
iovf=$(awk '$1 == "ovf:" { print $2 }' "$tmp/index")
ierr=$(awk '$1 == "errors:" { print $2 }' "$tmp/index")
[ "$novf" -gt 0 ] || fail "the trace has no OVF: the test proves nothing"
[ "$nerr" -gt 0 ] || fail "the trace has no decode error: the test proves nothing"
[ "$nlost" -gt 0 ] || fail "no mtc line flagged l (dropped MTCs)"
[ "$nbounded" -gt 0 ] || fail "no bounded (~) cycle count"
[ "$novf" = "$iovf" ] || fail "dump shows $novf OVFs, index counts $iovf"
[ "$nerr" = "$ierr" ] || fail "dump shows $nerr decode errors, index counts $ierr"

# --- the browser -----------------------------------------------------------
ovf=$(awk '$NF == "ovf" { print $(NF - 1); exit }' "$tmp/dump")
err=$(sed -n 's/^\[\([0-9a-f]*\): error decoding packet.*/\1/p' "$tmp/dump" | head -n 1)
lost=$(awk '$8 == "mtc" && $6 ~ /l/ { print $7; exit }' "$tmp/dump")
printf 'wait-index\n:goto 0x%s\n:save-screen %s\n:goto 0x%s\n:save-screen %s\n:goto 0x%s\n:save-screen %s\nq\n' \
	"$ovf" "$tmp/ovf.txt" "$err" "$tmp/err.txt" "$lost" "$tmp/lost.txt" >"$tmp/keys"
for mode in utf8 ascii; do
	opt=
	[ $mode = ascii ] && opt=--ascii
	"$PTBROWSE" --no-state $opt --script "$tmp/keys" --size 120x16 $CFG "$T" >"$tmp/out" 2>&1 ||
		fail "$mode: browser exit $?: $(cat "$tmp/out")"
	# the cursor row: '>' then the trouble marker '!'
	row=$(grep '^>' "$tmp/ovf.txt")
	case $row in
	">!"*" ovf "*) ;;
	*) fail "$mode: the OVF row does not stand out: '$row'" ;;
	esac
	# its cycle count is bounded: a range or a lower bound, not a number
	cyc=$(printf '%s\n' "$row" | sed 's/.*│//; s/.*|//' | awk '{ print $1 == "!" ? $2 : $1 }')
	case $cyc in
	*[0-9]-[0-9]*|*[0-9]+[0-9]*|≥*|">="*) ;;
	*) fail "$mode: the OVF row's cycles '$cyc' look exact" ;;
	esac
	row=$(grep '^>' "$tmp/err.txt")
	case $row in
	">!"*" error "*"bytes skipped"*) ;;
	*) fail "$mode: the error row does not stand out: '$row'" ;;
	esac
	# the row after the error (the next PSB) has bounded cycles
	next=$(grep -A1 '^>' "$tmp/err.txt" | tail -n 1)
	# ... and its time is marked as a guess until the next TSC
	case $(printf '%s\n' "$next" | sed 's/.*│//; s/.*|//') in
	"!"*) ;;
	*) fail "$mode: the row after the error has no trouble mark: '$next'" ;;
	esac
	cyc=$(printf '%s\n' "$next" | sed 's/.*│//; s/.*|//' | awk '{ print $1 == "!" ? $2 : $1 }')
	case $cyc in
	*[0-9]-[0-9]*|*[0-9]+[0-9]*|≥*|">="*) ;;
	*) fail "$mode: after the error, cycles '$cyc' look exact" ;;
	esac
	# an MTC after dropped ones: '!' in the cycle pane's gutter, and
	# the status line says what it is
	row=$(grep '^>' "$tmp/lost.txt")
	case $row in
	*" mtc "*"│!"*|*" mtc "*"|!"*) ;;
	*) fail "$mode: the MTC after a gap is not marked: '$row'" ;;
	esac
	grep -q "\[MTCs lost before this one\]" "$tmp/lost.txt" ||
		fail "$mode: the status line does not say MTCs were lost"
	# the timeline's marker row shows trouble
	[ "$(grep -c '!' "$tmp/ovf.txt")" -ge 2 ] || fail "$mode: no trouble marks on the timeline"
done
[ $status = 0 ] && echo "ok: $novf OVFs, $nerr errors, $nlost MTC gaps, $nbounded bounded rows shown truthfully"
exit $status
