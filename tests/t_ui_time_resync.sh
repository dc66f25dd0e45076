#!/bin/sh
# t_ui_time_resync -- one damaged PSB+ TSC in the middle of a ptgen trace,
# far into the future (its top byte 0x7f) or the past (byte 5 cleared: the
# TSCs are about 2^44), spoils its own segment only (tm.h: time goes back
# at a contradicting PSB+ TSC).  In the browser (--script): the screen at
# the end of the trace (the cycle pane's times, the timeline's axis, the
# status line's TSC) is the sound trace's, where the time used to stay at
# the far-future value; :goto t and :goto tsc to the time of the PSB at
# 3/4 land in its segment, not on the last one; dump --cycles flags the
# TSC where time went back ('j').  Damaged in the first segment: the
# times shown count from the second PSB's TSC (the first is no origin),
# so the end's status line has the sound trace's TSC and a time at most
# the first segment's length short of its; the :goto checks as above
# (both used to land at the first TSC, or the end).
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
[ -x "$gen" ] || { echo "no $gen"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$gen" --seed 5 --size 1MiB -o "$tmp/good.pt" >/dev/null || { echo "FAIL: ptgen"; exit 1; }
OPTS=$(cat "$tmp/good.pt.options")
# shellcheck disable=SC2086
"$PTBROWSE" dump --cycles $OPTS "$tmp/good.pt" >"$tmp/good.cyc" || fail "dump --cycles: exit $?"
# The PSBs, and the TSC packet of each PSB+: offset (hex, no 0x), payload.
# (mawk has no {16}: a hex word of 16 digits is an offset)
awk 'function off(w) { return length(w) == 16 && w ~ /^[0-9a-f]+$/ }
     off($(NF - 1)) && $NF == "psb" { p = 1; next }
     $NF == "psbend" { p = 0 }
     p && off($(NF - 2)) && $(NF - 1) == "tsc" { print $(NF - 2), $NF; p = 0 }' \
	"$tmp/good.cyc" >"$tmp/tscs"
npsb=$(wc -l <"$tmp/tscs")
[ "$npsb" -gt 100 ] || fail "only $npsb PSB+ TSCs"
# The ones to damage (the middle, the first) and the target (3/4).
mid=$(sed -n "$((npsb / 2))p" "$tmp/tscs" | cut -d' ' -f1)
first=$(sed -n 1p "$tmp/tscs" | cut -d' ' -f1)
set -- $(sed -n "$((npsb * 3 / 4))p" "$tmp/tscs")
tgt_off=$((0x$1)) tgt_tsc=$2
# Within a segment of the target: from the PSB before the one before its
# TSC (ns and TSC round apart) to the PSB after it.
awk 'length($(NF - 1)) == 16 && $NF == "psb" { print $(NF - 1) }' "$tmp/good.cyc" >"$tmp/psbs"
lo=0 hi=0 prev=0
while read -r p; do
	if [ $((0x$p)) -le $tgt_off ]; then lo=$prev prev=$((0x$p)); else hi=$((0x$p)); break; fi
done <"$tmp/psbs"
# The target's time as :goto t takes it: ns since the first time.
tgt_ns=$(awk -v o="$(printf '%016x' $tgt_off)" '$0 ~ o "  tsc" { print $3; exit }' "$tmp/good.cyc")
[ -n "$tgt_ns" ] && [ "$hi" -gt "$lo" ] || fail "no target ($tgt_ns $lo $hi)"

# The offset on the status line of a --script screen (file $1), decimal.
shot_off() {
	o=$(tail -n 2 "$1" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p')
	echo $((o))
}
# Run the browser on trace $1 with the keys on stdin (screens in $tmp).
run() {
	# shellcheck disable=SC2086
	"$PTBROWSE" --no-state --script /dev/stdin --size 160x30 $OPTS "$1" \
		>"$tmp/out" 2>&1 || fail "$1: exit $? ($(head -n 3 "$tmp/out"))"
}

# The status line of screen $1 up to its TSC; its time in ms (after the
# marks '~' or '?' the cycle pane puts on it too).
shot_tsc() { tail -n 2 "$1" | head -n 1 | sed 's/\(tsc [~?]*0x[0-9a-f]*\).*/\1/'; }
shot_ms() { tail -n 2 "$1" | head -n 1 | sed -n 's/.*tsc [~?]*0x[0-9a-f]* *[~?]*\([-0-9.]*\) ms.*/\1/p'; }
# Damage in the first segment ($case): the end's TSC, its time, the gotos.
first_checks() {
	cat <<EOF | run "$tmp/$case.pt"
wait-index
:goto \$
:save-screen $tmp/$case.end.txt
:goto t ${tgt_ns}ns
:save-screen $tmp/$case.t.txt
:goto ^
:goto tsc 0x$tgt_tsc
:save-screen $tmp/$case.tsc.txt
q
EOF
	[ "$(shot_tsc "$tmp/$case.end.txt")" = "$(shot_tsc "$tmp/good.txt")" ] ||
		fail "$case: the end's status line: $(shot_tsc "$tmp/$case.end.txt")"
	awk -v a="$(shot_ms "$tmp/$case.end.txt")" -v g="$(shot_ms "$tmp/good.txt")" \
		'BEGIN { exit !(a != "" && a <= g && a >= g * 0.9) }' ||
		fail "$case: the end's time $(shot_ms "$tmp/$case.end.txt") ms, the sound trace's $(shot_ms "$tmp/good.txt") ms"
	for g in t tsc; do
		o=$(shot_off "$tmp/$case.$g.txt")
		[ "$o" -ge "$lo" ] && [ "$o" -lt "$hi" ] ||
			fail "$case: :goto $g to the PSB at 3/4 (PSBs $lo..$hi) lands at $o"
	done
}

# The timeline's axis row of screen $1: its first label and its span.
shot_axis() { grep 'span ' "$1" | sed 's/^ *\([^ ]* [^ ]*\) .*\(span .*\)$/\1 \2/'; }

printf 'wait-index\n:goto $\n:save-screen %s/good.txt\nq\n' "$tmp" | run "$tmp/good.pt"
for case in future past future1 past1 near1 future9; do
	kind=${case%[19]}
	cp "$tmp/good.pt" "$tmp/$case.pt"
	if [ $kind = future ]; then at=7 v='\177'; else at=6 v='\000'; fi
	# near: the first TSC 2^22 ticks or so forward, inside the time
	# range (once kept as the origin: times counted from it)
	[ $kind = near ] && at=3 v='\144'
	where=$mid
	case $case in
	*1) where=$first ;;
	*9) where=$(tail -n 1 "$tmp/tscs" | cut -d' ' -f1) ;;
	esac
	# shellcheck disable=SC2059
	printf "$v" | dd of="$tmp/$case.pt" bs=1 seek=$((0x$where + at)) conv=notrunc 2>/dev/null
	cmp -s "$tmp/good.pt" "$tmp/$case.pt" && fail "$case: not patched"
	if [ $case = future9 ]; then
		# The last segment's: the axis is the sound trace's (it ran
		# to the damaged time), the end's time is marked disputed.
		printf 'wait-index\n:goto $\n:save-screen %s/%s.end.txt\nq\n' "$tmp" $case |
			run "$tmp/$case.pt"
		[ "$(shot_axis "$tmp/$case.end.txt")" = "$(shot_axis "$tmp/good.txt")" ] ||
			fail "$case: the axis $(shot_axis "$tmp/$case.end.txt"), the sound trace's $(shot_axis "$tmp/good.txt")"
		tail -n 2 "$tmp/$case.end.txt" | grep -q ' ?[0-9.]* s .*time disputed' ||
			fail "$case: the end's time is not marked disputed: $(tail -n 2 "$tmp/$case.end.txt")"
		continue
	fi
	if [ $case != $kind ]; then
		first_checks
		[ "$(shot_axis "$tmp/$case.end.txt" | cut -d' ' -f1-2)" = "0 ns" ] ||
			fail "$case: the axis starts at $(shot_axis "$tmp/$case.end.txt")"
		continue
	fi
	# shellcheck disable=SC2086
	"$PTBROWSE" dump --cycles $OPTS "$tmp/$case.pt" >"$tmp/$kind.cyc"
	grep -q ' [a-z]*j[a-z]* .* tsc ' "$tmp/$kind.cyc" ||
		fail "$kind: dump --cycles flags no TSC with j"
	# The sound trace's time again by the end.
	[ "$(tail -n 1 "$tmp/$kind.cyc" | cut -c1-60)" = "$(tail -n 1 "$tmp/good.cyc" | cut -c1-60)" ] ||
		fail "$kind: dump --cycles ends at $(tail -n 1 "$tmp/$kind.cyc" | cut -c1-60)"
	cat <<EOF | run "$tmp/$case.pt"
