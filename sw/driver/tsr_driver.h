/* tsr_driver.h: Tessera driver: device discovery, command packing, submit, wait, counters, errors. */
#ifndef TSR_DRIVER_H
#define TSR_DRIVER_H

/*
 * Freestanding (stdint/stddef/stdbool only; no malloc, no stdio): the same
 * source runs on the host (sim, Linux) and in RV32IM firmware. Every call
 * returns a tsr_status_t; on failure a one-line explanation is left in the
 * device (tsr_dev_error()).
 *
 * The command layout follows docs/commands.md (8 little-endian 32-bit words);
 * its opcodes, fields, SFU functions and error codes come from the generated
 * tessera_cmds.h (source: rtl/regs/tessera_cmds.toml).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera_cmds.h"
#include "tsr_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Identification ------------------------------------------------------ */

#define TSR_VENDOR_ID 0x5453u  /**< ID.VENDOR: 'TS' */
#define TSR_ID_MAJOR_SUPPORTED 1u  /**< ID.MAJOR this driver speaks */

/* ---- Command format (docs/commands.md) ----------------------------------- */

/* TSR_CMD_WORDS, the opcodes TSR_OP_*, the fields TSR_CMD_<OP>_W<n>_<FIELD>_* and
 * the SFU functions TSR_FUNC_* are in tessera_cmds.h. The names below are the
 * driver's long-standing ones, kept as aliases of the generated ones. */
#define TSR_CMD_OPCODE_MASK TSR_CMD_W0_OPCODE_MASK
/* Dependency flags of word 0: pass an OR of these as `deps`. */
#define TSR_DEP_POP_PREV (1u << TSR_CMD_W0_POP_PREV_BIT)   /**< wait for a token from the previous stage */
#define TSR_DEP_POP_NEXT (1u << TSR_CMD_W0_POP_NEXT_BIT)   /**< wait for a token from the next stage */
#define TSR_DEP_PUSH_PREV (1u << TSR_CMD_W0_PUSH_PREV_BIT) /**< give a token to the previous stage when done */
#define TSR_DEP_PUSH_NEXT (1u << TSR_CMD_W0_PUSH_NEXT_BIT) /**< give a token to the next stage when done */
#define TSR_DEP_MASK (TSR_DEP_POP_PREV | TSR_DEP_POP_NEXT | TSR_DEP_PUSH_PREV | TSR_DEP_PUSH_NEXT)
/* Not a dependency but passed the same way: any command builder's `deps` may also carry
 * TSR_DEP_IRQ_CMD, which raises IRQ_STATUS.CMD when the command retires (word 0 IRQ_CMD). */
#define TSR_DEP_IRQ_CMD (1u << TSR_CMD_W0_IRQ_CMD_BIT)
/* Opcode-specific flags (word 0, in the FLAGS field). */
#define TSR_LOAD_DEST_ACC_BIT TSR_CMD_LOAD_W0_DEST_BIT
#define TSR_MATMUL_ACCUMULATE_BIT TSR_CMD_MATMUL_W0_ACCUMULATE_BIT
#define TSR_MATMUL_KEEP_WEIGHTS_BIT TSR_CMD_MATMUL_W0_KEEP_WEIGHTS_BIT
#define TSR_STORE_BIAS_BIT TSR_CMD_STORE_W0_BIAS_BIT
#define TSR_STORE_REQUANT_BIT TSR_CMD_STORE_W0_REQUANT_BIT
#define TSR_STORE_PER_CHANNEL_BIT TSR_CMD_STORE_W0_PER_CHANNEL_BIT
#define TSR_STORE_SPAD_BIT TSR_CMD_STORE_W0_SPAD_BIT
#define TSR_STORE_LUT_BIT TSR_CMD_STORE_W0_LUT_BIT
#define TSR_STORE_LEAKY_BIT TSR_CMD_STORE_W0_LEAKY_BIT
#define TSR_FENCE_IRQ_BIT TSR_CMD_FENCE_W0_IRQ_BIT
#define TSR_SFU_FUNC_OFFSET TSR_CMD_SFU_W0_FUNC_OFFSET
#define TSR_SFU_FUNC_MASK TSR_CMD_SFU_W0_FUNC_MASK
/* Field limits. */
#define TSR_CMD_LOCAL_MASK TSR_CMD_LOAD_W4_LOCAL_MASK /**< 24-bit local (scratchpad/accumulator) row fields */
#define TSR_CMD_MAX_ROWS TSR_CMD_LOAD_W3_ROWS_MASK    /**< 16-bit ROWS/COLS/M fields */
#define TSR_SHIFT_MIN (-31)
#define TSR_SHIFT_MAX 30

