#!/bin/sh
# t_marks_streams -- the marks file of each stream of a perf.data is named
# by the stream (ID@cpu1.marks), the first stream's too: a perf.data that
# grows may number a new CPU's stream first, and the first stream's file,
# which named no stream, went to that new stream (its marks shown there
# and saved into its file; the old first stream had none, and a false
# warning).  A nameless file saved by an older ptbrowse is still read for
# the stream that was first when it was saved: under the same identity,
# and carried over once the file grew.  Through `ptbrowse marks`
# (listing never writes; --import saves).
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
P2P=$BUILD/tools/pt2perf
[ -x "$GEN" ] && [ -x "$P2P" ] || { echo "no $GEN or $P2P"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$GEN" -S 16K -s 1 -o "$tmp/a.bin" >/dev/null || exit 1
"$GEN" -S 16K -s 2 -o "$tmp/b.bin" >/dev/null || exit 1
"$GEN" -S 16K -s 3 -o "$tmp/c.bin" >/dev/null || exit 1
# Streams cpu1 and cpu3; then cpu0's AUXTRACE record (48 bytes and the
# data) appended: cpu0 is numbered first.
"$P2P" --cpu 1 "$tmp/a.bin" --cpu 3 "$tmp/b.bin" -o "$tmp/base.data" >/dev/null || exit 1
"$P2P" --cpu 0 "$tmp/c.bin" -o "$tmp/one.data" >/dev/null || exit 1
tail -c $(($(wc -c <"$tmp/c.bin") + 48)) "$tmp/one.data" >"$tmp/cpu0.rec"
printf '# ptbrowse marks v1\nmark a 0x10\nbookmark first 0x20\n' >"$tmp/m.marks"

# The marks file of stream $1 of $2 (from --json).
file_of() {
	"$PTBROWSE" marks --json --stream "$1" "$2" |
		sed -n 's/.*"file": "\([^"]*\)".*/\1/p'
}
# List stream $1 of $tmp/t.data into $tmp/out and $tmp/err.
list() {
	"$PTBROWSE" marks --stream "$1" "$tmp/t.data" >"$tmp/out" 2>"$tmp/err" ||
		bad "list $1: exit $? $(cat "$tmp/err")"
}

# 1. Every stream's file is named, the first's too.
cp "$tmp/base.data" "$tmp/t.data"
f1=$(file_of cpu1 "$tmp/t.data")
f3=$(file_of cpu3 "$tmp/t.data")
case $f1 in *@cpu1.marks) ;; *) bad "the first stream's marks file: $f1" ;; esac
case $f3 in *@cpu3.marks) ;; *) bad "cpu3's marks file: $f3" ;; esac
id=$(basename "$f3" @cpu3.marks)
# (a broken build leaves these empty: never write ./.marks then)
[ -n "$f1" ] && [ -n "$f3" ] && [ -n "$id" ] || { echo "FAIL the marks files of cpu1/cpu3 not found"; exit 1; }
"$PTBROWSE" marks --import "$tmp/m.marks" --stream cpu1 "$tmp/t.data" >/dev/null 2>&1 ||
	bad "import into cpu1"
grep -q '^trace .* stream=cpu1 ' "$f1" 2>/dev/null || bad "cpu1's file names no stream: $(cat "$f1" 2>&1)"

# 2. Grown with cpu0 numbered first: its marks stay cpu1's (carried over
# to the new identity), cpu0 has none, and no stream warns.
cat "$tmp/cpu0.rec" >>"$tmp/t.data"
list cpu0
[ -s "$tmp/out" ] && bad "the new first stream cpu0 took marks: $(cat "$tmp/out")"
[ -s "$tmp/err" ] && bad "cpu0: $(cat "$tmp/err")"
list cpu3
[ -s "$tmp/out" ] || [ -s "$tmp/err" ] && bad "cpu3: $(cat "$tmp/out" "$tmp/err")"
list cpu1
grep -q '^mark  *a  *0x0*10$' "$tmp/out" || bad "cpu1 lost mark a: $(cat "$tmp/out")"
grep -q 'grew since its marks were saved' "$tmp/err" || bad "cpu1: $(cat "$tmp/err")"

