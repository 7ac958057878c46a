/* tsr_net_compile.c: TFLite model -> tsr_net_prog_t: operators to GEMM/SFU/host layers, weights in the chip's layout, the arena plan. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_lib_internal.h"
#include "tsr_net_compile_int.h"
#include "tsr_net_prog.h"
#include "tsr_sfu.h"
#include "tsr_tflite.h"

/* The schema's BuiltinOperator names, for messages (codes past the table print as numbers). */
static const char *const k_op_names[] = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
    "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION",
    "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
    "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL",
    "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER",
    "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2",
    "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM",
    "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT",
    "SLICE", "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL",
    "LOG", "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD",
    "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK",
    "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE",
    "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V",
    "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU",
    "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF",
    "WHILE", "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2",
    "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL"};

enum { OP_DEQUANTIZE = 6, OP_PAD = 34, OP_TRANSPOSE = 39, OP_MEAN = 40, OP_QUANTIZE = 114 };

const char *tsr_net_op_name(int32_t code) {
  if (code >= 0 && (size_t)code < sizeof k_op_names / sizeof k_op_names[0]) {
    return k_op_names[code];
  }
  return NULL;
}


tsr_status_t tsr_nc_oom(cc_t *c) {
  tsr_lib_err(c->err, c->errlen, "out of memory");
  return TSR_NO_MEMORY;
}

/* "operator 3 (CONV_2D)": into c->opname. */
static void name_op(cc_t *c, int32_t code) {
  const char *nm = tsr_net_op_name(code);
  if (nm != NULL) {
    snprintf(c->opname, sizeof c->opname, "operator %u (%s)", c->op, nm);
  } else {
    snprintf(c->opname, sizeof c->opname, "operator %u (builtin code %" PRId32 ")", c->op, code);
  }
}

/* One line: "<operator>: <what> is not supported (supported: ...)". */
tsr_status_t tsr_nc_unsupported(cc_t *c, const char *what) {
  tsr_lib_err(c->err, c->errlen, "%s: %s is not supported (supported: %s)", c->opname, what,
              TSR_NET_SUPPORTED);
  return TSR_UNSUPPORTED;
}

/* Append n bytes (or zeros for NULL) to the blob at a 64-byte boundary; *off is where. */
static tsr_status_t blob_add(cc_t *c, const void *src, size_t n, uint32_t *off) {
  const uint64_t at = tsr_lib_align_up(c->p->blob_bytes, TESSERA_MEM_ALIGN);
  if (at + n > (1u << 30)) {
    tsr_lib_err(c->err, c->errlen, "%s: the weights exceed 1 GiB", c->opname);
    return TSR_UNSUPPORTED;
  }
  if (at + n > c->cap_b) {
    uint32_t cap = c->cap_b ? c->cap_b : 4096u;
    while (cap < at + n) {
      cap *= 2u;
    }
    uint8_t *b = realloc(c->p->blob, cap);
    if (b == NULL) {
      return tsr_nc_oom(c);
    }
    memset(b + c->cap_b, 0, cap - c->cap_b);
    c->p->blob = b;
    c->cap_b = cap;
  }
  if (src != NULL) {
    memcpy(c->p->blob + at, src, n);
  }
  *off = (uint32_t)at;
  c->p->blob_bytes = (uint32_t)(at + n);
  return TSR_OK;
}

/* A new program tensor for tflite tensor `ti`, with device storage unless host-only. */
static tsr_status_t add_tensor(cc_t *c, uint32_t ti, int32_t *id) {
  tsr_tflite_tensor_t t;
  if (tsr_tflite_tensor(c->m, ti, &t, c->err, c->errlen) != TSR_TFLITE_OK) {
    return TSR_BAD_ARG;
  }
  if (t.type != TSR_TFLITE_INT8 && t.type != TSR_TFLITE_FLOAT32) {
    char what[96];
    snprintf(what, sizeof what, "tensor %u of type %s", ti, tsr_tflite_type_name(t.type));
    return tsr_nc_unsupported(c, what);
  }
  if (t.rank < 1u || t.rank > TSR_NET_MAX_RANK) {
    char what[96];
    snprintf(what, sizeof what, "tensor %u of rank %u (1..%u)", ti, t.rank, TSR_NET_MAX_RANK);
    return tsr_nc_unsupported(c, what);
  }
  if (c->p->n_tensors == c->cap_t) {
    c->cap_t = c->cap_t ? 2u * c->cap_t : 8u;
    tsr_net_tensor_t *nt = realloc(c->p->tensors, c->cap_t * sizeof *nt);
    if (nt == NULL) {
      return tsr_nc_oom(c);
    }
    c->p->tensors = nt;
  }
  tsr_net_tensor_t *x = &c->p->tensors[c->p->n_tensors];
  memset(x, 0, sizeof *x);
  x->type = (uint32_t)t.type;
  x->rank = t.rank;
  uint64_t elems = 1;
  for (uint32_t d = 0; d < t.rank; d++) {
    if (t.shape[d] < 1 || t.shape[d] > (1 << 24)) {
      tsr_lib_err(c->err, c->errlen, "%s: tensor %u has dimension %" PRId32 " (1..2^24 taken)",
                  c->opname, ti, t.shape[d]);
      return TSR_UNSUPPORTED;
    }
    x->shape[d] = (uint32_t)t.shape[d];
    elems *= (uint64_t)t.shape[d];
  }
  if (elems > (1u << 28)) {
    tsr_lib_err(c->err, c->errlen, "%s: tensor %u has %" PRIu64 " elements (2^28 taken)",
                c->opname, ti, elems);
    return TSR_UNSUPPORTED;
  }
  x->elems = (uint32_t)elems;
  x->alias = c->p->n_tensors;
  x->dev_off = TSR_NET_HOST_ONLY;
  if (t.type == TSR_TFLITE_INT8) {
    if (!t.has_quant || t.scale.count != 1u || t.zero_point.count != 1u) {
      char what[96];
      snprintf(what, sizeof what, "int8 tensor %u without one scale and zero point", ti);
      return tsr_nc_unsupported(c, what);
    }
    x->scale = tsr_tflite_f32(t.scale, 0);
    const int64_t zp = tsr_tflite_i64(t.zero_point, 0);
    if (!(x->scale > 0.0f) || isinf(x->scale) || zp < -128 || zp > 127) {
      tsr_lib_err(c->err, c->errlen, "%s: tensor %u has scale %g and zero point %" PRId64,
                  c->opname, ti, (double)x->scale, zp);
      return TSR_UNSUPPORTED;
    }
    x->zp = (int32_t)zp;
  }
  *id = (int32_t)c->p->n_tensors++;
  c->map[ti] = *id;
  return TSR_OK;
}

/* The program tensor of an operator's input `slot`; it must exist already and be `type`. */
tsr_status_t tsr_nc_known_input(cc_t *c, const tsr_tflite_op_t *op, uint32_t slot, uint32_t type,
                                uint32_t *id) {
  const int32_t ti = tsr_tflite_i32(op->inputs, slot);
  if (slot >= op->inputs.count || ti < 0 || c->map[ti] < 0) {
    return tsr_nc_unsupported(c, "an input that is a constant or absent");
  }
  *id = (uint32_t)c->map[ti];
  if (c->p->tensors[*id].type != type) {
    char what[64];
    snprintf(what, sizeof what, "an input of type %s",
             tsr_tflite_type_name((int32_t)c->p->tensors[*id].type));
    return tsr_nc_unsupported(c, what);
  }
  return TSR_OK;
}

/* The operator's only output as a new tensor of `type`. */
tsr_status_t tsr_nc_new_output(cc_t *c, const tsr_tflite_op_t *op, uint32_t type, uint32_t *id) {
  const int32_t ti = op->outputs.count == 1u ? tsr_tflite_i32(op->outputs, 0) : -1;
  if (ti < 0 || c->map[ti] >= 0) {
    return tsr_nc_unsupported(c, "an operator without exactly one new output");
  }
  int32_t x = -1;
  tsr_status_t st = add_tensor(c, (uint32_t)ti, &x);
  if (st != TSR_OK) {
    return st;
  }
  if (c->p->tensors[x].type != type) {
    char what[64];
    snprintf(what, sizeof what, "an output of type %s",
             tsr_tflite_type_name((int32_t)c->p->tensors[x].type));
    return tsr_nc_unsupported(c, what);
  }
  *id = (uint32_t)x;
  return TSR_OK;
}

