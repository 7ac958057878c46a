/* tsr_net_prog.c: the .tsr container: write a program, and check and read one back (docs/networks.md, "The .tsr format"). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_le.h"
#include "tsr_lib_internal.h"
#include "tsr_conv.h"
#include "tsr_net_prog.h"

/* Words (little-endian uint32) of each part. */
#define HDR_WORDS 24u
#define TENSOR_WORDS 16u
#define LAYER_WORDS 40u
#define HDR_BYTES (4u * HDR_WORDS)

void tsr_net_free(tsr_net_prog_t *p) {
  if (p != NULL) {
    free(p->tensors);
    free(p->layers);
    free(p->blob);
    free(p->cmds);
    free(p);
  }
}

size_t tsr_net_elem_bytes(const tsr_net_tensor_t *t) { return t->type == TSR_NET_FLOAT32 ? 4u : 1u; }

bool tsr_net_eltwise(uint32_t kind) { return kind == TSR_NET_ADD || kind == TSR_NET_MUL; }

bool tsr_net_kind_on_chip(uint32_t kind) {
  return kind == TSR_NET_GEMM || kind == TSR_NET_SOFTMAX || kind == TSR_NET_CONV ||
         kind == TSR_NET_DWCONV || tsr_net_eltwise(kind) || kind == TSR_NET_LUT ||
         kind == TSR_NET_COPY || kind == TSR_NET_BMM || kind == TSR_NET_MAXPOOL;
}

/* Whether layer l reads the storage of tensor root: its input, its second one (ADD, MUL, BMM,
 * HOST), or its scratch tensor (BMM, MAXPOOL: written and read by the layer itself). */
static bool reads(const tsr_net_prog_t *p, const tsr_net_layer_t *l, uint32_t root) {
  const bool two = tsr_net_eltwise(l->kind) || l->kind == TSR_NET_BMM || l->kind == TSR_NET_HOST;
  const bool scratch = l->kind == TSR_NET_BMM || l->kind == TSR_NET_MAXPOOL;
  return (l->in < p->n_tensors && p->tensors[l->in].alias == root) ||
         ((two || l->in2 != 0u) && l->in2 < p->n_tensors && p->tensors[l->in2].alias == root) ||
         ((scratch || l->in3 != 0u) && l->in3 < p->n_tensors && p->tensors[l->in3].alias == root);
}

void tsr_net_lifetime(const tsr_net_prog_t *p, uint32_t root, uint32_t *first, uint32_t *last) {
  uint32_t lo = p->n_layers, hi = 0u;
  bool written = false;
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    const bool writes = l->out < p->n_tensors && p->tensors[l->out].alias == root;
    if (writes || reads(p, l, root)) {
      lo = i < lo ? i : lo;
      hi = i;
    }
    written = written || writes;
  }
  /* There before the first layer: the graph's input, a border, or what nothing writes. */
  if (!written || tsr_net_padded(&p->tensors[root]) ||
      (p->input < p->n_tensors && p->tensors[p->input].alias == root)) {
    lo = 0u;
  }
  /* Needed after the last: the graph's output, or what nothing writes (kept whole). */
  if (!written || (p->output < p->n_tensors && p->tensors[p->output].alias == root)) {
    hi = p->n_layers;
  }
  *first = lo;
  *last = hi;
}

bool tsr_net_stored(const tsr_net_prog_t *p, uint32_t t) {
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    if (l->kind == TSR_NET_FUSED && l->in < p->n_tensors && p->tensors[l->in].alias == t) {
      return false;
    }
  }
  return t < p->n_tensors && p->tensors[t].type == TSR_NET_INT8;
}

uint64_t tsr_net_arena_no_reuse(const tsr_net_prog_t *p) {
  uint64_t at = tsr_lib_align_up(p->blob_bytes, TESSERA_MEM_ALIGN);
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    const tsr_net_tensor_t *t = &p->tensors[i];
    if (t->type == TSR_NET_INT8 && t->alias == i && tsr_net_stored(p, i)) {
      at += tsr_lib_align_up(tsr_net_storage_bytes(t), TESSERA_MEM_ALIGN);
    }
  }
  return at;
}

const char *tsr_net_kind_name(uint32_t kind) {
  switch (kind) {
    case TSR_NET_GEMM:
      return "GEMM";
    case TSR_NET_SOFTMAX:
      return "SOFTMAX";
    case TSR_NET_LUT:
      return "LUT";
    case TSR_NET_RESHAPE:
      return "RESHAPE";
    case TSR_NET_QUANTIZE:
      return "QUANTIZE";
    case TSR_NET_DEQUANTIZE:
      return "DEQUANTIZE";
    case TSR_NET_CONV:
      return "CONV";
    case TSR_NET_DWCONV:
      return "DWCONV";
    case TSR_NET_ADD:
      return "ADD";
    case TSR_NET_MUL:
      return "MUL";
    case TSR_NET_COPY:
      return "COPY";
    case TSR_NET_BMM:
      return "BMM";
    case TSR_NET_HOST:
      return "HOST";
    case TSR_NET_MAXPOOL:
      return "MAXPOOL";
    case TSR_NET_FUSED:
      return "FUSED";
    default:
      return "?";
  }
}

uint32_t tsr_net_maxpool_red_off(const tsr_net_layer_t *l) {
  return (uint32_t)tsr_lib_align_up((uint64_t)l->rows * l->len, 64u);
}

uint32_t tsr_net_bmm_batches(const tsr_net_tensor_t *y) {
  uint32_t b = 1u;
  for (uint32_t d = 0; d + 2u < y->rank; d++) {
    b *= y->shape[d];
  }
  return b;
}