/* SFU functions TSR_FUNC_* (docs/sfu.md): tessera_cmds.h. */
/* Parameter block sizes in int32 words (docs/sfu.md; the golden model's
 * TSR_*_PARAM_WORDS in tsr_sfu.h have the same values). */
#define TSR_SFU_SOFTMAX_WORDS 3u
#define TSR_SFU_LAYERNORM_WORDS 8u
#define TSR_SFU_ADD_WORDS 11u
#define TSR_SFU_MUL_WORDS 7u
#define TSR_SFU_LUT_ENTRIES 256u /**< bytes of a lookup table */
/** Words of the parameter block of SFU function `func` (0: the function has none). */
uint32_t tsr_sfu_param_words(uint32_t func);
/** Whether SFU function `func` reads a second tensor B shaped like A at SRC2 (ADD, MUL). */
bool tsr_sfu_two_tensors(uint32_t func);
/* Accumulator rows after PARAM that a LEAKY store reads (PARAM+3, PARAM+4). */
#define TSR_STORE_PARAM_ROWS 3u
#define TSR_STORE_PARAM_ROWS_LEAKY 5u

/** One command: 8 words, word 0 first. */
typedef struct tsr_cmd {
  uint32_t w[TSR_CMD_WORDS];
} tsr_cmd_t;

/** Destination of a LOAD. */
typedef enum tsr_load_dest {
  TSR_LOAD_SPAD = 0,  /**< scratchpad, chunk = N bytes (load stage) */
  TSR_LOAD_ACC = 1    /**< accumulator, chunk = N int32 (compute stage) */
} tsr_load_dest_t;

/** LOAD arguments (docs/commands.md, LOAD). */
typedef struct tsr_load_args {
  tsr_load_dest_t dest;
  uint32_t addr;    /**< external byte address of the first row */
  uint32_t stride;  /**< bytes between row starts */
  uint32_t rows;    /**< 1..65535 */
  uint32_t cols;    /**< bytes per row, 1..65535 */
  uint32_t local;   /**< first local row */
} tsr_load_args_t;

/** MATMUL arguments (docs/commands.md, MATMUL). */
typedef struct tsr_matmul_args {
  uint32_t a_addr;  /**< scratchpad row of A's first row */
  uint32_t w_addr;  /**< scratchpad row of the first weight row */
  uint32_t c_addr;  /**< accumulator row of the first result row */
  uint32_t m;       /**< rows of A, 1..65535 */
  uint32_t k;       /**< weight rows, 1..65535: ceil(K/N) tiles, tile t with A rows a_addr + t*m */
  uint32_t n;       /**< useful output columns, 1..N */
  bool accumulate;  /**< add to the accumulator instead of overwriting */
  bool keep_weights;/**< reuse the weights in the array (w_addr, k, n ignored) */
} tsr_matmul_args_t;

/** STORE arguments (docs/commands.md, STORE; docs/sfu.md, STORE additions). */
typedef struct tsr_store_args {
  uint32_t addr;     /**< external byte address of the first output row */
  uint32_t stride;   /**< bytes between output rows */
  uint32_t rows;     /**< 1..65535 */
  uint32_t cols;     /**< output elements (SPAD: bytes) per row, 1..N */
  uint32_t src;      /**< first accumulator row (SPAD: first scratchpad row) */
  uint32_t param;    /**< accumulator row of the bias; +1 multipliers, +2 shifts (+3, +4 LEAKY) */
  bool bias;         /**< add the bias row */
  bool requant;      /**< requantize to int8 (else raw int32) */
  bool per_channel;  /**< multiplier/shift per column from rows param+1/param+2 */
  bool spad;         /**< copy scratchpad rows out unchanged (no other output-stage flag) */
  bool lut;          /**< each int8 result through the last LUT_LOAD's table (needs REQUANT) */
  bool leaky;        /**< negative x: multiplier/shift from rows param+3/param+4 (needs REQUANT) */
  int32_t mult;      /**< per-tensor multiplier */
  int32_t shift;     /**< per-tensor shift, -31..30, positive = left */
  int32_t out_zp;    /**< int8 */
  int32_t act_min;   /**< int8 */
  int32_t act_max;   /**< int8, >= act_min */
} tsr_store_args_t;

