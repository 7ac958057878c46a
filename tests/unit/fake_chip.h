/* fake_chip.h: a functional model of the Tessera command engine behind the register map, for unit tests. */
#ifndef FAKE_CHIP_H
#define FAKE_CHIP_H

/*
 * The fake chip implements docs/commands.md in plain C behind the register
 * map: a command queue, the LOAD/MATMUL/STORE/FENCE/NOP semantics on
 * scratchpad, accumulator and external-memory arrays, the checks that raise
 * ERR_*, the dependency-token counters and the performance counters. It also
 * implements docs/sfu.md: the STORE flags SPAD, LUT and LEAKY and the SFU
 * command, whose functions it computes with the golden model
 * (sw/golden/tsr_sfu_golden.c) on the tensors it gathers from the scratchpad
 * layout. The firmware talks to it through an ordinary tsr_hal_t, exactly as
 * it will talk to the RTL.
 *
 * Commands are queued and executed when software next looks at STATUS (or
 * waits for the interrupt), either
 *   - serially, in program order, stopping with ERR_DEP_TOKEN on a pop of an
 *     empty counter (what every implementation must check), or
 *   - as an overlapping engine would: three in-order stages (load, compute,
 *     store) and a scheduler that, at each step, runs the head command of one
 *     stage whose pops can be satisfied. The policy decides which stage goes
 *     first (load-first lets loads run as far ahead as the tokens allow, and
 *     so on). A missing token then shows up as a wrong result, and a token
 *     cycle as a deadlock.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsr_driver.h"
#include "tsr_hal.h"

typedef enum policy {
  POL_SERIAL = 0,
  POL_LOAD_FIRST,
  POL_COMPUTE_FIRST,
  POL_STORE_FIRST,
  POL_RANDOM,
  POL_COUNT
} policy_t;

extern const char *const k_policy_name[POL_COUNT];

enum { TOK_L2C = 0, TOK_C2L = 1, TOK_C2S = 2, TOK_S2C = 3 };

typedef struct chip {
  uint32_t dim, spad_rows, acc_rows, axi_bytes;
  uint8_t *spad;  /* spad_rows x dim */
  int32_t *acc;   /* acc_rows x dim */
  uint8_t *dram;
  uint32_t dram_size;
  bool weights_loaded;
  /* queue */
  uint32_t word[8];
  uint32_t nwords;
  tsr_cmd_t *prog;
  size_t nprog, cap, next; /* commands [next, nprog) not yet executed */
  /* state */
  uint32_t err_code, err_idx, err_addr;
  uint32_t tokens[4];
  uint32_t max_token;
  bool deadlock;
  uint32_t irq_status, irq_enable;
  policy_t policy;
  uint32_t rng;
  /* what the run did */
  uint64_t macs, cmds, rd_bytes, wr_bytes;
  uint64_t n_op[6], n_load_spad, n_load_acc;
  uint64_t n_load_spad_rows;      /* ROWS of the scratchpad LOADs, summed */
  uint64_t n_sfu[TSR_FUNC_COUNT]; /* SFU commands per function */
  /* the SFU's table (LUT_LOAD); all zero after chip_init */
  uint8_t lut[256];
  /* fault injection: dependency bits removed from word 0 per stage */
  uint32_t strip[3];
} chip_t;

/** The one chip (tests run one job at a time). */
extern chip_t g_chip;

/** Free the chip's memories and zero every field. */
void chip_free(void);

/** A fresh chip: memories zeroed, no program, the given scheduling policy and seed. */
void chip_init(uint32_t dim, uint32_t spad_rows, uint32_t acc_rows, uint32_t dram_size,
               policy_t pol, uint32_t seed);

/** The register interface (read32, write32, wait_irq) of g_chip. */
extern const tsr_hal_ops_t k_chip_ops;

#endif /* FAKE_CHIP_H */
