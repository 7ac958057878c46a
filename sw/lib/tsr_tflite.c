/* tsr_tflite.c: a bounds-checked, zero-copy reader of TFLite models (.tflite flatbuffers). */
#include "tsr_tflite.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tsr_le.h"

/*
 * The FlatBuffers binary format, as far as this reader needs it (all little-endian):
 *
 *   byte 0    uoffset (u32) of the root table, from byte 0
 *   byte 4    file identifier, "TFL3" for TFLite
 *   table     at T: soffset (i32) S; its vtable is at T - S. The vtable holds
 *             u16 vtable size, u16 table size, then one u16 per field ("slot"
 *             4, 6, 8, ... for field ids 0, 1, 2, ...): the field's offset
 *             from T, 0 when the field is absent (it then has its default).
 *   reference a u32 field holding an offset from the field's own position to
 *             a table, vector or string
 *   vector    u32 count, then count elements; a vector of tables holds one
 *             reference (u32) per element
 *   string    a vector of bytes followed by a NUL
 *
 * Each read below goes through in_bounds(); a table's fields must lie inside
 * the table's own size as its vtable states it. Alignment is not required:
 * every load is assembled byte by byte.
 *
 * Field slots are those of tensorflow/lite/schema/schema.fbs (the comments
 * name the field); slot = 4 + 2 * field id.
 */

/* Model */
#define SLOT_MODEL_VERSION 4
#define SLOT_MODEL_OPERATOR_CODES 6
#define SLOT_MODEL_SUBGRAPHS 8
#define SLOT_MODEL_DESCRIPTION 10
#define SLOT_MODEL_BUFFERS 12
/* SubGraph */
#define SLOT_SUBGRAPH_TENSORS 4
#define SLOT_SUBGRAPH_INPUTS 6
#define SLOT_SUBGRAPH_OUTPUTS 8
#define SLOT_SUBGRAPH_OPERATORS 10
#define SLOT_SUBGRAPH_NAME 12
/* Tensor */
#define SLOT_TENSOR_SHAPE 4
#define SLOT_TENSOR_TYPE 6
#define SLOT_TENSOR_BUFFER 8
#define SLOT_TENSOR_NAME 10
#define SLOT_TENSOR_QUANTIZATION 12
#define SLOT_TENSOR_IS_VARIABLE 14
/* QuantizationParameters (min 4 and max 6 are not read) */
#define SLOT_QUANT_SCALE 8
#define SLOT_QUANT_ZERO_POINT 10
#define SLOT_QUANT_QUANTIZED_DIMENSION 16
/* Buffer */
#define SLOT_BUFFER_DATA 4
#define SLOT_BUFFER_OFFSET 6
#define SLOT_BUFFER_SIZE 8
/* OperatorCode */
#define SLOT_OPCODE_DEPRECATED_BUILTIN_CODE 4
#define SLOT_OPCODE_CUSTOM_CODE 6
#define SLOT_OPCODE_VERSION 8
#define SLOT_OPCODE_BUILTIN_CODE 10
/* Operator */
#define SLOT_OP_OPCODE_INDEX 4
#define SLOT_OP_INPUTS 6
#define SLOT_OP_OUTPUTS 8
#define SLOT_OP_BUILTIN_OPTIONS_TYPE 10
#define SLOT_OP_BUILTIN_OPTIONS 12

#define TFL_IDENT "TFL3"

#if defined(__GNUC__)
#define TFL_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define TFL_PRINTF(fmt_idx, arg_idx)
#endif

/* A reading: the bytes, where to report, and what part is being read. */
typedef struct {
  const uint8_t *b;
  size_t len;
  char *err;
  size_t errlen;
  char where[48];  /* "tensor 3", "operator 0", ... ("" at the model level) */
  size_t budget;   /* vector elements open() may still scan (bounds the work on shared vectors) */
} rd_t;

/* A table: its position, its vtable's position and the two sizes from the vtable. */
typedef struct {
  size_t pos;
  size_t vt;
  uint16_t vt_size;
  uint16_t size;
} tbl_t;

static tsr_tflite_status_t fail(rd_t *r, tsr_tflite_status_t st, const char *fmt, ...) TFL_PRINTF(3, 4);
static tsr_tflite_status_t fail(rd_t *r, tsr_tflite_status_t st, const char *fmt, ...) {
  if (r->err == NULL || r->errlen == 0) {
    return st;
  }
  size_t n = 0;
  if (r->where[0] != '\0') {
    const int k = snprintf(r->err, r->errlen, "%s: ", r->where);
    n = k < 0 ? 0 : (size_t)k;
    if (n >= r->errlen) {
      return st;
    }
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err + n, r->errlen - n, fmt, ap);
  va_end(ap);
  return st;
}

