/* test_npy.c: cmocka suite for the .npy reader and writer (sw/lib/tsr_npy.c); files are made in a temp dir. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, rmdir */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsr_npy.h"
#include "../common/tsr_cmocka_ext.h"

/* ---- scratch directory ---- */

#define MAX_FILES 128

static char g_dir[256];
static char g_files[MAX_FILES][320];
static size_t g_nfiles;

/* Full path of a file in the scratch directory (remembered for cleanup). */
static const char *tmp_path(const char *name) {
  for (size_t i = 0; i < g_nfiles; i++) {
    const char *base = strrchr(g_files[i], '/') + 1;
    if (strcmp(base, name) == 0) {
      return g_files[i];
    }
  }
  if (g_nfiles == MAX_FILES) {
    fail_msg("too many scratch files; raise MAX_FILES");
  }
  snprintf(g_files[g_nfiles], sizeof g_files[0], "%s/%s", g_dir, name);
  return g_files[g_nfiles++];
}

static int setup_dir(void **state) {
  (void)state;
  const char *base = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/tsr_npy_test.XXXXXX", base != NULL && base[0] != '\0' ? base : "/tmp");
  if (mkdtemp(g_dir) == NULL) {
    fprintf(stderr, "test_npy: cannot create a scratch directory from %s\n", g_dir);
    return -1;
  }
  return 0;
}

static int teardown_dir(void **state) {
  (void)state;
  for (size_t i = 0; i < g_nfiles; i++) {
    remove(g_files[i]); /* may not exist: ignore */
  }
  return rmdir(g_dir) == 0 ? 0 : -1;
}

/* ---- building files by hand ---- */

static void write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) {
    fail_msg("cannot create %s", path);
  }
  if (n > 0 && fwrite(data, 1, n, f) != n) {
    fail_msg("cannot write %s", path);
  }
  fclose(f);
}

/* A .npy file with version major.minor, the header text as given (no
 * padding added) and `data_len` bytes of data. Returns the path. */
static const char *make_npy(const char *name, unsigned major, unsigned minor, const char *header,
                            const void *data, size_t data_len) {
  const size_t hlen = strlen(header);
  unsigned char *buf = malloc(12 + hlen + data_len);
  assert_non_null(buf);
  size_t n = 0;
  memcpy(buf, "\x93NUMPY", 6);
  n = 6;
  buf[n++] = (unsigned char)major;
  buf[n++] = (unsigned char)minor;
  buf[n++] = (unsigned char)(hlen & 0xff);
  buf[n++] = (unsigned char)((hlen >> 8) & 0xff);
  if (major >= 2) {
    buf[n++] = (unsigned char)((hlen >> 16) & 0xff);
    buf[n++] = (unsigned char)((hlen >> 24) & 0xff);
  }
  memcpy(buf + n, header, hlen);
  n += hlen;
  if (data_len > 0) {
    memcpy(buf + n, data, data_len);
    n += data_len;
  }
  const char *path = tmp_path(name);
  write_bytes(path, buf, n);
  free(buf);
  return path;
}

/* Read must fail with a message "<path>: ..." that contains `problem`. */
static void expect_read_error(const char *path, const char *problem) {
  tsr_npy_t arr;
  char err[256];
  memset(err, 'x', sizeof err);
  const int rc = tsr_npy_read(path, &arr, err, sizeof err);
  if (rc != -1) {
    fail_msg("reading %s succeeded; expected an error containing \"%s\"", path, problem);
  }
  if (memchr(err, '\0', sizeof err) == NULL) {
    fail_msg("error message for %s is not NUL-terminated", path);
  }
  const size_t plen = strlen(path);
  if (strncmp(err, path, plen) != 0 || strncmp(err + plen, ": ", 2) != 0) {
    fail_msg("message \"%s\" does not start with \"%s: \"", err, path);
  }
  if (strstr(err, problem) == NULL) {
    fail_msg("message \"%s\" does not contain \"%s\"", err, problem);
  }
  if (strchr(err, '\n') != NULL) {
    fail_msg("message \"%s\" is not one line", err);
  }
  if (arr.data != NULL || arr.count != 0) {
    fail_msg("a failed read left data in the tensor");
  }
  tsr_npy_free(&arr); /* must be safe after a failure */
}

