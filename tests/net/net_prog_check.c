/* net_prog_check.c: the .tsr container and the compiler without a device: round trip, every truncation and byte flip, relocation, refusals (make test-net). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tsr_tsr_forge.h"
#include "tsr_net_prog.h"

/*
 *   net_prog_check MODELS_DIR
 *
 * MODELS_DIR holds what tests/net/gen_net_models.py writes. For each runnable
 * model: compile (default target, N = 8), save, load, save again (the same
 * bytes); every truncation and every single-byte flip of the file is refused
 * with one line; every byte set to a few values with the checksum made right
 * again either loads or is refused with one line (under SAN: no bad read);
 * relocating each captured command moves exactly the LOAD and STORE
 * addresses; the refused models give TSR_UNSUPPORTED naming the operator;
 * the compiler takes the digits .tflite with each byte set to a few values
 * and either compiles it or refuses it with one line (under SAN: no bad read).
 * With a simulator (TSR_SIM_LIB_DIR): the DMA window, and LUT fusion (check_fusion).
 * Prints one summary line; exit 1 on any failure.
 */

static int g_fails;

#define CHECK(cond, ...)                   \
  do {                                     \
    if (!(cond)) {                         \
      g_fails++;                           \
      printf("net_prog_check: FAIL: ");    \
      printf(__VA_ARGS__);                 \
      printf("\n");                        \
    }                                      \
  } while (0)

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(n > 0 ? (size_t)n : 1u);
  if (b != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return b;
}

static int one_line(const char *err) {
  return err[0] != '\0' && strchr(err, '\n') == NULL;
}

static unsigned g_refused, g_loaded, g_progs;

static void check_bytes(const char *name, const uint8_t *good, size_t n) {
  char err[TESSERA_ERRLEN];
  uint8_t *b = malloc(n + 1u);
  for (size_t len = 0; len < n; len++) {
    tsr_net_prog_t *p = NULL;
    err[0] = '\0';
    tsr_status_t st = tsr_net_load(good, len, &p, err, sizeof err);
    CHECK(st != TSR_OK && p == NULL && one_line(err), "%s: truncated to %zu bytes: loaded", name, len);
    tsr_net_free(p);
    g_refused++;
  }
  for (size_t i = 0; i < n; i++) {
    memcpy(b, good, n);
    b[i] ^= 0x01u;
    tsr_net_prog_t *p = NULL;
    err[0] = '\0';
    tsr_status_t st = tsr_net_load(b, n, &p, err, sizeof err);
    CHECK(st != TSR_OK && one_line(err), "%s: byte %zu flipped: loaded", name, i);
    tsr_net_free(p);
    g_refused++;
  }
  /* Forged: each byte set to a few values and the checksum made right. */
  static const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  for (size_t i = 0; i < n; i++) {
    for (size_t v = 0; v < sizeof vals; v++) {
      memcpy(b, good, n);
      if (b[i] == vals[v] || (i >= 52u && i < 56u)) {
        continue;
      }
      b[i] = vals[v];
      tsr_tsr_fix_checksum(b, n);
      tsr_net_prog_t *p = NULL;
      err[0] = '\0';
      tsr_status_t st = tsr_net_load(b, n, &p, err, sizeof err);
      if (st == TSR_OK) {
        g_loaded++;
        /* What loads must save back to the same bytes. */
        uint8_t *again = NULL;
        size_t alen = 0;
        CHECK(tsr_net_save(p, &again, &alen, err, sizeof err) == TSR_OK && alen == n &&
                  memcmp(again, b, n) == 0,
              "%s: byte %zu = 0x%02x loads but does not save back", name, i, vals[v]);
        free(again);
      } else {
        CHECK(one_line(err), "%s: byte %zu = 0x%02x: no one-line message", name, i, vals[v]);
        g_refused++;
      }
      tsr_net_free(p);
    }
  }
  free(b);
}

