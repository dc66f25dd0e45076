#!/usr/bin/env python3
"""underlined.py FILE -- the columns of the screen line in FILE (a tmux
capture-pane -e line) that are underlined, blank-separated: the tmux
tests' check of region underlines, an attribute --script screens lose."""
import re
import sys

s = open(sys.argv[1], encoding='utf-8').read().rstrip('\n')
ul, col, out = False, 0, []
for m in re.finditer(r'\x1b\[([0-9;]*)m|(.)', s):
    if m.group(1) is not None:
        for p in (m.group(1) or '0').split(';'):
            if p in ('0', '24'):
                ul = False
            elif p == '4':
                ul = True
    else:
        if ul:
            out.append(col)
        col += 1
print(' '.join(map(str, out)))
