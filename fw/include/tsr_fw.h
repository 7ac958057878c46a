/* tsr_fw.h: Tessera firmware: GEMM tiler (planner) and executor, SFU job runners. */
#ifndef TSR_FW_H
#define TSR_FW_H

/*
 * Freestanding (stdint/stddef/stdbool; no malloc, stdio, libm, and no 64-bit
 * division): the same source runs on the host and on an RV32IM core.
 *
 * A GEMM C = A * B (+ bias, optional requantization) of any m, k, n >= 1 is cut
 * into tiles that fit the chip's scratchpad and accumulator:
 *
 *   for each m-tile (mt <= plan.mt rows)
 *     for each n-block (nt <= N columns)
 *       for each K chunk (kc <= plan.kc; plan.kc is a multiple of N)
 *         LOAD A[m0:+mt, k0:+kc] -> scratchpad (skipped while resident)
 *         LOAD B[k0:+kc, n0:+nt] -> scratchpad
 *         MATMUL per N-wide k-block, accumulating into the tile's rows
 *       LOAD bias / multipliers / shifts -> the tile's 3 parameter rows
 *         (5 with leaky: + negative-side multipliers and shifts)
 *       STORE the tile through the output stage (+ table with has_lut)
 *
 * tsr_gemm_plan() chooses the sizes and the buffer layout (a pure function);
 * tsr_gemm_run() emits the commands. fw/tsr_gemm_emit.c documents the dependency
 * token scheme that lets an overlapping engine run load, compute and store
 * concurrently.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsr_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One GEMM job in external memory. All addresses are device byte addresses. */
typedef struct tsr_gemm_desc {
  uint32_t m, k, n;       /**< C is m x n, A is m x k, B is k x n; all >= 1 */
  uint32_t a_addr, lda;   /**< int8 A, row stride in bytes (>= k) */
  uint32_t b_addr, ldb;   /**< int8 B, row stride in bytes (>= n) */
  uint32_t c_addr, ldc;   /**< C: int8 if requant, else int32; row stride in bytes */
  bool has_bias;          /**< add bias[n] (int32 at bias_addr) */
  uint32_t bias_addr;
  bool requant;           /**< int8 output through mbqm + zero point + clamp */
  bool per_channel;       /**< int32 mult[n] at mult_addr and shift[n] at shift_addr */
  uint32_t mult_addr, shift_addr;
  int32_t mult;           /**< per-tensor multiplier (requant && !per_channel) */
  int32_t shift;          /**< per-tensor shift, -31..30 */
  int32_t out_zp;         /**< int8 output zero point */
  int32_t act_min, act_max; /**< int8 clamp bounds */
  /* Fused activation (docs/sfu.md, STORE additions); both need requant. */
  bool has_lut;           /**< send every int8 output through the 256-entry table at lut_addr */
  uint32_t lut_addr;      /**< 256 int8, loaded once at job start (SFU LUT_LOAD) */
  bool leaky;             /**< negative x uses int32 mult_neg[n] / shift_neg[n] (leaky ReLU) */
  uint32_t mult_neg_addr, shift_neg_addr;
} tsr_gemm_desc_t;

/** Buffering choices (for tests and experiments; TSR_BUF_AUTO normally). */
typedef enum tsr_gemm_buf {
  TSR_BUF_AUTO = 0,   /**< the planner decides */
  TSR_BUF_SINGLE = 1, /**< one buffer */
  TSR_BUF_DOUBLE = 2  /**< two buffers, so an overlapping engine can overlap */
} tsr_gemm_buf_t;