static int in_bounds(const rd_t *r, size_t pos, size_t n) {
  return n <= r->len && pos <= r->len - n;
}

static uint16_t ld16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}

static uint64_t ld64(const uint8_t *p) {
  return (uint64_t)tsr_le32_load(p) | ((uint64_t)tsr_le32_load(p + 4) << 32);
}

/* ---- FlatBuffers primitives ---- */

/* The table at `pos`, with its vtable checked. */
static tsr_tflite_status_t table_at(rd_t *r, size_t pos, const char *what, tbl_t *t) {
  if (!in_bounds(r, pos, 4)) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: table at byte %zu runs past the end of the %zu-byte model",
                what, pos, r->len);
  }
  const int32_t soff = (int32_t)tsr_le32_load(r->b + pos);
  /* vt = pos - soff, computed without overflow in either direction. */
  size_t vt;
  if (soff >= 0) {
    if ((uint32_t)soff > pos) {
      return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: the vtable of the table at byte %zu lies before the model",
                  what, pos);
    }
    vt = pos - (uint32_t)soff;
  } else {
    const size_t back = (size_t)(-(int64_t)soff);
    if (back > r->len - pos) {
      return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: the vtable of the table at byte %zu lies past the end",
                  what, pos);
    }
    vt = pos + back;
  }
  if (!in_bounds(r, vt, 4)) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: vtable at byte %zu runs past the end of the %zu-byte model",
                what, vt, r->len);
  }
  t->pos = pos;
  t->vt = vt;
  t->vt_size = ld16(r->b + vt);
  t->size = ld16(r->b + vt + 2);
  if (t->vt_size < 4 || (t->vt_size & 1u) != 0 || !in_bounds(r, vt, t->vt_size)) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: vtable at byte %zu has a bad size (%u bytes)", what, vt,
                (unsigned)t->vt_size);
  }
  if (t->size < 4 || !in_bounds(r, pos, t->size)) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: table at byte %zu has a bad size (%u bytes)", what, pos,
                (unsigned)t->size);
  }
  return TSR_TFLITE_OK;
}

/* Position of the n-byte field at `slot` of *t; *found 0 when the field is absent. */
static tsr_tflite_status_t field(rd_t *r, const tbl_t *t, unsigned slot, size_t n, const char *what,
                                 size_t *pos, int *found) {
  *found = 0;
  *pos = 0;
  if (slot + 2u > t->vt_size) {
    return TSR_TFLITE_OK; /* an older writer's shorter vtable */
  }
  const uint16_t fo = ld16(r->b + t->vt + slot);
  if (fo == 0) {
    return TSR_TFLITE_OK;
  }
  if (fo < 4u || (size_t)fo + n > t->size) {
    return fail(r, TSR_TFLITE_ERR_FORMAT,
                "%s: field at offset %u of the table at byte %zu lies outside the table's %u bytes", what,
                (unsigned)fo, t->pos, (unsigned)t->size);
  }
  *pos = t->pos + fo;
  *found = 1;
  return TSR_TFLITE_OK;
}

/* A scalar field of n bytes (1, 4 or 8), zero-extended into *v; `def` when absent. */
static tsr_tflite_status_t scalar(rd_t *r, const tbl_t *t, unsigned slot, size_t n, uint64_t def,
                                  const char *what, uint64_t *v) {
  size_t pos;
  int found;
  const tsr_tflite_status_t st = field(r, t, slot, n, what, &pos, &found);
  if (st != TSR_TFLITE_OK) {
    return st;
  }
  if (!found) {
    *v = def;
  } else if (n == 1) {
    *v = r->b[pos];
  } else if (n == 4) {
    *v = tsr_le32_load(r->b + pos);
  } else {
    *v = ld64(r->b + pos);
  }
  return TSR_TFLITE_OK;
}

static tsr_tflite_status_t get_i32(rd_t *r, const tbl_t *t, unsigned slot, int32_t def, const char *what,
                                   int32_t *out) {
  uint64_t v;
  const tsr_tflite_status_t st = scalar(r, t, slot, 4, (uint32_t)def, what, &v);
  *out = (int32_t)(uint32_t)v;
  return st;
}

static tsr_tflite_status_t get_u32(rd_t *r, const tbl_t *t, unsigned slot, const char *what,
                                   uint32_t *out) {
  uint64_t v;
  const tsr_tflite_status_t st = scalar(r, t, slot, 4, 0, what, &v);
  *out = (uint32_t)v;
  return st;
}

/* A one-byte field: int8 enums (sign-extended), bools and uint8 union types. */
static tsr_tflite_status_t get_i8(rd_t *r, const tbl_t *t, unsigned slot, int8_t def, const char *what,
                                  int32_t *out) {
  uint64_t v;
  const tsr_tflite_status_t st = scalar(r, t, slot, 1, (uint8_t)def, what, &v);
  *out = (int8_t)(uint8_t)v;
  return st;
}

