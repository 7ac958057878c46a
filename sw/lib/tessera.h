/* tessera.h: libtessera, the host library under the tessera CLI: devices, device memory, GEMM and SFU jobs, the bench sweep. */
#ifndef TESSERA_H
#define TESSERA_H

/*
 * A program (the CLI, a test, Python through ctypes) opens a device from one
 * spec string, lays its tensors out in device memory, runs GEMM and SFU jobs
 * through the firmware (fw/) and compares results with the golden model:
 *
 *   tessera_dev_t *dev;  char err[TESSERA_ERRLEN];
 *   tessera_open("sim:8", NULL, &dev, err, sizeof err);
 *   tessera_gemm_t job = {.m = M, .k = K, .n = N, .a = a, .b = b, ...};
 *   tessera_gemm_run(dev, &job, NULL, c, &res, err, sizeof err);
 *   tessera_gemm_check(&job, c, &mm, err, sizeof err);  -> mm.count
 *   tessera_close(dev);
 *
 * Every function that can fail returns a tsr_status_t (TSR_OK is 0) and
 * writes one line, without a trailing newline, into the caller's `err`
 * buffer (err may be NULL or errlen 0). Nothing here prints or exits.
 * Tensors are plain pointers with shapes: row-major, packed, host order.
 * Messages carry no program context: a caller puts "gemm: " or its own
 * prefix in front.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tsr_driver.h"
#include "tsr_fw.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A comfortable size for message buffers. */
#define TESSERA_ERRLEN 512u

/* ---- Devices -------------------------------------------------------------------------- */

/** An open device: a HAL backend and the driver on it. Opaque. */
typedef struct tessera_dev tessera_dev_t;

/** Options of tessera_open. Fill with tessera_open_opts_default, then change fields. */
/** How a job's commands reach the chip. */
typedef enum tessera_submit {
  TESSERA_SUBMIT_REGS = 0,   /**< each command written to CMDQ_PUSH (eight register writes) */
  TESSERA_SUBMIT_STREAM = 1  /**< a command ring in device memory after the job's tensors,
                                  fetched by the chip (docs/programming.md, "Command ring") */
} tessera_submit_t;

typedef struct tessera_open_opts {
  unsigned dim;             /**< "sim" and "uart-sim": which build to load (default 8) */
  uint64_t mem_bytes;       /**< sim: external memory of at least this many bytes (the
                                 simulator's default, doubled until it is enough) */
  unsigned mem_latency;     /**< sim: read and write latency in cycles (default TSR_SIM_DEFAULT_LATENCY) */
  unsigned mem_bw;          /**< sim: bandwidth cap in bytes per cycle (0: the bus width) */
  unsigned stall_pct;       /**< sim: 0..100, chance the memory withholds ready/valid each cycle */
  uint32_t seed;            /**< sim: seed of the memory stalls (default 1) */
  const char *trace_path;   /**< sim, uart-sim: FST waveform file, or NULL */
  const char *dma_spec;     /**< uio:/devmem: the external memory "devmem:BASE,SIZE", or NULL */
  const char *mem_hint;     /**< added to the message when the backend cannot reach device
                                 memory (NULL: a sentence about dma_spec) */
  tessera_submit_t submit;  /**< default STREAM; a device whose memory size is unknown
                                 (uio:, devmem:) or without room for a ring takes REGS */
} tessera_open_opts_t;

/** Fill `o` with the defaults (the simulator's from tb/tsr_sim.h). */

void tessera_open_opts_default(tessera_open_opts_t *o);

/**
 * Open a device. `spec` is one of
 *   sim, sim:N                the Verilated model build/lib/libtsrsim_dN.so ($TSR_SIM_LIB_DIR)
 *   uart:PATH[,BAUD]          a board running fpga/tsr_uart_top.v behind a serial port
 *   uart-sim, uart-sim:N      that board simulated in process (make uart-sim)
 *   uio:/dev/uioN             Linux UIO on an FPGA SoC (with opts->dma_spec for memory)
 *   devmem:BASE[,SIZE]        /dev/mem at a physical base (likewise)
 * Any other spec is refused by the devmem parser with a message naming the forms.
 * `opts` may be NULL (defaults). On success *dev is the new device.
 */
tsr_status_t tessera_open(const char *spec, const tessera_open_opts_t *opts, tessera_dev_t **dev,
                          char *err, size_t errlen);

/** Close a device and free it. NULL is accepted. */
void tessera_close(tessera_dev_t *dev);

