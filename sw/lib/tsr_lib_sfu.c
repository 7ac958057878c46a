/* tsr_lib_sfu.c: libtessera SFU jobs (map/table, reduce, softmax, layernorm, add, mul): layout, run, golden comparison. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_golden.h"
#include "tsr_lib_internal.h"
#include "tsr_sfu.h"

size_t tessera_sfu_out_bytes(const tessera_sfu_t *job) {
  return job->func == TSR_FUNC_REDUCE ? (size_t)job->rows * 12u : (size_t)job->rows * job->len;
}

const char *tessera_sfu_func_name(uint32_t func) {
  static const char *const names[] = {"LUT_LOAD", "MAP", "REDUCE", "SOFTMAX", "LAYERNORM", "ADD", "MUL"};
  return func < sizeof names / sizeof names[0] ? names[func] : "?";
}

typedef struct sfu_layout {
  uint64_t in, in2, beta, param, lut, out, end;
} sfu_layout_t;

static void sfu_layout(const tessera_sfu_t *j, sfu_layout_t *l) {
  const uint64_t n = (uint64_t)j->rows * j->len;
  tessera_arena_t ar;
  tessera_arena_init(&ar);
  l->in = tessera_arena_take(&ar, n);
  l->in2 = tessera_arena_take(&ar, tsr_sfu_two_tensors(j->func) ? n : j->len);
  l->beta = tessera_arena_take(&ar, 4ull * j->len);
  l->param = tessera_arena_take(&ar, 4ull * TSR_ADD_PARAM_WORDS);
  l->lut = tessera_arena_take(&ar, 256u);
  l->out = tessera_arena_take(&ar, tessera_sfu_out_bytes(j));
  l->end = tessera_arena_end(&ar);
}

tsr_status_t tessera_sfu_mem_bytes(const tessera_sfu_t *job, uint64_t *bytes, char *err,
                                   size_t errlen) {
  sfu_layout_t l;
  sfu_layout(job, &l);
  *bytes = l.end;
  return tsr_lib_fits(l.end, "the tensors", "", err, errlen);
}

static tsr_status_t sfu_upload(tessera_dev_t *dev, const tessera_sfu_t *j, const sfu_layout_t *l,
                               void *out, size_t out_bytes, char *err, size_t errlen) {
  const size_t n = (size_t)j->rows * j->len;
  const bool ln = j->func == TSR_FUNC_LAYERNORM;
  const tsr_lib_upload_t up[] = {{true, l->in, j->in, n, "the input"},
                                 {tsr_sfu_two_tensors(j->func), l->in2, j->in2, n, "B"},
                                 {ln, l->in2, j->in2, j->len, "gamma"},
                                 {ln, l->beta, j->beta, 4u * j->len, "beta"},
                                 {j->param_words != 0u, l->param, j->param, 4u * j->param_words, "the parameters"},
                                 {j->lut != NULL, l->lut, j->lut, 256u, "the table"},
                                 {true, l->out, out, out_bytes, "the output pattern"}};
  /* A pattern in the output, so an element the hardware never writes cannot pass by luck. */
  memset(out, 0x5a, out_bytes);
  return tsr_lib_upload_all(dev, up, sizeof up / sizeof up[0], err, errlen);
}

