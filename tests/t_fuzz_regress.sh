#!/bin/sh
# Replay every saved fuzz input (tests/fuzz/corpus/<target>/, and the seeds
# in tests/fuzz/seeds/<target>/) through its
# target, built with the regular compiler and tests/fuzz/driver.c against the
# libraries of this build, so every crash ever found stays fixed.
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
out=$BUILD/fuzz-replay
mkdir -p "$out"
case $BUILD in *san*) san="-fsanitize=address,undefined" ;; *) san= ;; esac
fail=0 n=0
# Generated traces and perf.data files (gen_seeds.sh) go through every
# target too: a perf.data reader never seeing a perf.data is no test.
gen=$out/gen-seeds
sh tests/fuzz/gen_seeds.sh "$BUILD" "$gen" || { echo "FAIL gen_seeds"; exit 1; }
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c); t=${t#fuzz_}
	bin=$out/$t
	$CC -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -g -O1 $san \
		-Idecoder -Isrc -Iui -I"$BUILD/gen" "$src" tests/fuzz/driver.c \
		"$BUILD/libptui.a" "$BUILD/libptapp.a" "$BUILD/libptdec.a" \
		$(pkg-config --libs ncursesw) -lreadline -lxxhash -lZydis \
		$(pkg-config --libs libdw 2>/dev/null) -lelf -lipt -lpthread -lm \
		-o "$bin" || { echo "FAIL build $t"; fail=1; continue; }
	n=$((n + 1))
	# Saved findings, the target's seeds (tests/fuzz/seeds/<target>/) and
	# its generated ones (gen-seeds-<target>/).
	inputs=$gen
	for d in tests/fuzz/corpus/$t tests/fuzz/seeds/$t "$gen-$t"; do
		[ -d "$d" ] && [ -n "$(ls "$d")" ] && inputs="$inputs $d"
	done
	# and the shared traces, whole
	"$bin" $inputs "${SHARED:-../shared}"/traces/*/*.bin \
		"${SHARED:-../shared}"/traces/*/perf.data* >"$out/$t.log" 2>&1 ||
		{ echo "FAIL $t"; cat "$out/$t.log"; fail=1; continue; }
	echo "ok   $t: $(tail -n 1 "$out/$t.log")"
done
[ $n -gt 0 ] || { echo "no fuzz targets"; exit 1; }
exit $fail