/** What a device is. */
typedef struct tessera_info {
  char backend[16];      /**< HAL backend: "sim", "uart", "uio", "devmem", ... */
  bool is_sim;           /**< the "sim" backend (cycles counted, memory model) */
  uint32_t id;           /**< ID register */
  uint32_t version;      /**< MAJOR << 8 | MINOR */
  uint32_t dim;          /**< N of the N x N array */
  uint32_t axi_bytes;    /**< AXI master data width in bytes */
  uint32_t cmdq_depth;   /**< command queue depth */
  uint32_t spad_rows;    /**< scratchpad rows of N int8 */
  uint32_t acc_rows;     /**< accumulator rows of N int32 */
  bool has_sfu;          /**< the SFU is built in */
  uint32_t store_lanes;  /**< output-stage lanes */
  uint64_t mem_bytes;    /**< device memory the host can reach (0: not known) */
} tessera_info_t;

/** Fill `info` for an open device. */
tsr_status_t tessera_info(const tessera_dev_t *dev, tessera_info_t *info);

/** How the next jobs' commands reach the chip (tessera_open_opts_t.submit). */
void tessera_set_submit(tessera_dev_t *dev, tessera_submit_t submit);

/** The driver's handle of an open device (its info, poll limit, last error), for
 *  programs that submit their own commands. NULL for NULL. */
tsr_dev_t *tessera_driver(tessera_dev_t *dev);

/* ---- Device memory -------------------------------------------------------------------- */

/** First device address the allocator hands out (address 0 stays unused). */
#define TESSERA_MEM_BASE 0x1000u
/** Alignment of every tensor. */
#define TESSERA_MEM_ALIGN 64u

/** A bump allocator of device addresses: tensors one after another, each aligned. */
typedef struct tessera_arena {
  uint64_t next;  /**< the next free address (TESSERA_MEM_ALIGN-aligned) */
} tessera_arena_t;

/** Start at TESSERA_MEM_BASE. */
void tessera_arena_init(tessera_arena_t *a);

/** Reserve `bytes` and return their device address. Never fails: check
 *  tessera_arena_end against 4 GiB (32-bit device addresses) before use. */
uint64_t tessera_arena_take(tessera_arena_t *a, uint64_t bytes);

/** The end of the last tensor (the device memory the layout needs). */
uint64_t tessera_arena_end(const tessera_arena_t *a);

/** Copy `n` host bytes to device address `addr`. `what` names them in the message. */
tsr_status_t tessera_upload(tessera_dev_t *dev, uint64_t addr, const void *src, size_t n,
                            const char *what, char *err, size_t errlen);

/** Copy `n` bytes at device address `addr` to the host. */
tsr_status_t tessera_download(tessera_dev_t *dev, uint64_t addr, void *dst, size_t n,
                              char *err, size_t errlen);

/* ---- Figures of a run ------------------------------------------------------------------- */

/** Where the busy cycles went (CNT_ARRAY.. counters, docs/performance.md). */
typedef struct tessera_time_class {
  const char *key;    /**< JSON key: compute, fill, load_wait, store, sfu, control */
  const char *words;  /**< for people: "waiting on DMA read", ... */
  uint64_t cycles;
} tessera_time_class_t;

#define TESSERA_TIME_CLASSES 6

/** The six time classes of `c`, in that order. */
void tessera_time_classes(const tsr_counters_t *c, tessera_time_class_t out[TESSERA_TIME_CLASSES]);

/** What the job cost the SoC's core (`soc:N` devices: the firmware ran it, docs/soc.md). */
typedef struct tessera_core_figures {
  bool valid;              /**< the job ran on the core */
  uint64_t soc_cycles;     /**< SoC clock cycles of the run, reset released to EXIT */
  uint32_t plan_cycles;    /**< core cycles in the planner (GEMM, SFU) */
  uint32_t plan_instret;   /**< instructions the planner retired */
  uint32_t run_cycles;     /**< core cycles from the counters' clear to the end of the wait */
  uint32_t run_instret;    /**< instructions the core retired in that time (asleep in waitirq: none) */
  uint32_t submit_cycles;  /**< core cycles from the clear until the last command was handed over */
  uint32_t chip_irqs;      /**< tsr_top interrupts the core took */
  uint32_t ring_flushes;   /**< RING_TAIL writes the core made */
  uint32_t code_bytes;     /**< the firmware image's size */
} tessera_core_figures_t;

