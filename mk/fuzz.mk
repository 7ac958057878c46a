# mk/fuzz.mk: fuzzing of the chip (seeded loop on the Verilated model) and of the host-side
# parsers (libFuzzer: the .npy reader and the CLI's argument handling).
#
#   make fuzz          ~10 min chip campaign (FUZZ_CHIP_SECONDS) + 5 min per libFuzzer harness
#                      (FUZZ_LIBFUZZER_SECONDS); also replays the corpus first
#   make fuzz-short    ~60 s chip campaign + 10 s per harness + corpus replay (for make test)
#   make fuzz-replay   only the regression corpus (tests/fuzz/corpus/), seconds
#   FUZZ_SEED=S        replay a chip campaign (every run prints its seed)
#
# Sources: tests/fuzz/fuzz_chip.c, fuzz_prog.c and fuzz_ring.c (its programs and ring programs; links tests/system/sys_util.c + sw + fw like the system
# tests), tests/fuzz/fuzz_npy.c (links sw/lib/tsr_npy.c), tests/fuzz/fuzz_cli.c (links the CLI
# without its main and the sources of libtessera, mk/sw.mk). Seeds of the libFuzzer corpora
# are in tests/fuzz/seeds/<harness>/; inputs that found bugs are in tests/fuzz/corpus/
# (chip/*.prog, npy/*, cli/*, net/*) and are replayed by every fuzz target. A new finding is
# written to build/fuzz/findings/; copy it into tests/fuzz/corpus/ once fixed.

FUZZ_DIR      := $(BUILD)/fuzz
FUZZ_DIM      ?= 8
FUZZ_SEED     ?=
FUZZ_CHIP_SECONDS       ?= 600
FUZZ_CHIP_SHORT_SECONDS ?= 60
FUZZ_LIBFUZZER_SECONDS  ?= 300
FUZZ_LIBFUZZER_SHORT    ?= 10
FUZZ_CLANG    ?= clang
FUZZ_CFLAGS    = $(CSTD) $(CWARN) -g -O1 -fsanitize=fuzzer,address,undefined \
                 -fno-sanitize-recover=undefined $(INCS)
FUZZ_CHIP_BIN := $(FUZZ_DIR)/fuzz_chip
FUZZ_NPY_BIN  := $(FUZZ_DIR)/fuzz_npy
FUZZ_CLI_BIN  := $(FUZZ_DIR)/fuzz_cli
FUZZ_NET_BIN  := $(FUZZ_DIR)/fuzz_net
# The CLI without its main (sw/cli/tessera.c) and libtessera, from source with the fuzzer's flags.
FUZZ_CLI_SRCS := $(SW_CLI_SRCS) $(SW_LIB_SRCS)
FUZZ_CLI_FILES := $(FUZZ_DIR)/cli-files
FUZZ_FINDINGS := $(FUZZ_DIR)/findings

FUZZ_NEED_CLANG = @printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
  | $(FUZZ_CLANG) -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1 || \
  { echo "fuzz: $(FUZZ_CLANG) with libFuzzer not found: apt-get install clang libclang-rt-14-dev"; exit 1; }

# ---- build ---------------------------------------------------------------------------------

$(FUZZ_CHIP_BIN): tests/fuzz/fuzz_chip.c tests/fuzz/fuzz_prog.c tests/fuzz/fuzz_ring.c tests/fuzz/fuzz_chip.h $(SYS_LIB_OBJS) \
                 tests/system/sys_util.h tb/tsr_sim.h mk/fuzz.mk
	@mkdir -p $(@D)
	$(CC) $(SYS_CFLAGS) -Itests/system -o $@ tests/fuzz/fuzz_chip.c tests/fuzz/fuzz_prog.c tests/fuzz/fuzz_ring.c $(SYS_LIB_OBJS) -ldl -lm

