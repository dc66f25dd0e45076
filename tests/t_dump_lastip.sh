#!/bin/sh
# Conformance: `ptbrowse dump --lastip --exec-mode X` equals libipt ptdump's
# output for every raw stream in ../shared/traces (expected/X.lastip.ptdump.gz).
# We compare exactly first; white space is normalised only as a fallback
# that is reported.  No deliberate differences exist for these traces.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
fail=0 n=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for exp in "$SHARED"/traces/expected/*.lastip.ptdump.gz; do
	name=$(basename "$exp" .lastip.ptdump.gz)
	trace=$(find "$SHARED/traces" -name "$name" -type f | head -n 1)
	if [ -z "$trace" ]; then
		echo "missing trace for $exp"; fail=1; continue
	fi
	n=$((n + 1))
	"$PTBROWSE" dump --lastip --exec-mode "$trace" >"$tmp/our" 2>"$tmp/err" || {
		echo "FAIL $name: dump exited non-zero: $(cat "$tmp/err")"; fail=1; continue; }
	gzip -dc "$exp" >"$tmp/exp"
	if cmp -s "$tmp/our" "$tmp/exp"; then
		echo "ok   $name ($(wc -l <"$tmp/exp") lines, byte-exact)"
	elif cmp -s "$(tr -s ' ' <"$tmp/our" >"$tmp/o2"; echo "$tmp/o2")" \
		    "$(tr -s ' ' <"$tmp/exp" >"$tmp/e2"; echo "$tmp/e2")"; then
		echo "ok   $name (white space differs)"
	else
		echo "FAIL $name"; diff "$tmp/e2" "$tmp/o2" | head -20; fail=1
	fi
done
[ "$n" -gt 0 ] || { echo "no expected files found under $SHARED/traces"; exit 1; }
exit $fail