/* ---- round trips ---- */

/* Fill count elements of dtype with values that include the type's extremes. */
static void fill_pattern(tsr_npy_dtype_t dt, void *data, size_t count) {
  for (size_t i = 0; i < count; i++) {
    switch (dt) {
      case TSR_NPY_INT8: {
        static const int8_t v[] = {INT8_MIN, INT8_MAX, -1, 0, 1, 42, -42};
        ((int8_t *)data)[i] = v[i % 7];
        break;
      }
      case TSR_NPY_UINT8: {
        static const uint8_t v[] = {0, 255, 128, 127, 1, 200};
        ((uint8_t *)data)[i] = v[i % 6];
        break;
      }
      case TSR_NPY_INT32: {
        static const int32_t v[] = {INT32_MIN, INT32_MAX, -1, 0, 0x01020304, -123456789};
        ((int32_t *)data)[i] = v[i % 6];
        break;
      }
      case TSR_NPY_FLOAT32: {
        const float v[] = {1.5f, -0.0f, INFINITY, -3.25e-38f, 1e-45f, NAN, 123456.789f};
        ((float *)data)[i] = v[i % 7];
        break;
      }
      default:
        fail_msg("bad dtype");
    }
  }
}

/* Write a tensor of the given dtype and shape, read it back, compare. */
static void round_trip(tsr_npy_dtype_t dt, int ndim, const size_t *shape) {
  tsr_npy_t arr = {.dtype = dt, .ndim = ndim, .count = 1};
  for (int d = 0; d < ndim; d++) {
    arr.shape[d] = shape[d];
    arr.count *= shape[d];
  }
  const size_t nbytes = arr.count * tsr_npy_dtype_size(dt);
  arr.data = malloc(nbytes > 0 ? nbytes : 1);
  assert_non_null(arr.data);
  fill_pattern(dt, arr.data, arr.count);

  char name[64];
  snprintf(name, sizeof name, "rt_%s_%dd_%zu.npy", tsr_npy_dtype_name(dt), ndim, arr.count);
  const char *path = tmp_path(name);
  char err[256];
  if (tsr_npy_write(path, &arr, err, sizeof err) != 0) {
    fail_msg("write failed: %s", err);
  }

  tsr_npy_t back;
  if (tsr_npy_read(path, &back, err, sizeof err) != 0) {
    fail_msg("read failed: %s", err);
  }
  if (back.dtype != dt || back.ndim != ndim || back.count != arr.count) {
    fail_msg("%s: read back dtype %s ndim %d count %zu, wrote %s ndim %d count %zu", name,
             tsr_npy_dtype_name(back.dtype), back.ndim, back.count, tsr_npy_dtype_name(dt), ndim, arr.count);
  }
  for (int d = 0; d < ndim; d++) {
    assert_i64(back.shape[d], shape[d]);
  }
  assert_non_null(back.data);
  if (nbytes > 0 && memcmp(back.data, arr.data, nbytes) != 0) {
    fail_msg("%s: data differs after the round trip", name);
  }
  tsr_npy_free(&back);
  assert_null(back.data);
  tsr_npy_free(&back); /* twice is fine */
  free(arr.data);
}

static void write_then_read_round_trips_every_dtype_and_ndim_0_to_3(void **state) {
  (void)state;
  static const size_t shapes[4][3] = {{0, 0, 0}, {5, 0, 0}, {2, 3, 0}, {2, 3, 4}};
  const tsr_npy_dtype_t dtypes[] = {TSR_NPY_INT8, TSR_NPY_UINT8, TSR_NPY_INT32, TSR_NPY_FLOAT32};
  for (size_t t = 0; t < 4; t++) {
    for (int ndim = 0; ndim <= 3; ndim++) {
      round_trip(dtypes[t], ndim, shapes[ndim]);
    }
  }
}

