/* tessera_flat.h: a flat C API over libtessera for language bindings (Python ctypes): plain pointers, integers and doubles, figures in a fixed array. */
#ifndef TESSERA_FLAT_H
#define TESSERA_FLAT_H

/*
 * The structs of tessera.h (tessera_gemm_t, tsr_counters_t, the plans) change
 * as the library grows; a binding that mirrors them breaks silently. This
 * layer takes only scalars and pointers to plain arrays, so that a binding
 * declares each function's arguments and nothing else:
 *
 *   tessera_flat_t *h;  char err[TESSERA_ERRLEN];
 *   tessera_flat_open("sim:8", -1, -1, -1, 1, NULL, &h, err, sizeof err);
 *   tessera_flat_gemm(h, m, k, n, a, b, bias, 0, 1, NULL, NULL, mult, shift, zp, -128, 127,
 *                     NULL, 0.0, NULL, -1.0, 1, out, fig, mm, err, sizeof err);
 *   tessera_flat_close(h);
 *
 * Figures: fig[TESSERA_FLAT_FIGURES] doubles (counters are below 2^53, so exact),
 * named by tessera_flat_figure_name(i). Check results: mm[5] = {count, row, col,
 * got, want} of the first difference from the golden model (count 0: bit-exact).
 * Every function that can fail returns a tsr_status_t (TSR_OK is 0) and one line
 * in `err`, as tessera.h does.
 */

#include <stddef.h>
#include <stdint.h>

#include "tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An open device with the options it was opened with (the simulator is opened
 *  again, with more memory, when a job needs more than it has). Opaque. */
typedef struct tessera_flat tessera_flat_t;

/* ---- Figures and device information --------------------------------------------------- */

/** The figures of a run: counters, time classes ("time.compute", ...), utilization,
 *  wall time, backend cycles and the plan's numbers. */
enum {
  TESSERA_FIG_CYCLES,
  TESSERA_FIG_BUSY,
  TESSERA_FIG_MACS,
  TESSERA_FIG_BUS_RD,
  TESSERA_FIG_BUS_WR,
  TESSERA_FIG_CMDS,
  TESSERA_FIG_TIME0, /* the six classes of tessera_time_classes, in its order */
  TESSERA_FIG_RD_STALL = TESSERA_FIG_TIME0 + TESSERA_TIME_CLASSES,
  TESSERA_FIG_WR_STALL,
  TESSERA_FIG_UTILIZATION,
  TESSERA_FIG_WALL_SECONDS,
  TESSERA_FIG_SIM_CYCLES,
  TESSERA_FIG_PLAN_CMDS,
  TESSERA_FIG_PLAN_CYCLES, /* GEMM: the cost model's prediction; SFU: 0 */
  TESSERA_FIG_PLAN_TILES,  /* GEMM: STOREs; SFU: blocks */
  TESSERA_FIG_HOST_REGS,   /* register reads and writes the host made for the job */
  TESSERA_FIG_STREAMED,    /* 1: the commands went through a command ring */
  TESSERA_FLAT_FIGURES
};

/** Name of figure i ("cycles", "bus_read_bytes", "time.load_wait", ...); NULL past the end. */
const char *tessera_flat_figure_name(unsigned i);

/** What a device is: info[TESSERA_FLAT_INFOS], named by tessera_flat_info_name. */
#define TESSERA_FLAT_INFOS 11u

/** Name of device information i ("dim", "spad_rows", ...); NULL past the end. */
const char *tessera_flat_info_name(unsigned i);

/** The message of a status code ("bad argument", ...). */
const char *tessera_flat_status_str(int status);

/* ---- Devices -------------------------------------------------------------------------------- */

/**
 * Open `spec` (tessera_open's forms: "sim:8", "sim:4", "uart:...", ...).
 * mem_latency, mem_bw, stall_pct: the simulator's memory model, -1 for the
 * default; seed: its stalls; trace: an FST file or NULL.
 */
