#!/bin/sh
# t_ui_complete_sym -- Tab completes a function's name from the loaded
# symbols where a command takes one: ':goto sym', ':goto call', the
# search forms (/sym, :filter ... & sym, ?call); a short prefix lists
# the names, an empty one the first 200 with how many more, and puts in
# nothing.  Nothing was offered: nothing listed the symbols by prefix.
# On the recorded sample (tests/rec_lib.sh): p_sample's and libc's names.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }

tm_start -- --no-state "$tmp/rec/perf.data"
# one name: put in whole
keys : "goto sym is_so" Tab
wait_for '^:goto sym is_sorted$'
keys C-u "goto call hashe" Tab
wait_for '^:goto call hasher$'
keys C-u "filter tip & sym add_t" Tab
wait_for '^:filter tip & sym add_total$'
keys C-g
wait_gone '^:filter'
keys / "sym word_" Tab
wait_for '^/sym word_hash$'
keys C-g
wait_gone '^/sym'
# several: listed above the prompt, among them p_sample's and libc's
keys : "goto sym ma" Tab Tab
wait_for '^:goto sym ma$'
wait_for 'matmul'
screen | grep -q 'malloc' || fail "libc's malloc is not offered for 'ma'"
screen | grep -q 'matrix' || fail "matrix is not offered for 'ma'"
# none typed: the first 200, more said, nothing put in
keys C-u "goto sym " Tab Tab
wait_for 'more: type more of the word'
screen | grep -q '^:goto sym *$' || fail "an empty name was completed: $(screen | tail -n 1)"
keys C-g
wait_gone '^:goto'
tm_quit
echo "ok   function names complete after sym and call (:goto, :filter, /)"
