/* cli_net.c: tessera compile (TFLite model -> .tsr program) and tessera run (one inference of a .tflite or .tsr on the chip). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tsr_net_prog.h"

/* Every chip layer's output as the chip wrote it, as DIR/op<operator index>.npy (int8, the
 * tensor's shape); 0, or -1 after one line. */
static int dump_layers(const char *dir, const tsr_net_prog_t *p, const tessera_net_result_t *res) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    die_line("%s: cannot make the directory: %s", dir, strerror(errno));
    return -1;
  }
  for (uint32_t i = 0; i < res->n_layers; i++) {
    const tessera_net_layer_fig_t *f = &res->layers[i];
    const tsr_net_tensor_t *t = &p->tensors[p->layers[i].out];
    if (f->out == NULL) {
      continue;
    }
    /* A layer with a LUT fused in wrote that operator's output (its own never existed). */
    uint32_t op = f->op_index;
    for (uint32_t j = i + 1u; j < p->n_layers && p->layers[i].lut != 0u; j++) {
      op = p->layers[j].kind == TSR_NET_FUSED && p->layers[j].fused == i ? p->layers[j].op_index : op;
    }
    char path[4096];
    char err[TESSERA_ERRLEN];
    tsr_npy_t o;
    memset(&o, 0, sizeof o);
    o.dtype = TSR_NPY_INT8;
    o.ndim = (int)t->rank;
    for (uint32_t d = 0; d < t->rank; d++) {
      o.shape[d] = t->shape[d];
    }
    o.count = t->elems;
    o.data = f->out;
    snprintf(path, sizeof path, "%s/op%u.npy", dir, op);
    if (tsr_npy_write(path, &o, err, sizeof err) != 0) {
      die_line("%s", err);
      return -1;
    }
  }
  return 0;
}

/* The whole file at `path` into a new buffer; 0, or -1 after one line. */
static int read_file(const char *path, uint8_t **data, size_t *len) {
  *data = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    die_line("%s: cannot open it", path);
    return -1;
  }
  size_t cap = 1u << 16;
  uint8_t *b = malloc(cap);
  size_t n = 0;
  while (b != NULL) {
    n += fread(b + n, 1, cap - n, f);
    if (n < cap) {
      break;
    }
    uint8_t *nb = cap < (1u << 30) ? realloc(b, cap * 2u) : NULL;
    if (nb == NULL) {
      free(b);
      b = NULL;
      break;
    }
    b = nb;
    cap *= 2u;
  }
  const int bad = ferror(f);
  fclose(f);
  if (b == NULL || bad) {
    free(b);
    die_line("%s: %s", path, bad ? "read error" : "too large (1 GiB taken) or out of memory");
    return -1;
  }
  *data = b;
  *len = n;
  return 0;
}

static bool ends_with(const char *s, const char *tail) {
  const size_t n = strlen(s);
  const size_t t = strlen(tail);
  return n >= t && strcmp(s + n - t, tail) == 0;
}

/* The program of `bytes` (from `path`): a .tsr as it is, anything else compiled as a .tflite
 * for `target`. */
static int load_prog(const char *path, const uint8_t *bytes, size_t len,
                     const tsr_dev_info_t *target, uint32_t flags, tsr_net_prog_t **p) {
  char err[TESSERA_ERRLEN];
  tsr_status_t st = ends_with(path, ".tsr") || tsr_net_is_tsr(bytes, len)
                        ? tsr_net_load(bytes, len, p, err, sizeof err)
                        : tsr_net_compile_flags(bytes, len, target, flags, p, err, sizeof err);
  if (st != TSR_OK) {
    die_line("%s: %s", path, err);
    return -1;
  }
  return 0;
}

static const char *shape_of(const tsr_net_tensor_t *t, char *buf, size_t len) {
  size_t o = (size_t)snprintf(buf, len, "(");
  for (uint32_t d = 0; d < t->rank && o < len; d++) {
    o += (size_t)snprintf(buf + o, len - o, d + 1u < t->rank ? "%u," : "%u", t->shape[d]);
  }
  if (o < len) {
    snprintf(buf + o, len - o, t->rank == 1u ? ",)" : ")");
  }
  return buf;
}