wait-index
:goto 0x$(printf %x $((0x$mid + 200)))
:save-screen $tmp/$kind.in.txt
:goto \$
:save-screen $tmp/$kind.end.txt
:goto t ${tgt_ns}ns
:save-screen $tmp/$kind.t.txt
:goto ^
:goto tsc 0x$tgt_tsc
:save-screen $tmp/$kind.tsc.txt
q
EOF
	# Inside the damaged segment: its times are marked disputed.
	tail -n 2 "$tmp/$kind.in.txt" | grep -q ' ?[-0-9.]* [mnu]*s .*time disputed' ||
		fail "$kind: the damaged segment's time is not marked disputed: $(tail -n 2 "$tmp/$kind.in.txt")"
	grep -q '│.* ?[-0-9.]* [mnu]*s ' "$tmp/$kind.in.txt" ||
		fail "$kind: the cycle pane marks no time disputed"
	# The end: all but the title (the file's name) as on the sound
	# trace, and the timeline's density row (the damaged segment's
	# packets are binned at its own, wrong, time).
	sed '1d; /▇/d' "$tmp/good.txt" >"$tmp/a"
	sed '1d; /▇/d' "$tmp/$kind.end.txt" >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || {
		fail "$kind: the end of the trace differs from the sound trace's:"
		diff "$tmp/a" "$tmp/b" | head -n 6
	}
	for g in t tsc; do
		o=$(shot_off "$tmp/$kind.$g.txt")
		[ "$o" -ge "$lo" ] && [ "$o" -lt "$hi" ] ||
			fail "$kind: :goto $g to the PSB at 3/4 (PSBs $lo..$hi) lands at $o"
	done
done
[ $status = 0 ] && echo ok
exit $status