static tsr_tflite_status_t get_bool(rd_t *r, const tbl_t *t, unsigned slot, int def, const char *what,
                                    int32_t *out) {
  uint64_t v;
  const tsr_tflite_status_t st = scalar(r, t, slot, 1, def ? 1u : 0u, what, &v);
  *out = v != 0;
  return st;
}

static tsr_tflite_status_t get_f32(rd_t *r, const tbl_t *t, unsigned slot, const char *what, float *out) {
  uint64_t v;
  const tsr_tflite_status_t st = scalar(r, t, slot, 4, 0, what, &v);
  const uint32_t bits = (uint32_t)v;
  memcpy(out, &bits, sizeof *out);
  return st;
}

/* Follow the reference (u32 offset) stored at `pos`: *target = pos + offset, inside the model. */
static tsr_tflite_status_t follow(rd_t *r, size_t pos, const char *what, size_t *target) {
  if (!in_bounds(r, pos, 4)) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: reference at byte %zu runs past the end of the %zu-byte model",
                what, pos, r->len);
  }
  const uint32_t off = tsr_le32_load(r->b + pos);
  if (off == 0 || off >= r->len - pos) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: reference at byte %zu points to byte %llu, outside the %zu-byte model",
                what, pos, (unsigned long long)pos + off, r->len);
  }
  *target = pos + off;
  return TSR_TFLITE_OK;
}

/* The reference field at `slot`: *found 0 when absent, else *target is where it points. */
static tsr_tflite_status_t ref(rd_t *r, const tbl_t *t, unsigned slot, const char *what, size_t *target,
                               int *found) {
  size_t pos;
  tsr_tflite_status_t st = field(r, t, slot, 4, what, &pos, found);
  if (st != TSR_TFLITE_OK || !*found) {
    *target = 0;
    return st;
  }
  return follow(r, pos, what, target);
}

/* The vector at `pos` of elements of `elem` bytes: *first is its first element's position. */
static tsr_tflite_status_t vec_at(rd_t *r, size_t pos, size_t elem, const char *what, size_t *first,
                                  uint32_t *count) {
  if (!in_bounds(r, pos, 4)) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: vector at byte %zu runs past the end of the %zu-byte model",
                what, pos, r->len);
  }
  const uint32_t n = tsr_le32_load(r->b + pos);
  if ((size_t)n > (r->len - pos - 4) / elem) {
    return fail(r, TSR_TFLITE_ERR_FORMAT,
                "%s: vector at byte %zu of %lu elements of %zu bytes runs past the end of the %zu-byte model",
                what, pos, (unsigned long)n, elem, r->len);
  }
  *first = pos + 4;
  *count = n;
  return TSR_TFLITE_OK;
}

/* The vector field at `slot` as a view (empty when absent). */
static tsr_tflite_status_t get_vec(rd_t *r, const tbl_t *t, unsigned slot, size_t elem, const char *what,
                                   tsr_tflite_vec_t *out) {
  memset(out, 0, sizeof *out);
  size_t pos;
  int found;
  tsr_tflite_status_t st = ref(r, t, slot, what, &pos, &found);
  if (st != TSR_TFLITE_OK || !found) {
    return st;
  }
  size_t first;
  uint32_t n;
  st = vec_at(r, pos, elem, what, &first, &n);
  if (st == TSR_TFLITE_OK && n > 0) {
    out->data = r->b + first;
    out->count = n;
    out->elem_size = (uint8_t)elem;
  }
  return st;
}

/* The vector-of-tables field at `slot`: its first reference's position and count (0 when absent). */
static tsr_tflite_status_t get_tables(rd_t *r, const tbl_t *t, unsigned slot, const char *what,
                                      size_t *first, uint32_t *count) {
  *first = 0;
  *count = 0;
  size_t pos;
  int found;
  tsr_tflite_status_t st = ref(r, t, slot, what, &pos, &found);
  if (st != TSR_TFLITE_OK || !found) {
    return st;
  }
  return vec_at(r, pos, 4, what, first, count);
}

/* The string field at `slot` ("" when absent); its NUL must be inside the model. */
static tsr_tflite_status_t get_str(rd_t *r, const tbl_t *t, unsigned slot, const char *what,
                                   tsr_tflite_str_t *out) {
  out->str = "";
  out->len = 0;
  size_t pos;
  int found;
  tsr_tflite_status_t st = ref(r, t, slot, what, &pos, &found);
  if (st != TSR_TFLITE_OK || !found) {
    return st;
  }
  size_t first;
  uint32_t n;
  st = vec_at(r, pos, 1, what, &first, &n);
  if (st != TSR_TFLITE_OK) {
    return st;
  }
  if (first + n >= r->len || r->b[first + n] != 0) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%s: string at byte %zu has no NUL after its %lu bytes", what, pos,
                (unsigned long)n);
  }
  out->str = (const char *)(r->b + first);
  out->len = n;
  return TSR_TFLITE_OK;
}