/**
 * SFU arguments (docs/sfu.md, opcode 5). Tensors are int8 in the scratchpad
 * in LOAD's layout: element (r, j) of a tensor at row BASE is byte j mod N
 * of row BASE + (j div N) * rows + r. Only the fields `func` uses are
 * checked and packed (the others are written as 0); LUT_LOAD packs ROWS = 1,
 * LEN = 256, the shape of the table.
 */
typedef struct tsr_sfu_args {
  uint32_t func;   /**< TSR_FUNC_* */
  uint32_t src;    /**< scratchpad row of tensor A (LUT_LOAD: of the table) */
  uint32_t dst;    /**< scratchpad row of the int8 result (REDUCE: accumulator row) */
  uint32_t rows;   /**< 1..65535 */
  uint32_t len;    /**< elements per row, 1..65535 */
  uint32_t src2;   /**< scratchpad row of B (ADD) or of gamma (LAYERNORM, one row of len) */
  uint32_t param;  /**< accumulator row of the parameter block (SOFTMAX, LAYERNORM, ADD) */
  uint32_t aux;    /**< accumulator row of beta (LAYERNORM: len int32) */
} tsr_sfu_args_t;

/* ---- Device ---------------------------------------------------------------- */

/** What the chip reports about itself (ID, CONFIG, SPAD_ROWS, ACC_ROWS). */
typedef struct tsr_dev_info {
  uint32_t id;          /**< raw ID register */
  uint32_t version;     /**< MAJOR << 8 | MINOR */
  uint32_t dim;         /**< N of the N x N array */
  uint32_t axi_bytes;   /**< AXI master data width in bytes */
  uint32_t cmdq_depth;  /**< command queue depth in commands */
  uint32_t spad_rows;   /**< scratchpad rows of N int8 */
  uint32_t acc_rows;    /**< accumulator rows of N int32 */
  bool has_sfu;         /**< CONFIG.SFU: the special-function unit is built in */
  uint32_t store_lanes; /**< 2^CONFIG.LANES_LOG2: output-stage lanes; a STORE takes
                             dim / store_lanes cycles per row */
} tsr_dev_info_t;

#define TSR_DEV_ERRLEN 192u

struct tsr_dev;

/**
 * Where tsr_submit sends commands when it does not write CMDQ_PUSH. The
 * command ring (tsr_ring.h, tsr_ring_attach) installs one; the driver calls
 * it through this table, so that a program without a ring links no ring code.
 */
typedef struct tsr_submit_path {
  /** Take one command (tsr_submit). */
  tsr_status_t (*submit)(struct tsr_dev *dev, const tsr_cmd_t *cmd);
  /** Hand every command taken so far to the chip (tsr_wait calls it first). */
  tsr_status_t (*flush)(struct tsr_dev *dev);
  /** The chip was soft reset: forget the commands not yet handed over. */
  void (*reset)(struct tsr_dev *dev);
} tsr_submit_path_t;

/** A device handle. The caller owns the storage; nothing is allocated. */
typedef struct tsr_dev {
  tsr_hal_t hal;
  tsr_dev_info_t info;
  uint32_t poll_limit;  /**< register reads a poll may take before TSR_TIMEOUT */
  uint32_t cmds_pushed; /**< commands pushed since open/soft reset (= index of the next one) */
  char err[TSR_DEV_ERRLEN];  /**< last error, one line, NUL-terminated */
  uint64_t reg_reads;   /**< register reads the driver made since open (tsr_host_reg_accesses) */
  uint64_t reg_writes;  /**< register writes the driver made since open */
  const tsr_submit_path_t *path; /**< NULL: tsr_submit writes CMDQ_PUSH; else the ring's path */
  void *path_ctx;       /**< the path's state (a tsr_ring_t) */
} tsr_dev_t;

/** Default poll_limit set by tsr_dev_open. */
#define TSR_DEFAULT_POLL_LIMIT (1u << 30)

/** Message for a status code ("bad argument", ...). Never NULL. */
const char *tsr_status_str(tsr_status_t st);