static void check_relocation(const char *name, const tsr_net_prog_t *p) {
  const uint32_t delta = 0x5000u;
  unsigned moved = 0;
  for (uint32_t i = 0; i < p->n_cmds; i++) {
    tsr_cmd_t c;
    tsr_cmd_t back;
    tsr_net_relocate(&p->cmds[i], p->cmd_base, p->cmd_base + delta, &c);
    tsr_net_relocate(&c, p->cmd_base + delta, p->cmd_base, &back);
    uint32_t a0 = 0;
    uint32_t a1 = 0;
    const bool ext = tsr_net_cmd_addr(&p->cmds[i], &a0);
    CHECK(memcmp(&back, &p->cmds[i], sizeof back) == 0, "%s: command %u: relocation is not undone",
          name, i);
    if (ext) {
      tsr_net_cmd_addr(&c, &a1);
      CHECK(a1 == a0 + delta, "%s: command %u: address 0x%x moved to 0x%x", name, i, a0, a1);
      moved++;
    }
    for (uint32_t w = ext ? 2u : 0u; w < TSR_CMD_WORDS; w++) {
      CHECK(c.w[w] == p->cmds[i].w[w], "%s: command %u: word %u changed", name, i, w);
    }
    CHECK(!ext || c.w[0] == p->cmds[i].w[0], "%s: command %u: word 0 changed", name, i);
  }
  CHECK(moved > 0u, "%s: no LOAD or STORE among %u commands", name, p->n_cmds);
}

static unsigned g_shared, g_share_refused;
static uint64_t g_arena, g_arena_flat;

/* Whether tensor t must hold its value while layer `at` runs (at = n_layers: the host reading
 * the output): it is there (written by this layer or one before; the input and a bordered
 * tensor from the start) and still wanted (read by this layer or a later one, written by
 * this one, or the output). w and r: the first writer and last reader, plus 1 (0: none). */
static int live(const tsr_net_prog_t *p, const uint32_t *w, const uint32_t *r, uint32_t t,
                uint32_t at) {
  const int there = w[t] == 0u || w[t] - 1u <= at || t == p->tensors[p->input].alias ||
                    tsr_net_padded(&p->tensors[t]);
  const int wanted = (r[t] != 0u && r[t] - 1u >= at) || (w[t] != 0u && w[t] - 1u == at) ||
                     t == p->tensors[p->output].alias;
  return there && wanted;
}

/* The arena plan, checked layer by layer without the library's lifetimes: while each layer
 * runs, the tensors that must hold their values occupy disjoint bytes. Then a program whose two live tensors are made to
 * share storage is refused by the loader with one line. */
