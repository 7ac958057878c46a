# mk/block-out.mk: block tests of the output stage and the compute units around the array.
#
#   requant  tests/block/tsr_requant_tb.v  rtl/tsr_requant.v (with tsr_lut): 10^6 random rows
#            and the corners against the golden C model (sw/golden, sw/driver/tsr_quant.c)
#            through DPI-C (tests/block/tsr_requant_ref.c); Icarus: the bench's Verilog model
#   lut      tests/block/tsr_lut_tb.v      rtl/tsr_lut.v, both read modes, N 4, 8 and 16
#   store    tests/block/tsr_store_tb.v    rtl/tsr_store.v against a behavioural model
#   sfu      tests/block/tsr_sfu_tb.v      rtl/tsr_sfu.v, every microprogram (docs/sfu.md)
#   matmul   tests/block/tsr_matmul_tb.v   rtl/tsr_matmul.v against a behavioural model
#
# They run with `make test-block` (mk/block.mk); one alone: `make test-block-requant`.
# BLOCK_SIM and BLOCK_ARGS work as there, e.g. make test-block-requant BLOCK_ARGS=+seed=7
# (This file is read before mk/block.mk, so it only sets variables and adds prerequisites.)

BLOCK_TESTS += requant
BLOCK_RTL_requant := rtl/tsr_requant.v rtl/tsr_lut.v

# The golden model as one archive, linked into the Verilated bench.
BLOCK_REQUANT_REF := $(BUILD)/block/requant/ref/libref.a
BLOCK_REQUANT_SRC := tests/block/tsr_requant_ref.c sw/golden/tsr_golden.c sw/driver/tsr_quant.c
BLOCK_DPI_requant := $(abspath $(BLOCK_REQUANT_REF))

$(BUILD)/block/requant/verilator/Vtb: $(BLOCK_REQUANT_REF)

$(BLOCK_REQUANT_REF): $(BLOCK_REQUANT_SRC) sw/golden/tsr_golden.h sw/driver/tsr_quant.h
	@mkdir -p $(@D)
	@rm -f $@
	@for c in $(BLOCK_REQUANT_SRC); do \
	  $(CC) $(CSTD) $(CWARN) -O2 -fPIC -Isw/golden -Isw/driver -c $$c -o $(@D)/$$(basename $$c .c).o || exit 1; \
	done
	@ar rcs $@ $(patsubst %.c,$(@D)/%.o,$(notdir $(BLOCK_REQUANT_SRC)))

BLOCK_TESTS += store
BLOCK_RTL_store := rtl/tsr_store.v rtl/tsr_requant.v rtl/tsr_lut.v
BLOCK_DPI_store := $(BLOCK_DPI_requant)
$(BUILD)/block/store/verilator/Vtb: $(BLOCK_REQUANT_REF)

BLOCK_TESTS += matmul
BLOCK_RTL_matmul := rtl/tsr_matmul.v rtl/tsr_array.v rtl/tsr_pe.v rtl/tsr_delay.v

BLOCK_TESTS += lut
BLOCK_RTL_lut := rtl/tsr_lut.v

BLOCK_TESTS += sfu
BLOCK_RTL_sfu := rtl/tsr_sfu.v rtl/tsr_sfu_rom.v rtl/tsr_lut.v
BLOCK_SFU_REF := $(BUILD)/block/sfu/ref/libref.a
BLOCK_SFU_SRC := tests/block/tsr_sfu_ref.c sw/golden/tsr_sfu_golden.c sw/lib/tsr_sfu_prep.c sw/driver/tsr_quant.c
BLOCK_DPI_sfu := $(abspath $(BLOCK_SFU_REF))

$(BUILD)/block/sfu/verilator/Vtb: $(BLOCK_SFU_REF)

$(BLOCK_SFU_REF): $(BLOCK_SFU_SRC) sw/golden/tsr_sfu.h sw/driver/tsr_quant.h
	@mkdir -p $(@D)
	@rm -f $@
	@for c in $(BLOCK_SFU_SRC); do \
	  $(CC) $(CSTD) $(CWARN) -O2 -fPIC -Isw/golden -Isw/driver -c $$c -o $(@D)/$$(basename $$c .c).o || exit 1; \
	done
	@ar rcs $@ $(patsubst %.c,$(@D)/%.o,$(notdir $(BLOCK_SFU_SRC)))