tsr_status_t tessera_flat_open(const char *spec, int mem_latency, int mem_bw, int stall_pct,
                               uint32_t seed, const char *trace, tessera_flat_t **h, char *err,
                               size_t errlen);

/** Submit the next jobs' commands through registers (regs != 0, the default) or a command
 *  ring (0). */
void tessera_flat_set_submit(tessera_flat_t *h, int regs);

/** Close and free. NULL is accepted. */
void tessera_flat_close(tessera_flat_t *h);

/** info[TESSERA_FLAT_INFOS] and the backend name (backend_len bytes, NUL-terminated). */
tsr_status_t tessera_flat_info(tessera_flat_t *h, char *backend, size_t backend_len,
                               double info[TESSERA_FLAT_INFOS]);

/* ---- GEMM ------------------------------------------------------------------------------------ */

/**
 * Run C = requant((A - a_zp) B + bias) on the device: a (m, k), b (k, n) int8;
 * bias (n,) int32 or NULL; a_zp folded into the bias (tessera_gemm_fold_a_zp).
 * requant 0: `out` is int32 (m, n); 1: int8, per channel when mult and shift
 * (n each) are given, else by mult_scalar/shift_scalar; out_zp, the clamp
 * act_min..act_max, an activation table and leaky ReLU with slope leaky_alpha
 * (0..1; negative: none). The table: function `act` (tessera_flat_lut's names)
 * from the int8 output of real scale act_scale and zero point out_zp to the
 * same, or `lut` (256 int8) as it is, or none (both NULL). check: compare with
 * the golden model into mm (else mm[0] = 0), which uses its own table of `act`.
 * fig: the figures.
 */
tsr_status_t tessera_flat_gemm(tessera_flat_t *h, uint32_t m, uint32_t k, uint32_t n,
                               const int8_t *a, const int8_t *b, const int32_t *bias, int32_t a_zp,
                               int requant, const int32_t *mult, const int32_t *shift,
                               int32_t mult_scalar, int32_t shift_scalar, int32_t out_zp,
                               int32_t act_min, int32_t act_max, const char *act,
                               double act_scale, const int8_t *lut, double leaky_alpha, int check,
                               void *out,
                               double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                               size_t errlen);

/* ---- SFU jobs ------------------------------------------------------------------------------- */

/*
 * Each job takes the real scales. The chip runs with the tables and parameter
 * blocks of the host preparation (sw/lib/tsr_sfu_prep.c); with `check` the
 * golden model computes with its own, derived from the same scales by
 * separate code (sw/golden/tsr_golden_params.h), so that a wrong entry of
 * either shows. x is int8 (rows, len); out int8 (rows, len) (REDUCE: int32
 * (rows, 3)); check, out, fig, mm as tessera_flat_gemm.
 */

/** The names tessera_flat_lut and tessera_flat_map know, comma-separated ("sigmoid, tanh, ..."). */
const char *tessera_flat_lut_names(void);

/** The chip's 256-entry table of function `name` (tsr_lut_populate) for the int8 scales
 *  and zero points. */
tsr_status_t tessera_flat_lut(const char *name, double in_scale, int32_t in_zp, double out_scale,
                              int32_t out_zp, int8_t *lut, char *err, size_t errlen);

/** MAP: y = table[x mod 256], the table of function `name` for in_scale/in_zp ->
 *  out_scale/out_zp, or, with name NULL, `lut` (256 int8) as it is. */
tsr_status_t tessera_flat_map(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *x,
                              const char *name, double in_scale, int32_t in_zp, double out_scale,
                              int32_t out_zp, const int8_t *lut, int check, void *out,
                              double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                              size_t errlen);

/** TFLite int8 softmax of each row (output scale 1/256, zero point -128). */
tsr_status_t tessera_flat_softmax(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *x,
                                  double in_scale, double beta, int check, void *out,
                                  double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                                  size_t errlen);

/** Layer norm of each row: gamma int8 (len,); beta (len,) as real floats (beta_f) or
 *  int32 at the accumulator scale gamma_scale * 2^-12 (beta_q): give exactly one. */
