#!/bin/sh
# t_term_paths -- a file name or an argument holding terminal control bytes
# never reaches the terminal raw: every command's error and usage messages
# (export, extract, flow, dump, index, info, marks, the browser) name it
# escaped (src/esc.h: \x1b, \x0a), so stderr holds no control byte but tab
# and the newlines that end lines, and no line starts inside a name.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
[ -r "$T" ] || { echo "no trace $T"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 - "$PTBROWSE" "$tmp" "$T" <<'EOF2'
import os, subprocess, sys
B, d, trace = sys.argv[1:4]
n = os.path.join(d, 'x\x1b[31m\nQZy\x07')
with open(trace, 'rb') as f, open(n, 'wb') as g:
    g.write(f.read())
j = os.path.join(d, 'j\x1b]0;t\x07\nQZk')
with open(j, 'wb') as g:
    g.write(b'junk' * 10)
o = os.path.join(d, 'o\x1b[1m\nQZd')
opt = '--x\x1b[2J\nQZ'
cases = [
    ['export', n, '0x2', '0x8', '-o', o], ['export', j, '0', '8', '-o', o],
    ['export', n, '0', '8', '-o', n], ['export', n, 'zz', '-o', o], ['export', n],
    ['export', n + 'nope', '0', '8', '-o', o],
    ['extract', n, '-o', n], ['extract', j, '-o', o], ['extract', n + 'nope', '-o', o],
    ['flow', n], ['flow', j], ['flow', n + 'nope'], ['flow', '--elf', n, n],
    ['dump', n + 'nope'], ['dump', j], ['index', n + 'nope'], ['info', n + 'nope'],
    ['marks', n + 'nope'], ['marks', '--export', n, o + '/z'],
    [n + 'nope'], [opt, n],
]
for cmd in ['dump', 'index', 'info', 'marks', 'export', 'extract', 'flow']:
    cases += [[cmd, opt, n], [cmd, n, n, n, n, n], [cmd, n, '--stream', 'c\x1b[2J\nQZ']]
bad = 0
for c in cases:
    r = subprocess.run([B] + c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=120)
    e = r.stderr
    if not e:
        print('FAIL: nothing on stderr:', repr(c))
        bad += 1
    elif any((b < 32 and b not in (9, 10)) or b == 127 for b in e) or b'\nQZ' in e:
        print('FAIL: a raw control byte:', repr(c), repr(e[:200]))
        bad += 1
sys.exit(1 if bad else 0)
EOF2
[ $? = 0 ] || exit 1
echo "ok   no command prints a file name or an argument's control bytes raw"
