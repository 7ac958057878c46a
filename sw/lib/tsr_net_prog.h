/* tsr_net_prog.h: compiled networks: the .tsr program, the TFLite compiler that writes it, and the runtime that runs it on a device. */
#ifndef TSR_NET_PROG_H
#define TSR_NET_PROG_H

/*
 * docs/networks.md is the guide. In short:
 *
 *   tsr_net_prog_t *p;  char err[TESSERA_ERRLEN];
 *   tsr_net_compile(tflite_bytes, len, dim, &p, err, sizeof err);   (host: parses the .tflite)
 *   tsr_net_save(p, &bytes, &n, ...);  tsr_net_load(bytes, n, &p, ...);  (the .tsr container)
 *   tessera_net_run(dev, p, x, x_bytes, y, y_bytes, true, &res, err, sizeof err);
 *   tsr_net_free(p);
 *
 * A program holds everything the runtime needs and nothing of the .tflite:
 * tensors (type, shape, quantization, offset in the program's device arena),
 * one record per operator (a GEMM job, an SFU softmax job, a host QUANTIZE or
 * DEQUANTIZE, or a RESHAPE that aliases its input), and the blob (weights in
 * the chip's B layout, biases with the input zero point folded in,
 * per-channel multipliers and shifts, softmax parameter blocks) that is
 * uploaded to the start of the arena. Device offsets are relative to the
 * arena; the runtime adds the arena's base address (relocation).
 *
 * The command stream is captured at compile time: the firmware's tilers
 * (tsr_gemm_run, tsr_sfu_run) run against a backend that records their
 * commands (tsr_net_capture.c) for the target configuration (the array size
 * and memories the commands were planned for, kept in the program). The
 * runtime checks that the device has that configuration, relocates the LOAD
 * and STORE addresses to its arena and appends each layer's commands to the
 * command ring; no planning or tiling happens at run time.
 *
 * Every function that can fail returns a tsr_status_t and writes one line into
 * `err`; nothing here prints or exits.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera.h"
#include "tsr_cmd_reloc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** "TSRN" as a little-endian word: the first four bytes of a .tsr file. */
#define TSR_NET_MAGIC 0x4e525354u
#define TSR_NET_VERSION 4u
/** Highest tensor rank a program keeps. */
#define TSR_NET_MAX_RANK 4u
/** The device address of the arena while the commands are captured. */
#define TSR_NET_CAPTURE_BASE TESSERA_MEM_BASE
/** Where the runtime puts the arena: deliberately not the capture base, so that every run
 *  relocates its commands. */
#define TSR_NET_RUN_BASE 0x10000u
/** The most commands a program holds (the capture's limit: 8,388,608, 256 MiB of commands). */
#define TSR_NET_MAX_CMDS (1u << 23)
/** Marks a host-only tensor (float32 at the graph's edges): no device storage. */
#define TSR_NET_HOST_ONLY 0xffffffffu

/** What a layer is. */
typedef enum tsr_net_kind {
  TSR_NET_GEMM = 1,       /**< FULLY_CONNECTED: one GEMM job on the chip */
  TSR_NET_SOFTMAX = 2,    /**< SOFTMAX: one SFU job on the chip */
  TSR_NET_RESHAPE = 3,    /**< RESHAPE: the output aliases the input; nothing runs */
  TSR_NET_QUANTIZE = 4,   /**< QUANTIZE float32 -> int8 on the host (graph input) */
  TSR_NET_DEQUANTIZE = 5, /**< DEQUANTIZE int8 -> float32 on the host (graph output) */
  TSR_NET_CONV = 6,       /**< CONV_2D: one GEMM job whose A is im2col by DMA addresses */
  TSR_NET_DWCONV = 7,     /**< DEPTHWISE_CONV_2D: one such job per channel group */
  TSR_NET_ADD = 8,        /**< ADD of two int8 tensors of one shape: one SFU job */
  TSR_NET_LUT = 9,        /**< LOGISTIC, TANH, HARD_SWISH, RELU, RELU6: one SFU MAP job through
                               the 256-entry table at param_off */
  TSR_NET_COPY = 10,      /**< TRANSPOSE (and a BATCH_MATMUL operand's transpose): the output is
                               the input with its axes permuted by `perm`; one input of a
                               CONCATENATION (n != 0): its rows into a slice of the output. DMA
                               through the scratchpad (tsr_copy_run) */
  TSR_NET_BMM = 11,       /**< BATCH_MATMUL of two int8 activations: one GEMM per batch */
  TSR_NET_HOST = 12,      /**< an operator the chip cannot run, on the host through the golden
                               model (compiled with allow_host): `rows` holds its builtin code,
                               MUL or MAX_POOL_2D */
  TSR_NET_MAXPOOL = 13,   /**< MAX_POOL_2D on the chip: windows gathered by COPY, SFU REDUCE,
                               the maxima's low bytes by COPY (tsr_net_capture.c) */
  TSR_NET_FUSED = 14,     /**< LOGISTIC, TANH, HARD_SWISH, RELU or RELU6 fused into the layer
                               before it (`fused`, a GEMM, CONV or DWCONV with lut = 1), whose STOREs
                               apply the table: nothing runs, and the input tensor (the
                               producer's result before the table) is never stored */
  TSR_NET_MUL = 15        /**< MUL of two int8 tensors of one shape: one SFU job (a MUL that
                               broadcasts is a HOST layer) */
} tsr_net_kind_t;

