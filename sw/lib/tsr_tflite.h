/* tsr_tflite.h: a bounds-checked, zero-copy reader of TFLite models (.tflite flatbuffers). */
#ifndef TSR_TFLITE_H
#define TSR_TFLITE_H

/*
 * The reader works on bytes the caller holds (a file read or mapped whole);
 * it allocates nothing, prints nothing and copies nothing but small scalars:
 * names, buffer data and the int32/float32/int64 vectors are views into the
 * caller's bytes, which must stay unchanged while the model is in use.
 *
 *   tsr_tflite_t m;  char err[256];
 *   if (tsr_tflite_open(&m, bytes, len, err, sizeof err) != TSR_TFLITE_OK) { ... err ... }
 *   for (uint32_t i = 0; i < m.n_operators; i++) {
 *     tsr_tflite_op_t op;
 *     tsr_tflite_op(&m, i, &op, err, sizeof err);
 *     if (op.builtin_code == TSR_TFLITE_OP_CONV_2D) { ... op.opt.conv2d.stride_w ... }
 *     int32_t in0 = tsr_tflite_i32(op.inputs, 0);   (-1: an absent optional input)
 *   }
 *
 * tsr_tflite_open checks the whole model before it returns: the file
 * identifier "TFL3", every offset, vtable, table, vector and string that any
 * accessor reads lies inside the buffer, and the indices between the parts
 * agree (opcode and tensor indices of the operators, buffer indices of the
 * tensors, the first subgraph's inputs and outputs, per-channel quantization
 * against the shape). After a successful open the accessors fail only on a
 * bad argument (an index out of range). A truncated or hostile file gives
 * an error, never a read outside the buffer: every read is checked against
 * the length, the structure has a fixed depth (model, subgraph, tensor or
 * operator, quantization or options: no recursion), and the total work is
 * bounded by a small multiple of the file's size.
 *
 * Only the first subgraph is decoded (n_subgraphs says how many there are).
 * Layout: the FlatBuffers binary format and tensorflow/lite/schema/schema.fbs
 * (field slots and enum values are those of the schema; TFLite's
 * schema_py_generated module, which the tests use to write models, has the same).
 *
 * Every function that can fail returns a tsr_tflite_status_t (TSR_TFLITE_OK
 * is 0) and writes one line, without a newline, into the caller's `err`
 * (err may be NULL or errlen 0). Messages name the part and the byte offset,
 * e.g. "tensor 3: quantization: scale: vector at byte 812 runs past the end
 * of the 900-byte model".
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Highest tensor rank the reader takes. */
#define TSR_TFLITE_MAX_DIMS 8

/** What a function returns. */
typedef enum tsr_tflite_status {
  TSR_TFLITE_OK = 0,
  TSR_TFLITE_ERR_ARG = 1,         /**< NULL pointer or an index out of range */
  TSR_TFLITE_ERR_FORMAT = 2,      /**< the bytes are not a well-formed TFLite model */
  TSR_TFLITE_ERR_UNSUPPORTED = 3  /**< well-formed, but past this reader (rank > 8, no subgraph) */
} tsr_tflite_status_t;

/** TensorType of the schema (the values stored in the file). */
typedef enum tsr_tflite_type {
  TSR_TFLITE_FLOAT32 = 0,
  TSR_TFLITE_FLOAT16 = 1,
  TSR_TFLITE_INT32 = 2,
  TSR_TFLITE_UINT8 = 3,
  TSR_TFLITE_INT64 = 4,
  TSR_TFLITE_STRING = 5,
  TSR_TFLITE_BOOL = 6,
  TSR_TFLITE_INT16 = 7,
  TSR_TFLITE_COMPLEX64 = 8,
  TSR_TFLITE_INT8 = 9,
  TSR_TFLITE_FLOAT64 = 10,
  TSR_TFLITE_COMPLEX128 = 11,
  TSR_TFLITE_UINT64 = 12,
  TSR_TFLITE_RESOURCE = 13,
  TSR_TFLITE_VARIANT = 14,
  TSR_TFLITE_UINT32 = 15,
  TSR_TFLITE_UINT16 = 16,
  TSR_TFLITE_INT4 = 17,
  TSR_TFLITE_BFLOAT16 = 18
} tsr_tflite_type_t;