static void round_trip_keeps_zero_sized_dimensions(void **state) {
  (void)state;
  const size_t zero1[1] = {0};
  const size_t zero2[2] = {2, 0};
  round_trip(TSR_NPY_INT32, 1, zero1);
  round_trip(TSR_NPY_INT8, 2, zero2);
}

static void written_file_has_numpy_layout_64_byte_header_and_little_endian_data(void **state) {
  (void)state;
  int32_t values[6] = {0x01020304, -2, 0, 0, 0, 0};
  tsr_npy_t arr = {.dtype = TSR_NPY_INT32, .ndim = 2, .shape = {2, 3}, .count = 6, .data = values};
  const char *path = tmp_path("layout.npy");
  char err[256];
  assert_i64(tsr_npy_write(path, &arr, err, sizeof err), 0);

  unsigned char buf[256];
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  const size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);

  /* magic, version 1.0, header length 118: 10 + 118 = 128 = 2 * 64 */
  assert_i64(n, 128 + 24);
  assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
  assert_i64(buf[8] | (buf[9] << 8), 118);
  const char dict[] = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  assert_memory_equal(buf + 10, dict, strlen(dict));
  for (size_t i = 10 + strlen(dict); i < 127; i++) {
    assert_i64(buf[i], ' ');
  }
  assert_i64(buf[127], '\n');
  /* 0x01020304 little-endian, then -2 = fe ff ff ff */
  assert_memory_equal(buf + 128, "\x04\x03\x02\x01\xfe\xff\xff\xff", 8);

  /* Shapes of rank 0 and 1 are written as Python writes tuples. */
  int8_t one = 7;
  tsr_npy_t scalar = {.dtype = TSR_NPY_INT8, .ndim = 0, .count = 1, .data = &one};
  assert_i64(tsr_npy_write(path, &scalar, err, sizeof err), 0);
  f = fopen(path, "rb");
  assert_non_null(f);
  memset(buf, 0, sizeof buf);
  assert_i64(fread(buf, 1, sizeof buf, f), 129);
  fclose(f);
  assert_memory_equal(buf + 10, "{'descr': '|i1', 'fortran_order': False, 'shape': (), }", 55);
  assert_i64(buf[128], 7);

  int8_t three[3] = {1, 2, 3};
  tsr_npy_t vec = {.dtype = TSR_NPY_UINT8, .ndim = 1, .shape = {3}, .count = 3, .data = three};
  assert_i64(tsr_npy_write(path, &vec, err, sizeof err), 0);
  f = fopen(path, "rb");
  assert_non_null(f);
  memset(buf, 0, sizeof buf);
  assert_i64(fread(buf, 1, sizeof buf, f), 131);
  fclose(f);
  assert_memory_equal(buf + 10, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", 57);
  assert_memory_equal(buf + 128, "\x01\x02\x03", 3);
}

/* ---- reading other writers' files ---- */

static void read_accepts_version_2_0_and_3_0_headers(void **state) {
  (void)state;
  const unsigned char data[8] = {0x04, 0x03, 0x02, 0x01, 0xff, 0xff, 0xff, 0x7f};
  const char *hdr = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }          \n";
  for (unsigned major = 2; major <= 3; major++) {
    const char *path = make_npy(major == 2 ? "v2.npy" : "v3.npy", major, 0, hdr, data, sizeof data);
    tsr_npy_t arr;
    char err[256];
    if (tsr_npy_read(path, &arr, err, sizeof err) != 0) {
      fail_msg("version %u.0: %s", major, err);
    }
    assert_i64(arr.dtype, TSR_NPY_INT32);
    assert_i64(arr.ndim, 1);
    assert_i64(arr.shape[0], 2);
    assert_i64(((int32_t *)arr.data)[0], 0x01020304);
    assert_i64(((int32_t *)arr.data)[1], INT32_MAX);
    tsr_npy_free(&arr);
  }
}

