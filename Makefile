# ptbrowse -- an interactive terminal browser for Intel PT packet traces.
#
#   make            build ptbrowse and the tools
#   make run        install what is missing, build, open the sample trace
#   make test       install what is missing, build, run every test
#   make bench      benchmarks (ratios against baselines measured in the same run)
#   make fuzz       run every fuzz target (FUZZ_SECONDS each, default 600)
#   make screenshots  regenerate screenshots/ from the real program
#
# Knobs: V=1 shows commands, DEVELOPER=1 adds -Werror, SANITIZE=1 builds with
# ASan+UBSan, BUILD=dir puts objects elsewhere.  -include config.mak for more.

-include config.mak

BUILD    ?= build
CC       ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS   ?= -O2 -g
WARN      = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
ifdef DEVELOPER
WARN     += -Werror
endif
ifdef SANITIZE
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
BUILD     = build-san
endif

CURSES_CFLAGS := $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
CURSES_LIBS   := $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)
RL_CFLAGS     := $(shell $(PKG_CONFIG) --cflags readline 2>/dev/null)
RL_LIBS       := $(shell $(PKG_CONFIG) --libs readline 2>/dev/null || echo -lreadline)
XXH_CFLAGS    := $(shell $(PKG_CONFIG) --cflags libxxhash 2>/dev/null)
XXH_LIBS      := $(shell $(PKG_CONFIG) --libs libxxhash 2>/dev/null || echo -lxxhash)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
IPT_LIBS      := -lipt
# The code layer: libelf for ELF files and symbols, libdw (optional) for
# source lines, Zydis (no pkg-config file in Debian) for x86 instructions.
ELF_CFLAGS    := $(shell $(PKG_CONFIG) --cflags libelf 2>/dev/null)
ELF_LIBS      := $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null || echo -lelf)
HAVE_LIBDW    := $(shell $(PKG_CONFIG) --exists libdw 2>/dev/null && echo 1)
ifeq ($(HAVE_LIBDW),1)
DW_CFLAGS     := -DHAVE_LIBDW $(shell $(PKG_CONFIG) --cflags libdw 2>/dev/null)
DW_LIBS       := $(shell $(PKG_CONFIG) --libs libdw 2>/dev/null)
endif
ZYDIS_LIBS    := -lZydis

