/* test_tflite.c: cmocka suite for the TFLite reader (sw/lib/tsr_tflite.c) on a model TFLite's schema module wrote. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tsr_seed.h"
#include "../common/tsr_tflite_dump.h"
#include "tsr_tflite.h"
#include "tsr_tflite_fixture.h"
#include "../common/tsr_cmocka_ext.h"

/* The richest model: tsr_tflite_valid[0] is the generator's 'all_ops'. */
#define FIXTURE (tsr_tflite_valid[0].bytes)
#define FIXTURE_LEN (tsr_tflite_valid[0].len)
#define N_VALID (sizeof tsr_tflite_valid / sizeof tsr_tflite_valid[0])

/* The fixture (tsr_tflite_fixture.h) holds models of tests/net/gen_tflite_cases.py: 'all_ops'
 * (every options table the reader decodes, per-channel quantization, -1 inputs, codes in
 * either opcode field, an external buffer), 'old_style' (pre-2.4 opcodes, a custom code whose
 * string ends the file) and the broken models. `make test-tflite` checks it is current. */

static uint64_t g_seed;

static void open_fixture(tsr_tflite_t *m) {
  char err[256];
  if (tsr_tflite_open(m, FIXTURE, FIXTURE_LEN, err, sizeof err) != TSR_TFLITE_OK) {
    fail_msg("the fixture does not open: %s", err);
  }
}

/* A writable copy of the fixture (freed by the caller). */
static uint8_t *fixture_copy(void) {
  uint8_t *b = malloc(FIXTURE_LEN);
  assert_non_null(b);
  memcpy(b, FIXTURE, FIXTURE_LEN);
  return b;
}

static void valid_models_read_every_field_python_packed(void **state) {
  (void)state;
  for (size_t k = 0; k < N_VALID; k++) {
    tsr_tflite_t m;
    char err[256];
    if (tsr_tflite_open(&m, tsr_tflite_valid[k].bytes, tsr_tflite_valid[k].len, err, sizeof err) !=
        TSR_TFLITE_OK) {
      fail_msg("%s: refused: %s", tsr_tflite_valid[k].name, err);
    }
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    const tsr_tflite_status_t st = tsr_tflite_dump(f, &m, err, sizeof err);
    fclose(f);
    if (st != TSR_TFLITE_OK) {
      free(text);
      fail_msg("%s: an accessor failed: %s", tsr_tflite_valid[k].name, err);
    }
    /* Report the first line that differs. */
    const char *a = text;
    const char *b = tsr_tflite_valid[k].text;
    for (int line = 1; *a != '\0' || *b != '\0'; line++) {
      const size_t la = strcspn(a, "\n");
      const size_t lb = strcspn(b, "\n");
      if (la != lb || memcmp(a, b, la) != 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s: line %d:\n  reader: %.*s\n  python: %.*s", tsr_tflite_valid[k].name,
                 line, (int)la, a, (int)lb, b);
        free(text);
        fail_msg("%s", msg);
      }
      a += la + (a[la] == '\n');
      b += lb + (b[lb] == '\n');
    }
    free(text);
  }
}

static void effective_builtin_code_is_the_larger_of_the_two_opcode_fields(void **state) {
  (void)state;
  tsr_tflite_t m;
  open_fixture(&m);
  tsr_tflite_opcode_t c;
  /* 0: only deprecated_builtin_code (a pre-2.4 file); 11: GELU (150), deprecated 127. */
  assert_int_equal(tsr_tflite_opcode(&m, 0, &c, NULL, 0), TSR_TFLITE_OK);
  assert_i64(c.builtin_code, TSR_TFLITE_OP_CONV_2D);
  assert_i64(c.builtin_code_field, 0);
  assert_int_equal(tsr_tflite_opcode(&m, 11, &c, NULL, 0), TSR_TFLITE_OK);
  assert_i64(c.deprecated_builtin_code, TSR_TFLITE_OP_PLACEHOLDER_FOR_GREATER_OP_CODES);
  assert_i64(c.builtin_code, 150);
  tsr_tflite_op_t op;
  assert_int_equal(tsr_tflite_op(&m, 11, &op, NULL, 0), TSR_TFLITE_OK);
  assert_i64(op.builtin_code, 150);
  assert_int_equal(op.options_decoded, 0);
}

static void absent_inputs_read_as_minus_one_and_absent_options_as_defaults(void **state) {
  (void)state;
  tsr_tflite_t m;
  open_fixture(&m);
  tsr_tflite_op_t op;
  assert_int_equal(tsr_tflite_op(&m, 1, &op, NULL, 0), TSR_TFLITE_OK); /* depthwise, no bias */
  assert_i64(op.inputs.count, 3);
  assert_i64(tsr_tflite_i32(op.inputs, 2), -1);
  assert_int_equal(tsr_tflite_op(&m, 13, &op, NULL, 0), TSR_TFLITE_OK); /* conv, all defaults */
  assert_int_equal(op.options_decoded, 1);
  assert_i64(op.opt.conv2d.dilation_w, 1);
  assert_i64(op.opt.conv2d.dilation_h, 1);
  assert_int_equal(tsr_tflite_op(&m, 16, &op, NULL, 0), TSR_TFLITE_OK); /* add, all defaults */
  assert_i64(op.opt.add.pot_scale_int16, 1);
}