static void check_arena(const char *name, const tsr_net_prog_t *p, const uint8_t *file, size_t n) {
  const uint32_t nt = p->n_tensors;
  uint32_t *w = calloc(nt, sizeof *w), *r = calloc(nt, sizeof *r); /* first write, last read, +1 */
  if (w == NULL || r == NULL) {
    free(w);
    free(r);
    CHECK(0, "%s: out of memory", name);
    return;
  }
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    const uint32_t o = p->tensors[l->out].alias;
    w[o] = w[o] != 0u ? w[o] : i + 1u;
    r[p->tensors[l->in].alias] = i + 1u;
    if (tsr_net_eltwise(l->kind) || l->kind == TSR_NET_BMM || l->kind == TSR_NET_HOST) {
      r[p->tensors[l->in2].alias] = i + 1u; /* the second operand */
    }
    if (l->kind == TSR_NET_BMM || l->kind == TSR_NET_MAXPOOL) { /* the layer's scratch tensor */
      const uint32_t t = p->tensors[l->in3].alias;
      w[t] = w[t] != 0u ? w[t] : i + 1u;
      r[t] = i + 1u;
    }
  }
  uint32_t a_live = 0, b_live = 0;
  int found = 0;
  for (uint32_t at = 0; at <= p->n_layers && !found; at++) { /* at: the layer running */
    for (uint32_t a = 0; a < nt && !found; a++) {
      const tsr_net_tensor_t *ta = &p->tensors[a];
      /* A fused LUT's input has no storage (TSR_NET_HOST_ONLY): it holds nothing. */
      const int live_a = ta->type == TSR_NET_INT8 && ta->alias == a &&
                         ta->dev_off != TSR_NET_HOST_ONLY && live(p, w, r, a, at);
      for (uint32_t b = a + 1u; b < nt && live_a && !found; b++) {
        const tsr_net_tensor_t *tb = &p->tensors[b];
        const int live_b = tb->type == TSR_NET_INT8 && tb->alias == b &&
                           tb->dev_off != TSR_NET_HOST_ONLY && live(p, w, r, b, at);
        if (live_b && ta->dev_off < tb->dev_off + tsr_net_storage_bytes(tb) &&
            tb->dev_off < ta->dev_off + tsr_net_storage_bytes(ta)) {
          CHECK(0, "%s: tensors %u and %u overlap in the arena after layer %u", name, a, b, at);
          found = 1;
        }
        if (live_b && !found) {
          a_live = a;
          b_live = b;
        }
      }
    }
  }
  g_arena += p->arena_bytes;
  g_arena_flat += tsr_net_arena_no_reuse(p);
  for (uint32_t a = 0; a < nt; a++) {
    for (uint32_t b = a + 1u; b < nt; b++) {
      g_shared += p->tensors[a].alias == a && p->tensors[b].alias == b &&
                  p->tensors[a].type == TSR_NET_INT8 && p->tensors[b].type == TSR_NET_INT8 &&
                  p->tensors[a].dev_off == p->tensors[b].dev_off;
    }
  }
  /* Two tensors live at the same time, the second moved onto the first. */
  tsr_net_prog_t *q = NULL;
  char err[TESSERA_ERRLEN];
  if (!found && b_live != 0u && tsr_net_load(file, n, &q, err, sizeof err) == TSR_OK) {
    /* The smaller onto the larger, so that both stay inside the arena. */
    const int b_small = tsr_net_storage_bytes(&q->tensors[b_live]) <=
                        tsr_net_storage_bytes(&q->tensors[a_live]);
    const uint32_t moved = b_small ? b_live : a_live, onto = b_small ? a_live : b_live;
    for (uint32_t i = 0; i < nt; i++) {
      if (q->tensors[i].alias == moved) {
        q->tensors[i].dev_off = q->tensors[onto].dev_off;
      }
    }
    uint8_t *bad = NULL;
    size_t bn = 0;
    tsr_net_prog_t *back = NULL;
    err[0] = '\0';
    const tsr_status_t st = tsr_net_save(q, &bad, &bn, err, sizeof err);
    if (st == TSR_OK) {
      CHECK(tsr_net_load(bad, bn, &back, err, sizeof err) != TSR_OK && back == NULL,
            "%s: tensors %u and %u share storage while live, and the program loads", name, a_live,
            b_live);
    }
    CHECK(strstr(err, "share arena bytes") != NULL && one_line(err),
          "%s: tensors %u and %u sharing storage: '%s'", name, a_live, b_live, err);
    g_share_refused++;
    free(bad);
    tsr_net_free(back);
  }
  tsr_net_free(q);
  free(w);
  free(r);
}

static void check_model(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
  size_t len = 0;
  uint8_t *tfl = slurp(path, &len);
  CHECK(tfl != NULL, "%s: cannot read", path);
  if (tfl == NULL) {
    return;
  }
  char err[TESSERA_ERRLEN];
  tsr_dev_info_t tg;
  tsr_net_default_target(8, &tg);
  tsr_net_prog_t *p = NULL;
  tsr_status_t st = tsr_net_compile(tfl, len, &tg, &p, err, sizeof err);
  CHECK(st == TSR_OK, "%s: compile: %s", name, err);
  if (st == TSR_OK) {
    uint8_t *b1 = NULL;
    uint8_t *b2 = NULL;
    size_t n1 = 0;
    size_t n2 = 0;
    tsr_net_prog_t *q = NULL;
    CHECK(tsr_net_save(p, &b1, &n1, err, sizeof err) == TSR_OK, "%s: save: %s", name, err);
    CHECK(tsr_net_load(b1, n1, &q, err, sizeof err) == TSR_OK, "%s: load: %s", name, err);
    CHECK(q != NULL && tsr_net_save(q, &b2, &n2, err, sizeof err) == TSR_OK && n1 == n2 &&
              memcmp(b1, b2, n1) == 0,
          "%s: save(load(save(p))) differs", name);
    CHECK(q != NULL && q->n_cmds == p->n_cmds && q->n_cmds > 0u, "%s: commands lost", name);
    tsr_dev_info_t other = tg;
    other.dim = 4;
    err[0] = '\0';
    CHECK(!tsr_net_target_matches(p, &other, err, sizeof err) && one_line(err) &&
              tsr_net_target_matches(p, &tg, NULL, 0),
          "%s: target check", name);
    check_relocation(name, p);
    check_arena(name, p, b1, n1);
    if (strcmp(name, "digits_mlp") == 0 || strcmp(name, "digits_mlp_float") == 0 ||
        strcmp(name, "conv_chain_same") == 0 || strcmp(name, "dw_dm2_dil2") == 0 ||
        strcmp(name, "add_resblock") == 0) {
      check_bytes(name, b1, n1);
    }
    g_progs++;
    free(b1);
    free(b2);
    tsr_net_free(q);
  }
  tsr_net_free(p);
  free(tfl);
}