# 3. A nameless ID.marks saved by an older ptbrowse for the first stream
# (cpu1): read for cpu1 under the same identity, for no other stream;
# carried over to cpu1, not cpu0, once the file grew.
rm -rf "$tmp/state"
cp "$tmp/base.data" "$tmp/t.data"
mkdir -p "$(dirname "$f3")"
{ echo '# ptbrowse marks v1'
  echo "trace size=$(wc -c <"$tmp/t.data") id=$id path=\"$tmp/t.data\""
  echo 'mark b 0x30'; } >"$(dirname "$f3")/$id.marks"
list cpu1
grep -q '^mark  *b  *0x0*30$' "$tmp/out" || bad "an old first stream's file not read: $(cat "$tmp/out" "$tmp/err")"
list cpu3
[ -s "$tmp/out" ] || [ -s "$tmp/err" ] && bad "cpu3 (old file): $(cat "$tmp/out" "$tmp/err")"
cat "$tmp/cpu0.rec" >>"$tmp/t.data"
list cpu0
[ -s "$tmp/out" ] && bad "the old file went to the new first stream: $(cat "$tmp/out")"
[ -s "$tmp/err" ] && bad "cpu0 (old file): $(cat "$tmp/err")"
list cpu3
[ -s "$tmp/out" ] || [ -s "$tmp/err" ] && bad "cpu3 (old file, grown): $(cat "$tmp/out" "$tmp/err")"
list cpu1
grep -q '^mark  *b  *0x0*30$' "$tmp/out" || bad "the old file not carried over to cpu1: $(cat "$tmp/out" "$tmp/err")"

# 4. An old ID.marks whose trace line names another stream is not the
# first stream's.
rm -rf "$tmp/state"
cp "$tmp/base.data" "$tmp/t.data"
mkdir -p "$(dirname "$f3")"
{ echo '# ptbrowse marks v1'
  echo "trace size=$(wc -c <"$tmp/t.data") id=$id stream=cpu3 path=\"$tmp/t.data\""
  echo 'mark c 0x40'; } >"$(dirname "$f3")/$id.marks"
list cpu1
[ -s "$tmp/out" ] && bad "cpu1 read a file of cpu3: $(cat "$tmp/out")"

# 5. Downgraded and back: the first stream's file ID@cpu1.marks saved by
# this ptbrowse, then ID.marks by an older one (which names no stream's
# file for the first).  Its marks were ignored for good, silently; now they
# are merged into cpu1's, said with the file's path, once it is saved; the
# old file is left as it is.
rm -rf "$tmp/state"
cp "$tmp/base.data" "$tmp/t.data"
"$PTBROWSE" marks --import "$tmp/m.marks" --stream cpu1 "$tmp/t.data" >/dev/null 2>&1 ||
	bad "import into cpu1 (5)"
touch -d '1 hour ago' "$f1"
{ echo '# ptbrowse marks v1'
  echo "trace size=$(wc -c <"$tmp/t.data") id=$id path=\"$tmp/t.data\""
  echo 'mark b 0x30'; } >"$(dirname "$f3")/$id.marks"
cp "$(dirname "$f3")/$id.marks" "$tmp/old.marks"
list cpu1
grep -q '^mark  *a  *0x0*10$' "$tmp/out" && grep -q '^mark  *b  *0x0*30$' "$tmp/out" ||
	bad "cpu1 without the older ptbrowse's marks: $(cat "$tmp/out" "$tmp/err")"
grep -q "$id.marks: its marks .*merged in" "$tmp/err" || bad "the merge not said: $(cat "$tmp/err")"
list cpu3
[ -s "$tmp/out" ] && bad "cpu3 took the first stream's old file: $(cat "$tmp/out")"
printf '# ptbrowse marks v1\n' >"$tmp/none.marks"
"$PTBROWSE" marks --import "$tmp/none.marks" --stream cpu1 "$tmp/t.data" >/dev/null 2>&1 ||
	bad "import into cpu1 (5, saving)"
grep -q '^mark b 0x30' "$f1" || bad "the merge not saved: $(cat "$f1")"
list cpu1
[ "$(grep -c '^mark  *b ' "$tmp/out")" = 1 ] || bad "mark b not once: $(cat "$tmp/out")"
[ -s "$tmp/err" ] && bad "merged again: $(cat "$tmp/err")"
cmp -s "$tmp/old.marks" "$(dirname "$f3")/$id.marks" || bad "the older ptbrowse's file was rewritten"

[ $fail = 0 ] && echo "ok   each stream's marks file is named by it; old nameless files found for theirs"
exit $fail