uint32_t tsr_net_bmm_operand_batch(const tsr_net_tensor_t *y, const tsr_net_tensor_t *x, uint32_t b) {
  /* Batch dimensions align from the right; a dimension of 1 broadcasts. */
  uint32_t idx = 0u, scale = 1u;
  for (uint32_t d = y->rank - 2u; d-- > 0u;) {
    const uint32_t digit = b % y->shape[d];
    b /= y->shape[d];
    const uint32_t off = y->rank - x->rank;
    if (d >= off && d - off + 2u < x->rank) {
      const uint32_t xd = x->shape[d - off];
      idx += (xd == 1u ? 0u : digit) * scale;
      scale *= xd;
    }
  }
  return idx;
}

bool tsr_net_padded(const tsr_net_tensor_t *t) {
  return (t->pad[0] | t->pad[1] | t->pad[2] | t->pad[3]) != 0u;
}

uint64_t tsr_net_storage_bytes(const tsr_net_tensor_t *t) {
  if (!tsr_net_padded(t) || t->rank != 4u) {
    return (uint64_t)t->elems * tsr_net_elem_bytes(t);
  }
  return (uint64_t)t->shape[0] * ((uint64_t)t->shape[1] + t->pad[0] + t->pad[1]) *
         ((uint64_t)t->shape[2] + t->pad[2] + t->pad[3]) * t->shape[3];
}

uint64_t tsr_net_interior_off(const tsr_net_tensor_t *t) {
  if (!tsr_net_padded(t) || t->rank != 4u) {
    return 0u;
  }
  return ((uint64_t)t->pad[0] * ((uint64_t)t->shape[2] + t->pad[2] + t->pad[3]) + t->pad[2]) *
         t->shape[3];
}

uint64_t tsr_net_mem_bytes(const tsr_net_prog_t *p) {
  /* The arena, then each layer's command ring (tsr_lib_begin) with room to spare. */
  return TSR_NET_RUN_BASE + (uint64_t)p->arena_bytes + (4u << 20);
}

bool tsr_net_is_tsr(const void *bytes, size_t len) {
  const uint8_t *b = bytes;
  return bytes != NULL && len >= 4u && b[0] == 'T' && b[1] == 'S' && b[2] == 'R' && b[3] == 'N';
}

/* FNV-1a of the whole file with the checksum word (header word 13) read as zero. */
static uint32_t checksum(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ (i >= 52u && i < 56u ? 0u : p[i])) * 16777619u;
  }
  return h;
}