/** Optional planner limits; a zero field means "no limit / automatic". */
typedef struct tsr_gemm_opts {
  uint32_t max_mt;        /**< cap on tile rows */
  uint32_t max_kc;        /**< cap on the K chunk (rounded down to a multiple of N, >= N) */
  tsr_gemm_buf_t spad_buf;/**< scratchpad A/W buffering */
  tsr_gemm_buf_t acc_buf; /**< accumulator tile buffering */
  uint32_t mem_bw;        /**< bytes per cycle the memory delivers, for the cost model (0: the bus width) */
  uint32_t mem_latency;   /**< memory read latency in cycles, for the cost model (0: 10, the default) */
  bool streamed;          /**< the commands go through a command ring: the cost model charges their
                               fetch (32 bytes each on the read port), not a host's register writes */
  bool whole_k;           /**< only plans with all of K in one chunk (A loaded once per m-tile);
                               TSR_UNSUPPORTED when none fits */
} tsr_gemm_opts_t;

/** The decisions of the planner, and what executing them will cost. */
typedef struct tsr_gemm_plan {
  uint32_t dim;           /**< N of the device the plan is for */
  uint32_t mt;            /**< tile rows (<= ACC_ROWS - 3) */
  uint32_t kc;            /**< K chunk in elements, a multiple of N */
  uint32_t m_tiles;       /**< ceil(m / mt) */
  uint32_t n_blocks;      /**< ceil(n / N) */
  uint32_t k_chunks;      /**< ceil(k / kc) */
  uint32_t k_blocks;      /**< ceil(k / N): weight tiles per N-column block */
  uint32_t nb;            /**< N-column blocks computed from one A chunk (an n-group) */
  uint32_t n_groups;      /**< ceil(n_blocks / nb) */
  uint32_t units;         /**< m_tiles * n_groups: accumulator tiles (nb blocks each) */
  uint32_t tiles;         /**< m_tiles * n_blocks: STOREs */
  uint32_t groups;        /**< units * k_chunks: scratchpad load groups */
  bool a_resident;        /**< A tile loaded once per m-tile (k_chunks == 1) */
  uint32_t spad_bufs;     /**< 1 or 2 A/W buffer pairs */
  bool preload;           /**< A buffers in the lower scratchpad bank, W buffers (and the
                               table) in the upper one, so the engine preloads each MATMUL's
                               weights while the previous one streams */
  uint32_t acc_bufs;      /**< 1 or 2 accumulator tiles */
  uint32_t a_base[2];     /**< scratchpad row of each A buffer */
  uint32_t a_rows;        /**< rows of one A buffer: mt * (kc / N) */
  uint32_t w_base[2];     /**< scratchpad row of each W buffer */
  uint32_t w_rows;        /**< rows of one W buffer: kc * nb */
  uint32_t acc_base[2];   /**< accumulator row of each tile buffer (nb sub-tiles) */
  uint32_t acc_stride;    /**< mt + param_rows: a sub-tile's rows followed by its parameter rows */
  uint32_t param_rows;    /**< 3 (bias, mult, shift), 5 with leaky (+ mult_neg, shift_neg) */
  uint32_t n_params;      /**< parameter LOADs per tile (0..5) */
  uint32_t lut_base;      /**< has_lut: scratchpad row of the table (after the A/W buffers) */
  /* Predictions for the whole job. */
  uint64_t cmds;          /**< commands submitted */
  uint64_t cmd_loads;     /**< scratchpad LOADs */
  uint64_t cmd_matmuls;   /**< MATMULs */
  uint64_t cmd_params;    /**< accumulator LOADs */
  uint64_t cmd_stores;    /**< STOREs */
  uint64_t dma_rd_bytes;  /**< payload bytes read (whole beats may read more) */
  uint64_t dma_wr_bytes;  /**< bytes written */
  uint64_t macs;          /**< m * k * n */
  uint32_t mem_bw;        /**< bytes per cycle the prediction assumes (<= the bus width) */
  bool mem_shared;        /**< reads and writes share mem_bw (a memory with a bandwidth cap);
                               else each channel has the bus to itself */
  uint32_t mem_latency;   /**< memory latency the prediction assumes, cycles */
  bool streamed;          /**< the prediction assumes a command ring (tsr_gemm_opts_t.streamed) */
  uint64_t est_cycles;    /**< predicted cycles (tsr_gemm_predict_cycles) */
} tsr_gemm_plan_t;