static void open_rejects_null_arguments_and_short_buffers(void **state) {
  (void)state;
  tsr_tflite_t m;
  char err[256];
  assert_int_equal(tsr_tflite_open(NULL, FIXTURE, FIXTURE_LEN, err, sizeof err),
                   TSR_TFLITE_ERR_ARG);
  assert_one_line(err, "m is NULL");
  assert_int_equal(tsr_tflite_open(&m, NULL, 8, err, sizeof err), TSR_TFLITE_ERR_ARG);
  assert_one_line(err, "buf is NULL");
  for (size_t n = 0; n < 8; n++) {
    assert_int_equal(tsr_tflite_open(&m, FIXTURE, n, err, sizeof err), TSR_TFLITE_ERR_FORMAT);
    assert_one_line(err, "too few");
    assert_i64(m.n_tensors, 0);
  }
  /* No message buffer at all is fine too. */
  assert_int_equal(tsr_tflite_open(&m, FIXTURE, 3, NULL, 0), TSR_TFLITE_ERR_FORMAT);
}

static void open_rejects_another_file_identifier(void **state) {
  (void)state;
  uint8_t *b = fixture_copy();
  memcpy(b + 4, "TFL2", 4);
  tsr_tflite_t m;
  char err[256];
  assert_int_equal(tsr_tflite_open(&m, b, FIXTURE_LEN, err, sizeof err), TSR_TFLITE_ERR_FORMAT);
  assert_one_line(err, "'TFL2', not 'TFL3'");
  b[5] = 0x01;
  assert_int_equal(tsr_tflite_open(&m, b, FIXTURE_LEN, err, sizeof err), TSR_TFLITE_ERR_FORMAT);
  assert_one_line(err, "'T\\x01L2'");
  free(b);
}

static void open_rejects_a_root_offset_outside_the_file(void **state) {
  (void)state;
  uint8_t *b = fixture_copy();
  tsr_tflite_t m;
  char err[256];
  static const uint32_t bad[] = {0u, 0xfffffff0u, (uint32_t)FIXTURE_LEN, 0x80000000u};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    b[0] = (uint8_t)bad[k];
    b[1] = (uint8_t)(bad[k] >> 8);
    b[2] = (uint8_t)(bad[k] >> 16);
    b[3] = (uint8_t)(bad[k] >> 24);
    assert_int_equal(tsr_tflite_open(&m, b, FIXTURE_LEN, err, sizeof err), TSR_TFLITE_ERR_FORMAT);
    assert_one_line(err, "root: reference at byte 0");
  }
  free(b);
}

static void messages_are_cut_to_the_callers_buffer(void **state) {
  (void)state;
  tsr_tflite_t m;
  char err[8];
  memset(err, 'x', sizeof err);
  assert_int_equal(tsr_tflite_open(&m, FIXTURE, 5, err, sizeof err), TSR_TFLITE_ERR_FORMAT);
  assert_int_equal(strlen(err), sizeof err - 1);
}

static void accessors_reject_out_of_range_indices_and_null(void **state) {
  (void)state;
  tsr_tflite_t m;
  open_fixture(&m);
  char err[256];
  tsr_tflite_tensor_t t;
  tsr_tflite_op_t op;
  tsr_tflite_buffer_t bf;
  tsr_tflite_opcode_t c;
  assert_int_equal(tsr_tflite_tensor(&m, m.n_tensors, &t, err, sizeof err), TSR_TFLITE_ERR_ARG);
  assert_one_line(err, "tensor index 21 is past the 21");
  assert_int_equal(tsr_tflite_op(&m, m.n_operators, &op, err, sizeof err), TSR_TFLITE_ERR_ARG);
  assert_one_line(err, "operator index");
  assert_int_equal(tsr_tflite_buffer(&m, UINT32_MAX, &bf, err, sizeof err), TSR_TFLITE_ERR_ARG);
  assert_one_line(err, "buffer index");
  assert_int_equal(tsr_tflite_opcode(&m, m.n_opcodes, &c, err, sizeof err), TSR_TFLITE_ERR_ARG);
  assert_one_line(err, "operator code index");
  assert_int_equal(tsr_tflite_tensor(NULL, 0, &t, err, sizeof err), TSR_TFLITE_ERR_ARG);
  assert_int_equal(tsr_tflite_tensor(&m, 0, NULL, err, sizeof err), TSR_TFLITE_ERR_ARG);
  assert_one_line(err, "out is NULL");
  /* A model whose open failed reads as empty. */
  assert_int_equal(tsr_tflite_open(&m, FIXTURE, 100, err, sizeof err), TSR_TFLITE_ERR_FORMAT);
  assert_int_equal(tsr_tflite_tensor(&m, 0, &t, err, sizeof err), TSR_TFLITE_ERR_ARG);
}

