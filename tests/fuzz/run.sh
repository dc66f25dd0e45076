#!/bin/sh
# Build every fuzz target (tests/fuzz/fuzz_*.c) with clang's libFuzzer,
# ASan and UBSan, and run each for FUZZ_SECONDS (default 600) on a corpus
# seeded from ../shared/traces and generated traces.  Findings are written
# to $BUILD/fuzz/<target>/crash-*; copy each into tests/fuzz/corpus/<target>/
# so tests/t_fuzz_regress.sh replays it in every `make test`.
#   FUZZ_TARGETS="pkt image" limits the targets; FUZZ_SECONDS=30 for CI.
set -u
BUILD=${BUILD:-build-fuzz}
SECS=${FUZZ_SECONDS:-600}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
SHARED=${SHARED:-$top/../shared}
CC=${FUZZ_CC:-clang}
FLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DPTB_FUZZING
 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
 -Idecoder -Isrc -Iui -I$BUILD/gen"
mkdir -p "$BUILD/obj" "$BUILD/gen" "$BUILD/fuzz"
# (replaced only when it changes: it counts among the headers below)
sh tools/embed.sh keymaps/*.keys >"$BUILD/gen/keymaps_builtin.h.new" 2>/dev/null ||
	echo 'static const struct { const char *name; const char *text; } keymaps_builtin[] = {{0,0}};' >"$BUILD/gen/keymaps_builtin.h.new"
cmp -s "$BUILD/gen/keymaps_builtin.h.new" "$BUILD/gen/keymaps_builtin.h" &&
	rm -f "$BUILD/gen/keymaps_builtin.h.new" ||
	mv "$BUILD/gen/keymaps_builtin.h.new" "$BUILD/gen/keymaps_builtin.h"

# One archive of everything but main(); the linker takes what a target needs.
# An object is made again when its source or any header is newer: a
# struct changed in a header and objects of the old layout linked with the
# new ones gave false findings (a "leak" in window, a crash in keymap).
objs=
hdr=$(ls -t decoder/*.h src/*.h ui/*.h "$BUILD/gen/keymaps_builtin.h" | head -1)
for f in decoder/*.c src/*.c ui/*.c; do
	[ -f "$f" ] || continue
	case $f in src/main.c) continue ;; esac
	o="$BUILD/obj/$(echo "$f" | tr / _).o"
	if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ "$hdr" -nt "$o" ]; then
		$CC $FLAGS $(pkg-config --cflags ncursesw) -c "$f" -o "$o" || exit 1
	fi
	objs="$objs $o"
done
rm -f "$BUILD/libfuzz.a" && ar rcs "$BUILD/libfuzz.a" $objs || exit 1
libs="$BUILD/libfuzz.a $(pkg-config --libs ncursesw) -lreadline -lxxhash -lZydis -lelf -lipt -lpthread -lm"

# Generated seeds for every target: small traces of every kind ptgen makes,
# and perf.data files around them (records cut anywhere, a hole, sideband),
# whole, within -max_len.
gen=$BUILD/gen-seeds
sh tests/fuzz/gen_seeds.sh "${MAIN_BUILD:-build}" "$gen" || exit 1

fail=0
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	t=${name#fuzz_}
	if [ -n "${FUZZ_TARGETS:-}" ] && ! echo " $FUZZ_TARGETS " | grep -q " $t "; then
		continue
	fi
	bin="$BUILD/$name"
	$CC $FLAGS -fsanitize=fuzzer "$src" $libs -o "$bin" || { fail=1; continue; }
	corpus="$BUILD/fuzz/$t/corpus"
	mkdir -p "$corpus"
	# Seeds: the shared traces (whole and in 4 KiB pieces), our regression
	# inputs, and per-target seeds in tests/fuzz/seeds/<t>/.
	for f in "$SHARED"/traces/*/*.bin "$SHARED"/traces/*/*.pt "$SHARED"/traces/*/perf.data*; do
		[ -f "$f" ] || continue
		b=$(basename "$f")
		[ -f "$corpus/$b.head" ] || head -c 4096 "$f" >"$corpus/$b.head"
	done
	for d in tests/fuzz/corpus/$t tests/fuzz/seeds/$t; do
		[ -d "$d" ] && cp -n "$d"/* "$corpus"/ 2>/dev/null
	done
	# the generated ones over an earlier run's: made again when the
	# tools change, an index blob's version with them
	for d in "$gen" "$gen-$t"; do
		[ -d "$d" ] && cp "$d"/* "$corpus"/ 2>/dev/null
	done
	echo "fuzz: $t for ${SECS}s"
	: >"$BUILD/fuzz/$t.start"
	( cd "$BUILD/fuzz/$t" && "$top/$bin" -max_total_time="$SECS" \
		-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		corpus >"$top/$BUILD/fuzz/$t.log" 2>&1 )
	rc=$?
	tail -n 12 "$BUILD/fuzz/$t.log"
	# The fuzzer's own status: a finding it could not write is one too.
	[ $rc = 0 ] || { echo "fuzz: $t exited with status $rc"; fail=1; }
	# The files this run wrote (an earlier run's stay until copied away).
	found=$(find "$BUILD/fuzz/$t" -maxdepth 1 -newer "$BUILD/fuzz/$t.start" \
		\( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
		-exec basename {} \;)
	if [ -n "$found" ]; then
		echo "fuzz: $t FOUND PROBLEMS:" $found
		fail=1
	fi
done
exit $fail
