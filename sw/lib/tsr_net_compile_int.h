/* tsr_net_compile_int.h: what the TFLite compiler's files share (library-internal). */
#ifndef TSR_NET_COMPILE_INT_H
#define TSR_NET_COMPILE_INT_H

/*
 * The compiler is two files around this header:
 *
 *   tsr_net_compile.c        the graph walk, the tensors and the blob, FULLY_CONNECTED,
 *                            SOFTMAX, ADD, RESHAPE, QUANTIZE/DEQUANTIZE, the border rules,
 *                            the arena plan
 *   tsr_net_compile_conv.c   the operators that address pixels: CONV_2D, DEPTHWISE_CONV_2D,
 *                            AVERAGE_POOL_2D, MEAN and PAD (one GEMM job each, or one per
 *                            channel group, with fw/tsr_conv.c's im2col view)
 *
 * Each helper writes one line into c->err on failure, naming c->opname.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsr_net_prog.h"
#include "tsr_tflite.h"

/* What the compiler builds up. */
typedef struct cc {
  const tsr_tflite_t *m;
  tsr_net_prog_t *p;
  int32_t *map;        /* tflite tensor -> program tensor, -1 none */
  uint32_t cap_t, cap_l, cap_b;
  char *err;
  size_t errlen;
  uint32_t op;         /* the operator being compiled */
  char opname[48];
  bool allow_host;     /* MUL and MAX_POOL_2D may run on the host (TSR_NET_HOST) */
  bool no_fuse;        /* keep every LUT layer (TSR_NET_NO_FUSE) */
} cc_t;

/* "out of memory" (TSR_NO_MEMORY). */
tsr_status_t tsr_nc_oom(cc_t *c);

/* One line: "<operator>: <what> is not supported (supported: ...)" (TSR_UNSUPPORTED). */
tsr_status_t tsr_nc_unsupported(cc_t *c, const char *what);

/* The program tensor of an operator's input `slot`; it must exist already and be `type`. */
tsr_status_t tsr_nc_known_input(cc_t *c, const tsr_tflite_op_t *op, uint32_t slot, uint32_t type,
                                uint32_t *id);

/* The operator's only output as a new tensor of `type`. */
tsr_status_t tsr_nc_new_output(cc_t *c, const tsr_tflite_op_t *op, uint32_t type, uint32_t *id);

/* A constant tensor's data, checked to be `count` elements of `esize` bytes. */
tsr_status_t tsr_nc_const_data(cc_t *c, const tsr_tflite_tensor_t *t, const char *what,
                               size_t count, size_t esize, const uint8_t **data);

/* The constant int8 symmetric weights (rank, output channels on `axis`) and int32 bias. */
tsr_status_t tsr_nc_weights_and_bias(cc_t *c, const tsr_tflite_op_t *op, uint32_t rank,
                                     uint32_t axis, tsr_tflite_tensor_t *w, const uint8_t **wdata,
                                     const uint8_t **bdata);

/* A GEMM-backed layer: B `bt` (bt_bytes) into the blob, the bias folded with the columns of
 * fold_b (fold_k x fold_n; NULL: not folded), the multipliers of w's scales, the clamp of
 * the fused activation `act`. */
tsr_status_t tsr_nc_gemm_layer_folded(cc_t *c, uint32_t kind, uint32_t in, uint32_t out,
                                      uint32_t m, uint32_t k, uint32_t n, const int8_t *bt,
                                      size_t bt_bytes, uint32_t fold_k, uint32_t fold_n,
                                      const int8_t *fold_b, const uint8_t *bdata,
                                      const tsr_tflite_tensor_t *w, int32_t act,
                                      tsr_net_layer_t **lp);

/* The operators of tsr_net_compile_conv.c. */
tsr_status_t tsr_nc_compile_conv(cc_t *c, const tsr_tflite_op_t *op);
tsr_status_t tsr_nc_compile_dwconv(cc_t *c, const tsr_tflite_op_t *op);
tsr_status_t tsr_nc_compile_avgpool(cc_t *c, const tsr_tflite_op_t *op);
tsr_status_t tsr_nc_compile_mean(cc_t *c, const tsr_tflite_op_t *op);
tsr_status_t tsr_nc_compile_pad(cc_t *c, const tsr_tflite_op_t *op);

#endif /* TSR_NET_COMPILE_INT_H */