/** What a job cost. */
typedef struct tessera_figures {
  tsr_counters_t cnt;   /**< the chip's counters after the job (cleared before it) */
  double utilization;   /**< GEMM: MACs / (N^2 x cycles); SFU: 0 */
  double wall_seconds;  /**< host time the run took */
  uint64_t sim_cycles;  /**< clock cycles the backend stepped (0 when it does not count) */
  uint64_t host_reg_accesses; /**< register reads and writes the host made for the job */
  bool streamed;        /**< the commands went through a command ring */
  tessera_core_figures_t core; /**< `soc:N`: the core's side of the job */
} tessera_figures_t;

/** Called while a GEMM runs: tiles submitted of the total, backend cycles so far. */
typedef void (*tessera_progress_fn)(void *user, uint32_t done, uint32_t total, uint64_t cycles);

/** The first difference from the golden model, and how many there are. */
typedef struct tessera_mismatch {
  uint64_t count;  /**< elements that differ (0: bit-exact) */
  uint32_t row, col;  /**< the first one (SFU reduce: col is the lane 0..2) */
  int32_t got, want;
} tessera_mismatch_t;

/* ---- GEMM ---------------------------------------------------------------------------------- */

/**
 * C = requant(A x B + bias): A int8 (m, k), B int8 (k, n), bias int32 (n,) or NULL.
 * Without requant the output is int32 (m, n); with it int8 through TFLite
 * requantization: per channel when `mult` and `shift` (n each) are given,
 * else per tensor (mult_scalar, shift_scalar); then out_zp, the clamp
 * [act_min, act_max], the optional activation table `lut` (256 int8,
 * indexed by the output byte) and leaky ReLU (`mult_neg`, `shift_neg`, n each:
 * the negative side's multipliers, see tessera_gemm_leaky).
 */
typedef struct tessera_gemm {
  uint32_t m, k, n;
  const int8_t *a, *b;
  const int32_t *bias;
  bool requant;
  const int32_t *mult, *shift;
  int32_t mult_scalar, shift_scalar;
  int32_t out_zp, act_min, act_max;
  const int8_t *lut;
  const int32_t *mult_neg, *shift_neg;
} tessera_gemm_t;

/** Bytes per output element: 1 (requant) or 4. */
size_t tessera_gemm_out_elem(const tessera_gemm_t *job);

/**
 * The device memory the job's layout needs (its end address), or TSR_BAD_ARG
 * when it does not fit 32-bit addresses. Pass it as tessera_open_opts_t.mem_bytes.
 */
tsr_status_t tessera_gemm_mem_bytes(const tessera_gemm_t *job, uint64_t *bytes, char *err,
                                    size_t errlen);

/**
 * The job's requantization parameters as the chip takes them: each shift
 * -31..30 (any int32 multiplier is valid, docs/programming.md). TSR_BAD_ARG
 * with one line naming the column otherwise. tessera_gemm_run calls it too;
 * call it first to refuse a job before opening a device.
 */
tsr_status_t tessera_gemm_validate(const tessera_gemm_t *job, char *err, size_t errlen);

/**
 * The input zero point folded into the bias, exactly in wrapping int32:
 * bias_out[j] = bias[j] - a_zp * sum_k b[k][j] (bias NULL: zeros), so that
 * (A - a_zp) B + bias = A B + bias_out. b is int8 (k, n) row-major; a_zp is
 * -128..127 (TSR_BAD_ARG otherwise). bias_out may be bias.
 */
tsr_status_t tessera_gemm_fold_a_zp(uint32_t k, uint32_t n, const int8_t *b, const int32_t *bias,
                                    int32_t a_zp, int32_t *bias_out, char *err, size_t errlen);

/**
 * Per-channel requantization from real scales as TFLite prepares a
 * convolution: each scale is first rounded to float32 (as a .tflite file
 * stores it), then mult/shift[j] = QuantizeMultiplier((double)a_scale *
 * (double)w_scale[j] / (double)out_scale). w_scale has n_w values: 1 (per
 * tensor, broadcast to all n) or n. TSR_BAD_ARG for a scale that is not
 * positive and finite (as float32) or a multiplier the hardware cannot
 * represent, naming the column.
 */
tsr_status_t tessera_gemm_quantize_scales(uint32_t n, double a_scale, const double *w_scale,
                                          uint32_t n_w, double out_scale, int32_t *mult,
                                          int32_t *shift, char *err, size_t errlen);

/** Negative-side multipliers of leaky ReLU: alpha (0..1) times each column's
 *  multiplier, into mult_neg and shift_neg (n each). */