static unsigned g_tfl_ok, g_tfl_refused;

/* The compiler on corrupted .tflite files: a program or one line, nothing else. */
static void check_corrupt_tflite(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
  size_t len = 0;
  uint8_t *good = slurp(path, &len);
  uint8_t *b = good != NULL ? malloc(len) : NULL;
  tsr_dev_info_t tg;
  tsr_net_default_target(8, &tg);
  static const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  for (size_t i = 0; b != NULL && i < len; i++) {
    for (size_t v = 0; v < sizeof vals; v++) {
      if (good[i] == vals[v]) {
        continue;
      }
      memcpy(b, good, len);
      b[i] = vals[v];
      char err[TESSERA_ERRLEN] = "";
      tsr_net_prog_t *p = NULL;
      if (tsr_net_compile(b, len, &tg, &p, err, sizeof err) == TSR_OK) {
        g_tfl_ok++;
        CHECK(p != NULL && p->n_layers > 0u, "%s.tflite byte %zu = 0x%02x: empty program", name,
              i, vals[v]);
      } else {
        g_tfl_refused++;
        CHECK(p == NULL && one_line(err), "%s.tflite byte %zu = 0x%02x: no one-line message", name,
              i, vals[v]);
      }
      tsr_net_free(p);
    }
  }
  free(b);
  free(good);
}

/* With a simulator (TSR_SIM_LIB_DIR): a STORE moved past the arena stops with DMA_WINDOW, and
 * the next run on the same device is bit-exact again (the window was opened again). */