/* The table that element i of a vector of tables refers to. */
static tsr_tflite_status_t element(rd_t *r, size_t first, uint32_t i, const char *what, tbl_t *t) {
  size_t pos;
  const tsr_tflite_status_t st = follow(r, first + 4u * (size_t)i, what, &pos);
  return st != TSR_TFLITE_OK ? st : table_at(r, pos, what, t);
}

/* Charge n vector elements scanned to open's budget. */
static tsr_tflite_status_t spend(rd_t *r, uint32_t n) {
  if (n > r->budget) {
    return fail(r, TSR_TFLITE_ERR_FORMAT,
                "the vectors hold more elements than a %zu-byte model can without sharing them (hostile file?)",
                r->len);
  }
  r->budget -= n;
  return TSR_TFLITE_OK;
}

/* ---- the model's parts ---- */

#define TRY(expr)                                 \
  do {                                            \
    const tsr_tflite_status_t st_ = (expr);       \
    if (st_ != TSR_TFLITE_OK) {                   \
      return st_;                                 \
    }                                             \
  } while (0)

static tsr_tflite_status_t decode_opcode(rd_t *r, const tbl_t *t, tsr_tflite_opcode_t *out) {
  memset(out, 0, sizeof *out);
  int32_t dep;
  TRY(get_i8(r, t, SLOT_OPCODE_DEPRECATED_BUILTIN_CODE, 0, "deprecated_builtin_code", &dep));
  TRY(get_str(r, t, SLOT_OPCODE_CUSTOM_CODE, "custom_code", &out->custom_code));
  TRY(get_i32(r, t, SLOT_OPCODE_VERSION, 1, "version", &out->version));
  TRY(get_i32(r, t, SLOT_OPCODE_BUILTIN_CODE, 0, "builtin_code", &out->builtin_code_field));
  out->deprecated_builtin_code = (int8_t)dep;
  out->builtin_code = dep > out->builtin_code_field ? dep : out->builtin_code_field;
  return TSR_TFLITE_OK;
}

static tsr_tflite_status_t decode_buffer(rd_t *r, const tbl_t *t, tsr_tflite_buffer_t *out) {
  memset(out, 0, sizeof *out);
  tsr_tflite_vec_t data;
  uint64_t offset, size;
  TRY(get_vec(r, t, SLOT_BUFFER_DATA, 1, "data", &data));
  TRY(scalar(r, t, SLOT_BUFFER_OFFSET, 8, 0, "offset", &offset));
  TRY(scalar(r, t, SLOT_BUFFER_SIZE, 8, 0, "size", &size));
  /* As TFLite: offset 0 and 1 mean "no data after the flatbuffer". */
  if (offset > 1) {
    if (data.count > 0) {
      return fail(r, TSR_TFLITE_ERR_FORMAT, "has both inline data and an offset (%llu)",
                  (unsigned long long)offset);
    }
    if (offset > r->len || size > r->len - offset) {
      return fail(r, TSR_TFLITE_ERR_FORMAT, "%llu bytes at offset %llu lie outside the %zu-byte model",
                  (unsigned long long)size, (unsigned long long)offset, r->len);
    }
    out->external = 1;
    out->size = (size_t)size;
    out->data = size > 0 ? r->b + offset : NULL;
  } else {
    out->size = data.count;
    out->data = data.data;
  }
  return TSR_TFLITE_OK;
}

