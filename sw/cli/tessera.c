/* tessera.c: the `tessera` command line: run GEMMs and special functions on the simulated (or real) accelerator. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tsr_driver.h"
#include "tsr_fw.h"
#include "tsr_golden.h"
#include "tsr_hal.h"
#include "tsr_npy.h"
#include "tsr_sfu.h"
#include "tsr_sim.h"
#include "tsr_uart.h"

/*
 * Exit status: 0 success; 1 the result differs from the golden model; 2 any
 * other error (bad option or input, missing simulator build, device error).
 * Every error prints exactly one line on stderr.
 */
#define EXIT_MISMATCH 1
#define EXIT_ERROR 2

/* Defaults of tb/tsr_sim.c's tsr_sim_cfg_default, which we cannot call before
 * the library is loaded. */
#define SIM_DEFAULT_MEM (64ull << 20)
#define SIM_DEFAULT_LATENCY 10u
#define SIM_DEFAULT_WATCHDOG 100000000ull
/* Register polls while the queue is full before giving up (each poll is an
 * AXI4-Lite read of a few cycles; keeps a hang below the sim watchdog). */
#define SIM_POLL_LIMIT 20000000u

static const char *g_prog = "tessera";
/* What the program is doing, put before every error ("bench: 256^3"), or NULL. */
static const char *g_ctx = NULL;

static void die_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "tessera: <message>" as one line. */
static void die_line(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* Keep it one line whatever the message holds. */
  for (char *p = msg; *p != '\0'; p++) {
    if (*p == '\n' || *p == '\r') {
      *p = ' ';
    }
  }
  if (g_ctx != NULL) {
    fprintf(stderr, "%s: %s: %s\n", g_prog, g_ctx, msg);
  } else {
    fprintf(stderr, "%s: %s\n", g_prog, msg);
  }
}

static void usage(FILE *f) {
  fprintf(f,
          "usage:\n"
          "  tessera gemm --a A.npy --b B.npy [--bias BIAS.npy] [--mult M | --mult-npy F]\n"
          "               [--shift S | --shift-npy F] [--out-zp Z] [--act-min LO --act-max HI]\n"
          "               [--act NAME --out-scale S [--act-out-scale S --act-out-zp Z]\n"
          "                | --act-lut T.npy] [--leaky ALPHA]\n"
          "               [--out C.npy] [--check] [--plan] [common options]\n"
          "  tessera gemm --m M --k K --n N [--seed S] [--raw] [--out C.npy] [--plan] [common options]\n"
          "  tessera sfu --op NAME --in X.npy --in-scale S [--in-zp Z] --out-scale S [--out-zp Z]\n"
          "              [--out Y.npy] [--check] [common options]\n"
          "  tessera sfu --op lut --lut T.npy --in X.npy [--out Y.npy] [--check] [common options]\n"
          "  tessera softmax --in X.npy --in-scale S [--beta B] [--out Y.npy] [--check]\n"
          "              [common options]\n"
          "  tessera layernorm --in X.npy --in-scale S --gamma G.npy --gamma-scale S\n"
          "              [--gamma-zp Z] --beta B.npy [--eps E] --out-scale S [--out-zp Z]\n"
          "              [--out Y.npy] [--check] [common options]\n"
          "  tessera add --a A.npy --a-scale S [--a-zp Z] --b B.npy --b-scale S [--b-zp Z]\n"
          "              --out-scale S [--out-zp Z] [--out Y.npy] [--check] [common options]\n"
          "  tessera reduce --in X.npy [--out Y.npy] [--check] [common options]\n"
          "  tessera info [common options]\n"
          "  tessera bench [--dim N] [--out DIR] [--quick] [--json]\n"
          "\n"
          "gemm: A is int8 (M,K), B int8 (K,N), BIAS int32 (N,), per-channel multipliers and\n"
          "shifts int32 (N,). Without --mult the output is int32 (acc + bias); with it, int8\n"
          "through TFLite requantization (--mult without --shift means shift 0). --m/--k/--n\n"
          "makes random operands and requantization parameters from --seed and always compares\n"
          "with the golden model (--raw: int32 output instead). Fused in the output stage (needs\n"
          "--mult): --act NAME tabulates NAME for the int8 output of real scale --out-scale and\n"
          "zero point --out-zp (the table's output has the same scale and zero point unless\n"
          "--act-out-scale/--act-out-zp say otherwise); --act-lut takes an int8 (256,) table\n"
          "indexed by the output byte; --leaky ALPHA (0..1) requantizes negative values with\n"
          "ALPHA times the multiplier. --plan prints the tiling, loop order, DMA bytes and\n"
          "predicted cycles (docs/performance.md) and exits without running.\n"
          "\n"
          "Special functions (SFU, docs/sfu.md): X is int8, 1-D (len,) or 2-D (rows, len),\n"
          "len <= 65535; the function works on each row. NAME is one of sigmoid, tanh, gelu,\n"
          "gelu-tanh, silu, exp, hardswish (a 256-entry table built as TFLite's LUTPopulate);\n"
          "--op lut maps through an int8 (256,) table: y = T[x mod 256]. softmax: TFLite int8\n"
          "softmax (default beta 1), output scale 1/256, zero point -128. layernorm: G int8\n"
          "(len,), B float32 (quantized to gamma-scale * 2^-12) or int32 (len,), default eps\n"
          "1e-5. add: TFLite int8 ADD of equal shapes. reduce: int32 (rows, 3) per row: max,\n"
          "sum, sum of squares. Zero points default to 0. --check compares with the golden\n"
          "model; --json reports op, rows, len, cycles, cycles_per_element, dma_rd_bytes,\n"
          "dma_wr_bytes and the plan.\n"
          "\n"
          "bench: the GEMM sweep of docs/performance.md (square 16^3..1024^3, M = 1..256 at\n"
          "K = N = 1024, ResNet-50 and BERT-base GEMMs, 1..16 bytes per cycle at 256^3), each\n"
          "point a random 'gemm --seed 1' checked against the golden model (exit 1 on a\n"
          "mismatch), on the simulator with the default memory model. Writes DIR/bench.json,\n"
          "bench.csv, roofline.dat and roofline.gp (default DIR build/bench) and, with gnuplot\n"
          "on the PATH, roofline.png and roofline.svg. --quick: 12 of the 23 points (a smoke\n"
          "test); --json: print bench.json on stdout instead of a line per point.\n"
          "\n"
          "common options:\n"
          "  --dim N              array size of the simulator build (default 8)\n"
          "  --json               one JSON object on stdout instead of the summary\n"
          "  --trace F.fst        write a waveform\n"
          "  --mem-latency L      memory read/write latency in cycles (default 10)\n"
          "  --mem-bw B           memory bandwidth cap in bytes per cycle (0: bus width)\n"
          "  --stall-pct P        0..100: chance the memory withholds ready/valid each cycle\n"
          "  --seed S             seed of random operands and memory stalls (default 1)\n"
          "  --max-mt R --max-kc K  cap the tiler's tile rows / K chunk (experiments)\n"
          "  --hal SPEC           backend: sim (default), uart:PATH[,BAUD] (a board running\n"
          "                       fpga/tsr_uart_top.v, default 115200 baud) or uart-sim (that\n"
          "                       board simulated; make uart-sim); may also come before the\n"
          "                       command: tessera --hal uart:/dev/ttyUSB1 gemm ...\n"
          "  --device SPEC        real hardware: uio:/dev/uioN or devmem:BASE[,SIZE]\n"
          "  --dma SPEC           with --device: external memory devmem:BASE,SIZE\n"
          "\n"
          "exit status: 0 ok, 1 result differs from the golden model, 2 error\n");
}

/* ---- Options ---------------------------------------------------------------------------- */

typedef enum opt_id {
  O_A, O_B, O_BIAS, O_MULT, O_MULT_NPY, O_SHIFT, O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN, O_ACT_MAX,
  O_OUT, O_M, O_K, O_N, O_SEED, O_CHECK, O_RAW, O_DIM, O_JSON, O_TRACE, O_MEM_LATENCY,
  O_MEM_BW, O_STALL_PCT, O_MAX_MT, O_MAX_KC, O_DEVICE, O_DMA, O_HAL,
  /* special functions (docs/sfu.md) */
  O_OP, O_IN, O_IN_SCALE, O_IN_ZP, O_OUT_SCALE, O_LUT, O_BETA, O_GAMMA, O_GAMMA_SCALE,
  O_GAMMA_ZP, O_EPS, O_A_SCALE, O_A_ZP, O_B_SCALE, O_B_ZP, O_ACT, O_ACT_LUT, O_ACT_OUT_SCALE,
  O_ACT_OUT_ZP, O_LEAKY, O_PLAN,
  /* bench */
  O_QUICK, O_COUNT
} opt_id_t;

/* The commands, as bits of opt_def_t.cmds. */
enum {
  C_GEMM = 1u << 0,
  C_INFO = 1u << 1,
  C_SFU = 1u << 2,
  C_SOFTMAX = 1u << 3,
  C_LAYERNORM = 1u << 4,
  C_ADD = 1u << 5,
  C_REDUCE = 1u << 6,
  C_BENCH = 1u << 7,
  C_SFUS = C_SFU | C_SOFTMAX | C_LAYERNORM | C_ADD | C_REDUCE,
  C_ALL = C_GEMM | C_INFO | C_SFUS /* the commands that take the common options */
};

static const struct {
  const char *name;
  unsigned bit;
} k_cmds[] = {{"gemm", C_GEMM},           {"info", C_INFO}, {"sfu", C_SFU},
              {"softmax", C_SOFTMAX},     {"layernorm", C_LAYERNORM}, {"add", C_ADD},
              {"reduce", C_REDUCE},       {"bench", C_BENCH}};

/* The command bit of `name`, 0 if it is not a command. */
static unsigned cmd_bit(const char *name) {
  for (size_t i = 0; i < sizeof k_cmds / sizeof k_cmds[0]; i++) {
    if (strcmp(k_cmds[i].name, name) == 0) {
      return k_cmds[i].bit;
    }
  }
  return 0u;
}

typedef struct opt_def {
  const char *name;
  bool has_value;
  unsigned cmds; /* the commands that take it */
} opt_def_t;

static const opt_def_t k_opts[O_COUNT] = {
    [O_A] = {"a", true, C_GEMM | C_ADD},
    [O_B] = {"b", true, C_GEMM | C_ADD},
    [O_BIAS] = {"bias", true, C_GEMM},
    [O_MULT] = {"mult", true, C_GEMM},
    [O_MULT_NPY] = {"mult-npy", true, C_GEMM},
    [O_SHIFT] = {"shift", true, C_GEMM},
    [O_SHIFT_NPY] = {"shift-npy", true, C_GEMM},
    [O_OUT_ZP] = {"out-zp", true, C_GEMM | C_SFU | C_LAYERNORM | C_ADD},
    [O_ACT_MIN] = {"act-min", true, C_GEMM},
    [O_ACT_MAX] = {"act-max", true, C_GEMM},
    [O_OUT] = {"out", true, C_GEMM | C_SFUS | C_BENCH},
    [O_M] = {"m", true, C_GEMM},
    [O_K] = {"k", true, C_GEMM},
    [O_N] = {"n", true, C_GEMM},
    [O_SEED] = {"seed", true, C_ALL},
    [O_CHECK] = {"check", false, C_GEMM | C_SFUS},
    [O_RAW] = {"raw", false, C_GEMM},
    [O_DIM] = {"dim", true, C_ALL | C_BENCH},
    [O_JSON] = {"json", false, C_ALL | C_BENCH},
    [O_TRACE] = {"trace", true, C_ALL},
    [O_MEM_LATENCY] = {"mem-latency", true, C_ALL},
    [O_MEM_BW] = {"mem-bw", true, C_ALL},
    [O_STALL_PCT] = {"stall-pct", true, C_ALL},
    [O_MAX_MT] = {"max-mt", true, C_GEMM},
    [O_MAX_KC] = {"max-kc", true, C_GEMM},
    [O_DEVICE] = {"device", true, C_ALL},
    [O_DMA] = {"dma", true, C_ALL},
    [O_HAL] = {"hal", true, C_ALL},
    [O_OP] = {"op", true, C_SFU},
    [O_IN] = {"in", true, C_SFU | C_SOFTMAX | C_LAYERNORM | C_REDUCE},
    [O_IN_SCALE] = {"in-scale", true, C_SFU | C_SOFTMAX | C_LAYERNORM},
    [O_IN_ZP] = {"in-zp", true, C_SFU},
    [O_OUT_SCALE] = {"out-scale", true, C_GEMM | C_SFU | C_LAYERNORM | C_ADD},
    [O_LUT] = {"lut", true, C_SFU},
    [O_BETA] = {"beta", true, C_SOFTMAX | C_LAYERNORM},
    [O_GAMMA] = {"gamma", true, C_LAYERNORM},
    [O_GAMMA_SCALE] = {"gamma-scale", true, C_LAYERNORM},
    [O_GAMMA_ZP] = {"gamma-zp", true, C_LAYERNORM},
    [O_EPS] = {"eps", true, C_LAYERNORM},
    [O_A_SCALE] = {"a-scale", true, C_ADD},
    [O_A_ZP] = {"a-zp", true, C_ADD},
    [O_B_SCALE] = {"b-scale", true, C_ADD},
    [O_B_ZP] = {"b-zp", true, C_ADD},
    [O_ACT] = {"act", true, C_GEMM},
    [O_ACT_LUT] = {"act-lut", true, C_GEMM},
    [O_ACT_OUT_SCALE] = {"act-out-scale", true, C_GEMM},
    [O_ACT_OUT_ZP] = {"act-out-zp", true, C_GEMM},
    [O_LEAKY] = {"leaky", true, C_GEMM},
    [O_PLAN] = {"plan", false, C_GEMM},
    [O_QUICK] = {"quick", false, C_BENCH},
};

typedef struct args {
  const char *cmd;
  bool set[O_COUNT];
  const char *val[O_COUNT];
} args_t;

static int parse_args(int argc, char **argv, args_t *a) {
  memset(a, 0, sizeof *a);
  a->cmd = argv[1];
  const unsigned cmd = cmd_bit(a->cmd);
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
      die_line("%s: unexpected argument '%s' (options start with --; see 'tessera --help')",
               a->cmd, arg);
      return -1;
    }
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    int id = -1;
    for (int o = 0; o < O_COUNT; o++) {
      if (strlen(k_opts[o].name) == len && strncmp(k_opts[o].name, name, len) == 0) {
        id = o;
        break;
      }
    }
    if (id < 0 || (k_opts[id].cmds & cmd) == 0u) {
      die_line("%s: unknown option '%.*s' (see 'tessera --help')", a->cmd, (int)(len + 2), arg);
      return -1;
    }
    if (a->set[id]) {
      die_line("%s: option '--%s' given twice", a->cmd, k_opts[id].name);
      return -1;
    }
    const char *value = NULL;
    if (k_opts[id].has_value) {
      if (eq != NULL) {
        value = eq + 1;
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        die_line("%s: option '--%s' needs a value", a->cmd, k_opts[id].name);
        return -1;
      }
      if (value[0] == '\0') {
        die_line("%s: option '--%s' needs a value", a->cmd, k_opts[id].name);
        return -1;
      }
    } else if (eq != NULL) {
      die_line("%s: option '--%s' takes no value", a->cmd, k_opts[id].name);
      return -1;
    }
    a->set[id] = true;
    a->val[id] = value;
  }
  return 0;
}

