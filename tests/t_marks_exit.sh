#!/bin/sh
# t_marks_exit -- marks that cannot be saved when the browser ends are not
# lost: every stream's (the one shown and those left, whose sets are kept
# in memory after a failed save) are said on stderr once the terminal is
# given back, written to a new file in $TMPDIR that is named, and the
# browser exits 1.  (Before: only the stream shown was flushed, so marks
# of a stream left went silently with exit 0; and the message promised a
# retry "on the next change" of a process that had ended.)
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
P2P=$BUILD/tools/pt2perf
[ -x "$GEN" ] && [ -x "$P2P" ] || { echo "no $GEN or $P2P"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp" TMPDIR="$tmp/tmpdir"
unset TERM
mkdir -p "$tmp/tmpdir"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$GEN" -S 16K -s 1 -o "$tmp/a.bin" >/dev/null || exit 1
"$GEN" -S 16K -s 2 -o "$tmp/b.bin" >/dev/null || exit 1
"$P2P" --cpu 1 "$tmp/a.bin" --cpu 3 "$tmp/b.bin" -o "$tmp/t.data" >/dev/null || exit 1
file_of() {
	"$PTBROWSE" marks --json --stream "$1" "$2" |
		sed -n 's/.*"file": "\([^"]*\)".*/\1/p'
}
f1=$(file_of cpu1 "$tmp/t.data")
[ -n "$f1" ] || { echo "FAIL: no marks file name"; exit 1; }
mkdir -p "$(dirname "$f1")"
# cpu1's file cannot be written: a directory stands where its temporary
# file would be renamed to.
mkdir "$f1"

printf ':mark lost_on_cpu1 "precious"\n:streams cpu3\n:mark kept_on_cpu3\n' >"$tmp/keys"
"$PTBROWSE" --script "$tmp/keys" --stream cpu1 "$tmp/t.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || bad "exit $rc with cpu1's marks not saved (want 1): $(cat "$tmp/err")"
grep -q '^ptbrowse: marks not saved: ' "$tmp/err" || bad "no message: $(cat "$tmp/err")"
grep -q 'retried\|kept in memory' "$tmp/err" && bad "a retry promised at the end: $(cat "$tmp/err")"
fb=$(sed -n 's/.* were written to \(.*\) instead;.*/\1/p' "$tmp/err")
case $fb in "$tmp/tmpdir/"*) ;; *) bad "no fallback file named: $(cat "$tmp/err")" ;; esac
[ -f "$fb" ] && grep -q '^bookmark lost_on_cpu1 0x0 "precious"$' "$fb" ||
	bad "the fallback file lacks cpu1's mark: $(cat "$fb" 2>&1)"
grep -q 'kept_on_cpu3' "$tmp/err" "$fb" && bad "cpu3's saved mark said as lost"
"$PTBROWSE" marks --stream cpu3 "$tmp/t.data" | grep -q kept_on_cpu3 ||
	bad "cpu3's mark not saved"
# The fallback file takes them back.
rmdir "$f1"
"$PTBROWSE" marks --import "$fb" --stream cpu1 "$tmp/t.data" >/dev/null 2>&1 ||
	bad "the fallback file does not import"
"$PTBROWSE" marks --stream cpu1 "$tmp/t.data" | grep -q lost_on_cpu1 ||
	bad "the imported mark is not there"
echo "ok   a stream left with unsaved marks: said at the end, kept in a named file, exit 1"

# The stream shown, its save kept waiting by another process's lock (the
# busy path: "kept in memory" while it runs, not at the end).
rm -rf "$f1"
flock "$f1.lock" sleep 8 &
holder=$!
n=0
while flock -n "$f1.lock" true; do
	n=$((n + 1)); [ $n -gt 500 ] && { bad "the lock holder did not start"; break; }
	sleep 0.01
done
printf ':mark two\n:region r3 0x400 0x800\n' >"$tmp/keys2"
"$PTBROWSE" --script "$tmp/keys2" --stream cpu1 "$tmp/t.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || bad "exit $rc (want 1)"
grep -q 'retried\|kept in memory' "$tmp/err" && bad "a retry promised at the end: $(cat "$tmp/err")"
fb=$(sed -n 's/.* were written to \(.*\) instead;.*/\1/p' "$tmp/err")
grep -q '^bookmark two ' "$fb" && grep -q '^region r3 0x400 0x800' "$fb" ||
	bad "the shown stream's marks not in the fallback: $(cat "$tmp/err")"
kill $holder 2>/dev/null; wait $holder 2>/dev/null
# No file can take them either: the marks are printed.
rm -f "$f1"; mkdir "$f1"
TMPDIR=$tmp/none "$PTBROWSE" --script "$tmp/keys2" --stream cpu1 "$tmp/t.data" \
	>"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || bad "exit 0 with no fallback"
grep -q '^bookmark two ' "$tmp/err" && grep -q '^region r3 0x400 0x800' "$tmp/err" ||
	bad "the marks are not printed when no file takes them: $(cat "$tmp/err")"
echo "ok   the shown stream's marks at the end; printed when no file takes them"
exit $fail
