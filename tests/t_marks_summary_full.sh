#!/bin/sh
# `marks --summary` never stops half-way: a region it cannot summarise
# (here one starting past the end of the trace, hand-written into the
# marks file: it stopped the listing there and left --json unclosed) is
# refused with FILE:LINE, and every other region is listed and summarised;
# the --json output is complete, valid JSON.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

T=$SHARED/traces/dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin
file=$("$PTBROWSE" marks --json "$T" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
mkdir -p "$(dirname "$file")"
cat >"$file" <<'EOF'
# ptbrowse marks v1
region ra 0x0 0x100
region rb 0x4000 0x5000
region rc 0x100 0x200
region rd 0x3900 0x3930
mark z 0x3930
EOF
"$PTBROWSE" marks --summary --json "$T" >"$tmp/json" 2>"$tmp/err"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [m["name"] for m in d["marks"]]
assert names == ["ra", "rc", "rd"], names
for m in d["marks"]:
    assert "summary" in m and m["summary"]["bytes"] == m["bytes"], m
' "$tmp/json" || bad "--json: $(tail -c 300 "$tmp/json")"
grep -q "$file:3: region rb ends at 0x5000, past the end of the trace (0x3930 bytes)" "$tmp/err" ||
	bad "--json: no message for rb: $(cat "$tmp/err")"
grep -q "$file:6: mark z at 0x3930 is past the end" "$tmp/err" ||
	bad "--json: no message for z: $(cat "$tmp/err")"

"$PTBROWSE" marks --summary "$T" >"$tmp/text" 2>"$tmp/err"
[ "$(grep -c '^region' "$tmp/text")" -eq 3 ] || bad "text: $(cat "$tmp/text")"
[ "$(grep -c '^  packets ' "$tmp/text")" -eq 3 ] || bad "text: not every region summarised"
cmp -s "$file" - <<'EOF' || bad "listing changed the marks file"
# ptbrowse marks v1
region ra 0x0 0x100
region rb 0x4000 0x5000
region rc 0x100 0x200
region rd 0x3900 0x3930
mark z 0x3930
EOF
exit $fail