static tsr_tflite_status_t decode_tensor(rd_t *r, const tbl_t *t, tsr_tflite_tensor_t *out) {
  memset(out, 0, sizeof *out);
  tsr_tflite_vec_t shape;
  TRY(get_vec(r, t, SLOT_TENSOR_SHAPE, 4, "shape", &shape));
  if (shape.count > TSR_TFLITE_MAX_DIMS) {
    return fail(r, TSR_TFLITE_ERR_UNSUPPORTED, "rank %lu is more than the %d this reader takes",
                (unsigned long)shape.count, TSR_TFLITE_MAX_DIMS);
  }
  out->rank = shape.count;
  for (uint32_t d = 0; d < shape.count; d++) {
    out->shape[d] = tsr_tflite_i32(shape, d);
  }
  TRY(get_i8(r, t, SLOT_TENSOR_TYPE, 0, "type", &out->type));
  TRY(get_u32(r, t, SLOT_TENSOR_BUFFER, "buffer", &out->buffer));
  TRY(get_str(r, t, SLOT_TENSOR_NAME, "name", &out->name));
  TRY(get_bool(r, t, SLOT_TENSOR_IS_VARIABLE, 0, "is_variable", &out->is_variable));
  size_t qpos;
  int found;
  TRY(ref(r, t, SLOT_TENSOR_QUANTIZATION, "quantization", &qpos, &found));
  if (found) {
    tbl_t q;
    TRY(table_at(r, qpos, "quantization", &q));
    out->has_quant = 1;
    TRY(get_vec(r, &q, SLOT_QUANT_SCALE, 4, "quantization: scale", &out->scale));
    TRY(get_vec(r, &q, SLOT_QUANT_ZERO_POINT, 8, "quantization: zero_point", &out->zero_point));
    TRY(get_i32(r, &q, SLOT_QUANT_QUANTIZED_DIMENSION, 0, "quantization: quantized_dimension",
                &out->quantized_dimension));
  }
  return TSR_TFLITE_OK;
}

/* The options table of type `type` at qpos (absent: found 0) into out->opt. */
static tsr_tflite_status_t decode_options(rd_t *r, size_t pos, int found, tsr_tflite_op_t *out) {
  tbl_t t = {0, 0, 4, 4};  /* absent: an empty vtable, every field at its default */
  if (found) {
    TRY(table_at(r, pos, "builtin_options", &t));
  }
  const char *w = "builtin_options";
  out->options_decoded = 1;
  switch (out->options_type) {
    case TSR_TFLITE_OPT_CONV_2D: {
      tsr_tflite_conv2d_opts_t *o = &out->opt.conv2d;
      TRY(get_i8(r, &t, 4, 0, w, &o->padding));
      TRY(get_i32(r, &t, 6, 0, w, &o->stride_w));
      TRY(get_i32(r, &t, 8, 0, w, &o->stride_h));
      TRY(get_i8(r, &t, 10, 0, w, &o->fused_activation));
      TRY(get_i32(r, &t, 12, 1, w, &o->dilation_w));
      TRY(get_i32(r, &t, 14, 1, w, &o->dilation_h));
      break;
    }
    case TSR_TFLITE_OPT_DEPTHWISE_CONV_2D: {
      tsr_tflite_dwconv_opts_t *o = &out->opt.dwconv;
      TRY(get_i8(r, &t, 4, 0, w, &o->padding));
      TRY(get_i32(r, &t, 6, 0, w, &o->stride_w));
      TRY(get_i32(r, &t, 8, 0, w, &o->stride_h));
      TRY(get_i32(r, &t, 10, 0, w, &o->depth_multiplier));
      TRY(get_i8(r, &t, 12, 0, w, &o->fused_activation));
      TRY(get_i32(r, &t, 14, 1, w, &o->dilation_w));
      TRY(get_i32(r, &t, 16, 1, w, &o->dilation_h));
      break;
    }
    case TSR_TFLITE_OPT_FULLY_CONNECTED: {
      tsr_tflite_fc_opts_t *o = &out->opt.fc;
      TRY(get_i8(r, &t, 4, 0, w, &o->fused_activation));
      TRY(get_i8(r, &t, 6, 0, w, &o->weights_format));
      TRY(get_bool(r, &t, 8, 0, w, &o->keep_num_dims));
      TRY(get_bool(r, &t, 10, 0, w, &o->asymmetric_quantize_inputs));
      break;
    }
    case TSR_TFLITE_OPT_POOL_2D: {
      tsr_tflite_pool_opts_t *o = &out->opt.pool;
      TRY(get_i8(r, &t, 4, 0, w, &o->padding));
      TRY(get_i32(r, &t, 6, 0, w, &o->stride_w));
      TRY(get_i32(r, &t, 8, 0, w, &o->stride_h));
      TRY(get_i32(r, &t, 10, 0, w, &o->filter_w));
      TRY(get_i32(r, &t, 12, 0, w, &o->filter_h));
      TRY(get_i8(r, &t, 14, 0, w, &o->fused_activation));
      break;
    }
    case TSR_TFLITE_OPT_ADD:
      TRY(get_i8(r, &t, 4, 0, w, &out->opt.add.fused_activation));
      TRY(get_bool(r, &t, 6, 1, w, &out->opt.add.pot_scale_int16));
      break;
    case TSR_TFLITE_OPT_MUL:
      TRY(get_i8(r, &t, 4, 0, w, &out->opt.mul.fused_activation));
      break;
    case TSR_TFLITE_OPT_SOFTMAX:
      TRY(get_f32(r, &t, 4, w, &out->opt.softmax.beta));
      break;
    case TSR_TFLITE_OPT_RESHAPE:
      TRY(get_vec(r, &t, 4, 4, "builtin_options: new_shape", &out->opt.reshape.new_shape));
      break;
    case TSR_TFLITE_OPT_CONCATENATION:
      TRY(get_i32(r, &t, 4, 0, w, &out->opt.concat.axis));
      TRY(get_i8(r, &t, 6, 0, w, &out->opt.concat.fused_activation));
      break;
    case TSR_TFLITE_OPT_BATCH_MATMUL:
      TRY(get_bool(r, &t, 4, 0, w, &out->opt.bmm.adj_x));
      TRY(get_bool(r, &t, 6, 0, w, &out->opt.bmm.adj_y));
      TRY(get_bool(r, &t, 8, 0, w, &out->opt.bmm.asymmetric_quantize_inputs));
      break;
    default:
      out->options_decoded = 0; /* NONE, or a type this reader does not decode */
      break;
  }
  return TSR_TFLITE_OK;
}

