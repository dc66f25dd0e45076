#!/bin/sh
# t_ui_script_args -- the browser's arguments and a script's lines that
# were taken wrong without a word: --size and resize= that wrapped an int
# (4294967416x40 was 120x40), a --keymap that does not resolve (a usage
# error: exit 2, before the trace is opened; it was 1), :set with no value
# (:set raw turned raw on, :set columns hid every column), and a script's
# bad bench or click= arguments and misspelled directives (wait-indx was
# typed as keys), now said on stderr as FILE:LINE (the run still exits 0).
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
unset TERM
bad=0
ok() { echo "ok   $*"; }
no() { echo "FAIL $*"; bad=1; }

"$GEN" -S 256K -o "$tmp/t.pt" || no "ptgen"
T=$tmp/t.pt
printf 'q\n' >"$tmp/q"

# --size: every form that once wrapped or slipped through is exit 2.
for s in 4294967416x40 120x4294967336 -120x40 ' 120x40' 120x+40 +120x40 120x 0x40 1001x40 120x40x; do
	"$PTBROWSE" --no-state --script "$tmp/q" --size "$s" "$T" >"$tmp/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q 'want COLSxROWS' "$tmp/out" && ok "--size '$s': exit 2" ||
		no "--size '$s': exit $rc ($(cat "$tmp/out"))"
done
printf ':save-screen %s\nq\n' "$tmp/s.txt" >"$tmp/k"
"$PTBROWSE" --no-state --script "$tmp/k" --size 1000x1 "$T" >"$tmp/out" 2>&1 &&
	[ "$(wc -l <"$tmp/s.txt")" -eq 1 ] && ok "--size 1000x1" || no "--size 1000x1 ($(cat "$tmp/out"))"

# resize=: the same bounds.
for s in 4294967416x40 40x4294967306 40x-10 40x+10; do
	printf 'resize=%s\n:save-screen %s\nq\n' "$s" "$tmp/r.txt" >"$tmp/k"
	"$PTBROWSE" --no-state --script "$tmp/k" --size 100x30 "$T" >"$tmp/out" 2>&1 ||
		no "resize=$s: exit $?"
	[ "$(wc -l <"$tmp/r.txt")" -eq 30 ] && grep -q 'want resize=COLSxROWS' "$tmp/r.txt" &&
		ok "resize='$s' refused" || no "resize='$s' taken: $(wc -l <"$tmp/r.txt") rows"
done

# --keymap that does not resolve: exit 2, said once, before the trace.
for k in nosuch '' ./nosuch.keys; do
	"$PTBROWSE" --no-state --script "$tmp/q" --keymap "$k" "$tmp/none.pt" >"$tmp/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q '^ptbrowse: --keymap' "$tmp/out" && [ "$(wc -l <"$tmp/out")" = 1 ] &&
		ok "--keymap '$k': exit 2" || no "--keymap '$k': exit $rc ($(cat "$tmp/out"))"
done
"$PTBROWSE" --no-state --script "$tmp/q" --keymap emacs "$T" >"$tmp/out" 2>&1 &&
	ok "--keymap emacs" || no "--keymap emacs: exit $? ($(cat "$tmp/out"))"

# :set with no value is an error for a switch and for columns; the
# settings stay as they were.
for s in raw ip symbols mouse columns 'columns ,' 'columns  , ,'; do
	printf ':set %s\n:save-screen %s\n:set\n:save-screen %s\nq\n' "$s" "$tmp/e.txt" "$tmp/v.txt" >"$tmp/k"
	"$PTBROWSE" --no-state --script "$tmp/k" --size 200x20 "$T" >"$tmp/out" 2>&1 ||
		no ":set $s: exit $?"
	last=$(tail -n 1 "$tmp/e.txt")
	vals=$(tail -n 1 "$tmp/v.txt")
	case $last in
	*"set ${s%% *}: "*) ok ":set $s: $(echo "$last" | sed 's/  */ /g')" ;;
	*) no ":set $s said: $last" ;;
	esac
	case $vals in
	*"raw=off ip=on symbols=on"*"columns=dcyc,cycles,time,dref,cbr,mhz"*) ;;
	*) no ":set $s changed the settings: $vals" ;;
	esac
done
printf ':set columns none\n:set\n:save-screen %s\nq\n' "$tmp/v.txt" >"$tmp/k"
"$PTBROWSE" --no-state --script "$tmp/k" --size 200x20 "$T" >/dev/null 2>&1
tail -n 1 "$tmp/v.txt" | grep -q 'columns=none' && ok ":set columns none" ||
	no ":set columns none: $(tail -n 1 "$tmp/v.txt")"
# A script's bad bench and click= arguments and misspelled directives are
# said on stderr as FILE:LINE, and a misspelled directive is not typed
# (wait-indx's keys moved the cursor: the screen stays as it was).  The
# run still exits 0.
cat >"$tmp/k" <<EOS
:save-screen $tmp/a.txt
bench
bench x
bench x 0 j
click=zz
click=5,
click=5,3,1
wait-indx
bench-rs
resise=40x10
:save-screen $tmp/b.txt
click=5
click=5,3
wait-index
q
EOS
"$PTBROWSE" --no-state --script "$tmp/k" --size 100x30 "$T" >"$tmp/out" 2>"$tmp/err" ||
	no "bad directives: exit $?"
for l in 2 3 4 5 6 7 8 9 10; do
	grep -q "^ptbrowse: $tmp/k:$l: " "$tmp/err" && ok "line $l: $(grep "^ptbrowse: $tmp/k:$l: " "$tmp/err" | sed "s|^ptbrowse: $tmp/k:||")" ||
		no "line $l: not reported"
done
[ "$(wc -l <"$tmp/err")" = 9 ] || { no "more said than the bad lines:"; cat "$tmp/err"; }
[ -s "$tmp/out" ] && no "a bad bench printed: $(cat "$tmp/out")"
cmp -s "$tmp/a.txt" "$tmp/b.txt" && ok "nothing typed" ||
	{ no "the screen changed"; diff "$tmp/a.txt" "$tmp/b.txt" | head -n 6; }
exit $bad