static int check_dma_window(const char *dir) {
  if (getenv("TSR_SIM_LIB_DIR") == NULL) {
    return 0;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/digits_mlp.tflite", dir);
  size_t len = 0;
  uint8_t *tfl = slurp(path, &len);
  char err[TESSERA_ERRLEN] = "";
  tessera_dev_t *dev = NULL;
  tessera_open_opts_t o;
  tessera_open_opts_default(&o);
  o.dim = 8;
  tsr_net_prog_t *p = NULL;
  if (tfl == NULL || tessera_open("sim", &o, &dev, err, sizeof err) != TSR_OK ||
      tsr_net_compile(tfl, len, &tessera_driver(dev)->info, &p, err, sizeof err) != TSR_OK) {
    CHECK(0, "DMA window check: %s", err);
    free(tfl);
    tessera_close(dev);
    return 0;
  }
  int8_t x[64] = {0};
  int8_t y[10];
  tessera_net_result_t res;
  tsr_cmd_t saved;
  uint32_t i = 0;
  uint32_t a = 0;
  while (i < p->n_cmds && !(tsr_net_cmd_addr(&p->cmds[i], &a) && a == p->cmd_base +
                                                                    p->tensors[p->layers[1].out].dev_off)) {
    i++;
  }
  CHECK(i < p->n_cmds, "DMA window check: no STORE of layer 1's output");
  if (i < p->n_cmds) {
    saved = p->cmds[i];
    tsr_net_relocate(&saved, p->cmd_base + p->tensors[p->layers[1].out].dev_off,
                     p->cmd_base + p->arena_bytes + 0x8000u, &p->cmds[i]);
    tsr_status_t st = tessera_net_run(dev, p, x, sizeof x, y, sizeof y, false, false, &res, err, sizeof err);
    CHECK(st != TSR_OK && strstr(err, "DMA_WINDOW") != NULL && one_line(err),
          "a STORE past the arena: status %d, '%s' (want DMA_WINDOW)", (int)st, err);
    tessera_net_result_free(&res);
    p->cmds[i] = saved;
    st = tessera_net_run(dev, p, x, sizeof x, y, sizeof y, true, false, &res, err, sizeof err);
    CHECK(st == TSR_OK && res.mismatches == 0u, "the run after a DMA_WINDOW stop: %d %s", (int)st,
          err);
    tessera_net_result_free(&res);
  }
  tsr_net_free(p);
  tessera_close(dev);
  free(tfl);
  return 1;
}

static unsigned g_fused;

/* The number of FUSED layers of p; each names an earlier GEMM, CONV or DWCONV layer that writes its
 * output with lut = 1, and its input has no storage. */
static unsigned fused_layers(const char *name, const tsr_net_prog_t *p) {
  unsigned n = 0;
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    if (l->kind != TSR_NET_FUSED) {
      continue;
    }
    n++;
    const tsr_net_layer_t *pl = l->fused < i ? &p->layers[l->fused] : NULL;
    CHECK(pl != NULL && pl->lut == 1u && pl->out == l->out &&
              (pl->kind == TSR_NET_GEMM || pl->kind == TSR_NET_CONV || pl->kind == TSR_NET_DWCONV) &&
              p->tensors[l->in].dev_off == TSR_NET_HOST_ONLY,
          "%s: FUSED layer %u: producer %u does not apply the table", name, i, l->fused);
  }
  return n;
}

/* Set 32-bit word `word` of layer `layer`'s record in a saved program, fix the checksum and
 * require the loader to refuse it with one line. */
static void forge_layer(const char *name, const uint8_t *file, size_t n, const tsr_net_prog_t *p,
                        uint32_t layer, uint32_t word, uint32_t value, const char *what) {
  uint8_t *b = malloc(n);
  if (b == NULL) {
    CHECK(0, "out of memory");
    return;
  }
  memcpy(b, file, n);
  /* The header is 24 words, each tensor 16, each layer 40 (docs/networks.md, the .tsr format). */
  const size_t at = 4u * (24u + 16u * (size_t)p->n_tensors + 40u * (size_t)layer + word);
  for (int i = 0; i < 4; i++) {
    b[at + (size_t)i] = (uint8_t)(value >> (8 * i));
  }
  tsr_tsr_fix_checksum(b, n);
  tsr_net_prog_t *q = NULL;
  char err[TESSERA_ERRLEN] = "";
  CHECK(tsr_net_load(b, n, &q, err, sizeof err) != TSR_OK && q == NULL && one_line(err) &&
            strstr(err, "not a valid .tsr program") != NULL,
        "%s: %s: loaded, or not one line: '%s'", name, what, err);
  tsr_net_free(q);
  free(b);
}

/* With a simulator: a LUT activation after a FULLY_CONNECTED or CONV_2D is fused into its
 * STOREs (one FUSED layer) unless its input has a second reader; the fused program gives
 * the unfused one's output (TSR_NET_NO_FUSE; check_net.py compares both with TFLite Micro)
 * in fewer cycles and fewer DRAM bytes, as one command stream each; forged fusions are
 * refused. */