/* An operator, without its builtin code (that needs the opcode table). */
static tsr_tflite_status_t decode_op(rd_t *r, const tbl_t *t, tsr_tflite_op_t *out) {
  memset(out, 0, sizeof *out);
  TRY(get_u32(r, t, SLOT_OP_OPCODE_INDEX, "opcode_index", &out->opcode_index));
  TRY(get_vec(r, t, SLOT_OP_INPUTS, 4, "inputs", &out->inputs));
  TRY(get_vec(r, t, SLOT_OP_OUTPUTS, 4, "outputs", &out->outputs));
  int32_t type;
  TRY(get_i8(r, t, SLOT_OP_BUILTIN_OPTIONS_TYPE, 0, "builtin_options_type", &type));
  out->options_type = (uint8_t)type;
  size_t pos;
  int found;
  TRY(ref(r, t, SLOT_OP_BUILTIN_OPTIONS, "builtin_options", &pos, &found));
  return decode_options(r, pos, found, out);
}

/* ---- checks of open() across the parts ---- */

/* Every element of an int32 vector of tensor indices is in [0, n_tensors), or -1 if allowed. */
static tsr_tflite_status_t check_indices(rd_t *r, tsr_tflite_vec_t v, uint32_t n_tensors, int allow_absent,
                                         const char *what) {
  TRY(spend(r, v.count));
  for (uint32_t k = 0; k < v.count; k++) {
    const int32_t x = tsr_tflite_i32(v, k);
    if (!((x >= 0 && (uint32_t)x < n_tensors) || (allow_absent && x == -1))) {
      return fail(r, TSR_TFLITE_ERR_FORMAT, "%s[%lu] is %ld, not a tensor index (0..%lu%s)", what,
                  (unsigned long)k, (long)x, (unsigned long)n_tensors - 1u, allow_absent ? " or -1" : "");
    }
  }
  return TSR_TFLITE_OK;
}

static tsr_tflite_status_t check_tensor(rd_t *r, const tsr_tflite_tensor_t *t, uint32_t n_buffers) {
  if (t->buffer >= n_buffers) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "buffer index %lu is past the %lu buffers",
                (unsigned long)t->buffer, (unsigned long)n_buffers);
  }
  const uint32_t ns = t->scale.count;
  const uint32_t nz = t->zero_point.count;
  if (ns > 0 && nz > 0 && ns != nz) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "quantization has %lu scales but %lu zero points",
                (unsigned long)ns, (unsigned long)nz);
  }
  if (ns > 1) {
    const int32_t qd = t->quantized_dimension;
    if (qd < 0 || (uint32_t)qd >= t->rank) {
      return fail(r, TSR_TFLITE_ERR_FORMAT, "quantized_dimension %ld is not an axis of the rank-%lu shape",
                  (long)qd, (unsigned long)t->rank);
    }
    if (t->shape[qd] < 0 || (uint32_t)t->shape[qd] != ns) {
      return fail(r, TSR_TFLITE_ERR_FORMAT, "%lu per-channel scales for the %ld channels of axis %ld",
                  (unsigned long)ns, (long)t->shape[qd], (long)qd);
    }
  }
  return TSR_TFLITE_OK;
}

/* ---- public ---- */

static void rd_init(rd_t *r, const uint8_t *b, size_t len, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  r->b = b;
  r->len = len;
  r->err = err;
  r->errlen = errlen;
  r->budget = len;
  if (err != NULL && errlen > 0) {
    err[0] = '\0';
  }
}

static void rd_where(rd_t *r, const char *part, uint32_t i) {
  snprintf(r->where, sizeof r->where, "%s %lu", part, (unsigned long)i);
}

