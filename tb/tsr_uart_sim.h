/* tsr_uart_sim.h: C API of the Verilated board top fpga/tsr_uart_top.v with a bit-level UART line model. */
#ifndef TSR_UART_SIM_H
#define TSR_UART_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One library per array size, build/uart/lib/libtsruart_d<N>.so (mk/uart.mk),
 * exporting exactly these functions; sw/hal/tsr_uart_simlink.c loads it with
 * dlopen. The board is tsr_uart_top with ArrayDim N and the parameters the
 * library reports (on-chip memory, baud divisor, inter-byte timeout, MaxLen).
 *
 * The line model works on the pins, bit by bit, at the bridge's baud
 * divisor: bytes given to tsr_usim_send wait in a queue and are serialized
 * onto uart_rx_i (start bit, 8 data bits LSB first, stop bit, back to back);
 * uart_tx_o is sampled in the middle of each bit and every decoded byte goes
 * into a receive queue. Time advances only inside tsr_usim_step and
 * tsr_usim_recv, so a caller that does not wait does not lose cycles.
 */

typedef struct tsr_usim tsr_usim_t;

/** Counters of the line and of the bridge's evt_o pulses. */
typedef struct tsr_usim_stats {
  uint64_t cycles;           /**< clock cycles since create */
  uint64_t bytes_to_dev;     /**< bytes fully sent on uart_rx_i */
  uint64_t bytes_from_dev;   /**< bytes decoded from uart_tx_o */
  uint64_t line_errors;      /**< bytes from uart_tx_o with a bad stop bit (must stay 0) */
  uint64_t frames_ok;        /**< evt_o[0]: requests with a good CRC */
  uint64_t crc_errors;       /**< evt_o[1]: requests with a bad CRC */
  uint64_t abandoned;        /**< evt_o[2]: frames given up (timeout, LEN) */
  uint64_t framing_errors;   /**< evt_o[3]: bytes with a bad stop bit at the bridge */
  uint64_t replays;          /**< evt_o[4]: repeated writes not executed */
  uint64_t reg_writes;       /**< evt_o[5]: register writes issued (AW handshakes) */
  uint64_t mem_writes;       /**< evt_o[6]: memory bytes written by the bridge */
} tsr_usim_stats_t;

/** Build the board, hold reset for 8 cycles; trace_path: FST file or NULL. NULL on failure,
 *  with one line in err. */
tsr_usim_t *tsr_usim_open(const char *trace_path, char *err, size_t errlen);

/** tsr_usim_open, with the failure's line on stderr. */
tsr_usim_t *tsr_usim_create(const char *trace_path);

/** Finish the trace and free everything. NULL is accepted. */
void tsr_usim_destroy(tsr_usim_t *u);

/** Queue bytes for the line to the bridge. -1 if the queue (64 KiB) cannot take them. */
int tsr_usim_send(tsr_usim_t *u, const uint8_t *src, size_t n);

/** Step until at least one byte from the bridge is in the receive queue or `max_cycles`
 *  pass, then move up to `n` bytes into `dst`. Returns how many. */
size_t tsr_usim_recv(tsr_usim_t *u, uint8_t *dst, size_t n, uint64_t max_cycles);

/** Advance the clock. */
void tsr_usim_step(tsr_usim_t *u, uint64_t cycles);

/** Cycles since create. */
uint64_t tsr_usim_cycles(const tsr_usim_t *u);

/** Level of irq_o now. */
int tsr_usim_irq(const tsr_usim_t *u);

/** Copy the counters. */
void tsr_usim_stats(const tsr_usim_t *u, tsr_usim_stats_t *st);

/** ArrayDim of this library's board. */
unsigned tsr_usim_array_dim(void);

/** The bridge's baud divisor (clock cycles per bit). */
unsigned tsr_usim_clk_per_bit(void);

#ifdef __cplusplus
}
#endif

#endif /* TSR_UART_SIM_H */