static void check_fusion(const char *dir) {
  static const struct {
    const char *name;
    unsigned fused;  /* FUSED layers expected */
    int unfused_ok;  /* whether the model compiles without fusion */
  } k_cases[] = {
      {"fuse_fc_tanh", 1u, 1},        {"fuse_conv_hard_swish", 1u, 1},
      {"fuse_conv_logistic", 1u, 0},  {"fuse_conv_logistic_shared", 0u, 1},
      {"fuse_dw_tanh", 1u, 1},        {"fuse_mean_logistic", 1u, 1},
      {"act_logistic_fc", 1u, 1},     {"act_logistic_in", 0u, 1},
  };
  if (getenv("TSR_SIM_LIB_DIR") == NULL) {
    return;
  }
  char err[TESSERA_ERRLEN] = "";
  tessera_dev_t *dev = NULL;
  tessera_open_opts_t o;
  tessera_open_opts_default(&o);
  o.dim = 8;
  if (tessera_open("sim", &o, &dev, err, sizeof err) != TSR_OK) {
    CHECK(0, "fusion check: %s", err);
    return;
  }
  const tsr_dev_info_t *info = &tessera_driver(dev)->info;
  for (size_t c = 0; c < sizeof k_cases / sizeof k_cases[0]; c++) {
    const char *name = k_cases[c].name;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
    size_t len = 0;
    uint8_t *tfl = slurp(path, &len);
    tsr_net_prog_t *pf = NULL, *pu = NULL;
    char err2[TESSERA_ERRLEN] = "";
    const tsr_status_t sf = tfl ? tsr_net_compile(tfl, len, info, &pf, err, sizeof err) : TSR_IO;
    const tsr_status_t su =
        tfl ? tsr_net_compile_flags(tfl, len, info, TSR_NET_NO_FUSE, &pu, err2, sizeof err2) : TSR_IO;
    CHECK(sf == TSR_OK, "%s: compile: %s", name, err);
    CHECK(k_cases[c].unfused_ok ? su == TSR_OK
                                : su == TSR_UNSUPPORTED && one_line(err2) &&
                                      strstr(err2, "writing the input of a padded CONV_2D") != NULL,
          "%s: compile without fusion: %d '%s'", name, (int)su, err2);
    if (sf == TSR_OK) {
      const unsigned nf = fused_layers(name, pf);
      CHECK(nf == k_cases[c].fused, "%s: %u FUSED layers, want %u", name, nf, k_cases[c].fused);
      g_fused += nf;
    }
    CHECK(pu == NULL || fused_layers(name, pu) == 0u, "%s: fused with TSR_NET_NO_FUSE", name);
    if (sf == TSR_OK) {
      /* The fused program against the golden model (each chip layer, from the same input);
       * the unfused one, where it compiles, gives the same output in more cycles. */
      const tsr_net_tensor_t *ti = &pf->tensors[pf->input], *to = &pf->tensors[pf->output];
      int8_t *x = malloc(ti->elems), *yf = malloc(to->elems), *yu = malloc(to->elems);
      for (uint32_t i = 0; x != NULL && i < ti->elems; i++) {
        x[i] = (int8_t)(i * 37u + 11u);
      }
      tessera_net_result_t rf, ru;
      memset(&rf, 0, sizeof rf);
      memset(&ru, 0, sizeof ru);
      const int ran_f = x != NULL && yf != NULL && yu != NULL &&
                        tessera_net_run(dev, pf, x, ti->elems, yf, to->elems, true, false, &rf, err,
                                        sizeof err) == TSR_OK;
      CHECK(ran_f && rf.mismatches == 0u,
            "%s: run: %s (%" PRIu64 " outputs differ from the golden model)", name,
            ran_f ? "" : err, rf.mismatches);
      const int ran_u = ran_f && su == TSR_OK &&
                        tessera_net_run(dev, pu, x, ti->elems, yu, to->elems, true, false, &ru, err,
                                        sizeof err) == TSR_OK;
      CHECK(su != TSR_OK || (ran_u && ru.mismatches == 0u),
            "%s: run without fusion: %s (%" PRIu64 " outputs differ from the golden model)", name,
            ran_u ? "" : err, ru.mismatches);
      if (ran_u) {
        CHECK(memcmp(yf, yu, to->elems) == 0, "%s: the fused program's output differs", name);
        const int fewer = rf.cycles < ru.cycles && rf.dma_rd + rf.dma_wr < ru.dma_rd + ru.dma_wr;
        CHECK(k_cases[c].fused == 0u ? rf.cycles == ru.cycles : fewer,
              "%s: fused %" PRIu64 " cycles, %" PRIu64 " DRAM bytes; unfused %" PRIu64 ", %" PRIu64,
              name, rf.cycles, rf.dma_rd + rf.dma_wr, ru.cycles, ru.dma_rd + ru.dma_wr);
      }
      tessera_net_result_free(&rf);
      tessera_net_result_free(&ru);
      free(x);
      free(yf);
      free(yu);
    }
    /* Forged: the producer without its table; a FUSED layer whose input is the graph's input
     * (stored); a table on a layer that cannot apply one. */
    uint8_t *b = NULL;
    size_t n = 0;
    if (sf == TSR_OK && k_cases[c].fused != 0u && tsr_net_save(pf, &b, &n, err, sizeof err) == TSR_OK) {
      for (uint32_t i = 0; i < pf->n_layers; i++) {
        if (pf->layers[i].kind == TSR_NET_FUSED) {
          forge_layer(name, b, n, pf, pf->layers[i].fused, 37u, 0u, "the producer's lut cleared");
          forge_layer(name, b, n, pf, i, 2u, pf->input, "a FUSED layer reading a stored tensor");
          forge_layer(name, b, n, pf, i, 37u, 1u, "a table on a FUSED layer");
        }
      }
    }
    free(b);
    tsr_net_free(pf);
    tsr_net_free(pu);
    free(tfl);
  }
  tessera_close(dev);
}

