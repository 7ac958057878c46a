/* tsr_tflite_dump.h: print every field the TFLite reader decodes, and feed it damaged models (header-only). */
#ifndef TSR_TFLITE_DUMP_H
#define TSR_TFLITE_DUMP_H

/*
 * The text is the one tests/net/gen_tflite_cases.py writes into NAME.expect
 * from the Python objects it packed, so a test compares the two strings.
 * Floats print as their float32 bits, strings with \xNN for every byte that
 * is not printable ASCII (and for '"' and '\'), buffer data as hex. The dump
 * goes through every accessor and reads every byte a view points to, so the
 * malformed-input tests run it on whatever tsr_tflite_open accepts.
 * Include it as "../common/tsr_tflite_dump.h" from tests/<suite>/.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_prng.h"
#include "tsr_tflite.h"

static inline void tsr_tflite_dump_str(FILE *f, tsr_tflite_str_t s) {
  if (s.str[s.len] != '\0') {  /* the reader promises a NUL: read it (a sanitizer sees a stray read) */
    fputs("(no NUL) ", f);
  }
  fputc('"', f);
  for (uint32_t i = 0; i < s.len; i++) {
    const unsigned char c = (unsigned char)s.str[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      fputc(c, f);
    } else {
      fprintf(f, "\\x%02x", c);
    }
  }
  fputc('"', f);
}

static inline void tsr_tflite_dump_i32s(FILE *f, tsr_tflite_vec_t v) {
  fputc('[', f);
  for (uint32_t i = 0; i < v.count; i++) {
    fprintf(f, i ? ",%ld" : "%ld", (long)tsr_tflite_i32(v, i));
  }
  fputc(']', f);
}

static inline unsigned long tsr_tflite_dump_bits(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return (unsigned long)b;
}

static inline void tsr_tflite_dump_options(FILE *f, const tsr_tflite_op_t *op) {
  if (!op->options_decoded) {
    fputs("-", f);
    return;
  }
  switch (op->options_type) {
    case TSR_TFLITE_OPT_CONV_2D: {
      const tsr_tflite_conv2d_opts_t *o = &op->opt.conv2d;
      fprintf(f, "conv2d padding %ld stride_w %ld stride_h %ld act %ld dilation_w %ld dilation_h %ld",
              (long)o->padding, (long)o->stride_w, (long)o->stride_h, (long)o->fused_activation,
              (long)o->dilation_w, (long)o->dilation_h);
      break;
    }
    case TSR_TFLITE_OPT_DEPTHWISE_CONV_2D: {
      const tsr_tflite_dwconv_opts_t *o = &op->opt.dwconv;
      fprintf(f,
              "dwconv padding %ld stride_w %ld stride_h %ld depth_multiplier %ld act %ld dilation_w %ld "
              "dilation_h %ld",
              (long)o->padding, (long)o->stride_w, (long)o->stride_h, (long)o->depth_multiplier,
              (long)o->fused_activation, (long)o->dilation_w, (long)o->dilation_h);
      break;
    }
    case TSR_TFLITE_OPT_FULLY_CONNECTED: {
      const tsr_tflite_fc_opts_t *o = &op->opt.fc;
      fprintf(f, "fc act %ld weights_format %ld keep_num_dims %ld asymmetric_quantize_inputs %ld",
              (long)o->fused_activation, (long)o->weights_format, (long)o->keep_num_dims,
              (long)o->asymmetric_quantize_inputs);
      break;
    }
    case TSR_TFLITE_OPT_POOL_2D: {
      const tsr_tflite_pool_opts_t *o = &op->opt.pool;
      fprintf(f, "pool padding %ld stride_w %ld stride_h %ld filter_w %ld filter_h %ld act %ld",
              (long)o->padding, (long)o->stride_w, (long)o->stride_h, (long)o->filter_w, (long)o->filter_h,
              (long)o->fused_activation);
      break;
    }
    case TSR_TFLITE_OPT_ADD:
      fprintf(f, "add act %ld pot_scale_int16 %ld", (long)op->opt.add.fused_activation,
              (long)op->opt.add.pot_scale_int16);
      break;
    case TSR_TFLITE_OPT_MUL:
      fprintf(f, "mul act %ld", (long)op->opt.mul.fused_activation);
      break;
    case TSR_TFLITE_OPT_SOFTMAX:
      fprintf(f, "softmax beta 0x%08lx", tsr_tflite_dump_bits(op->opt.softmax.beta));
      break;
    case TSR_TFLITE_OPT_RESHAPE:
      fputs("reshape new_shape ", f);
      tsr_tflite_dump_i32s(f, op->opt.reshape.new_shape);
      break;
    case TSR_TFLITE_OPT_CONCATENATION:
      fprintf(f, "concat axis %ld act %ld", (long)op->opt.concat.axis, (long)op->opt.concat.fused_activation);
      break;
    case TSR_TFLITE_OPT_BATCH_MATMUL:
      fprintf(f, "bmm adj_x %ld adj_y %ld asymmetric_quantize_inputs %ld", (long)op->opt.bmm.adj_x,
              (long)op->opt.bmm.adj_y, (long)op->opt.bmm.asymmetric_quantize_inputs);
      break;
    default:
      fprintf(f, "(decoded but unknown type %u)", (unsigned)op->options_type);
      break;
  }
}