$(FUZZ_NPY_BIN): tests/fuzz/fuzz_npy.c sw/lib/tsr_npy.c sw/lib/tsr_npy.h mk/fuzz.mk
	$(FUZZ_NEED_CLANG)
	@mkdir -p $(@D)
	$(FUZZ_CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_npy.c sw/lib/tsr_npy.c

$(FUZZ_CLI_BIN): tests/fuzz/fuzz_cli.c $(FUZZ_CLI_SRCS) $(wildcard sw/cli/*.h sw/lib/*.h) mk/fuzz.mk
	$(FUZZ_NEED_CLANG)
	@mkdir -p $(@D)
	$(FUZZ_CLANG) $(FUZZ_CFLAGS) -Isw/cli -o $@ tests/fuzz/fuzz_cli.c $(FUZZ_CLI_SRCS) -ldl -lm

$(FUZZ_NET_BIN): tests/fuzz/fuzz_net.c tests/common/tsr_tsr_forge.h $(SW_LIB_SRCS) $(wildcard sw/lib/*.h) mk/fuzz.mk
	$(FUZZ_NEED_CLANG)
	@mkdir -p $(@D)
	$(FUZZ_CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_net.c $(SW_LIB_SRCS) -ldl -lm

# The files the CLI harness maps every file option to.
$(FUZZ_CLI_FILES)/stamp: mk/fuzz.mk
	@mkdir -p $(@D)
	@$(PYTHON) -c 'import numpy' 2>/dev/null || { echo "fuzz: numpy not found: pip install numpy (or apt-get install python3-numpy)"; exit 1; }
	@$(PYTHON) -c 'import numpy as np; d="$(@D)"; \
	  np.save(d+"/a34.npy", np.ones((3,4), np.int8)); np.save(d+"/b52.npy", np.ones((5,2), np.int8)); \
	  np.save(d+"/b42.npy", np.ones((4,2), np.int8)); np.save(d+"/a34i32.npy", np.ones((3,4), np.int32)); \
	  np.save(d+"/bias3.npy", np.ones(3, np.int32)); np.save(d+"/bias2.npy", np.ones(2, np.int32)); \
	  np.save(d+"/mult2.npy", np.full(2, 1 << 30, np.int32)); np.save(d+"/sh2.npy", np.array([0, 40], np.int32)); \
	  np.save(d+"/a1d.npy", np.ones(4, np.int8)); open(d+"/junk.npy","wb").write(b"not a npy file")'
	@touch $@

.PHONY: fuzz-bins
fuzz-bins: $(FUZZ_CHIP_BIN) $(FUZZ_NPY_BIN) $(FUZZ_CLI_BIN) $(FUZZ_NET_BIN) $(FUZZ_CLI_FILES)/stamp

# ---- run -----------------------------------------------------------------------------------

fuzz_chip_cmd = TSR_SIM_LIB_DIR=$(BUILD)/lib $(FUZZ_CHIP_BIN) --dim $(FUZZ_DIM) --seconds $(1) \
  --save $(FUZZ_FINDINGS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))
fuzz_replay_cmd = TSR_SIM_LIB_DIR=$(BUILD)/lib $(FUZZ_CHIP_BIN) --dim $(FUZZ_DIM) \
  --replay $(wildcard tests/fuzz/corpus/chip/*.prog) && \
  $(FUZZ_NPY_BIN) -runs=0 $(wildcard tests/fuzz/corpus/npy/*) $(wildcard tests/fuzz/seeds/npy/*) && \
  FUZZ_CLI_FILES=$(FUZZ_CLI_FILES) $(FUZZ_CLI_BIN) -runs=0 $(wildcard tests/fuzz/corpus/cli/*) $(wildcard tests/fuzz/seeds/cli/*) && \
  $(FUZZ_NET_BIN) -runs=0 $(wildcard tests/fuzz/corpus/net/*) $(wildcard tests/fuzz/seeds/net/*)
# libFuzzer campaign: $(1) harness, $(2) seconds. The working corpus lives in build/.
fuzz_lf_cmd = mkdir -p $(FUZZ_DIR)/work-$(1) $(FUZZ_FINDINGS) && \
  FUZZ_CLI_FILES=$(FUZZ_CLI_FILES) $(FUZZ_DIR)/fuzz_$(1) -max_total_time=$(2) -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix=$(FUZZ_FINDINGS)/$(1)- \
  $(FUZZ_DIR)/work-$(1) tests/fuzz/seeds/$(1) tests/fuzz/corpus/$(1) 2>&1 | \
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss)|ERROR|SUMMARY|Test unit written|crash|leak' ; \
  test $${PIPESTATUS[0]} -eq 0

fuzz_run = @set -u; start=$$(date +%s); \
  echo "== fuzz: corpus replay"; { $(fuzz_replay_cmd); } >$(FUZZ_DIR)/replay.log 2>&1 || { cat $(FUZZ_DIR)/replay.log; echo "fuzz: FAILED: corpus replay"; exit 1; }; \
  grep -E '^fuzz_chip: [0-9]+ programs' $(FUZZ_DIR)/replay.log; \
  echo "fuzz: $$(grep -c '^Executed' $(FUZZ_DIR)/replay.log) libFuzzer corpus and seed inputs replayed"; \
  echo "== fuzz: chip, $(1) s"; $(call fuzz_chip_cmd,$(1)) || { echo "fuzz: FAILED: chip"; exit 1; }; \
  echo "== fuzz: npy reader (libFuzzer), $(2) s"; $(call fuzz_lf_cmd,npy,$(2)) || { echo "fuzz: FAILED: npy"; exit 1; }; \
  echo "== fuzz: CLI arguments (libFuzzer), $(2) s"; $(call fuzz_lf_cmd,cli,$(2)) || { echo "fuzz: FAILED: cli"; exit 1; }; \
  echo "== fuzz: .tflite and .tsr readers and compiler (libFuzzer), $(2) s"; $(call fuzz_lf_cmd,net,$(2)) || { echo "fuzz: FAILED: net"; exit 1; }; \
  echo "fuzz: PASSED in $$(( $$(date +%s) - start )) s"

.PHONY: fuzz fuzz-short fuzz-replay
fuzz: $(BUILD)/lib/libtsrsim_d$(FUZZ_DIM).so fuzz-bins ## fuzz campaign: corpus, 10 min chip fuzzer, 5 min libFuzzer each on .npy reader, CLI args and .tflite/.tsr
	$(call fuzz_run,$(FUZZ_CHIP_SECONDS),$(FUZZ_LIBFUZZER_SECONDS))

fuzz-short: $(BUILD)/lib/libtsrsim_d$(FUZZ_DIM).so fuzz-bins ## short fuzz run for make test: corpus, 60 s chip, 10 s per libFuzzer harness
	$(call fuzz_run,$(FUZZ_CHIP_SHORT_SECONDS),$(FUZZ_LIBFUZZER_SHORT))

fuzz-replay: $(BUILD)/lib/libtsrsim_d$(FUZZ_DIM).so fuzz-bins ## replay the fuzz regression corpus (tests/fuzz/corpus/)
	@$(fuzz_replay_cmd)