static void read_accepts_any_key_order_quotes_spacing_and_python2_long_suffix(void **state) {
  (void)state;
  const float data[4] = {1.0f, 2.0f, -3.0f, 0.5f};
  /* Little-endian host assumed for building the bytes of this file. */
  const char *path = make_npy("styles.npy", 1, 0,
                              "{\"shape\":(2L,2L),\"fortran_order\":False,\"descr\":\"<f4\"}\n", data,
                              sizeof data);
  tsr_npy_t arr;
  char err[256];
  if (tsr_npy_read(path, &arr, err, sizeof err) != 0) {
    fail_msg("%s", err);
  }
  assert_i64(arr.dtype, TSR_NPY_FLOAT32);
  assert_i64(arr.ndim, 2);
  assert_i64(arr.shape[0], 2);
  assert_i64(arr.shape[1], 2);
  assert_memory_equal(arr.data, data, sizeof data);
  tsr_npy_free(&arr);

  /* One-byte types ignore byte order: '<i1' and '>u1' are fine. */
  const int8_t bytes[2] = {-5, 6};
  path = make_npy("i1le.npy", 1, 0, "{'descr': '<i1', 'fortran_order': False, 'shape': (1, 2)}", bytes, 2);
  assert_i64(tsr_npy_read(path, &arr, err, sizeof err), 0);
  assert_i64(arr.dtype, TSR_NPY_INT8);
  assert_i64(((int8_t *)arr.data)[0], -5);
  tsr_npy_free(&arr);
  path = make_npy("u1be.npy", 1, 0, "{'descr': '>u1', 'fortran_order': False, 'shape': (2,)}", bytes, 2);
  assert_i64(tsr_npy_read(path, &arr, err, sizeof err), 0);
  assert_i64(arr.dtype, TSR_NPY_UINT8);
  assert_i64(((uint8_t *)arr.data)[0], 251);
  tsr_npy_free(&arr);
}

static void read_scalar_shape_gives_ndim_0_and_count_1(void **state) {
  (void)state;
  const int32_t v = -77;
  const char *path = make_npy("scalar.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n", &v,
                              sizeof v);
  tsr_npy_t arr;
  char err[256];
  assert_i64(tsr_npy_read(path, &arr, err, sizeof err), 0);
  assert_i64(arr.ndim, 0);
  assert_i64(arr.count, 1);
  assert_i64(*(int32_t *)arr.data, -77);
  tsr_npy_free(&arr);
}

/* ---- malformed files: each gives -1 and names the path and the problem ---- */

static const char kGoodHdr[] = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }\n";
static const unsigned char kData24[24] = {0};

static void read_reports_a_missing_file(void **state) {
  (void)state;
  expect_read_error(tmp_path("does_not_exist.npy"), "cannot open: No such file");
}

static void read_reports_bad_magic(void **state) {
  (void)state;
  const char *path = tmp_path("text.npy");
  write_bytes(path, "hello, world\n", 13);
  expect_read_error(path, "bad magic");
  path = tmp_path("empty.npy");
  write_bytes(path, "", 0);
  expect_read_error(path, "bad magic: the file is empty");
  path = tmp_path("almost.npy");
  write_bytes(path, "\x93NUMPZ\x01\x00", 8);
  expect_read_error(path, "bad magic");
}

static void read_reports_unsupported_version(void **state) {
  (void)state;
  expect_read_error(make_npy("v4.npy", 4, 0, kGoodHdr, kData24, 24), "unsupported .npy version 4.0");
  expect_read_error(make_npy("v11.npy", 1, 1, kGoodHdr, kData24, 24), "unsupported .npy version 1.1");
  expect_read_error(make_npy("v0.npy", 0, 0, kGoodHdr, kData24, 24), "unsupported .npy version 0.0");
}

