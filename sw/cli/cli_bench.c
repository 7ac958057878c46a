/* cli_bench.c: `tessera info` and `tessera bench` (the GEMM sweep of docs/performance.md). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- info ------------------------------------------------------------------------------------------- */

int cmd_info(const args_t *ar) {
  tessera_dev_t *dev = NULL;
  tessera_info_t inf;
  if (cli_open(ar, 0, &dev, &inf) != 0) {
    tessera_close(dev);
    return EXIT_ERROR;
  }
  const tessera_info_t *i = &inf;
  unsigned major = (i->version >> 8) & 0xffu, minor = i->version & 0xffu;
  if (ar->set[O_JSON]) {
    fprintf(g_cli_out, "{\"backend\": \"%s\", \"id\": \"0x%08x\", \"vendor\": \"0x%04x\", \"version\": \"%u.%u\""
           ", \"dim\": %u, \"axi_bytes\": %u, \"cmdq_depth\": %u, \"spad_rows\": %u"
           ", \"acc_rows\": %u, \"spad_bytes\": %u, \"acc_bytes\": %u, \"sfu\": %s"
           ", \"store_lanes\": %u}\n",
           i->backend, i->id, i->id >> 16, major, minor, i->dim, i->axi_bytes, i->cmdq_depth,
           i->spad_rows, i->acc_rows, i->spad_rows * i->dim, i->acc_rows * i->dim * 4u,
           i->has_sfu ? "true" : "false", i->store_lanes);
  } else {
    fprintf(g_cli_out, "Tessera on %s: ID 0x%08x (vendor 0x%04x, register map %u.%u)\n", i->backend,
           i->id, i->id >> 16, major, minor);
    fprintf(g_cli_out, "  array:        %u x %u int8 MACs\n", i->dim, i->dim);
    fprintf(g_cli_out, "  AXI master:   %u bytes per beat\n", i->axi_bytes);
    fprintf(g_cli_out, "  command queue: %u commands\n", i->cmdq_depth);
    fprintf(g_cli_out, "  scratchpad:   %u rows x %u B = %u KiB\n", i->spad_rows, i->dim,
           i->spad_rows * i->dim / 1024u);
    fprintf(g_cli_out, "  accumulator:  %u rows x %u int32 = %u KiB\n", i->acc_rows, i->dim,
           i->acc_rows * i->dim * 4u / 1024u);
    fprintf(g_cli_out, "  SFU:          %s\n", i->has_sfu ? "yes" : "no (built without it)");
    fprintf(g_cli_out, "  output stage: %u requantization lanes (%u cycle%s per stored row)\n", i->store_lanes,
           i->dim / i->store_lanes, i->dim == i->store_lanes ? "" : "s");
  }
  tessera_close(dev);
  return 0;
}

/* ---- bench ------------------------------------------------------------------------------------------ */

/* The sweep behind `make bench`: each point `tessera gemm --m M --k K --n N --seed 1
 * [--mem-bw B]`, checked bit-exact (libtessera, sw/lib/tsr_lib_bench.c). */
int cmd_bench(const args_t *ar) {
  const bool json = ar->set[O_JSON];
  const char *dir = ar->set[O_OUT] ? ar->val[O_OUT] : "build/bench";
  tessera_bench_point_t pts[TESSERA_BENCH_MAX_POINTS];
  const size_t npts = tessera_bench_points(ar->set[O_QUICK], pts);
  tessera_bench_row_t rows[TESSERA_BENCH_MAX_POINTS];
  memset(rows, 0, sizeof rows);
  char err[TESSERA_ERRLEN];

  /* Cheap checks first: --dim, the output directory, then the simulator build. */
  unsigned dim = 0;
  if (get_dim(ar, &dim) != 0) {
    return EXIT_ERROR;
  }
  if (tessera_make_dirs(dir, err, sizeof err) != TSR_OK) {
    die_line("--out: %s", err);
    return EXIT_ERROR;
  }
  tessera_dev_t *dev = NULL;
  tessera_info_t info;
  if (cli_open(ar, 0, &dev, &info) != 0) {
    tessera_close(dev);
    return EXIT_ERROR;
  }
  tessera_close(dev);
  tessera_bench_meta_t meta;
  tessera_bench_meta_init(&info, &meta);
  tessera_open_opts_t opts;
  tessera_open_opts_default(&opts);
  opts.dim = meta.dim;

  char ctx[64] = "bench";
  g_ctx = ctx;
  int rc = EXIT_ERROR;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t i = 0; i < npts; i++) {
    const tessera_bench_point_t *p = &pts[i];
    tessera_bench_row_t *r = &rows[i];
    snprintf(ctx, sizeof ctx, "bench: %s", p->label);
    progress_t prog;
    progress_init(&prog, !json && isatty(STDERR_FILENO));
    tessera_mismatch_t mm;
    tsr_status_t st = tessera_bench_run_point("sim", &opts, &meta, p, on_progress, &prog, r, &mm,
                                              err, sizeof err);
    progress_clear(&prog);
    if (st != TSR_OK) {
      die_line("%s", err);
      goto done;
    }
    if (mm.count != 0u) {
      die_line("mismatch with the golden model at (row %u, col %u): got %d, expected %d", mm.row,
               mm.col, mm.got, mm.want);
      rc = EXIT_MISMATCH;
      goto done;
    }
    if (!json) {
      fprintf(g_cli_out,
              "bench: %16s: %10" PRIu64 " cycles, utilization %5.1f %%, attainment %5.1f %%, "
              "model %+6.1f %%\n",
              p->label, r->cycles, 100.0 * r->util, 100.0 * r->attained / r->roof,
              100.0 * ((double)r->pred - (double)r->cycles) / (double)r->cycles);
      fflush(g_cli_out);
    }
  }
  snprintf(ctx, sizeof ctx, "bench");
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  meta.wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

  if (tessera_bench_write(dir, &meta, rows, npts, err, sizeof err) != TSR_OK) {
    die_line("%s", err);
    goto done;
  }
  const char *plot = "roofline.png, roofline.svg";
  if (!tessera_bench_can_plot()) {
    /* The data is there; only the picture is missing. */
    die_line("gnuplot not found: the roofline plot was skipped (apt-get install gnuplot-nox,"
             " then run tessera bench again)");
    plot = "no plot";
  } else if (tessera_bench_plot(dir, err, sizeof err) != TSR_OK) {
    die_line("%s", err);
    goto done;
  }
  g_ctx = NULL;
  if (json) {
    tessera_bench_json(g_cli_out, &meta, rows, npts);
  } else {
    fprintf(g_cli_out, "bench: %zu points in %.0f s; results in %s/ (bench.json, bench.csv, %s)\n",
            npts, meta.wall, dir, plot);
  }
  rc = 0;

done:
  g_ctx = NULL;
  return rc;
}
