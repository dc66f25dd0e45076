#!/bin/sh
# t_dump_region -- `ptbrowse dump TRACE:REGION` dumps a region of the
# trace's marks (a mark or bookmark: from there to the end), the same
# lines as TRACE:FROM-TO; an unknown name is one line naming it; a file
# whose own name has the colon is still that file.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

cp "$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt" "$tmp/t.pt" ||
	exit 1
T=$tmp/t.pt
file=$("$PTBROWSE" marks --json "$T" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
[ -n "$file" ] || { echo "marks --json names no file"; exit 1; }
mkdir -p "$(dirname "$file")"
cat >"$file" <<MARKS
# ptbrowse marks v1
mark a 0x4300
region hot 0xc100 0x14000 "a loop"
MARKS

"$PTBROWSE" dump "$T:hot" >"$tmp/region" 2>"$tmp/err" || bad "dump T:hot: $(cat "$tmp/err")"
"$PTBROWSE" dump "$T:0xc100-0x14000" >"$tmp/range" 2>&1
[ -s "$tmp/region" ] && cmp -s "$tmp/region" "$tmp/range" &&
	ok "dump T:hot = dump T:0xc100-0x14000 ($(wc -l <"$tmp/region") lines)" ||
	bad "dump T:hot differs from T:0xc100-0x14000"

"$PTBROWSE" dump "$T:a" >"$tmp/mark" 2>&1
"$PTBROWSE" dump "$T:0x4300" >"$tmp/from" 2>&1
[ -s "$tmp/mark" ] && cmp -s "$tmp/mark" "$tmp/from" && ok "dump T:a = dump T:0x4300" ||
	bad "dump T:a differs from T:0x4300"

"$PTBROWSE" dump "$T:nosuch" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "t.pt: no region, mark or bookmark 'nosuch'" "$tmp/err" &&
	ok "an unknown name: $(cat "$tmp/err")" || bad "unknown name: rc $rc, $(cat "$tmp/err")"

# A file called "t.pt:hot" is dumped whole, not as t.pt's region.
head -c 65536 "$T" >"$tmp/t.pt:hot"
"$PTBROWSE" dump "$tmp/t.pt:hot" >"$tmp/colon" 2>&1
"$PTBROWSE" dump "$T:0-0x10000" >"$tmp/head" 2>&1
# the first lines agree (the cut may truncate the last packet)
head -n 100 "$tmp/colon" >"$tmp/c100"
head -n 100 "$tmp/head" >"$tmp/h100"
[ -s "$tmp/c100" ] && cmp -s "$tmp/c100" "$tmp/h100" &&
	ok "a file named t.pt:hot is that file" || bad "t.pt:hot was not dumped as a file"
exit $fail
