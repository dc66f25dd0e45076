#!/bin/sh
# t_extract_names -- `ptbrowse extract` names the files it wrote on
# standard output escaped (src/esc.h), as every message does: a trace
# named with an OSC sequence (\033]0;X\007, which sets a terminal's
# title) printed it raw in "DIR/NAME.raw.pt N bytes".  Now the line
# holds \x1b and \x07, and no control byte but its newline.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
"$PTGEN" -S 16KiB -o "$tmp/k.pt" || { echo "ptgen failed"; exit 1; }
python3 - "$PTBROWSE" "$tmp" <<'EOF'
import os, subprocess, sys
B, d = sys.argv[1:3]
n = os.path.join(d, 'x\x1b]0;X\x07.pt')
os.rename(os.path.join(d, 'k.pt'), n)
bad = 0
for out in [os.path.join(d, 'o'), os.path.join(d, 'p\x1b[2J')]:
    r = subprocess.run([B, 'extract', n, '-o', out], capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    o = r.stdout
    if r.returncode or not o:
        print('FAIL: extract -o %r: exit %d, %r' % (out, r.returncode, r.stderr[-200:]))
        bad += 1
    elif any((b < 32 and b != 10) or b == 127 for b in o):
        print('FAIL: extract -o %r: a raw control byte on stdout: %r' % (out, o[:200]))
        bad += 1
    elif b'x\\x1b]0;X\\x07.pt' not in o or b' bytes' not in o:
        print('FAIL: extract -o %r: the name not escaped: %r' % (out, o[:200]))
        bad += 1
sys.exit(1 if bad else 0)
EOF
[ $? = 0 ] || exit 1
echo "ok   extract prints the files it wrote escaped"
