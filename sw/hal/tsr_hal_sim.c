/* tsr_hal_sim.c: HAL backend for the Verilated model, loaded at run time with dlopen. */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsr_hal_host.h"
#include "tsr_sim.h"

/* The library of each array size exports exactly the functions of tb/tsr_sim.h. */
typedef struct sim_api {
  void (*cfg_default)(tsr_sim_cfg_t *);
  tsr_sim_t *(*open)(const tsr_sim_cfg_t *, char *, size_t);
  void (*destroy)(tsr_sim_t *);
  int (*reg_write)(tsr_sim_t *, uint32_t, uint32_t);
  int (*reg_read)(tsr_sim_t *, uint32_t, uint32_t *);
  int (*wait_irq)(tsr_sim_t *, uint64_t);
  int (*mem_write)(tsr_sim_t *, uint64_t, const void *, size_t);
  int (*mem_read)(tsr_sim_t *, uint64_t, void *, size_t);
  uint64_t (*cycles)(const tsr_sim_t *);
  void (*mem_stats)(const tsr_sim_t *, tsr_sim_mem_stats_t *);
  unsigned (*array_dim)(void);
} sim_api_t;

typedef struct sim_ctx {
  void *lib;
  tsr_sim_t *sim;
  sim_api_t api;
} sim_ctx_t;

/* AXI responses: 0 OKAY; 2 SLVERR / 3 DECERR; -1 no answer (or watchdog). */
static tsr_status_t resp_status(int rc) {
  if (rc == 0) {
    return TSR_OK;
  }
  return rc < 0 ? TSR_TIMEOUT : TSR_BUS;
}

static tsr_status_t sim_read32(void *ctx, uint32_t off, uint32_t *val) {
  sim_ctx_t *c = ctx;
  return resp_status(c->api.reg_read(c->sim, off, val));
}

static tsr_status_t sim_write32(void *ctx, uint32_t off, uint32_t val) {
  sim_ctx_t *c = ctx;
  return resp_status(c->api.reg_write(c->sim, off, val));
}

static tsr_status_t sim_wait_irq(void *ctx, uint64_t max) {
  sim_ctx_t *c = ctx;
  return c->api.wait_irq(c->sim, max) == 0 ? TSR_OK : TSR_TIMEOUT;
}

static tsr_status_t sim_mem_write(void *ctx, uint64_t addr, const void *src, size_t n) {
  sim_ctx_t *c = ctx;
  return c->api.mem_write(c->sim, addr, src, n) == 0 ? TSR_OK : TSR_BAD_ARG;
}

static tsr_status_t sim_mem_read(void *ctx, uint64_t addr, void *dst, size_t n) {
  sim_ctx_t *c = ctx;
  return c->api.mem_read(c->sim, addr, dst, n) == 0 ? TSR_OK : TSR_BAD_ARG;
}

static uint64_t sim_cycles(void *ctx) {
  sim_ctx_t *c = ctx;
  return c->api.cycles(c->sim);
}

static void sim_close(void *ctx) {
  sim_ctx_t *c = ctx;
  if (c == NULL) {
    return;
  }
  if (c->sim != NULL) {
    c->api.destroy(c->sim);
  }
  if (c->lib != NULL) {
    dlclose(c->lib);
  }
  free(c);
}

static const tsr_hal_ops_t k_sim_ops = {
    .name = "sim",
    .read32 = sim_read32,
    .write32 = sim_write32,
    .wait_irq = sim_wait_irq,
    .mem_write = sim_mem_write,
    .mem_read = sim_mem_read,
    .cycles = sim_cycles,
    .close = sim_close,
};

int tsr_host_lib_dir(const char *env_name, const char *sub, const char *what, char *out,
                     size_t outlen, char *err, size_t errlen) {
  const char *env = getenv(env_name);
  if (env != NULL && env[0] != '\0') {
    if ((size_t)snprintf(out, outlen, "%s", env) >= outlen) {
      snprintf(err, errlen, "%s is too long", env_name);
      return -1;
    }
    return 0;
  }
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) {
    snprintf(err, errlen, "cannot find %s: readlink /proc/self/exe: %s; set %s", what,
             strerror(errno), env_name);
    return -1;
  }
  exe[len] = '\0';
  /* Strip the program name and its directory: <prefix>/bin/tessera -> <prefix>. */
  for (int i = 0; i < 2; i++) {
    char *slash = strrchr(exe, '/');
    if (slash == NULL) {
      snprintf(err, errlen, "cannot find %s from %s; set %s", what, exe, env_name);
      return -1;
    }
    *slash = '\0';
  }
  if ((size_t)snprintf(out, outlen, "%s/%s", exe, sub) >= outlen) {
    snprintf(err, errlen, "the path of %s is too long", what);
    return -1;
  }
  return 0;
}

/* Shorten an absolute path below the working directory for messages. */
static const char *display_path(const char *path, char *cwd, size_t cwdlen) {
  if (getcwd(cwd, cwdlen) != NULL) {
    size_t n = strlen(cwd);
    if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/') {
      return path + n + 1;
    }
  }
  return path;
}