/** ADD and MUL: one SFU job over two tensors of one shape (in, in2), the parameter block at
 *  param_off; a row at a time when one of the NHWC tensors has a border. */
bool tsr_net_eltwise(uint32_t kind);

/** Element types of program tensors (the values of tsr_tflite_type_t). */
enum { TSR_NET_FLOAT32 = 0, TSR_NET_INT8 = 9 };

/** A tensor of the program. */
typedef struct tsr_net_tensor {
  uint32_t type;                      /**< TSR_NET_INT8 or TSR_NET_FLOAT32 */
  uint32_t rank;                      /**< 1..TSR_NET_MAX_RANK */
  uint32_t shape[TSR_NET_MAX_RANK];   /**< shape[0..rank-1] */
  uint32_t elems;                     /**< product of the shape */
  float scale;                        /**< int8: quantization scale (0 for float32) */
  int32_t zp;                         /**< int8: zero point */
  uint32_t alias;                     /**< the tensor whose storage this one is (itself if none) */
  uint32_t dev_off;                   /**< arena offset, or TSR_NET_HOST_ONLY */
  /** A border of zero points around every image of an NHWC tensor (rank 4) that feeds a
   *  padded convolution: rows before and after, columns before and after. The storage at
   *  dev_off is then (H + pad[0] + pad[1]) x (W + pad[2] + pad[3]) pixels per image, and
   *  the tensor's elements are its interior. All zero for a dense tensor. */
  uint32_t pad[4];
} tsr_net_tensor_t;