/* Parse a whole decimal (or 0x-hex) integer within [lo, hi]. */
static int get_int(const args_t *a, opt_id_t id, int64_t lo, int64_t hi, int64_t *out) {
  const char *s = a->val[id];
  errno = 0;
  char *end = NULL;
  long long v = strtoll(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0') {
    die_line("--%s: '%s' is not an integer", k_opts[id].name, s);
    return -1;
  }
  if (v < lo || v > hi) {
    die_line("--%s: %lld is outside %" PRId64 "..%" PRId64, k_opts[id].name, v, lo, hi);
    return -1;
  }
  *out = (int64_t)v;
  return 0;
}

/* ---- Random numbers (xorshift32, deterministic per seed) ---------------------------------- */

static uint32_t g_rng = 1;

static void rng_seed(uint32_t seed) {
  /* Spread the seed so nearby seeds diverge at once; never 0. */
  uint32_t x = seed * 2654435761u ^ 0x9e3779b9u;
  g_rng = x != 0 ? x : 1u;
  for (int i = 0; i < 8; i++) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
  }
}

static uint32_t rng_next(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return g_rng;
}

/* Uniform in [lo, hi] (hi - lo < 2^32). */
static int64_t rng_range(int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)(hi - lo) + 1u;
  return lo + (int64_t)(rng_next() % span);
}

/* ---- The job --------------------------------------------------------------------------------- */

typedef struct job {
  uint32_t m, k, n;
  int8_t *a, *b;           /* row-major, packed */
  int32_t *bias;           /* NULL: none */
  bool requant;
  bool per_channel;
  int32_t *mult, *shift;   /* per channel (requant && per_channel) */
  int32_t mult_scalar, shift_scalar, out_zp, act_min, act_max;
  bool random;
  uint32_t seed;
  /* fused activation (docs/sfu.md): a table after the clamp, leaky ReLU */
  bool has_lut;
  int8_t lut[256];
  const char *act;         /* --act name, or "table" for --act-lut, or NULL */
  bool leaky;
  double alpha;
  int32_t *mult_neg, *shift_neg; /* per column (leaky) */
  /* storage owned by the job */
  tsr_npy_t na, nb, nbias, nmult, nshift;
  int32_t *own_bias, *own_mult, *own_shift;
  int8_t *own_a, *own_b;
} job_t;

static void job_free(job_t *j) {
  tsr_npy_free(&j->na);
  tsr_npy_free(&j->nb);
  tsr_npy_free(&j->nbias);
  tsr_npy_free(&j->nmult);
  tsr_npy_free(&j->nshift);
  free(j->own_bias);
  free(j->own_mult);
  free(j->own_shift);
  free(j->own_a);
  free(j->own_b);
  free(j->mult_neg);
  free(j->shift_neg);
}

static const char *shape_str(const tsr_npy_t *t, char *buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "(");
  for (int i = 0; i < t->ndim && used < len; i++) {
    used += (size_t)snprintf(buf + used, len - used, "%s%zu", i ? "," : "", t->shape[i]);
  }
  if (used < len) {
    snprintf(buf + used, len - used, t->ndim == 1 ? ",)" : ")");
  }
  return buf;
}

/* ---- Special-function helpers (shared by gemm --act and the SFU commands) ---------------- */

