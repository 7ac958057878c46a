/* tessera.c: the `tessera` command line: run GEMMs on the simulated (or real) accelerator. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tsr_driver.h"
#include "tsr_fw.h"
#include "tsr_golden.h"
#include "tsr_hal.h"
#include "tsr_npy.h"
#include "tsr_sim.h"

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
  fprintf(stderr, "%s: %s\n", g_prog, msg);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage:\n"
          "  tessera gemm --a A.npy --b B.npy [--bias BIAS.npy] [--mult M | --mult-npy F]\n"
          "               [--shift S | --shift-npy F] [--out-zp Z] [--act-min LO --act-max HI]\n"
          "               [--out C.npy] [--check] [common options]\n"
          "  tessera gemm --m M --k K --n N [--seed S] [--raw] [--out C.npy] [common options]\n"
          "  tessera info [common options]\n"
          "\n"
          "A is int8 (M,K), B int8 (K,N), BIAS int32 (N,), per-channel multipliers and shifts\n"
          "int32 (N,). Without --mult the output is int32 (acc + bias); with it, int8 through\n"
          "TFLite requantization (--mult without --shift means shift 0). --m/--k/--n makes\n"
          "random operands and requantization parameters from --seed and always compares\n"
          "with the golden model (--raw: int32 output instead).\n"
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
          "  --device SPEC        real hardware: uio:/dev/uioN or devmem:BASE[,SIZE]\n"
          "  --dma SPEC           with --device: external memory devmem:BASE,SIZE\n"
          "\n"
          "exit status: 0 ok, 1 result differs from the golden model, 2 error\n");
}

/* ---- Options ---------------------------------------------------------------------------- */

typedef enum opt_id {
  O_A, O_B, O_BIAS, O_MULT, O_MULT_NPY, O_SHIFT, O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN, O_ACT_MAX,
  O_OUT, O_M, O_K, O_N, O_SEED, O_CHECK, O_RAW, O_DIM, O_JSON, O_TRACE, O_MEM_LATENCY,
  O_MEM_BW, O_STALL_PCT, O_MAX_MT, O_MAX_KC, O_DEVICE, O_DMA, O_COUNT
} opt_id_t;

typedef struct opt_def {
  const char *name;
  bool has_value;
  bool gemm_only;
} opt_def_t;

static const opt_def_t k_opts[O_COUNT] = {
    [O_A] = {"a", true, true},
    [O_B] = {"b", true, true},
    [O_BIAS] = {"bias", true, true},
    [O_MULT] = {"mult", true, true},
    [O_MULT_NPY] = {"mult-npy", true, true},
    [O_SHIFT] = {"shift", true, true},
    [O_SHIFT_NPY] = {"shift-npy", true, true},
    [O_OUT_ZP] = {"out-zp", true, true},
    [O_ACT_MIN] = {"act-min", true, true},
    [O_ACT_MAX] = {"act-max", true, true},
    [O_OUT] = {"out", true, true},
    [O_M] = {"m", true, true},
    [O_K] = {"k", true, true},
    [O_N] = {"n", true, true},
    [O_SEED] = {"seed", true, false},
    [O_CHECK] = {"check", false, true},
    [O_RAW] = {"raw", false, true},
    [O_DIM] = {"dim", true, false},
    [O_JSON] = {"json", false, false},
    [O_TRACE] = {"trace", true, false},
    [O_MEM_LATENCY] = {"mem-latency", true, false},
    [O_MEM_BW] = {"mem-bw", true, false},
    [O_STALL_PCT] = {"stall-pct", true, false},
    [O_MAX_MT] = {"max-mt", true, true},
    [O_MAX_KC] = {"max-kc", true, true},
    [O_DEVICE] = {"device", true, false},
    [O_DMA] = {"dma", true, false},
};

typedef struct args {
  const char *cmd;
  bool set[O_COUNT];
  const char *val[O_COUNT];
} args_t;

