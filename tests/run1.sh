#!/bin/sh
# run1 -- run one test for tests/run.sh: NAME CMD...  Writes the test's
# output to $LOG/NAME.log, its seconds and status to $LOG/NAME.st, and
# prints one line when it ends (run.sh runs several of these at once, so
# the line is written with one printf: lines of parallel tests never mix).
name=$1; shift
start=$(date +%s)
if "$@" >"$LOG/$name.log" 2>&1 </dev/null; then st=ok; else st=FAIL; fi
secs=$(( $(date +%s) - start ))
echo "$st $secs" >"$LOG/$name.st"
printf '%-40s %s (%ss)\n' "$name" "$st" "$secs"
