#!/bin/sh
# The man page states what the program does (issue 14 group 7), checked
# against the program: dump's deliberate differences name the PWRE hw bit
# (payload bit 7 per the SDM; libipt tests bit 3), and dump prints ', hw'
# for bit 7 only; INDEX CACHE says that `index` without --time caches no
# time pass for the browser, and `index --time` after it has the pass to
# add (cache "extended").
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
man=${MAN:-$(dirname "$0")/../doc/ptbrowse.1}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
fail=0
bad() { echo "FAIL $*"; fail=1; }

# The text of section (.SH) or subsection (.SS) $1 of the man page, one line.
section() {
	awk -v s="$1" '/^\.S[HS] / { on = (substr($0, 5) == s) } on' "$man" |
		tr '\n' ' ' | sed 's/\\f[BIRP]//g; s/\\-/-/g'
}

# PWRE: 02 22, payload bit 7 (byte 2, 0x80) is HW; bit 3 (0x08) is not.
printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\043\002\042\200\000\002\042\010\000\000' \
	>"$tmp/pwre.pt"
"$PTBROWSE" dump "$tmp/pwre.pt" >"$tmp/out" || bad "dump pwre.pt: exit $?"
grep -q '^0000000000000012  pwre       c1.1, hw$' "$tmp/out" ||
	bad "bit 7 is not hw: $(cat "$tmp/out")"
grep -q '^0000000000000016  pwre       c1.1$' "$tmp/out" ||
	bad "bit 3 is hw: $(cat "$tmp/out")"
section "ptbrowse dump" | grep -q "PWRE's hw flag is payload bit 7, as the SDM says (libipt 2.x tests bit 3" ||
	bad "man page: dump's differences do not name the PWRE hw bit"

# INDEX CACHE: index without --time leaves the time pass to the browser.
trace=$SHARED/traces/dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin
"$PTBROWSE" index "$trace" >/dev/null || bad "index: exit $?"
"$PTBROWSE" index --json --time "$trace" | grep -q '"cache": "extended"' ||
	bad "index --time after index did not add the time pass"
section "INDEX CACHE" | grep -q 'ptbrowse index without --time caches the index without its time pass' ||
	bad "man page: INDEX CACHE does not say index without --time lacks the time pass"
section "ptbrowse index" | grep -q 'an index cached without it gives the browser its seek points at once, but the browser still runs the time pass' ||
	bad "man page: index --time does not say what the browser gets"
[ $fail = 0 ] && echo "ok   t_man_facts"
exit $fail