/**
 * Print the open model *m to f. Returns TSR_TFLITE_OK, or the first accessor's
 * error (its message in err), after which the text is incomplete.
 */
static inline tsr_tflite_status_t tsr_tflite_dump(FILE *f, const tsr_tflite_t *m, char *err, size_t errlen) {
  tsr_tflite_status_t st;
  fprintf(f, "model version %lu subgraphs %lu description ", (unsigned long)m->version,
          (unsigned long)m->n_subgraphs);
  tsr_tflite_dump_str(f, m->description);
  fputs("\nsubgraph name ", f);
  tsr_tflite_dump_str(f, m->subgraph_name);
  fprintf(f, " tensors %lu operators %lu inputs ", (unsigned long)m->n_tensors, (unsigned long)m->n_operators);
  tsr_tflite_dump_i32s(f, m->inputs);
  fputs(" outputs ", f);
  tsr_tflite_dump_i32s(f, m->outputs);
  fprintf(f, "\nopcodes %lu\n", (unsigned long)m->n_opcodes);
  for (uint32_t i = 0; i < m->n_opcodes; i++) {
    tsr_tflite_opcode_t c;
    if ((st = tsr_tflite_opcode(m, i, &c, err, errlen)) != TSR_TFLITE_OK) {
      return st;
    }
    fprintf(f, "opcode %lu builtin %ld deprecated %d builtin_field %ld version %ld custom ", (unsigned long)i,
            (long)c.builtin_code, (int)c.deprecated_builtin_code, (long)c.builtin_code_field, (long)c.version);
    tsr_tflite_dump_str(f, c.custom_code);
    fputc('\n', f);
  }
  fprintf(f, "buffers %lu\n", (unsigned long)m->n_buffers);
  for (uint32_t i = 0; i < m->n_buffers; i++) {
    tsr_tflite_buffer_t b;
    if ((st = tsr_tflite_buffer(m, i, &b, err, errlen)) != TSR_TFLITE_OK) {
      return st;
    }
    fprintf(f, "buffer %lu size %zu external %d data ", (unsigned long)i, b.size, b.external);
    for (size_t k = 0; k < b.size; k++) {
      fprintf(f, "%02x", b.data[k]);
    }
    fputs(b.size == 0 ? "-\n" : "\n", f);
  }
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    tsr_tflite_tensor_t t;
    if ((st = tsr_tflite_tensor(m, i, &t, err, errlen)) != TSR_TFLITE_OK) {
      return st;
    }
    fprintf(f, "tensor %lu name ", (unsigned long)i);
    tsr_tflite_dump_str(f, t.name);
    fprintf(f, " type %s shape [", tsr_tflite_type_name(t.type));
    for (uint32_t d = 0; d < t.rank; d++) {
      fprintf(f, d ? ",%ld" : "%ld", (long)t.shape[d]);
    }
    fprintf(f, "] buffer %lu variable %d quant ", (unsigned long)t.buffer, t.is_variable);
    if (!t.has_quant) {
      fputs("none\n", f);
      continue;
    }
    fputs("scale [", f);
    for (uint32_t k = 0; k < t.scale.count; k++) {
      fprintf(f, k ? ",0x%08lx" : "0x%08lx", tsr_tflite_dump_bits(tsr_tflite_f32(t.scale, k)));
    }
    fputs("] zero_point [", f);
    for (uint32_t k = 0; k < t.zero_point.count; k++) {
      fprintf(f, k ? ",%lld" : "%lld", (long long)tsr_tflite_i64(t.zero_point, k));
    }
    fprintf(f, "] qdim %ld\n", (long)t.quantized_dimension);
  }
  for (uint32_t i = 0; i < m->n_operators; i++) {
    tsr_tflite_op_t op;
    if ((st = tsr_tflite_op(m, i, &op, err, errlen)) != TSR_TFLITE_OK) {
      return st;
    }
    fprintf(f, "op %lu opcode %lu builtin %ld inputs ", (unsigned long)i, (unsigned long)op.opcode_index,
            (long)op.builtin_code);
    tsr_tflite_dump_i32s(f, op.inputs);
    fputs(" outputs ", f);
    tsr_tflite_dump_i32s(f, op.outputs);
    fprintf(f, " options %u ", (unsigned)op.options_type);
    tsr_tflite_dump_options(f, &op);
    fputc('\n', f);
  }
  return TSR_TFLITE_OK;
}

/* ---- malformed inputs ---- */

