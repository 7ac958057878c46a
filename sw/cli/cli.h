/* cli.h: what the files of the tessera CLI share: options, commands, messages (sw/cli/ only). */
#ifndef TSR_CLI_H
#define TSR_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "tessera.h"
#include "tsr_npy.h"
#include "tsr_sfu.h"

/*
 * Exit status: 0 success; 1 the result differs from the golden model; 2 any
 * other error (bad option or input, missing simulator build, device error).
 * Every error prints exactly one line on stderr.
 */
#define EXIT_MISMATCH 1
#define EXIT_ERROR 2

/* ---- Options (cli_main.c) ------------------------------------------------------------ */

typedef enum opt_id {
  O_A, O_B, O_BIAS, O_MULT, O_MULT_NPY, O_SHIFT, O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN, O_ACT_MAX,
  O_OUT, O_M, O_K, O_N, O_SEED, O_CHECK, O_RAW, O_DIM, O_JSON, O_TRACE, O_MEM_LATENCY,
  O_MEM_BW, O_STALL_PCT, O_MAX_MT, O_MAX_KC, O_DEVICE, O_DMA, O_HAL, O_SUBMIT,
  /* special functions (docs/sfu.md) */
  O_OP, O_IN, O_IN_SCALE, O_IN_ZP, O_OUT_SCALE, O_LUT, O_BETA, O_GAMMA, O_GAMMA_SCALE,
  O_GAMMA_ZP, O_EPS, O_A_SCALE, O_A_ZP, O_B_SCALE, O_B_ZP, O_W_SCALE, O_W_SCALE_NPY, O_ACT, O_ACT_LUT, O_ACT_OUT_SCALE,
  O_ACT_OUT_ZP, O_LEAKY, O_PLAN,
  /* bench */
  O_QUICK,
  /* compile, run (networks) */
  O_INPUT, O_LAYERS, O_DUMP_LAYERS, O_ALLOW_HOST, O_NO_FUSE, O_COUNT
} opt_id_t;

/* The commands, as bits of an option's set of commands. */
enum {
  C_GEMM = 1u << 0,
  C_INFO = 1u << 1,
  C_SFU = 1u << 2,
  C_SOFTMAX = 1u << 3,
  C_LAYERNORM = 1u << 4,
  C_ADD = 1u << 5,
  C_REDUCE = 1u << 6,
  C_BENCH = 1u << 7,
  C_COMPILE = 1u << 8,
  C_RUN = 1u << 9,
  C_MUL = 1u << 10,
  C_TWO = C_ADD | C_MUL, /* the SFU commands of two tensors A and B */
  C_SFUS = C_SFU | C_SOFTMAX | C_LAYERNORM | C_TWO | C_REDUCE,
  C_ALL = C_GEMM | C_INFO | C_SFUS | C_RUN /* the commands that take the common options */
};

/** The parsed command line: which options were given, and their values. */
typedef struct args {
  const char *cmd;
  bool set[O_COUNT];
  const char *val[O_COUNT];
} args_t;

/** The option's name without "--". */
const char *opt_name(opt_id_t id);

/** The command bit of `name`, 0 if it is not a command. */
unsigned cmd_bit(const char *name);

/** Parse argv[2..] of command argv[1]; 0, or -1 after one line on stderr. */
int parse_args(int argc, char **argv, args_t *a);

/* ---- Messages and output (cli_main.c) ------------------------------------------------ */

/** Where the CLI prints results and messages (stdout and stderr unless changed). */
extern FILE *g_cli_out;
extern FILE *g_cli_err;

/** What the program is doing, put before every error ("bench: 256^3"), or NULL. */
extern const char *g_ctx;

/** Print "tessera: [context: ]<message>" as one line on the error stream. */
void die_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** The CLI without main: argv as main gets it; returns the exit status. */
int tessera_cli_main(int argc, char **argv);

/* ---- Values and files (cli_util.c) ----------------------------------------------------- */

/** A whole decimal (or 0x-hex) integer within [lo, hi]. */
int get_int(const args_t *a, opt_id_t id, int64_t lo, int64_t hi, int64_t *out);
/** Option `id`, if given, as an int32 within [lo, hi] into *out (left as it is otherwise). */
int get_i32_opt(const args_t *a, opt_id_t id, int64_t lo, int64_t hi, int32_t *out);
/** A finite real number. */
int get_double(const args_t *a, opt_id_t id, double *out);
/** A scale: finite and > 0. */
int get_scale(const args_t *a, opt_id_t id, double *out);
/** A zero point: -128..127, 0 when the option is absent. */
int get_zp(const args_t *a, opt_id_t id, int32_t *out);
/** --dim (default 8): a power of two. */
int get_dim(const args_t *ar, unsigned *dim);

/** "(3,4)" or "(5,)". */
const char *shape_str(const tsr_npy_t *t, char *buf, size_t len);
/** Read `path` and check it is `dtype` with `ndim` dimensions. */
int load_npy(const char *path, tsr_npy_dtype_t dtype, int ndim, tsr_npy_t *t);
/** Write a 1-D (d0,) or 2-D (d0, d1) tensor of `dtype` to `path`. */
int save_npy(const char *path, tsr_npy_dtype_t dtype, int ndim, size_t d0, size_t d1, void *data);
/** A table from a .npy file: int8, shape (256,). */
int load_lut_npy(const char *path, int8_t lut[256]);

#define LUT_FN_NAMES "sigmoid, tanh, gelu, gelu-tanh, silu, exp, hardswish"
/** The table function called `name`; -1 when there is none. */
int lut_fn_of(const char *name, tsr_lut_fn_t *fn);

/* ---- The device and what a run cost (cli_util.c) --------------------------------------- */

/** Open the device the common options name, for a job needing `mem_bytes` of device
 *  memory; 0, or -1 after one line on stderr. */
int cli_open(const args_t *ar, uint64_t mem_bytes, tessera_dev_t **dev, tessera_info_t *info);

/** Tiles and cycles on a terminal while a long GEMM runs. */
typedef struct progress {
  bool enabled;
  bool shown;
  struct timespec start;
  double last;
} progress_t;

void progress_init(progress_t *p, bool enabled);
void on_progress(void *user, uint32_t done, uint32_t total, uint64_t cycles);
void progress_clear(progress_t *p);

/** JSON: , "time": {...}, "memory_stall": {...} */
void print_time_json(const tsr_counters_t *c);
/** Text: "  time: 72.0 % compute, ...". */
void print_time_text(const tsr_counters_t *c);

/** Over a serial link (--hal uart...) the link sets the pace: say so after the figures. */
void print_link_note(const tessera_info_t *info);
/** JSON: , "wall_seconds": .. [, "paced_by": "serial link"] [, "sim_cycles": ..,
 *  "sim_cycles_per_second": ..] */
void print_wall_json(const tessera_figures_t *f, const tessera_info_t *info);

/** --hal soc: the core's side of the job, one line (nothing for other backends). */
void print_core_text(const tessera_figures_t *f);
/** The same as a JSON member (`, "core": {...}`), nothing off the SoC. */
void print_core_json(const tessera_figures_t *f);

/* ---- Commands ------------------------------------------------------------------------------ */

int cmd_gemm(const args_t *ar);        /* cli_gemm.c */
int cmd_sfu_family(const args_t *ar);  /* cli_sfu.c: sfu, softmax, layernorm, add, reduce */
int cmd_info(const args_t *ar);        /* cli_bench.c */
int cmd_bench(const args_t *ar);       /* cli_bench.c */
int cmd_net(int argc, char **argv);    /* cli_net.c: compile, run (argv as main gets it) */

#endif /* TSR_CLI_H */
