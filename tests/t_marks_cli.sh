#!/bin/sh
# `ptbrowse marks TRACE [--json]`: lists what the marks file holds, notes
# escaped onto one line; a copy of the trace (same content, other name)
# lists the same marks; a broken file is reported as file:line and left
# as it is (listing never writes); usage errors exit 2.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

T=$SHARED/traces/dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin
"$PTBROWSE" marks "$T" >"$tmp/out" 2>"$tmp/err" || bad "no marks: exit $?"
[ -s "$tmp/out" ] && bad "no marks: output $(cat "$tmp/out")"
[ -s "$tmp/err" ] && bad "no marks: $(cat "$tmp/err")"
[ -d "$XDG_STATE_HOME/ptbrowse" ] && bad "listing created the state directory"

file=$("$PTBROWSE" marks --json "$T" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
case $file in "$XDG_STATE_HOME"/ptbrowse/traces/*.marks) ;; *) bad "marks file $file" ;; esac
mkdir -p "$(dirname "$file")"
cat >"$file" <<'MARKS'
# ptbrowse marks v1
trace size=32176 path="/old/place.pt"
mark a 0x10
bookmark - 0x20
bookmark start 0x30 "say \"hi\"\nthen go"
region hot 0x100 0x200 color=yellow "spin"
MARKS
cp "$file" "$tmp/before"

cp "$T" "$tmp/copy.pt"
"$PTBROWSE" marks "$tmp/copy.pt" >"$tmp/out" 2>"$tmp/err" || bad "list: exit $?"
[ -s "$tmp/err" ] && bad "list: $(cat "$tmp/err")"
cat >"$tmp/want" <<'WANT'
mark     a                0x0000000000000010
bookmark -                0x0000000000000020
bookmark start            0x0000000000000030                    "say \"hi\"\nthen go"
region   hot              0x0000000000000100 0x0000000000000200 color=yellow "spin"
WANT
cmp -s "$tmp/out" "$tmp/want" || { bad "text listing differs:"; diff "$tmp/want" "$tmp/out"; }
cmp -s "$file" "$tmp/before" || bad "listing changed the marks file"

"$PTBROWSE" marks --json "$T" >"$tmp/json" || bad "json: exit $?"
grep -q '"name": "start", "offset": 48, "color": null, "note": "say \\"hi\\"\\nthen go"' "$tmp/json" ||
	bad "json: $(cat "$tmp/json")"
grep -q '"kind": "bookmark", "name": null, "offset": 32' "$tmp/json" || bad "json anonymous"
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$tmp/json" >/dev/null || bad "json does not parse"
fi

# share: export, then import into a copy's marks with a conflict
"$PTBROWSE" marks --export "$tmp/shared.marks" "$T" 2>"$tmp/err" || bad "export: $(cat "$tmp/err")"
grep -q "exported 4 marks to $tmp/shared.marks" "$tmp/err" || bad "export: $(cat "$tmp/err")"
cmp -s "$file" "$tmp/before" || bad "export changed the marks file"
head -c 4096 "$T" >"$tmp/other.pt"
other=$("$PTBROWSE" marks --json "$tmp/other.pt" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
printf '# ptbrowse marks v1\nmark a 0x11\n' >"$other"
"$PTBROWSE" marks --import "$tmp/shared.marks" "$tmp/other.pt" 2>"$tmp/err" || bad "import: $(cat "$tmp/err")"
grep -q "$tmp/shared.marks:3: mark a is at 0x11 here, 0x10 there; kept 0x11" "$tmp/err" || bad "import conflict: $(cat "$tmp/err")"
grep -q "imported 3 marks, 1 conflicts" "$tmp/err" || bad "import summary: $(cat "$tmp/err")"
[ "$("$PTBROWSE" marks "$tmp/other.pt" | wc -l)" -eq 4 ] || bad "import: not saved"
"$PTBROWSE" marks --import "$tmp/nonexistent" "$T" 2>"$tmp/err" && bad "import of a missing file succeeded"
grep -q "cannot read $tmp/nonexistent" "$tmp/err" || bad "import missing: $(cat "$tmp/err")"

# a broken line: reported with file:line, nothing renamed or rewritten
printf 'mark 7 0x10\n' >>"$file"
cp "$file" "$tmp/before"
"$PTBROWSE" marks "$T" >"$tmp/out" 2>"$tmp/err"
grep -q "^ptbrowse marks: $file:7: expected: mark LETTER OFFSET" "$tmp/err" || bad "bad line: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/out")" -eq 4 ] || bad "bad line: good lines not listed"
cmp -s "$file" "$tmp/before" || bad "listing touched a broken file"
ls "$(dirname "$file")" | grep -q bad && bad "listing moved a file aside"

# a newer version is refused with a clear message
printf '# ptbrowse marks v2\n' >"$file"
"$PTBROWSE" marks "$T" 2>"$tmp/err" >/dev/null
grep -q "version 2 is newer than this ptbrowse reads" "$tmp/err" || bad "v2: $(cat "$tmp/err")"

"$PTBROWSE" marks 2>/dev/null; [ $? -eq 2 ] || bad "no trace: not exit 2"
"$PTBROWSE" marks --bogus "$T" 2>/dev/null; [ $? -eq 2 ] || bad "bad option: not exit 2"
"$PTBROWSE" marks "$tmp/nonexistent" 2>"$tmp/err"; [ $? -eq 1 ] || bad "missing trace: not exit 1"
grep -q nonexistent "$tmp/err" || bad "missing trace: $(cat "$tmp/err")"
# A save that fails on a full disk is said once, without the browser's
# promise of a retry (the command ends; it was said twice, promising).
# A tiny tmpfs (needs mount: root outside CI sandboxes).
mnt=$tmp/mnt
mkdir -p "$mnt"
if mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
	mkdir -p "$mnt/state/ptbrowse/traces"
	dd if=/dev/zero of="$mnt/fill" bs=4096 2>/dev/null
	printf '# ptbrowse marks v1\nmark f 0x10\n' >"$tmp/full.marks"
	XDG_STATE_HOME=$mnt/state "$PTBROWSE" marks --import "$tmp/full.marks" "$T" \
		>"$tmp/out" 2>"$tmp/err" && bad "full disk: exit 0"
	[ "$(grep -c 'marks not saved' "$tmp/err")" = 1 ] && ! grep -q retried "$tmp/err" &&
		grep -q "^ptbrowse marks: marks not saved: .*No space left on device\$" "$tmp/err" ||
		bad "full disk: $(cat "$tmp/err")"
	umount "$mnt"
else
	echo "skip: the full disk (no mount)"
fi
# A trace that grew keeps its marks in the file of its shorter identity,
# which names its path: moved after it grew, it listed none.
rm -rf "$XDG_STATE_HOME"
cp "$T" "$tmp/g.pt"
printf '# ptbrowse marks v1\nmark a 0x10\n' >"$tmp/a.marks"
printf '# ptbrowse marks v1\nmark b 0x20\n' >"$tmp/b.marks"
"$PTBROWSE" marks --import "$tmp/a.marks" "$tmp/g.pt" 2>/dev/null || bad "grown: import a: exit $?"
head -c 65536 /dev/zero >>"$tmp/g.pt"
"$PTBROWSE" marks --import "$tmp/b.marks" "$tmp/g.pt" 2>/dev/null || bad "grown: import b: exit $?"
mv "$tmp/g.pt" "$tmp/g2.pt"
n=$("$PTBROWSE" marks "$tmp/g2.pt" | grep -c '^mark')
[ "$n" -eq 2 ] || bad "grown, moved: $n marks listed"

# An import into a marks file that is a symbolic link says why it is not
# saved, and promises no file at an end a command does not have.
rm -rf "$XDG_STATE_HOME"
cp "$T" "$tmp/s.pt"
"$PTBROWSE" marks --import "$tmp/a.marks" "$tmp/s.pt" 2>/dev/null || bad "symlink: import a: exit $?"
sf=$(ls "$XDG_STATE_HOME"/ptbrowse/traces/*.marks)
mv "$sf" "$tmp/real.marks" && ln -s "$tmp/real.marks" "$sf"
"$PTBROWSE" marks --import "$tmp/b.marks" "$tmp/s.pt" >/dev/null 2>"$tmp/err" && bad "symlink: import exit 0"
grep -q 'marks not saved: .* is a symbolic link; not writing through it' "$tmp/err" &&
	! grep -q 'named when' "$tmp/err" || bad "symlink import: $(cat "$tmp/err")"
[ $fail -eq 0 ] && echo "ok"
exit $fail