static void read_reports_truncated_header(void **state) {
  (void)state;
  const char *path = tmp_path("cut_magic.npy");
  write_bytes(path, "\x93NUM", 4);
  expect_read_error(path, "truncated header: file ends after 4 bytes");
  path = tmp_path("cut_version.npy");
  write_bytes(path, "\x93NUMPY\x01", 7);
  expect_read_error(path, "truncated header");
  path = tmp_path("cut_len.npy");
  write_bytes(path, "\x93NUMPY\x02\x00\x10\x00", 10); /* v2 needs 4 length bytes */
  expect_read_error(path, "truncated header: file ends inside the header length field");
  path = tmp_path("cut_text.npy");
  write_bytes(path, "\x93NUMPY\x01\x00\x76\x00{'descr': '<i4', ", 10 + 17);
  expect_read_error(path, "truncated header: expected 118 header bytes, found 17");
}

static void read_reports_absurd_or_empty_header_length(void **state) {
  (void)state;
  const char *path = tmp_path("huge_hlen.npy");
  write_bytes(path, "\x93NUMPY\x02\x00\xff\xff\xff\x7f{", 13);
  expect_read_error(path, "header length 2147483647 is absurd");
  path = tmp_path("zero_hlen.npy");
  write_bytes(path, "\x93NUMPY\x01\x00\x00\x00", 10);
  expect_read_error(path, "header length is 0");
}

static void read_reports_header_that_is_not_a_valid_dict(void **state) {
  (void)state;
  expect_read_error(make_npy("nodict.npy", 1, 0, "descr = <i4\n", kData24, 24),
                    "header is not a valid dict: expected '{' at byte 0");
  expect_read_error(make_npy("unclosed.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)\n",
                             kData24, 24),
                    "header is not a valid dict: expected ',' or '}'");
  expect_read_error(make_npy("nocolon.npy", 1, 0, "{'descr' '<i4'}\n", kData24, 24),
                    "header is not a valid dict: expected ':' after a key");
  expect_read_error(make_npy("unterminated.npy", 1, 0, "{'descr: '<i4'}", kData24, 24),
                    "header is not a valid dict");
  expect_read_error(
      make_npy("after.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)} junk\n", kData24, 24),
      "header is not a valid dict: unexpected text after the dict");
  expect_read_error(make_npy("bool.npy", 1, 0, "{'descr': '<i4', 'fortran_order': 0, 'shape': (2, 3)}\n", kData24,
                             24),
                    "fortran_order must be True or False");
  /* A NUL byte inside the header. */
  const char nul_hdr[] = "{'descr': '<i4',\0'fortran_order': False, 'shape': (2, 3)}\n";
  const char *path = tmp_path("nul.npy");
  unsigned char buf[10 + sizeof nul_hdr - 1 + 24];
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (unsigned char)(sizeof nul_hdr - 1);
  buf[9] = 0;
  memcpy(buf + 10, nul_hdr, sizeof nul_hdr - 1);
  memset(buf + 10 + sizeof nul_hdr - 1, 0, 24);
  write_bytes(path, buf, sizeof buf);
  expect_read_error(path, "found byte 0x00");
}

static void read_reports_missing_unexpected_and_duplicate_keys(void **state) {
  (void)state;
  expect_read_error(make_npy("noshape.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False}\n", kData24, 24),
                    "header is missing key 'shape'");
  expect_read_error(make_npy("nodescr.npy", 1, 0, "{'fortran_order': False, 'shape': (2, 3)}\n", kData24, 24),
                    "header is missing key 'descr'");
  expect_read_error(make_npy("nofortran.npy", 1, 0, "{'descr': '<i4', 'shape': (2, 3)}\n", kData24, 24),
                    "header is missing key 'fortran_order'");
  expect_read_error(
      make_npy("extra.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}\n", kData24,
               24),
      "header has unexpected key 'x'");
  expect_read_error(
      make_npy("dup.npy", 1, 0, "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)}\n",
               kData24, 24),
      "header has duplicate key 'descr'");
}