static int parse_args(int argc, char **argv, args_t *a) {
  memset(a, 0, sizeof *a);
  a->cmd = argv[1];
  bool gemm = strcmp(a->cmd, "gemm") == 0;
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
    if (id < 0 || (k_opts[id].gemm_only && !gemm)) {
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
  const opt_id_t needs_mult[] = {O_SHIFT, O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN, O_ACT_MAX};
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
  return 0;
}

/* Random operands and requantization parameters from the seed. */
static int job_random(const args_t *ar, job_t *j) {
  const opt_id_t file_only[] = {O_BIAS,      O_MULT,   O_MULT_NPY, O_SHIFT,
                                O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN,  O_ACT_MAX};
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

static int open_device(const args_t *ar, uint64_t mem_bytes, env_t *e) {
  int64_t v = 0;
  e->dim = 8;
  if (ar->set[O_DIM]) {
    if (get_int(ar, O_DIM, 1, 128, &v) != 0) {
      return -1;
    }
    if ((v & (v - 1)) != 0) {
      die_line("--dim: %" PRId64 " is not a power of two (builds exist for 4, 8 and 16)", v);
      return -1;
    }
    e->dim = (unsigned)v;
  }
  char err[512];
  tsr_status_t st;
  if (ar->set[O_DEVICE]) {
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
    die_line("%s: %s", e->hal.ops->name, tsr_dev_error(&e->dev));
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
  uint32_t a, b, bias, mult, shift, c;
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

static int cmd_gemm(const args_t *ar) {
  int rc = EXIT_ERROR;
  job_t j;
  memset(&j, 0, sizeof j);
  env_t e;
  memset(&e, 0, sizeof e);
  void *out = NULL;
  int32_t *g32 = NULL;
  int8_t *g8 = NULL;
  int64_t v = 0;

  bool random = ar->set[O_M] || ar->set[O_K] || ar->set[O_N];
  if (random && (ar->set[O_A] || ar->set[O_B])) {
    die_line("gemm: give --a/--b or --m/--k/--n, not both");
    goto done;
  }
  if (!random && ar->set[O_RAW]) {
    die_line("gemm: --raw applies to random operands (--m/--k/--n); leave out --mult instead");
    goto done;
  }
  j.seed = 1;
  if (ar->set[O_SEED]) {
    if (get_int(ar, O_SEED, 0, UINT32_MAX, &v) != 0) {
      goto done;
    }
    j.seed = (uint32_t)v;
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
  if ((random ? job_random(ar, &j) : job_from_files(ar, &j)) != 0) {
    goto done;
  }
  bool check = random || ar->set[O_CHECK];
  bool json = ar->set[O_JSON];
  layout_t lay;
  if (make_layout(&j, &lay) != 0) {
    goto done;
  }
  if (open_device(ar, lay.end, &e) != 0) {
    goto done;
  }

  /* The job in device terms. */
  tsr_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.m = j.m;
  d.k = j.k;
  d.n = j.n;
  d.a_addr = lay.a;
  d.lda = j.k;
  d.b_addr = lay.b;
  d.ldb = j.n;
  d.c_addr = lay.c;
  d.ldc = j.n * (j.requant ? 1u : 4u);
  d.has_bias = j.bias != NULL;
  d.bias_addr = lay.bias;
  d.requant = j.requant;
  d.per_channel = j.per_channel;
  d.mult_addr = lay.mult;
  d.shift_addr = lay.shift;
  d.mult = j.mult_scalar;
  d.shift = j.shift_scalar;
  d.out_zp = j.out_zp;
  d.act_min = j.act_min;
  d.act_max = j.act_max;
  tsr_gemm_plan_t plan;
  tsr_status_t st = tsr_gemm_plan_opts(&e.dev.info, &d, &opts, &plan);
  if (st != TSR_OK) {
    const char *why = "";
    tsr_gemm_check_desc(&d, &why);
    die_line("gemm: no plan for %ux%ux%u on this device: %s%s%s", j.m, j.k, j.n,
             tsr_status_str(st), why[0] ? ": " : "", why);
    goto done;
  }

  size_t esize = j.requant ? 1u : 4u;
  size_t out_bytes = (size_t)j.m * j.n * esize;
  out = malloc(out_bytes);
  if (out == NULL) {
    die_line("gemm: out of memory for the %zu-byte result", out_bytes);
    goto done;
  }
  /* A pattern in C, so an element the hardware never writes cannot pass by luck. */
  memset(out, 0x5a, out_bytes);
  if (put(&e, lay.a, j.a, (size_t)j.m * j.k, "A") != 0 ||
      put(&e, lay.b, j.b, (size_t)j.k * j.n, "B") != 0 ||
      (j.bias != NULL && put(&e, lay.bias, j.bias, 4u * j.n, "the bias") != 0) ||
      (j.per_channel && put(&e, lay.mult, j.mult, 4u * j.n, "the multipliers") != 0) ||
      (j.per_channel && put(&e, lay.shift, j.shift, 4u * j.n, "the shifts") != 0) ||
      put(&e, lay.c, out, out_bytes, "the output pattern") != 0) {
    goto done;
  }

  if ((st = tsr_soft_reset(&e.dev)) != TSR_OK || (st = tsr_counters_clear(&e.dev)) != TSR_OK) {
    die_line("gemm: %s", tsr_dev_error(&e.dev));
    goto done;
  }
  progress_t prog;
  memset(&prog, 0, sizeof prog);
  prog.enabled = !json && isatty(STDERR_FILENO);
  prog.hal = &e.hal;
  clock_gettime(CLOCK_MONOTONIC, &prog.start);
  uint64_t cyc0 = tsr_hal_cycles(&e.hal);
  st = tsr_gemm_run(&e.dev, &d, &plan, on_progress, &prog);
  progress_clear(&prog);
  double wall = seconds_since(&prog.start);
  uint64_t sim_cycles = tsr_hal_cycles(&e.hal) - cyc0;
  if (st != TSR_OK) {
    die_line("gemm: %s", tsr_dev_error(&e.dev));
    goto done;
  }
  tsr_counters_t cnt;
  if ((st = tsr_counters_read(&e.dev, &cnt)) != TSR_OK) {
    die_line("gemm: reading counters: %s", tsr_dev_error(&e.dev));
    goto done;
  }
  if ((st = tsr_hal_mem_read(&e.hal, lay.c, out, out_bytes)) != TSR_OK) {
    die_line("gemm: reading the result back failed: %s", tsr_status_str(st));
    goto done;
  }

  /* Compare with the golden model. */
  const char *verdict = "skipped";
  bool mismatch = false;
  uint32_t bad_r = 0, bad_c = 0;
  int32_t got = 0, want = 0;
  if (check) {
    tsr_gemm_params_t p;
    memset(&p, 0, sizeof p);
    p.bias = j.bias;
    p.requant = j.requant;
    p.mult = j.per_channel ? j.mult : NULL;
    p.shift = j.per_channel ? j.shift : NULL;
    p.mult_scalar = j.mult_scalar;
    p.shift_scalar = j.shift_scalar;
    p.out_zp = j.out_zp;
    p.act_min = j.act_min;
    p.act_max = j.act_max;
    size_t mn = (size_t)j.m * j.n;
    if (j.requant) {
      g8 = malloc(mn);
    } else {
      g32 = malloc(mn * sizeof *g32);
    }
    if (g8 == NULL && g32 == NULL) {
      die_line("gemm: out of memory for the golden result");
      goto done;
    }
    if (tsr_golden_gemm(j.m, j.k, j.n, j.a, j.k, j.b, j.n, &p, g32, g8) != 0) {
      die_line("gemm: the golden model rejected the parameters");
      goto done;
    }
    for (size_t i = 0; i < mn && !mismatch; i++) {
      int32_t hw;
      int32_t gold;
      if (j.requant) {
        hw = ((const int8_t *)out)[i];
        gold = g8[i];
      } else {
        memcpy(&hw, (const uint8_t *)out + 4 * i, 4);
        gold = g32[i];
      }
      if (hw != gold) {
        mismatch = true;
        bad_r = (uint32_t)(i / j.n);
        bad_c = (uint32_t)(i % j.n);
        got = hw;
        want = gold;
      }
    }
    verdict = mismatch ? "fail" : "pass";
  }
  if (ar->set[O_OUT] && write_output(ar->val[O_OUT], &j, out) != 0) {
    goto done;
  }

  double util = cnt.cycles == 0 ? 0.0
                                : (double)j.m * (double)j.k * (double)j.n /
                                      ((double)e.dim * (double)e.dim * (double)cnt.cycles);
  if (json) {
    printf("{\"m\": %u, \"k\": %u, \"n\": %u, \"dim\": %u, \"cycles\": %" PRIu64
           ", \"busy_cycles\": %" PRIu64 ", \"macs\": %" PRIu64 ", \"utilization\": %.6f"
           ", \"dma_read_bytes\": %" PRIu64 ", \"dma_write_bytes\": %" PRIu64
           ", \"commands\": %" PRIu64 ", \"check\": \"%s\"",
           j.m, j.k, j.n, e.dim, cnt.cycles, cnt.busy, cnt.macs, util, cnt.dma_rd, cnt.dma_wr,
           cnt.cmds, verdict);
    if (mismatch) {
      printf(", \"mismatch\": {\"row\": %u, \"col\": %u, \"got\": %d, \"expected\": %d}", bad_r,
             bad_c, got, want);
    }
    printf(", \"output\": \"%s\", \"requant\": %s, \"per_channel\": %s, \"bias\": %s",
           j.requant ? "int8" : "int32", j.requant ? "true" : "false",
           j.per_channel ? "true" : "false", j.bias != NULL ? "true" : "false");
    if (j.random) {
      printf(", \"seed\": %u", j.seed);
    }
    printf(", \"plan\": {\"tile_m\": %u, \"k_chunk\": %u, \"m_tiles\": %u, \"n_blocks\": %u"
           ", \"k_chunks\": %u, \"spad_bufs\": %u, \"acc_bufs\": %u, \"commands\": %" PRIu64
           ", \"dma_read_bytes\": %" PRIu64 ", \"dma_write_bytes\": %" PRIu64
           ", \"est_cycles\": %" PRIu64 "}",
           plan.mt, plan.kc, plan.m_tiles, plan.n_blocks, plan.k_chunks, plan.spad_bufs,
           plan.acc_bufs, plan.cmds, plan.dma_rd_bytes, plan.dma_wr_bytes, plan.est_cycles);
    printf(", \"wall_seconds\": %.3f", wall);
    if (e.is_sim) {
      printf(", \"sim_cycles\": %" PRIu64 ", \"sim_cycles_per_second\": %.0f", sim_cycles,
             wall > 0 ? (double)sim_cycles / wall : 0.0);
    }
    printf("}\n");
  } else {
    printf("gemm %ux%ux%u on a %ux%u array (%s), %s output%s\n", j.m, j.k, j.n, e.dim, e.dim,
           e.hal.ops->name, j.requant ? "int8" : "int32",
           j.requant ? (j.per_channel ? ", per-channel requantization" : ", per-tensor requantization")
                     : "");
    printf("  tiles: %u x %u rows, K chunk %u (%u chunk%s), %" PRIu64 " commands\n", plan.m_tiles,
           plan.mt, plan.kc, plan.k_chunks, plan.k_chunks == 1 ? "" : "s", plan.cmds);
    printf("  bit-exact: %s\n", !check ? "skipped (use --check)" : mismatch ? "NO" : "yes");
    printf("  cycles: %" PRIu64 ", utilization %.1f %%, DMA %" PRIu64 " B read, %" PRIu64
           " B written, %.2f s\n",
           cnt.cycles, 100.0 * util, cnt.dma_rd, cnt.dma_wr, wall);
  }
  fflush(stdout);
  if (mismatch) {
    die_line("gemm: mismatch at (row %u, col %u): got %d, expected %d", bad_r, bad_c, got, want);
    rc = EXIT_MISMATCH;
    goto done;
  }
  rc = 0;

done:
  free(out);
  free(g32);
  free(g8);
  tsr_hal_close(&e.hal);
  job_free(&j);
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
           ", \"acc_rows\": %u, \"spad_bytes\": %u, \"acc_bytes\": %u}\n",
           e.hal.ops->name, i->id, i->id >> 16, major, minor, i->dim, i->axi_bytes, i->cmdq_depth,
           i->spad_rows, i->acc_rows, i->spad_rows * i->dim, i->acc_rows * i->dim * 4u);
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
  }
  tsr_hal_close(&e.hal);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_ERROR;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "gemm") != 0 && strcmp(argv[1], "info") != 0) {
    die_line("unknown command '%s' (commands: gemm, info; see 'tessera --help')", argv[1]);
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
  return strcmp(ar.cmd, "gemm") == 0 ? cmd_gemm(&ar) : cmd_info(&ar);
}