/* Parse a finite real number. */
static int get_double(const args_t *a, opt_id_t id, double *out) {
  const char *s = a->val[id];
  errno = 0;
  char *end = NULL;
  double v = strtod(s, &end);
  if (errno == ERANGE || end == s || *end != '\0' || !isfinite(v)) {
    die_line("--%s: '%s' is not a finite number", k_opts[id].name, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* A scale: finite and > 0. */
static int get_scale(const args_t *a, opt_id_t id, double *out) {
  if (get_double(a, id, out) != 0) {
    return -1;
  }
  if (!(*out > 0.0) || *out > 1e30) {
    die_line("--%s: %s is not a valid scale (it must be > 0)", k_opts[id].name, a->val[id]);
    return -1;
  }
  return 0;
}

/* A zero point: -128..127, default 0 when the option is absent. */
static int get_zp(const args_t *a, opt_id_t id, int32_t *out) {
  *out = 0;
  if (!a->set[id]) {
    return 0;
  }
  int64_t v = 0;
  if (get_int(a, id, -128, 127, &v) != 0) {
    return -1;
  }
  *out = (int32_t)v;
  return 0;
}

/* Table functions by name (docs/sfu.md, "Lookup tables"). */
static const struct {
  const char *name;
  tsr_lut_fn_t fn;
} k_lut_fns[] = {{"sigmoid", TSR_LUT_LOGISTIC}, {"tanh", TSR_LUT_TANH},
                 {"gelu", TSR_LUT_GELU},        {"gelu-tanh", TSR_LUT_GELU_TANH},
                 {"silu", TSR_LUT_SILU},        {"exp", TSR_LUT_EXP},
                 {"hardswish", TSR_LUT_HARDSWISH}};
#define LUT_FN_NAMES "sigmoid, tanh, gelu, gelu-tanh, silu, exp, hardswish"

static int lut_fn_of(const char *name, tsr_lut_fn_t *fn) {
  for (size_t i = 0; i < sizeof k_lut_fns / sizeof k_lut_fns[0]; i++) {
    if (strcmp(k_lut_fns[i].name, name) == 0) {
      *fn = k_lut_fns[i].fn;
      return 0;
    }
  }
  return -1;
}

/* A table from a .npy file: int8, shape (256,). */
static int load_lut_npy(const char *path, int8_t lut[256]) {
  tsr_npy_t t;
  memset(&t, 0, sizeof t);
  char err[512];
  if (tsr_npy_read(path, &t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  char shp[128];
  int rc = -1;
  if (t.dtype != TSR_NPY_INT8) {
    die_line("%s: a lookup table must be int8 (256,), got %s %s", path,
             tsr_npy_dtype_name(t.dtype), shape_str(&t, shp, sizeof shp));
  } else if (t.ndim != 1 || t.shape[0] != 256) {
    die_line("%s: a lookup table must have shape (256,), got %s", path,
             shape_str(&t, shp, sizeof shp));
  } else {
    memcpy(lut, t.data, 256);
    rc = 0;
  }
  tsr_npy_free(&t);
  return rc;
}

/* gemm --act / --act-lut / --leaky: the table and the negative-side multipliers. */
static int job_activation(const args_t *ar, job_t *j) {
  const opt_id_t act_only[] = {O_OUT_SCALE, O_ACT_OUT_SCALE, O_ACT_OUT_ZP};
  for (size_t i = 0; i < sizeof act_only / sizeof act_only[0]; i++) {
    if (ar->set[act_only[i]] && !ar->set[O_ACT]) {
      die_line("gemm: --%s applies to --act (the table built for the int8 output)",
               k_opts[act_only[i]].name);
      return -1;
    }
  }
  if (ar->set[O_ACT] && ar->set[O_ACT_LUT]) {
    die_line("gemm: give --act or --act-lut, not both");
    return -1;
  }
  if (ar->set[O_ACT]) {
    tsr_lut_fn_t fn;
    if (lut_fn_of(ar->val[O_ACT], &fn) != 0) {
      die_line("gemm: --act: unknown function '%s' (" LUT_FN_NAMES ")", ar->val[O_ACT]);
      return -1;
    }
    if (!ar->set[O_OUT_SCALE]) {
      die_line("gemm: --act needs --out-scale, the real scale of the int8 output "
               "(the table's input)");
      return -1;
    }
    double in_scale = 0.0;
    double out_scale = 0.0;
    int32_t out_zp = j->out_zp;
    if (get_scale(ar, O_OUT_SCALE, &in_scale) != 0) {
      return -1;
    }
    out_scale = in_scale;
    if (ar->set[O_ACT_OUT_SCALE] && get_scale(ar, O_ACT_OUT_SCALE, &out_scale) != 0) {
      return -1;
    }
    if (ar->set[O_ACT_OUT_ZP] && get_zp(ar, O_ACT_OUT_ZP, &out_zp) != 0) {
      return -1;
    }
    if (tsr_lut_populate(fn, (float)in_scale, j->out_zp, (float)out_scale, out_zp, j->lut) != 0) {
      die_line("gemm: --act %s: cannot tabulate with input scale %g and output scale %g",
               ar->val[O_ACT], in_scale, out_scale);
      return -1;
    }
    j->has_lut = true;
    j->act = ar->val[O_ACT];
  } else if (ar->set[O_ACT_LUT]) {
    if (load_lut_npy(ar->val[O_ACT_LUT], j->lut) != 0) {
      return -1;
    }
    j->has_lut = true;
    j->act = "table";
  }
  if (ar->set[O_LEAKY]) {
    if (get_double(ar, O_LEAKY, &j->alpha) != 0) {
      return -1;
    }
    if (j->alpha < 0.0 || j->alpha > 1.0) {
      die_line("gemm: --leaky: alpha %g is outside 0..1", j->alpha);
      return -1;
    }
    j->mult_neg = malloc((size_t)j->n * sizeof *j->mult_neg);
    j->shift_neg = malloc((size_t)j->n * sizeof *j->shift_neg);
    if (j->mult_neg == NULL || j->shift_neg == NULL) {
      die_line("gemm: out of memory");
      return -1;
    }
    /* The negative side scales by alpha * (the column's real multiplier). */
    for (uint32_t c = 0; c < j->n; c++) {
      int32_t m = j->per_channel ? j->mult[c] : j->mult_scalar;
      int32_t s = j->per_channel ? j->shift[c] : j->shift_scalar;
      double real = j->alpha * ldexp((double)m, s - 31);
      if (m < 0 || tsr_requant_multiplier(real, &j->mult_neg[c], &j->shift_neg[c]) != TSR_OK) {
        die_line("gemm: --leaky %g: the negative-side multiplier of column %u (alpha * %d * 2^%d)"
                 " cannot be represented",
                 j->alpha, c, m, s - 31);
        return -1;
      }
    }
    j->leaky = true;
  }
  return 0;
}

/* Read `path` and check it is `dtype` with `ndim` dimensions. */
static int load_npy(const char *path, tsr_npy_dtype_t dtype, int ndim, tsr_npy_t *t) {
  char err[512];
  if (tsr_npy_read(path, t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  char shp[128];
  if (t->dtype != dtype) {
    die_line("%s: expected %s, got %s %s", path, tsr_npy_dtype_name(dtype),
             tsr_npy_dtype_name(t->dtype), shape_str(t, shp, sizeof shp));
    return -1;
  }
  if (t->ndim != ndim) {
    die_line("%s: expected a %d-D array, got shape %s", path, ndim, shape_str(t, shp, sizeof shp));
    return -1;
  }
  return 0;
}

/* A per-column int32 vector: shape (n,). */
static int load_vector(const char *path, const char *what, uint32_t n, tsr_npy_t *t) {
  if (load_npy(path, TSR_NPY_INT32, 1, t) != 0) {
    return -1;
  }
  if (t->shape[0] != n) {
    die_line("%s: %s has %zu values but B has %u columns", path, what, t->shape[0], n);
    return -1;
  }
  return 0;
}

static int32_t *filled(uint32_t n, int32_t v) {
  int32_t *p = malloc((size_t)n * sizeof *p);
  if (p != NULL) {
    for (uint32_t i = 0; i < n; i++) {
      p[i] = v;
    }
  }
  return p;
}

/* Operands and parameters from .npy files and scalar options. */
static int job_from_files(const args_t *ar, job_t *j) {
  if (!ar->set[O_A] || !ar->set[O_B]) {
    die_line("gemm: give both --a and --b (or --m/--k/--n for random operands)");
    return -1;
  }
  if (load_npy(ar->val[O_A], TSR_NPY_INT8, 2, &j->na) != 0 ||
      load_npy(ar->val[O_B], TSR_NPY_INT8, 2, &j->nb) != 0) {
    return -1;
  }
  size_t m = j->na.shape[0], k = j->na.shape[1], k2 = j->nb.shape[0], n = j->nb.shape[1];
  if (k != k2) {
    die_line("A is %zux%zu but B is %zux%zu: inner dimensions differ", m, k, k2, n);
    return -1;
  }
  if (m == 0 || k == 0 || n == 0) {
    die_line("A is %zux%zu and B is %zux%zu: every dimension must be at least 1", m, k, k2, n);
    return -1;
  }
  if (m > UINT32_MAX || k > UINT32_MAX || n > UINT32_MAX) {
    die_line("A is %zux%zu and B is %zux%zu: too large for 32-bit addresses", m, k, k2, n);
    return -1;
  }
  j->m = (uint32_t)m;
  j->k = (uint32_t)k;
  j->n = (uint32_t)n;
  j->a = j->na.data;
  j->b = j->nb.data;
  if (ar->set[O_BIAS]) {
    if (load_vector(ar->val[O_BIAS], "the bias", j->n, &j->nbias) != 0) {
      return -1;
    }
    j->bias = j->nbias.data;
  }
  if (ar->set[O_MULT] && ar->set[O_MULT_NPY]) {
    die_line("gemm: give --mult or --mult-npy, not both");
    return -1;
  }
  if (ar->set[O_SHIFT] && ar->set[O_SHIFT_NPY]) {
    die_line("gemm: give --shift or --shift-npy, not both");
    return -1;
  }
  j->requant = ar->set[O_MULT] || ar->set[O_MULT_NPY];
  const opt_id_t needs_mult[] = {O_SHIFT,  O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN,     O_ACT_MAX,
                                 O_ACT,    O_ACT_LUT,   O_LEAKY,  O_OUT_SCALE,   O_ACT_OUT_SCALE,
                                 O_ACT_OUT_ZP};
  for (size_t i = 0; i < sizeof needs_mult / sizeof needs_mult[0]; i++) {
    if (ar->set[needs_mult[i]] && !j->requant) {
      die_line("gemm: --%s needs --mult or --mult-npy (it only applies to requantized output)",
               k_opts[needs_mult[i]].name);
      return -1;
    }
  }
  int64_t v = 0;
  j->mult_scalar = 0;
  j->shift_scalar = 0;
  j->out_zp = 0;
  j->act_min = -128;
  j->act_max = 127;
  if (ar->set[O_MULT]) {
    if (get_int(ar, O_MULT, INT32_MIN, INT32_MAX, &v) != 0) {
      return -1;
    }
    j->mult_scalar = (int32_t)v;
  }
  if (ar->set[O_SHIFT]) {
    if (get_int(ar, O_SHIFT, TSR_SHIFT_MIN, TSR_SHIFT_MAX, &v) != 0) {
      return -1;
    }
    j->shift_scalar = (int32_t)v;
  }
  if (ar->set[O_OUT_ZP]) {
    if (get_int(ar, O_OUT_ZP, -128, 127, &v) != 0) {
      return -1;
    }
    j->out_zp = (int32_t)v;
  }
  if (ar->set[O_ACT_MIN]) {
    if (get_int(ar, O_ACT_MIN, -128, 127, &v) != 0) {
      return -1;
    }
    j->act_min = (int32_t)v;
  }
  if (ar->set[O_ACT_MAX]) {
    if (get_int(ar, O_ACT_MAX, -128, 127, &v) != 0) {
      return -1;
    }
    j->act_max = (int32_t)v;
  }
  if (j->act_min > j->act_max) {
    die_line("gemm: --act-min %d is greater than --act-max %d", j->act_min, j->act_max);
    return -1;
  }
  /* Per channel when either vector is given; the other is then broadcast. */
  j->per_channel = ar->set[O_MULT_NPY] || ar->set[O_SHIFT_NPY];
  if (j->per_channel) {
    if (ar->set[O_MULT_NPY]) {
      if (load_vector(ar->val[O_MULT_NPY], "the multiplier vector", j->n, &j->nmult) != 0) {
        return -1;
      }
      j->mult = j->nmult.data;
    } else {
      j->mult = j->own_mult = filled(j->n, j->mult_scalar);
    }
    if (ar->set[O_SHIFT_NPY]) {
      if (load_vector(ar->val[O_SHIFT_NPY], "the shift vector", j->n, &j->nshift) != 0) {
        return -1;
      }
      j->shift = j->nshift.data;
      for (uint32_t i = 0; i < j->n; i++) {
        if (j->shift[i] < TSR_SHIFT_MIN || j->shift[i] > TSR_SHIFT_MAX) {
          die_line("%s: shift[%u] = %d is outside -31..30", ar->val[O_SHIFT_NPY], i, j->shift[i]);
          return -1;
        }
      }
    } else {
      j->shift = j->own_shift = filled(j->n, j->shift_scalar);
    }
    if (j->mult == NULL || j->shift == NULL) {
      die_line("gemm: out of memory");
      return -1;
    }
  }
  return job_activation(ar, j);
}

/* Random operands and requantization parameters from the seed. */
static int job_random(const args_t *ar, job_t *j) {
  const opt_id_t file_only[] = {O_BIAS,    O_MULT,      O_MULT_NPY,      O_SHIFT,
                                O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN,       O_ACT_MAX,
                                O_ACT,     O_ACT_LUT,   O_ACT_OUT_SCALE, O_ACT_OUT_ZP,
                                O_LEAKY,   O_OUT_SCALE};
  for (size_t i = 0; i < sizeof file_only / sizeof file_only[0]; i++) {
    if (ar->set[file_only[i]]) {
      die_line("gemm: --%s applies to --a/--b operands, not to random ones (--m/--k/--n)",
               k_opts[file_only[i]].name);
      return -1;
    }
  }
  if (!ar->set[O_M] || !ar->set[O_K] || !ar->set[O_N]) {
    die_line("gemm: random operands need all of --m, --k and --n");
    return -1;
  }
  int64_t m, k, n;
  if (get_int(ar, O_M, 1, 1 << 24, &m) != 0 || get_int(ar, O_K, 1, 1 << 24, &k) != 0 ||
      get_int(ar, O_N, 1, 1 << 24, &n) != 0) {
    return -1;
  }
  if ((uint64_t)m * (uint64_t)k > (1ull << 31) || (uint64_t)k * (uint64_t)n > (1ull << 31) ||
      (uint64_t)m * (uint64_t)n > (1ull << 29)) {
    die_line("gemm: %" PRId64 "x%" PRId64 "x%" PRId64 " does not fit the 4 GiB address space", m, k, n);
    return -1;
  }
  j->m = (uint32_t)m;
  j->k = (uint32_t)k;
  j->n = (uint32_t)n;
  j->random = true;
  rng_seed(j->seed);
  j->a = j->own_a = malloc((size_t)j->m * j->k);
  j->b = j->own_b = malloc((size_t)j->k * j->n);
  j->bias = j->own_bias = malloc((size_t)j->n * sizeof(int32_t));
  j->mult = j->own_mult = malloc((size_t)j->n * sizeof(int32_t));
  j->shift = j->own_shift = malloc((size_t)j->n * sizeof(int32_t));
  if (j->a == NULL || j->b == NULL || j->bias == NULL || j->mult == NULL || j->shift == NULL) {
    die_line("gemm: out of memory for %ux%ux%u operands", j->m, j->k, j->n);
    return -1;
  }
  for (size_t i = 0; i < (size_t)j->m * j->k; i++) {
    j->a[i] = (int8_t)rng_next();
  }
  for (size_t i = 0; i < (size_t)j->k * j->n; i++) {
    j->b[i] = (int8_t)rng_next();
  }
  /* Accumulators have a spread of about 5000 * sqrt(K); choose the shift so
   * the requantized values spread over tens, not all clamped. */
  int lg = 0;
  while ((1ull << lg) < (uint64_t)j->k) {
    lg++;
  }
  int32_t base_shift = -(7 + lg / 2);
  for (uint32_t i = 0; i < j->n; i++) {
    j->bias[i] = (int32_t)rng_range(-(1ll << (12 + lg / 2)), 1ll << (12 + lg / 2));
    j->mult[i] = (int32_t)rng_range(1ll << 30, INT32_MAX);
    int64_t s = base_shift + rng_range(-1, 1);
    j->shift[i] = (int32_t)(s < TSR_SHIFT_MIN ? TSR_SHIFT_MIN : s);
  }
  j->requant = !ar->set[O_RAW];
  j->per_channel = j->requant && (rng_next() & 1u) != 0;
  j->mult_scalar = (int32_t)rng_range(1ll << 30, INT32_MAX);
  j->shift_scalar = base_shift;
  j->out_zp = (int32_t)rng_range(-20, 20);
  j->act_min = (int32_t)rng_range(-128, -88);
  j->act_max = (int32_t)rng_range(87, 127);
  if (!j->per_channel) {
    free(j->own_mult);
    free(j->own_shift);
    j->mult = j->own_mult = NULL;
    j->shift = j->own_shift = NULL;
  }
  return 0;
}

/* ---- Device -------------------------------------------------------------------------------------- */

typedef struct env {
  tsr_hal_t hal;
  tsr_dev_t dev;
  bool is_sim;
  unsigned dim;
} env_t;

/* --dim (default 8): a power of two. */
static int get_dim(const args_t *ar, unsigned *dim) {
  int64_t v = 8;
  if (ar->set[O_DIM]) {
    if (get_int(ar, O_DIM, 1, 128, &v) != 0) {
      return -1;
    }
    if ((v & (v - 1)) != 0) {
      die_line("--dim: %" PRId64 " is not a power of two (builds exist for 4, 8 and 16)", v);
      return -1;
    }
  }
  *dim = (unsigned)v;
  return 0;
}

static int open_device(const args_t *ar, uint64_t mem_bytes, env_t *e) {
  int64_t v = 0;
  if (get_dim(ar, &e->dim) != 0) {
    return -1;
  }
  char err[512];
  tsr_status_t st;
  const char *hal_spec = ar->set[O_HAL] ? ar->val[O_HAL] : "sim";
  const bool uart = strncmp(hal_spec, "uart:", 5) == 0 || strcmp(hal_spec, "uart-sim") == 0;
  if (!uart && strcmp(hal_spec, "sim") != 0) {
    die_line("--hal: unknown backend '%s' (sim, uart:PATH[,BAUD] or uart-sim)", hal_spec);
    return -1;
  }
  if (ar->set[O_HAL] && !uart && ar->set[O_DEVICE]) {
    die_line("--device does not apply to --hal sim");
    return -1;
  }
  if (uart) {
    /* The UART host link (docs/fpga.md, "Host link"): a board, or its simulation. */
    const opt_id_t not_uart[] = {O_DEVICE, O_DMA, O_MEM_LATENCY, O_MEM_BW, O_STALL_PCT, O_TRACE};
    for (size_t i = 0; i < sizeof not_uart / sizeof not_uart[0]; i++) {
      if (ar->set[not_uart[i]] && !(not_uart[i] == O_TRACE && hal_spec[4] == '-')) {
        die_line("--%s does not apply to --hal %s", k_opts[not_uart[i]].name, hal_spec);
        return -1;
      }
    }
    if (hal_spec[4] == ':') {
      st = tsr_hal_uart_open(hal_spec, &e->hal, err, sizeof err);
    } else {
      tsr_uart_transport_t t;
      st = tsr_uart_simlink_open(e->dim, ar->set[O_TRACE] ? ar->val[O_TRACE] : NULL, &t, err,
                                 sizeof err);
      if (st == TSR_OK) {
        st = tsr_hal_uart_open_transport(&t, NULL, &e->hal, err, sizeof err);
      }
    }
    e->is_sim = false;
    tsr_uart_info_t info;
    if (st == TSR_OK && tsr_hal_uart_info(&e->hal, &info) == TSR_OK && mem_bytes > info.mem_bytes) {
      die_line("the job needs %" PRIu64 " bytes of device memory; the board behind --hal %s has %u",
               mem_bytes, hal_spec, info.mem_bytes);
      return -1;
    }
  } else if (ar->set[O_DEVICE]) {
    const opt_id_t sim_only[] = {O_TRACE, O_MEM_LATENCY, O_MEM_BW, O_STALL_PCT};
    for (size_t i = 0; i < sizeof sim_only / sizeof sim_only[0]; i++) {
      if (ar->set[sim_only[i]]) {
        die_line("--%s applies to the simulator, not to --device", k_opts[sim_only[i]].name);
        return -1;
      }
    }
    st = tsr_hal_devmem_open(ar->val[O_DEVICE], ar->set[O_DMA] ? ar->val[O_DMA] : NULL, &e->hal,
                             err, sizeof err);
    e->is_sim = false;
  } else {
    if (ar->set[O_DMA]) {
      die_line("--dma needs --device");
      return -1;
    }
    tsr_sim_cfg_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mem_size = SIM_DEFAULT_MEM;
    while (cfg.mem_size < mem_bytes) {
      cfg.mem_size *= 2;
    }
    cfg.rd_latency = SIM_DEFAULT_LATENCY;
    cfg.wr_latency = SIM_DEFAULT_LATENCY;
    cfg.watchdog_cycles = SIM_DEFAULT_WATCHDOG;
    cfg.seed = 1;
    if (ar->set[O_MEM_LATENCY]) {
      if (get_int(ar, O_MEM_LATENCY, 0, 100000, &v) != 0) {
        return -1;
      }
      cfg.rd_latency = cfg.wr_latency = (unsigned)v;
    }
    if (ar->set[O_MEM_BW]) {
      if (get_int(ar, O_MEM_BW, 0, 4096, &v) != 0) {
        return -1;
      }
      cfg.bytes_per_cycle = (unsigned)v;
    }
    if (ar->set[O_STALL_PCT]) {
      if (get_int(ar, O_STALL_PCT, 0, 100, &v) != 0) {
        return -1;
      }
      cfg.stall_pct = (unsigned)v;
    }
    if (ar->set[O_SEED]) {
      if (get_int(ar, O_SEED, 0, UINT32_MAX, &v) != 0) {
        return -1;
      }
      cfg.seed = (uint32_t)v;
    }
    cfg.trace_path = ar->set[O_TRACE] ? ar->val[O_TRACE] : NULL;
    st = tsr_hal_sim_open(e->dim, &cfg, &e->hal, err, sizeof err);
    e->is_sim = true;
  }
  if (st != TSR_OK) {
    die_line("%s", err);
    return -1;
  }
  st = tsr_dev_open(&e->dev, &e->hal);
  if (st != TSR_OK) {
    const char *link = tsr_hal_uart_error(&e->hal);
    die_line("%s: %s%s%s", e->hal.ops->name, tsr_dev_error(&e->dev), link[0] != '\0' ? "; " : "",
             link);
    return -1;
  }
  if (e->is_sim) {
    e->dev.poll_limit = SIM_POLL_LIMIT;
  }
  if (ar->set[O_DIM] && e->dev.info.dim != e->dim) {
    die_line("--dim %u, but the device reports ARRAY_DIM %u", e->dim, e->dev.info.dim);
    return -1;
  }
  e->dim = e->dev.info.dim;
  return 0;
}

/* ---- Progress on a terminal ------------------------------------------------------------------------- */

typedef struct progress {
  bool enabled;
  bool shown;
  struct timespec start;
  double last;
  const tsr_hal_t *hal;
} progress_t;

/* Where the busy cycles went (CNT_ARRAY.. counters, docs/performance.md). */
typedef struct time_class {
  const char *key, *words;
  uint64_t cycles;
} time_class_t;

static void time_classes(const tsr_counters_t *c, time_class_t out[6]) {
  const time_class_t t[6] = {{"compute", "compute", c->array},
                             {"fill", "pipeline fill and drain", c->fill},
                             {"load_wait", "waiting on DMA read", c->load_wait},
                             {"store", "store", c->store},
                             {"sfu", "SFU", c->sfu},
                             {"control", "command control", c->ctrl}};
  memcpy(out, t, sizeof t);
}

static double pct(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * (double)part / (double)whole;
}

/* JSON: , "time": {"compute": cycles, ...}, "memory_stall": {"read": .., "write": ..} */
static void print_time_json(const tsr_counters_t *c) {
  time_class_t t[6];
  time_classes(c, t);
  printf(", \"time\": {");
  for (int i = 0; i < 6; i++) {
    printf("%s\"%s\": %" PRIu64, i != 0 ? ", " : "", t[i].key, t[i].cycles);
  }
  printf("}, \"memory_stall\": {\"read\": %" PRIu64 ", \"write\": %" PRIu64 "}", c->rd_stall,
         c->wr_stall);
}

/* Text: "  time: 72.0 % compute, 20.0 % waiting on DMA read, ..." (classes above 0). */
static void print_time_text(const tsr_counters_t *c) {
  time_class_t t[6];
  time_classes(c, t);
  printf("  time:");
  const char *sep = " ";
  for (int i = 0; i < 6; i++) {
    if (t[i].cycles != 0) {
      printf("%s%.1f %% %s", sep, pct(t[i].cycles, c->busy), t[i].words);
      sep = ", ";
    }
  }
  printf("; memory stalls: read %.1f %%, write %.1f %% of the busy cycles\n",
         pct(c->rd_stall, c->busy), pct(c->wr_stall, c->busy));
}

static double seconds_since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

static void on_progress(void *user, uint32_t done, uint32_t total) {
  progress_t *p = user;
  if (!p->enabled) {
    return;
  }
  double t = seconds_since(&p->start);
  if (t < 2.0 || t - p->last < 0.2) {
    return;
  }
  p->last = t;
  p->shown = true;
  fprintf(stderr, "\r  tiles %u/%u, %" PRIu64 " cycles simulated, %.1f s elapsed", done, total,
          tsr_hal_cycles(p->hal), t);
  fflush(stderr);
}

static void progress_clear(progress_t *p) {
  if (p->shown) {
    fprintf(stderr, "\r%-79s\r", "");
    fflush(stderr);
    p->shown = false;
  }
}

/* ---- gemm ------------------------------------------------------------------------------------------------- */

typedef struct layout {
  uint32_t a, b, bias, mult, shift, c, lut, mult_neg, shift_neg;
  uint64_t end;
} layout_t;

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1u) / a * a; }

static int make_layout(const job_t *j, layout_t *l) {
  uint64_t es = j->requant ? 1u : 4u;
  uint64_t p = 0x1000; /* keep address 0 unused */
  uint64_t a = p;
  p = align_up(p + (uint64_t)j->m * j->k, 64);
  uint64_t b = p;
  p = align_up(p + (uint64_t)j->k * j->n, 64);
  uint64_t bias = p;
  p = align_up(p + 4ull * j->n, 64);
  uint64_t mult = p;
  p = align_up(p + 4ull * j->n, 64);
  uint64_t shift = p;
  p = align_up(p + 4ull * j->n, 64);
  uint64_t lut = p;
  p = align_up(p + 256u, 64);
  uint64_t mult_neg = p;
  p = align_up(p + 4ull * j->n, 64);
  uint64_t shift_neg = p;
  p = align_up(p + 4ull * j->n, 64);
  uint64_t c = p;
  p = align_up(p + (uint64_t)j->m * j->n * es, 64);
  if (p > (1ull << 32)) {
    die_line("gemm: the operands need %" PRIu64 " bytes of external memory; addresses are 32-bit (4 GiB)",
             p);
    return -1;
  }
  l->a = (uint32_t)a;
  l->b = (uint32_t)b;
  l->bias = (uint32_t)bias;
  l->mult = (uint32_t)mult;
  l->shift = (uint32_t)shift;
  l->lut = (uint32_t)lut;
  l->mult_neg = (uint32_t)mult_neg;
  l->shift_neg = (uint32_t)shift_neg;
  l->c = (uint32_t)c;
  l->end = p;
  return 0;
}

static int put(env_t *e, uint32_t addr, const void *src, size_t n, const char *what) {
  tsr_status_t st = tsr_hal_mem_write(&e->hal, addr, src, n);
  if (st != TSR_OK) {
    die_line("gemm: writing %s (%zu bytes at 0x%08x) into device memory failed: %s%s", what, n,
             addr, tsr_status_str(st),
             st == TSR_UNSUPPORTED ? " (give --dma with --device)" : "");
    return -1;
  }
  return 0;
}

static int write_output(const char *path, const job_t *j, void *data) {
  tsr_npy_t t;
  memset(&t, 0, sizeof t);
  t.dtype = j->requant ? TSR_NPY_INT8 : TSR_NPY_INT32;
  t.ndim = 2;
  t.shape[0] = j->m;
  t.shape[1] = j->n;
  t.count = (size_t)j->m * j->n;
  t.data = data;
  char err[512];
  if (tsr_npy_write(path, &t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  return 0;
}

/* gemm --plan: the tiler's decisions and the predicted cost, without running. */
static void print_plan(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d,
                       const tsr_gemm_plan_t *p, bool json) {
  const uint64_t compute = p->macs / ((uint64_t)info->dim * info->dim);
  const uint64_t bytes = p->dma_rd_bytes + p->dma_wr_bytes;
  const uint64_t memory = (bytes + info->axi_bytes - 1u) / info->axi_bytes;
  const char *order = p->a_resident ? "m-tile > n-group > n-block > k-block; the A tile stays resident across the n-groups"
                                    : "m-tile > n-group > k-chunk > n-block > k-block; each A chunk serves one n-group";
  if (json) {
    printf("{\"m\": %u, \"k\": %u, \"n\": %u, \"dim\": %u, \"plan\": {\"tile_m\": %u, "
           "\"k_chunk\": %u, \"m_tiles\": %u, \"n_blocks\": %u, \"k_chunks\": %u, "
           "\"n_group\": %u, \"n_groups\": %u, \"preload\": %s, "
           "\"a_resident\": %s, \"spad_bufs\": %u, \"acc_bufs\": %u, \"commands\": %" PRIu64
           ", \"dma_read_bytes\": %" PRIu64 ", \"dma_write_bytes\": %" PRIu64
           ", \"compute_cycles\": %" PRIu64 ", \"memory_cycles\": %" PRIu64
           ", \"est_cycles\": %" PRIu64 ", \"est_utilization\": %.6f}}\n",
           d->m, d->k, d->n, info->dim, p->mt, p->kc, p->m_tiles, p->n_blocks, p->k_chunks,
           p->nb, p->n_groups, p->preload ? "true" : "false", p->a_resident ? "true" : "false", p->spad_bufs, p->acc_bufs, p->cmds, p->dma_rd_bytes,
           p->dma_wr_bytes, compute, memory, p->est_cycles,
           p->est_cycles ? (double)compute / (double)p->est_cycles : 0.0);
    return;
  }
  printf("gemm %ux%ux%u on a %ux%u array: plan\n", d->m, d->k, d->n, info->dim, info->dim);
  printf("  tiles: %u x %u rows, %u N-column blocks, K chunk %u (%u chunk%s)\n", p->m_tiles, p->mt,
         p->n_blocks, p->kc, p->k_chunks, p->k_chunks == 1 ? "" : "s");
  printf("  n-groups: %u of %u N-column block%s (one A chunk feeds each group's blocks)\n",
         p->n_groups, p->nb, p->nb == 1 ? "" : "s");
  printf("  loop order: %s\n", order);
  printf("  buffers: %u scratchpad A/W pair%s, %u accumulator tile%s; %s\n", p->spad_bufs,
         p->spad_bufs == 1 ? "" : "s", p->acc_bufs, p->acc_bufs == 1 ? "" : "s",
         p->preload ? "A and W in separate scratchpad banks (weights preloaded)"
                    : "A and W packed in one bank (no weight preload)");
  printf("  commands: %" PRIu64 " (%" PRIu64 " LOAD, %" PRIu64 " MATMUL, %" PRIu64
         " parameter LOAD, %" PRIu64 " STORE)\n",
         p->cmds, p->cmd_loads, p->cmd_matmuls, p->cmd_params, p->cmd_stores);
  printf("  DMA: %" PRIu64 " B read, %" PRIu64 " B written (%.1f MACs per byte)\n", p->dma_rd_bytes,
         p->dma_wr_bytes, bytes ? (double)p->macs / (double)bytes : 0.0);
  printf("  roofs: compute %" PRIu64 " cycles (MACs / N^2), memory %" PRIu64
         " cycles (bytes / %u B per cycle)\n",
         compute, memory, info->axi_bytes);
  printf("  predicted: %" PRIu64 " cycles, utilization %.1f %% (LOAD, MATMUL and STORE overlap as "
         "their tokens allow)\n",
         p->est_cycles, p->est_cycles ? 100.0 * (double)compute / (double)p->est_cycles : 0.0);
}

/* One GEMM as `tessera gemm` runs it (and `tessera bench`, for each point of its sweep). */
typedef struct gemm_run {
  job_t j;
  env_t e;
  tsr_gemm_desc_t d;
  tsr_gemm_plan_t plan;
  bool ran;             /* false: --plan, nothing was run */
  tsr_counters_t cnt;
  double wall;          /* seconds the run took */
  uint64_t sim_cycles;  /* clock cycles the simulator stepped (0 on hardware) */
  double util;          /* MACs / (N^2 x cycles) */
  void *out;            /* the result read back, M x N int8 or int32 */
  const char *verdict;  /* "pass", "fail" or "skipped" */
  bool mismatch;
  uint32_t bad_r, bad_c;
  int32_t got, want;
} gemm_run_t;

static void gemm_run_free(gemm_run_t *g) {
  free(g->out);
  g->out = NULL;
  tsr_hal_close(&g->e.hal);
  job_free(&g->j);
}

/* Build the job from the gemm options, open the device and plan; unless --plan, upload the
 * operands, run, read the counters and the result, and compare with the golden model
 * (always for random operands, else with --check). Errors print one line and return
 * EXIT_ERROR; a mismatch is not an error here (g->mismatch). Free g with gemm_run_free
 * whatever this returns. */
static int gemm_exec(const args_t *ar, bool show_progress, gemm_run_t *g) {
  memset(g, 0, sizeof *g);
  job_t *j = &g->j;
  env_t *e = &g->e;
  int32_t *g32 = NULL;
  int8_t *g8 = NULL;
  int64_t v = 0;
  int rc = EXIT_ERROR;

  bool random = ar->set[O_M] || ar->set[O_K] || ar->set[O_N];
  if (random && (ar->set[O_A] || ar->set[O_B])) {
    die_line("gemm: give --a/--b or --m/--k/--n, not both");
    goto done;
  }
  if (!random && ar->set[O_RAW]) {
    die_line("gemm: --raw applies to random operands (--m/--k/--n); leave out --mult instead");
    goto done;
  }
  j->seed = 1;
  if (ar->set[O_SEED]) {
    if (get_int(ar, O_SEED, 0, UINT32_MAX, &v) != 0) {
      goto done;
    }
    j->seed = (uint32_t)v;
  }
  tsr_gemm_opts_t opts;
  memset(&opts, 0, sizeof opts);
  if (ar->set[O_MAX_MT]) {
    if (get_int(ar, O_MAX_MT, 1, 65535, &v) != 0) {
      goto done;
    }
    opts.max_mt = (uint32_t)v;
  }
  if (ar->set[O_MAX_KC]) {
    if (get_int(ar, O_MAX_KC, 1, 65535, &v) != 0) {
      goto done;
    }
    opts.max_kc = (uint32_t)v;
  }
  /* The planner's cost model assumes the memory the simulator is given. */
  if (ar->set[O_MEM_BW] && get_int(ar, O_MEM_BW, 0, 4096, &v) == 0) {
    opts.mem_bw = (uint32_t)v;
  }
  if (ar->set[O_MEM_LATENCY] && get_int(ar, O_MEM_LATENCY, 0, 100000, &v) == 0) {
    opts.mem_latency = v == 0 ? 1u : (uint32_t)v; /* the memory model counts 0 as 1 */
  }
  if ((random ? job_random(ar, j) : job_from_files(ar, j)) != 0) {
    goto done;
  }
  bool check = random || ar->set[O_CHECK];
  layout_t lay;
  if (make_layout(j, &lay) != 0) {
    goto done;
  }
  if (open_device(ar, lay.end, e) != 0) {
    goto done;
  }

  /* The job in device terms. */
  tsr_gemm_desc_t *d = &g->d;
  d->m = j->m;
  d->k = j->k;
  d->n = j->n;
  d->a_addr = lay.a;
  d->lda = j->k;
  d->b_addr = lay.b;
  d->ldb = j->n;
  d->c_addr = lay.c;
  d->ldc = j->n * (j->requant ? 1u : 4u);
  d->has_bias = j->bias != NULL;
  d->bias_addr = lay.bias;
  d->requant = j->requant;
  d->per_channel = j->per_channel;
  d->mult_addr = lay.mult;
  d->shift_addr = lay.shift;
  d->mult = j->mult_scalar;
  d->shift = j->shift_scalar;
  d->out_zp = j->out_zp;
  d->act_min = j->act_min;
  d->act_max = j->act_max;
  d->has_lut = j->has_lut;
  d->lut_addr = lay.lut;
  d->leaky = j->leaky;
  d->mult_neg_addr = lay.mult_neg;
  d->shift_neg_addr = lay.shift_neg;
  tsr_status_t st = tsr_gemm_plan_opts(&e->dev.info, d, &opts, &g->plan);
  if (st != TSR_OK) {
    const char *why = "";
    tsr_gemm_check_desc(d, &why);
    if (why[0] == '\0' && d->has_lut && !e->dev.info.has_sfu) {
      why = "--act needs the SFU to load its table, and this chip was built without it "
            "(CONFIG.SFU = 0)";
    }
    die_line("gemm: no plan for %ux%ux%u on this device: %s%s%s", j->m, j->k, j->n,
             tsr_status_str(st), why[0] ? ": " : "", why);
    goto done;
  }
  if (ar->set[O_PLAN]) {
    rc = 0;
    goto done;
  }

  size_t esize = j->requant ? 1u : 4u;
  size_t out_bytes = (size_t)j->m * j->n * esize;
  g->out = malloc(out_bytes);
  if (g->out == NULL) {
    die_line("gemm: out of memory for the %zu-byte result", out_bytes);
    goto done;
  }
  /* A pattern in C, so an element the hardware never writes cannot pass by luck. */
  memset(g->out, 0x5a, out_bytes);
  if (put(e, lay.a, j->a, (size_t)j->m * j->k, "A") != 0 ||
      put(e, lay.b, j->b, (size_t)j->k * j->n, "B") != 0 ||
      (j->bias != NULL && put(e, lay.bias, j->bias, 4u * j->n, "the bias") != 0) ||
      (j->per_channel && put(e, lay.mult, j->mult, 4u * j->n, "the multipliers") != 0) ||
      (j->per_channel && put(e, lay.shift, j->shift, 4u * j->n, "the shifts") != 0) ||
      (j->has_lut && put(e, lay.lut, j->lut, 256u, "the activation table") != 0) ||
      (j->leaky && put(e, lay.mult_neg, j->mult_neg, 4u * j->n, "the leaky multipliers") != 0) ||
      (j->leaky && put(e, lay.shift_neg, j->shift_neg, 4u * j->n, "the leaky shifts") != 0) ||
      put(e, lay.c, g->out, out_bytes, "the output pattern") != 0) {
    goto done;
  }

  if ((st = tsr_soft_reset(&e->dev)) != TSR_OK || (st = tsr_counters_clear(&e->dev)) != TSR_OK) {
    die_line("gemm: %s", tsr_dev_error(&e->dev));
    goto done;
  }
  progress_t prog;
  memset(&prog, 0, sizeof prog);
  prog.enabled = show_progress;
  prog.hal = &e->hal;
  clock_gettime(CLOCK_MONOTONIC, &prog.start);
  uint64_t cyc0 = tsr_hal_cycles(&e->hal);
  st = tsr_gemm_run(&e->dev, d, &g->plan, on_progress, &prog);
  progress_clear(&prog);
  g->wall = seconds_since(&prog.start);
  g->sim_cycles = tsr_hal_cycles(&e->hal) - cyc0;
  if (st != TSR_OK) {
    die_line("gemm: %s", tsr_dev_error(&e->dev));
    goto done;
  }
  if ((st = tsr_counters_read(&e->dev, &g->cnt)) != TSR_OK) {
    die_line("gemm: reading counters: %s", tsr_dev_error(&e->dev));
    goto done;
  }
  if ((st = tsr_hal_mem_read(&e->hal, lay.c, g->out, out_bytes)) != TSR_OK) {
    die_line("gemm: reading the result back failed: %s", tsr_status_str(st));
    goto done;
  }
  g->ran = true;
  g->util = g->cnt.cycles == 0 ? 0.0
                               : (double)j->m * (double)j->k * (double)j->n /
                                     ((double)e->dim * (double)e->dim * (double)g->cnt.cycles);

  /* Compare with the golden model. */
  g->verdict = "skipped";
  if (check) {
    tsr_gemm_params_t p;
    memset(&p, 0, sizeof p);
    p.bias = j->bias;
    p.requant = j->requant;
    p.mult = j->per_channel ? j->mult : NULL;
    p.shift = j->per_channel ? j->shift : NULL;
    p.mult_scalar = j->mult_scalar;
    p.shift_scalar = j->shift_scalar;
    p.out_zp = j->out_zp;
    p.act_min = j->act_min;
    p.act_max = j->act_max;
    p.lut = j->has_lut ? j->lut : NULL;
    p.mult_neg = j->leaky ? j->mult_neg : NULL;
    p.shift_neg = j->leaky ? j->shift_neg : NULL;
    size_t mn = (size_t)j->m * j->n;
    if (j->requant) {
      g8 = malloc(mn);
    } else {
      g32 = malloc(mn * sizeof *g32);
    }
    if (g8 == NULL && g32 == NULL) {
      die_line("gemm: out of memory for the golden result");
      goto done;
    }
    if (tsr_golden_gemm(j->m, j->k, j->n, j->a, j->k, j->b, j->n, &p, g32, g8) != 0) {
      die_line("gemm: the golden model rejected the parameters");
      goto done;
    }
    for (size_t i = 0; i < mn && !g->mismatch; i++) {
      int32_t hw;
      int32_t gold;
      if (j->requant) {
        hw = ((const int8_t *)g->out)[i];
        gold = g8[i];
      } else {
        memcpy(&hw, (const uint8_t *)g->out + 4 * i, 4);
        gold = g32[i];
      }
      if (hw != gold) {
        g->mismatch = true;
        g->bad_r = (uint32_t)(i / j->n);
        g->bad_c = (uint32_t)(i % j->n);
        g->got = hw;
        g->want = gold;
      }
    }
    g->verdict = g->mismatch ? "fail" : "pass";
  }
  rc = 0;

done:
  free(g32);
  free(g8);
  return rc;
}

static void print_gemm_json(const gemm_run_t *g) {
  const job_t *j = &g->j;
  const tsr_counters_t *c = &g->cnt;
  const tsr_gemm_plan_t *p = &g->plan;
  printf("{\"m\": %u, \"k\": %u, \"n\": %u, \"dim\": %u, \"cycles\": %" PRIu64
         ", \"busy_cycles\": %" PRIu64 ", \"macs\": %" PRIu64 ", \"utilization\": %.6f"
         ", \"dma_read_bytes\": %" PRIu64 ", \"dma_write_bytes\": %" PRIu64
         ", \"commands\": %" PRIu64 ", \"check\": \"%s\"",
         j->m, j->k, j->n, g->e.dim, c->cycles, c->busy, c->macs, g->util, c->dma_rd, c->dma_wr,
         c->cmds, g->verdict);
  if (g->mismatch) {
    printf(", \"mismatch\": {\"row\": %u, \"col\": %u, \"got\": %d, \"expected\": %d}", g->bad_r,
           g->bad_c, g->got, g->want);
  }
  printf(", \"output\": \"%s\", \"requant\": %s, \"per_channel\": %s, \"bias\": %s",
         j->requant ? "int8" : "int32", j->requant ? "true" : "false",
         j->per_channel ? "true" : "false", j->bias != NULL ? "true" : "false");
  if (j->act != NULL) {
    printf(", \"act\": \"%s\"", j->act);
  }
  if (j->leaky) {
    printf(", \"leaky\": %g", j->alpha);
  }
  if (j->random) {
    printf(", \"seed\": %u", j->seed);
  }
  printf(", \"plan\": {\"tile_m\": %u, \"k_chunk\": %u, \"m_tiles\": %u, \"n_blocks\": %u"
         ", \"k_chunks\": %u, \"spad_bufs\": %u, \"acc_bufs\": %u, \"commands\": %" PRIu64
         ", \"dma_read_bytes\": %" PRIu64 ", \"dma_write_bytes\": %" PRIu64
         ", \"est_cycles\": %" PRIu64 "}",
         p->mt, p->kc, p->m_tiles, p->n_blocks, p->k_chunks, p->spad_bufs, p->acc_bufs, p->cmds,
         p->dma_rd_bytes, p->dma_wr_bytes, p->est_cycles);
  print_time_json(c);
  printf(", \"wall_seconds\": %.3f", g->wall);
  if (g->e.is_sim) {
    printf(", \"sim_cycles\": %" PRIu64 ", \"sim_cycles_per_second\": %.0f", g->sim_cycles,
           g->wall > 0 ? (double)g->sim_cycles / g->wall : 0.0);
  }
  printf("}\n");
}

static void print_gemm_text(const gemm_run_t *g, bool checked) {
  const job_t *j = &g->j;
  const tsr_counters_t *c = &g->cnt;
  printf("gemm %ux%ux%u on a %ux%u array (%s), %s output%s\n", j->m, j->k, j->n, g->e.dim,
         g->e.dim, g->e.hal.ops->name, j->requant ? "int8" : "int32",
         j->requant ? (j->per_channel ? ", per-channel requantization" : ", per-tensor requantization")
                    : "");
  if (j->act != NULL) {
    printf("  fused activation: %s (lookup table in the output stage)\n", j->act);
  }
  if (j->leaky) {
    printf("  fused leaky ReLU: alpha %g (negative side requantized by its own multiplier)\n",
           j->alpha);
  }
  printf("  tiles: %u x %u rows, K chunk %u (%u chunk%s), %" PRIu64 " commands\n",
         g->plan.m_tiles, g->plan.mt, g->plan.kc, g->plan.k_chunks,
         g->plan.k_chunks == 1 ? "" : "s", g->plan.cmds);
  printf("  bit-exact: %s\n", !checked ? "skipped (use --check)" : g->mismatch ? "NO" : "yes");
  printf("  cycles: %" PRIu64 ", utilization %.1f %%, DMA %" PRIu64 " B read, %" PRIu64
         " B written, %.2f s\n",
         c->cycles, 100.0 * g->util, c->dma_rd, c->dma_wr, g->wall);
  print_time_text(c);
}

static int cmd_gemm(const args_t *ar) {
  const bool json = ar->set[O_JSON];
  gemm_run_t g;
  int rc = gemm_exec(ar, !json && isatty(STDERR_FILENO), &g);
  if (rc != 0) {
    goto done;
  }
  if (!g.ran) {
    print_plan(&g.e.dev.info, &g.d, &g.plan, json);
    goto done;
  }
  if (ar->set[O_OUT] && write_output(ar->val[O_OUT], &g.j, g.out) != 0) {
    rc = EXIT_ERROR;
    goto done;
  }
  if (json) {
    print_gemm_json(&g);
  } else {
    print_gemm_text(&g, strcmp(g.verdict, "skipped") != 0);
  }
  fflush(stdout);
  if (g.mismatch) {
    die_line("gemm: mismatch at (row %u, col %u): got %d, expected %d", g.bad_r, g.bad_c, g.got,
             g.want);
    rc = EXIT_MISMATCH;
  }

done:
  gemm_run_free(&g);
  return rc;
}

/* ---- Special-function commands: sfu, softmax, layernorm, add, reduce --------------------- */

typedef struct sfu_job {
  const char *cmd;       /* the command, for messages */
  const char *op;        /* "op" of the JSON: sigmoid, ..., lut, softmax, layernorm, add, reduce */
  uint32_t func;         /* TSR_FUNC_* */
  uint32_t rows, len;
  int ndim;              /* of the input: the output keeps its shape */
  tsr_npy_t nin, nin2, nbeta;
  const int8_t *in, *in2; /* in2: B (add) or gamma (layernorm) */
  int32_t *beta;          /* layernorm: beta at the accumulator scale */
  int32_t param[TSR_ADD_PARAM_WORDS];
  uint32_t param_words;
  bool has_lut;
  int8_t lut[256];
} sfu_job_t;

static void sfu_job_free(sfu_job_t *j) {
  tsr_npy_free(&j->nin);
  tsr_npy_free(&j->nin2);
  tsr_npy_free(&j->nbeta);
  free(j->beta);
}

/* An option the command cannot do without. */
static int need(const args_t *ar, opt_id_t id, const char *cmd, const char *what) {
  if (!ar->set[id]) {
    die_line("%s: --%s is required (%s)", cmd, k_opts[id].name, what);
    return -1;
  }
  return 0;
}

/* An int8 tensor of 1 or 2 dimensions, the last one LEN (1..65535), at least one row. */
static int load_tensor(const char *cmd, const char *path, tsr_npy_t *t, uint32_t *rows,
                       uint32_t *len, int *ndim) {
  char err[512];
  if (tsr_npy_read(path, t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  char shp[128];
  if (t->dtype != TSR_NPY_INT8) {
    die_line("%s: expected int8, got %s %s", path, tsr_npy_dtype_name(t->dtype),
             shape_str(t, shp, sizeof shp));
    return -1;
  }
  if (t->ndim != 1 && t->ndim != 2) {
    die_line("%s: expected a 1-D or 2-D array (rows x len), got shape %s", path,
             shape_str(t, shp, sizeof shp));
    return -1;
  }
  size_t r = t->ndim == 2 ? t->shape[0] : 1u;
  size_t l = t->shape[t->ndim - 1];
  if (r == 0 || l == 0) {
    die_line("%s: shape %s has no elements", path, shape_str(t, shp, sizeof shp));
    return -1;
  }
  if (l > TSR_SFU_LEN_MAX) {
    die_line("%s: %s: rows of %zu elements are too long: the SFU takes at most %d per row", cmd,
             path, l, TSR_SFU_LEN_MAX);
    return -1;
  }
  if (r > UINT32_MAX || (uint64_t)r * l > (1ull << 30)) {
    die_line("%s: %s: %zu x %zu elements do not fit the 4 GiB address space", cmd, path, r, l);
    return -1;
  }
  *rows = (uint32_t)r;
  *len = (uint32_t)l;
  *ndim = t->ndim;
  return 0;
}

/* A 1-D vector of `len` values of one of the given types. */
static int load_row_vector(const char *cmd, const char *path, const char *what, uint32_t len,
                           tsr_npy_dtype_t d1, tsr_npy_dtype_t d2, tsr_npy_t *t) {
  char err[512];
  if (tsr_npy_read(path, t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  char shp[128];
  if (t->dtype != d1 && t->dtype != d2) {
    if (d1 == d2) {
      die_line("%s: %s: %s must be %s, got %s %s", cmd, path, what, tsr_npy_dtype_name(d1),
               tsr_npy_dtype_name(t->dtype), shape_str(t, shp, sizeof shp));
    } else {
      die_line("%s: %s: %s must be %s or %s, got %s %s", cmd, path, what, tsr_npy_dtype_name(d1),
               tsr_npy_dtype_name(d2), tsr_npy_dtype_name(t->dtype), shape_str(t, shp, sizeof shp));
    }
    return -1;
  }
  if (t->ndim != 1 || t->shape[0] != len) {
    die_line("%s: %s: %s must have shape (%u,) like a row of the input, got %s", cmd, path, what,
             len, shape_str(t, shp, sizeof shp));
    return -1;
  }
  return 0;
}

/* sfu --op NAME|lut: the table. */
static int sfu_job_map(const args_t *ar, sfu_job_t *j) {
  if (need(ar, O_OP, j->cmd, LUT_FN_NAMES " or lut") != 0) {
    return -1;
  }
  const char *op = ar->val[O_OP];
  j->func = TSR_FUNC_MAP;
  j->has_lut = true;
  j->op = op;
  if (strcmp(op, "lut") == 0) {
    const opt_id_t named_only[] = {O_IN_SCALE, O_IN_ZP, O_OUT_SCALE, O_OUT_ZP};
    for (size_t i = 0; i < sizeof named_only / sizeof named_only[0]; i++) {
      if (ar->set[named_only[i]]) {
        die_line("sfu: --%s applies to a named function; --op lut uses the table as it is",
                 k_opts[named_only[i]].name);
        return -1;
      }
    }
    if (need(ar, O_LUT, j->cmd, "--op lut maps through the int8 table in T.npy") != 0) {
      return -1;
    }
    return load_lut_npy(ar->val[O_LUT], j->lut);
  }
  tsr_lut_fn_t fn;
  if (lut_fn_of(op, &fn) != 0) {
    die_line("sfu: --op: unknown function '%s' (" LUT_FN_NAMES ", or lut with --lut T.npy)", op);
    return -1;
  }
  if (ar->set[O_LUT]) {
    die_line("sfu: --lut goes with --op lut (--op %s builds its own table)", op);
    return -1;
  }
  double in_scale = 0.0;
  double out_scale = 0.0;
  int32_t in_zp = 0;
  int32_t out_zp = 0;
  if (need(ar, O_IN_SCALE, j->cmd, "the real scale of the int8 input") != 0 ||
      need(ar, O_OUT_SCALE, j->cmd, "the real scale of the int8 output") != 0 ||
      get_scale(ar, O_IN_SCALE, &in_scale) != 0 || get_scale(ar, O_OUT_SCALE, &out_scale) != 0 ||
      get_zp(ar, O_IN_ZP, &in_zp) != 0 || get_zp(ar, O_OUT_ZP, &out_zp) != 0) {
    return -1;
  }
  if (tsr_lut_populate(fn, (float)in_scale, in_zp, (float)out_scale, out_zp, j->lut) != 0) {
    die_line("sfu: --op %s: cannot tabulate with --in-scale %g and --out-scale %g", op, in_scale,
             out_scale);
    return -1;
  }
  return 0;
}

static int sfu_job_softmax(const args_t *ar, sfu_job_t *j) {
  double in_scale = 0.0;
  double beta = 1.0;
  if (need(ar, O_IN_SCALE, j->cmd, "the real scale of the int8 input") != 0 ||
      get_scale(ar, O_IN_SCALE, &in_scale) != 0) {
    return -1;
  }
  if (ar->set[O_BETA]) {
    if (get_double(ar, O_BETA, &beta) != 0) {
      return -1;
    }
    if (!(beta > 0.0)) {
      die_line("softmax: --beta: %s must be > 0", ar->val[O_BETA]);
      return -1;
    }
  }
  tsr_softmax_params_t p;
  if (tsr_softmax_prepare(beta, in_scale, &p) != 0) {
    die_line("softmax: --beta %g with --in-scale %g gives no usable multiplier "
             "(beta * in-scale * 2^26 must be above 1)",
             beta, in_scale);
    return -1;
  }
  j->func = TSR_FUNC_SOFTMAX;
  j->op = "softmax";
  j->param_words = TSR_SOFTMAX_PARAM_WORDS;
  memcpy(j->param, &p, sizeof p);
  return 0;
}

static int sfu_job_layernorm(const args_t *ar, sfu_job_t *j) {
  double in_scale = 0.0;
  double gamma_scale = 0.0;
  double out_scale = 0.0;
  double eps = 1e-5;
  int32_t gamma_zp = 0;
  int32_t out_zp = 0;
  if (need(ar, O_IN_SCALE, j->cmd, "the real scale of the int8 input") != 0 ||
      need(ar, O_GAMMA, j->cmd, "int8 G.npy, one value per element of a row") != 0 ||
      need(ar, O_GAMMA_SCALE, j->cmd, "the real scale of gamma") != 0 ||
      need(ar, O_BETA, j->cmd, "B.npy, float32 or int32, one value per element of a row") != 0 ||
      need(ar, O_OUT_SCALE, j->cmd, "the real scale of the int8 output") != 0 ||
      get_scale(ar, O_IN_SCALE, &in_scale) != 0 ||
      get_scale(ar, O_GAMMA_SCALE, &gamma_scale) != 0 ||
      get_scale(ar, O_OUT_SCALE, &out_scale) != 0 || get_zp(ar, O_GAMMA_ZP, &gamma_zp) != 0 ||
      get_zp(ar, O_OUT_ZP, &out_zp) != 0) {
    return -1;
  }
  if (ar->set[O_EPS]) {
    if (get_double(ar, O_EPS, &eps) != 0) {
      return -1;
    }
    if (eps < 0.0) {
      die_line("layernorm: --eps: %s must be >= 0", ar->val[O_EPS]);
      return -1;
    }
  }
  if (load_row_vector(j->cmd, ar->val[O_GAMMA], "gamma", j->len, TSR_NPY_INT8, TSR_NPY_INT8,
                      &j->nin2) != 0 ||
      load_row_vector(j->cmd, ar->val[O_BETA], "beta", j->len, TSR_NPY_FLOAT32, TSR_NPY_INT32,
                      &j->nbeta) != 0) {
    return -1;
  }
  j->in2 = j->nin2.data;
  tsr_layernorm_params_t p;
  if (tsr_layernorm_prepare(j->len, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp, &p) !=
      0) {
    die_line("layernorm: no parameters for --in-scale %g --eps %g --gamma-scale %g --out-scale %g"
             " (epsilon too large, or the output multiplier gamma-scale / 2^12 / out-scale is not"
             " representable)",
             in_scale, eps, gamma_scale, out_scale);
    return -1;
  }
  j->beta = malloc((size_t)j->len * sizeof *j->beta);
  if (j->beta == NULL) {
    die_line("layernorm: out of memory");
    return -1;
  }
  if (j->nbeta.dtype == TSR_NPY_INT32) {
    memcpy(j->beta, j->nbeta.data, (size_t)j->len * sizeof *j->beta);
  } else if (tsr_layernorm_quantize_beta(j->len, j->nbeta.data, gamma_scale, j->beta) != 0) {
    die_line("layernorm: %s: a beta value is NaN or does not fit int32 at the accumulator scale "
             "gamma-scale * 2^-12 = %g",
             ar->val[O_BETA], gamma_scale / 4096.0);
    return -1;
  }
  j->func = TSR_FUNC_LAYERNORM;
  j->op = "layernorm";
  j->param_words = TSR_LAYERNORM_PARAM_WORDS;
  memcpy(j->param, &p, sizeof p);
  return 0;
}

static int sfu_job_add(const args_t *ar, sfu_job_t *j) {
  double sa = 0.0;
  double sb = 0.0;
  double so = 0.0;
  int32_t za = 0;
  int32_t zb = 0;
  int32_t zo = 0;
  if (need(ar, O_A_SCALE, j->cmd, "the real scale of A") != 0 ||
      need(ar, O_B_SCALE, j->cmd, "the real scale of B") != 0 ||
      need(ar, O_OUT_SCALE, j->cmd, "the real scale of the int8 output") != 0 ||
      get_scale(ar, O_A_SCALE, &sa) != 0 || get_scale(ar, O_B_SCALE, &sb) != 0 ||
      get_scale(ar, O_OUT_SCALE, &so) != 0 || get_zp(ar, O_A_ZP, &za) != 0 ||
      get_zp(ar, O_B_ZP, &zb) != 0 || get_zp(ar, O_OUT_ZP, &zo) != 0) {
    return -1;
  }
  uint32_t rows2 = 0;
  uint32_t len2 = 0;
  int ndim2 = 0;
  if (load_tensor(j->cmd, ar->val[O_B], &j->nin2, &rows2, &len2, &ndim2) != 0) {
    return -1;
  }
  if (ndim2 != j->ndim || rows2 != j->rows || len2 != j->len) {
    char s1[128];
    char s2[128];
    die_line("add: A is %s but B is %s: the shapes must be equal",
             shape_str(&j->nin, s1, sizeof s1), shape_str(&j->nin2, s2, sizeof s2));
    return -1;
  }
  j->in2 = j->nin2.data;
  tsr_add_params_t p;
  if (tsr_add_prepare(sa, za, sb, zb, so, zo, &p) != 0) {
    die_line("add: --a-scale %g, --b-scale %g and --out-scale %g give an output multiplier that "
             "cannot be represented",
             sa, sb, so);
    return -1;
  }
  j->func = TSR_FUNC_ADD;
  j->op = "add";
  j->param_words = TSR_ADD_PARAM_WORDS;
  memcpy(j->param, &p, sizeof p);
  return 0;
}

/* The golden result: int8 [rows][len], or int32 [rows][3] for reduce. */
static int sfu_golden(const sfu_job_t *j, void *out) {
  const size_t n = (size_t)j->rows * j->len;
  switch (j->func) {
    case TSR_FUNC_MAP:
      tsr_golden_map(j->lut, n, j->in, out);
      return 0;
    case TSR_FUNC_REDUCE:
      tsr_golden_reduce(j->rows, j->len, j->in, out);
      return 0;
    case TSR_FUNC_SOFTMAX: {
      tsr_softmax_params_t p;
      memcpy(&p, j->param, sizeof p);
      return tsr_golden_softmax(j->rows, j->len, j->in, &p, out);
    }
    case TSR_FUNC_LAYERNORM: {
      tsr_layernorm_params_t p;
      memcpy(&p, j->param, sizeof p);
      return tsr_golden_layernorm(j->rows, j->len, j->in, j->in2, j->beta, &p, out);
    }
    default: {
      tsr_add_params_t p;
      memcpy(&p, j->param, sizeof p);
      return tsr_golden_add(n, j->in, j->in2, &p, out);
    }
  }
}

typedef struct sfu_layout {
  uint32_t in, in2, beta, param, lut, out;
  uint64_t end;
} sfu_layout_t;

static int sfu_make_layout(const sfu_job_t *j, size_t out_bytes, sfu_layout_t *l) {
  const uint64_t n = (uint64_t)j->rows * j->len;
  uint64_t p = 0x1000; /* keep address 0 unused */
  l->in = (uint32_t)p;
  p = align_up(p + n, 64);
  l->in2 = (uint32_t)p;
  p = align_up(p + (j->func == TSR_FUNC_ADD ? n : j->len), 64);
  l->beta = (uint32_t)p;
  p = align_up(p + 4ull * j->len, 64);
  l->param = (uint32_t)p;
  p = align_up(p + 4ull * TSR_ADD_PARAM_WORDS, 64);
  l->lut = (uint32_t)p;
  p = align_up(p + 256u, 64);
  l->out = (uint32_t)p;
  p = align_up(p + out_bytes, 64);
  if (p > (1ull << 32)) {
    die_line("%s: the tensors need %" PRIu64 " bytes of external memory; addresses are 32-bit",
             j->cmd, p);
    return -1;
  }
  l->end = p;
  return 0;
}

static const char *func_name(uint32_t func) {
  static const char *const names[] = {"LUT_LOAD", "MAP", "REDUCE", "SOFTMAX", "LAYERNORM", "ADD"};
  return func < sizeof names / sizeof names[0] ? names[func] : "?";
}

/* sfu, softmax, layernorm, add, reduce: one SFU job through fw/tsr_sfu_ops.c. */
static int cmd_sfu_family(const args_t *ar) {
  int rc = EXIT_ERROR;
  sfu_job_t j;
  memset(&j, 0, sizeof j);
  env_t e;
  memset(&e, 0, sizeof e);
  uint8_t *out = NULL;
  uint8_t *gold = NULL;
  const unsigned cmd = cmd_bit(ar->cmd);
  j.cmd = ar->cmd;

  /* The input tensor(s). */
  const opt_id_t in_opt = cmd == C_ADD ? O_A : O_IN;
  if (need(ar, in_opt, j.cmd, cmd == C_ADD ? "int8 A.npy" : "int8 X.npy, 1-D or 2-D") != 0 ||
      (cmd == C_ADD && need(ar, O_B, j.cmd, "int8 B.npy, the shape of A") != 0)) {
    goto done;
  }
  if (load_tensor(j.cmd, ar->val[in_opt], &j.nin, &j.rows, &j.len, &j.ndim) != 0) {
    goto done;
  }
  j.in = j.nin.data;
  int st_job = 0;
  switch (cmd) {
    case C_SFU:
      st_job = sfu_job_map(ar, &j);
      break;
    case C_SOFTMAX:
      st_job = sfu_job_softmax(ar, &j);
      break;
    case C_LAYERNORM:
      st_job = sfu_job_layernorm(ar, &j);
      break;
    case C_ADD:
      st_job = sfu_job_add(ar, &j);
      break;
    default:
      j.func = TSR_FUNC_REDUCE;
      j.op = "reduce";
      break;
  }
  if (st_job != 0) {
    goto done;
  }
  const bool check = ar->set[O_CHECK];
  const bool json = ar->set[O_JSON];
  const bool reduce = j.func == TSR_FUNC_REDUCE;
  const size_t n = (size_t)j.rows * j.len;
  const size_t out_bytes = reduce ? (size_t)j.rows * 12u : n;
  sfu_layout_t lay;
  if (sfu_make_layout(&j, out_bytes, &lay) != 0 || open_device(ar, lay.end, &e) != 0) {
    goto done;
  }

  /* The job in device terms. */
  tsr_sfu_desc_t d;
  memset(&d, 0, sizeof d);
  d.func = j.func;
  d.rows = j.rows;
  d.len = j.len;
  d.in_addr = lay.in;
  d.in2_addr = lay.in2;
  d.beta_addr = lay.beta;
  d.param_addr = lay.param;
  d.has_lut = j.has_lut;
  d.lut_addr = lay.lut;
  d.out_addr = lay.out;
  tsr_sfu_plan_t plan;
  const char *why = "";
  tsr_status_t st = tsr_sfu_plan(&e.dev.info, &d, &plan, &why);
  if (st != TSR_OK) {
    die_line("%s: %u x %u does not run on this device (N = %u, %u scratchpad rows, %u accumulator"
             " rows): %s",
             j.cmd, j.rows, j.len, e.dev.info.dim, e.dev.info.spad_rows, e.dev.info.acc_rows, why);
    goto done;
  }
  out = malloc(out_bytes);
  if (out == NULL) {
    die_line("%s: out of memory for the %zu-byte result", j.cmd, out_bytes);
    goto done;
  }
  /* A pattern in the output, so an element the hardware never writes cannot pass by luck. */
  memset(out, 0x5a, out_bytes);
  if (put(&e, lay.in, j.in, n, "the input") != 0 ||
      (j.func == TSR_FUNC_ADD && put(&e, lay.in2, j.in2, n, "B") != 0) ||
      (j.func == TSR_FUNC_LAYERNORM && put(&e, lay.in2, j.in2, j.len, "gamma") != 0) ||
      (j.func == TSR_FUNC_LAYERNORM && put(&e, lay.beta, j.beta, 4u * j.len, "beta") != 0) ||
      (j.param_words != 0 &&
       put(&e, lay.param, j.param, 4u * j.param_words, "the parameters") != 0) ||
      (j.has_lut && put(&e, lay.lut, j.lut, 256u, "the table") != 0) ||
      put(&e, lay.out, out, out_bytes, "the output pattern") != 0) {
    goto done;
  }
  if ((st = tsr_soft_reset(&e.dev)) != TSR_OK || (st = tsr_counters_clear(&e.dev)) != TSR_OK) {
    die_line("%s: %s", j.cmd, tsr_dev_error(&e.dev));
    goto done;
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  uint64_t cyc0 = tsr_hal_cycles(&e.hal);
  st = tsr_sfu_run(&e.dev, &d, &plan);
  double wall = seconds_since(&t0);
  uint64_t sim_cycles = tsr_hal_cycles(&e.hal) - cyc0;
  if (st != TSR_OK) {
    die_line("%s: %s", j.cmd, tsr_dev_error(&e.dev));
    goto done;
  }
  tsr_counters_t cnt;
  if ((st = tsr_counters_read(&e.dev, &cnt)) != TSR_OK) {
    die_line("%s: reading counters: %s", j.cmd, tsr_dev_error(&e.dev));
    goto done;
  }
  if ((st = tsr_hal_mem_read(&e.hal, lay.out, out, out_bytes)) != TSR_OK) {
    die_line("%s: reading the result back failed: %s", j.cmd, tsr_status_str(st));
    goto done;
  }

  /* Compare with the golden model. */
  const char *verdict = "skipped";
  bool mismatch = false;
  size_t bad_r = 0;
  size_t bad_c = 0;
  int32_t got = 0;
  int32_t want = 0;
  if (check) {
    gold = malloc(out_bytes);
    if (gold == NULL) {
      die_line("%s: out of memory for the golden result", j.cmd);
      goto done;
    }
    if (sfu_golden(&j, gold) != 0) {
      die_line("%s: the golden model rejected the parameters", j.cmd);
      goto done;
    }
    const size_t cols = reduce ? 3u : j.len;
    for (size_t i = 0; i < (reduce ? (size_t)j.rows * 3u : n) && !mismatch; i++) {
      int32_t hw;
      int32_t gv;
      if (reduce) {
        memcpy(&hw, out + 4 * i, 4);
        memcpy(&gv, gold + 4 * i, 4);
      } else {
        hw = (int8_t)out[i];
        gv = (int8_t)gold[i];
      }
      if (hw != gv) {
        mismatch = true;
        bad_r = i / cols;
        bad_c = i % cols;
        got = hw;
        want = gv;
      }
    }
    verdict = mismatch ? "fail" : "pass";
  }
  if (ar->set[O_OUT]) {
    tsr_npy_t t;
    memset(&t, 0, sizeof t);
    if (reduce) {
      t.dtype = TSR_NPY_INT32;
      t.ndim = 2;
      t.shape[0] = j.rows;
      t.shape[1] = 3;
      t.count = (size_t)j.rows * 3u;
    } else {
      t.dtype = TSR_NPY_INT8;
      t.ndim = j.ndim;
      t.shape[0] = j.ndim == 2 ? j.rows : j.len;
      t.shape[1] = j.ndim == 2 ? j.len : 0;
      t.count = n;
    }
    t.data = out;
    char err[512];
    if (tsr_npy_write(ar->val[O_OUT], &t, err, sizeof err) != 0) {
      die_line("%s", err);
      goto done;
    }
  }

  const double cpe = (double)cnt.cycles / (double)n;
  if (json) {
    printf("{\"op\": \"%s\", \"func\": \"%s\", \"rows\": %u, \"len\": %u, \"dim\": %u"
           ", \"cycles\": %" PRIu64 ", \"busy_cycles\": %" PRIu64 ", \"cycles_per_element\": %.4f"
           ", \"dma_rd_bytes\": %" PRIu64 ", \"dma_wr_bytes\": %" PRIu64 ", \"commands\": %" PRIu64
           ", \"check\": \"%s\"",
           j.op, func_name(j.func), j.rows, j.len, e.dim, cnt.cycles, cnt.busy, cpe, cnt.dma_rd,
           cnt.dma_wr, cnt.cmds, verdict);
    if (mismatch) {
      printf(", \"mismatch\": {\"row\": %zu, \"col\": %zu, \"got\": %d, \"expected\": %d}", bad_r,
             bad_c, got, want);
    }
    if (j.param_words != 0) {
      printf(", \"params\": [");
      for (uint32_t i = 0; i < j.param_words; i++) {
        printf("%s%d", i != 0 ? ", " : "", j.param[i]);
      }
      printf("]");
    }
    printf(", \"plan\": {\"blocks\": %u, \"block_rows\": %u, \"bufs\": %u, \"chunks\": %u"
           ", \"commands\": %" PRIu64 ", \"dma_rd_bytes\": %" PRIu64 ", \"dma_wr_bytes\": %" PRIu64
           "}",
           plan.blocks, plan.block_rows, plan.bufs, plan.chunks, plan.cmds, plan.dma_rd_bytes,
           plan.dma_wr_bytes);
    print_time_json(&cnt);
    printf(", \"wall_seconds\": %.3f", wall);
    if (e.is_sim) {
      printf(", \"sim_cycles\": %" PRIu64 ", \"sim_cycles_per_second\": %.0f", sim_cycles,
             wall > 0 ? (double)sim_cycles / wall : 0.0);
    }
    printf("}\n");
  } else {
    printf("%s%s%s %ux%u on a %ux%u array (%s)\n", cmd == C_SFU ? "sfu " : "", j.op,
           cmd == C_SFU ? " (table)" : "", j.rows, j.len, e.dim, e.dim, e.hal.ops->name);
    printf("  blocks: %u x %u rows, %u chunk row%s per row, %" PRIu64 " commands\n", plan.blocks,
           plan.block_rows, plan.chunks, plan.chunks == 1 ? "" : "s", plan.cmds);
    printf("  bit-exact: %s\n", !check ? "skipped (use --check)" : mismatch ? "NO" : "yes");
    printf("  cycles: %" PRIu64 ", %.2f per element, DMA %" PRIu64 " B read, %" PRIu64
           " B written, %.2f s\n",
           cnt.cycles, cpe, cnt.dma_rd, cnt.dma_wr, wall);
    print_time_text(&cnt);
  }
  fflush(stdout);
  if (mismatch) {
    die_line("%s: mismatch at (row %zu, %s %zu): got %d, expected %d", j.cmd, bad_r,
             reduce ? "lane" : "col", bad_c, got, want);
    rc = EXIT_MISMATCH;
    goto done;
  }
  rc = 0;

done:
  free(out);
  free(gold);
  tsr_hal_close(&e.hal);
  sfu_job_free(&j);
  return rc;
}

/* ---- info ------------------------------------------------------------------------------------------- */

static int cmd_info(const args_t *ar) {
  env_t e;
  memset(&e, 0, sizeof e);
  if (open_device(ar, 0, &e) != 0) {
    tsr_hal_close(&e.hal);
    return EXIT_ERROR;
  }
  const tsr_dev_info_t *i = &e.dev.info;
  unsigned major = (i->version >> 8) & 0xffu, minor = i->version & 0xffu;
  if (ar->set[O_JSON]) {
    printf("{\"backend\": \"%s\", \"id\": \"0x%08x\", \"vendor\": \"0x%04x\", \"version\": \"%u.%u\""
           ", \"dim\": %u, \"axi_bytes\": %u, \"cmdq_depth\": %u, \"spad_rows\": %u"
           ", \"acc_rows\": %u, \"spad_bytes\": %u, \"acc_bytes\": %u, \"sfu\": %s"
           ", \"store_lanes\": %u}\n",
           e.hal.ops->name, i->id, i->id >> 16, major, minor, i->dim, i->axi_bytes, i->cmdq_depth,
           i->spad_rows, i->acc_rows, i->spad_rows * i->dim, i->acc_rows * i->dim * 4u,
           i->has_sfu ? "true" : "false", i->store_lanes);
  } else {
    printf("Tessera on %s: ID 0x%08x (vendor 0x%04x, register map %u.%u)\n", e.hal.ops->name,
           i->id, i->id >> 16, major, minor);
    printf("  array:        %u x %u int8 MACs\n", i->dim, i->dim);
    printf("  AXI master:   %u bytes per beat\n", i->axi_bytes);
    printf("  command queue: %u commands\n", i->cmdq_depth);
    printf("  scratchpad:   %u rows x %u B = %u KiB\n", i->spad_rows, i->dim,
           i->spad_rows * i->dim / 1024u);
    printf("  accumulator:  %u rows x %u int32 = %u KiB\n", i->acc_rows, i->dim,
           i->acc_rows * i->dim * 4u / 1024u);
    printf("  SFU:          %s\n", i->has_sfu ? "yes" : "no (built without it)");
    printf("  output stage: %u requantization lanes (%u cycle%s per stored row)\n", i->store_lanes,
           i->dim / i->store_lanes, i->dim == i->store_lanes ? "" : "s");
  }
  tsr_hal_close(&e.hal);
  return 0;
}

/* ---- bench ------------------------------------------------------------------------------------------ */

/*
 * The GEMM sweep of issue #4 behind `make bench` and docs/performance.md. Each point is
 * `tessera gemm --m M --k K --n N --seed 1 [--mem-bw B]` run through gemm_exec, so it is
 * checked bit-exact against the golden model. Intensity counts the DRAM bytes the firmware
 * actually moved (CNT_DMA_RD + CNT_DMA_WR); the roof of a point is min(N^2, bandwidth x
 * intensity), the bandwidth being the bus width or the --mem-bw cap if lower.
 * tools/bench.py --doc-only turns DIR/bench.json into docs/performance.md.
 */
typedef struct bench_point {
  const char *group;
  char label[32];
  uint32_t m, k, n;
  uint32_t bw; /* --mem-bw in bytes per cycle; 0: the bus width */
} bench_point_t;

typedef struct bench_row {
  bench_point_t pt;
  uint32_t bw_eff, bw_asked;
  uint64_t macs, moved, cycles, pred, sim_cps;
  double util, intensity, attained, roof;
  tsr_counters_t cnt;
} bench_row_t;

#define BENCH_MAX_POINTS 32

static const char *const k_bench_groups[5] = {"square", "batch", "resnet50", "bert", "bandwidth"};
static const uint32_t k_bench_square[] = {16, 32, 64, 128, 256, 512, 1024};
static const uint32_t k_bench_batch[] = {1, 8, 32, 256}; /* M at K = N = 1024 */
static const uint32_t k_bench_resnet[][3] = {
    {3136, 576, 64}, {784, 1152, 128}, {196, 2304, 256}, {49, 4608, 512}};
static const uint32_t k_bench_bert[][3] = {{128, 768, 768}, {128, 768, 3072}, {128, 3072, 768}};
static const uint32_t k_bench_bw[] = {1, 2, 4, 8, 16}; /* bytes per cycle at 256^3 */

static void bench_add(bench_point_t *pts, size_t *n, const char *group, uint32_t m, uint32_t k,
                      uint32_t nn, uint32_t bw) {
  bench_point_t *p = &pts[(*n)++];
  p->group = group;
  p->m = m;
  p->k = k;
  p->n = nn;
  p->bw = bw;
  if (bw != 0u) {
    snprintf(p->label, sizeof p->label, "%u B/c", bw);
  } else if (strcmp(group, "square") == 0) {
    snprintf(p->label, sizeof p->label, "%u^3", m);
  } else if (strcmp(group, "batch") == 0) {
    snprintf(p->label, sizeof p->label, "M=%u", m);
  } else {
    snprintf(p->label, sizeof p->label, "%ux%ux%u", m, k, nn);
  }
}

/* The points in order; --quick keeps a subset of each group (the same as before, when
 * tools/bench.py ran the sweep). Returns how many. */
static size_t bench_sweep(bool quick, bench_point_t pts[BENCH_MAX_POINTS]) {
  size_t n = 0;
  for (size_t i = 0; i < (quick ? 5u : 7u); i++) {
    bench_add(pts, &n, "square", k_bench_square[i], k_bench_square[i], k_bench_square[i], 0u);
  }
  for (size_t i = 0; i < (quick ? 2u : 4u); i++) {
    bench_add(pts, &n, "batch", k_bench_batch[i], 1024u, 1024u, 0u);
  }
  for (size_t i = quick ? 3u : 0u; i < 4u; i++) {
    bench_add(pts, &n, "resnet50", k_bench_resnet[i][0], k_bench_resnet[i][1],
              k_bench_resnet[i][2], 0u);
  }
  for (size_t i = 0; i < (quick ? 1u : 3u); i++) {
    bench_add(pts, &n, "bert", k_bench_bert[i][0], k_bench_bert[i][1], k_bench_bert[i][2], 0u);
  }
  for (size_t i = quick ? 1u : 0u; i < (quick ? 4u : 5u); i++) {
    bench_add(pts, &n, "bandwidth", 256u, 256u, 256u, k_bench_bw[i]);
  }
  return n;
}

/* x rounded to `places` decimals and written the shortest way ("64", "4.2667", "-0.07764"),
 * as Python's round() and str() write them (bench.json and bench.csv keep that form). */
static const char *fmt_round(char buf[40], double x, int places) {
  snprintf(buf, 40, "%.*f", places, x);
  char *dot = strchr(buf, '.');
  if (dot != NULL) {
    char *end = buf + strlen(buf) - 1;
    while (end > dot && *end == '0') {
      *end-- = '\0';
    }
    if (end == dot) {
      *end = '\0';
    }
  }
  if (strcmp(buf, "-0") == 0) {
    strcpy(buf, "0");
  }
  return buf;
}

/* s as a JSON string (quotes included). */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      fprintf(f, "\\%c", c);
    } else if (c < 0x20u) {
      fprintf(f, "\\u%04x", c);
    } else {
      fputc(c, f);
    }
  }
  fputc('"', f);
}

typedef struct bench_meta {
  unsigned dim, axi_bytes, peak;
  char machine[512];
  char date[16];
  double wall;
} bench_meta_t;

/* bench.json: {"meta": {...}, "points": [...]}, laid out as Python's json.dump(indent=1). */
static void bench_write_json(FILE *f, const bench_meta_t *meta, const bench_row_t *rows,
                             size_t n) {
  char b[40];
  fprintf(f, "{\n \"meta\": {\n  \"dim\": %u,\n  \"axi_bytes\": %u,\n  \"peak_macs_per_cycle\": %u,\n",
          meta->dim, meta->axi_bytes, meta->peak);
  fprintf(f, "  \"machine\": ");
  json_str(f, meta->machine);
  fprintf(f, ",\n  \"date\": \"%s\",\n  \"wall_seconds\": %s\n },\n \"points\": [", meta->date,
          fmt_round(b, meta->wall, 1));
  for (size_t i = 0; i < n; i++) {
    const bench_row_t *r = &rows[i];
    fprintf(f, "%s\n  {\n   \"group\": \"%s\",\n   \"label\": ", i != 0 ? "," : "", r->pt.group);
    json_str(f, r->pt.label);
    fprintf(f, ",\n   \"m\": %u,\n   \"k\": %u,\n   \"n\": %u,\n   \"dim\": %u,\n", r->pt.m,
            r->pt.k, r->pt.n, meta->dim);
    fprintf(f, "   \"bytes_per_cycle\": %u,\n   \"bytes_per_cycle_asked\": %u,\n", r->bw_eff,
            r->bw_asked);
    fprintf(f, "   \"macs\": %" PRIu64 ",\n   \"dram_bytes\": %" PRIu64 ",\n", r->macs, r->moved);
    fprintf(f, "   \"intensity\": %s,\n", fmt_round(b, r->intensity, 4));
    fprintf(f, "   \"cycles\": %" PRIu64 ",\n", r->cycles);
    fprintf(f, "   \"utilization\": %s,\n", fmt_round(b, r->util, 6));
    fprintf(f, "   \"macs_per_cycle\": %s,\n", fmt_round(b, r->attained, 4));
    fprintf(f, "   \"roof\": %s,\n", fmt_round(b, r->roof, 4));
    fprintf(f, "   \"attainment\": %s,\n", fmt_round(b, r->attained / r->roof, 6));
    fprintf(f, "   \"predicted_cycles\": %" PRIu64 ",\n", r->pred);
    fprintf(f, "   \"model_error\": %s,\n",
            fmt_round(b, ((double)r->pred - (double)r->cycles) / (double)r->cycles, 6));
    time_class_t t[6];
    time_classes(&r->cnt, t);
    fprintf(f, "   \"time\": {");
    for (int c = 0; c < 6; c++) {
      fprintf(f, "%s\n    \"%s\": %" PRIu64, c != 0 ? "," : "", t[c].key, t[c].cycles);
    }
    fprintf(f, "\n   },\n   \"memory_stall\": {\n    \"read\": %" PRIu64 ",\n    \"write\": %" PRIu64
            "\n   },\n",
            r->cnt.rd_stall, r->cnt.wr_stall);
    fprintf(f, "   \"sim_cycles_per_second\": %" PRIu64 ",\n   \"check\": \"pass\"\n  }",
            r->sim_cps);
  }
  fprintf(f, "\n ]\n}\n");
}

/* bench.csv: one line per point, the columns tools/bench.py has always written. */
static void bench_write_csv(FILE *f, const bench_row_t *rows, size_t n) {
  char b[6][40];
  fprintf(f, "group,label,m,k,n,bytes_per_cycle,macs,dram_bytes,intensity,cycles,utilization,"
             "macs_per_cycle,roof,attainment,predicted_cycles,model_error\n");
  for (size_t i = 0; i < n; i++) {
    const bench_row_t *r = &rows[i];
    fprintf(f, "%s,%s,%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%s,%s,%s,%s,%" PRIu64
               ",%s\n",
            r->pt.group, r->pt.label, r->pt.m, r->pt.k, r->pt.n, r->bw_eff, r->macs, r->moved,
            fmt_round(b[0], r->intensity, 4), r->cycles, fmt_round(b[1], r->util, 6),
            fmt_round(b[2], r->attained, 4), fmt_round(b[3], r->roof, 4), fmt_round(b[4], r->attained / r->roof, 6),
            r->pred, fmt_round(b[5], ((double)r->pred - (double)r->cycles) / (double)r->cycles, 6));
  }
}

/* roofline.dat (one gnuplot data block per group: intensity, MACs per cycle, label) and
 * roofline.gp, which reads it from its own directory. */
static void bench_write_dat(FILE *f, const bench_row_t *rows, size_t n) {
  char b[2][40];
  for (size_t g = 0; g < 5; g++) {
    fprintf(f, "# %s\n", k_bench_groups[g]);
    for (size_t i = 0; i < n; i++) {
      if (strcmp(rows[i].pt.group, k_bench_groups[g]) == 0) {
        fprintf(f, "%s %s \"%s\"\n", fmt_round(b[0], rows[i].intensity, 4),
                fmt_round(b[1], rows[i].attained, 4), rows[i].pt.label);
      }
    }
    fprintf(f, "\n\n");
  }
}

static void bench_write_gp(FILE *f, const bench_meta_t *meta, const bench_row_t *rows,
                           size_t n) {
  char b[2][40];
  double lo = 0.0, hi = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double x = rows[i].intensity;
    lo = i == 0 || x < lo ? x : lo;
    hi = i == 0 || x > hi ? x : hi;
  }
  lo = lo / 2 > 0.1 ? lo / 2 : 0.1;
  hi *= 2;
  const unsigned peak = meta->peak, bus = meta->axi_bytes;
  fprintf(f,
          "# Roofline of the Tessera bench: `tessera bench` writes this file and roofline.dat.\n"
          "# Redraw from this directory: gnuplot -e \"set terminal svg size 1200,800; "
          "set output 'roofline.svg'\" roofline.gp\n"
          "set logscale xy\n"
          "set xrange [%s:%s]\n"
          "set yrange [0.1:%u]\n"
          "set xlabel \"arithmetic intensity (MACs per DRAM byte moved)\"\n"
          "set ylabel \"MACs per cycle\"\n"
          "set title \"Tessera N=%u roofline: compute roof %u MACs/cycle, memory roof %u B/cycle\"\n"
          "set key left top\n"
          "set grid\n"
          "roof(x, b) = (x * b < %u) ? x * b : %u\n"
          "plot roof(x, %u) title \"roof: min(N^2, %u B/cycle x intensity)\" with lines lw 2 "
          "lc rgb \"black\", \\\n",
          fmt_round(b[0], lo, 6), fmt_round(b[1], hi, 6), peak * 2u, meta->dim, peak, bus, peak, peak, bus,
          bus);
  /* The lower memory roofs of the bandwidth sweep, dashed, in increasing order. */
  for (uint32_t bw = 1; bw < bus; bw++) {
    bool used = false;
    for (size_t i = 0; i < n; i++) {
      used = used || rows[i].bw_eff == bw;
    }
    if (used) {
      fprintf(f, "  roof(x, %u) title \"memory roof at %u B/cycle\" with lines dt 2 lc rgb \"gray\", \\\n",
              bw, bw);
    }
  }
  fprintf(f, "  for [i=0:4] \"roofline.dat\" index i using 1:2 with points pt 7 ps 1 \\\n"
             "    title word(\"square batch(K=N=1024) resnet50 bert-base bandwidth(256^3)\", i+1), \\\n"
             "  \"roofline.dat\" using 1:2:3 with labels offset 0.6,0.6 left font \",7\" notitle\n");
}

typedef enum bench_file { BF_JSON, BF_CSV, BF_DAT, BF_GP } bench_file_t;

/* Write DIR/name with one of the writers above. */
static int bench_write(const char *dir, const char *name, bench_file_t what,
                       const bench_meta_t *meta, const bench_row_t *rows, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    die_line("cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  switch (what) {
    case BF_JSON:
      bench_write_json(f, meta, rows, n);
      break;
    case BF_CSV:
      bench_write_csv(f, rows, n);
      break;
    case BF_DAT:
      bench_write_dat(f, rows, n);
      break;
    default:
      bench_write_gp(f, meta, rows, n);
      break;
  }
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad) {
    die_line("writing %s failed: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* mkdir -p. */
static int make_dirs(const char *path) {
  char buf[4096];
  if (strlen(path) >= sizeof buf) {
    die_line("--out: the path is too long");
    return -1;
  }
  strcpy(buf, path);
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        die_line("--out: cannot create directory %s: %s", buf, strerror(errno));
        return -1;
      }
      *p = c;
      if (c == '\0') {
        break;
      }
    }
  }
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    die_line("--out: %s is not a directory", path);
    return -1;
  }
  return 0;
}

/* Whether `prog` is an executable file in a directory of $PATH. */
static bool on_path(const char *prog) {
  const char *path = getenv("PATH");
  if (path == NULL) {
    return false;
  }
  while (*path != '\0') {
    size_t len = strcspn(path, ":");
    char full[4096];
    if (len + strlen(prog) + 2 <= sizeof full) {
      snprintf(full, sizeof full, "%.*s/%s", len != 0 ? (int)len : 1, len != 0 ? path : ".", prog);
      if (access(full, X_OK) == 0) {
        return true;
      }
    }
    path += len + (path[len] == ':' ? 1u : 0u);
  }
  return false;
}

/* gnuplot -e "set terminal TERM; set output 'roofline.EXT'" roofline.gp, run in dir (its
 * output goes to stderr, so that stdout stays the JSON document with --json). */
static int run_gnuplot(const char *dir, const char *term, const char *ext) {
  char setup[256];
  snprintf(setup, sizeof setup, "set terminal %s; set output 'roofline.%s'", term, ext);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    die_line("cannot start gnuplot: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    if (chdir(dir) != 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      _exit(126);
    }
    execlp("gnuplot", "gnuplot", "-e", setup, "roofline.gp", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      die_line("waiting for gnuplot: %s", strerror(errno));
      return -1;
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    die_line("gnuplot failed on %s/roofline.gp (%s %d) while drawing roofline.%s", dir,
             WIFEXITED(status) ? "exit status" : "signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), ext);
    return -1;
  }
  return 0;
}

/* "host (x86_64, 2 CPUs, Linux 6.1.0)", as tools/bench.py wrote it. */
static void machine_str(char *buf, size_t len) {
  struct utsname u;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (uname(&u) != 0) {
    snprintf(buf, len, "unknown machine (%ld CPUs)", cpus);
    return;
  }
  snprintf(buf, len, "%s (%s, %ld CPUs, %s %s)", u.nodename, u.machine, cpus, u.sysname,
           u.release);
}

static int cmd_bench(const args_t *ar) {
  const bool json = ar->set[O_JSON];
  const char *dir = ar->set[O_OUT] ? ar->val[O_OUT] : "build/bench";
  bench_point_t pts[BENCH_MAX_POINTS];
  const size_t npts = bench_sweep(ar->set[O_QUICK], pts);
  bench_row_t rows[BENCH_MAX_POINTS];
  bench_meta_t meta;
  memset(&meta, 0, sizeof meta);
  memset(rows, 0, sizeof rows);

  /* Cheap checks first: --dim, the output directory, then the simulator build. */
  unsigned dim = 0;
  if (get_dim(ar, &dim) != 0 || make_dirs(dir) != 0) {
    return EXIT_ERROR;
  }
  env_t e;
  memset(&e, 0, sizeof e);
  if (open_device(ar, 0, &e) != 0) {
    tsr_hal_close(&e.hal);
    return EXIT_ERROR;
  }
  meta.dim = e.dev.info.dim;
  meta.axi_bytes = e.dev.info.axi_bytes;
  meta.peak = meta.dim * meta.dim;
  tsr_hal_close(&e.hal);
  machine_str(meta.machine, sizeof meta.machine);
  time_t now = time(NULL);
  struct tm tm;
  strftime(meta.date, sizeof meta.date, "%Y-%m-%d", localtime_r(&now, &tm));

  char dim_s[16];
  snprintf(dim_s, sizeof dim_s, "%u", meta.dim);
  char ctx[64] = "bench";
  g_ctx = ctx;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t i = 0; i < npts; i++) {
    const bench_point_t *p = &pts[i];
    snprintf(ctx, sizeof ctx, "bench: %s", p->label);
    /* The options of `tessera gemm --m M --k K --n N --seed 1 --dim D [--mem-bw B]`. */
    char m_s[16], k_s[16], n_s[16], bw_s[16];
    snprintf(m_s, sizeof m_s, "%u", p->m);
    snprintf(k_s, sizeof k_s, "%u", p->k);
    snprintf(n_s, sizeof n_s, "%u", p->n);
    snprintf(bw_s, sizeof bw_s, "%u", p->bw);
    args_t ga;
    memset(&ga, 0, sizeof ga);
    ga.cmd = "gemm";
    const struct {
      opt_id_t id;
      const char *val;
    } set[] = {{O_M, m_s}, {O_K, k_s}, {O_N, n_s}, {O_SEED, "1"}, {O_DIM, dim_s}, {O_MEM_BW, bw_s}};
    for (size_t s = 0; s < sizeof set / sizeof set[0]; s++) {
      if (set[s].id != O_MEM_BW || p->bw != 0u) {
        ga.set[set[s].id] = true;
        ga.val[set[s].id] = set[s].val;
      }
    }
    gemm_run_t g;
    int rc = gemm_exec(&ga, !json && isatty(STDERR_FILENO), &g);
    if (rc == 0 && g.mismatch) {
      die_line("mismatch with the golden model at (row %u, col %u): got %d, expected %d",
               g.bad_r, g.bad_c, g.got, g.want);
      rc = EXIT_MISMATCH;
    } else if (rc == 0 && (g.cnt.cycles == 0 || g.cnt.dma_rd + g.cnt.dma_wr == 0)) {
      die_line("the counters read 0 cycles or 0 DMA bytes");
      rc = EXIT_ERROR;
    }
    if (rc != 0) {
      gemm_run_free(&g);
      g_ctx = NULL;
      return rc;
    }
    bench_row_t *r = &rows[i];
    r->pt = *p;
    r->bw_eff = p->bw != 0u && p->bw < meta.axi_bytes ? p->bw : meta.axi_bytes;
    r->bw_asked = p->bw != 0u ? p->bw : meta.axi_bytes;
    r->macs = (uint64_t)p->m * p->k * p->n;
    r->moved = g.cnt.dma_rd + g.cnt.dma_wr;
    r->cycles = g.cnt.cycles;
    r->pred = g.plan.est_cycles;
    r->util = g.util;
    r->cnt = g.cnt;
    r->sim_cps = g.wall > 0 ? (uint64_t)llround((double)g.sim_cycles / g.wall) : 0u;
    r->intensity = (double)r->macs / (double)r->moved;
    r->attained = (double)r->macs / (double)r->cycles;
    r->roof = (double)r->bw_eff * r->intensity;
    r->roof = r->roof < meta.peak ? r->roof : (double)meta.peak;
    gemm_run_free(&g);
    if (!json) {
      printf("bench: %16s: %10" PRIu64 " cycles, utilization %5.1f %%, attainment %5.1f %%, "
             "model %+6.1f %%\n",
             p->label, r->cycles, 100.0 * r->util, 100.0 * r->attained / r->roof,
             100.0 * ((double)r->pred - (double)r->cycles) / (double)r->cycles);
      fflush(stdout);
    }
  }
  snprintf(ctx, sizeof ctx, "bench");
  meta.wall = seconds_since(&t0);

  if (bench_write(dir, "bench.json", BF_JSON, &meta, rows, npts) != 0 ||
      bench_write(dir, "bench.csv", BF_CSV, &meta, rows, npts) != 0 ||
      bench_write(dir, "roofline.dat", BF_DAT, &meta, rows, npts) != 0 ||
      bench_write(dir, "roofline.gp", BF_GP, &meta, rows, npts) != 0) {
    g_ctx = NULL;
    return EXIT_ERROR;
  }
  const char *plot = "roofline.png, roofline.svg";
  if (!on_path("gnuplot")) {
    /* The data is there; only the picture is missing. */
    die_line("gnuplot not found: the roofline plot was skipped (apt-get install gnuplot-nox,"
             " then run tessera bench again)");
    plot = "no plot";
  } else if (run_gnuplot(dir, "pngcairo size 1200,800", "png") != 0 ||
             run_gnuplot(dir, "svg size 1200,800", "svg") != 0) {
    g_ctx = NULL;
    return EXIT_ERROR;
  }
  g_ctx = NULL;
  if (json) {
    bench_write_json(stdout, &meta, rows, npts);
  } else {
    printf("bench: %zu points in %.0f s; results in %s/ (bench.json, bench.csv, %s)\n", npts,
           meta.wall, dir, plot);
  }
  return 0;
}

int main(int argc, char **argv) {
  /* `tessera --hal SPEC CMD ...` is `tessera CMD ... --hal SPEC`. */
  char *moved[4096];
  if (argc >= 2 && strncmp(argv[1], "--hal", 5) == 0 && (argv[1][5] == '\0' || argv[1][5] == '=') &&
      argc < (int)(sizeof moved / sizeof moved[0])) {
    const int take = argv[1][5] == '=' ? 1 : 2;
    if (argc < take + 2) {
      die_line("--hal needs a value and a command (tessera --hal SPEC gemm ...)");
      return EXIT_ERROR;
    }
    int n = 0;
    moved[n++] = argv[0];
    for (int i = 1 + take; i < argc; i++) {
      moved[n++] = argv[i];
    }
    for (int i = 1; i < 1 + take; i++) {
      moved[n++] = argv[i];
    }
    moved[n] = NULL;
    argv = moved;
  }
  if (argc < 2) {
    usage(stderr);
    return EXIT_ERROR;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (cmd_bit(argv[1]) == 0u) {
    die_line("unknown command '%s' (commands: gemm, sfu, softmax, layernorm, add, reduce, info,"
             " bench; see 'tessera --help')",
             argv[1]);
    return EXIT_ERROR;
  }
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    }
  }
  args_t ar;
  if (parse_args(argc, argv, &ar) != 0) {
    return EXIT_ERROR;
  }
  switch (cmd_bit(ar.cmd)) {
    case C_GEMM:
      return cmd_gemm(&ar);
    case C_INFO:
      return cmd_info(&ar);
    case C_BENCH:
      return cmd_bench(&ar);
    default:
      return cmd_sfu_family(&ar);
  }
}