static tsr_tflite_status_t open_model(rd_t *r, tsr_tflite_t *m) {
  if (r->len < 8) {
    return fail(r, TSR_TFLITE_ERR_FORMAT, "%zu bytes are too few for a TFLite model", r->len);
  }
  if (memcmp(r->b + 4, TFL_IDENT, 4) != 0) {
    char shown[4 * 4 + 1];
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
      const unsigned char c = r->b[4 + k];
      const int printable = c >= 0x20 && c < 0x7f && c != '\\' && c != '\'';
      n += (size_t)snprintf(shown + n, sizeof shown - n, printable ? "%c" : "\\x%02x", c);
    }
    return fail(r, TSR_TFLITE_ERR_FORMAT, "file identifier is '%s', not 'TFL3': not a TFLite model", shown);
  }
  size_t root;
  tbl_t model;
  TRY(follow(r, 0, "root", &root));
  TRY(table_at(r, root, "model", &model));
  TRY(get_u32(r, &model, SLOT_MODEL_VERSION, "model version", &m->version));
  TRY(get_str(r, &model, SLOT_MODEL_DESCRIPTION, "model description", &m->description));
  TRY(get_tables(r, &model, SLOT_MODEL_OPERATOR_CODES, "operator_codes", &m->opcodes_, &m->n_opcodes));
  TRY(get_tables(r, &model, SLOT_MODEL_BUFFERS, "buffers", &m->buffers_, &m->n_buffers));
  size_t subgraphs;
  TRY(get_tables(r, &model, SLOT_MODEL_SUBGRAPHS, "subgraphs", &subgraphs, &m->n_subgraphs));
  if (m->n_subgraphs == 0) {
    return fail(r, TSR_TFLITE_ERR_UNSUPPORTED, "the model has no subgraph");
  }
  tbl_t t;
  for (uint32_t i = 0; i < m->n_opcodes; i++) {
    tsr_tflite_opcode_t oc;
    rd_where(r, "operator code", i);
    TRY(element(r, m->opcodes_, i, "table", &t));
    TRY(decode_opcode(r, &t, &oc));
  }
  for (uint32_t i = 0; i < m->n_buffers; i++) {
    tsr_tflite_buffer_t bf;
    rd_where(r, "buffer", i);
    TRY(element(r, m->buffers_, i, "table", &t));
    TRY(decode_buffer(r, &t, &bf));
  }
  tbl_t sg;
  rd_where(r, "subgraph", 0);
  TRY(element(r, subgraphs, 0, "table", &sg));
  TRY(get_tables(r, &sg, SLOT_SUBGRAPH_TENSORS, "tensors", &m->tensors_, &m->n_tensors));
  TRY(get_vec(r, &sg, SLOT_SUBGRAPH_INPUTS, 4, "inputs", &m->inputs));
  TRY(get_vec(r, &sg, SLOT_SUBGRAPH_OUTPUTS, 4, "outputs", &m->outputs));
  TRY(get_tables(r, &sg, SLOT_SUBGRAPH_OPERATORS, "operators", &m->operators_, &m->n_operators));
  TRY(get_str(r, &sg, SLOT_SUBGRAPH_NAME, "name", &m->subgraph_name));
  TRY(check_indices(r, m->inputs, m->n_tensors, 0, "inputs"));
  TRY(check_indices(r, m->outputs, m->n_tensors, 0, "outputs"));
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    tsr_tflite_tensor_t tn;
    rd_where(r, "tensor", i);
    TRY(element(r, m->tensors_, i, "table", &t));
    TRY(decode_tensor(r, &t, &tn));
    TRY(check_tensor(r, &tn, m->n_buffers));
  }
  for (uint32_t i = 0; i < m->n_operators; i++) {
    tsr_tflite_op_t op;
    rd_where(r, "operator", i);
    TRY(element(r, m->operators_, i, "table", &t));
    TRY(decode_op(r, &t, &op));
    if (op.opcode_index >= m->n_opcodes) {
      return fail(r, TSR_TFLITE_ERR_FORMAT, "opcode_index %lu is past the %lu operator codes",
                  (unsigned long)op.opcode_index, (unsigned long)m->n_opcodes);
    }
    TRY(check_indices(r, op.inputs, m->n_tensors, 1, "inputs"));
    TRY(check_indices(r, op.outputs, m->n_tensors, 1, "outputs"));
  }
  return TSR_TFLITE_OK;
}

tsr_tflite_status_t tsr_tflite_open(tsr_tflite_t *m, const void *buf, size_t len, char *err,
                                    size_t errlen) {
  rd_t r;
  rd_init(&r, buf, len, err, errlen);
  if (m == NULL || buf == NULL) {
    return fail(&r, TSR_TFLITE_ERR_ARG, "invalid argument: %s is NULL", m == NULL ? "m" : "buf");
  }
  memset(m, 0, sizeof *m);
  m->description.str = "";
  m->subgraph_name.str = "";
  m->buf_ = buf;
  m->len_ = len;
  const tsr_tflite_status_t st = open_model(&r, m);
  if (st != TSR_TFLITE_OK) {
    memset(m, 0, sizeof *m);
    m->description.str = "";
    m->subgraph_name.str = "";
  }
  return st;
}