static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float bitsf(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

tsr_status_t tsr_net_save(const tsr_net_prog_t *p, uint8_t **bytes, size_t *len, char *err,
                          size_t errlen) {
  if (p == NULL || bytes == NULL || len == NULL) {
    tsr_lib_err(err, errlen, "tsr_net_save: no program or no place for the bytes");
    return TSR_BAD_ARG;
  }
  const size_t total = HDR_BYTES + 4u * ((size_t)TENSOR_WORDS * p->n_tensors +
                                         (size_t)LAYER_WORDS * p->n_layers) +
                       (size_t)TSR_CMD_BYTES * p->n_cmds + p->blob_bytes;
  uint8_t *b = calloc(1, total);
  if (b == NULL) {
    tsr_lib_err(err, errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  const tsr_dev_info_t *t = &p->target;
  const uint32_t hdr[HDR_WORDS] = {
      TSR_NET_MAGIC, TSR_NET_VERSION, t->dim,       p->n_tensors,    p->n_layers,   p->input,
      p->output,     p->arena_bytes,  p->blob_bytes, HDR_BYTES,      TENSOR_WORDS,  LAYER_WORDS,
      (uint32_t)total, 0u,            p->n_cmds,    p->cmd_base,     t->axi_bytes,  t->cmdq_depth,
      t->spad_rows,  t->acc_rows,     t->has_sfu,   t->store_lanes,  0u,            0u};
  for (uint32_t i = 0; i < HDR_WORDS; i++) {
    tsr_le32_store(b + 4u * i, hdr[i]);
  }
  uint8_t *w = b + HDR_BYTES;
  for (uint32_t i = 0; i < p->n_tensors; i++, w += 4u * TENSOR_WORDS) {
    const tsr_net_tensor_t *x = &p->tensors[i];
    const uint32_t r[TENSOR_WORDS] = {x->type,     x->rank,      x->shape[0], x->shape[1],
                                      x->shape[2], x->shape[3],  x->elems,    fbits(x->scale),
                                      (uint32_t)x->zp, x->alias, x->dev_off,  x->pad[0],
                                      x->pad[1],   x->pad[2],    x->pad[3],   0u};
    for (uint32_t j = 0; j < TENSOR_WORDS; j++) {
      tsr_le32_store(w + 4u * j, r[j]);
    }
  }
  for (uint32_t i = 0; i < p->n_layers; i++, w += 4u * LAYER_WORDS) {
    const tsr_net_layer_t *l = &p->layers[i];
    const uint32_t r[LAYER_WORDS] = {
        l->kind,     l->op_index,  l->in,     l->out,          l->m,
        l->k,        l->n,         l->b_off,  l->bias_off,     l->mult_off,
        l->shift_off, l->per_channel, (uint32_t)l->mult, (uint32_t)l->shift, (uint32_t)l->out_zp,
        (uint32_t)l->act_min, (uint32_t)l->act_max, (uint32_t)l->a_zp, l->rows, l->len,
        l->param_off, fbits(l->beta), l->cmd_first, l->cmd_count, l->kh,
        l->kw,       l->stride_h,  l->stride_w, l->dil_h,       l->dil_w,
        l->pad_t,    l->pad_l,     l->depth_mult, l->group_c,  l->in2,
        l->perm,     l->in3,       l->lut,     l->fused,        0u};
    for (uint32_t j = 0; j < LAYER_WORDS; j++) {
      tsr_le32_store(w + 4u * j, r[j]);
    }
  }
  for (uint32_t i = 0; i < p->n_cmds; i++) {
    for (uint32_t j = 0; j < TSR_CMD_WORDS; j++, w += 4) {
      tsr_le32_store(w, p->cmds[i].w[j]);
    }
  }
  if (p->blob_bytes != 0u) {
    memcpy(w, p->blob, p->blob_bytes);
  }
  tsr_le32_store(b + 4u * 13u, checksum(b, total));
  *bytes = b;
  *len = total;
  return TSR_OK;
}

/* [off, off + n) inside [0, end). */
static bool inside(uint64_t off, uint64_t n, uint64_t end) { return off <= end && n <= end - off; }

static tsr_status_t bad(char *err, size_t errlen, const char *fmt, uint32_t a, uint32_t b) {
  char msg[200];
  snprintf(msg, sizeof msg, fmt, a, b);
  tsr_lib_err(err, errlen, "not a valid .tsr program: %s", msg);
  return TSR_BAD_ARG;
}

/* A CONV layer's geometry agrees with its tensors, the target's N and the blob, and every
 * input pixel its kernel reaches lies in the image or its border. */
static bool conv_fits(const tsr_net_prog_t *p, const tsr_net_layer_t *l) {
  const tsr_net_tensor_t *x = &p->tensors[l->in];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  const bool dw = l->kind == TSR_NET_DWCONV;
  /* DWCONV: groups of group_c input channels, n = group_c * depth_mult outputs each. */
  if (dw && (l->depth_mult == 0u || l->group_c == 0u || l->group_c > x->shape[3] ||
             (uint64_t)x->shape[3] * l->depth_mult != y->shape[3] ||
             (uint64_t)l->group_c * l->depth_mult != l->n)) {
    return false;
  }
  if ((dw && l->group_c > p->target.dim) || (!dw && (l->depth_mult != 0u || l->group_c != 0u))) {
    return false;
  }
  const uint64_t groups = dw ? (x->shape[3] + l->group_c - 1u) / l->group_c : 1u;
  if (x->type != TSR_NET_INT8 || y->type != TSR_NET_INT8 || x->rank != 4u || y->rank != 4u ||
      x->alias == y->alias || x->shape[0] != y->shape[0] || (!dw && y->shape[3] != l->n) ||
      l->stride_h == 0u || l->stride_w == 0u || l->dil_h == 0u || l->dil_w == 0u ||
      l->stride_h > 65535u || l->stride_w > 65535u || l->dil_h > 65535u || l->dil_w > 65535u ||
      l->pad_t > x->pad[0] || l->pad_l > x->pad[2] ||
      (uint64_t)l->m != (uint64_t)y->shape[0] * y->shape[1] * y->shape[2]) {
    return false;
  }
  tsr_conv_desc_t d;
  memset(&d, 0, sizeof d);
  d.kh = l->kh;
  d.kw = l->kw;
  d.in_c = dw ? l->group_c : x->shape[3];
  d.in_pix = dw ? x->shape[3] : 0u;
  d.dil_w = l->dil_w;
  tsr_conv_geom_t g;
  if (!tsr_conv_geom(&d, p->target.dim, &g) || g.k != l->k) {
    return false;
  }
  /* The last pixel the kernel reaches, as (row, column) + pad in the stored image. */
  const uint64_t y_end = (uint64_t)(y->shape[1] - 1u) * l->stride_h + (uint64_t)(l->kh - 1u) * l->dil_h;
  const uint64_t x_end = (uint64_t)(y->shape[2] - 1u) * l->stride_w + (uint64_t)(l->kw - 1u) * l->dil_w;
  const uint64_t kn = (uint64_t)l->k * l->n * groups;
  const uint64_t n_all = y->shape[3];
  return y_end < (uint64_t)x->shape[1] + x->pad[1] + l->pad_t &&
         x_end < (uint64_t)x->shape[2] + x->pad[3] + l->pad_l && inside(l->b_off, kn, p->blob_bytes) &&
         inside(l->bias_off, 4ull * n_all, p->blob_bytes) && l->per_channel <= 1u &&
         (!l->per_channel || (inside(l->mult_off, 4ull * n_all, p->blob_bytes) &&
                              inside(l->shift_off, 4ull * n_all, p->blob_bytes))) &&
         l->out_zp >= -128 && l->out_zp <= 127 && l->act_min >= -128 &&
         l->act_min <= l->act_max && l->act_max <= 127;
}

/* An int8 tensor (index and alias checked) whose storage does not exist: a fused LUT's input
 * (fused_in: per tensor, whether it is the storage root of a FUSED layer's input). */
static bool unstored(const tsr_net_prog_t *p, const bool *fused_in, uint32_t t) {
  return p->tensors[t].type == TSR_NET_INT8 && fused_in[p->tensors[t].alias];
}

/* Two int8 tensors whose storage overlaps are never needed at the same time. */
static tsr_status_t check_sharing(const tsr_net_prog_t *p, const bool *fused_in, char *err,
                                  size_t errlen) {
  uint32_t *life = malloc(2u * ((size_t)p->n_tensors + 1u) * sizeof *life);
  if (life == NULL) {
    return bad(err, errlen, "out of memory checking the arena", 0u, 0u);
  }
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    tsr_net_lifetime(p, i, &life[2u * i], &life[2u * i + 1u]);
  }
  tsr_status_t st = TSR_OK;
  for (uint32_t i = 0; i < p->n_tensors && st == TSR_OK; i++) {
    const tsr_net_tensor_t *a = &p->tensors[i];
    for (uint32_t j = i + 1u; j < p->n_tensors && a->type == TSR_NET_INT8 && a->alias == i &&
                              !fused_in[i]; j++) {
      const tsr_net_tensor_t *b = &p->tensors[j];
      if (b->type == TSR_NET_INT8 && b->alias == j && !fused_in[j] &&
          life[2u * i] <= life[2u * j + 1u] &&
          life[2u * j] <= life[2u * i + 1u] &&
          a->dev_off < b->dev_off + tsr_net_storage_bytes(b) &&
          b->dev_off < a->dev_off + tsr_net_storage_bytes(a)) {
        st = bad(err, errlen, "tensors %u and %u share arena bytes while both are needed", i, j);
        break;
      }
    }
  }
  free(life);
  return st;
}

/* Every index, offset and size of a program agrees with the rest. */
static tsr_status_t check_prog_fused(const tsr_net_prog_t *p, const bool *fused_in, char *err,
                                     size_t errlen) {
  const tsr_dev_info_t *tg = &p->target;
  if (tg->dim < 1u || tg->dim > 256u || tg->spad_rows == 0u || tg->acc_rows == 0u ||
      tg->axi_bytes == 0u || tg->store_lanes == 0u) {
    return bad(err, errlen, "the target configuration is implausible (N = %u, %u lanes)", tg->dim,
               tg->store_lanes);
  }
  if (p->n_tensors == 0u || p->input >= p->n_tensors || p->output >= p->n_tensors) {
    return bad(err, errlen, "the input %u or output %u is not a tensor", p->input, p->output);
  }
  if (p->blob_bytes > p->arena_bytes) {
    return bad(err, errlen, "the blob (%u bytes) exceeds the arena (%u bytes)", p->blob_bytes,
               p->arena_bytes);
  }
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    const tsr_net_tensor_t *t = &p->tensors[i];
    uint64_t e = 1;
    for (uint32_t d = 0; d < t->rank && d < TSR_NET_MAX_RANK; d++) {
      e *= t->shape[d];
    }
    if ((t->type != TSR_NET_INT8 && t->type != TSR_NET_FLOAT32) || t->rank < 1u ||
        t->rank > TSR_NET_MAX_RANK || e != t->elems || e == 0u || t->alias >= p->n_tensors ||
        p->tensors[t->alias].alias != t->alias || p->tensors[t->alias].elems != t->elems) {
      return bad(err, errlen, "tensor %u has a bad type, shape or alias (%u)", i, t->alias);
    }
    if (tsr_net_padded(t)) {
      bool aliased = false;
      for (uint32_t j = 0; j < p->n_tensors; j++) {
        aliased = aliased || (j != i && p->tensors[j].alias == i);
      }
      if (t->type != TSR_NET_INT8 || t->rank != 4u || t->alias != i || aliased ||
          t->pad[0] > 65535u || t->pad[1] > 65535u || t->pad[2] > 65535u || t->pad[3] > 65535u) {
        return bad(err, errlen, "tensor %u has a border but is not an unaliased int8 NHWC tensor"
                   " (rank %u)", i, t->rank);
      }
    }
    /* A fused LUT's input has no storage (its producer's STOREs apply the table). */
    const bool stored = !fused_in[t->alias];
    if (t->type == TSR_NET_INT8 &&
        (!(t->scale > 0.0f) || isinf(t->scale) || t->zp < -128 || t->zp > 127 ||
         (stored ? t->dev_off < p->blob_bytes ||
                       !inside(t->dev_off, tsr_net_storage_bytes(t), p->arena_bytes)
                 : t->dev_off != TSR_NET_HOST_ONLY || t->alias != i || tsr_net_padded(t) ||
                       i == p->input || i == p->output))) {
      return bad(err, errlen, "int8 tensor %u has a bad quantization or offset %u", i, t->dev_off);
    }
    if (t->type == TSR_NET_FLOAT32 && t->dev_off != TSR_NET_HOST_ONLY) {
      return bad(err, errlen, "float tensor %u has a device offset %u", i, t->dev_off);
    }
  }
  uint32_t next_cmd = 0u; /* where the next chip layer's commands must start */
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    if (l->in >= p->n_tensors || l->out >= p->n_tensors || l->in2 >= p->n_tensors ||
        l->in3 >= p->n_tensors || (!tsr_net_eltwise(l->kind) && l->kind != TSR_NET_BMM && l->kind != TSR_NET_HOST && l->in2 != 0u) ||
        (l->kind != TSR_NET_BMM && l->kind != TSR_NET_MAXPOOL && l->in3 != 0u) || (l->kind != TSR_NET_COPY && l->perm != 0u)) {
      return bad(err, errlen, "layer %u names tensor %u", i, l->in >= p->n_tensors ? l->in : l->out);
    }
    /* Only a FUSED layer names a tensor without storage (its input), and only GEMM, CONV and
     * DWCONV layers apply a table in their STOREs. */
    const bool fused = l->kind == TSR_NET_FUSED;
    if ((!fused && (unstored(p, fused_in, l->in) || unstored(p, fused_in, l->in2) ||
                    unstored(p, fused_in, l->in3))) ||
        unstored(p, fused_in, l->out) || (!fused && l->fused != 0u) ||
        (l->lut != 0u && (l->lut != 1u || (l->kind != TSR_NET_GEMM && l->kind != TSR_NET_CONV &&
                                           l->kind != TSR_NET_DWCONV) ||
                          !inside(l->param_off, 256u, p->blob_bytes)))) {
      return bad(err, errlen, "layer %u (%u) names a tensor without storage or a table it cannot"
                 " apply", i, l->kind);
    }
    const tsr_net_tensor_t *x = &p->tensors[l->in];
    const tsr_net_tensor_t *y = &p->tensors[l->out];
    bool ok = x->elems == y->elems;
    const tsr_net_tensor_t *x2 = &p->tensors[l->in2];
    const bool nhwc_add = tsr_net_eltwise(l->kind) && x->rank == 4u && x2->rank == 4u &&
                          y->rank == 4u && memcmp(x->shape, y->shape, sizeof x->shape) == 0 &&
                          memcmp(x2->shape, y->shape, sizeof x->shape) == 0;
    if (l->kind != TSR_NET_CONV && l->kind != TSR_NET_DWCONV && l->kind != TSR_NET_RESHAPE &&
        l->kind != TSR_NET_HOST && l->kind != TSR_NET_MAXPOOL && !fused && !nhwc_add &&
        (tsr_net_padded(x) || (tsr_net_eltwise(l->kind) && tsr_net_padded(x2)) ||
         (tsr_net_padded(y) && l->kind != TSR_NET_QUANTIZE))) {
      return bad(err, errlen, "layer %u (%u) reads or writes a tensor with a border", i, l->kind);
    }
    switch (l->kind) {
      case TSR_NET_GEMM: {
        const uint64_t kn = (uint64_t)l->k * l->n;
        ok = x->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 && l->m >= 1u && l->k >= 1u &&
             l->n >= 1u && (uint64_t)l->m * l->k == x->elems && (uint64_t)l->m * l->n == y->elems &&
             x->alias != y->alias && inside(l->b_off, kn, p->blob_bytes) &&
             inside(l->bias_off, 4ull * l->n, p->blob_bytes) && l->per_channel <= 1u &&
             (!l->per_channel || (inside(l->mult_off, 4ull * l->n, p->blob_bytes) &&
                                  inside(l->shift_off, 4ull * l->n, p->blob_bytes))) &&
             l->out_zp >= -128 && l->out_zp <= 127 && l->act_min >= -128 &&
             l->act_min <= l->act_max && l->act_max <= 127;
        break;
      }
      case TSR_NET_CONV:
      case TSR_NET_DWCONV:
        ok = conv_fits(p, l);
        break;
      case TSR_NET_SOFTMAX:
        ok = ok && x->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 && l->len >= 1u &&
             l->len <= 65535u && l->rows >= 1u && (uint64_t)l->rows * l->len == x->elems &&
             inside(l->param_off, 12u, p->blob_bytes);
        break;
      case TSR_NET_ADD:
      case TSR_NET_MUL: {
        const uint32_t words = tsr_sfu_param_words(l->kind == TSR_NET_MUL ? TSR_FUNC_MUL : TSR_FUNC_ADD);
        ok = ok && (!nhwc_add || (uint64_t)y->shape[2] * y->shape[3] <= 65535u) && x->type == TSR_NET_INT8 && x2->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 &&
             x2->elems == y->elems && x->alias != y->alias && x2->alias != y->alias &&
             l->len >= 1u && l->len <= 65535u && l->rows >= 1u &&
             (uint64_t)l->rows * l->len == x->elems && inside(l->param_off, 4u * words, p->blob_bytes);
        break;
      }
      case TSR_NET_LUT:
        ok = ok && x->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 && l->len >= 1u &&
             l->len <= 65535u && l->rows >= 1u && (uint64_t)l->rows * l->len == x->elems &&
             inside(l->param_off, 256u, p->blob_bytes);
        break;
      case TSR_NET_RESHAPE:
        ok = ok && x->alias == y->alias;
        break;
      case TSR_NET_FUSED: {
        /* Its producer came before, writes its output and applies the table. */
        const tsr_net_layer_t *pl = &p->layers[l->fused < i ? l->fused : 0u];
        ok = ok && l->fused < i && x->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 &&
             fused_in[x->alias] && x->rank == y->rank &&
             memcmp(x->shape, y->shape, sizeof x->shape) == 0 && pl->lut == 1u &&
             pl->out == l->out &&
             (pl->kind == TSR_NET_GEMM || pl->kind == TSR_NET_CONV || pl->kind == TSR_NET_DWCONV) &&
             l->rows == 0u && l->len == 0u && l->param_off == 0u;
        break;
      }
      case TSR_NET_COPY: {
        uint32_t seen = 0u;
        if (l->n != 0u) { /* a CONCATENATION's slice */
          ok = x->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 && x->alias != y->alias &&
               l->perm == 0u && l->rows >= 1u && l->len >= 1u && l->len <= l->n &&
               (uint64_t)l->rows * l->len == x->elems &&
               (uint64_t)l->k + (uint64_t)(l->rows - 1u) * l->n + l->len <= y->elems;
          break;
        }
        ok = ok && x->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 && x->rank == y->rank &&
             x->alias != y->alias && (x->rank == 4u || (l->perm >> (8u * x->rank)) == 0u);
        for (uint32_t d = 0; d < y->rank && ok; d++) {
          const uint32_t a = (l->perm >> (8u * d)) & 0xffu;
          ok = a < x->rank && (seen & (1u << a)) == 0u && x->shape[a] == y->shape[d];
          seen |= 1u << (a < 31u ? a : 31u);
        }
        break;
      }
      case TSR_NET_BMM: {
        const tsr_net_tensor_t *x3 = &p->tensors[l->in3];
        const uint32_t nb = y->rank >= 2u ? tsr_net_bmm_batches(y) : 0u;
        ok = x->type == TSR_NET_INT8 && x2->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 &&
             x->rank >= 2u && x2->rank >= 2u && y->rank >= 2u && x->rank <= y->rank &&
             x2->rank <= y->rank && l->m == y->shape[y->rank - 2u] &&
             l->n == y->shape[y->rank - 1u] && l->k == x->shape[x->rank - 1u] &&
             l->m == x->shape[x->rank - 2u] && l->k == x2->shape[x2->rank - 2u] &&
             l->n == x2->shape[x2->rank - 1u] && x->alias != y->alias && x2->alias != y->alias &&
             l->out_zp >= -128 && l->out_zp <= 127 && l->act_min >= -128 &&
             l->act_min <= l->act_max && l->act_max <= 127 && l->a_zp >= -128 && l->a_zp <= 127 &&
             inside(l->bias_off, 4ull * l->n, p->blob_bytes);
        for (uint32_t d = 0; ok && d + 2u < y->rank; d++) {
          const uint32_t o = y->rank - x->rank, o2 = y->rank - x2->rank;
          const uint32_t a = d >= o ? x->shape[d - o] : 1u, b = d >= o2 ? x2->shape[d - o2] : 1u;
          ok = (a == y->shape[d] || a == 1u) && (b == y->shape[d] || b == 1u);
        }
        ok = ok && (uint64_t)nb * l->m * l->n == y->elems;
        if (ok && l->a_zp != 0) {
          ok = x3->type == TSR_NET_INT8 && x3->elems >= 8ull * l->n && x3->alias != x->alias &&
               x3->alias != x2->alias && x3->alias != y->alias &&
               inside(l->param_off, 2ull * l->k, p->blob_bytes);
        }
        break;
      }
      case TSR_NET_QUANTIZE:
        ok = ok && x->type == TSR_NET_FLOAT32 && y->type == TSR_NET_INT8;
        break;
      case TSR_NET_MAXPOOL: {
        const tsr_net_tensor_t *x3 = &p->tensors[l->in3];
        ok = x->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 && x->alias != y->alias &&
             x->rank == 4u && y->rank == 4u && x->shape[0] == y->shape[0] &&
             x->shape[3] == y->shape[3] && x->zp == y->zp && l->kh >= 1u && l->kw >= 1u &&
             l->stride_h >= 1u && l->stride_w >= 1u && l->kh <= 255u && l->kw <= 255u &&
             l->stride_h <= 255u && l->stride_w <= 255u && l->pad_t < l->kh && l->pad_l < l->kw &&
             l->len == l->kh * l->kw && (uint64_t)l->len * y->shape[3] <= 65535u &&
             (uint64_t)l->rows == y->elems && y->shape[3] <= 65535u &&
             (uint64_t)(y->shape[1] - 1u) * l->stride_h < (uint64_t)x->shape[1] + l->pad_t &&
             (uint64_t)(y->shape[2] - 1u) * l->stride_w < (uint64_t)x->shape[2] + l->pad_l &&
             x3->type == TSR_NET_INT8 && x3->alias != x->alias && x3->alias != y->alias &&
             (uint64_t)x3->elems >= (uint64_t)tsr_net_maxpool_red_off(l) + 12ull * l->rows &&
             inside(l->param_off, (uint64_t)l->len * y->shape[3], p->blob_bytes) &&
             inside(l->bias_off, 256u, p->blob_bytes) && l->act_min >= -128 &&
             l->act_min <= l->act_max && l->act_max <= 127;
        break;
      }
      case TSR_NET_HOST: {
        /* MUL (18): a broadcast of in and in2; MAX_POOL_2D (17): NHWC windows inside the image's
         * reach. The golden model checks the rest at run time. */
        ok = x->type == TSR_NET_INT8 && y->type == TSR_NET_INT8 && x->alias != y->alias &&
             l->act_min >= -128 && l->act_min <= l->act_max && l->act_max <= 127 &&
             l->out_zp >= -128 && l->out_zp <= 127;
        if (ok && l->rows == 18u) {
          ok = x2->type == TSR_NET_INT8 && x2->alias != y->alias && x->rank <= y->rank &&
               x2->rank <= y->rank && l->shift >= -31 && l->shift <= 30;
          for (uint32_t d = 0; d < y->rank && ok; d++) {
            const uint32_t o1 = y->rank - x->rank, o2 = y->rank - x2->rank;
            const uint32_t a = d >= o1 ? x->shape[d - o1] : 1u, b = d >= o2 ? x2->shape[d - o2] : 1u;
            ok = (a == 1u || a == y->shape[d]) && (b == 1u || b == y->shape[d]);
          }
        } else if (ok && l->rows == 126u) { /* BATCH_MATMUL with a right-hand zero point */
          const uint32_t nb = y->rank >= 2u ? tsr_net_bmm_batches(y) : 0u;
          ok = x2->type == TSR_NET_INT8 && x2->alias != y->alias && x->rank >= 2u &&
               x2->rank >= 2u && y->rank >= 2u && x->rank <= y->rank && x2->rank <= y->rank &&
               l->m == x->shape[x->rank - 2u] && l->k == x->shape[x->rank - 1u] &&
               l->k == x2->shape[x2->rank - 2u] && l->n == x2->shape[x2->rank - 1u] &&
               l->m == y->shape[y->rank - 2u] && l->n == y->shape[y->rank - 1u] &&
               (uint64_t)nb * l->m * l->n == y->elems && l->shift >= -31 && l->shift <= 30;
          for (uint32_t d = 0; ok && d + 2u < y->rank; d++) {
            const uint32_t o = y->rank - x->rank, o2 = y->rank - x2->rank;
            const uint32_t a = d >= o ? x->shape[d - o] : 1u, b = d >= o2 ? x2->shape[d - o2] : 1u;
            ok = (a == y->shape[d] || a == 1u) && (b == y->shape[d] || b == 1u);
          }
        } else if (ok && l->rows == 17u) {
          ok = x->rank == 4u && y->rank == 4u && x->shape[0] == y->shape[0] &&
               x->shape[3] == y->shape[3] && l->kh >= 1u && l->kw >= 1u && l->stride_h >= 1u &&
               l->stride_w >= 1u && l->kh <= 255u && l->kw <= 255u && l->stride_h <= 255u &&
               l->stride_w <= 255u && l->pad_t < l->kh && l->pad_l < l->kw &&
               (uint64_t)(y->shape[1] - 1u) * l->stride_h < (uint64_t)x->shape[1] + l->pad_t &&
               (uint64_t)(y->shape[2] - 1u) * l->stride_w < (uint64_t)x->shape[2] + l->pad_l;
        } else {
          ok = false;
        }
        break;
      }
      case TSR_NET_DEQUANTIZE:
        ok = ok && x->type == TSR_NET_INT8 && y->type == TSR_NET_FLOAT32;
        break;
      default:
        return bad(err, errlen, "layer %u has an unknown kind %u", i, l->kind);
    }
    if (!ok) {
      return bad(err, errlen, "layer %u (%u) does not fit its tensors or the blob", i, l->kind);
    }
    const bool chip = tsr_net_kind_on_chip(l->kind);
    /* The chip layers' commands follow one another and are every command there is. */
    if (chip ? (l->cmd_count == 0u || l->cmd_first != next_cmd ||
                !inside(l->cmd_first, l->cmd_count, p->n_cmds))
             : l->cmd_count != 0u) {
      return bad(err, errlen, "layer %u names commands outside the %u captured", i, p->n_cmds);
    }
    next_cmd += chip ? l->cmd_count : 0u;
    if (chip && tsr_net_tokens_balanced(p->cmds + l->cmd_first, l->cmd_count) != 1) {
      return bad(err, errlen, "layer %u: its %u commands pop an empty dependency token counter or"
                 " leave tokens behind", i, l->cmd_count);
    }
  }
  if (next_cmd != p->n_cmds) {
    return bad(err, errlen, "%u of the %u commands belong to no layer", p->n_cmds - next_cmd,
               p->n_cmds);
  }
  /* Every external address of the commands lies in the arena. */
  for (uint32_t i = 0; i < p->n_cmds; i++) {
    uint32_t a = 0;
    if (tsr_net_cmd_addr(&p->cmds[i], &a) &&
        (a < p->cmd_base || a - p->cmd_base >= p->arena_bytes)) {
      return bad(err, errlen, "command %u addresses 0x%x, outside the arena", i, a);
    }
  }
  return check_sharing(p, fused_in, err, errlen);
}