#define LOAD_SYM(field, name)                                                            \
  do {                                                                                   \
    *(void **)(&c->api.field) = dlsym(c->lib, name);                                     \
    if (c->api.field == NULL) {                                                          \
      snprintf(err, errlen, "%s does not export %s: rebuild it with 'make sim DIM=%u'", \
               shown, name, dim);                                                        \
      sim_close(c);                                                                      \
      return TSR_NO_DEVICE;                                                              \
    }                                                                                    \
  } while (0)

tsr_status_t tsr_hal_sim_open(unsigned dim, const struct tsr_sim_cfg *cfg, tsr_hal_t *hal,
                              char *err, size_t errlen) {
  char dummy[8];
  if (err == NULL || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (hal == NULL || dim == 0 || dim > 255) {
    snprintf(err, errlen, "sim: bad arguments (dim %u)", dim);
    return TSR_BAD_ARG;
  }
  hal->ops = NULL;
  hal->ctx = NULL;

  char dir[PATH_MAX];
  if (tsr_host_lib_dir("TSR_SIM_LIB_DIR", "lib", "the simulator libraries", dir, sizeof dir, err,
                       errlen) != 0) {
    return TSR_NO_DEVICE;
  }
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/libtsrsim_d%u.so", dir, dim);
  char cwd[PATH_MAX];
  const char *shown = display_path(path, cwd, sizeof cwd);
  if (access(path, R_OK) != 0) {
    if (dim == 4u || dim == 8u || dim == 16u) {
      snprintf(err, errlen, "no simulator build for --dim %u (%s); run 'make sim DIM=%u'", dim,
               shown, dim);
    } else {
      /* Only the tested sizes are suggested; another one builds but nothing checks it. */
      snprintf(err, errlen,
               "no simulator build for --dim %u (%s); the tested array sizes are 4, 8 and 16"
               " ('make sim DIM=4|8|16')",
               dim, shown);
    }
    return TSR_NO_DEVICE;
  }

  sim_ctx_t *c = calloc(1, sizeof *c);
  if (c == NULL) {
    snprintf(err, errlen, "sim: out of memory");
    return TSR_NO_MEMORY;
  }
  c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (c->lib == NULL) {
    const char *why = dlerror();
    snprintf(err, errlen, "cannot load %s: %s", shown, why != NULL ? why : "unknown error");
    free(c);
    return TSR_NO_DEVICE;
  }
  LOAD_SYM(cfg_default, "tsr_sim_cfg_default");
  LOAD_SYM(open, "tsr_sim_open");
  LOAD_SYM(destroy, "tsr_sim_destroy");
  LOAD_SYM(reg_write, "tsr_sim_reg_write");
  LOAD_SYM(reg_read, "tsr_sim_reg_read");
  LOAD_SYM(wait_irq, "tsr_sim_wait_irq");
  LOAD_SYM(mem_write, "tsr_sim_mem_write");
  LOAD_SYM(mem_read, "tsr_sim_mem_read");
  LOAD_SYM(cycles, "tsr_sim_cycles");
  LOAD_SYM(mem_stats, "tsr_sim_mem_stats");
  LOAD_SYM(array_dim, "tsr_sim_array_dim");

  unsigned built = c->api.array_dim();
  if (built != dim) {
    snprintf(err, errlen, "%s was built for an array of %u, not %u: rebuild it with 'make sim DIM=%u'",
             shown, built, dim, dim);
    sim_close(c);
    return TSR_NO_DEVICE;
  }
  tsr_sim_cfg_t defaults;
  if (cfg == NULL) {
    c->api.cfg_default(&defaults);
    cfg = &defaults;
  }
  c->sim = c->api.open(cfg, err, errlen);
  if (c->sim == NULL) {
    sim_close(c);
    return TSR_NO_DEVICE;
  }
  hal->ops = &k_sim_ops;
  hal->ctx = c;
  return TSR_OK;
}

tsr_status_t tsr_hal_sim_mem_stats(const tsr_hal_t *hal, uint64_t *rd_beats, uint64_t *wr_beats,
                                   uint64_t *protocol_errors) {
  if (hal == NULL || hal->ops != &k_sim_ops || hal->ctx == NULL) {
    return TSR_UNSUPPORTED;
  }
  sim_ctx_t *c = hal->ctx;
  tsr_sim_mem_stats_t st;
  memset(&st, 0, sizeof st);
  c->api.mem_stats(c->sim, &st);
  if (rd_beats != NULL) {
    *rd_beats = st.rd_beats;
  }
  if (wr_beats != NULL) {
    *wr_beats = st.wr_beats;
  }
  if (protocol_errors != NULL) {
    *protocol_errors = st.protocol_errors;
  }
  return TSR_OK;
}

tsr_status_t tsr_hal_sim_raw(const tsr_hal_t *hal, struct tsr_sim **sim, void **lib) {
  if (hal == NULL || hal->ops != &k_sim_ops || hal->ctx == NULL || sim == NULL || lib == NULL) {
    return TSR_UNSUPPORTED;
  }
  sim_ctx_t *c = hal->ctx;
  *sim = c->sim;
  *lib = c->lib;
  return TSR_OK;
}