/* Common part of the accessors: arguments, then the table of element i of the vector at `first`. */
static tsr_tflite_status_t accessor(rd_t *r, const tsr_tflite_t *m, uint32_t i, uint32_t count,
                                    size_t first, const void *out, const char *part, char *err,
                                    size_t errlen, tbl_t *t) {
  rd_init(r, m != NULL ? m->buf_ : NULL, m != NULL ? m->len_ : 0, err, errlen);
  if (m == NULL || out == NULL || m->buf_ == NULL) {
    return fail(r, TSR_TFLITE_ERR_ARG, "invalid argument: %s", out == NULL ? "out is NULL" : "the model is not open");
  }
  if (i >= count) {
    return fail(r, TSR_TFLITE_ERR_ARG, "%s index %lu is past the %lu in the model", part, (unsigned long)i,
                (unsigned long)count);
  }
  rd_where(r, part, i);
  return element(r, first, i, "table", t);
}

tsr_tflite_status_t tsr_tflite_opcode(const tsr_tflite_t *m, uint32_t i, tsr_tflite_opcode_t *out,
                                      char *err, size_t errlen) {
  rd_t r;
  tbl_t t;
  TRY(accessor(&r, m, i, m != NULL ? m->n_opcodes : 0, m != NULL ? m->opcodes_ : 0, out, "operator code",
               err, errlen, &t));
  return decode_opcode(&r, &t, out);
}

tsr_tflite_status_t tsr_tflite_buffer(const tsr_tflite_t *m, uint32_t i, tsr_tflite_buffer_t *out,
                                      char *err, size_t errlen) {
  rd_t r;
  tbl_t t;
  TRY(accessor(&r, m, i, m != NULL ? m->n_buffers : 0, m != NULL ? m->buffers_ : 0, out, "buffer", err,
               errlen, &t));
  return decode_buffer(&r, &t, out);
}

tsr_tflite_status_t tsr_tflite_tensor(const tsr_tflite_t *m, uint32_t i, tsr_tflite_tensor_t *out,
                                      char *err, size_t errlen) {
  rd_t r;
  tbl_t t;
  TRY(accessor(&r, m, i, m != NULL ? m->n_tensors : 0, m != NULL ? m->tensors_ : 0, out, "tensor", err,
               errlen, &t));
  return decode_tensor(&r, &t, out);
}

tsr_tflite_status_t tsr_tflite_op(const tsr_tflite_t *m, uint32_t i, tsr_tflite_op_t *out, char *err,
                                  size_t errlen) {
  rd_t r;
  tbl_t t;
  TRY(accessor(&r, m, i, m != NULL ? m->n_operators : 0, m != NULL ? m->operators_ : 0, out, "operator",
               err, errlen, &t));
  TRY(decode_op(&r, &t, out));
  tsr_tflite_opcode_t oc;
  TRY(tsr_tflite_opcode(m, out->opcode_index, &oc, err, errlen));
  out->builtin_code = oc.builtin_code;
  return TSR_TFLITE_OK;
}

int32_t tsr_tflite_i32(tsr_tflite_vec_t v, uint32_t i) {
  return (v.elem_size == 4 && i < v.count) ? (int32_t)tsr_le32_load(v.data + 4u * (size_t)i) : 0;
}

int64_t tsr_tflite_i64(tsr_tflite_vec_t v, uint32_t i) {
  return (v.elem_size == 8 && i < v.count) ? (int64_t)ld64(v.data + 8u * (size_t)i) : 0;
}

float tsr_tflite_f32(tsr_tflite_vec_t v, uint32_t i) {
  float f = 0.0f;
  if (v.elem_size == 4 && i < v.count) {
    const uint32_t bits = tsr_le32_load(v.data + 4u * (size_t)i);
    memcpy(&f, &bits, sizeof f);
  }
  return f;
}

const char *tsr_tflite_type_name(int32_t type) {
  static const char *const names[] = {
      "FLOAT32", "FLOAT16", "INT32",   "UINT8",   "INT64",  "STRING", "BOOL",
      "INT16",   "COMPLEX64", "INT8",  "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE",
      "VARIANT", "UINT32",  "UINT16",  "INT4",    "BFLOAT16",
  };
  if (type < 0 || (size_t)type >= sizeof names / sizeof names[0]) {
    return "UNKNOWN";
  }
  return names[type];
}