static void vector_getters_check_the_index_and_the_element_size(void **state) {
  (void)state;
  tsr_tflite_t m;
  open_fixture(&m);
  tsr_tflite_tensor_t t;
  assert_int_equal(tsr_tflite_tensor(&m, 4, &t, NULL, 0), TSR_TFLITE_OK); /* dw/w: 8 channels on axis 3 */
  assert_i64(t.scale.count, 8);
  assert_i64(t.quantized_dimension, 3);
  assert_i64(tsr_tflite_dump_bits(tsr_tflite_f32(t.scale, 7)), 0x3da3d70a); /* 0.08f, as the .expect says */
  assert_true(tsr_tflite_f32(t.scale, 8) == 0.0f);
  assert_i64(tsr_tflite_i64(t.zero_point, 7), 0);
  assert_i64(tsr_tflite_i64(t.scale, 0), 0);      /* a 4-byte vector read as int64 */
  assert_i64(tsr_tflite_i32(t.zero_point, 0), 0); /* an 8-byte vector read as int32 */
  tsr_tflite_vec_t empty = {NULL, 0, 0};
  assert_i64(tsr_tflite_i32(empty, 0), 0);
  assert_string_equal(tsr_tflite_type_name(TSR_TFLITE_INT8), "INT8");
  assert_string_equal(tsr_tflite_type_name(-1), "UNKNOWN");
  assert_string_equal(tsr_tflite_type_name(99), "UNKNOWN");
}

static void broken_models_are_refused_with_what_is_wrong(void **state) {
  (void)state;
  const size_t n = sizeof tsr_tflite_broken / sizeof tsr_tflite_broken[0];
  assert_true(n >= 10);
  for (size_t k = 0; k < n; k++) {
    tsr_tflite_t m;
    char err[256];
    if (tsr_tflite_open(&m, tsr_tflite_broken[k].bytes, tsr_tflite_broken[k].len, err, sizeof err) ==
        TSR_TFLITE_OK) {
      fail_msg("%s: opened, but must be refused with '%s'", tsr_tflite_broken[k].name,
               tsr_tflite_broken[k].message);
    }
    if (strstr(err, tsr_tflite_broken[k].message) == NULL || strchr(err, '\n') != NULL) {
      fail_msg("%s: message '%s' does not hold '%s'", tsr_tflite_broken[k].name, err,
               tsr_tflite_broken[k].message);
    }
  }
}

static void truncated_and_corrupted_models_fail_cleanly_or_open_cleanly(void **state) {
  (void)state;
  for (size_t k = 0; k < N_VALID; k++) {
    tsr_tflite_sweep_t sw;
    char why[512];
    if (tsr_tflite_sweep(tsr_tflite_valid[k].bytes, tsr_tflite_valid[k].len, (uint32_t)g_seed, 2000u, &sw, why,
                         sizeof why) != 0) {
      fail_msg("%s: seed %" PRIu64 " (replay: TSR_SEED=%" PRIu64 "): %s", tsr_tflite_valid[k].name, g_seed,
               g_seed, why);
    }
    printf("test_tflite: %s: %lu damaged copies, %lu of them opened\n", tsr_tflite_valid[k].name, sw.opens,
           sw.accepted);
    assert_true(sw.opens > 6u * tsr_tflite_valid[k].len);
    /* A prefix that cuts a non-zero byte is refused: the end of each file holds the first
     * objects the builder wrote (external data, a custom code's string, an opcode table),
     * all of which the reader checks. */
    assert_i64(sw.accepted_prefixes, 0);
  }
}

int main(int argc, char **argv) {
  g_seed = tsr_choose_seed("test_tflite", argc, argv);
  printf("test_tflite: seed %" PRIu64 " (replay with TSR_SEED=%" PRIu64 " or --seed %" PRIu64 ")\n", g_seed,
         g_seed, g_seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(valid_models_read_every_field_python_packed),
      cmocka_unit_test(effective_builtin_code_is_the_larger_of_the_two_opcode_fields),
      cmocka_unit_test(absent_inputs_read_as_minus_one_and_absent_options_as_defaults),
      cmocka_unit_test(open_rejects_null_arguments_and_short_buffers),
      cmocka_unit_test(open_rejects_another_file_identifier),
      cmocka_unit_test(open_rejects_a_root_offset_outside_the_file),
      cmocka_unit_test(messages_are_cut_to_the_callers_buffer),
      cmocka_unit_test(accessors_reject_out_of_range_indices_and_null),
      cmocka_unit_test(vector_getters_check_the_index_and_the_element_size),
      cmocka_unit_test(broken_models_are_refused_with_what_is_wrong),
      cmocka_unit_test(truncated_and_corrupted_models_fail_cleanly_or_open_cleanly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