/** BuiltinOperator values the compiler uses (the schema has about 200). */
enum {
  TSR_TFLITE_OP_ADD = 0,
  TSR_TFLITE_OP_AVERAGE_POOL_2D = 1,
  TSR_TFLITE_OP_CONCATENATION = 2,
  TSR_TFLITE_OP_CONV_2D = 3,
  TSR_TFLITE_OP_DEPTHWISE_CONV_2D = 4,
  TSR_TFLITE_OP_FULLY_CONNECTED = 9,
  TSR_TFLITE_OP_LOGISTIC = 14,
  TSR_TFLITE_OP_MAX_POOL_2D = 17,
  TSR_TFLITE_OP_MUL = 18,
  TSR_TFLITE_OP_RELU = 19,
  TSR_TFLITE_OP_RELU6 = 21,
  TSR_TFLITE_OP_RESHAPE = 22,
  TSR_TFLITE_OP_SOFTMAX = 25,
  TSR_TFLITE_OP_TANH = 28,
  TSR_TFLITE_OP_CUSTOM = 32,
  TSR_TFLITE_OP_HARD_SWISH = 117,
  TSR_TFLITE_OP_BATCH_MATMUL = 126,
  /** deprecated_builtin_code of an operator whose code does not fit in int8 */
  TSR_TFLITE_OP_PLACEHOLDER_FOR_GREATER_OP_CODES = 127
};

/** BuiltinOptions union types that tsr_tflite_op decodes. */
enum {
  TSR_TFLITE_OPT_NONE = 0,
  TSR_TFLITE_OPT_CONV_2D = 1,
  TSR_TFLITE_OPT_DEPTHWISE_CONV_2D = 2,
  TSR_TFLITE_OPT_POOL_2D = 5,
  TSR_TFLITE_OPT_FULLY_CONNECTED = 8,
  TSR_TFLITE_OPT_SOFTMAX = 9,
  TSR_TFLITE_OPT_CONCATENATION = 10,
  TSR_TFLITE_OPT_ADD = 11,
  TSR_TFLITE_OPT_RESHAPE = 17,
  TSR_TFLITE_OPT_MUL = 21,
  TSR_TFLITE_OPT_BATCH_MATMUL = 101
};

/** Padding and ActivationFunctionType of the schema. */
enum { TSR_TFLITE_PADDING_SAME = 0, TSR_TFLITE_PADDING_VALID = 1 };
enum {
  TSR_TFLITE_ACT_NONE = 0,
  TSR_TFLITE_ACT_RELU = 1,
  TSR_TFLITE_ACT_RELU_N1_TO_1 = 2,
  TSR_TFLITE_ACT_RELU6 = 3,
  TSR_TFLITE_ACT_TANH = 4,
  TSR_TFLITE_ACT_SIGN_BIT = 5
};

/** A vector of little-endian numbers inside the model: read it with tsr_tflite_i32/i64/f32. */
typedef struct tsr_tflite_vec {
  const uint8_t *data;  /**< first element (NULL when count is 0) */
  uint32_t count;       /**< elements */
  uint8_t elem_size;    /**< 4 (int32, float32) or 8 (int64); 0 when empty */
} tsr_tflite_vec_t;

/** A string inside the model: `len` bytes at `str`, followed by a NUL ("" when absent). */
typedef struct tsr_tflite_str {
  const char *str;
  uint32_t len;
} tsr_tflite_str_t;

/** An entry of the model's buffer table. */
typedef struct tsr_tflite_buffer {
  const uint8_t *data;  /**< the bytes (NULL when size is 0) */
  size_t size;
  int external;         /**< 1: stored after the flatbuffer (the schema's offset and size
                             fields, for models over 2 GB); 0: inline in the flatbuffer */
} tsr_tflite_buffer_t;