/** The last error message of `dev` ("" when none). Never NULL. */
const char *tsr_dev_error(const tsr_dev_t *dev);

/**
 * Bind `dev` to `hal`, read ID, CONFIG, SPAD_ROWS and ACC_ROWS into dev->info.
 * TSR_NO_DEVICE if the vendor code is not 0x5453, MAJOR is not
 * TSR_ID_MAJOR_SUPPORTED, or CONFIG is implausible.
 */
tsr_status_t tsr_dev_open(tsr_dev_t *dev, const tsr_hal_t *hal);

/** Register reads plus writes the driver made on `dev` since tsr_dev_open (0 for NULL). */
uint64_t tsr_host_reg_accesses(const tsr_dev_t *dev);

/** Read a register (counted in reg_reads; a failure leaves a message in dev->err). */
tsr_status_t tsr_reg_read(tsr_dev_t *dev, uint32_t off, uint32_t *val);

/** Write a register (counted in reg_writes; a failure leaves a message in dev->err). */
tsr_status_t tsr_reg_write(tsr_dev_t *dev, uint32_t off, uint32_t val);

/** Write CTRL.SOFT_RESET: flush the queue, clear errors, tokens and IRQ_STATUS. */
tsr_status_t tsr_soft_reset(tsr_dev_t *dev);

/**
 * Let LOAD and STORE touch only external bytes base..limit (inclusive); with
 * `lock`, freeze the window until a hardware reset. TSR_BAD_ARG if base > limit;
 * TSR_BUS if the window is already locked (nothing changes then).
 */
tsr_status_t tsr_set_dma_window(tsr_dev_t *dev, uint32_t base, uint32_t limit, bool lock);

/* ---- Command builders: validate against dev->info, then pack --------------- */

/** Pack a LOAD. `deps` is an OR of TSR_DEP_* allowed for the LOAD's stage. */
tsr_status_t tsr_cmd_load(tsr_dev_t *dev, uint32_t deps, const tsr_load_args_t *a, tsr_cmd_t *cmd);
/** Pack a MATMUL (compute stage). */
tsr_status_t tsr_cmd_matmul(tsr_dev_t *dev, uint32_t deps, const tsr_matmul_args_t *a,
                            tsr_cmd_t *cmd);
/**
 * Pack a STORE (store stage: only POP_PREV/PUSH_PREV). Besides the field
 * ranges it rejects what the chip refuses with ERR_PARAM at decode (LUT or
 * LEAKY without REQUANT; SPAD with BIAS, REQUANT, PER_CHANNEL, LUT or LEAKY;
 * a per-tensor SHIFT outside -31..30; ACT_MIN > ACT_MAX), PARAM+5 beyond the
 * accumulator with LEAKY, and with SPAD, SRC+ROWS beyond the scratchpad.
 */
tsr_status_t tsr_cmd_store(tsr_dev_t *dev, uint32_t deps, const tsr_store_args_t *a,
                           tsr_cmd_t *cmd);
/**
 * Pack an SFU command (compute stage). Rejects, with a one-line message,
 * everything the chip refuses at decode: an unknown FUNC, ROWS or LEN of 0
 * (or above 65535), and any region the function uses that leaves its memory
 * (docs/sfu.md, "Range checks"). Parameter values are checked by the chip
 * when it reads the block, not here.
 */
tsr_status_t tsr_cmd_sfu(tsr_dev_t *dev, uint32_t deps, const tsr_sfu_args_t *a, tsr_cmd_t *cmd);
/** Pack a FENCE; `irq` sets IRQ_STATUS.FENCE when it retires. A fence
 *  belongs to no stage, so it takes no dependency flags. */
tsr_status_t tsr_cmd_fence(tsr_dev_t *dev, bool irq, tsr_cmd_t *cmd);
/** Pack a NOP (compute stage) that only honours its dependency flags. */
tsr_status_t tsr_cmd_nop(tsr_dev_t *dev, uint32_t deps, tsr_cmd_t *cmd);

/**
 * Wait (at most dev->poll_limit reads) until CMDQ_STATUS.FREE > 0, then write
 * the 8 words to CMDQ_PUSH. TSR_HW_ERROR if the engine stopped on an error
 * while the queue was full; TSR_TIMEOUT if the queue stayed full.
 * With a command ring attached (tsr_ring_attach), append the command to the
 * ring instead (tsr_ring_append); tsr_wait then hands it to the chip.
 */
