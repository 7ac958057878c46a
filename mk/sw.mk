# mk/sw.mk: host software: libtessera (HAL backends, driver, firmware, golden model, tensor
# I/O and sw/lib/tsr_lib_*.c), the tessera CLI over it, the RV32IM firmware size check, the
# include-layering check, and the unit-test sources of the sw/fw suites.
#
#   make sw                       build/lib/libtessera.a and .so (-ldl -lm; the simulator is
#                                 dlopen'ed) and build/bin/tessera, which links the .a
#   make sw SAN='-fsanitize=address,undefined -fno-omit-frame-pointer'
#   make test-cli                 the CLI's argument and input errors (no simulator needed), then
#                                 gemm --plan and a quick tessera bench on the DIM=N model (~25 s)
#   make fw-size                  cross-compile fw + driver + bare-metal HAL for RV32IM, print sizes
#   make layers-check             every #include points down the layers (tools/layers_check.py)

SW_BIN      := $(BUILD)/bin/tessera
SW_LIB_A    := $(BUILD)/lib/libtessera.a
SW_LIB_SO   := $(BUILD)/lib/libtessera.so
SW_OBJ_DIR  := $(BUILD)/sw/obj
# -fPIC: the same objects make the static and the shared library.
SW_CFLAGS    = $(CSTD) $(CWARN) $(CFLAGS) $(SAN) -fPIC $(INCS)
# libtessera: everything below the CLI (sw/lib/tessera.h is its API). The bare-metal HAL
# is firmware-only.
SW_LIB_SRCS := $(sort $(wildcard sw/lib/*.c)) $(FW_SRCS) $(sort $(wildcard sw/golden/*.c)) \
               sw/driver/tsr_driver.c sw/driver/tsr_ring.c sw/driver/tsr_quant.c \
               $(filter-out sw/hal/tsr_hal_baremetal.c,$(sort $(wildcard sw/hal/*.c)))
# The CLI: its entry point (sw/cli/tessera.c) and the rest, which tests/fuzz/fuzz_cli.c links.
SW_CLI_SRCS := $(filter-out sw/cli/tessera.c,$(sort $(wildcard sw/cli/*.c)))
SW_LIB_OBJS := $(patsubst %.c,$(SW_OBJ_DIR)/%.o,$(SW_LIB_SRCS))
SW_CLI_OBJS := $(patsubst %.c,$(SW_OBJ_DIR)/%.o,$(SW_CLI_SRCS))
SW_SRCS     := sw/cli/tessera.c $(SW_CLI_SRCS) $(SW_LIB_SRCS)
SW_OBJS     := $(patsubst %.c,$(SW_OBJ_DIR)/%.o,$(SW_SRCS))

# Rebuild when the flags change (e.g. SAN on or off).
SW_FLAGS_FILE := $(SW_OBJ_DIR)/flags.txt
$(SW_FLAGS_FILE): sw-flags-force
	@mkdir -p $(@D)
	@echo '$(SW_CFLAGS)' | cmp -s - $@ || echo '$(SW_CFLAGS)' > $@

.PHONY: sw-flags-force
sw-flags-force:

$(SW_OBJ_DIR)/%.o: %.c $(SW_FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(SW_CFLAGS) -MMD -MP -c $< -o $@

$(SW_LIB_A): $(SW_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(SW_LIB_SO): $(SW_LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -shared -Wl,--no-undefined -o $@ $^ -ldl -lm

$(SW_BIN): $(SW_OBJ_DIR)/sw/cli/tessera.o $(SW_CLI_OBJS) $(SW_LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $^ -ldl -lm

.PHONY: sw
sw: $(SW_BIN) $(SW_LIB_SO) ## build libtessera (build/lib/libtessera.a, .so) and the tessera CLI (build/bin/tessera)

-include $(shell find $(SW_OBJ_DIR) -name '*.d' 2>/dev/null)

# One line per #include that points up the layers (cli -> lib -> fw -> driver -> hal; lib and
# hal -> tb), includes a .c file, or puts a host-only header into freestanding code.
.PHONY: layers-check
layers-check: ## check that every #include points down the layers (cli > lib > fw > driver > hal)
	@$(PYTHON) tools/layers_check.py

# ---- unit tests (mk/unit.mk builds tests/unit/test_*.c) ----------------------------
UNIT_SRCS_test_driver := sw/driver/tsr_driver.c sw/hal/tsr_hal.c
UNIT_SRCS_test_tiler := $(FW_SRCS) sw/driver/tsr_driver.c sw/hal/tsr_hal.c tests/unit/fake_chip.c
UNIT_SRCS_test_sfu_fw := $(FW_SRCS) sw/driver/tsr_driver.c sw/hal/tsr_hal.c tests/unit/fake_chip.c
UNIT_SRCS_test_hal_devmem := sw/hal/tsr_hal_devmem.c sw/hal/tsr_hal_baremetal.c sw/hal/tsr_hal.c
UNIT_SRCS_test_lib := $(SW_LIB_SRCS)
UNIT_LDLIBS_test_lib := -ldl
# The roofline that tessera bench writes: no overlapping labels, leaders, the y range.
UNIT_SRCS_test_roofline := $(SW_LIB_SRCS)
UNIT_LDLIBS_test_roofline := -ldl

# ---- CLI error handling, gemm --plan, tessera bench ------------------------------------------
# Each case: expected exit status, a text the one-line message must contain, the arguments.
# These run without any simulator build (a --dim with no library is one of the cases).
# Then tests/cli/test_cli_sim.py checks `gemm --plan` (text and JSON) and runs
# `tessera bench --quick` (about 20 s) on the model in CLI_SIM_LIB_DIR. CLI_SIM_LIB_DIR is
# exported, so that the sub-makes that run test-cli with another BUILD (test-system's cli-asan,
# sanitize, coverage-c) use the model of the calling make instead of building one of their
# own; if it is not there, they skip these checks with a line that says so.
CLI_TMP := $(BUILD)/sw/cli-test
CLI_SIM_LIB_DIR ?= $(BUILD)/lib
export CLI_SIM_LIB_DIR
CLI_SIM_SO = $(CLI_SIM_LIB_DIR)/libtsrsim_d$(DIM).so
# CLI_BENCH=0 skips the quick bench (sanitize reruns test-cli; the main run, test-system's ASan
# run and coverage-c keep it).
CLI_BENCH ?= 1

.PHONY: test-cli
test-cli: $(SW_BIN) $(if $(filter $(BUILD)/lib,$(CLI_SIM_LIB_DIR)),$(BUILD)/lib/libtsrsim_d$(DIM).so) ## check the CLI's one-line errors for bad options and inputs, gemm --plan, and a quick tessera bench (~25 s)
	@mkdir -p $(CLI_TMP)
	@$(PYTHON) -c 'import numpy' 2>/dev/null || { echo "test-cli: numpy not found: pip install numpy (or apt-get install python3-numpy)"; exit 1; }
	@$(PYTHON) -c 'import numpy as np; d="$(CLI_TMP)"; \
	  np.save(d+"/a34.npy", np.ones((3,4), np.int8)); np.save(d+"/b52.npy", np.ones((5,2), np.int8)); \
	  np.save(d+"/b42.npy", np.ones((4,2), np.int8)); np.save(d+"/a34i32.npy", np.ones((3,4), np.int32)); \
	  np.save(d+"/bias3.npy", np.ones(3, np.int32)); np.save(d+"/sh2.npy", np.array([0, 40], np.int32)); \
	  np.save(d+"/a1d.npy", np.ones(4, np.int8)); open(d+"/junk.npy","wb").write(b"not a npy file"); \
	  np.save(d+"/lut256.npy", np.zeros(256, np.int8)); np.save(d+"/lut255.npy", np.zeros(255, np.int8)); \
	  np.save(d+"/lut256u8.npy", np.zeros(256, np.uint8)); np.save(d+"/x3d.npy", np.ones((2,2,2), np.int8)); \
	  np.save(d+"/empty.npy", np.ones((0,4), np.int8)); np.save(d+"/long.npy", np.ones((1,65536), np.int8)); \
	  np.save(d+"/g5.npy", np.ones(5, np.int8)); np.save(d+"/b4u8.npy", np.ones(4, np.uint8)); \
	  np.save(d+"/b4i32.npy", np.ones(4, np.int32)); \
	  np.save(d+"/ws3.npy", np.ones(3, np.float32)); \
	  np.save(d+"/a34i16.npy", np.ones((3,4), np.int16)); np.save(d+"/bias2be.npy", np.ones(2, ">i4"))'
	@set -u; fail=0; n=0; \
	check() { want_rc=$$1; want_msg=$$2; shift 2; n=$$((n+1)); \
	  out=$$(TSR_SIM_LIB_DIR=$(CLI_TMP)/nolib $(SW_BIN) "$$@" 2>&1 >/dev/null); rc=$$?; \
	  lines=$$(printf '%s\n' "$$out" | grep -c .); \
	  if [ $$rc -ne $$want_rc ] || [ $$lines -ne 1 ] || ! printf '%s' "$$out" | grep -qF -- "$$want_msg"; then \
	    echo "test-cli: FAIL: tessera $$* -> exit $$rc, $$lines line(s): $$out (wanted exit $$want_rc and '$$want_msg')"; fail=1; fi; }; \
	D=$(CLI_TMP); G0="gemm --a $$D/a34.npy --b $$D/b42.npy"; \
	check 2 "unknown command 'frob'" frob; \
	check 2 "unknown option '--bogus'" gemm --bogus 1; \
	check 2 "unknown option '--a'" info --a x.npy; \
	check 2 "'--a' needs a value" gemm --a; \
	check 2 "'--json' takes no value" gemm --json=1; \
	check 2 "given twice" gemm --m 1 --m 2; \
	check 2 "unexpected argument 'extra'" gemm extra; \
	check 2 "give both --a and --b" gemm --a $$D/a34.npy; \
	check 2 "A is 3x4 but B is 5x2: inner dimensions differ" gemm --a $$D/a34.npy --b $$D/b52.npy; \
	check 2 "expected int8, got int32" gemm --a $$D/a34i32.npy --b $$D/b42.npy; \
	check 2 "expected a 2-D array" gemm --a $$D/a1d.npy --b $$D/b42.npy; \
	check 2 "$$D/missing.npy" gemm --a $$D/missing.npy --b $$D/b42.npy; \
	check 2 "$$D/junk.npy" gemm --a $$D/junk.npy --b $$D/b42.npy; \
	check 2 "the bias has 3 values but B has 2 columns" gemm --a $$D/a34.npy --b $$D/b42.npy --bias $$D/bias3.npy; \
	check 2 "the shift of column 1, 40, is outside -31..30" gemm --a $$D/a34.npy --b $$D/b42.npy --mult 1073741824 --shift-npy $$D/sh2.npy; \
	check 2 "--shift: 31 is outside -31..30" gemm --a $$D/a34.npy --b $$D/b42.npy --mult 1073741824 --shift 31; \
	check 2 "--out-zp: 128 is outside -128..127" gemm --a $$D/a34.npy --b $$D/b42.npy --mult 1073741824 --out-zp 128; \
	check 2 "--act-min 5 is greater than --act-max 4" gemm --a $$D/a34.npy --b $$D/b42.npy --mult 1073741824 --act-min 5 --act-max 4; \
	check 2 "--mult: '1.5' is not an integer" gemm --a $$D/a34.npy --b $$D/b42.npy --mult 1.5; \
	check 2 "--mult: 2147483648 is outside" gemm --a $$D/a34.npy --b $$D/b42.npy --mult 2147483648; \
	check 2 "--a-zp: 200 is outside -128..127" $$G0 --a-zp 200; \
	check 2 "--submit: 'fifo' is neither stream nor regs" gemm --m 3 --k 4 --n 5 --submit fifo; \
	check 2 "--a-zp applies to --a/--b operands" gemm --m 3 --k 4 --n 5 --a-zp 1; \
	check 2 "give --mult/--shift or --a-scale/--w-scale/--out-scale, not both" $$G0 --mult 1073741824 --a-scale 0.1 --w-scale 0.1 --out-scale 1; \
	check 2 "requantization by scales needs --a-scale, --w-scale (or --w-scale-npy) and --out-scale" $$G0 --a-scale 0.1 --out-scale 1; \
	check 2 "give --w-scale or --w-scale-npy, not both" $$G0 --a-scale 0.1 --w-scale 0.1 --w-scale-npy $$D/ws3.npy --out-scale 1; \
	check 2 "the weight scales have 3 values but B has 2 columns" $$G0 --a-scale 0.1 --w-scale-npy $$D/ws3.npy --out-scale 1; \
	check 2 "--w-scale: 0 is not a valid scale" $$G0 --a-scale 0.1 --w-scale 0 --out-scale 1; \
	check 2 "cannot be represented" $$G0 --a-scale 1 --w-scale 1 --out-scale 1e-12; \
	check 2 "unsupported dtype int16 (supported: int8, uint8, int32, float32)" gemm --a $$D/a34i16.npy --b $$D/b42.npy; \
	check 2 "unsupported dtype big-endian int32: save it little-endian, np.save(path, x.astype('<i4'))" $$G0 --bias $$D/bias2be.npy; \
	check 2 "--mem-bw: 5000 is outside 0..4096" gemm --m 3 --k 4 --n 5 --mem-bw 5000; \
	check 2 "--mem-latency: -1 is outside 0..100000" gemm --m 3 --k 4 --n 5 --mem-latency -1; \
	check 2 "--mem-latency: 'x' is not an integer" gemm --m 3 --k 4 --n 5 --mem-latency x; \
	check 2 "--shift needs --mult" gemm --a $$D/a34.npy --b $$D/b42.npy --shift 3; \
	check 2 "--m/--k/--n, not both" gemm --a $$D/a34.npy --m 3; \
	check 2 "need all of --m, --k and --n" gemm --m 3 --k 4; \
	check 2 "--k: 0 is outside" gemm --m 3 --k 0 --n 4; \
	check 2 "--bias applies to --a/--b operands" gemm --m 3 --k 4 --n 5 --bias $$D/bias3.npy; \
	check 2 "--dim: 12 is not a power of two" gemm --m 3 --k 4 --n 5 --dim 12; \
	check 2 "--stall-pct: 101 is outside 0..100" gemm --m 3 --k 4 --n 5 --stall-pct 101; \
	check 2 "no simulator build for --dim 64" gemm --m 3 --k 4 --n 5 --dim 64; \
	check 2 "no simulator build for --dim 32" info --dim 32; \
	check 2 "the tested array sizes are 4, 8 and 16 ('make sim DIM=4|8|16')" info --dim 32; \
	check 2 "run 'make sim DIM=16'" info --dim 16; \
	check 2 "--dma needs --device" info --dma devmem:0x0,0x1000; \
	check 2 "cannot open /nonexistent/uio7" info --device uio:/nonexistent/uio7; \
	check 2 "not 4-byte aligned" info --device devmem:0x43c00002; \
	check 2 "--mem-latency applies to the simulator" info --device uio:/dev/uio0 --mem-latency 3; \
	G="gemm --a $$D/a34.npy --b $$D/b42.npy"; L="--op lut --lut $$D/lut256.npy"; \
	check 2 "sfu: --op is required" sfu --in $$D/a34.npy; \
	check 2 "--op: unknown function 'foo'" sfu --op foo --in $$D/a34.npy; \
	check 2 "sfu: --in-scale is required" sfu --op gelu --in $$D/a34.npy --out-scale 1; \
	check 2 "sfu: --out-scale is required" sfu --op gelu --in $$D/a34.npy --in-scale 1; \
	check 2 "--in-scale: 0 is not a valid scale" sfu --op gelu --in $$D/a34.npy --in-scale 0 --out-scale 1; \
	check 2 "--out-scale: -1 is not a valid scale" sfu --op tanh --in $$D/a34.npy --in-scale 1 --out-scale -1; \
	check 2 "--in-scale: 'nan' is not a finite number" sfu --op silu --in $$D/a34.npy --in-scale nan --out-scale 1; \
	check 2 "--in-zp: 200 is outside -128..127" sfu --op exp --in $$D/a34.npy --in-scale 1 --out-scale 1 --in-zp 200; \
	check 2 "sfu: --lut is required" sfu --op lut --in $$D/a34.npy; \
	check 2 "a lookup table must have shape (256,), got (255,)" sfu --op lut --lut $$D/lut255.npy --in $$D/a34.npy; \
	check 2 "a lookup table must be int8 (256,), got uint8" sfu --op lut --lut $$D/lut256u8.npy --in $$D/a34.npy; \
	check 2 "--in-scale applies to a named function" sfu $$L --in $$D/a34.npy --in-scale 1; \
	check 2 "--lut goes with --op lut" sfu --op gelu --lut $$D/lut256.npy --in $$D/a34.npy --in-scale 1 --out-scale 1; \
	check 2 "sfu: --in is required" sfu $$L; \
	check 2 "expected int8, got int32" sfu $$L --in $$D/a34i32.npy; \
	check 2 "expected a 1-D or 2-D array" sfu $$L --in $$D/x3d.npy; \
	check 2 "has no elements" sfu $$L --in $$D/empty.npy; \
	check 2 "the SFU takes at most 65535 per row" sfu $$L --in $$D/long.npy; \
	check 2 "$$D/junk.npy" sfu $$L --in $$D/junk.npy; \
	check 2 "softmax: --in-scale is required" softmax --in $$D/a34.npy; \
	check 2 "--beta: 0 must be > 0" softmax --in $$D/a34.npy --in-scale 0.1 --beta 0; \
	check 2 "gives no usable multiplier" softmax --in $$D/a34.npy --in-scale 1e-9; \
	check 2 "unknown option '--out-scale'" softmax --in $$D/a34.npy --in-scale 0.1 --out-scale 1; \
	check 2 "layernorm: --gamma is required" layernorm --in $$D/a34.npy --in-scale 0.1; \
	check 2 "gamma must have shape (4,) like a row of the input, got (5,)" layernorm --in $$D/a34.npy --in-scale 0.1 --gamma $$D/g5.npy --gamma-scale 0.1 --beta $$D/b4i32.npy --out-scale 0.1; \
	check 2 "gamma must be int8, got int32" layernorm --in $$D/a34.npy --in-scale 0.1 --gamma $$D/b4i32.npy --gamma-scale 0.1 --beta $$D/b4i32.npy --out-scale 0.1; \
	check 2 "beta must be float32 or int32, got uint8" layernorm --in $$D/a34.npy --in-scale 0.1 --gamma $$D/a1d.npy --gamma-scale 0.1 --beta $$D/b4u8.npy --out-scale 0.1; \
	check 2 "--eps: -1 must be >= 0" layernorm --in $$D/a34.npy --in-scale 0.1 --gamma $$D/a1d.npy --gamma-scale 0.1 --beta $$D/b4i32.npy --out-scale 0.1 --eps -1; \
	check 2 "--gamma-zp: 128 is outside -128..127" layernorm --in $$D/a34.npy --in-scale 0.1 --gamma $$D/a1d.npy --gamma-scale 0.1 --gamma-zp 128 --beta $$D/b4i32.npy --out-scale 0.1; \
	check 2 "add: --b is required" add --a $$D/a34.npy; \
	check 2 "add: --a-scale is required" add --a $$D/a34.npy --b $$D/a34.npy --b-scale 1 --out-scale 1; \
	check 2 "A is (3,4) but B is (4,2): the shapes must be equal" add --a $$D/a34.npy --b $$D/b42.npy --a-scale 1 --b-scale 1 --out-scale 1; \
	check 2 "add: --act-min 5 is greater than --act-max 4" add --a $$D/a34.npy --b $$D/a34.npy --a-scale 1 --b-scale 1 --out-scale 1 --act-min 5 --act-max 4; \
	check 2 "--act-max: 128 is outside -128..127" add --a $$D/a34.npy --b $$D/a34.npy --a-scale 1 --b-scale 1 --out-scale 1 --act-max 128; \
	check 2 "--in-zp: 200 is outside -128..127" softmax --in $$D/a34.npy --in-scale 0.1 --in-zp 200; \
	check 2 "--b-zp: -129 is outside -128..127" add --a $$D/a34.npy --b $$D/a34.npy --a-scale 1 --b-scale 1 --out-scale 1 --b-zp -129; \
	check 2 "reduce: --in is required" reduce; \
	check 2 "unknown option '--in-scale'" reduce --in $$D/a34.npy --in-scale 1; \
	check 2 "unknown option '--op'" info --op gelu; \
	check 2 "--act needs --mult, --mult-npy or the scales" $$G --act gelu; \
	check 2 "--act: unknown function 'foo'" $$G --mult 1073741824 --act foo; \
	check 2 "--act needs --out-scale" $$G --mult 1073741824 --act gelu; \
	check 2 "give --act or --act-lut, not both" $$G --mult 1073741824 --act gelu --act-lut $$D/lut256.npy --out-scale 1; \
	check 2 "a lookup table must have shape (256,)" $$G --mult 1073741824 --act-lut $$D/lut255.npy; \
	check 2 "--leaky: alpha 2 is outside 0..1" $$G --mult 1073741824 --leaky 2; \
	check 2 "--out-scale applies to --act" $$G --mult 1073741824 --out-scale 0.1; \
	check 2 "--leaky applies to --a/--b operands" gemm --m 3 --k 4 --n 5 --leaky 0.1; \
	check 2 "no simulator build for --dim 64" softmax --in $$D/a34.npy --in-scale 0.1 --dim 64; \
	check 2 "no simulator build for --dim 64" $$G --mult 1073741824 --act gelu --out-scale 0.1 --leaky 0.1 --dim 64; \
	check 2 "unknown option '--m'" bench --m 3 --out $$D/bench-x; \
	check 2 "unknown option '--seed'" bench --seed 3 --out $$D/bench-x; \
	check 2 "'--quick' takes no value" bench --quick=1; \
	check 2 "'--out' needs a value" bench --out; \
	check 2 "unexpected argument 'extra'" bench extra; \
	check 2 "--dim: 12 is not a power of two" bench --dim 12 --out $$D/bench-x; \
	check 2 "no simulator build for --dim 64" bench --dim 64 --out $$D/bench-x; \
	check 2 "cannot create directory $$D/junk.npy/sub" bench --out $$D/junk.npy/sub --quick; \
	check 2 "unknown command 'bnech'" bnech; \
	check 2 "--hal: unknown backend 'uart'" gemm --m 2 --k 2 --n 2 --hal uart; \
	check 2 "--mem-latency does not apply to --hal uart-sim" --hal uart-sim gemm --m 2 --k 2 --n 2 --mem-latency 3; \
	check 2 "--device does not apply to --hal sim" info --hal sim --device uio:/dev/uio0; \
	check 2 "uart: cannot open $$D/no-tty" --hal uart:$$D/no-tty,115200 info; \
	check 2 "is not a standard rate" info --hal=uart:$$D/no-tty,12345; \
	if [ $$fail -ne 0 ]; then exit 1; fi; echo "test-cli: all $$n error cases passed"
	@if [ -f $(CLI_SIM_SO) ]; then \
	  TSR_SIM_LIB_DIR=$(CLI_SIM_LIB_DIR) $(PYTHON) tests/cli/test_cli_sim.py --tessera $(SW_BIN) \
	    --dim $(DIM) --tmp $(CLI_TMP) $(if $(filter 0,$(CLI_BENCH)),--no-bench); \
	else echo "test-cli: skipped gemm --plan and tessera bench: no model $(CLI_SIM_SO) (make sim DIM=$(DIM))"; fi

# ---- firmware size (RV32IM, freestanding) ------------------------------------------------
FW_RV_PREFIX ?= riscv64-unknown-elf-
FW_RV_FLAGS  := -march=rv32im -mabi=ilp32 -ffreestanding -nostdlib -Os
FW_RV_SRCS   := $(FW_SRCS) sw/driver/tsr_driver.c sw/driver/tsr_ring.c sw/hal/tsr_hal.c sw/hal/tsr_hal_baremetal.c \
                sw/driver/tsr_quant.c
FW_RV_DIR    := $(BUILD)/fw/rv32im
FW_RV_OBJS   := $(patsubst %.c,$(FW_RV_DIR)/%.o,$(FW_RV_SRCS))

$(FW_RV_DIR)/%.o: %.c
	@command -v $(FW_RV_PREFIX)gcc >/dev/null || { echo "fw-size: $(FW_RV_PREFIX)gcc not found: apt-get install gcc-riscv64-unknown-elf"; exit 1; }
	@mkdir -p $(@D)
	$(FW_RV_PREFIX)gcc $(FW_RV_FLAGS) $(CSTD) $(CWARN) -Isw/include -Isw/hal -Isw/driver -Ifw/include -MMD -MP -c $< -o $@

# The partial link of all objects must leave no undefined symbol: the
# firmware needs no libc, no libgcc helper (no 64-bit division), no memcpy.
$(FW_RV_DIR)/tessera_fw.o: $(FW_RV_OBJS)
	$(FW_RV_PREFIX)gcc $(FW_RV_FLAGS) -Wl,-r -o $@ $^

.PHONY: fw-size
fw-size: $(FW_RV_DIR)/tessera_fw.o ## cross-compile fw + driver for RV32IM (-Os, freestanding) and print code size
	@undef=$$($(FW_RV_PREFIX)nm -u $<); \
	  if [ -n "$$undef" ]; then echo "fw-size: the firmware needs external symbols:" $$undef; exit 1; fi
	@$(FW_RV_PREFIX)size $(FW_RV_OBJS) $<
	@$(FW_RV_PREFIX)size $< | tail -n 1 | awk '{print "fw-size: fw + driver + HAL + quant = " $$4 " bytes for RV32IM (-Os), no external symbols"}'

-include $(shell find $(FW_RV_DIR) -name '*.d' 2>/dev/null)
