#!/bin/sh
# t_ui_help_pager -- the help pager keeps its place: G shows a full last
# screen (no blank row above the status line), a bigger screen after G is
# full, not one line over blank rows, and a resize keeps the line that was
# at the top at the top (rows are counted at the new width).
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 2 --size 1MiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
row() { screen | sed -n "$(($1 + 1))p" | sed 's/ *$//'; }

tm_start -- --no-state "$tmp/t.pt"
tm resize-window -t ptb -x 40 -y 12
sleep 0.3
keys F1
wait_for ' help  line 1/'
keys G
wait_gone ' help  line 1/'
[ -n "$(row 10)" ] || fail "G left the row above the status line blank"
l=$(screen | sed -n 's/.* help  line \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p')
[ $((${l#* } - ${l% *})) -eq 10 ] || fail "G shows line ${l% *} of ${l#* } on 11 rows"

tm resize-window -t ptb -x 120 -y 40
wait_for ' help  line [0-9]+/'
sleep 0.3
n=$(screen | head -n 39 | grep -c '[^ ]')
[ "$n" -gt 30 ] || fail "after growing, $n of 39 rows show text"
[ -n "$(row 38)" ] || fail "after growing, the row above the status line is blank"

# A line at the top stays at the top when the width changes.
tm resize-window -t ptb -x 80 -y 24
keys g Space Space Space
sleep 0.3
i=0
while ! row 0 | grep -q '^  [^ ]'; do
	keys j
	sleep 0.1
	i=$((i + 1))
	[ $i -lt 10 ] || fail "no line starts at the top"
done
top=$(row 0)
tm resize-window -t ptb -x 100 -y 30
sleep 0.5
case "$(row 0)" in
"$top"*) ;;
*) fail "after a resize the top row is '$(row 0)', not '$top'" ;;
esac
tm resize-window -t ptb -x 60 -y 20
sleep 0.5
row 0 | grep -qF "$(echo "$top" | cut -c1-40)" || fail "after shrinking the top row is '$(row 0)', not '$top'"
keys q
wait_gone ' help  line '
tm_quit
echo ok
