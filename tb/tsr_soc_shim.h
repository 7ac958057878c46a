/* tsr_soc_shim.h: internal interface between the SoC bench (tsr_soc_sim.c) and the C++ shim of tsr_soc. */
#ifndef TSR_SOC_SHIM_H
#define TSR_SOC_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "tsr_axi_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Not exported (tsr_soc_sim.h is the library's API). Like tsr_sim_shim.h: the shim
 * only moves pins between these structs and the Verilated tsr_soc, clocks and traces. */

/** Every input of tsr_soc except the clock. */
typedef struct tsr_spins_in {
  uint8_t rst_n;
  uint8_t load_we;          /**< the RAM back door */
  uint32_t load_addr, load_wdata;
  tsr_axi_rsp_t mem;        /**< the external memory, driven by the memory model */
} tsr_spins_in_t;

/** Every output of tsr_soc. */
typedef struct tsr_spins_out {
  uint8_t console_valid, console_data;
  uint8_t exit_valid;
  uint32_t exit_code;
  uint8_t trap;
  uint32_t pc;              /**< pc_o: the last instruction fetch */
  uint32_t insn_pc;         /**< picorv32's dbg_insn_addr: the instruction it executes (read inside the model) */
  uint32_t chip_status;     /**< tsr_top's STATUS (BUSY, DONE, ERROR bits; read inside the model) */
  uint32_t chip_err;        /**< tsr_top's ERR_CODE (read inside the model) */
  uint8_t fault;
  uint32_t fault_addr;
  uint8_t fault_resp;
  uint8_t irq;
  tsr_axi_req_t mem;
} tsr_spins_out_t;

typedef struct tsr_sshim tsr_sshim_t;

/** Build the model (clk low, all inputs 0: reset asserted), evaluate it, open an FST
 *  trace if trace_path is set. Fills out. NULL on failure, with one line in err. */
tsr_sshim_t *tsr_sshim_create(const char *trace_path, tsr_spins_out_t *out, char *err, size_t errlen);

/** Finish the model and the trace, free everything. NULL is accepted. */
void tsr_sshim_destroy(tsr_sshim_t *s);

/** One clock cycle: rising edge with the inputs applied so far, then `in` and the falling
 *  edge; `out` gets the outputs, stable until the next rising edge. */
void tsr_sshim_cycle(tsr_sshim_t *s, const tsr_spins_in_t *in, tsr_spins_out_t *out);

/** Data width of the external memory port, in bytes. */
unsigned tsr_sshim_axi_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* TSR_SOC_SHIM_H */