/* Every index, offset and size of a program agrees with the rest; which tensors have no
 * storage (the inputs of FUSED layers) is worked out once, before. */
static tsr_status_t check_prog(const tsr_net_prog_t *p, char *err, size_t errlen) {
  bool *fused_in = calloc((size_t)p->n_tensors + 1u, sizeof *fused_in);
  if (fused_in == NULL) {
    return bad(err, errlen, "out of memory checking the program", 0u, 0u);
  }
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    if (l->kind == TSR_NET_FUSED && l->in < p->n_tensors && p->tensors[l->in].alias < p->n_tensors) {
      fused_in[p->tensors[l->in].alias] = true;
    }
  }
  const tsr_status_t st = check_prog_fused(p, fused_in, err, errlen);
  free(fused_in);
  return st;
}

bool tsr_net_target_matches(const tsr_net_prog_t *p, const tsr_dev_info_t *d, char *err,
                            size_t errlen) {
  const tsr_dev_info_t *t = &p->target;
  if (t->dim == d->dim && t->axi_bytes == d->axi_bytes && t->cmdq_depth == d->cmdq_depth &&
      t->spad_rows == d->spad_rows && t->acc_rows == d->acc_rows && t->has_sfu == d->has_sfu &&
      t->store_lanes == d->store_lanes) {
    return true;
  }
  tsr_lib_err(err, errlen,
              "the program was compiled for N = %u, %u scratchpad rows, %u accumulator rows, %u-byte"
              " AXI, SFU %s, %u lanes, queue %u; the device has N = %u, %u, %u, %u-byte, SFU %s, %u,"
              " %u (compile for it: run the .tflite, or compile --dim %u for a default build)",
              t->dim, t->spad_rows, t->acc_rows, t->axi_bytes, t->has_sfu ? "yes" : "no",
              t->store_lanes, t->cmdq_depth, d->dim, d->spad_rows, d->acc_rows, d->axi_bytes,
              d->has_sfu ? "yes" : "no", d->store_lanes, d->cmdq_depth, d->dim);
  return false;
}