tsr_status_t tessera_sfu_run(tessera_dev_t *dev, const tessera_sfu_t *job, void *out,
                             tessera_sfu_result_t *res, char *err, size_t errlen) {
  if (dev == NULL || job == NULL || out == NULL || res == NULL) {
    tsr_lib_err(err, errlen, "tessera_sfu_run: no device, job, output or result");
    return TSR_BAD_ARG;
  }
  memset(res, 0, sizeof *res);
  sfu_layout_t l;
  sfu_layout(job, &l);
  tsr_status_t st = tsr_lib_fits(l.end, "the tensors", "", err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  tsr_sfu_desc_t *d = &res->desc;
  d->func = job->func;
  d->rows = job->rows;
  d->len = job->len;
  d->in_addr = (uint32_t)l.in;
  d->in2_addr = (uint32_t)l.in2;
  d->beta_addr = (uint32_t)l.beta;
  d->param_addr = (uint32_t)l.param;
  d->has_lut = job->lut != NULL;
  d->lut_addr = (uint32_t)l.lut;
  d->out_addr = (uint32_t)l.out;
  const char *why = "";
  const tsr_dev_info_t *info = &dev->dev.info;
  st = tsr_sfu_plan(info, d, &res->plan, &why);
  if (st != TSR_OK) {
    tsr_lib_err(err, errlen,
                "%u x %u does not run on this device (N = %u, %u scratchpad rows, %u accumulator"
                " rows): %s",
                job->rows, job->len, info->dim, info->spad_rows, info->acc_rows, why);
    return st;
  }
  const size_t out_bytes = tessera_sfu_out_bytes(job);
  if ((st = sfu_upload(dev, job, &l, out, out_bytes, err, errlen)) != TSR_OK) {
    return st;
  }
  if (dev->soc != NULL) {
    /* The firmware on the SoC's core plans and runs it (tsr_lib_soc.c). */
    if ((st = tsr_lib_soc_sfu(dev, d, &res->plan, l.end, &res->fig, err, errlen)) != TSR_OK) {
      return st;
    }
    return tessera_download(dev, l.out, out, out_bytes, err, errlen);
  }
  if ((st = tsr_lib_begin(dev, l.end, res->plan.cmds, err, errlen)) != TSR_OK) {
    return st;
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const uint64_t cyc0 = tsr_hal_cycles(&dev->hal);
  st = tsr_sfu_run(&dev->dev, d, &res->plan);
  if (st != TSR_OK) {
    tsr_lib_dev_err(dev, "", err, errlen);
    return st;
  }
  if ((st = tsr_lib_end(dev, &t0, cyc0, &res->fig, err, errlen)) != TSR_OK) {
    return st;
  }
  return tessera_download(dev, l.out, out, out_bytes, err, errlen);
}

/* The golden result: int8 [rows][len], or int32 [rows][3] for reduce. */
static int sfu_golden(const tessera_sfu_t *j, void *out) {
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
    case TSR_FUNC_ADD: {
      tsr_add_params_t p;
      memcpy(&p, j->param, sizeof p);
      return tsr_golden_add(n, j->in, j->in2, &p, out);
    }
    case TSR_FUNC_MUL: {
      tsr_mul_params_t p;
      memcpy(&p, j->param, sizeof p);
      return tsr_golden_sfu_mul(n, j->in, j->in2, &p, out);
    }
    default:
      return -1;
  }
}

tsr_status_t tessera_sfu_check(const tessera_sfu_t *j, const void *out, tessera_mismatch_t *mm,
                               char *err, size_t errlen) {
  memset(mm, 0, sizeof *mm);
  const bool reduce = j->func == TSR_FUNC_REDUCE;
  const size_t out_bytes = tessera_sfu_out_bytes(j);
  uint8_t *gold = malloc(out_bytes);
  if (gold == NULL) {
    tsr_lib_err(err, errlen, "out of memory for the golden result");
    return TSR_NO_MEMORY;
  }
  if (sfu_golden(j, gold) != 0) {
    tsr_lib_err(err, errlen, "the golden model rejected the parameters");
    free(gold);
    return TSR_BAD_ARG;
  }
  const uint8_t *hw8 = out;
  const size_t cols = reduce ? 3u : j->len;
  const size_t count = (size_t)j->rows * cols;
  for (size_t i = 0; i < count; i++) {
    int32_t hw;
    int32_t gv;
    if (reduce) {
      memcpy(&hw, hw8 + 4 * i, 4);
      memcpy(&gv, gold + 4 * i, 4);
    } else {
      hw = (int8_t)hw8[i];
      gv = (int8_t)gold[i];
    }
    if (hw != gv && mm->count++ == 0u) {
      mm->row = (uint32_t)(i / cols);
      mm->col = (uint32_t)(i % cols);
      mm->got = hw;
      mm->want = gv;
    }
  }
  free(gold);
  return TSR_OK;
}
