#!/bin/sh
# Strings from a file never reach the terminal raw, and --json is always
# valid UTF-8 JSON: a perf.data whose CPUID and COMM strings hold escape
# sequences, C1 controls and bytes that are not UTF-8, a trace whose file
# name does, and marks whose notes do.  Text outputs (info, info --events,
# index, dump's messages, marks, their messages, the browser's message line) show each such
# byte as \xHH (info printed them raw), and so do flow's function names
# from ELF files; --json outputs (info, index, marks)
# parse with python's json module from strict UTF-8, U+FFFD standing for
# each byte that is not UTF-8.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
unset TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

T=$SHARED/traces/dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin
# COMM (at most 15 bytes): OSC title, BEL, a non-UTF-8 byte, C1 CSI in UTF-8, RLO
printf 'comm 10 10 100 0 e\033]0;p\007\377\302\233\342\200\256x\n' >"$tmp/sb.txt"
"$BUILD/tools/pt2perf" --sideband "$tmp/sb.txt" "$T" -o "$tmp/h.perf" || bad "pt2perf"
# CPUID: "GenuineIntel" becomes ESC [31m, raw C1 CSI, 0xff, BEL (12 bytes)
python3 - "$tmp/h.perf" <<'EOF' || bad "no CPUID string to patch"
import sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
i = d.find(b'GenuineIntel')
assert i >= 0
d[i:i + 12] = b'\x1b[31mEvil\xff\x9b\x07'
open(p, 'wb').write(d)
EOF
# a file name with an escape sequence and a byte that is not UTF-8
name=$(printf 'tr\033[2J\377\302\233.pt')
cp "$T" "$tmp/$name"

# check FILE: no control byte but \n, strict UTF-8, no C1, bidi or
# zero-width character
check_text() {
	python3 - "$1" <<'EOF'
import sys
b = open(sys.argv[1], 'rb').read()
bad = [c for c in b if (c < 0x20 and c != 0x0a) or c == 0x7f]
assert not bad, 'control bytes %r' % bad[:5]
s = b.decode('utf-8')
for ch in s:
    o = ord(ch)
    assert not (0x80 <= o <= 0x9f or 0x200b <= o <= 0x200f or
                0x202a <= o <= 0x202e or 0x2066 <= o <= 0x2069), 'U+%04X' % o
EOF
}
text() {	# text NAME CMD...: run, check stdout and stderr
	n=$1; shift
	"$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	check_text "$tmp/$n.out" || bad "$n: stdout: $(cat -v "$tmp/$n.out" | head -n 5)"
	check_text "$tmp/$n.err" || bad "$n: stderr: $(cat -v "$tmp/$n.err" | head -n 5)"
}
text info "$PTBROWSE" info "$tmp/h.perf"
grep -q '^cpuid      \\x1b\[31mEvil\\xff\\x9b\\x07,6,78,3$' "$tmp/info.out" ||
	bad "info: cpuid line $(grep cpuid "$tmp/info.out" | cat -v)"
text events "$PTBROWSE" info --events "$tmp/h.perf"
grep -q 'comm e\\x1b\]0;p\\x07\\xff\\xc2\\x9b\\xe2\\x80\\xaex$' "$tmp/events.out" ||
	bad "info --events: comm line $(grep comm "$tmp/events.out" | cat -v)"
text info_name "$PTBROWSE" info "$tmp/$name"
grep -q '^file .*/tr\\x1b\[2J\\xff\\xc2\\x9b\.pt$' "$tmp/info_name.out" ||
	bad "info: file line $(head -n 1 "$tmp/info_name.out" | cat -v)"
text info_missing "$PTBROWSE" info "$tmp/$name.missing"
grep -q 'tr\\x1b\[2J\\xff\\xc2\\x9b\.pt\.missing' "$tmp/info_missing.err" ||
	bad "info: error $(cat -v "$tmp/info_missing.err")"
text index "$PTBROWSE" index --no-cache "$tmp/$name"
text dump_missing "$PTBROWSE" dump "$tmp/$name.missing"
grep -q 'tr\\x1b\[2J\\xff\\xc2\\x9b\.pt\.missing' "$tmp/dump_missing.err" ||
	bad "dump: error $(cat -v "$tmp/dump_missing.err")"
head -c 4096 /dev/zero >"$tmp/$name.zero"
text dump_nopsb "$PTBROWSE" dump "$tmp/$name.zero"
grep -q 'tr\\x1b\[2J\\xff\\xc2\\x9b\.pt\.zero: no PSB found' "$tmp/dump_nopsb.err" ||
	bad "dump: no PSB $(cat -v "$tmp/dump_nopsb.err")"

