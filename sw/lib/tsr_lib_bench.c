/* tsr_lib_bench.c: libtessera's bench sweep (docs/performance.md): the points, one measured point, its files (the plot is tsr_lib_roofline.c). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tsr_lib_internal.h"

/*
 * Each point is `tessera gemm --m M --k K --n N --seed 1 [--mem-bw B]`: random operands
 * checked bit-exact against the golden model. Intensity counts the DRAM bytes the
 * firmware actually moved (CNT_DMA_RD + CNT_DMA_WR); the roof of a point is
 * min(N^2, bandwidth x intensity), the bandwidth being the bus width or the --mem-bw cap
 * if lower. tools/bench.py --doc-only turns DIR/bench.json into docs/performance.md.
 */

const char *const tsr_lib_bench_groups[TSR_LIB_BENCH_GROUPS] = {"square", "batch", "resnet50", "bert", "bandwidth"};
static const uint32_t k_square[] = {16, 32, 64, 128, 256, 512, 1024};
static const uint32_t k_batch[] = {1, 8, 32, 256}; /* M at K = N = 1024 */
static const uint32_t k_resnet[][3] = {{3136, 576, 64}, {784, 1152, 128}, {196, 2304, 256}, {49, 4608, 512}};
static const uint32_t k_bert[][3] = {{128, 768, 768}, {128, 768, 3072}, {128, 3072, 768}};
static const uint32_t k_bw[] = {1, 2, 4, 8, 16}; /* bytes per cycle at 256^3 */