tsr_status_t tsr_net_load(const void *bytes, size_t len, tsr_net_prog_t **out, char *err,
                          size_t errlen) {
  if (bytes == NULL || out == NULL) {
    tsr_lib_err(err, errlen, "tsr_net_load: no bytes or no place for the program");
    return TSR_BAD_ARG;
  }
  *out = NULL;
  const uint8_t *b = bytes;
  if (!tsr_net_is_tsr(bytes, len)) {
    tsr_lib_err(err, errlen, "not a .tsr program: bad magic (the file must start with \"TSRN\")");
    return TSR_BAD_ARG;
  }
  if (len < HDR_BYTES) {
    tsr_lib_err(err, errlen, "not a valid .tsr program: truncated: %zu bytes, the header alone is %u",
                len, HDR_BYTES);
    return TSR_BAD_ARG;
  }
  uint32_t h[HDR_WORDS];
  for (uint32_t i = 0; i < HDR_WORDS; i++) {
    h[i] = tsr_le32_load(b + 4u * i);
  }
  if (h[1] != TSR_NET_VERSION) {
    tsr_lib_err(err, errlen, "not a readable .tsr program: version %" PRIu32 " (this library reads %u)",
                h[1], TSR_NET_VERSION);
    return TSR_BAD_ARG;
  }
  if (h[9] != HDR_BYTES || h[10] != TENSOR_WORDS || h[11] != LAYER_WORDS || h[3] > (1u << 20) ||
      h[4] > (1u << 20) || h[14] > TSR_NET_MAX_CMDS || h[20] > 1u || h[22] != 0u || h[23] != 0u) {
    return bad(err, errlen, "the header's record sizes or counts are wrong (%u tensors, %u layers)",
               h[3], h[4]);
  }
  const uint64_t total = HDR_BYTES + 4ull * ((uint64_t)TENSOR_WORDS * h[3] +
                                             (uint64_t)LAYER_WORDS * h[4]) +
                         (uint64_t)TSR_CMD_BYTES * h[14] + h[8];
  if (total != h[12] || len != total) {
    tsr_lib_err(err, errlen, "not a valid .tsr program: %s: %zu bytes, the header says %" PRIu32,
                len < total ? "truncated" : "wrong length", len, h[12]);
    return TSR_BAD_ARG;
  }
  if (checksum(b, len) != h[13]) {
    tsr_lib_err(err, errlen, "not a valid .tsr program: checksum mismatch (the file is corrupted)");
    return TSR_BAD_ARG;
  }
  tsr_net_prog_t *p = calloc(1, sizeof *p);
  if (p == NULL) {
    tsr_lib_err(err, errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  p->target.dim = h[2];
  p->target.axi_bytes = h[16];
  p->target.cmdq_depth = h[17];
  p->target.spad_rows = h[18];
  p->target.acc_rows = h[19];
  p->target.has_sfu = h[20] != 0u;
  p->target.store_lanes = h[21];
  p->n_cmds = h[14];
  p->cmd_base = h[15];
  p->n_tensors = h[3];
  p->n_layers = h[4];
  p->input = h[5];
  p->output = h[6];
  p->arena_bytes = h[7];
  p->blob_bytes = h[8];
  p->tensors = calloc(p->n_tensors + 1u, sizeof *p->tensors);
  p->layers = calloc(p->n_layers + 1u, sizeof *p->layers);
  p->blob = malloc(p->blob_bytes + 1u);
  p->cmds = calloc(p->n_cmds + 1u, sizeof *p->cmds);
  if (p->tensors == NULL || p->layers == NULL || p->blob == NULL || p->cmds == NULL) {
    tsr_net_free(p);
    tsr_lib_err(err, errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  const uint8_t *r = b + HDR_BYTES;
  for (uint32_t i = 0; i < p->n_tensors; i++, r += 4u * TENSOR_WORDS) {
    tsr_net_tensor_t *t = &p->tensors[i];
    t->type = tsr_le32_load(r);
    t->rank = tsr_le32_load(r + 4);
    for (uint32_t d = 0; d < TSR_NET_MAX_RANK; d++) {
      t->shape[d] = tsr_le32_load(r + 8 + 4 * d);
    }
    t->elems = tsr_le32_load(r + 24);
    t->scale = bitsf(tsr_le32_load(r + 28));
    t->zp = (int32_t)tsr_le32_load(r + 32);
    t->alias = tsr_le32_load(r + 36);
    t->dev_off = tsr_le32_load(r + 40);
    for (uint32_t d = 0; d < 4u; d++) {
      t->pad[d] = tsr_le32_load(r + 44 + 4 * d);
    }
    if (tsr_le32_load(r + 60) != 0u) {
      tsr_net_free(p);
      return bad(err, errlen, "tensor %u: reserved word %u is not zero", i, 15u);
    }
  }
  for (uint32_t i = 0; i < p->n_layers; i++, r += 4u * LAYER_WORDS) {
    tsr_net_layer_t *l = &p->layers[i];
    uint32_t v[LAYER_WORDS];
    for (uint32_t j = 0; j < LAYER_WORDS; j++) {
      v[j] = tsr_le32_load(r + 4u * j);
    }
    l->kind = v[0];
    l->op_index = v[1];
    l->in = v[2];
    l->out = v[3];
    l->m = v[4];
    l->k = v[5];
    l->n = v[6];
    l->b_off = v[7];
    l->bias_off = v[8];
    l->mult_off = v[9];
    l->shift_off = v[10];
    l->per_channel = v[11];
    l->mult = (int32_t)v[12];
    l->shift = (int32_t)v[13];
    l->out_zp = (int32_t)v[14];
    l->act_min = (int32_t)v[15];
    l->act_max = (int32_t)v[16];
    l->a_zp = (int32_t)v[17];
    l->rows = v[18];
    l->len = v[19];
    l->param_off = v[20];
    l->beta = bitsf(v[21]);
    l->cmd_first = v[22];
    l->cmd_count = v[23];
    l->kh = v[24];
    l->kw = v[25];
    l->stride_h = v[26];
    l->stride_w = v[27];
    l->dil_h = v[28];
    l->dil_w = v[29];
    l->pad_t = v[30];
    l->pad_l = v[31];
    l->depth_mult = v[32];
    l->group_c = v[33];
    l->in2 = v[34];
    l->perm = v[35];
    l->in3 = v[36];
    l->lut = v[37];
    l->fused = v[38];
    if (v[39] != 0u) {
      tsr_net_free(p);
      return bad(err, errlen, "layer %u: reserved word %u is not zero", i, 39u);
    }
  }
  for (uint32_t i = 0; i < p->n_cmds; i++) {
    for (uint32_t j = 0; j < TSR_CMD_WORDS; j++, r += 4) {
      p->cmds[i].w[j] = tsr_le32_load(r);
    }
  }
  memcpy(p->blob, r, p->blob_bytes);
  tsr_status_t st = check_prog(p, err, errlen);
  if (st != TSR_OK) {
    tsr_net_free(p);
    return st;
  }
  *out = p;
  return TSR_OK;
}

tsr_status_t tsr_net_from_bytes(const void *bytes, size_t len, const tsr_dev_info_t *target,
                                tsr_net_prog_t **out, char *err, size_t errlen) {
  if (tsr_net_is_tsr(bytes, len)) {
    return tsr_net_load(bytes, len, out, err, errlen);
  }
  return tsr_net_compile(bytes, len, target, out, err, errlen);
}