static tsr_status_t new_layer(cc_t *c, uint32_t kind, uint32_t in, uint32_t out,
                              tsr_net_layer_t **l) {
  if (c->p->n_layers == c->cap_l) {
    c->cap_l = c->cap_l ? 2u * c->cap_l : 8u;
    tsr_net_layer_t *nl = realloc(c->p->layers, c->cap_l * sizeof *nl);
    if (nl == NULL) {
      return tsr_nc_oom(c);
    }
    c->p->layers = nl;
  }
  *l = &c->p->layers[c->p->n_layers++];
  memset(*l, 0, sizeof **l);
  (*l)->kind = kind;
  (*l)->op_index = c->op;
  (*l)->in = in;
  (*l)->out = out;
  return TSR_OK;
}

/* A constant tensor's data, checked to be `type` with `count` elements of `esize` bytes. */
tsr_status_t tsr_nc_const_data(cc_t *c, const tsr_tflite_tensor_t *t, const char *what,
                               size_t count, size_t esize, const uint8_t **data) {
  tsr_tflite_buffer_t b;
  if (tsr_tflite_buffer(c->m, t->buffer, &b, c->err, c->errlen) != TSR_TFLITE_OK) {
    return TSR_BAD_ARG;
  }
  if (b.size != count * esize) {
    tsr_lib_err(c->err, c->errlen, "%s: the %s hold %zu bytes, not %zu (not constant?)",
                c->opname, what, b.size, count * esize);
    return TSR_UNSUPPORTED;
  }
  *data = b.data;
  return TSR_OK;
}

/* TFLite's CalculateActivationRangeQuantized for int8. */
static tsr_status_t act_range(cc_t *c, int32_t act, float scale, int32_t zp, int32_t *lo,
                              int32_t *hi) {
  *lo = -128;
  *hi = 127;
  if (act == TSR_TFLITE_ACT_NONE) {
    return TSR_OK;
  }
  if (act != TSR_TFLITE_ACT_RELU && act != TSR_TFLITE_ACT_RELU6) {
    char what[48];
    snprintf(what, sizeof what, "fused activation %" PRId32, act);
    return tsr_nc_unsupported(c, what);
  }
  const int32_t z = zp + (int32_t)roundf(0.0f / scale);
  *lo = z > -128 ? z : -128;
  if (act == TSR_TFLITE_ACT_RELU6) {
    const float q6 = roundf(6.0f / scale);
    const int32_t s6 = q6 > 1e6f ? 1000000 : zp + (int32_t)q6;
    *hi = s6 < 127 ? s6 : 127;
  }
  return TSR_OK;
}

/* gemm_layer with B `bt` of bt_bytes (several jobs' B) and the bias (fold_n output channels)
 * folded with the columns of fold_b (fold_k x fold_n): a depthwise convolution's; fold_b NULL:
 * no folding (an average pool sums the raw values). */
tsr_status_t tsr_nc_gemm_layer_folded(cc_t *c, uint32_t kind, uint32_t in, uint32_t out,
                                      uint32_t m, uint32_t k, uint32_t n, const int8_t *bt,
                                      size_t bt_bytes, uint32_t fold_k, uint32_t fold_n,
                                      const int8_t *fold_b, const uint8_t *bdata,
                                      const tsr_tflite_tensor_t *w, int32_t act,
                                      tsr_net_layer_t **lp) {
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  const float a_scale = x->scale;
  const int32_t a_zp = x->zp;
  const float y_scale = c->p->tensors[out].scale;
  const int32_t y_zp = c->p->tensors[out].zp;
  tsr_status_t st = TSR_OK;
  int32_t *bias = calloc(fold_n, sizeof *bias);
  int32_t *mult = calloc(fold_n, sizeof *mult);
  int32_t *shift = calloc(fold_n, sizeof *shift);
  double *ws = calloc(w->scale.count, sizeof *ws);
  if (bias == NULL || mult == NULL || shift == NULL || ws == NULL) {
    st = tsr_nc_oom(c);
    goto out;
  }
  for (uint32_t j = 0; j < fold_n && bdata != NULL; j++) {
    memcpy(&bias[j], bdata + 4u * j, 4u);
  }
  for (uint32_t i = 0; i < w->scale.count; i++) {
    ws[i] = (double)tsr_tflite_f32(w->scale, i);
  }
  char why[TESSERA_ERRLEN];
  if ((fold_b != NULL &&
       tessera_gemm_fold_a_zp(fold_k, fold_n, fold_b, bias, a_zp, bias, why, sizeof why) != TSR_OK) ||
      tessera_gemm_quantize_scales(fold_n, (double)a_scale, ws, w->scale.count, (double)y_scale, mult,
                                   shift, why, sizeof why) != TSR_OK) {
    tsr_lib_err(c->err, c->errlen, "%s: %s", c->opname, why);
    st = TSR_UNSUPPORTED;
    goto out;
  }
  tsr_net_layer_t *l = NULL;
  if ((st = new_layer(c, kind, in, out, &l)) != TSR_OK) {
    goto out;
  }
  *lp = l;
  l->m = m;
  l->k = k;
  l->n = n;
  l->a_zp = a_zp;
  l->out_zp = y_zp;
  l->per_channel = w->scale.count > 1u;
  l->mult = mult[0];
  l->shift = shift[0];
  if ((st = act_range(c, act, y_scale, y_zp, &l->act_min, &l->act_max)) != TSR_OK ||
      (st = blob_add(c, bt, bt_bytes, &l->b_off)) != TSR_OK ||
      (st = blob_add(c, bias, 4u * fold_n, &l->bias_off)) != TSR_OK) {
    goto out;
  }
  if (l->per_channel && ((st = blob_add(c, mult, 4u * fold_n, &l->mult_off)) != TSR_OK ||
                         (st = blob_add(c, shift, 4u * fold_n, &l->shift_off)) != TSR_OK)) {
    goto out;
  }
out:
  free(bias);
  free(mult);
  free(shift);
  free(ws);
  return st;
}

/* The layer of a GEMM C (m, n) = A (m, k) x B (k, n) from tensor `in` to `out` with B `bt`
 * (the chip's layout), the int32 bias `bdata` (n, or NULL) with the input zero point folded
 * in, the multipliers from the scales of `w` and the fused activation `act`. */
static tsr_status_t gemm_layer(cc_t *c, uint32_t kind, uint32_t in, uint32_t out, uint32_t m,
                               uint32_t k, uint32_t n, const int8_t *bt, const uint8_t *bdata,
                               const tsr_tflite_tensor_t *w, int32_t act, tsr_net_layer_t **lp) {
  return tsr_nc_gemm_layer_folded(c, kind, in, out, m, k, n, bt, (size_t)k * n, k, n, bt, bdata, w, act,
                           lp);
}

/* The weights of a FULLY_CONNECTED (rank 2, shape[0] = N), CONV_2D (rank 4, shape[0] =
 * output channels) or DEPTHWISE_CONV_2D (rank 4, shape[3] = output channels; axis 3):
 * constant int8, symmetric, per tensor or per output channel; and the constant int32 bias
 * (or none). */
