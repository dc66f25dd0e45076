#!/bin/sh
# t_ui_tl_region_tmux -- a region from 0x0 is underlined on the time axis
# (its first row, the PSB at 0x0, has its PSB+'s TSC as its time; taken as
# none, the region was left out), as one in the middle is.  In tmux: the
# underline is an attribute, which --script's screens do not keep.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"
export LC_ALL=C.UTF-8

"$GEN" --seed 5 --size 4MiB -o "$tmp/s.pt" >/dev/null || fail "ptgen"
# shellcheck disable=SC2046
tm_start -- --no-state $(cat "$tmp/s.pt.options") "$tmp/s.pt"
wait_for '^0 ns .*span [0-9.]+ ms *$'
# (the cursor out of both regions: no region box over the panes)
keys ":goto 0x300000" Enter
wait_for "^ 0x2ff[0-9a-f]{3}/"
keys ":region start 0x0 0x60000" Enter
wait_for 'region start: '
keys ":region mid 0x200000 0x260000" Enter
wait_for 'region mid: '
sleep 0.3
# The marker row: the one above the axis (the last line ending "span ...");
# -e keeps the attributes, -N the underlined blanks at the line's end.
n=$(screen | grep -n ' span ' | tail -n 1 | cut -d: -f1)
tm capture-pane -e -N -p -t ptb | sed -n "$((n - 1))p" >"$tmp/ul"
ul=$(python3 "$(dirname "$0")/underlined.py" "$tmp/ul")
case " $ul " in " 0 1 "*) ;; *) fail "region start is not underlined from column 0 (underlined: $ul)" ;; esac
case " $ul " in *" 60 "*) ;; *) fail "region mid is not underlined in column 60 (underlined: $ul)" ;; esac
tm_quit
echo "ok   a region from 0x0 is underlined on the time axis (underlined: $ul)"
