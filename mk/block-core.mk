# mk/block-core.mk: block tests of the compute core and the command processor.
#
#   pe    tests/block/tsr_pe_tb.v     rtl/tsr_pe.v: exhaustive int8 x int8 on both banks, wrap
#   array tests/block/tsr_array_tb.v  rtl/tsr_array.v at ArrayDim 4, 8 and 16 (one build)
#   sram  tests/block/tsr_sram_tb.v   rtl/tsr_sram.v at four Width x Depth shapes (one build)
#   ctrl  tests/block/tsr_ctrl_tb.v   rtl/tsr_ctrl.v against behavioural units
#   cmd_fetch tests/block/tsr_cmd_fetch_tb.v rtl/tsr_cmd_fetch.v: the command ring fetcher
#         against a behavioural AXI4 read slave and command queue (rings, windows, errors)
#
# They run with `make test-block` (mk/block.mk); one alone: `make test-block-ctrl`.
# BLOCK_SIM and BLOCK_ARGS work as there, e.g. make test-block-array BLOCK_ARGS=+seed=7
# (This file is read before mk/block.mk, so it only sets variables.)

BLOCK_TESTS += pe array sram ctrl cmd_fetch
BLOCK_RTL_pe    := rtl/tsr_pe.v
BLOCK_RTL_array := rtl/tsr_array.v rtl/tsr_pe.v rtl/tsr_delay.v
BLOCK_RTL_sram  := rtl/tsr_sram.v
BLOCK_RTL_ctrl  := rtl/tsr_ctrl.v rtl/tsr_stage_fifo.v rtl/tsr_sram.v
BLOCK_RTL_cmd_fetch := rtl/tsr_cmd_fetch.v