tsr_status_t tsr_nc_weights_and_bias(cc_t *c, const tsr_tflite_op_t *op, uint32_t rank,
                                     uint32_t axis, tsr_tflite_tensor_t *w, const uint8_t **wdata,
                                     const uint8_t **bdata) {
  const int32_t wi = tsr_tflite_i32(op->inputs, 1);
  const int32_t bi = op->inputs.count > 2u ? tsr_tflite_i32(op->inputs, 2) : -1;
  tsr_tflite_tensor_t b;
  if (op->inputs.count < 2u || wi < 0 || c->map[wi] >= 0 ||
      tsr_tflite_tensor(c->m, (uint32_t)wi, w, c->err, c->errlen) != TSR_TFLITE_OK) {
    return tsr_nc_unsupported(c, "weights that are not a constant tensor");
  }
  uint64_t count = 1;
  bool shape_ok = w->rank == rank;
  for (uint32_t d = 0; d < w->rank && shape_ok; d++) {
    shape_ok = w->shape[d] >= 1 && w->shape[d] <= (1 << 24);
    count *= shape_ok ? (uint64_t)w->shape[d] : 1u;
  }
  if (w->type != TSR_TFLITE_INT8 || !shape_ok || !w->has_quant || count > (1u << 28)) {
    return tsr_nc_unsupported(c, rank == 2u   ? "weights that are not quantized int8 (N, K)"
                          : axis == 0u ? "weights that are not quantized int8 (O, KH, KW, I)"
                                       : "weights that are not quantized int8 (1, KH, KW, O)");
  }
  const uint32_t n = (uint32_t)w->shape[axis];
  if (w->scale.count != 1u && (w->scale.count != n || w->quantized_dimension != (int32_t)axis)) {
    return tsr_nc_unsupported(c, "a weight quantization that is neither per tensor nor per output channel");
  }
  for (uint32_t i = 0; i < w->zero_point.count; i++) {
    if (tsr_tflite_i64(w->zero_point, i) != 0) {
      return tsr_nc_unsupported(c, "asymmetric weights (a non-zero weight zero point)");
    }
  }
  tsr_status_t st = tsr_nc_const_data(c, w, "weights", (size_t)count, 1u, wdata);
  if (st != TSR_OK) {
    return st;
  }
  *bdata = NULL;
  if (bi >= 0) {
    if (c->map[bi] >= 0 ||
        tsr_tflite_tensor(c->m, (uint32_t)bi, &b, c->err, c->errlen) != TSR_TFLITE_OK ||
        b.type != TSR_TFLITE_INT32) {
      return tsr_nc_unsupported(c, "a bias that is not a constant int32 tensor");
    }
    return tsr_nc_const_data(c, &b, "bias", n, 4u, bdata);
  }
  return TSR_OK;
}