static void read_rejects_fortran_order_true(void **state) {
  (void)state;
  expect_read_error(
      make_npy("fortran.npy", 1, 0, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }\n", kData24, 24),
      "Fortran order is not supported; save with np.ascontiguousarray");
}

static void read_rejects_unsupported_dtypes_naming_them(void **state) {
  (void)state;
  expect_read_error(make_npy("f8.npy", 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\n", kData24,
                             24),
                    "unsupported dtype float64 (supported: int8, uint8, int32, float32)");
  expect_read_error(make_npy("be.npy", 1, 0, "{'descr': '>i4', 'fortran_order': False, 'shape': (2, 3), }\n",
                             kData24, 24),
                    "unsupported dtype big-endian int32: save it little-endian, np.save(path, x.astype('<i4'))");
  expect_read_error(make_npy("i8.npy", 1, 0, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }\n", kData24,
                             24),
                    "unsupported dtype int64 (supported");
  expect_read_error(make_npy("i2.npy", 1, 0, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }\n", kData24,
                             6),
                    "unsupported dtype int16 (supported");
  expect_read_error(make_npy("bi2.npy", 1, 0, "{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }\n", kData24,
                             6),
                    "unsupported dtype big-endian int16 (supported");
  expect_read_error(make_npy("odd.npy", 1, 0, "{'descr': '<q9x', 'fortran_order': False, 'shape': (3,), }\n", kData24,
                             6),
                    "unsupported dtype '<q9x' (supported");
  expect_read_error(
      make_npy("rec.npy", 1, 0, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (6,), }\n", kData24, 24),
      "unsupported dtype: structured");
}

static void read_rejects_bad_shapes(void **state) {
  (void)state;
  expect_read_error(make_npy("neg.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (-1, 3), }\n",
                             kData24, 24),
                    "bad shape: negative dimension -1");
  expect_read_error(make_npy("bigdim.npy", 1, 0,
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999999,), }\n",
                             kData24, 24),
                    "overflows size_t");
  expect_read_error(make_npy("bigprod.npy", 1, 0,
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }\n",
                             kData24, 24),
                    "bad shape: the element count overflows size_t");
  expect_read_error(make_npy("bigbytes.npy", 1, 0,
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (4611686018427387904,), }\n",
                             kData24, 24),
                    "bad shape: the data size");
  expect_read_error(make_npy("ninedims.npy", 1, 0,
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }\n", kData24,
                             24),
                    "bad shape: more than 8 dimensions");
  expect_read_error(make_npy("notuple.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (6), }\n",
                             kData24, 24),
                    "a single dimension needs a trailing comma");
  expect_read_error(make_npy("list.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': [2, 3], }\n",
                             kData24, 24),
                    "shape must be a tuple");
  expect_read_error(make_npy("float.npy", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (2.0, 3), }\n",
                             kData24, 24),
                    "expected ',' or ')' in shape");
}

static void read_accepts_an_empty_array_whose_other_dimensions_are_huge(void **state) {
  (void)state;
  /* The product is 0, even though 2^32 * 2^32 alone would overflow. */
  const char *path = make_npy("empty_huge.npy", 1, 0,
                              "{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0), }\n",
                              NULL, 0);
  tsr_npy_t arr;
  char err[256];
  if (tsr_npy_read(path, &arr, err, sizeof err) != 0) {
    fail_msg("%s", err);
  }
  assert_i64(arr.ndim, 3);
  assert_i64(arr.count, 0);
  assert_non_null(arr.data);
  tsr_npy_free(&arr);
}