BASE_CFLAGS = -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) $(CFLAGS)
# The layering, enforced: each layer is compiled seeing only its own headers
# and those below it (decoder <- src <- ui), and only the libraries it uses,
# so an upward include does not compile.  Only src/main.c sees ui/.
# tests/t_layering.sh catches what flags cannot ("../ui/x.h", <curses.h>).
DEC_CFLAGS  = -Idecoder
APP_CFLAGS  = -Isrc -Idecoder $(XXH_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
UI_CFLAGS   = -Iui -I$(BUILD)/gen $(CURSES_CFLAGS) $(RL_CFLAGS) $(APP_CFLAGS)
# Tools and benchmarks use the decoder and src/, never the UI.
TOOL_CFLAGS = -Isrc -Idecoder $(ELF_CFLAGS)
# Tests may test any layer.
TEST_CFLAGS = $(UI_CFLAGS) $(CMOCKA_CFLAGS)
$(BUILD)/decoder/%.o: LAYER_CFLAGS = $(DEC_CFLAGS)
$(BUILD)/src/%.o:     LAYER_CFLAGS = $(APP_CFLAGS)
$(BUILD)/src/main.o:  LAYER_CFLAGS = $(UI_CFLAGS)
$(BUILD)/ui/%.o:      LAYER_CFLAGS = $(UI_CFLAGS)
$(BUILD)/tools/%.o:   LAYER_CFLAGS = $(TOOL_CFLAGS)
$(BUILD)/bench/%.o:   LAYER_CFLAGS = $(TOOL_CFLAGS)
$(BUILD)/tests/%.o:   LAYER_CFLAGS = $(TEST_CFLAGS)
DEPFLAGS = -MMD -MP

ifndef V
QUIET_CC  = @echo '   CC    ' $@;
QUIET_AR  = @echo '   AR    ' $@;
QUIET_LD  = @echo '   LD    ' $@;
QUIET_GEN = @echo '   GEN   ' $@;
endif

DEC_SRC   := $(sort $(wildcard decoder/*.c))
APP_SRC   := $(sort $(filter-out src/main.c,$(wildcard src/*.c)))
UI_SRC    := $(sort $(wildcard ui/*.c))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TOOL_SRC  := $(sort $(wildcard tools/*.c))
# ptrecord is several files, in tools/ptrec/, linked into one program.
PTREC_SRC := $(sort $(wildcard tools/ptrec/*.c))
# Small real programs that tools/ptrecord records for tests and the sample.
PROG_SRC  := $(sort $(wildcard tests/progs/p_*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
KEYMAPS   := $(sort $(wildcard keymaps/*.keys))

DEC_LIB = $(BUILD)/libptdec.a
APP_LIB = $(BUILD)/libptapp.a
UI_LIB  = $(BUILD)/libptui.a
PROG    = $(BUILD)/ptbrowse
TESTS   = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TOOLS   = $(TOOL_SRC:tools/%.c=$(BUILD)/tools/%) $(BUILD)/tools/ptrecord
PROGS   = $(PROG_SRC:tests/progs/%.c=$(BUILD)/progs/%) $(BUILD)/progs/libptbdemo.so
BENCHES = $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

# What src/ and the decoder link with; the UI adds curses and readline.
APP_LIBS = $(APP_LIB) $(DEC_LIB) $(XXH_LIBS) $(DW_LIBS) $(ELF_LIBS) $(ZYDIS_LIBS) \
	-lpthread -lm
LIBS = $(UI_LIB) $(APP_LIBS) $(CURSES_LIBS) $(RL_LIBS)

all: $(PROG) ptbrowse $(TOOLS) $(PROGS)
.PHONY: all deps run test check bench fuzz screenshots clean install sample-code

# The program's name at the top, so `./ptbrowse` works from a checkout.
ptbrowse: $(PROG)
	@ln -sf $(PROG) $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(BASE_CFLAGS) $(LAYER_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Keymap files are compiled into the binary and parsed by the user-file parser.
$(BUILD)/gen/keymaps_builtin.h: $(KEYMAPS) tools/embed.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh tools/embed.sh $(KEYMAPS) > $@.tmp && mv $@.tmp $@
$(UI_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/test_keymap.o: $(BUILD)/gen/keymaps_builtin.h

$(DEC_LIB): $(DEC_SRC:%.c=$(BUILD)/%.o)
	$(QUIET_AR)rm -f $@ && ar rcs $@ $^
$(APP_LIB): $(APP_SRC:%.c=$(BUILD)/%.o)
	$(QUIET_AR)rm -f $@ && ar rcs $@ $^
$(UI_LIB): $(UI_SRC:%.c=$(BUILD)/%.o)
	$(QUIET_AR)rm -f $@ && ar rcs $@ $^

$(PROG): $(BUILD)/src/main.o $(UI_LIB) $(APP_LIB) $(DEC_LIB)
	$(QUIET_LD)$(CC) $(LDFLAGS) -o $@ $< $(LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(UI_LIB) $(APP_LIB) $(DEC_LIB)
	$(QUIET_LD)$(CC) $(LDFLAGS) -o $@ $< $(LIBS) $(CMOCKA_LIBS) $(IPT_LIBS)
$(BUILD)/tools/%: $(BUILD)/tools/%.o $(APP_LIB) $(DEC_LIB)
	$(QUIET_LD)$(CC) $(LDFLAGS) -o $@ $< $(APP_LIBS) $(IPT_LIBS)
$(BUILD)/tools/ptrecord: $(PTREC_SRC:%.c=$(BUILD)/%.o) $(APP_LIB) $(DEC_LIB)
	$(QUIET_LD)$(CC) $(LDFLAGS) -o $@ $(PTREC_SRC:%.c=$(BUILD)/%.o) $(APP_LIBS)
# The test programs: plain -O1 code with frame pointers, a shared library of
# our own found through $ORIGIN, threads.
PROG_CFLAGS = -O1 -g -fno-omit-frame-pointer -Wall
$(BUILD)/progs/libptbdemo.so: tests/progs/libptbdemo.c tests/progs/ptbdemo.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(PROG_CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/progs/p_%: tests/progs/p_%.c tests/progs/ptbdemo.h $(BUILD)/progs/libptbdemo.so
	$(QUIET_CC)$(CC) $(PROG_CFLAGS) -o $@ $< -L$(BUILD)/progs -lptbdemo \
		-Wl,-rpath,'$$ORIGIN' -pthread
$(BUILD)/bench/%: $(BUILD)/bench/%.o $(APP_LIB) $(DEC_LIB)
	$(QUIET_LD)$(CC) $(LDFLAGS) -o $@ $< $(APP_LIBS) $(IPT_LIBS)

# Set-up: install what is missing (apt-get, sudo when not root); silent when all is there.
deps:
	@sh tools/deps.sh

SAMPLE = $(BUILD)/sample.pt
SAMPLE_SIZE ?= 256MiB
# ptgen writes sample.pt.options beside it (the timing options that give
# times in ns and MHz); a sample made before it did gets one from
# --print-config.
$(SAMPLE): | $(BUILD)/tools/ptgen
	$(QUIET_GEN)$(BUILD)/tools/ptgen --seed 1 --size $(SAMPLE_SIZE) -o $@.tmp && \
		mv $@.tmp.options $@.options && mv $@.tmp $@
$(SAMPLE).options: | $(BUILD)/tools/ptgen
	$(QUIET_GEN)$(BUILD)/tools/ptgen --seed 1 --print-config >$@.tmp && mv $@.tmp $@

# A real program recorded by tools/ptrecord: tests/progs/p_sample's four
# threads on two simulated CPUs, its shared library, MMAP2/COMM/switch
# sideband, wrapped by pt2perf into DIR/perf.data, with an MTC every crystal
# clock (the MHz on the first screen).  DIR also holds the raw streams
# (trace.cpuN: ptgen's timing options with --mtc-freq 0), their instruction
# logs (trace.cpuN.flow) and the code images (trace.options).  SAMPLE_CODE_SCALE multiplies the work;
# `make bench` records a bigger one the same way (bench/b_record.sh).
SAMPLE_CODE = $(BUILD)/sample-code
SAMPLE_CODE_SCALE ?= 1
$(SAMPLE_CODE)/perf.data: tools/record.sh $(BUILD)/tools/ptrecord $(BUILD)/tools/pt2perf $(BUILD)/progs/p_sample
	$(QUIET_GEN)sh tools/record.sh $(SAMPLE_CODE) $(BUILD) $(SAMPLE_CODE_SCALE)
sample-code: $(SAMPLE_CODE)/perf.data

# The sample is a real program's recording (sample-code: function names,
# threads on two CPUs, times in ns); where ptrace cannot record, the
# generated one (else for benchmarks).
run: deps
	@$(MAKE) --no-print-directory all
	@if $(MAKE) --no-print-directory sample-code; then \
		exec $(PROG) $(SAMPLE_CODE)/perf.data; \
	else \
		echo "make run: recording tests/progs/p_sample failed; opening a generated trace" >&2; \
		$(MAKE) --no-print-directory $(SAMPLE) $(SAMPLE).options && exec $(PROG) $(SAMPLE); \
	fi

# Builds and tests run JOBS at a time (default: one per CPU).
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

test check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all $(TESTS) $(BENCHES)
	@# one recording of p_sample for every test that needs code (tests/rec_lib.sh)
	@$(MAKE) --no-print-directory sample-code || \
		echo "make test: recording the sample failed; each test records its own"
	@BUILD=$(BUILD) JOBS=$(JOBS) sh tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory all $(BENCHES)
	@BUILD=$(BUILD) sh bench/run.sh

FUZZ_SECONDS ?= 600
fuzz: deps
	@$(MAKE) --no-print-directory all
	@BUILD=build-fuzz MAIN_BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh

screenshots: all sample-code
	@BUILD=$(BUILD) sh tools/screenshots.sh

prefix ?= /usr/local
install: all
	install -D -m 755 $(PROG) $(DESTDIR)$(prefix)/bin/ptbrowse
	install -D -m 644 doc/ptbrowse.1 $(DESTDIR)$(prefix)/share/man/man1/ptbrowse.1

clean:
	rm -rf build build-san build-fuzz build-* ptbrowse

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