tsr_status_t tessera_flat_layernorm(tessera_flat_t *h, uint32_t rows, uint32_t len,
                                    const int8_t *x, const int8_t *gamma, const float *beta_f,
                                    const int32_t *beta_q, double in_scale, double eps,
                                    int32_t gamma_zp, double gamma_scale, double out_scale,
                                    int32_t out_zp, int32_t act_min, int32_t act_max, int check,
                                    void *out, double fig[TESSERA_FLAT_FIGURES], int64_t mm[5],
                                    char *err, size_t errlen);

/** TFLite int8 ADD of a and b (both (rows, len)) with the clamp act_min..act_max. */
tsr_status_t tessera_flat_add(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *a,
                              const int8_t *b, double a_scale, int32_t a_zp, double b_scale,
                              int32_t b_zp, double out_scale, int32_t out_zp, int32_t act_min,
                              int32_t act_max, int check, void *out,
                              double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                              size_t errlen);

/** TFLite int8 MUL of a and b (both (rows, len)) with the clamp act_min..act_max. */
tsr_status_t tessera_flat_mul(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *a,
                              const int8_t *b, double a_scale, int32_t a_zp, double b_scale,
                              int32_t b_zp, double out_scale, int32_t out_zp, int32_t act_min,
                              int32_t act_max, int check, void *out,
                              double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                              size_t errlen);

/** REDUCE: per row, int32 max, sum and sum of squares into out (rows, 3). */
tsr_status_t tessera_flat_reduce(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *x,
                                 int check, void *out, double fig[TESSERA_FLAT_FIGURES],
                                 int64_t mm[5], char *err, size_t errlen);

/* ---- Networks (docs/networks.md) ------------------------------------------------------------- */

/** Values of tessera_flat_net_describe's io[]: input type (0 float32, 9 int8), rank, shape[4],
 *  then the same for the output, then the number of layers. */
#define TESSERA_FLAT_NET_IO 13u
/** Values per layer of tessera_flat_net_run's layers[]: op index, kind (tessera_flat_net_kind),
 *  on chip (0/1), cycles, commands, MACs, bus read bytes, bus write bytes, mismatches (-1:
 *  not checked), wall seconds. */
#define TESSERA_FLAT_NET_LAYER_FIGS 10u

/** The name of layer kind k ("GEMM", "SOFTMAX", "RESHAPE", "QUANTIZE", "DEQUANTIZE", "CONV", "DWCONV", "ADD", "?"). */
const char *tessera_flat_net_kind(unsigned k);

/** What a model (.tflite bytes, compiled for N = dim with the compiler's flags, TSR_NET_ALLOW_HOST
 *  and TSR_NET_NO_FUSE of tsr_net_prog.h; or .tsr bytes) takes and gives, into
 *  io[TESSERA_FLAT_NET_IO]. */
tsr_status_t tessera_flat_net_describe(const void *model, size_t model_len, uint32_t dim,
                                       uint32_t flags, int64_t io[TESSERA_FLAT_NET_IO], char *err,
                                       size_t errlen);

/**
 * One inference of a model (as tessera_flat_net_describe takes it, compiled for the device's
 * N with `flags`) on the device: x (x_bytes, the input's type and element count) -> out (out_bytes).
 * layers: room for max_layers x TESSERA_FLAT_NET_LAYER_FIGS values; total: {cycles,
 * commands, MACs, mismatches (-1: not checked), wall seconds, command streams}. check: every
 * chip layer against the golden model (a mismatch is not an error: see total[3]).
 * per_layer: each chip layer as its own stream, with its own figures (else the network is
 * one stream and a layer's cycles read 0).
 */
tsr_status_t tessera_flat_net_run(tessera_flat_t *h, const void *model, size_t model_len,
                                  uint32_t flags, const void *x, size_t x_bytes, void *out, size_t out_bytes,
                                  int check, int per_layer, double *layers, uint32_t max_layers,
                                  double total[6], char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_FLAT_H */