tsr_status_t tessera_gemm_leaky(const tessera_gemm_t *job, double alpha, int32_t *mult_neg,
                                int32_t *shift_neg, char *err, size_t errlen);

/**
 * Random operands and requantization parameters from `seed`, as `tessera gemm
 * --m --k --n --seed S [--raw]` makes them, into the caller's buffers a (m*k),
 * b (k*n), bias, mult, shift (n each), and fill *job to point at them
 * (per channel or per tensor is drawn too; raw: int32 output).
 */
void tessera_gemm_random(uint32_t m, uint32_t k, uint32_t n, uint32_t seed, bool raw, int8_t *a,
                         int8_t *b, int32_t *bias, int32_t *mult, int32_t *shift,
                         tessera_gemm_t *job);

/** How to plan and run a GEMM. Zero is the default everywhere. */
typedef struct tessera_gemm_opts {
  uint32_t max_mt, max_kc;     /**< caps of the tiler's tile rows and K chunk (0: none) */
  uint32_t mem_bw;             /**< the cost model's memory bandwidth (0: the bus width) */
  uint32_t mem_latency;        /**< the cost model's memory latency (0: its default) */
  bool plan_only;              /**< plan and stop: nothing is uploaded or run */
  tessera_progress_fn progress;  /**< NULL: none */
  void *progress_user;
} tessera_gemm_opts_t;

/** A GEMM job as the device ran it. */
typedef struct tessera_gemm_result {
  tsr_gemm_desc_t desc;   /**< the job in device terms */
  tsr_gemm_plan_t plan;   /**< the tiler's plan and predicted cost */
  bool ran;               /**< false after plan_only */
  tessera_figures_t fig;
} tessera_gemm_result_t;

/**
 * Plan the job on `dev`; unless opts->plan_only, upload the operands, run,
 * read the counters and the result into `out` (m*n elements of
 * tessera_gemm_out_elem bytes). `opts` may be NULL.
 */
tsr_status_t tessera_gemm_run(tessera_dev_t *dev, const tessera_gemm_t *job,
                              const tessera_gemm_opts_t *opts, void *out,
                              tessera_gemm_result_t *res, char *err, size_t errlen);

/**
 * Compare `out` with the golden model (sw/golden), which computes from the
 * job it is given. When the job's `lut` came from tsr_lut_populate, pass a
 * copy of the job whose `lut` is the golden model's own (tsr_golden_lut,
 * sw/golden/tsr_golden_params.h), or a wrong table entry passes unseen.
 */
tsr_status_t tessera_gemm_check(const tessera_gemm_t *job, const void *out, tessera_mismatch_t *mm,
                                char *err, size_t errlen);

/* ---- SFU jobs ------------------------------------------------------------------------------ */

/**
 * One special-function job on int8 rows (docs/sfu.md): func is TSR_FUNC_MAP
 * (y = lut[x]), TSR_FUNC_REDUCE (int32 (rows, 3): max, sum, sum of squares),
 * TSR_FUNC_SOFTMAX, TSR_FUNC_LAYERNORM or TSR_FUNC_ADD. The parameter block
 * comes from tsr_softmax_prepare, tsr_layernorm_prepare or tsr_add_prepare
 * (sw/golden/tsr_sfu.h).
 */
typedef struct tessera_sfu {
  uint32_t func;
  uint32_t rows, len;         /**< len 1..TSR_SFU_LEN_MAX */
  const int8_t *in;           /**< (rows, len); ADD: A */
  const int8_t *in2;          /**< ADD: B (rows, len); LAYERNORM: gamma (len,) */
  const int32_t *beta;        /**< LAYERNORM: beta (len,) at the accumulator scale */
  const int32_t *param;       /**< the parameter block, param_words words */
  uint32_t param_words;
  const int8_t *lut;          /**< MAP: the table, 256 int8 */
} tessera_sfu_t;

/** Bytes of the result: rows*len int8, or rows*3 int32 for REDUCE. */
size_t tessera_sfu_out_bytes(const tessera_sfu_t *job);

/** The device memory the job's layout needs, as tessera_gemm_mem_bytes. */
tsr_status_t tessera_sfu_mem_bytes(const tessera_sfu_t *job, uint64_t *bytes, char *err,
                                   size_t errlen);

/** An SFU job as the device ran it. */
typedef struct tessera_sfu_result {
  tsr_sfu_desc_t desc;
  tsr_sfu_plan_t plan;
  tessera_figures_t fig;
} tessera_sfu_result_t;