/**
 * Check `desc` (dimensions, strides, 2^32 ranges, requantization settings, no
 * overlap of C with an input) and choose a plan for the device `info`.
 * Pure: touches nothing but *plan. TSR_BAD_ARG for a bad descriptor,
 * TSR_UNSUPPORTED when the device memories cannot hold even the smallest
 * tile (a 1-row A tile, N weight rows and 4 accumulator rows).
 */
tsr_status_t tsr_gemm_plan(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                           tsr_gemm_plan_t *plan);

/** tsr_gemm_plan with limits and buffering choices; `opts` may be NULL. */
tsr_status_t tsr_gemm_plan_opts(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                                const tsr_gemm_opts_t *opts, tsr_gemm_plan_t *plan);

/** Check a descriptor alone; on failure a one-line reason in *why (never NULL). */
tsr_status_t tsr_gemm_check_desc(const tsr_gemm_desc_t *desc, const char **why);

/**
 * Rough cycle count of `plan` on the serial engine (one command at a time):
 * DMA beats plus per-row and per-command overheads, MATMUL streaming and
 * skew, STORE streaming. Used to rank candidate plans; not a promise.
 */
uint64_t tsr_gemm_predict_cycles(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                                 const tsr_gemm_plan_t *plan);

/** Called after each tile's STORE is submitted. */
typedef void (*tsr_gemm_progress_fn)(void *user, uint32_t tiles_submitted, uint32_t tiles_total);

/**
 * Submit the commands of `plan` for `desc` and wait until the engine is idle
 * (IRQ wait if the HAL has one, else polling). The plan must come from
 * tsr_gemm_plan for this device and descriptor. `progress` may be NULL.
 * On failure the reason is in tsr_dev_error(dev).
 */
tsr_status_t tsr_gemm_run(tsr_dev_t *dev, const tsr_gemm_desc_t *desc, const tsr_gemm_plan_t *plan,
                          tsr_gemm_progress_fn progress, void *user);

/* ---- SFU jobs (fw/tsr_sfu_ops.c, docs/sfu.md) ------------------------------------------------ */

/*
 * An SFU job works on row-major int8 tensors [rows][len] in external memory
 * (row r at addr + r * len). The runner loads blocks of rows into the
 * scratchpad (one LOAD: each row lands as C = ceil(len / N) chunk rows),
 * runs one SFU command per block with the result in place, and stores every
 * chunk column with a SPAD STORE (REDUCE: one raw int32 STORE of 3 columns
 * per block). The parameter block, gamma, beta and the table are loaded once.
 */

/** One SFU job in external memory. All addresses are device byte addresses. */
typedef struct tsr_sfu_desc {
  uint32_t func;       /**< TSR_FUNC_MAP, _REDUCE, _SOFTMAX, _LAYERNORM or _ADD */
  uint32_t rows;       /**< >= 1 */
  uint32_t len;        /**< elements per row, 1..65535 */
  uint32_t in_addr;    /**< int8 [rows][len] (ADD: A) */
  uint32_t in2_addr;   /**< ADD: int8 B [rows][len]; LAYERNORM: int8 gamma [len] */
  uint32_t beta_addr;  /**< LAYERNORM: int32 beta [len] */
  uint32_t param_addr; /**< SOFTMAX, LAYERNORM, ADD: the int32 parameter block (docs/sfu.md) */
  bool has_lut;        /**< MAP: load the table at lut_addr first (else use the loaded one) */
  uint32_t lut_addr;   /**< 256 int8 */
  uint32_t out_addr;   /**< int8 [rows][len]; REDUCE: int32 [rows][3] (max, sum, sum of squares) */
  /* MAP, ADD and MUL: the tensors as segments of seg_rows packed rows (0: one segment). Segment
   * s of A, B and the output begins at in_addr + s * in_pitch, in2_addr + s * in2_pitch and
   * out_addr + s * out_pitch (a bordered image's pixel rows, docs/networks.md). The planner
   * takes segments in rows of N elements only (tsr_sfu_desc_flatten). */
  uint32_t seg_rows;
  uint32_t in_pitch;
  uint32_t in2_pitch;
  uint32_t out_pitch;
} tsr_sfu_desc_t;