static const char *type_of(const tsr_net_tensor_t *t) {
  return t->type == TSR_NET_FLOAT32 ? "float32" : "int8";
}

/* The compiler's options of --allow-host and --no-fuse. */
static uint32_t compile_flags(const args_t *ar) {
  return (ar->set[O_ALLOW_HOST] ? (uint32_t)TSR_NET_ALLOW_HOST : 0u) |
         (ar->set[O_NO_FUSE] ? (uint32_t)TSR_NET_NO_FUSE : 0u);
}

static int cmd_compile(const args_t *ar, const char *model) {
  unsigned dim = 8;
  if (get_dim(ar, &dim) != 0) {
    return EXIT_ERROR;
  }
  if (!ar->set[O_OUT]) {
    die_line("compile: give the output: -o MODEL.tsr");
    return EXIT_ERROR;
  }
  uint8_t *bytes = NULL;
  size_t len = 0;
  if (read_file(model, &bytes, &len) != 0) {
    return EXIT_ERROR;
  }
  char err[TESSERA_ERRLEN];
  tsr_net_prog_t *p = NULL;
  tsr_dev_info_t target;
  tsr_net_default_target(dim, &target);
  tsr_status_t st = tsr_net_compile_flags(bytes, len, &target, compile_flags(ar), &p, err, sizeof err);
  free(bytes);
  if (st != TSR_OK) {
    die_line("%s: %s", model, err);
    return EXIT_ERROR;
  }
  uint8_t *out = NULL;
  size_t n = 0;
  int rc = EXIT_ERROR;
  if (tsr_net_save(p, &out, &n, err, sizeof err) != TSR_OK) {
    die_line("%s", err);
  } else {
    FILE *f = fopen(ar->val[O_OUT], "wb");
    if (f == NULL || fwrite(out, 1, n, f) != n || fclose(f) != 0) {
      die_line("%s: cannot write it", ar->val[O_OUT]);
    } else {
      uint32_t chip = 0;
      for (uint32_t i = 0; i < p->n_layers; i++) {
        chip += tsr_net_kind_on_chip(p->layers[i].kind);
      }
      fprintf(g_cli_out,
              "compile: %s -> %s: %u layers (%u on the chip, N = %u), %u commands, %u bytes of "
              "weights, %u bytes of device memory (%" PRIu64 " without reusing the arena), %zu bytes\n",
              model, ar->val[O_OUT], p->n_layers, chip, dim, p->n_cmds, p->blob_bytes,
              p->arena_bytes, tsr_net_arena_no_reuse(p), n);
      rc = 0;
    }
  }
  free(out);
  tsr_net_free(p);
  return rc;
}

