#!/bin/sh
# t_dump_pipe -- dump, info and index read a trace from a pipe: `-` is
# standard input, /dev/stdin and a named FIFO are read whole (as
# `:pipe raw ptbrowse dump /dev/stdin` and `export ... -o - | ptbrowse
# dump -` do); the output is the file's.  An empty pipe is one line
# naming the input, exit 1; a perf.data in pipe mode reads the same.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
T=$tmp/g.pt
"$BUILD/tools/ptgen" --seed 5 --size 64KiB -o "$T" >/dev/null 2>&1 || { echo "FAIL ptgen"; exit 1; }
# the options file beside T gives dump times; a pipe has none beside it
opts=$(cat "$T.options")

"$PTBROWSE" dump $opts "$T" >"$tmp/file" 2>&1 || bad "dump T: $(head -1 "$tmp/file")"
cat "$T" | "$PTBROWSE" dump $opts - >"$tmp/dash" 2>&1
cmp -s "$tmp/file" "$tmp/dash" && ok "cat T | dump - = dump T ($(wc -l <"$tmp/file") lines)" ||
	bad "cat T | dump - differs: $(head -1 "$tmp/dash")"
cat "$T" | "$PTBROWSE" dump $opts /dev/stdin >"$tmp/stdin" 2>&1
cmp -s "$tmp/file" "$tmp/stdin" && ok "cat T | dump /dev/stdin = dump T" ||
	bad "cat T | dump /dev/stdin differs: $(head -1 "$tmp/stdin")"
"$PTBROWSE" dump $opts - <"$T" >"$tmp/redir" 2>&1
cmp -s "$tmp/file" "$tmp/redir" && ok "dump - <T = dump T" || bad "dump - <T differs"

mkfifo "$tmp/fifo" || exit 1
cat "$T" >"$tmp/fifo" &
"$PTBROWSE" dump $opts "$tmp/fifo" >"$tmp/fifo.out" 2>&1
wait
cmp -s "$tmp/file" "$tmp/fifo.out" && ok "dump FIFO = dump T" ||
	bad "dump FIFO differs: $(head -1 "$tmp/fifo.out")"

# a slice through export -o - decodes as the exported file does
"$PTBROWSE" export "$T" 'psb 2' 'psb 5' -o "$tmp/slice.pt" 2>/dev/null
"$PTBROWSE" dump $opts "$tmp/slice.pt" >"$tmp/slice" 2>&1
"$PTBROWSE" export "$T" 'psb 2' 'psb 5' -o - 2>/dev/null | "$PTBROWSE" dump $opts - >"$tmp/slice.pipe" 2>&1
[ -s "$tmp/slice" ] && cmp -s "$tmp/slice" "$tmp/slice.pipe" &&
	ok "export -o - | dump - = dump of the exported file ($(wc -l <"$tmp/slice") lines)" ||
	bad "export -o - | dump - differs: $(head -1 "$tmp/slice.pipe")"

# info of a copy with no options file beside it, as a pipe has none
cp "$T" "$tmp/bare.pt"
"$PTBROWSE" info "$tmp/bare.pt" | sed 1d >"$tmp/info" 2>&1
"$PTBROWSE" info - <"$T" | sed 1d >"$tmp/info.pipe" 2>&1
cat "$T" | "$PTBROWSE" info - | sed 1d >"$tmp/info.pipe2" 2>&1
cmp -s "$tmp/info" "$tmp/info.pipe" && cmp -s "$tmp/info" "$tmp/info.pipe2" &&
	ok "info - = info T (but its file line)" || bad "info - differs: $(diff "$tmp/info" "$tmp/info.pipe2" | head -3)"
cat "$T" | "$PTBROWSE" index --no-cache - >"$tmp/index" 2>&1
grep -q 'psbs:' "$tmp/index" && ok "cat T | index -" || bad "index -: $(head -2 "$tmp/index")"

: | "$PTBROWSE" dump - >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "^ptbrowse dump: standard input (-): empty (0 bytes)" "$tmp/err" &&
	ok "an empty pipe: $(cat "$tmp/err")" || bad "empty pipe: rc $rc, $(cat "$tmp/err")"

# a perf.data in pipe mode (perf record -o -) from a pipe
P=$BUILD/sample-code/perf.data
if [ -f "$P" ]; then
	"$PTBROWSE" dump --stream cpu1 "$P" >"$tmp/perf" 2>&1
	cat "$P" | "$PTBROWSE" dump --stream cpu1 - >"$tmp/perf.pipe" 2>&1
	[ -s "$tmp/perf" ] && cmp -s "$tmp/perf" "$tmp/perf.pipe" &&
		ok "cat perf.data | dump --stream cpu1 -" || bad "perf.data through a pipe differs"
else
	echo "skip perf.data through a pipe (no $P: make sample-code)"
fi
exit $fail