/** A layer: one operator of the model. Offsets are arena offsets. */
typedef struct tsr_net_layer {
  uint32_t kind;         /**< tsr_net_kind_t */
  uint32_t op_index;     /**< the operator's index in the .tflite */
  uint32_t in, out;      /**< tensor indices */
  /* GEMM: C (m, n) = requant(A (m, k) x B (k, n) + bias) */
  uint32_t m, k, n;
  uint32_t b_off, bias_off, mult_off, shift_off;  /**< B int8 (k, n); int32 (n,) each */
  uint32_t per_channel;  /**< 1: mult/shift per column at mult_off/shift_off */
  int32_t mult, shift;   /**< per tensor */
  int32_t out_zp, act_min, act_max;
  int32_t a_zp;          /**< the input zero point (already folded into the bias) */
  /* SOFTMAX: rows x len, the 3-word parameter block at param_off; LUT: rows x len, the
   * 256-entry int8 table at param_off (entry x mod 256 for input x) */
  uint32_t rows, len, param_off;
  float beta;            /**< and in this layer's input scale (tensors[in].scale) */
  /* GEMM, CONV and SOFTMAX: the layer's commands, cmds[cmd_first .. cmd_first + cmd_count - 1] */
  uint32_t cmd_first, cmd_count;
  /* CONV: the GEMM above with m = batch * out_h * out_w, n = out_c and k = tsr_conv_geom's
   * K for the target's N; the input and output shapes are the tensors'. */
  uint32_t kh, kw, stride_h, stride_w, dil_h, dil_w;
  uint32_t pad_t, pad_l;  /**< input pixels before the first the kernel reads */
  /* DWCONV: output channel c * depth_mult + j reads input channel c. The channels go in
   * groups of group_c input channels (the last may have fewer), each a CONV job of
   * n = group_c * depth_mult output channels and K = kh * kw * seg_pad (one segment per
   * tap), its B (K, its output channels) at b_off + group * k * n. */
  uint32_t depth_mult, group_c;
  /* ADD: the second input (the first is `in`); rows x len elements, the 11-word parameter
   * block at param_off (act_min/act_max in it and above). */
  uint32_t in2;
  /* COPY: output axis d is input axis (perm >> 8d) & 0xff, over the input's rank (the output
   * has the same rank). With n != 0 (CONCATENATION; perm 0): the input is `rows` rows of `len`
   * bytes, row r stored at output byte k + r * n. */
  uint32_t perm;
  /* BMM: C_b (m, n) = requant(A_b (m, k) x B_b (k, n) - a_zp * colsum(B_b)) for every batch b
   * of the output (the operands' batch dimensions broadcast): A is `in`, B is `in2` (the
   * right-hand zero point is 0), mult/shift per tensor. With a_zp != 0 the column sums come
   * from the chip too: a GEMM of m = 1 whose A is the k-byte row at param_off (value
   * min(-a_zp, 127)) writes raw int32 into the scratch tensor in3, and when -a_zp is 128 a
   * second one (the row of ones at param_off + k) adds the rest; in3 is then the bias. */
  uint32_t in3;
  /* HOST MUL: in * in2 (broadcast) -> out with mult/shift per tensor and act_min/max; HOST
   * MAX_POOL_2D: kh x kw windows, stride_h/w, pad_t/l, act_min/max. MAXPOOL: the same window
   * fields; rows = output elements, len = kh * kw; the scratch tensor in3 holds the gathered
   * windows (rows x len bytes) then, at tsr_net_maxpool_red_off, the REDUCE results (rows x 12);
   * param_off: channels x len bytes of -128 (the padded taps); bias_off: the 256-entry clamp
   * table of the fused activation. */
  /* GEMM, CONV and DWCONV: lut = 1 when a LUT layer is fused in: every STORE sends its int8 outputs
   * through the 256-entry table at param_off (the STORE's LUT flag; the job loads the table
   * into the SFU first). FUSED: the index of that producer layer. */
  uint32_t lut, fused;
} tsr_net_layer_t;

/** A compiled network. */
typedef struct tsr_net_prog {
  tsr_dev_info_t target;     /**< the configuration the commands were planned for (dim,
                                  axi_bytes, cmdq_depth, spad_rows, acc_rows, has_sfu,
                                  store_lanes; id and version are 0) */
  uint32_t n_tensors, n_layers;
  uint32_t input, output;    /**< tensor indices of the graph's input and output */
  uint32_t arena_bytes;      /**< device memory the program needs (blob + activations) */
  uint32_t blob_bytes;       /**< the blob, uploaded at arena offset 0 */
  tsr_net_tensor_t *tensors;
  tsr_net_layer_t *layers;
  uint8_t *blob;
  uint32_t cmd_base;         /**< the arena's device address in the captured commands */
  uint32_t n_cmds;
  tsr_cmd_t *cmds;           /**< every chip layer's commands, in order */
} tsr_net_prog_t;

/** The operators the compiler takes, for messages. */
#define TSR_NET_SUPPORTED                                                                      \
  "FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, ADD and MUL (int8, fused NONE/RELU/RELU6; ADD "  \
  "and MUL of one shape), AVERAGE_POOL_2D (inside the image), MAX_POOL_2D, MEAN and PAD "       \
  "(height and width), RESHAPE, TRANSPOSE, CONCATENATION (inputs quantized alike), BATCH_MATMUL " \
  "(right-hand zero point 0, else --allow-host), SOFTMAX, LOGISTIC, TANH, HARD_SWISH, RELU, "   \
  "RELU6, QUANTIZE at the input, DEQUANTIZE at the output; MUL that broadcasts with "          \
  "--allow-host"

/** The schema's name of a builtin operator code ("CONV_2D"), or NULL when this table lacks it. */
const char *tsr_net_op_name(int32_t code);

/** The configuration of the simulator build of an N = dim array (rtl/tsr_top.v's defaults). */
void tsr_net_default_target(uint32_t dim, tsr_dev_info_t *t);

/**
 * Compile the .tflite at `bytes` for a chip of configuration `target` into a
 * new program (*out; free with tsr_net_free). An operator or parameter the
 * chip cannot run gives TSR_UNSUPPORTED and one line naming it, its index and
 * the supported list; a malformed file TSR_BAD_ARG.
 */