/** Where an SFU job lives on the chip, and what it costs. */
typedef struct tsr_sfu_plan {
  uint32_t dim;          /**< N of the device the plan is for */
  uint32_t chunks;       /**< C = ceil(len / N): scratchpad rows per tensor row */
  uint32_t block_rows;   /**< tensor rows per block (<= 65535) */
  uint32_t blocks;       /**< ceil(rows / block_rows) */
  uint32_t bufs;         /**< 1 or 2 block buffers (2: an overlapping engine can overlap) */
  uint32_t a_base[2];    /**< scratchpad row of each A buffer (the result is written in place) */
  uint32_t b_base[2];    /**< ADD: scratchpad row of each B buffer */
  uint32_t red_base[2];  /**< REDUCE: accumulator row of each result buffer */
  uint32_t lut_row;      /**< has_lut: scratchpad row of the table */
  uint32_t gamma_row;    /**< LAYERNORM: scratchpad row of gamma */
  uint32_t param_row;    /**< accumulator row of the parameter block */
  uint32_t beta_row;     /**< LAYERNORM: accumulator row of beta */
  uint32_t beta_loads;   /**< LAYERNORM: LOADs beta takes (COLS is 16-bit) */
  uint64_t cmds;         /**< commands submitted */
  uint64_t dma_rd_bytes; /**< payload bytes read */
  uint64_t dma_wr_bytes; /**< bytes written */
} tsr_sfu_plan_t;

/**
 * Check `desc` alone (function, sizes, 2^32 ranges, and that the output
 * overlaps no input except by being exactly the same tensor as A, or B for
 * ADD). On failure a one-line reason in *why (why may be NULL).
 */
tsr_status_t tsr_sfu_check_desc(const tsr_sfu_desc_t *desc, const char **why);

/** Whether SFU function `func` works element by element, rows or not (MAP, ADD, MUL). */
bool tsr_sfu_elementwise(uint32_t func);

/**
 * Reshape an element-wise job (MAP, ADD, MUL) of packed rows to rows of N = `dim` elements
 * when the element count is a multiple of N; any other job is left as it is. The result is the
 * same bytes, and tsr_sfu_run then moves each block as one contiguous LOAD and one SFU row and
 * stores it with one STORE instead of one per N-wide chunk.
 */
void tsr_sfu_desc_flatten(tsr_sfu_desc_t *desc, uint32_t dim);

/**
 * Check `desc` and choose block sizes and memory regions for the device
 * `info`. Pure. TSR_BAD_ARG for a bad descriptor, TSR_UNSUPPORTED when one
 * tensor row (C chunk rows, 2C for ADD, plus gamma, beta, table and
 * parameter rows) does not fit the chip's memories; *why says which (why may
 * be NULL).
 */
tsr_status_t tsr_sfu_plan(const tsr_dev_info_t *info, const tsr_sfu_desc_t *desc,
                          tsr_sfu_plan_t *plan, const char **why);

/**
 * Submit the commands of `plan` for `desc` and wait until the engine is idle.
 * The plan must come from tsr_sfu_plan for this device and descriptor. On
 * failure the reason is in tsr_dev_error(dev).
 */
tsr_status_t tsr_sfu_run(tsr_dev_t *dev, const tsr_sfu_desc_t *desc, const tsr_sfu_plan_t *plan);