tsr_status_t tsr_submit(tsr_dev_t *dev, const tsr_cmd_t *cmd);

/** How tsr_wait waits. */
typedef enum tsr_wait_mode {
  TSR_WAIT_POLL = 0,  /**< read STATUS until BUSY is clear */
  TSR_WAIT_IRQ = 1    /**< enable DONE|ERROR interrupts and sleep in the HAL's wait_irq */
} tsr_wait_mode_t;

/**
 * Wait until the engine is idle; with a ring attached, first advance RING_TAIL
 * over every appended command (tsr_ring_flush). `max`: POLL: STATUS reads (0 = dev->poll_limit);
 * IRQ: passed to the HAL's wait_irq (sim: cycles; 0 = backend default). With
 * IRQ and no wait_irq op the driver polls. Returns TSR_OK, TSR_HW_ERROR (read
 * the cause with tsr_read_error) or TSR_TIMEOUT (the message names CMD_IDX,
 * OPCODE and STATUS).
 */
tsr_status_t tsr_wait(tsr_dev_t *dev, tsr_wait_mode_t mode, uint64_t max);

/* ---- Errors ---------------------------------------------------------------- */

/** ERR_CODE values (docs/commands.md): TSR_ERR_<NAME>, from tessera_cmds.h's TSR_ERR_LIST. */
typedef enum tsr_hw_error {
#define TSR_ERR_ENUM_(name, value, msg) TSR_ERR_##name = (value),
  TSR_ERR_LIST(TSR_ERR_ENUM_)
#undef TSR_ERR_ENUM_
} tsr_hw_error_t;

/** Read ERR_CODE, ERR_CMD_IDX and ERR_ADDR. Any pointer may be NULL. */
tsr_status_t tsr_read_error(tsr_dev_t *dev, uint32_t *code, uint32_t *cmd_idx, uint32_t *addr);

/** "NAME: explanation" for an ERR_CODE value; unknown codes get a message too. */
const char *tsr_hw_error_str(uint32_t code);

/* ---- Performance counters --------------------------------------------------- */

/** The CNT_* counters. */
typedef struct tsr_counters {
  uint64_t cycles;  /**< cycles since the last clear */
  uint64_t busy;    /**< cycles with STATUS.BUSY */
  uint64_t macs;    /**< useful multiply-accumulates */
  uint64_t dma_rd;  /**< bytes read by the DMA (whole beats) */
  uint64_t dma_wr;  /**< bytes written by the DMA (strobed bytes) */
  uint64_t cmds;    /**< commands retired */
  /* Where the busy cycles went: each busy cycle is in exactly one of these
   * six (first match in this order), so they add up to `busy`. */
  uint64_t array;     /**< an A row entered the array: compute */
  uint64_t fill;      /**< weight load or drain of the array: pipeline fill */
  uint64_t load_wait; /**< array idle, a LOAD (DMA read) running */
  uint64_t store;     /**< array idle, no LOAD, a STORE running */
  uint64_t sfu;       /**< only the SFU running */
  uint64_t ctrl;      /**< no unit running: command fetch, decode, token waits */
  /* Memory stalls at the AXI4 master (they overlap the classes above). */
  uint64_t rd_stall;  /**< the DMA read waited on memory (AR or R) */
  uint64_t wr_stall;  /**< the DMA write waited on memory (AW, W or B) */
} tsr_counters_t;

/** Read every counter coherently (HI, LO, HI; retry if HI changed). */
tsr_status_t tsr_counters_read(tsr_dev_t *dev, tsr_counters_t *c);

/** Write CTRL.COUNTERS_CLEAR. */
tsr_status_t tsr_counters_clear(tsr_dev_t *dev);

/* ---- Requantization parameters ---------------------------------------------- */

/**
 * TFLite QuantizeMultiplier (sw/driver/tsr_quant.c) for a real scale, checked for
 * the hardware: TSR_BAD_ARG unless the result's shift is within -31..30.
 */
tsr_status_t tsr_requant_multiplier(double real_scale, int32_t *mult, int32_t *shift);

#ifdef __cplusplus
}
#endif

#endif /* TSR_DRIVER_H */