/** An entry of the model's operator code table. */
typedef struct tsr_tflite_opcode {
  int32_t builtin_code;             /**< the effective code: max(deprecated_builtin_code,
                                         builtin_code field), as TFLite's GetBuiltinCode */
  int8_t deprecated_builtin_code;   /**< field 0 (int8; 127 for codes above 127) */
  int32_t builtin_code_field;       /**< field 3 (int32; 0 in files written before 2.4) */
  int32_t version;
  tsr_tflite_str_t custom_code;     /**< for TSR_TFLITE_OP_CUSTOM */
} tsr_tflite_opcode_t;

/** A tensor of the first subgraph. */
typedef struct tsr_tflite_tensor {
  tsr_tflite_str_t name;
  int32_t type;                          /**< tsr_tflite_type_t, as stored (may be a newer value) */
  uint32_t rank;                         /**< 0 .. TSR_TFLITE_MAX_DIMS */
  int32_t shape[TSR_TFLITE_MAX_DIMS];    /**< shape[0..rank-1]; the rest 0 */
  uint32_t buffer;                       /**< index into the buffers (< n_buffers) */
  int is_variable;
  int has_quant;                         /**< a quantization table is present */
  tsr_tflite_vec_t scale;                /**< float32, one per tensor or per channel */
  tsr_tflite_vec_t zero_point;           /**< int64, as many as scale (or none) */
  int32_t quantized_dimension;           /**< the channel axis when scale.count > 1 */
} tsr_tflite_tensor_t;

/** Options of CONV_2D (fields absent from the file read as the schema's defaults). */
typedef struct tsr_tflite_conv2d_opts {
  int32_t padding, stride_w, stride_h, fused_activation, dilation_w, dilation_h;
} tsr_tflite_conv2d_opts_t;

/** Options of DEPTHWISE_CONV_2D. */
typedef struct tsr_tflite_dwconv_opts {
  int32_t padding, stride_w, stride_h, depth_multiplier, fused_activation, dilation_w, dilation_h;
} tsr_tflite_dwconv_opts_t;

/** Options of FULLY_CONNECTED. */
typedef struct tsr_tflite_fc_opts {
  int32_t fused_activation, weights_format, keep_num_dims, asymmetric_quantize_inputs;
} tsr_tflite_fc_opts_t;

/** Options of AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D. */
typedef struct tsr_tflite_pool_opts {
  int32_t padding, stride_w, stride_h, filter_w, filter_h, fused_activation;
} tsr_tflite_pool_opts_t;

/** Options of ADD. */
typedef struct tsr_tflite_add_opts {
  int32_t fused_activation, pot_scale_int16;  /**< pot_scale_int16 defaults to 1 */
} tsr_tflite_add_opts_t;

/** Options of MUL. */
typedef struct tsr_tflite_mul_opts {
  int32_t fused_activation;
} tsr_tflite_mul_opts_t;

/** Options of SOFTMAX. */
typedef struct tsr_tflite_softmax_opts {
  float beta;
} tsr_tflite_softmax_opts_t;

/** Options of RESHAPE (new_shape is often absent: the second input holds the shape). */
typedef struct tsr_tflite_reshape_opts {
  tsr_tflite_vec_t new_shape;  /**< int32 */
} tsr_tflite_reshape_opts_t;

/** Options of CONCATENATION. */
typedef struct tsr_tflite_concat_opts {
  int32_t axis, fused_activation;
} tsr_tflite_concat_opts_t;

/** Options of BATCH_MATMUL. */
typedef struct tsr_tflite_bmm_opts {
  int32_t adj_x, adj_y, asymmetric_quantize_inputs;
} tsr_tflite_bmm_opts_t;