static void read_reports_data_shorter_than_the_shape(void **state) {
  (void)state;
  expect_read_error(make_npy("short.npy", 1, 0, kGoodHdr, kData24, 20),
                    "truncated: expected 24 bytes of data, found 20");
  expect_read_error(make_npy("nodata.npy", 1, 0, kGoodHdr, NULL, 0), "truncated: expected 24 bytes of data, found 0");
  /* A huge shape with a tiny file is found out before anything is allocated. */
  expect_read_error(make_npy("liar.npy", 1, 0, "{'descr': '|u1', 'fortran_order': False, 'shape': (1000000000000,), }\n",
                             kData24, 24),
                    "truncated: expected 1000000000000 bytes of data, found 24");
}

static void read_rejects_trailing_data(void **state) {
  (void)state;
  unsigned char data[27] = {0};
  expect_read_error(make_npy("trailing.npy", 1, 0, kGoodHdr, data, sizeof data),
                    "3 bytes of trailing data after the 24 data bytes");
}

static void error_message_is_truncated_safely_and_err_may_be_null(void **state) {
  (void)state;
  const char *path = tmp_path("does_not_exist_either.npy");
  char small[8];
  memset(small, 'x', sizeof small);
  tsr_npy_t arr;
  assert_i64(tsr_npy_read(path, &arr, small, sizeof small), -1);
  assert_i64(strlen(small), 7);
  assert_memory_equal(small, path, 7);
  assert_i64(tsr_npy_read(path, &arr, NULL, 0), -1);
  char one[1] = {'x'};
  assert_i64(tsr_npy_read(path, &arr, one, 0), -1);
  assert_i64(one[0], 'x'); /* errlen 0: the buffer is not touched */
  char err[128];
  assert_i64(tsr_npy_read(NULL, &arr, err, sizeof err), -1);
  assert_non_null(strstr(err, "path is NULL"));
  assert_i64(tsr_npy_read(path, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "out is NULL"));
  tsr_npy_free(NULL);
}

/* ---- write errors ---- */

static void write_rejects_inconsistent_tensors_without_creating_a_file(void **state) {
  (void)state;
  int32_t values[6] = {0};
  char err[256];
  const char *path = tmp_path("never_written.npy");
  struct {
    tsr_npy_t arr;
    const char *problem;
  } cases[] = {
      {{.dtype = TSR_NPY_INT32, .ndim = 2, .shape = {2, 3}, .count = 5, .data = values},
       "count 5 does not match the shape (6 elements)"},
      {{.dtype = TSR_NPY_INT32, .ndim = 1, .shape = {6}, .count = 6, .data = NULL}, "data is NULL"},
      {{.dtype = TSR_NPY_INT32, .ndim = 9, .count = 1, .data = values}, "ndim 9 is outside 0..8"},
      {{.dtype = TSR_NPY_INT32, .ndim = -1, .count = 1, .data = values}, "ndim -1 is outside 0..8"},
      {{.dtype = (tsr_npy_dtype_t)17, .ndim = 1, .shape = {6}, .count = 6, .data = values}, "unknown dtype 17"},
      {{.dtype = TSR_NPY_INT32, .ndim = 3, .shape = {SIZE_MAX / 2, 4, 1}, .count = 0, .data = values},
       "overflows size_t"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    memset(err, 0, sizeof err);
    assert_i64(tsr_npy_write(path, &cases[i].arr, err, sizeof err), -1);
    if (strstr(err, path) != err || strstr(err, cases[i].problem) == NULL) {
      fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, err, cases[i].problem);
    }
    if (access(path, F_OK) == 0) {
      fail_msg("case %zu: a file was created for an invalid tensor", i);
    }
  }
  assert_i64(tsr_npy_write(path, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "invalid tensor: NULL"));
}

static void write_reports_a_path_that_cannot_be_created(void **state) {
  (void)state;
  int8_t v = 1;
  tsr_npy_t arr = {.dtype = TSR_NPY_INT8, .ndim = 0, .count = 1, .data = &v};
  char path[400];
  snprintf(path, sizeof path, "%s/no_such_dir/x.npy", g_dir);
  char err[512];
  assert_i64(tsr_npy_write(path, &arr, err, sizeof err), -1);
  if (strstr(err, path) != err || strstr(err, "cannot create: No such file") == NULL) {
    fail_msg("message \"%s\"", err);
  }
}