/**
 * Submit (without waiting) the two commands that make the 256 int8 at
 * `lut_addr` the SFU's table: a scratchpad LOAD to rows spad_row ..
 * spad_row + 256/N - 1 (PUSH_NEXT) and SFU LUT_LOAD (POP_PREV). Those rows
 * must stay untouched until the LUT_LOAD has run.
 */
tsr_status_t tsr_sfu_load_lut(tsr_dev_t *dev, uint32_t lut_addr, uint32_t spad_row);

/* Whole operations: plan + run for one function. Rows are packed (stride len). */

/** Load the table at lut_addr, then out = LUT[in] for in [rows][len]. */
tsr_status_t tsr_sfu_run_lut(tsr_dev_t *dev, uint32_t lut_addr, uint32_t rows, uint32_t len,
                             uint32_t in_addr, uint32_t out_addr);
/** out = LUT[in] with the table of the last LUT_LOAD. */
tsr_status_t tsr_sfu_run_map(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t in_addr,
                             uint32_t out_addr);
/** int32 out[rows][3] = max, sum, sum of squares of each row. */
tsr_status_t tsr_sfu_run_reduce(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t in_addr,
                                uint32_t out_addr);
/** Softmax of each row; param_addr holds the 3-word block (tsr_softmax_params_t). */
tsr_status_t tsr_sfu_run_softmax(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t in_addr,
                                 uint32_t param_addr, uint32_t out_addr);
/** Layer norm of each row; int8 gamma[len], int32 beta[len], the 8-word block at param_addr. */
tsr_status_t tsr_sfu_run_layernorm(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t in_addr,
                                   uint32_t gamma_addr, uint32_t beta_addr, uint32_t param_addr,
                                   uint32_t out_addr);
/** out = A + B (TFLite int8 ADD); the 11-word block at param_addr. */
tsr_status_t tsr_sfu_run_add(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t a_addr,
                             uint32_t b_addr, uint32_t param_addr, uint32_t out_addr);
/** out = A * B (TFLite int8 MUL); the 7-word block at param_addr. */
tsr_status_t tsr_sfu_run_mul(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t a_addr,
                             uint32_t b_addr, uint32_t param_addr, uint32_t out_addr);

/* ---- Strided copies (fw/tsr_sfu_ops.c): TRANSPOSE, operand transposes ----------------------- */

/**
 * A copy of an int8 tensor through the scratchpad: output index (i0, i1, i2, i3) over dims[0..3]
 * (outermost first) is read at in_addr + sum i_d * in_stride[d] and written at out_addr + sum
 * i_d * out_stride[d]; out_stride all 0 means dense (rows of dims[3] bytes, out_row apart, or
 * dims[3] apart when out_row is 0). When in_stride[3] and the output step along dims[3] are 1,
 * every row is one run (one LOAD per block of rows, one SPAD STORE per N-wide chunk column);
 * else every element is its own scratchpad row (a LOAD of COLS 1 with STRIDE in_stride[3], a
 * SPAD STORE of COLS 1 with STRIDE the output step). No dependency tokens: the commands run in
 * order.
 */
typedef struct tsr_copy_desc {
  uint32_t dims[4];
  uint32_t in_stride[4];
  uint32_t in_addr, out_addr;
  uint32_t out_row;   /**< dense output: bytes from one row of dims[3] to the next (0: dims[3]).
                           A CONCATENATION writes its inputs into slices of one output this way. */
  uint32_t out_stride[4]; /**< general output strides (all 0: dense, as out_row says) */
} tsr_copy_desc_t;

/** Submit the commands of a copy and wait until idle; TSR_UNSUPPORTED if a row of dims[3]
 *  bytes is longer than 65535. */
tsr_status_t tsr_copy_run(tsr_dev_t *dev, const tsr_copy_desc_t *d);

#ifdef __cplusplus
}
#endif

#endif /* TSR_FW_H */