tsr_status_t tsr_net_compile(const void *bytes, size_t len, const tsr_dev_info_t *target,
                             tsr_net_prog_t **out, char *err, size_t errlen);

/** tsr_net_compile; with allow_host, MUL and MAX_POOL_2D (which the chip cannot run) become
 *  TSR_NET_HOST layers that the runtime runs on the host through the golden model. */
tsr_status_t tsr_net_compile_ex(const void *bytes, size_t len, const tsr_dev_info_t *target,
                                bool allow_host, tsr_net_prog_t **out, char *err, size_t errlen);

/** Options of tsr_net_compile_flags. */
enum {
  TSR_NET_ALLOW_HOST = 1u, /**< as tsr_net_compile_ex's allow_host */
  TSR_NET_NO_FUSE = 2u     /**< keep every LUT activation a layer of its own (an SFU MAP pass)
                                instead of fusing it into the STOREs of the layer before */
};

/** tsr_net_compile with TSR_NET_ALLOW_HOST and TSR_NET_NO_FUSE options. */
tsr_status_t tsr_net_compile_flags(const void *bytes, size_t len, const tsr_dev_info_t *target,
                                   uint32_t flags, tsr_net_prog_t **out, char *err, size_t errlen);

/** Capture the commands of every chip layer of `p` (tsr_net_capture.c; tsr_net_compile calls it). */
tsr_status_t tsr_net_capture(tsr_net_prog_t *p, char *err, size_t errlen);

/* tsr_net_cmd_addr and tsr_net_relocate: fw/include/tsr_cmd_reloc.h (freestanding; the SoC's
 * firmware relocates too). */

/**
 * The dependency tokens of n commands run in program order (docs/commands.md): 1 when no
 * command pops an empty counter and all four counters end at zero (the commands can follow
 * one another in one stream, separated by a FENCE), 0 when some counter ends above zero, -1
 * when a command pops an empty counter or uses a direction its stage lacks.
 */
int tsr_net_tokens_balanced(const tsr_cmd_t *cmds, uint32_t n);

/** Whether a device is the configuration a program was compiled for; if not, a line in err. */
bool tsr_net_target_matches(const tsr_net_prog_t *p, const tsr_dev_info_t *dev, char *err,
                            size_t errlen);

/** Free a program. NULL is accepted. */
void tsr_net_free(tsr_net_prog_t *p);

/** The .tsr bytes of a program into a new buffer (*bytes, *len; the caller frees it). */
tsr_status_t tsr_net_save(const tsr_net_prog_t *p, uint8_t **bytes, size_t *len, char *err,
                          size_t errlen);

/** Check and read .tsr bytes into a new program. TSR_BAD_ARG with one line for a
 *  truncated, corrupted or inconsistent file. */
tsr_status_t tsr_net_load(const void *bytes, size_t len, tsr_net_prog_t **out, char *err,
                          size_t errlen);

/** Whether `bytes` start like a .tsr (its magic). */
bool tsr_net_is_tsr(const void *bytes, size_t len);

/** A .tsr, or a .tflite compiled for `target`, into a new program. */
tsr_status_t tsr_net_from_bytes(const void *bytes, size_t len, const tsr_dev_info_t *target,
                                tsr_net_prog_t **out, char *err, size_t errlen);

/** Bytes of one element of a program tensor (1 or 4). */
size_t tsr_net_elem_bytes(const tsr_net_tensor_t *t);

/** Bytes of a program tensor's device storage (its border included). */
uint64_t tsr_net_storage_bytes(const tsr_net_tensor_t *t);

/** Offset of a program tensor's first element in its storage (past the border). */
uint64_t tsr_net_interior_off(const tsr_net_tensor_t *t);

/** The batch count of a BATCH_MATMUL output (the product of all but its last two dimensions). */
uint32_t tsr_net_bmm_batches(const tsr_net_tensor_t *y);

/** The batch of operand x (rank >= 2) that output batch b reads (batch dimensions aligned
 *  from the right; a dimension of 1 broadcasts). */
uint32_t tsr_net_bmm_operand_batch(const tsr_net_tensor_t *y, const tsr_net_tensor_t *x, uint32_t b);

/** Where a MAXPOOL layer's REDUCE results start in its scratch tensor. */
uint32_t tsr_net_maxpool_red_off(const tsr_net_layer_t *l);

/** Whether a program tensor has a border. */
bool tsr_net_padded(const tsr_net_tensor_t *t);