static tsr_status_t compile_fc(cc_t *c, const tsr_tflite_op_t *op) {
  /* keep_num_dims only changes the output's shape (rows of N either way); the element count
   * is checked below. */
  const tsr_tflite_fc_opts_t *o = &op->opt.fc;
  if (op->options_decoded && o->weights_format != 0) {
    return tsr_nc_unsupported(c, "a shuffled weights format");
  }
  uint32_t in = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK) {
    return st;
  }
  tsr_tflite_tensor_t w;
  const uint8_t *wdata = NULL;
  const uint8_t *bdata = NULL;
  if ((st = tsr_nc_weights_and_bias(c, op, 2u, 0u, &w, &wdata, &bdata)) != TSR_OK) {
    return st;
  }
  const uint32_t n = (uint32_t)w.shape[0];
  const uint32_t k = (uint32_t)w.shape[1];
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  if (x->elems % k != 0u) {
    tsr_lib_err(c->err, c->errlen, "%s: the input's %u elements are not rows of K = %u", c->opname,
                x->elems, k);
    return TSR_UNSUPPORTED;
  }
  const uint32_t m = x->elems / k;
  uint32_t out = 0;
  if ((st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  if (y->elems != m * n) {
    tsr_lib_err(c->err, c->errlen, "%s: the output has %u elements, not %u x %u", c->opname,
                y->elems, m, n);
    return TSR_UNSUPPORTED;
  }
  /* B (k, n) = W^T. */
  int8_t *bt = malloc((size_t)k * n);
  if (bt == NULL) {
    return tsr_nc_oom(c);
  }
  for (uint32_t j = 0; j < n; j++) {
    for (uint32_t i = 0; i < k; i++) {
      bt[(size_t)i * n + j] = (int8_t)wdata[(size_t)j * k + i];
    }
  }
  tsr_net_layer_t *l = NULL;
  st = gemm_layer(c, TSR_NET_GEMM, in, out, m, k, n, bt, bdata, &w,
                  op->options_decoded ? o->fused_activation : 0, &l);
  free(bt);
  return st;
}

/* A program tensor that no .tflite tensor is: an operand's transposed copy, a scratch area. */
static tsr_status_t add_internal(cc_t *c, uint32_t rank, const uint32_t *shape, float scale,
                                 int32_t zp, uint32_t *id) {
  if (c->p->n_tensors == c->cap_t) {
    c->cap_t = c->cap_t ? 2u * c->cap_t : 8u;
    tsr_net_tensor_t *nt = realloc(c->p->tensors, c->cap_t * sizeof *nt);
    if (nt == NULL) {
      return tsr_nc_oom(c);
    }
    c->p->tensors = nt;
  }
  tsr_net_tensor_t *x = &c->p->tensors[c->p->n_tensors];
  memset(x, 0, sizeof *x);
  x->type = TSR_NET_INT8;
  x->rank = rank;
  x->elems = 1u;
  for (uint32_t d = 0; d < rank; d++) {
    x->shape[d] = shape[d];
    x->elems *= shape[d];
  }
  x->scale = scale;
  x->zp = zp;
  x->alias = c->p->n_tensors;
  x->dev_off = TSR_NET_HOST_ONLY;
  *id = c->p->n_tensors++;
  return TSR_OK;
}

/* A COPY layer in -> out, output axis d = input axis perm[d]. */
static tsr_status_t copy_layer(cc_t *c, uint32_t in, uint32_t out, const uint32_t *perm) {
  tsr_net_layer_t *l = NULL;
  tsr_status_t st = new_layer(c, TSR_NET_COPY, in, out, &l);
  for (uint32_t d = 0; st == TSR_OK && d < c->p->tensors[in].rank; d++) {
    l->perm |= perm[d] << (8u * d);
  }
  return st;
}

/* A new tensor holding `in` with its last two axes swapped, and the COPY layer that makes it. */
static tsr_status_t swapped_copy(cc_t *c, uint32_t in, uint32_t *out) {
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  uint32_t perm[TSR_NET_MAX_RANK], shape[TSR_NET_MAX_RANK];
  const uint32_t r = x->rank;
  for (uint32_t d = 0; d < r; d++) {
    perm[d] = d < r - 2u ? d : (d == r - 2u ? r - 1u : r - 2u);
    shape[d] = x->shape[perm[d]];
  }
  tsr_status_t st = add_internal(c, r, shape, x->scale, x->zp, out);
  return st == TSR_OK ? copy_layer(c, in, *out, perm) : st;
}

/* TRANSPOSE: a permutation of up to four axes. One that keeps the order of every axis longer
 * than 1 moves no byte: its output aliases the input (as RESHAPE). */
static tsr_status_t compile_transpose(cc_t *c, const tsr_tflite_op_t *op) {
  uint32_t in = 0;
  uint32_t out = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK) {
    return st;
  }
  const uint32_t r = c->p->tensors[in].rank;
  const int32_t pi = op->inputs.count > 1u ? tsr_tflite_i32(op->inputs, 1) : -1;
  tsr_tflite_tensor_t pt;
  const uint8_t *pd = NULL;
  if (pi < 0 || c->map[pi] >= 0 ||
      tsr_tflite_tensor(c->m, (uint32_t)pi, &pt, c->err, c->errlen) != TSR_TFLITE_OK ||
      pt.type != TSR_TFLITE_INT32) {
    return tsr_nc_unsupported(c, "a permutation that is not a constant int32 tensor");
  }
  if ((st = tsr_nc_const_data(c, &pt, "permutation", r, 4u, &pd)) != TSR_OK ||
      (st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  tsr_net_tensor_t *x = &c->p->tensors[in];
  tsr_net_tensor_t *y = &c->p->tensors[out];
  uint32_t perm[TSR_NET_MAX_RANK];
  uint32_t seen = 0u;
  bool moves = false;
  int64_t last = -1;
  for (uint32_t d = 0; d < r; d++) {
    int32_t v;
    memcpy(&v, pd + 4u * d, 4u);
    if (v < 0 || (uint32_t)v >= r || (seen & (1u << v)) != 0u) {
      return tsr_nc_unsupported(c, "a permutation that is not one of the input's axes");
    }
    seen |= 1u << v;
    perm[d] = (uint32_t)v;
    if (x->shape[v] > 1u) {
      moves = moves || v < last;
      last = v;
    }
  }
  bool same = y->rank == r && y->scale == x->scale && y->zp == x->zp;
  for (uint32_t d = 0; d < r && same; d++) {
    same = y->shape[d] == x->shape[perm[d]];
  }
  if (!same) {
    return tsr_nc_unsupported(c, "an output that is not the permuted input (shape or quantization)");
  }
  if (!moves) {
    y->alias = x->alias;
    tsr_net_layer_t *l = NULL;
    return new_layer(c, TSR_NET_RESHAPE, in, out, &l);
  }
  return copy_layer(c, in, out, perm);
}

/* CONCATENATION: each input a COPY layer into its slice of the output (rows of the axis and
 * everything after it). TFLite Micro takes int8 inputs quantized as the output only, and no
 * fused activation. */
static tsr_status_t compile_concat(cc_t *c, const tsr_tflite_op_t *op) {
  const uint32_t n_in = op->inputs.count;
  uint32_t ins[16];
  if (n_in < 1u || n_in > 16u) {
    return tsr_nc_unsupported(c, "a concatenation of more than 16 inputs");
  }
  tsr_status_t st = TSR_OK;
  for (uint32_t i = 0; i < n_in; i++) {
    if ((st = tsr_nc_known_input(c, op, i, TSR_NET_INT8, &ins[i])) != TSR_OK) {
      return st;
    }
  }
  if (op->options_decoded && op->opt.concat.fused_activation != TSR_TFLITE_ACT_NONE) {
    return tsr_nc_unsupported(c, "a fused activation");
  }
  uint32_t out = 0;
  if ((st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  const int32_t axis_raw = op->options_decoded ? op->opt.concat.axis : 0;
  const int32_t axis = axis_raw < 0 ? axis_raw + (int32_t)y->rank : axis_raw;
  if (axis < 0 || axis >= (int32_t)y->rank) {
    return tsr_nc_unsupported(c, "an axis outside the output's rank");
  }
  uint32_t outer = 1u, inner = 1u, total = 0u;
  for (uint32_t d = 0; d < y->rank; d++) {
    outer *= d < (uint32_t)axis ? y->shape[d] : 1u;
    inner *= d > (uint32_t)axis ? y->shape[d] : 1u;
  }
  for (uint32_t i = 0; i < n_in; i++) {
    const tsr_net_tensor_t *x = &c->p->tensors[ins[i]];
    bool ok = x->rank == y->rank;
    for (uint32_t d = 0; d < y->rank && ok; d++) {
      ok = d == (uint32_t)axis || x->shape[d] == y->shape[d];
    }
    if (!ok) {
      return tsr_nc_unsupported(c, "inputs whose shapes differ off the axis");
    }
    if (x->scale != y->scale || x->zp != y->zp) {
      return tsr_nc_unsupported(c, "an input quantized unlike the output (TFLite Micro requires the same)");
    }
    total += x->shape[axis];
  }
  if (total != y->shape[axis]) {
    return tsr_nc_unsupported(c, "an output that is not the inputs' concatenation");
  }
  uint32_t off = 0u;
  for (uint32_t i = 0; i < n_in; i++) {
    const uint32_t len = c->p->tensors[ins[i]].shape[axis] * inner;
    tsr_net_layer_t *l = NULL;
    if ((st = new_layer(c, TSR_NET_COPY, ins[i], out, &l)) != TSR_OK) {
      return st;
    }
    l->rows = outer;
    l->len = len;
    l->k = off;
    l->n = total * inner;
    off += len;
  }
  return TSR_OK;
}

/* MUL and MAX_POOL_2D with allow_host: a HOST layer (the runtime calls the golden model). The
 * parameters are TFLite Micro's: MUL's multiplier in1_scale * in2_scale / out_scale, MAX_POOL's
 * output quantized as its input. */
static tsr_status_t compile_host(cc_t *c, const tsr_tflite_op_t *op, bool on_chip) {
  const bool mul = op->builtin_code == TSR_TFLITE_OP_MUL;
  uint32_t in = 0, in2 = 0, out = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK || (mul && (st = tsr_nc_known_input(c, op, 1, TSR_NET_INT8, &in2)) != TSR_OK) ||
      (st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  tsr_net_layer_t *l = NULL;
  int32_t lo = -128, hi = 127, mult = 0, shift = 0;
  if (mul) {
    const tsr_net_tensor_t *x2 = &c->p->tensors[in2];
    bool ok = x->rank <= y->rank && x2->rank <= y->rank;
    for (uint32_t d = 0; d < y->rank && ok; d++) {
      const uint32_t o1 = y->rank - x->rank, o2 = y->rank - x2->rank;
      const uint32_t a = d >= o1 ? x->shape[d - o1] : 1u, b = d >= o2 ? x2->shape[d - o2] : 1u;
      ok = (a == 1u || a == y->shape[d]) && (b == 1u || b == y->shape[d]);
    }
    if (!ok) {
      return tsr_nc_unsupported(c, "inputs that do not broadcast to the output");
    }
    const double s2 = (double)x2->scale;
    char why[TESSERA_ERRLEN];
    if (tessera_gemm_quantize_scales(1u, (double)x->scale, &s2, 1u, (double)y->scale, &mult, &shift,
                                     why, sizeof why) != TSR_OK) {
      tsr_lib_err(c->err, c->errlen, "%s: %s", c->opname, why);
      return TSR_UNSUPPORTED;
    }
    if ((st = act_range(c, op->options_decoded ? op->opt.mul.fused_activation : 0, y->scale, y->zp,
                        &lo, &hi)) != TSR_OK) {
      return st;
    }
  } else {
    const tsr_tflite_pool_opts_t *o = &op->opt.pool;
    if (!op->options_decoded || x->rank != 4u || y->rank != 4u || o->filter_h < 1 ||
        o->filter_w < 1 || o->stride_h < 1 || o->stride_w < 1 || o->filter_h > 255 ||
        o->filter_w > 255 || o->stride_h > 255 || o->stride_w > 255) {
      return tsr_nc_unsupported(c, "a pool that is not NHWC with filters and strides 1..255");
    }
    if (y->scale != x->scale || y->zp != x->zp) {
      return tsr_nc_unsupported(c, "an output quantized unlike the input");
    }
    /* TFLite's output size and padding (ComputePaddingHeightWidth). */
    const uint32_t sh = (uint32_t)o->stride_h, sw = (uint32_t)o->stride_w;
    const uint32_t fh = (uint32_t)o->filter_h, fw = (uint32_t)o->filter_w;
    const bool same = o->padding == TSR_TFLITE_PADDING_SAME;
    const uint32_t oh = same ? (x->shape[1] + sh - 1u) / sh
                             : (x->shape[1] >= fh ? (x->shape[1] - fh) / sh + 1u : 0u);
    const uint32_t ow = same ? (x->shape[2] + sw - 1u) / sw
                             : (x->shape[2] >= fw ? (x->shape[2] - fw) / sw + 1u : 0u);
    if (oh != y->shape[1] || ow != y->shape[2] || x->shape[0] != y->shape[0] ||
        x->shape[3] != y->shape[3]) {
      return tsr_nc_unsupported(c, "an output shape other than TFLite's for this pool");
    }
    const int64_t th = (int64_t)(oh - 1u) * sh + fh - x->shape[1];
    const int64_t tw = (int64_t)(ow - 1u) * sw + fw - x->shape[2];
    const uint32_t taps = fh * fw;
    const uint32_t ch = y->shape[3];
    if (on_chip && (uint64_t)taps * ch > 65535u) {
      return tsr_nc_unsupported(c, "a window of more than 65535 taps x channels");
    }
    if ((st = act_range(c, o->fused_activation, y->scale, y->zp, &lo, &hi)) != TSR_OK) {
      return st;
    }
    if (on_chip) {
      /* The scratch: the gathered windows, then the REDUCE results; the blob: a row of -128
       * per pixel (the padded taps) and the clamp table. */
      tsr_net_layer_t probe;
      memset(&probe, 0, sizeof probe);
      probe.rows = y->elems;
      probe.len = taps;
      const uint32_t sshape[1] = {tsr_net_maxpool_red_off(&probe) + 12u * y->elems};
      uint32_t scratch = 0, neg_off = 0, lut_off = 0;
      int8_t table[256];
      for (int v = 0; v < 256; v++) {
        const int32_t q = (int8_t)(uint8_t)v;
        table[v] = (int8_t)(q < lo ? lo : q > hi ? hi : q);
      }
      int8_t *neg = malloc((size_t)taps * ch);
      if (neg == NULL) {
        return tsr_nc_oom(c);
      }
      memset(neg, 0x80, (size_t)taps * ch);
      st = blob_add(c, neg, (size_t)taps * ch, &neg_off);
      free(neg);
      if (st != TSR_OK || (st = blob_add(c, table, sizeof table, &lut_off)) != TSR_OK ||
          (st = add_internal(c, 1u, sshape, 1.0f, 0, &scratch)) != TSR_OK ||
          (st = new_layer(c, TSR_NET_MAXPOOL, in, out, &l)) != TSR_OK) {
        return st;
      }
      l->in3 = scratch;
      l->rows = c->p->tensors[out].elems;
      l->len = taps;
      l->param_off = neg_off;
      l->bias_off = lut_off;
    } else if ((st = new_layer(c, TSR_NET_HOST, in, out, &l)) != TSR_OK) {
      return st;
    }
    l->kh = fh;
    l->kw = fw;
    l->stride_h = sh;
    l->stride_w = sw;
    l->pad_t = th > 0 ? (uint32_t)(th / 2) : 0u;
    l->pad_l = tw > 0 ? (uint32_t)(tw / 2) : 0u;
  }
  if (l == NULL && (st = new_layer(c, TSR_NET_HOST, in, out, &l)) != TSR_OK) {
    return st;
  }
  if (l->kind == TSR_NET_HOST) {
    l->rows = (uint32_t)op->builtin_code;
  }
  l->in2 = in2;
  l->mult = mult;
  l->shift = shift;
  l->out_zp = y->zp;
  l->act_min = lo;
  l->act_max = hi;
  return TSR_OK;
}

/* BATCH_MATMUL of two int8 activations: one GEMM per output batch (tsr_net_prog.h, TSR_NET_BMM).
 * An adjoint operand is first transposed by a COPY layer into a tensor of its own. TFLite's
 * kernel computes sum_k (a - za) (b - zb); the chip adds a bias per column, so -za * colsum(B)
 * is computed on the chip (a GEMM of m = 1) and zb must be 0: its term -zb * rowsum(A) would be
 * one per row. */
static tsr_status_t compile_bmm(cc_t *c, const tsr_tflite_op_t *op) {
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t out = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &a);
  if (st != TSR_OK || (st = tsr_nc_known_input(c, op, 1, TSR_NET_INT8, &b)) != TSR_OK) {
    return st;
  }
  const bool adj_x = op->options_decoded && op->opt.bmm.adj_x;
  const bool adj_y = op->options_decoded && op->opt.bmm.adj_y;
  if (c->p->tensors[a].rank < 2u || c->p->tensors[b].rank < 2u) {
    return tsr_nc_unsupported(c, "an operand of rank 1");
  }
  const bool host = c->p->tensors[b].zp != 0;
  if (host && !c->allow_host) {
    return tsr_nc_unsupported(c, "a right-hand operand with a zero point other than 0");
  }
  if ((st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK ||
      (adj_x && (st = swapped_copy(c, a, &a)) != TSR_OK) ||
      (adj_y && (st = swapped_copy(c, b, &b)) != TSR_OK)) {
    return st;
  }
  const tsr_net_tensor_t *x = &c->p->tensors[a];
  const tsr_net_tensor_t *w = &c->p->tensors[b];
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  const uint32_t m = x->shape[x->rank - 2u], k = x->shape[x->rank - 1u];
  const uint32_t n = w->shape[w->rank - 1u];
  bool ok = w->shape[w->rank - 2u] == k && y->rank >= 2u && y->rank >= x->rank &&
            y->rank >= w->rank && y->shape[y->rank - 2u] == m && y->shape[y->rank - 1u] == n;
  for (uint32_t d = 0; ok && d + 2u < y->rank; d++) {
    const uint32_t o = y->rank - x->rank, o2 = y->rank - w->rank;
    const uint32_t da = d >= o ? x->shape[d - o] : 1u, db = d >= o2 ? w->shape[d - o2] : 1u;
    ok = (da == y->shape[d] || da == 1u) && (db == y->shape[d] || db == 1u) &&
         (da == y->shape[d] || db == y->shape[d]);
  }
  if (!ok) {
    return tsr_nc_unsupported(c, "operand and output shapes that do not multiply (batch broadcast)");
  }
  int32_t mult = 0, shift = 0;
  const double ws = (double)w->scale;
  char why[TESSERA_ERRLEN];
  if (tessera_gemm_quantize_scales(1u, (double)x->scale, &ws, 1u, (double)y->scale, &mult, &shift,
                                   why, sizeof why) != TSR_OK) {
    tsr_lib_err(c->err, c->errlen, "%s: %s", c->opname, why);
    return TSR_UNSUPPORTED;
  }
  const int32_t za = x->zp;
  uint32_t scratch = 0;
  if (host) {
    /* --allow-host: the whole product on the host (the golden model), after the chip's COPYs. */
    tsr_net_layer_t *hl = NULL;
    if ((st = new_layer(c, TSR_NET_HOST, a, out, &hl)) != TSR_OK) {
      return st;
    }
    hl->rows = (uint32_t)TSR_TFLITE_OP_BATCH_MATMUL;
    hl->in2 = b;
    hl->m = m;
    hl->k = k;
    hl->n = n;
    hl->a_zp = za;
    hl->mult = mult;
    hl->shift = shift;
    hl->out_zp = c->p->tensors[out].zp;
    hl->act_min = -128;
    hl->act_max = 127;
    return TSR_OK;
  }
  if (za != 0) {
    const uint32_t sshape[1] = {8u * n};
    if ((st = add_internal(c, 1u, sshape, 1.0f, 0, &scratch)) != TSR_OK) {
      return st;
    }
  }
  tsr_net_layer_t *l = NULL;
  if ((st = new_layer(c, TSR_NET_BMM, a, out, &l)) != TSR_OK) {
    return st;
  }
  l->in2 = b;
  l->in3 = scratch;
  l->m = m;
  l->k = k;
  l->n = n;
  l->a_zp = za;
  l->mult = mult;
  l->shift = shift;
  l->out_zp = c->p->tensors[out].zp;
  l->act_min = -128;
  l->act_max = 127;
  int32_t *zeros = calloc(n, sizeof *zeros);
  int8_t *rows = malloc(2u * (size_t)k);
  if (zeros == NULL || rows == NULL) {
    free(zeros);
    free(rows);
    return tsr_nc_oom(c);
  }
  const int32_t v1 = -za > 127 ? 127 : -za;
  memset(rows, (int)(int8_t)v1, k);
  memset(rows + k, 1, k);
  uint32_t zoff = 0, roff = 0;
  st = blob_add(c, zeros, 4u * (size_t)n, &zoff);
  if (st == TSR_OK && za != 0) {
    st = blob_add(c, rows, 2u * (size_t)k, &roff);
  }
  free(zeros);
  free(rows);
  /* blob_add may have moved nothing but the blob; the layer pointer still holds. */
  l = &c->p->layers[c->p->n_layers - 1u];
  l->bias_off = zoff;
  l->param_off = roff;
  return st;
}

static tsr_status_t compile_softmax(cc_t *c, const tsr_tflite_op_t *op) {
  uint32_t in = 0;
  uint32_t out = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK || (st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  if (y->scale != 1.0f / 256.0f || y->zp != -128) {
    return tsr_nc_unsupported(c, "an output quantization other than scale 1/256, zero point -128");
  }
  if (y->elems != x->elems) {
    return tsr_nc_unsupported(c, "an output shape unlike the input's");
  }
  const float beta = op->options_decoded ? op->opt.softmax.beta : 1.0f;
  tsr_softmax_params_t sp;
  if (tsr_softmax_prepare(beta, x->scale, &sp) != 0) {
    char what[96];
    snprintf(what, sizeof what, "beta %g with input scale %g", (double)beta, (double)x->scale);
    return tsr_nc_unsupported(c, what);
  }
  tsr_net_layer_t *l = NULL;
  if ((st = new_layer(c, TSR_NET_SOFTMAX, in, out, &l)) != TSR_OK) {
    return st;
  }
  l->len = x->shape[x->rank - 1u];
  l->rows = x->elems / l->len;
  l->beta = beta;
  if (l->len > TSR_SFU_LEN_MAX) {
    return tsr_nc_unsupported(c, "a row longer than 65535");
  }
  const int32_t words[TSR_SOFTMAX_PARAM_WORDS] = {sp.mult, sp.left_shift, sp.diff_min};
  return blob_add(c, words, sizeof words, &l->param_off);
}

/* The rows x len an SFU job takes `elems` elements as: the longest row (up to 1024, so that a
 * block of rows fits the scratchpad) that divides the count. */
static void sfu_rows(uint32_t elems, uint32_t *rows, uint32_t *len) {
  uint32_t l = elems < 1024u ? elems : 1024u;
  while (elems % l != 0u) {
    l--;
  }
  *len = l;
  *rows = elems / l;
}

/* ADD and MUL of two int8 tensors of one shape: one SFU job (ADD or MUL) with the parameter
 * block of TFLite's Prepare in the blob. A MUL whose inputs broadcast, or any MUL on a target
 * without an SFU, runs on the host with allow_host (compile_host). */
static tsr_status_t compile_eltwise(cc_t *c, const tsr_tflite_op_t *op) {
  const bool mul = op->builtin_code == TSR_TFLITE_OP_MUL;
  uint32_t in = 0;
  uint32_t in2 = 0;
  uint32_t out = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK || (st = tsr_nc_known_input(c, op, 1, TSR_NET_INT8, &in2)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *a = &c->p->tensors[in];
  const tsr_net_tensor_t *b = &c->p->tensors[in2];
  bool same = a->rank == b->rank;
  for (uint32_t d = 0; d < a->rank && same; d++) {
    same = a->shape[d] == b->shape[d];
  }
  if (mul && (!same || !c->p->target.has_sfu)) {
    if (c->allow_host) {
      return compile_host(c, op, false);
    }
    return tsr_nc_unsupported(c, !same ? "a MUL whose inputs broadcast (--allow-host runs it on the"
                                         " host)"
                                       : "MUL on a target without an SFU (--allow-host runs it on the"
                                         " host)");
  }
  if (!same) {
    return tsr_nc_unsupported(c, "inputs of different shapes (broadcasting)");
  }
  if ((st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  a = &c->p->tensors[in];
  b = &c->p->tensors[in2];
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  if (y->elems != a->elems) {
    return tsr_nc_unsupported(c, "an output shape unlike the inputs'");
  }
  tsr_add_params_t ap;
  tsr_mul_params_t mp;
  if (mul ? tsr_mul_prepare(a->scale, a->zp, b->scale, b->zp, y->scale, y->zp, &mp) != 0
          : tsr_add_prepare(a->scale, a->zp, b->scale, b->zp, y->scale, y->zp, &ap) != 0) {
    return tsr_nc_unsupported(c, "these input and output scales (the output multiplier overflows)");
  }
  tsr_net_layer_t *l = NULL;
  if ((st = new_layer(c, mul ? TSR_NET_MUL : TSR_NET_ADD, in, out, &l)) != TSR_OK) {
    return st;
  }
  l->in2 = in2;
  l->a_zp = a->zp;
  l->out_zp = y->zp;
  sfu_rows(a->elems, &l->rows, &l->len);
  const int32_t fused = !op->options_decoded ? 0
                        : mul                ? op->opt.mul.fused_activation
                                             : op->opt.add.fused_activation;
  if ((st = act_range(c, fused, y->scale, y->zp, &l->act_min, &l->act_max)) != TSR_OK) {
    return st;
  }
  if (mul) {
    mp.act_min = l->act_min;
    mp.act_max = l->act_max;
    const int32_t words[TSR_MUL_PARAM_WORDS] = {mp.in1_offset, mp.in2_offset, mp.out_mult,
                                                mp.out_shift,  mp.out_offset, mp.act_min,
                                                mp.act_max};
    return blob_add(c, words, sizeof words, &l->param_off);
  }
  ap.act_min = l->act_min;
  ap.act_max = l->act_max;
  const int32_t words[TSR_ADD_PARAM_WORDS] = {ap.in1_offset, ap.in1_mult,  ap.in1_shift, ap.in2_offset,
                                              ap.in2_mult,   ap.in2_shift, ap.out_mult,  ap.out_shift,
                                              ap.out_offset, ap.act_min,   ap.act_max};
  return blob_add(c, words, sizeof words, &l->param_off);
}

/* LOGISTIC, TANH, HARD_SWISH, RELU, RELU6: an int8 function of one byte, so TFLite Micro's
 * kernel is exactly a 256-entry table (tsr_lut_*_tflm), applied by the SFU's MAP. */
static tsr_status_t compile_lut(cc_t *c, const tsr_tflite_op_t *op) {
  uint32_t in = 0;
  uint32_t out = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK || (st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  if (y->elems != x->elems) {
    return tsr_nc_unsupported(c, "an output shape unlike the input's");
  }
  int8_t table[256];
  int rc = -1;
  const char *need = "";
  switch (op->builtin_code) {
    case TSR_TFLITE_OP_LOGISTIC:
      rc = tsr_lut_logistic_tflm(x->scale, x->zp, y->scale, y->zp, table);
      need = " (TFLite requires scale 1/256, zero point -128)";
      break;
    case TSR_TFLITE_OP_TANH:
      rc = tsr_lut_tanh_tflm(x->scale, x->zp, y->scale, y->zp, table);
      need = " (TFLite requires scale 1/128, zero point 0)";
      break;
    case TSR_TFLITE_OP_HARD_SWISH:
      rc = tsr_lut_hard_swish_tflm(x->scale, x->zp, y->scale, y->zp, table);
      need = " (TFLite requires input scale / 128 <= output scale)";
      break;
    default:
      rc = tsr_lut_relu_tflm(op->builtin_code == TSR_TFLITE_OP_RELU6, x->scale, x->zp, y->scale,
                             y->zp, table);
      break;
  }
  if (rc != 0) {
    char what[160];
    snprintf(what, sizeof what, "input scale %g and output scale %g, zero point %" PRId32 "%s",
             (double)x->scale, (double)y->scale, y->zp, need);
    return tsr_nc_unsupported(c, what);
  }
  tsr_net_layer_t *l = NULL;
  if ((st = new_layer(c, TSR_NET_LUT, in, out, &l)) != TSR_OK) {
    return st;
  }
  l->len = x->shape[x->rank - 1u];
  l->rows = x->elems / l->len;
  if (l->len > TSR_SFU_LEN_MAX) {
    return tsr_nc_unsupported(c, "a last dimension longer than 65535");
  }
  return blob_add(c, table, sizeof table, &l->param_off);
}

static tsr_status_t compile_reshape(cc_t *c, const tsr_tflite_op_t *op) {
  uint32_t in = 0;
  uint32_t out = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK || (st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  tsr_net_tensor_t *x = &c->p->tensors[in];
  tsr_net_tensor_t *y = &c->p->tensors[out];
  if (y->elems != x->elems || y->scale != x->scale || y->zp != x->zp) {
    return tsr_nc_unsupported(c, "a reshape that changes the element count or the quantization");
  }
  y->alias = x->alias;
  tsr_net_layer_t *l = NULL;
  return new_layer(c, TSR_NET_RESHAPE, in, out, &l);
}

/* QUANTIZE of the float32 graph input, DEQUANTIZE to the float32 graph output. */
static tsr_status_t compile_edge(cc_t *c, const tsr_tflite_op_t *op, bool quantize) {
  const int32_t gin = tsr_tflite_i32(c->m->inputs, 0);
  const int32_t gout = tsr_tflite_i32(c->m->outputs, 0);
  uint32_t in = 0;
  uint32_t out = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, quantize ? TSR_NET_FLOAT32 : TSR_NET_INT8, &in);
  if (st != TSR_OK) {
    return st;
  }
  if (quantize ? tsr_tflite_i32(op->inputs, 0) != gin : tsr_tflite_i32(op->outputs, 0) != gout) {
    return tsr_nc_unsupported(c, quantize ? "QUANTIZE inside the graph (only of the graph input)"
                                   : "DEQUANTIZE inside the graph (only to the graph output)");
  }
  if ((st = tsr_nc_new_output(c, op, quantize ? TSR_NET_INT8 : TSR_NET_FLOAT32, &out)) != TSR_OK) {
    return st;
  }
  if (c->p->tensors[in].elems != c->p->tensors[out].elems) {
    return tsr_nc_unsupported(c, "an output shape unlike the input's");
  }
  tsr_net_layer_t *l = NULL;
  return new_layer(c, quantize ? TSR_NET_QUANTIZE : TSR_NET_DEQUANTIZE, in, out, &l);
}

static tsr_status_t compile_ops(cc_t *c) {
  const tsr_tflite_t *m = c->m;
  snprintf(c->opname, sizeof c->opname, "the graph");
  if (m->inputs.count != 1u || m->outputs.count != 1u) {
    tsr_lib_err(c->err, c->errlen,
                "the graph has %u inputs and %u outputs; one of each is supported", m->inputs.count,
                m->outputs.count);
    return TSR_UNSUPPORTED;
  }
  int32_t id = -1;
  tsr_status_t st = add_tensor(c, (uint32_t)tsr_tflite_i32(m->inputs, 0), &id);
  if (st != TSR_OK) {
    return st;
  }
  c->p->input = (uint32_t)id;
  for (c->op = 0; c->op < m->n_operators; c->op++) {
    tsr_tflite_op_t op;
    if (tsr_tflite_op(m, c->op, &op, c->err, c->errlen) != TSR_TFLITE_OK) {
      return TSR_BAD_ARG;
    }
    name_op(c, op.builtin_code);
    switch (op.builtin_code) {
      case TSR_TFLITE_OP_FULLY_CONNECTED:
        st = compile_fc(c, &op);
        break;
      case TSR_TFLITE_OP_CONV_2D:
        st = tsr_nc_compile_conv(c, &op);
        break;
      case TSR_TFLITE_OP_DEPTHWISE_CONV_2D:
        st = tsr_nc_compile_dwconv(c, &op);
        break;
      case TSR_TFLITE_OP_ADD:
        st = compile_eltwise(c, &op);
        break;
      case TSR_TFLITE_OP_AVERAGE_POOL_2D:
        st = tsr_nc_compile_avgpool(c, &op);
        break;
      case OP_MEAN:
        st = tsr_nc_compile_mean(c, &op);
        break;
      case OP_PAD:
        st = tsr_nc_compile_pad(c, &op);
        break;
      case OP_TRANSPOSE:
        st = compile_transpose(c, &op);
        break;
      case TSR_TFLITE_OP_CONCATENATION:
        st = compile_concat(c, &op);
        break;
      case TSR_TFLITE_OP_MAX_POOL_2D:
        if (c->p->target.has_sfu || !c->allow_host) {
          st = c->p->target.has_sfu ? compile_host(c, &op, true)
                                    : tsr_nc_unsupported(c, "a target without an SFU (MAX_POOL_2D uses"
                                                            " its REDUCE)");
          break;
        }
        st = compile_host(c, &op, false);
        break;
      case TSR_TFLITE_OP_MUL:
        st = compile_eltwise(c, &op);
        break;
      case TSR_TFLITE_OP_BATCH_MATMUL:
        st = compile_bmm(c, &op);
        break;
      case TSR_TFLITE_OP_SOFTMAX:
        st = compile_softmax(c, &op);
        break;
      case TSR_TFLITE_OP_RESHAPE:
        st = compile_reshape(c, &op);
        break;
      case TSR_TFLITE_OP_LOGISTIC:
      case TSR_TFLITE_OP_TANH:
      case TSR_TFLITE_OP_HARD_SWISH:
      case TSR_TFLITE_OP_RELU:
      case TSR_TFLITE_OP_RELU6:
        st = compile_lut(c, &op);
        break;
      case OP_QUANTIZE:
      case OP_DEQUANTIZE:
        st = compile_edge(c, &op, op.builtin_code == OP_QUANTIZE);
        break;
      default:
        tsr_lib_err(c->err, c->errlen, "%s is not supported (supported: %s)", c->opname,
                    TSR_NET_SUPPORTED);
        st = TSR_UNSUPPORTED;
        break;
    }
    if (st != TSR_OK) {
      return st;
    }
  }
  const int32_t out = c->map[tsr_tflite_i32(m->outputs, 0)];
  if (out < 0) {
    tsr_lib_err(c->err, c->errlen, "the graph output is not computed by any operator");
    return TSR_UNSUPPORTED;
  }
  c->p->output = (uint32_t)out;
  return TSR_OK;
}

/* A tensor with a border (the input of a padded CONV_2D) is read only by a convolution or
 * an ADD of NHWC tensors, written only by one of those or the host (the graph input,
 * QUANTIZE), and shares its storage with no other tensor. */
static tsr_status_t check_borders(cc_t *c) {
  const tsr_net_prog_t *p = c->p;
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    const tsr_net_tensor_t *x = &p->tensors[l->in];
    const tsr_net_tensor_t *y = &p->tensors[l->out];
    if (l->kind == TSR_NET_FUSED) { /* its producer writes the output (and is checked) */
      continue;
    }
    /* An ADD or MUL of NHWC tensors goes a row at a time when one of them has a border. */
    const bool nhwc_add = tsr_net_eltwise(l->kind) && x->rank == 4u && y->rank == 4u &&
                          memcmp(x->shape, y->shape, sizeof x->shape) == 0;
    const bool conv = l->kind == TSR_NET_CONV || l->kind == TSR_NET_DWCONV ||
                      l->kind == TSR_NET_MAXPOOL || nhwc_add;
    /* A HOST layer reads and writes dense host copies (the runtime moves the borders). */
    const bool host = l->kind == TSR_NET_HOST;
    const bool bad_in = !conv && !host && (tsr_net_padded(&p->tensors[x->alias]) ||
                                  (tsr_net_eltwise(l->kind) &&
                                   tsr_net_padded(&p->tensors[p->tensors[l->in2].alias])));
    const bool bad_out = !conv && !host && l->kind != TSR_NET_QUANTIZE &&
                         tsr_net_padded(&p->tensors[y->alias]);
    if (bad_in || bad_out) {
      tsr_tflite_op_t op;
      c->op = l->op_index;
      if (tsr_tflite_op(c->m, c->op, &op, c->err, c->errlen) != TSR_TFLITE_OK) {
        return TSR_BAD_ARG;
      }
      name_op(c, op.builtin_code);
      return tsr_nc_unsupported(c, bad_in ? "reading the input of a padded CONV_2D (it has a border)"
                                   : "writing the input of a padded CONV_2D (it needs a border)");
    }
  }
  return TSR_OK;
}

/* Whether layer l reads tensor root's storage (its input, second input or scratch). */
static bool layer_reads(const tsr_net_prog_t *p, const tsr_net_layer_t *l, uint32_t root) {
  return p->tensors[l->in].alias == root || (l->in2 != 0u && p->tensors[l->in2].alias == root) ||
         (l->in3 != 0u && p->tensors[l->in3].alias == root);
}

/* A LUT layer (LOGISTIC, TANH, HARD_SWISH, RELU, RELU6) whose input a GEMM, CONV or DWCONV
 * layer (FULLY_CONNECTED; CONV_2D; DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MEAN, PAD) writes and
 * nothing else reads goes into that layer's STOREs: they send each int8 result through the
 * table (the STORE's LUT flag, after the clamp), which is exactly the table of the clamped,
 * requantized value. The producer then writes the LUT's output; the LUT layer stays, as
 * FUSED, for the report; its input is never stored. Left out: BMM (one GEMM per batch after
 * the column sums, some into raw int32), and SFU layers (ADD, SOFTMAX, MAXPOOL), whose
 * results do not go through the output stage's table. */
static void fuse_luts(cc_t *c) {
  tsr_net_prog_t *p = c->p;
  for (uint32_t i = 0; i < p->n_layers && !c->no_fuse && p->target.has_sfu; i++) {
    tsr_net_layer_t *l = &p->layers[i];
    const uint32_t t = l->in;
    const tsr_net_tensor_t *x = &p->tensors[t];
    const tsr_net_tensor_t *y = &p->tensors[l->out];
    if (l->kind != TSR_NET_LUT || x->alias != t || t == p->input || t == p->output ||
        x->rank != y->rank || memcmp(x->shape, y->shape, sizeof x->shape) != 0) {
      continue;
    }
    /* The one layer that writes t, and no other reader of t (a RESHAPE of it reads it). */
    uint32_t prod = p->n_layers;
    bool other = false;
    for (uint32_t j = 0; j < p->n_layers; j++) {
      const tsr_net_layer_t *o = &p->layers[j];
      if (j != i && p->tensors[o->out].alias == t) {
        other = other || prod != p->n_layers;
        prod = j;
      }
      other = other || (j != i && layer_reads(p, o, t));
    }
    for (uint32_t k = 0; k < p->n_tensors; k++) {
      other = other || (k != t && p->tensors[k].alias == t);
    }
    if (other || prod > i ||
        (p->layers[prod].kind != TSR_NET_GEMM && p->layers[prod].kind != TSR_NET_CONV &&
         p->layers[prod].kind != TSR_NET_DWCONV) ||
        p->layers[prod].out != t || p->layers[prod].lut != 0u) {
      continue;
    }
    tsr_net_layer_t *pl = &p->layers[prod];
    pl->out = l->out;
    pl->lut = 1u;
    pl->param_off = l->param_off;
    l->kind = TSR_NET_FUSED;
    l->fused = prod;
    l->rows = 0u;
    l->len = 0u;
    l->param_off = 0u;
  }
}

/* A tensor's place in the arena while it is planned. */
typedef struct {
  uint32_t t, first, last; /* tensor index; its lifetime (tsr_net_lifetime) */
  uint64_t off, bytes;     /* arena offset; storage rounded up to the alignment */
} slot_t;

static int by_offset(const void *a, const void *b) {
  const slot_t *x = *(const slot_t *const *)a, *y = *(const slot_t *const *)b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Device storage: the blob first, then every int8 tensor that owns its storage, reused by
 * liveness: the largest first, each at the lowest offset where it overlaps no tensor placed
 * before whose lifetime overlaps its own (first fit by decreasing size). */
static tsr_status_t plan_arena(cc_t *c) {
  tsr_net_prog_t *p = c->p;
  const uint64_t base = tsr_lib_align_up(p->blob_bytes, TESSERA_MEM_ALIGN);
  slot_t *s = malloc((p->n_tensors + 1u) * sizeof *s);
  const slot_t **order = malloc((p->n_tensors + 1u) * sizeof *order);
  if (s == NULL || order == NULL) {
    free(s);
    free(order);
    tsr_lib_err(c->err, c->errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    const tsr_net_tensor_t *t = &p->tensors[i];
    if (t->type == TSR_NET_INT8 && t->alias == i && tsr_net_stored(p, i)) {
      slot_t v = {i, 0u, 0u, base, tsr_lib_align_up(tsr_net_storage_bytes(t), TESSERA_MEM_ALIGN)};
      tsr_net_lifetime(p, i, &v.first, &v.last);
      uint32_t j = n++; /* insertion by decreasing size; equal sizes keep tensor order */
      for (; j > 0u && s[j - 1u].bytes < v.bytes; j--) {
        s[j] = s[j - 1u];
      }
      s[j] = v;
    }
  }
  uint64_t at = base;
  for (uint32_t i = 0; i < n && at <= (1u << 30); i++) {
    /* The placed tensors live at the same time as this one, by offset; then the first gap. */
    uint32_t k = 0;
    for (uint32_t j = 0; j < i; j++) {
      if (s[j].first <= s[i].last && s[i].first <= s[j].last) {
        order[k++] = &s[j];
      }
    }
    qsort(order, k, sizeof *order, by_offset);
    for (uint32_t j = 0; j < k; j++) {
      if (order[j]->off < s[i].off + s[i].bytes && s[i].off < order[j]->off + order[j]->bytes) {
        s[i].off = order[j]->off + order[j]->bytes;
      }
    }
    p->tensors[s[i].t].dev_off = (uint32_t)s[i].off;
    at = s[i].off + s[i].bytes > at ? s[i].off + s[i].bytes : at;
  }
  free(order);
  free(s);
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    tsr_net_tensor_t *t = &p->tensors[i];
    t->dev_off = p->tensors[t->alias].dev_off;
  }
  if (at > (1u << 30)) {
    tsr_lib_err(c->err, c->errlen, "the program needs %" PRIu64 " bytes of device memory (1 GiB taken)",
                at);
    return TSR_UNSUPPORTED;
  }
  p->arena_bytes = (uint32_t)at;
  return TSR_OK;
}

tsr_status_t tsr_net_compile(const void *bytes, size_t len, const tsr_dev_info_t *target,
                             tsr_net_prog_t **out, char *err, size_t errlen) {
  return tsr_net_compile_ex(bytes, len, target, false, out, err, errlen);
}

tsr_status_t tsr_net_compile_ex(const void *bytes, size_t len, const tsr_dev_info_t *target,
                                bool allow_host, tsr_net_prog_t **out, char *err, size_t errlen) {
  return tsr_net_compile_flags(bytes, len, target, allow_host ? TSR_NET_ALLOW_HOST : 0u, out, err,
                               errlen);
}

tsr_status_t tsr_net_compile_flags(const void *bytes, size_t len, const tsr_dev_info_t *target,
                                   uint32_t flags, tsr_net_prog_t **out, char *err, size_t errlen) {
  if (bytes == NULL || out == NULL || target == NULL) {
    tsr_lib_err(err, errlen, "tsr_net_compile: no model or no place for the program");
    return TSR_BAD_ARG;
  }
  *out = NULL;
  tsr_tflite_t m;
  char why[TESSERA_ERRLEN];
  if (tsr_tflite_open(&m, bytes, len, why, sizeof why) != TSR_TFLITE_OK) {
    tsr_lib_err(err, errlen, "%s", why); /* the reader's line names the problem and the byte */
    return TSR_BAD_ARG;
  }
  cc_t c;
  memset(&c, 0, sizeof c);
  c.m = &m;
  c.err = err;
  c.errlen = errlen;
  c.allow_host = (flags & TSR_NET_ALLOW_HOST) != 0u;
  c.no_fuse = (flags & TSR_NET_NO_FUSE) != 0u;
  c.p = calloc(1, sizeof *c.p);
  c.map = malloc((m.n_tensors + 1u) * sizeof *c.map);
  if (c.p == NULL || c.map == NULL) {
    free(c.p);
    free(c.map);
    tsr_lib_err(err, errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  for (uint32_t i = 0; i < m.n_tensors; i++) {
    c.map[i] = -1;
  }
  c.p->target = *target;
  c.p->target.id = 0u;
  c.p->target.version = 0u;
  tsr_status_t st = compile_ops(&c);
  if (st == TSR_OK) {
    fuse_luts(&c);
    st = check_borders(&c);
  }
  if (st == TSR_OK) {
    st = plan_arena(&c);
  }
  if (st == TSR_OK) {
    st = tsr_net_capture(c.p, err, errlen);
  }
  free(c.map);
  if (st != TSR_OK) {
    tsr_net_free(c.p);
    return st;
  }
  *out = c.p;
  return TSR_OK;
}