/** What tsr_tflite_sweep did. */
typedef struct tsr_tflite_sweep {
  unsigned long opens;     /**< tsr_tflite_open calls */
  unsigned long accepted;  /**< of those, models that opened (and were dumped in full) */
  unsigned long accepted_prefixes;  /**< truncated copies that opened although they cut a non-zero
                                         byte (cutting only the zero padding at the end may be fine) */
} tsr_tflite_sweep_t;

/* Open one damaged copy: malloc'd at exactly n bytes, so a sanitizer sees any read past
 * it. An accepted model must dump without an accessor error; a refused one must say why
 * in one line. Returns 0, or -1 with the reason in why. */
static inline int tsr_tflite_try(const uint8_t *bytes, size_t n, FILE *sink, tsr_tflite_sweep_t *sw,
                                 const char *what, char *why, size_t whylen) {
  uint8_t *copy = malloc(n > 0 ? n : 1);
  if (copy == NULL) {
    snprintf(why, whylen, "out of memory");
    return -1;
  }
  memcpy(copy, bytes, n);
  tsr_tflite_t m;
  char err[256];
  int rc = 0;
  sw->opens++;
  if (tsr_tflite_open(&m, copy, n, err, sizeof err) == TSR_TFLITE_OK) {
    sw->accepted++;
    if (tsr_tflite_dump(sink, &m, err, sizeof err) != TSR_TFLITE_OK) {
      snprintf(why, whylen, "%s: opened, but an accessor failed: %s", what, err);
      rc = -1;
    }
  } else if (err[0] == '\0' || strchr(err, '\n') != NULL) {
    snprintf(why, whylen, "%s: refused without a one-line message ('%s')", what, err);
    rc = -1;
  }
  free(copy);
  return rc;
}

/**
 * Feed tsr_tflite_open damaged copies of a valid model of len bytes: every
 * prefix (lengths 0 .. len-1), every byte XORed with 0xff, 0x01 and 0x80 and set
 * to 0x00 and 0x7f, and `random_cases` copies with 1..8 bytes set to random values
 * (seeded by seed). Each must be refused with a message or open and dump cleanly.
 * Returns 0, or -1 with the first failing case in why.
 */
static inline int tsr_tflite_sweep(const uint8_t *model, size_t len, uint32_t seed, unsigned random_cases,
                                   tsr_tflite_sweep_t *sw, char *why, size_t whylen) {
  memset(sw, 0, sizeof *sw);
  FILE *sink = fopen("/dev/null", "w");
  uint8_t *work = malloc(len > 0 ? len : 1);
  int rc = 0;
  char what[96];
  if (sink == NULL || work == NULL) {
    snprintf(why, whylen, "cannot open /dev/null or allocate %zu bytes", len);
    rc = -1;
  }
  size_t padding_from = len; /* the model's bytes from here on are all zero */
  while (padding_from > 0 && model[padding_from - 1] == 0) {
    padding_from--;
  }
  for (size_t n = 0; rc == 0 && n < len; n++) {
    snprintf(what, sizeof what, "truncated to %zu bytes", n);
    const unsigned long before = sw->accepted;
    rc = tsr_tflite_try(model, n, sink, sw, what, why, whylen);
    if (n < padding_from) {
      sw->accepted_prefixes += sw->accepted - before;
    }
  }
  static const struct { uint8_t xor_with, set_to; int set; } edits[] = {
      {0xff, 0, 0}, {0x01, 0, 0}, {0x80, 0, 0}, {0, 0x00, 1}, {0, 0x7f, 1}};
  for (size_t pos = 0; rc == 0 && pos < len; pos++) {
    for (size_t e = 0; rc == 0 && e < sizeof edits / sizeof edits[0]; e++) {
      memcpy(work, model, len);
      work[pos] = edits[e].set ? edits[e].set_to : (uint8_t)(work[pos] ^ edits[e].xor_with);
      snprintf(what, sizeof what, "byte %zu %s 0x%02x", pos, edits[e].set ? "set to" : "xor",
               edits[e].set ? edits[e].set_to : edits[e].xor_with);
      rc = tsr_tflite_try(work, len, sink, sw, what, why, whylen);
    }
  }
  tsr_prng_t prng;
  tsr_prng_seed(&prng, seed, 7u);
  for (unsigned c = 0; rc == 0 && c < random_cases && len > 0; c++) {
    memcpy(work, model, len);
    const int edits_n = (int)tsr_prng_range(&prng, 1, 8);
    for (int k = 0; k < edits_n; k++) {
      work[tsr_prng_range(&prng, 0, (int64_t)len - 1)] = (uint8_t)tsr_prng_next(&prng);
    }
    snprintf(what, sizeof what, "random case %u of seed %lu", c, (unsigned long)seed);
    rc = tsr_tflite_try(work, len, sink, sw, what, why, whylen);
  }
  free(work);
  if (sink != NULL) {
    fclose(sink);
  }
  return rc;
}

#endif /* TSR_TFLITE_DUMP_H */