static void add_point(tessera_bench_point_t *pts, size_t *n, const char *group, uint32_t m,
                      uint32_t k, uint32_t nn, uint32_t bw) {
  tessera_bench_point_t *p = &pts[(*n)++];
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

size_t tessera_bench_points(bool quick, tessera_bench_point_t pts[TESSERA_BENCH_MAX_POINTS]) {
  size_t n = 0;
  for (size_t i = 0; i < (quick ? 5u : 7u); i++) {
    add_point(pts, &n, "square", k_square[i], k_square[i], k_square[i], 0u);
  }
  for (size_t i = 0; i < (quick ? 2u : 4u); i++) {
    add_point(pts, &n, "batch", k_batch[i], 1024u, 1024u, 0u);
  }
  for (size_t i = quick ? 3u : 0u; i < 4u; i++) {
    add_point(pts, &n, "resnet50", k_resnet[i][0], k_resnet[i][1], k_resnet[i][2], 0u);
  }
  for (size_t i = 0; i < (quick ? 1u : 3u); i++) {
    add_point(pts, &n, "bert", k_bert[i][0], k_bert[i][1], k_bert[i][2], 0u);
  }
  for (size_t i = quick ? 1u : 0u; i < (quick ? 4u : 5u); i++) {
    add_point(pts, &n, "bandwidth", 256u, 256u, 256u, k_bw[i]);
  }
  return n;
}

/* "host (x86_64, 2 CPUs, Linux 6.1.0)", as tools/bench.py wrote it. */
static void machine_str(char *buf, size_t len) {
  struct utsname u;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (uname(&u) != 0) {
    snprintf(buf, len, "unknown machine (%ld CPUs)", cpus);
    return;
  }
  snprintf(buf, len, "%s (%s, %ld CPUs, %s %s)", u.nodename, u.machine, cpus, u.sysname, u.release);
}

void tessera_bench_meta_init(const tessera_info_t *info, tessera_bench_meta_t *meta) {
  memset(meta, 0, sizeof *meta);
  meta->dim = info->dim;
  meta->axi_bytes = info->axi_bytes;
  meta->peak = meta->dim * meta->dim;
  machine_str(meta->machine, sizeof meta->machine);
  time_t now = time(NULL);
  struct tm tm;
  strftime(meta->date, sizeof meta->date, "%Y-%m-%d", localtime_r(&now, &tm));
}

/* The random job of a point, its device and its run; the row from the counters. */
tsr_status_t tessera_bench_run_point(const char *spec, const tessera_open_opts_t *opts,
                                     const tessera_bench_meta_t *meta,
                                     const tessera_bench_point_t *pt, tessera_progress_fn progress,
                                     void *progress_user, tessera_bench_row_t *row,
                                     tessera_mismatch_t *mm, char *err, size_t errlen) {
  memset(mm, 0, sizeof *mm);
  const size_t n4 = (size_t)pt->n * sizeof(int32_t);
  int8_t *a = malloc((size_t)pt->m * pt->k);
  int8_t *b = malloc((size_t)pt->k * pt->n);
  int32_t *bias = malloc(n4);
  int32_t *mult = malloc(n4);
  int32_t *shift = malloc(n4);
  int8_t *out = malloc((size_t)pt->m * pt->n);
  tessera_dev_t *dev = NULL;
  tsr_status_t st = TSR_NO_MEMORY;
  char msg[TESSERA_ERRLEN];
  if (a == NULL || b == NULL || bias == NULL || mult == NULL || shift == NULL || out == NULL) {
    tsr_lib_err(err, errlen, "gemm: out of memory for %ux%ux%u operands", pt->m, pt->k, pt->n);
    goto done;
  }
  tessera_gemm_t job;
  tessera_gemm_random(pt->m, pt->k, pt->n, 1u, false, a, b, bias, mult, shift, &job);
  tessera_open_opts_t o = *opts;
  o.mem_bw = pt->bw;
  if ((st = tessera_gemm_mem_bytes(&job, &o.mem_bytes, msg, sizeof msg)) != TSR_OK) {
    tsr_lib_err(err, errlen, "gemm: %s", msg);
    goto done;
  }
  if ((st = tessera_open(spec, &o, &dev, err, errlen)) != TSR_OK) {
    goto done;
  }
  tessera_gemm_opts_t go;
  memset(&go, 0, sizeof go);
  go.mem_bw = pt->bw;
  go.progress = progress;
  go.progress_user = progress_user;
  tessera_gemm_result_t res;
  if ((st = tessera_gemm_run(dev, &job, &go, out, &res, msg, sizeof msg)) != TSR_OK ||
      (st = tessera_gemm_check(&job, out, mm, msg, sizeof msg)) != TSR_OK) {
    tsr_lib_err(err, errlen, "gemm: %s", msg);
    goto done;
  }
  const tsr_counters_t *c = &res.fig.cnt;
  if (mm->count == 0u && (c->cycles == 0 || c->dma_rd + c->dma_wr == 0)) {
    tsr_lib_err(err, errlen, "the counters read 0 cycles or 0 DMA bytes");
    st = TSR_HW_ERROR;
    goto done;
  }
  memset(row, 0, sizeof *row);
  row->streamed = res.fig.streamed;
  row->commands = res.plan.cmds;
  row->host_regs = res.fig.host_reg_accesses;
  if (res.fig.streamed && mm->count == 0u) {
    /* The same job through the registers, for the cost of submission (checked again). */
    tessera_gemm_result_t rr;
    tessera_set_submit(dev, TESSERA_SUBMIT_REGS);
    if ((st = tessera_gemm_run(dev, &job, &go, out, &rr, msg, sizeof msg)) != TSR_OK ||
        (st = tessera_gemm_check(&job, out, mm, msg, sizeof msg)) != TSR_OK) {
      tsr_lib_err(err, errlen, "gemm through the registers: %s", msg);
      goto done;
    }
    row->regs_cycles = rr.fig.cnt.cycles;
    row->regs_host_regs = rr.fig.host_reg_accesses;
  }
  row->pt = *pt;
  row->bw_eff = pt->bw != 0u && pt->bw < meta->axi_bytes ? pt->bw : meta->axi_bytes;
  row->bw_asked = pt->bw != 0u ? pt->bw : meta->axi_bytes;
  row->macs = (uint64_t)pt->m * pt->k * pt->n;
  row->moved = c->dma_rd + c->dma_wr;
  row->cycles = c->cycles;
  row->pred = res.plan.est_cycles;
  row->tile_m = res.plan.mt;
  row->k_chunk = res.plan.kc;
  row->nb = res.plan.nb;
  row->util = res.fig.utilization;
  row->cnt = *c;
  row->sim_cps = res.fig.wall_seconds > 0
                     ? (uint64_t)llround((double)res.fig.sim_cycles / res.fig.wall_seconds)
                     : 0u;
  row->intensity = row->moved != 0 ? (double)row->macs / (double)row->moved : 0.0;
  row->attained = row->cycles != 0 ? (double)row->macs / (double)row->cycles : 0.0;
  row->roof = (double)row->bw_eff * row->intensity;
  row->roof = row->roof < meta->peak ? row->roof : (double)meta->peak;

done:
  tessera_close(dev);
  free(a);
  free(b);
  free(bias);
  free(mult);
  free(shift);
  free(out);
  return st;
}

/* ---- Files ---------------------------------------------------------------------------------- */

/* x rounded to `places` decimals and written the shortest way ("64", "4.2667", "-0.07764"),
 * as Python's round() and str() write them (bench.json and bench.csv keep that form). */
const char *tsr_lib_fmt_round(char buf[40], double x, int places) {
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

void tessera_bench_json(FILE *f, const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows,
                        size_t n) {
  char b[40];
  fprintf(f, "{\n \"meta\": {\n  \"dim\": %u,\n  \"axi_bytes\": %u,\n  \"peak_macs_per_cycle\": %u,\n",
          meta->dim, meta->axi_bytes, meta->peak);
  fprintf(f, "  \"machine\": ");
  json_str(f, meta->machine);
  fprintf(f, ",\n  \"date\": \"%s\",\n  \"wall_seconds\": %s\n },\n \"points\": [", meta->date,
          tsr_lib_fmt_round(b, meta->wall, 1));
  for (size_t i = 0; i < n; i++) {
    const tessera_bench_row_t *r = &rows[i];
    fprintf(f, "%s\n  {\n   \"group\": \"%s\",\n   \"label\": ", i != 0 ? "," : "", r->pt.group);
    json_str(f, r->pt.label);
    fprintf(f, ",\n   \"m\": %u,\n   \"k\": %u,\n   \"n\": %u,\n   \"dim\": %u,\n", r->pt.m,
            r->pt.k, r->pt.n, meta->dim);
    fprintf(f, "   \"bytes_per_cycle\": %u,\n   \"bytes_per_cycle_asked\": %u,\n", r->bw_eff,
            r->bw_asked);
    fprintf(f, "   \"macs\": %" PRIu64 ",\n   \"dram_bytes\": %" PRIu64 ",\n", r->macs, r->moved);
    fprintf(f, "   \"intensity\": %s,\n", tsr_lib_fmt_round(b, r->intensity, 4));
    fprintf(f, "   \"cycles\": %" PRIu64 ",\n", r->cycles);
    fprintf(f, "   \"utilization\": %s,\n", tsr_lib_fmt_round(b, r->util, 6));
    fprintf(f, "   \"macs_per_cycle\": %s,\n", tsr_lib_fmt_round(b, r->attained, 4));
    fprintf(f, "   \"roof\": %s,\n", tsr_lib_fmt_round(b, r->roof, 4));
    fprintf(f, "   \"attainment\": %s,\n", tsr_lib_fmt_round(b, r->attained / r->roof, 6));
    fprintf(f, "   \"predicted_cycles\": %" PRIu64 ",\n", r->pred);
    fprintf(f, "   \"plan\": {\"tile_m\": %u, \"k_chunk\": %u, \"n_blocks_per_group\": %u},\n",
            r->tile_m, r->k_chunk, r->nb);
    fprintf(f, "   \"model_error\": %s,\n",
            tsr_lib_fmt_round(b, ((double)r->pred - (double)r->cycles) / (double)r->cycles, 6));
    tessera_time_class_t t[TESSERA_TIME_CLASSES];
    tessera_time_classes(&r->cnt, t);
    fprintf(f, "   \"time\": {");
    for (int c = 0; c < TESSERA_TIME_CLASSES; c++) {
      fprintf(f, "%s\n    \"%s\": %" PRIu64, c != 0 ? "," : "", t[c].key, t[c].cycles);
    }
    fprintf(f, "\n   },\n   \"memory_stall\": {\n    \"read\": %" PRIu64 ",\n    \"write\": %" PRIu64
            "\n   },\n",
            r->cnt.rd_stall, r->cnt.wr_stall);
    fprintf(f, "   \"submit\": \"%s\",\n   \"commands\": %" PRIu64 ",\n   \"host_reg_accesses\": %" PRIu64
            ",\n", r->streamed ? "stream" : "regs", r->commands, r->host_regs);
    if (r->streamed) {
      fprintf(f, "   \"regs\": {\"cycles\": %" PRIu64 ", \"host_reg_accesses\": %" PRIu64 "},\n",
              r->regs_cycles, r->regs_host_regs);
    }
    fprintf(f, "   \"sim_cycles_per_second\": %" PRIu64 ",\n   \"check\": \"pass\"\n  }",
            r->sim_cps);
  }
  fprintf(f, "\n ]\n}\n");
}

/* bench.csv: one line per point, the columns tools/bench.py has always written. */
static void write_csv(FILE *f, const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows,
                      size_t n) {
  (void)meta;
  char b[6][40];
  fprintf(f, "group,label,m,k,n,bytes_per_cycle,macs,dram_bytes,intensity,cycles,utilization,"
             "macs_per_cycle,roof,attainment,predicted_cycles,model_error\n");
  for (size_t i = 0; i < n; i++) {
    const tessera_bench_row_t *r = &rows[i];
    fprintf(f, "%s,%s,%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%s,%s,%s,%s,%" PRIu64
               ",%s\n",
            r->pt.group, r->pt.label, r->pt.m, r->pt.k, r->pt.n, r->bw_eff, r->macs, r->moved,
            tsr_lib_fmt_round(b[0], r->intensity, 4), r->cycles, tsr_lib_fmt_round(b[1], r->util, 6),
            tsr_lib_fmt_round(b[2], r->attained, 4), tsr_lib_fmt_round(b[3], r->roof, 4),
            tsr_lib_fmt_round(b[4], r->attained / r->roof, 6), r->pred,
            tsr_lib_fmt_round(b[5], ((double)r->pred - (double)r->cycles) / (double)r->cycles, 6));
  }
}

/* roofline.dat: one gnuplot data block per group: intensity, MACs per cycle, label. */
static void write_dat(FILE *f, const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows,
                      size_t n) {
  (void)meta;
  char b[2][40];
  for (size_t g = 0; g < 5; g++) {
    fprintf(f, "# %s\n", tsr_lib_bench_groups[g]);
    for (size_t i = 0; i < n; i++) {
      if (strcmp(rows[i].pt.group, tsr_lib_bench_groups[g]) == 0) {
        fprintf(f, "%s %s \"%s\"\n", tsr_lib_fmt_round(b[0], rows[i].intensity, 4),
                tsr_lib_fmt_round(b[1], rows[i].attained, 4), rows[i].pt.label);
      }
    }
    fprintf(f, "\n\n");
  }
}

typedef void (*writer_fn)(FILE *, const tessera_bench_meta_t *, const tessera_bench_row_t *, size_t);

tsr_status_t tessera_bench_write(const char *dir, const tessera_bench_meta_t *meta,
                                 const tessera_bench_row_t *rows, size_t n, char *err,
                                 size_t errlen) {
  const struct {
    const char *name;
    writer_fn fn;
  } files[] = {{"bench.json", tessera_bench_json},
               {"bench.csv", write_csv},
               {"roofline.dat", write_dat},
               {"roofline.gp", tsr_lib_roofline_gp}};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
      tsr_lib_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
      return TSR_IO;
    }
    files[i].fn(f, meta, rows, n);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
      tsr_lib_err(err, errlen, "writing %s failed: %s", path, strerror(errno));
      return TSR_IO;
    }
  }
  return TSR_OK;
}

tsr_status_t tessera_make_dirs(const char *path, char *err, size_t errlen) {
  char buf[4096];
  if (strlen(path) >= sizeof buf) {
    tsr_lib_err(err, errlen, "the path is too long");
    return TSR_BAD_ARG;
  }
  strcpy(buf, path);
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        tsr_lib_err(err, errlen, "cannot create directory %s: %s", buf, strerror(errno));
        return TSR_IO;
      }
      *p = c;
      if (c == '\0') {
        break;
      }
    }
  }
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    tsr_lib_err(err, errlen, "%s is not a directory", path);
    return TSR_IO;
  }
  return TSR_OK;
}
