# mk/block-uart.mk: block test of the UART host bridge (docs/host-link.md).
#
#   uart_bridge  tests/block/tsr_uart_bridge_tb.v  rtl/tsr_uart_bridge.v with its UART RX/TX:
#                every command and status, damaged, dropped and repeated frames, 400 random frames
#
# Runs with `make test-block` (mk/block.mk) and in `make test-uart` (mk/uart.mk); alone:
# `make test-block-uart_bridge`. (This file is read before mk/block.mk, so it only sets variables.)

BLOCK_TESTS += uart_bridge
BLOCK_RTL_uart_bridge := rtl/tsr_uart_bridge.v rtl/tsr_uart_rx.v rtl/tsr_uart_tx.v rtl/tsr_sram.v