static void write_reports_a_full_disk(void **state) {
  (void)state;
  if (access("/dev/full", W_OK) != 0) {
    skip(); /* not Linux */
  }
  int32_t values[4096] = {0}; /* more than stdio buffers, so fwrite or fclose fails */
  tsr_npy_t arr = {.dtype = TSR_NPY_INT32, .ndim = 1, .shape = {4096}, .count = 4096, .data = values};
  char err[256];
  assert_i64(tsr_npy_write("/dev/full", &arr, err, sizeof err), -1);
  if (strstr(err, "/dev/full: write failed: No space left on device") != err) {
    fail_msg("message \"%s\"", err);
  }
  assert_i64(access("/dev/full", W_OK), 0); /* still there */
}

static void dtype_names_and_sizes(void **state) {
  (void)state;
  assert_string_equal(tsr_npy_dtype_name(TSR_NPY_INT8), "int8");
  assert_string_equal(tsr_npy_dtype_name(TSR_NPY_UINT8), "uint8");
  assert_string_equal(tsr_npy_dtype_name(TSR_NPY_INT32), "int32");
  assert_string_equal(tsr_npy_dtype_name(TSR_NPY_FLOAT32), "float32");
  assert_string_equal(tsr_npy_dtype_name((tsr_npy_dtype_t)99), "invalid");
  assert_i64(tsr_npy_dtype_size(TSR_NPY_INT8), 1);
  assert_i64(tsr_npy_dtype_size(TSR_NPY_UINT8), 1);
  assert_i64(tsr_npy_dtype_size(TSR_NPY_INT32), 4);
  assert_i64(tsr_npy_dtype_size(TSR_NPY_FLOAT32), 4);
  assert_i64(tsr_npy_dtype_size((tsr_npy_dtype_t)99), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(write_then_read_round_trips_every_dtype_and_ndim_0_to_3),
      cmocka_unit_test(round_trip_keeps_zero_sized_dimensions),
      cmocka_unit_test(written_file_has_numpy_layout_64_byte_header_and_little_endian_data),
      cmocka_unit_test(read_accepts_version_2_0_and_3_0_headers),
      cmocka_unit_test(read_accepts_any_key_order_quotes_spacing_and_python2_long_suffix),
      cmocka_unit_test(read_scalar_shape_gives_ndim_0_and_count_1),
      cmocka_unit_test(read_reports_a_missing_file),
      cmocka_unit_test(read_reports_bad_magic),
      cmocka_unit_test(read_reports_unsupported_version),
      cmocka_unit_test(read_reports_truncated_header),
      cmocka_unit_test(read_reports_absurd_or_empty_header_length),
      cmocka_unit_test(read_reports_header_that_is_not_a_valid_dict),
      cmocka_unit_test(read_reports_missing_unexpected_and_duplicate_keys),
      cmocka_unit_test(read_rejects_fortran_order_true),
      cmocka_unit_test(read_rejects_unsupported_dtypes_naming_them),
      cmocka_unit_test(read_rejects_bad_shapes),
      cmocka_unit_test(read_accepts_an_empty_array_whose_other_dimensions_are_huge),
      cmocka_unit_test(read_reports_data_shorter_than_the_shape),
      cmocka_unit_test(read_rejects_trailing_data),
      cmocka_unit_test(error_message_is_truncated_safely_and_err_may_be_null),
      cmocka_unit_test(write_rejects_inconsistent_tensors_without_creating_a_file),
      cmocka_unit_test(write_reports_a_path_that_cannot_be_created),
      cmocka_unit_test(write_reports_a_full_disk),
      cmocka_unit_test(dtype_names_and_sizes),
  };
  return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
