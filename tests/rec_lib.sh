# rec_lib -- tests/progs/p_sample recorded (tools/record.sh: four threads on
# two CPUs, a shared library, MMAP2/COMM/switch sideband, an MTC every
# crystal clock) for the tests that need a real program's code.  A
# recording costs about 15 s of system time (ptrace), so `make test` makes
# `make sample-code`'s once and every test copies it; a test run alone, or
# with the recording missing or older than what makes it, records its own.
#   . tests/rec_lib.sh
#   rec_sample DIR || { echo "FAIL $rec_err"; exit 1; }
rec_sample() {
	rec_err=
	for _f in "$BUILD/tools/ptrecord" "$BUILD/tools/pt2perf" "$BUILD/progs/p_sample"; do
		[ -x "$_f" ] || { rec_err="$_f is missing"; return 1; }
	done
	_s=$BUILD/sample-code
	if [ -f "$_s/perf.data" ] && [ -f "$_s/trace.sideband" ] &&
	   [ -z "$(find "$BUILD/tools/ptrecord" "$BUILD/tools/pt2perf" \
		"$BUILD/progs/p_sample" "$BUILD/progs/libptbdemo.so" tools/record.sh \
		-newer "$_s/perf.data" 2>/dev/null)" ]; then
		cp -r "$_s" "$1" && return 0
	fi
	sh tools/record.sh "$1" "$BUILD" 1 >/dev/null 2>"$1.err" ||
		{ rec_err="record.sh: $(cat "$1.err")"; return 1; }
}
