#!/bin/sh
# Importing marks never drops any without saying so: past the cap of 10000
# marks, `marks --import` and :import-marks say how many lines were not
# imported (it said only "imported 10000 marks"); a mark or region past the
# end of the trace is refused with FILE:LINE.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
unset TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

T=$SHARED/traces/dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin
size=$(wc -c <"$T")
# 12000 anonymous bookmarks inside the trace (14640 bytes)
{ echo "# ptbrowse marks v1"; seq 0 11999 | sed 's/^/bookmark - /'; } >"$tmp/big.marks"
"$PTBROWSE" marks --import "$tmp/big.marks" "$T" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || bad "cap: exit $rc"
grep -q "big.marks: imported 10000 marks; 2000 more lines of marks not imported (at most 10000 marks per trace)" \
	"$tmp/err" || bad "cap: $(cat "$tmp/err")"
n=$("$PTBROWSE" marks "$T" | wc -l)
[ "$n" -eq 10000 ] || bad "cap: $n marks kept"

rm -rf "$tmp/state"
cat >"$tmp/keys" <<EOF
:import-marks $tmp/big.marks
:save-screen $tmp/cap.txt
q
EOF
"$PTBROWSE" --no-index --script "$tmp/keys" --size 200x24 "$T" >"$tmp/out" 2>&1 ||
	bad ":import-marks: exit $? ($(cat "$tmp/out"))"
grep -q "2000 more lines of marks not imported" "$tmp/cap.txt" ||
	bad ":import-marks cap: $(tail -n 2 "$tmp/cap.txt")"

# past the end: refused, naming the line; the rest imported
rm -rf "$tmp/state"
cat >"$tmp/past.marks" <<EOF
# ptbrowse marks v1
bookmark inside 0x10
region whole 0 $size
region over 0x100 $((size + 1))
mark a $size
EOF
"$PTBROWSE" marks --import "$tmp/past.marks" "$T" >"$tmp/out" 2>"$tmp/err" ||
	bad "past: exit $?"
grep -q "past.marks:4: region over ends at 0x$(printf %x $((size + 1))), past the end of the trace (0x$(printf %x "$size") bytes); not loaded" \
	"$tmp/err" || bad "past region: $(cat "$tmp/err")"
grep -q "past.marks:5: mark a at 0x$(printf %x "$size") is past the end of the trace" \
	"$tmp/err" || bad "past mark: $(cat "$tmp/err")"
grep -q "imported 2 marks, 0 conflicts, 2 bad lines" "$tmp/err" || bad "past summary: $(cat "$tmp/err")"
"$PTBROWSE" marks "$T" >"$tmp/list"
grep -q "^region *over" "$tmp/list" && bad "past: region over was imported"
grep -q "^region *whole" "$tmp/list" || bad "past: region whole was not imported"

rm -rf "$tmp/state"
printf ':import-marks %s\n:save-screen %s\nq\n' "$tmp/past.marks" "$tmp/past.txt" >"$tmp/keys"
"$PTBROWSE" --no-index --script "$tmp/keys" --size 200x24 "$T" >"$tmp/out" 2>&1 ||
	bad ":import-marks past: exit $?"
grep -q "imported 2 marks, 0 conflicts, 2 bad lines" "$tmp/past.txt" ||
	bad ":import-marks past: $(tail -n 2 "$tmp/past.txt")"
# A binary (the arguments swapped: the trace as the marks file) is not a
# marks file, said once, at its first line: it said "a NUL byte in the
# line" for five lines first, and named a line far down.
rm -rf "$tmp/state"
"$PTBROWSE" marks --import "$T" "$T" >"$tmp/out" 2>"$tmp/err" && bad "binary import: exit 0"
[ "$(cat "$tmp/err")" = "ptbrowse marks: $T:1: not a ptbrowse marks file (the first line should be '# ptbrowse marks v1')" ] ||
	bad "binary import: '$(cat "$tmp/err")'"
# Saving off (the state file is of a newer version, or saved for another
# size): the import is not kept, so it fails and says why, naming the file
# (it said "imported 1 marks" and exited 0).
rm -rf "$tmp/state"
printf '# ptbrowse marks v1\nmark a 0x10\n' >"$tmp/a.marks"
printf '# ptbrowse marks v1\nmark b 0x20\n' >"$tmp/b.marks"
"$PTBROWSE" marks --import "$tmp/a.marks" "$T" >"$tmp/out" 2>&1 || bad "off: first import: exit $?"
state=$(ls "$tmp"/state/ptbrowse/traces/*.marks)
for how in version size; do
	if [ $how = version ]; then
		sed -i 's/^# ptbrowse marks v1/# ptbrowse marks v9/' "$state"
	else
		sed -i 's/^# ptbrowse marks v9/# ptbrowse marks v1/; s/size=[0-9]*/size=5/' "$state"
	fi
	cp "$state" "$tmp/before"
	"$PTBROWSE" marks --import "$tmp/b.marks" "$T" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || bad "off ($how): exit $rc"
	grep -qF "marks not saved: $state " "$tmp/err" ||
		bad "off ($how): $(cat "$tmp/err")"
	cmp -s "$state" "$tmp/before" || bad "off ($how): the state file changed"
done
exit $fail