# marks with hostile notes: the file holds them escaped, listings too
file=$("$PTBROWSE" marks --json "$T" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
mkdir -p "$(dirname "$file")"
cat >"$file" <<'EOF'
# ptbrowse marks v1
bookmark evil 0x10 "a\x1b]0;pwn\x07b\xff\xc2\x9b\xe2\x80\xae"
region hot 0x0 0x100 "caf\xc3\xa9"
EOF
text marks "$PTBROWSE" marks "$tmp/$name"
grep -q '"a\\x1b\]0;pwn\\x07b\\xff\\xc2\\x9b\\xe2\\x80\\xae"' "$tmp/marks.out" ||
	bad "marks: note $(cat -v "$tmp/marks.out")"
grep -q '"café"' "$tmp/marks.out" || bad "marks: printable UTF-8 escaped: $(cat "$tmp/marks.out")"
text marks_summary "$PTBROWSE" marks --summary "$tmp/$name"

# --json: valid, strict UTF-8, and the strings decode as documented
json() {	# json NAME PYTHON-CHECK CMD...
	n=$1 chk=$2; shift 2
	"$@" >"$tmp/$n.json" 2>"$tmp/$n.err"
	python3 - "$tmp/$n.json" "$chk" <<'EOF' || bad "$n: $(head -c 400 "$tmp/$n.json" | cat -v)"
import json, sys
raw = open(sys.argv[1], 'rb').read()
d = json.loads(raw.decode('utf-8'))
assert eval(sys.argv[2]), sys.argv[2]
EOF
	check_text "$tmp/$n.json" || bad "$n: not terminal-safe"
}
json info_json 'd["perf"]["cpuid"] == "\x1b[31mEvil\ufffd\ufffd\x07,6,78,3"' \
	"$PTBROWSE" info --json --events "$tmp/h.perf"
json events_json '[e["comm"] for e in d["streams"][0]["events"] if "comm" in e] == ["e\x1b]0;p\x07\ufffd\x9b\u202ex"]' \
	"$PTBROWSE" info --json --events "$tmp/h.perf"
json info_name_json 'd["file"].endswith("/tr\x1b[2J\ufffd\x9b.pt")' \
	"$PTBROWSE" info --json "$tmp/$name"
json index_json 'd["trace"].endswith("/tr\x1b[2J\ufffd\x9b.pt")' \
	"$PTBROWSE" index --json --no-cache "$tmp/$name"
json marks_json '[m["note"] for m in d["marks"]] == ["caf\u00e9", "a\x1b]0;pwn\x07b\ufffd\x9b\u202e"] and d["trace"].endswith("\x1b[2J\ufffd\x9b.pt")' \
	"$PTBROWSE" marks --json --summary "$tmp/$name"

# the browser's message line: a note shown in a message is escaped
cat >"$tmp/keys" <<EOF
:import-marks $tmp/$name.none
:save-screen $tmp/screen.txt
q
EOF
"$PTBROWSE" --no-index --script "$tmp/keys" --size 200x10 "$tmp/$name" >"$tmp/b.out" 2>&1 ||
	bad "browser: exit $? $(cat -v "$tmp/b.out")"
grep -q 'tr\\x1b\[2J\\xff\\xc2\\x9b\.pt\.none' "$tmp/screen.txt" ||
	bad "browser: message $(tail -n 1 "$tmp/screen.txt" | cat -v)"
check_text "$tmp/screen.txt" || bad "browser: screen not terminal-safe"

# flow names functions from the ELF files: a symbol holding ESC [31m
cp "$BUILD/progs/p_loops" "$tmp/p_loops"
python3 - "$tmp/p_loops" <<'EOF' || bad "no symbol 'classify' to patch"
import sys
p = sys.argv[1]
d = open(p, 'rb').read()
assert b'\x00classify\x00' in d
open(p, 'wb').write(d.replace(b'\x00classify\x00', b'\x00c\x1b[31mXy\x00'))
EOF
if LD_LIBRARY_PATH=$(cd "$BUILD/progs" && pwd) LD_BIND_NOW=1 \
	"$BUILD/tools/ptrecord" -q -o "$tmp/p.pt" "$tmp/p_loops" >/dev/null 2>"$tmp/rec.err"; then
	# the executed code as ptrecord saved it, the names from the ELF file
	# at the address its first page was mapped at (the sideband's mmap2)
	set -- $(awk -v p="$tmp/p_loops" '$1 == "mmap2" && $NF == p { print $5, $7; exit }' \
		"$tmp/p.pt.sideband")
	base=$(printf '0x%x' $(($1 - $2)))
	text flow sh -c 'cd "$1" && "$2" flow $(cat p.pt.options) --elf "$1/p_loops:$3" p.pt' \
		- "$tmp" "$PTBROWSE" "$base"
	grep -q '  c\\x1b\[31mXy+0x0  ' "$tmp/flow.out" || bad "flow: $(grep -a Xy "$tmp/flow.out" | head -n 2 | cat -v)"
	text flow_summary sh -c 'cd "$1" && "$2" flow --summary $(cat p.pt.options) --elf "$1/p_loops:$3" p.pt' \
		- "$tmp" "$PTBROWSE" "$base"
	grep -q '^c\\x1b\[31mXy ' "$tmp/flow_summary.out" || bad "flow --summary: $(grep -a Xy "$tmp/flow_summary.out" | cat -v)"
else
	echo "skip flow: ptrecord cannot run here: $(head -n 1 "$tmp/rec.err")"
fi
exit $fail
