/* tsr_uart_shim.h: internal interface between the C line model (tsr_uart_sim.c) and the C++ shim of tsr_uart_top. */
#ifndef TSR_UART_SHIM_H
#define TSR_UART_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Inputs of tsr_uart_top except the clock. */
typedef struct tsr_upins_in {
  uint8_t rst_n;
  uint8_t rx;
} tsr_upins_in_t;

/** Outputs of tsr_uart_top. */
typedef struct tsr_upins_out {
  uint8_t tx;
  uint8_t irq;
  uint8_t evt;
} tsr_upins_out_t;

typedef struct tsr_ushim tsr_ushim_t;

/** Build the model (clk low, inputs as given), open an FST trace if trace_path is set.
 *  NULL on failure, with one line in err. */
tsr_ushim_t *tsr_ushim_create(const char *trace_path, const tsr_upins_in_t *in,
                              tsr_upins_out_t *out, char *err, size_t errlen);

/** Finish the model and the trace, free everything. NULL is accepted. */
void tsr_ushim_destroy(tsr_ushim_t *s);

/** One clock cycle: rising edge with the inputs applied so far, then `in` and the falling
 *  edge; `out` gets the outputs, stable until the next rising edge. */
void tsr_ushim_cycle(tsr_ushim_t *s, const tsr_upins_in_t *in, tsr_upins_out_t *out);

#ifdef __cplusplus
}
#endif

#endif /* TSR_UART_SHIM_H */