/* The input .npy: the model input's type and element count (any shape with that count). */
static int load_input(const char *path, const tsr_net_tensor_t *t, tsr_npy_t *x) {
  char err[512];
  if (tsr_npy_read(path, x, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  const tsr_npy_dtype_t want = t->type == TSR_NET_FLOAT32 ? TSR_NPY_FLOAT32 : TSR_NPY_INT8;
  char s1[128];
  char s2[128];
  if (x->dtype != want || x->count != t->elems) {
    die_line("%s: the model takes %s %s, got %s %s", path, type_of(t), shape_of(t, s1, sizeof s1),
             tsr_npy_dtype_name(x->dtype), shape_str(x, s2, sizeof s2));
    tsr_npy_free(x);
    return -1;
  }
  return 0;
}

static void print_layers_text(const tsr_net_prog_t *p, const tessera_net_result_t *res) {
  fprintf(g_cli_out, "  %-5s %-3s %-10s %-6s %10s %9s %10s %s\n", "layer", "op", "kind", "where",
          "cycles", "commands", "macs", "check");
  for (uint32_t i = 0; i < res->n_layers; i++) {
    const tessera_net_layer_fig_t *f = &res->layers[i];
    const uint32_t k = f->kind;
    const char *where = f->on_chip                ? "chip"
                        : k == TSR_NET_RESHAPE    ? "alias"
                        : k == TSR_NET_FUSED      ? "fused"
                                                  : "host";
    char chk[48] = "-";
    if (f->checked) {
      snprintf(chk, sizeof chk, f->mismatches ? "%" PRIu64 " differ" : "exact", f->mismatches);
    } else if (k == TSR_NET_FUSED) { /* checked with the layer whose STOREs apply it */
      snprintf(chk, sizeof chk, "into layer %u", p->layers[i].fused);
    }
    fprintf(g_cli_out, "  %-5u %-3u %-10s %-6s %10" PRIu64 " %9" PRIu64 " %10" PRIu64 " %s\n", i,
            f->op_index, tsr_net_kind_name(k), where, f->cnt.cycles, f->cnt.cmds, f->cnt.macs, chk);
  }
}

/* "[1, 8, 8]" */
static const char *shape_json(const tsr_net_tensor_t *t, char *buf, size_t len) {
  size_t o = (size_t)snprintf(buf, len, "[");
  for (uint32_t d = 0; d < t->rank && o < len; d++) {
    o += (size_t)snprintf(buf + o, len - o, d ? ", %u" : "%u", t->shape[d]);
  }
  if (o < len) {
    snprintf(buf + o, len - o, "]");
  }
  return buf;
}

/* Useful MACs over the array's MACs in `cycles` (0 without cycles). */
static double utilization(uint64_t macs, uint32_t dim, uint64_t cycles) {
  return cycles ? (double)macs / ((double)dim * dim * (double)cycles) : 0.0;
}

static void print_json(const char *model, const tsr_net_prog_t *p, const tessera_info_t *info,
                       const tessera_net_result_t *res) {
  char s1[128];
  char s2[128];
  const tsr_net_tensor_t *ti = &p->tensors[p->input];
  const tsr_net_tensor_t *to = &p->tensors[p->output];
  fprintf(g_cli_out, "{\"model\": \"");
  for (const char *c = model; *c; c++) {
    fprintf(g_cli_out, (*c == '"' || *c == '\\') ? "\\%c" : "%c", *c);
  }
  fprintf(g_cli_out,
          "\", \"dim\": %u, \"input\": {\"dtype\": \"%s\", \"shape\": %s}, \"output\": "
          "{\"dtype\": \"%s\", \"shape\": %s}, \"cycles\": %" PRIu64
          ", \"latency_us_at_100mhz\": %.2f, \"commands\": %" PRIu64 ", \"macs\": %" PRIu64
          ", \"utilization\": %.4f, \"dram_read_bytes\": %" PRIu64 ", \"dram_write_bytes\": %" PRIu64
          ", \"arena_bytes\": %u, \"arena_bytes_no_reuse\": %" PRIu64 ", \"streams\": %u, \"wall_seconds\": %.6f",
          info->dim, type_of(ti), shape_json(ti, s1, sizeof s1), type_of(to),
          shape_json(to, s2, sizeof s2), res->cycles, (double)res->cycles / 100.0, res->cmds,
          res->macs, utilization(res->macs, info->dim, res->cycles), res->dma_rd, res->dma_wr,
          p->arena_bytes, tsr_net_arena_no_reuse(p), res->streams, res->wall_seconds);
  if (res->checked) {
    fprintf(g_cli_out, ", \"bit_exact\": %s, \"mismatches\": %" PRIu64,
            res->mismatches ? "false" : "true", res->mismatches);
  }
  tessera_figures_t all; /* --hal soc: the core's side over every stream of the run */
  memset(&all, 0, sizeof all);
  all.cnt.cycles = res->cycles;
  all.cnt.busy = res->busy;
  all.cnt.cmds = res->cmds;
  all.core = res->core;
  print_core_json(&all);
  fprintf(g_cli_out, ", \"layers\": [");
  for (uint32_t i = 0; i < res->n_layers; i++) {
    const tessera_net_layer_fig_t *f = &res->layers[i];
    const tsr_counters_t *c = &f->cnt;
    fprintf(g_cli_out,
            "%s{\"op\": %u, \"kind\": \"%s\", \"shape\": %s, \"on_chip\": %s, \"cycles\": %" PRIu64
            ", \"commands\": %" PRIu64 ", \"macs\": %" PRIu64 ", \"utilization\": %.4f"
            ", \"bus_read_bytes\": %" PRIu64 ", \"bus_write_bytes\": %" PRIu64
            ", \"time\": {\"compute\": %" PRIu64 ", \"fill\": %" PRIu64 ", \"load_wait\": %" PRIu64
            ", \"store\": %" PRIu64 ", \"sfu\": %" PRIu64 ", \"control\": %" PRIu64 "}"
            ", \"host_reg_accesses\": %" PRIu64 ", \"streamed\": %s",
            i ? ", " : "", f->op_index, tsr_net_kind_name(f->kind),
            shape_json(&p->tensors[p->layers[i].out], s1, sizeof s1), f->on_chip ? "true" : "false",
            c->cycles, c->cmds, c->macs, utilization(c->macs, info->dim, c->cycles), c->dma_rd,
            c->dma_wr, c->array, c->fill, c->load_wait, c->store, c->sfu, c->ctrl,
            f->host_reg_accesses, f->streamed ? "true" : "false");
    if (f->checked) {
      fprintf(g_cli_out, ", \"mismatches\": %" PRIu64, f->mismatches);
    }
    if (f->kind == TSR_NET_FUSED) {
      fprintf(g_cli_out, ", \"fused_into\": %u", p->layers[i].fused);
    }
    fprintf(g_cli_out, "}");
  }
  fprintf(g_cli_out, "]}\n");
}

static int cmd_run(const args_t *ar, const char *model) {
  unsigned dim = 8;
  if (get_dim(ar, &dim) != 0) {
    return EXIT_ERROR;
  }
  if (!ar->set[O_INPUT]) {
    die_line("run: give the input: --input X.npy");
    return EXIT_ERROR;
  }
  uint8_t *bytes = NULL;
  size_t len = 0;
  tsr_net_prog_t *p = NULL;
  tsr_dev_info_t target;
  tsr_net_default_target(dim, &target);
  if (read_file(model, &bytes, &len) != 0) {
    return EXIT_ERROR;
  }
  if (load_prog(model, bytes, len, &target, compile_flags(ar), &p) != 0) {
    free(bytes);
    return EXIT_ERROR;
  }
  tsr_npy_t x;
  memset(&x, 0, sizeof x);
  int rc = EXIT_ERROR;
  tessera_dev_t *dev = NULL;
  tessera_info_t info;
  const tsr_net_tensor_t *to = &p->tensors[p->output];
  const size_t out_bytes = (size_t)to->elems * tsr_net_elem_bytes(to);
  void *y = calloc(1, out_bytes);
  tessera_net_result_t res;
  memset(&res, 0, sizeof res);
  char err[TESSERA_ERRLEN];
  if (y == NULL) {
    die_line("out of memory");
    goto out;
  }
  if (load_input(ar->val[O_INPUT], &p->tensors[p->input], &x) != 0 ||
      cli_open(ar, tsr_net_mem_bytes(p), &dev, &info) != 0) {
    goto out;
  }
  /* A .tflite is compiled for the device at hand (its configuration may not be the default). */
  const tsr_dev_info_t *dinfo = &tessera_driver(dev)->info;
  if (!tsr_net_is_tsr(bytes, len) && !tsr_net_target_matches(p, dinfo, NULL, 0)) {
    tsr_net_free(p);
    p = NULL;
    if (load_prog(model, bytes, len, dinfo, compile_flags(ar), &p) != 0) {
      goto out;
    }
  }
  const tsr_net_tensor_t *ti = &p->tensors[p->input];
  /* --layers, --dump-layers and --json measure each layer alone; otherwise the network is
   * one stream. */
  if (tessera_net_run(dev, p, x.data, x.count * tsr_net_elem_bytes(ti), y, out_bytes,
                      ar->set[O_CHECK],
                      ar->set[O_LAYERS] || ar->set[O_JSON] || ar->set[O_DUMP_LAYERS], &res, err,
                      sizeof err) != TSR_OK) {
    die_line("run: %s", err);
    goto out;
  }
  if (ar->set[O_DUMP_LAYERS] && dump_layers(ar->val[O_DUMP_LAYERS], p, &res) != 0) {
    goto out;
  }
  if (ar->set[O_OUT]) {
    tsr_npy_t o;
    memset(&o, 0, sizeof o);
    o.dtype = to->type == TSR_NET_FLOAT32 ? TSR_NPY_FLOAT32 : TSR_NPY_INT8;
    o.ndim = (int)to->rank;
    for (uint32_t d = 0; d < to->rank; d++) {
      o.shape[d] = to->shape[d];
    }
    o.count = to->elems;
    o.data = y;
    if (tsr_npy_write(ar->val[O_OUT], &o, err, sizeof err) != 0) {
      die_line("%s", err);
      goto out;
    }
  }
  if (ar->set[O_JSON]) {
    print_json(model, p, &info, &res);
  } else {
    char s1[128];
    char s2[128];
    uint32_t chip = 0;
    for (uint32_t i = 0; i < res.n_layers; i++) {
      chip += res.layers[i].on_chip;
    }
    fprintf(g_cli_out, "run: %s: %u layers (%u on the chip, N = %u), %s %s -> %s %s\n", model,
            p->n_layers, chip, info.dim, type_of(ti), shape_of(ti, s1, sizeof s1), type_of(to),
            shape_of(to, s2, sizeof s2));
    fprintf(g_cli_out,
            "  cycles: %" PRIu64 ", commands: %" PRIu64 ", MACs: %" PRIu64 ", %u command stream%s\n",
            res.cycles, res.cmds, res.macs, res.streams, res.streams == 1u ? "" : "s");
    if (res.streams == 1u) {
      print_core_text(&res.stream); /* --hal soc: the core's side of the stream */
    }
    if (ar->set[O_LAYERS]) {
      print_layers_text(p, &res);
    }
    if (res.checked) {
      fprintf(g_cli_out, "bit-exact: %s", res.mismatches ? "NO" : "yes");
      if (res.mismatches) {
        fprintf(g_cli_out, " (%" PRIu64 " elements differ from the golden model)", res.mismatches);
      }
      fprintf(g_cli_out, "\n");
    }
  }
  rc = res.checked && res.mismatches ? EXIT_MISMATCH : 0;
out:
  tessera_net_result_free(&res);
  tessera_close(dev);
  tsr_npy_free(&x);
  free(y);
  free(bytes);
  tsr_net_free(p);
  return rc;
}

int cmd_net(int argc, char **argv) {
  /* tessera compile|run MODEL [options]: the model comes first; "-o F" is "--out F". */
  if (argc < 3 || argv[2][0] == '-') {
    die_line("%s: give the model first: tessera %s MODEL.%s ...", argv[1], argv[1],
             strcmp(argv[1], "run") == 0 ? "tflite|MODEL.tsr --input X.npy" : "tflite -o MODEL.tsr");
    return EXIT_ERROR;
  }
  char **av = calloc((size_t)argc + 1u, sizeof *av);
  if (av == NULL) {
    die_line("out of memory");
    return EXIT_ERROR;
  }
  int n = 0;
  av[n++] = argv[0];
  av[n++] = argv[1];
  static char k_out[] = "--out";
  for (int i = 3; i < argc; i++) {
    av[n++] = strcmp(argv[i], "-o") == 0 ? k_out : argv[i];
  }
  args_t ar;
  int rc = EXIT_ERROR;
  if (parse_args(n, av, &ar) == 0) {
    rc = strcmp(argv[1], "compile") == 0 ? cmd_compile(&ar, argv[2]) : cmd_run(&ar, argv[2]);
  }
  free(av);
  return rc;
}
