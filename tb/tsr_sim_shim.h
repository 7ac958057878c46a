/* tsr_sim_shim.h: internal interface between the C bench (tsr_sim.c) and the C++ Verilator shim. */
#ifndef TSR_SIM_SHIM_H
#define TSR_SIM_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "tsr_axi_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Not part of the library's exported API (tsr_sim.h is). The shim only moves
 * pin values between these structs and the Verilated tsr_top, toggles the
 * clock and writes the trace; all bench behaviour lives in C. */

/** Every input of tsr_top except the clock. */
typedef struct tsr_pins_in {
  uint8_t rst_n;
  /* AXI4-Lite register bus, driven by the bench's master */
  uint8_t awvalid, wvalid, wstrb, bready, arvalid, rready;
  uint32_t awaddr, wdata, araddr;
  /* AXI4 memory bus, driven by the memory model */
  tsr_axi_rsp_t mem;
} tsr_pins_in_t;

/** Every output of tsr_top. */
typedef struct tsr_pins_out {
  /* AXI4-Lite register bus */
  uint8_t awready, wready, bvalid, bresp, arready, rvalid, rresp;
  uint32_t rdata;
  /* AXI4 memory bus */
  tsr_axi_req_t mem;
  uint8_t irq;
} tsr_pins_out_t;

typedef struct tsr_shim tsr_shim_t;

/** Build the Verilated model with clk low and all inputs 0 (reset asserted),
 *  evaluate it, and open an FST trace if `trace_path` is not NULL. Fills
 *  `out`. NULL on failure, with one line in err. */
tsr_shim_t *tsr_shim_create(const char *trace_path, tsr_pins_out_t *out, char *err, size_t errlen);

/** Finish the model, flush and close the trace, free everything. NULL is accepted. */
void tsr_shim_destroy(tsr_shim_t *s);

/** One clock cycle: rising edge with the inputs applied so far, then the new
 *  inputs `in` and the falling edge. Fills `out` with the outputs that are
 *  stable until the next rising edge. */
void tsr_shim_cycle(tsr_shim_t *s, const tsr_pins_in_t *in, tsr_pins_out_t *out);

/** Apply `in` now, without a clock edge (used to assert reset), and fill `out`. */
void tsr_shim_apply(tsr_shim_t *s, const tsr_pins_in_t *in, tsr_pins_out_t *out);

/** Data width of the AXI4 master port of the Verilated model, in bytes. */
unsigned tsr_shim_axi_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* TSR_SIM_SHIM_H */