/** An operator of the first subgraph. */
typedef struct tsr_tflite_op {
  uint32_t opcode_index;       /**< into the operator codes (< n_opcodes) */
  int32_t builtin_code;        /**< its opcode's effective builtin code */
  tsr_tflite_vec_t inputs;     /**< int32 tensor indices; -1 is an absent optional input */
  tsr_tflite_vec_t outputs;    /**< int32 tensor indices; -1 is absent */
  uint8_t options_type;        /**< the BuiltinOptions type as stored (TSR_TFLITE_OPT_*) */
  int options_decoded;         /**< 1 when options_type is one of TSR_TFLITE_OPT_* (but NONE) and
                                    `opt` holds them (the schema's defaults if the table is absent) */
  union {
    tsr_tflite_conv2d_opts_t conv2d;
    tsr_tflite_dwconv_opts_t dwconv;
    tsr_tflite_fc_opts_t fc;
    tsr_tflite_pool_opts_t pool;
    tsr_tflite_add_opts_t add;
    tsr_tflite_mul_opts_t mul;
    tsr_tflite_softmax_opts_t softmax;
    tsr_tflite_reshape_opts_t reshape;
    tsr_tflite_concat_opts_t concat;
    tsr_tflite_bmm_opts_t bmm;
  } opt;                       /**< the member that options_type names; all zero otherwise */
} tsr_tflite_op_t;

/** An open model. The counts and strings may be read directly; the rest is private. */
typedef struct tsr_tflite {
  uint32_t version;                  /**< the schema version (3) */
  tsr_tflite_str_t description;
  uint32_t n_opcodes, n_buffers, n_subgraphs;
  uint32_t n_tensors, n_operators;   /**< of the first subgraph */
  tsr_tflite_vec_t inputs, outputs;  /**< of the first subgraph: int32 tensor indices */
  tsr_tflite_str_t subgraph_name;
  /* private */
  const uint8_t *buf_;
  size_t len_;
  size_t opcodes_, buffers_, tensors_, operators_;  /* positions of the vectors' first entries */
} tsr_tflite_t;

/**
 * Check the `len` bytes at `buf` as a TFLite model and set up *m to read it.
 * Returns TSR_TFLITE_OK, or an error with a message (then *m reads as an empty model).
 */
tsr_tflite_status_t tsr_tflite_open(tsr_tflite_t *m, const void *buf, size_t len, char *err,
                                    size_t errlen);

/** Operator code `i` (< m->n_opcodes). */
tsr_tflite_status_t tsr_tflite_opcode(const tsr_tflite_t *m, uint32_t i, tsr_tflite_opcode_t *out,
                                      char *err, size_t errlen);

/** Buffer `i` (< m->n_buffers). */
tsr_tflite_status_t tsr_tflite_buffer(const tsr_tflite_t *m, uint32_t i, tsr_tflite_buffer_t *out,
                                      char *err, size_t errlen);

/** Tensor `i` (< m->n_tensors) of the first subgraph. */
tsr_tflite_status_t tsr_tflite_tensor(const tsr_tflite_t *m, uint32_t i, tsr_tflite_tensor_t *out,
                                      char *err, size_t errlen);

/** Operator `i` (< m->n_operators) of the first subgraph, in execution order. */
tsr_tflite_status_t tsr_tflite_op(const tsr_tflite_t *m, uint32_t i, tsr_tflite_op_t *out, char *err,
                                  size_t errlen);

/** Element i of an int32 vector; 0 when i is out of range or the vector is not 4-byte. */
int32_t tsr_tflite_i32(tsr_tflite_vec_t v, uint32_t i);

/** Element i of an int64 vector; 0 when i is out of range or the vector is not 8-byte. */
int64_t tsr_tflite_i64(tsr_tflite_vec_t v, uint32_t i);

/** Element i of a float32 vector; 0 when i is out of range or the vector is not 4-byte. */
float tsr_tflite_f32(tsr_tflite_vec_t v, uint32_t i);

/** The schema's name of a tensor type ("INT8", "FLOAT32", ...), or "UNKNOWN". */
const char *tsr_tflite_type_name(int32_t type);

#ifdef __cplusplus
}
#endif

#endif /* TSR_TFLITE_H */