/** Whether int8 tensor t has device storage: false for the input of a FUSED layer (never
 *  stored: its producer's STOREs apply the table). */
bool tsr_net_stored(const tsr_net_prog_t *p, uint32_t t);

/** Whether a layer kind runs on the chip (and so has captured commands). */
bool tsr_net_kind_on_chip(uint32_t kind);

/** The layers during which the storage of tensor `root` (an int8 tensor that is its own
 *  alias) holds a value that is still needed, first and last inclusive: from the layer that
 *  writes it (layer 0 for the graph's input and for a tensor with a border, which the
 *  runtime writes before the first layer) to the last layer that reads it (n_layers for the
 *  graph's output, which the host reads after the last). Two tensors whose lifetimes
 *  overlap must not share storage; the compiler reuses the arena by them. */
void tsr_net_lifetime(const tsr_net_prog_t *p, uint32_t root, uint32_t *first, uint32_t *last);

/** The arena the program would need if no two tensors shared storage: the blob and every
 *  int8 tensor's storage, each aligned (what liveness saves is this minus arena_bytes). */
uint64_t tsr_net_arena_no_reuse(const tsr_net_prog_t *p);

/** The name of a layer kind ("GEMM", "SOFTMAX", ...). */
const char *tsr_net_kind_name(uint32_t kind);

/** Device memory a program needs: the arena at TSR_NET_RUN_BASE and room for its command rings. */
uint64_t tsr_net_mem_bytes(const tsr_net_prog_t *p);

/* ---- The runtime (tsr_net_run.c) ------------------------------------------------------ */

/** What one layer did. */
typedef struct tessera_net_layer_fig {
  uint32_t op_index, kind;
  bool on_chip;               /**< GEMM, CONV, DWCONV, SOFTMAX and ADD; the rest ran on the host or not at all */
  bool measured;              /**< per layer: cnt holds the layer's own counters; else the
                                   layer ran in one stream with the others and cnt.cmds is
                                   only its captured command count */
  tsr_counters_t cnt;         /**< the chip's counters for the layer (zero off the chip) */
  double wall_seconds;
  uint64_t host_reg_accesses;
  bool streamed;
  bool checked;
  uint64_t mismatches;        /**< with check: elements that differ from the golden model */
  void *out;                  /**< per layer, a chip layer: a copy of its output as the chip
                                   wrote it (out_bytes; freed by tessera_net_result_free) */
  size_t out_bytes;
} tessera_net_layer_fig_t;

/** What a run did. */
typedef struct tessera_net_result {
  uint32_t n_layers;
  tessera_net_layer_fig_t *layers;  /**< n_layers (owned: tessera_net_result_free) */
  uint64_t cycles, cmds, macs;      /**< the chip's counters over the run (FENCEs included) */
  uint64_t dma_rd, dma_wr;          /**< bytes the DMA read and wrote over the run (DRAM traffic) */
  uint64_t host_reg_accesses;
  uint32_t streams;                 /**< command streams submitted (1 unless per layer) */
  double wall_seconds;
  bool checked;
  uint64_t mismatches;              /**< sum over the layers */
  tessera_figures_t stream;         /**< the last command stream's figures (soc:N: its `core` side) */
  uint64_t busy;                    /**< the chip's busy cycles over every stream */
  tessera_core_figures_t core;      /**< soc:N: the core's side summed over every stream (the
                                         firmware's size as it is) */
} tessera_net_result_t;

/**
 * Upload the program's blob to `dev` and run one inference: `in` holds the
 * graph input (tensors[input]: elems values of its type), `out` receives the
 * graph output. The chip layers go as one command stream (their commands with
 * a FENCE between layers, one ring, one wait), or with `per_layer` one stream
 * each, with each layer's own counters. With `check`, every chip layer's
 * output is compared with the golden model (sw/golden) computed from the same
 * layer input. The device's memory must hold tsr_net_mem_bytes(p) bytes.
 */
tsr_status_t tessera_net_run(tessera_dev_t *dev, const tsr_net_prog_t *p, const void *in,
                             size_t in_bytes, void *out, size_t out_bytes, bool check,
                             bool per_layer, tessera_net_result_t *res, char *err, size_t errlen);

/** Free the layers of a result (the struct itself is the caller's). */
void tessera_net_result_free(tessera_net_result_t *res);

#ifdef __cplusplus
}
#endif

#endif /* TSR_NET_PROG_H */