static void check_refused(const char *dir, const char *name, const char *must) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
  size_t len = 0;
  uint8_t *tfl = slurp(path, &len);
  char err[TESSERA_ERRLEN] = "";
  tsr_dev_info_t tg;
  tsr_net_default_target(8, &tg);
  tsr_net_prog_t *p = NULL;
  tsr_status_t st = tfl ? tsr_net_compile(tfl, len, &tg, &p, err, sizeof err) : TSR_IO;
  CHECK(st == TSR_UNSUPPORTED && p == NULL && one_line(err) && strstr(err, must) != NULL &&
            strstr(err, "supported: FULLY_CONNECTED") != NULL,
        "%s: want TSR_UNSUPPORTED naming '%s', got %d: %s", name, must, (int)st, err);
  free(tfl);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: net_prog_check MODELS_DIR\n");
    return 2;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/models.txt", argv[1]);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "net_prog_check: %s: cannot open it (run tests/net/gen_net_models.py)\n", path);
    return 2;
  }
  char line[256];
  while (fgets(line, sizeof line, f) != NULL) {
    char name[200];
    if (sscanf(line, "%199s", name) == 1) {
      check_model(argv[1], name);
    }
  }
  fclose(f);
  check_corrupt_tflite(argv[1], "digits_mlp");
  check_corrupt_tflite(argv[1], "conv_same_s2_odd");
  check_corrupt_tflite(argv[1], "dw_dm2_dil2");
  const int window = check_dma_window(argv[1]);
  check_fusion(argv[1]);
  check_refused(argv[1], "bad_avgpool", "operator 1 (AVERAGE_POOL_2D): SAME padding that pads");
  check_refused(argv[1], "bad_padded_fc", "operator 0 (RESHAPE): reading the input of a padded");
  check_refused(argv[1], "bad_bmm_rhs_zp", "operator 1 (BATCH_MATMUL): a right-hand operand with a zero point");
  printf("net_prog_check: %u programs round-tripped and relocated; arenas %" PRIu64 " bytes in all"
         " (%" PRIu64 " without reuse; %u tensor pairs at one offset), %u with live tensors made to"
         " share storage refused; %u malformed files refused, %u "
         "forged ones loaded and saved back; corrupted .tflite: %u compiled, %u refused; DMA window"
         " %s; %u LUT layers fused; %s\n",
         g_progs, g_arena, g_arena_flat, g_shared, g_share_refused, g_refused, g_loaded, g_tfl_ok,
         g_tfl_refused,
         window ? "checked on sim:8" : "not checked (no TSR_SIM_LIB_DIR)", g_fused,
         g_fails ? "FAIL" : "PASS");
  return g_fails ? 1 : 0;
}