/** Plan, upload, run and read the result into `out` (tessera_sfu_out_bytes). */
tsr_status_t tessera_sfu_run(tessera_dev_t *dev, const tessera_sfu_t *job, void *out,
                             tessera_sfu_result_t *res, char *err, size_t errlen);

/**
 * Compare `out` with the golden model, which computes from the job it is
 * given. Pass a copy of the job whose `lut`, `param` and `beta` are the golden
 * model's own (sw/golden/tsr_golden_params.h), derived from the same scales,
 * not the ones tsr_sfu_prep.c made for the run, or a wrong entry passes unseen.
 */
tsr_status_t tessera_sfu_check(const tessera_sfu_t *job, const void *out, tessera_mismatch_t *mm,
                               char *err, size_t errlen);

/** The command name of an SFU function ("MAP", "SOFTMAX", ...; "?" when unknown). */
const char *tessera_sfu_func_name(uint32_t func);

/* ---- The bench sweep (docs/performance.md) ------------------------------------------------ */

#define TESSERA_BENCH_MAX_POINTS 32

/** One point of the sweep: a random GEMM (seed 1) at a memory bandwidth. */
typedef struct tessera_bench_point {
  const char *group;  /**< square, batch, resnet50, bert, bandwidth */
  char label[32];     /**< "256^3", "M=8", "3136x576x64", "4 B/c" */
  uint32_t m, k, n;
  uint32_t bw;        /**< bytes per cycle; 0: the bus width */
} tessera_bench_point_t;

/** One measured point. */
typedef struct tessera_bench_row {
  tessera_bench_point_t pt;
  uint32_t bw_eff, bw_asked;
  uint64_t macs, moved, cycles, pred, sim_cps;
  double util, intensity, attained, roof;
  tsr_counters_t cnt;
  bool streamed;              /**< the point ran through a command ring (the default) */
  uint64_t commands;          /**< commands of the job (each 32 bytes fetched when streamed) */
  uint64_t host_regs;         /**< host register accesses of the job */
  uint64_t regs_cycles;       /**< when streamed: the same job through CMDQ_PUSH, its cycles */
  uint64_t regs_host_regs;    /**< ... and its host register accesses */
  uint32_t tile_m, k_chunk, nb; /**< the plan's tile rows, K chunk and N blocks per A chunk */
} tessera_bench_row_t;

/** What the whole sweep ran on. */
typedef struct tessera_bench_meta {
  unsigned dim, axi_bytes, peak;
  char machine[512];
  char date[16];
  double wall;
} tessera_bench_meta_t;

/** The points in order (quick: 12 of the 23), into pts; returns how many. */
size_t tessera_bench_points(bool quick, tessera_bench_point_t pts[TESSERA_BENCH_MAX_POINTS]);

/** Fill meta's dim, axi_bytes and peak from `info`, its machine and today's date. */
void tessera_bench_meta_init(const tessera_info_t *info, tessera_bench_meta_t *meta);

/**
 * Run one point on a new device `spec` opened with `opts` (its mem_bytes and
 * mem_bw are set per point) and check it against the golden model. A
 * mismatch is not an error: see mm->count. Messages of the run itself start
 * with "gemm: ". TSR_HW_ERROR when the counters read 0 cycles or 0 DMA bytes.
 */
tsr_status_t tessera_bench_run_point(const char *spec, const tessera_open_opts_t *opts,
                                     const tessera_bench_meta_t *meta,
                                     const tessera_bench_point_t *pt, tessera_progress_fn progress,
                                     void *progress_user, tessera_bench_row_t *row,
                                     tessera_mismatch_t *mm, char *err, size_t errlen);

/** bench.json of the rows (the layout of Python's json.dump(indent=1)) into `f`. */
void tessera_bench_json(FILE *f, const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows,
                        size_t n);

/** Write dir/bench.json, bench.csv, roofline.dat and roofline.gp. */
tsr_status_t tessera_bench_write(const char *dir, const tessera_bench_meta_t *meta,
                                 const tessera_bench_row_t *rows, size_t n, char *err,
                                 size_t errlen);

/** Whether gnuplot is on the PATH. */
bool tessera_bench_can_plot(void);

/** Run gnuplot in `dir` on roofline.gp: roofline.png and roofline.svg (gnuplot's
 *  own output goes to stderr). */
tsr_status_t tessera_bench_plot(const char *dir, char *err, size_t errlen);

/** mkdir -p `path`; TSR_IO when a part cannot be made or it is not a directory. */
tsr_status_t tessera_make_dirs(const char *path, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_H */
