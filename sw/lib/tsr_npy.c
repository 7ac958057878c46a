/* tsr_npy.c: NumPy .npy reader and writer for the tensor types Tessera uses. */
#include "tsr_npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_le.h"

/*
 * File layout (NumPy's format.py, "The .npy format"):
 *   6 bytes  magic "\x93NUMPY"
 *   2 bytes  major, minor version
 *   2 bytes  (v1) or 4 bytes (v2, v3) little-endian header length HLEN
 *   HLEN     a Python dict literal such as
 *            {'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }
 *            padded with spaces and ended by '\n'
 *   data     count * itemsize bytes, C order
 * The header is parsed by a small recursive-descent parser that accepts
 * exactly this dict grammar, with offsets into the header in its messages.
 */

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6u
#define NPY_MAX_HEADER_LEN (1024u * 1024u) /* NumPy writes < 200 bytes for these dtypes */
#define NPY_ALIGN 64u
#define NPY_MAX_SHOWN 40 /* longest header text quoted in a message */

#if defined(__GNUC__)
#define NPY_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define NPY_PRINTF(fmt_idx, arg_idx)
#endif

/* Write "<path>: <problem>" into err; always NUL-terminates a non-empty buffer. */
static void set_err(char *err, size_t errlen, const char *path, const char *fmt, ...) NPY_PRINTF(4, 5);
static void set_err(char *err, size_t errlen, const char *path, const char *fmt, ...) {
  if (err == NULL || errlen == 0) {
    return;
  }
  const int n = snprintf(err, errlen, "%s: ", path != NULL ? path : "(null)");
  if (n < 0) {
    err[0] = '\0';
    return;
  }
  if ((size_t)n >= errlen) {
    return; /* already truncated and terminated by snprintf */
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
  va_end(ap);
}

const char *tsr_npy_dtype_name(tsr_npy_dtype_t dt) {
  switch (dt) {
    case TSR_NPY_INT8:
      return "int8";
    case TSR_NPY_UINT8:
      return "uint8";
    case TSR_NPY_INT32:
      return "int32";
    case TSR_NPY_FLOAT32:
      return "float32";
    default:
      return "invalid";
  }
}

size_t tsr_npy_dtype_size(tsr_npy_dtype_t dt) {
  switch (dt) {
    case TSR_NPY_INT8:
    case TSR_NPY_UINT8:
      return 1;
    case TSR_NPY_INT32:
    case TSR_NPY_FLOAT32:
      return 4;
    default:
      return 0;
  }
}

/* The descr this writer emits for a dtype. */
static const char *dtype_descr(tsr_npy_dtype_t dt) {
  switch (dt) {
    case TSR_NPY_INT8:
      return "|i1";
    case TSR_NPY_UINT8:
      return "|u1";
    case TSR_NPY_INT32:
      return "<i4";
    case TSR_NPY_FLOAT32:
      return "<f4";
    default:
      return NULL;
  }
}

/* Map a descr string to a dtype; -1 if unsupported. */
static int descr_to_dtype(const char *s, size_t len, tsr_npy_dtype_t *dt) {
  static const struct {
    const char *descr;
    tsr_npy_dtype_t dtype;
  } table[] = {
      {"|i1", TSR_NPY_INT8},  {"<i1", TSR_NPY_INT8},  {">i1", TSR_NPY_INT8},
      {"|u1", TSR_NPY_UINT8}, {"<u1", TSR_NPY_UINT8}, {">u1", TSR_NPY_UINT8},
      {"<i4", TSR_NPY_INT32}, {"<f4", TSR_NPY_FLOAT32},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (strlen(table[i].descr) == len && memcmp(table[i].descr, s, len) == 0) {
      *dt = table[i].dtype;
      return 0;
    }
  }
  return -1;
}

/* A descr ('<i2', '>f8', '|b1', ...) in words: "int16", "big-endian float64", "bool";
 * *big is set for a multi-byte big-endian type. The text of an unknown kind is the descr. */
static void descr_words(const char *s, size_t len, char *buf, size_t bufsz, int *big) {
  *big = 0;
  const char *kind = NULL;
  if (len >= 3 && strchr("<>|=", s[0]) != NULL) {
    switch (s[1]) {
      case 'i': kind = "int"; break;
      case 'u': kind = "uint"; break;
      case 'f': kind = "float"; break;
      case 'c': kind = "complex"; break;
      case 'b': kind = "bool"; break;
      case 'U': kind = "unicode string"; break;
      case 'S': kind = "byte string"; break;
      case 'O': kind = "Python object"; break;
      case 'M': kind = "datetime64"; break;
      case 'm': kind = "timedelta64"; break;
      default: break;
    }
  }
  unsigned bytes = 0;
  for (size_t i = 2; kind != NULL && i < len; i++) {
    if (s[i] < '0' || s[i] > '9' || bytes > 1000u) {
      kind = NULL;
    } else {
      bytes = bytes * 10u + (unsigned)(s[i] - '0');
    }
  }
  if (kind == NULL) {
    snprintf(buf, bufsz, "'%.*s'", len > NPY_MAX_SHOWN ? NPY_MAX_SHOWN : (int)len, s);
    return;
  }
  *big = s[0] == '>' && bytes > 1u;
  const int sized = s[1] == 'i' || s[1] == 'u' || s[1] == 'f' || s[1] == 'c';
  if (sized) {
    snprintf(buf, bufsz, "%s%s%u", *big ? "big-endian " : "", kind, 8u * bytes);
  } else {
    snprintf(buf, bufsz, "%s%s", *big ? "big-endian " : "", kind);
  }
}

/* ---- header parser ---- */

typedef struct {
  const char *s; /* header text (not NUL-terminated in general) */
  size_t len;
  size_t pos;
  const char *path;
  char *err;
  size_t errlen;
} hdr_parser_t;

/* What the header said. */
typedef struct {
  int have_descr, have_fortran, have_shape;
  tsr_npy_dtype_t dtype;
  int fortran_order;
  int ndim;
  size_t shape[TSR_NPY_MAX_DIMS];
} hdr_info_t;

static int at_end(const hdr_parser_t *p) {
  return p->pos >= p->len;
}

/* The next header character, or '\0' at the end. A NUL inside the header
 * also reads as '\0'; it matches nothing the grammar expects. */
static char peek(const hdr_parser_t *p) {
  return at_end(p) ? '\0' : p->s[p->pos];
}

static void skip_ws(hdr_parser_t *p) {
  while (!at_end(p) && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
                        p->s[p->pos] == '\r')) {
    p->pos++;
  }
}

/* Report a syntax error at the current position. Always returns -1. */
static int syntax_error(hdr_parser_t *p, const char *what) {
  if (at_end(p)) {
    set_err(p->err, p->errlen, p->path, "header is not a valid dict: %s at byte %zu (end of header)", what,
            p->pos);
  } else {
    const unsigned char c = (unsigned char)p->s[p->pos];
    if (c >= 0x20 && c < 0x7f) {
      set_err(p->err, p->errlen, p->path, "header is not a valid dict: %s at byte %zu, found '%c'", what,
              p->pos, (char)c);
    } else {
      set_err(p->err, p->errlen, p->path, "header is not a valid dict: %s at byte %zu, found byte 0x%02x",
              what, p->pos, (unsigned)c);
    }
  }
  return -1;
}

static int expect_char(hdr_parser_t *p, char c, const char *what) {
  if (peek(p) != c) {
    return syntax_error(p, what);
  }
  p->pos++;
  return 0;
}

/* A Python string literal in single or double quotes, without escapes.
 * On success *str and *len describe it inside the header text. */
static int parse_string(hdr_parser_t *p, const char **str, size_t *len) {
  const char quote = peek(p);
  if (quote != '\'' && quote != '"') {
    return syntax_error(p, "expected a quoted string");
  }
  const size_t start = p->pos + 1;
  size_t i = start;
  while (i < p->len && p->s[i] != quote) {
    if (p->s[i] == '\\' || p->s[i] == '\n') {
      p->pos = i;
      return syntax_error(p, "unsupported character in string");
    }
    i++;
  }
  if (i >= p->len) {
    p->pos = i;
    return syntax_error(p, "unterminated string");
  }
  *str = p->s + start;
  *len = i - start;
  p->pos = i + 1;
  return 0;
}

static int matches_word(const hdr_parser_t *p, const char *word) {
  const size_t n = strlen(word);
  return p->len - p->pos >= n && memcmp(p->s + p->pos, word, n) == 0;
}

static int parse_descr(hdr_parser_t *p, hdr_info_t *info) {
  if (peek(p) == '[' || peek(p) == '{') {
    set_err(p->err, p->errlen, p->path,
            "unsupported dtype: structured (record) dtypes are not supported; use int8, uint8, int32 or float32");
    return -1;
  }
  const char *s;
  size_t len;
  if (parse_string(p, &s, &len) != 0) {
    return -1;
  }
  if (descr_to_dtype(s, len, &info->dtype) != 0) {
    char words[64];
    int big = 0;
    descr_words(s, len, words, sizeof words, &big);
    char little[8] = "";
    tsr_npy_dtype_t dt;
    if (big && len < sizeof little) {
      memcpy(little, s, len);
      little[0] = '<'; /* '>i4' -> '<i4': the same type, little-endian */
      little[len] = '\0';
    }
    if (little[0] != '\0' && descr_to_dtype(little, len, &dt) == 0) {
      set_err(p->err, p->errlen, p->path,
              "unsupported dtype %s: save it little-endian, np.save(path, x.astype('%s'))", words,
              little);
    } else {
      set_err(p->err, p->errlen, p->path,
              "unsupported dtype %s (supported: int8, uint8, int32, float32)", words);
    }
    return -1;
  }
  return 0;
}

static int parse_fortran_order(hdr_parser_t *p, hdr_info_t *info) {
  if (matches_word(p, "True")) {
    info->fortran_order = 1;
    p->pos += 4;
  } else if (matches_word(p, "False")) {
    info->fortran_order = 0;
    p->pos += 5;
  } else {
    return syntax_error(p, "fortran_order must be True or False");
  }
  return 0;
}

/* One shape dimension: a non-negative decimal integer (an 'L' suffix, as
 * Python 2 NumPy wrote, is accepted). */
static int parse_dim(hdr_parser_t *p, size_t *dim) {
  if (peek(p) == '-') {
    const size_t start = p->pos;
    size_t i = start + 1;
    while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') {
      i++;
    }
    const int shown = (i - start) > NPY_MAX_SHOWN ? NPY_MAX_SHOWN : (int)(i - start);
    set_err(p->err, p->errlen, p->path, "bad shape: negative dimension %.*s", shown, p->s + start);
    return -1;
  }
  if (!(peek(p) >= '0' && peek(p) <= '9')) {
    return syntax_error(p, "expected a dimension (a non-negative integer) in shape");
  }
  const size_t start = p->pos;
  size_t v = 0;
  while (!at_end(p) && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
    const size_t digit = (size_t)(p->s[p->pos] - '0');
    if (v > (SIZE_MAX - digit) / 10) {
      while (!at_end(p) && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
        p->pos++;
      }
      const size_t n = p->pos - start;
      const int shown = n > NPY_MAX_SHOWN ? NPY_MAX_SHOWN : (int)n;
      set_err(p->err, p->errlen, p->path, "bad shape: dimension %.*s%s overflows size_t", shown, p->s + start,
              n > NPY_MAX_SHOWN ? "..." : "");
      return -1;
    }
    v = v * 10 + digit;
    p->pos++;
  }
  if (peek(p) == 'L' || peek(p) == 'l') {
    p->pos++;
  }
  *dim = v;
  return 0;
}

/* A Python tuple of dimensions: (), (3,), (2, 3) or (2, 3,). */
static int parse_shape(hdr_parser_t *p, hdr_info_t *info) {
  if (peek(p) != '(') {
    return syntax_error(p, "shape must be a tuple such as (2, 3)");
  }
  p->pos++;
  int ndim = 0;
  int trailing_comma = 0;
  skip_ws(p);
  while (peek(p) != ')') {
    size_t dim = 0;
    if (parse_dim(p, &dim) != 0) {
      return -1;
    }
    if (ndim == TSR_NPY_MAX_DIMS) {
      set_err(p->err, p->errlen, p->path, "bad shape: more than %d dimensions", TSR_NPY_MAX_DIMS);
      return -1;
    }
    info->shape[ndim++] = dim;
    skip_ws(p);
    trailing_comma = 0;
    if (peek(p) == ',') {
      p->pos++;
      trailing_comma = 1;
      skip_ws(p);
    } else if (peek(p) != ')') {
      return syntax_error(p, "expected ',' or ')' in shape");
    }
  }
  if (ndim == 1 && !trailing_comma) {
    return syntax_error(p, "shape must be a tuple; a single dimension needs a trailing comma, as (3,)");
  }
  p->pos++; /* ')' */
  info->ndim = ndim;
  return 0;
}

/* Parse the whole header dict into *info and check the three keys. */
static int parse_header(hdr_parser_t *p, hdr_info_t *info) {
  memset(info, 0, sizeof *info);
  skip_ws(p);
  if (expect_char(p, '{', "expected '{'") != 0) {
    return -1;
  }
  for (;;) {
    skip_ws(p);
    if (peek(p) == '}') {
      break;
    }
    const char *key;
    size_t key_len;
    if (parse_string(p, &key, &key_len) != 0) {
      return -1;
    }
    skip_ws(p);
    if (expect_char(p, ':', "expected ':' after a key") != 0) {
      return -1;
    }
    skip_ws(p);

    int *seen;
    int rc;
    if (key_len == 5 && memcmp(key, "descr", 5) == 0) {
      seen = &info->have_descr;
      rc = *seen ? -2 : parse_descr(p, info);
    } else if (key_len == 13 && memcmp(key, "fortran_order", 13) == 0) {
      seen = &info->have_fortran;
      rc = *seen ? -2 : parse_fortran_order(p, info);
    } else if (key_len == 5 && memcmp(key, "shape", 5) == 0) {
      seen = &info->have_shape;
      rc = *seen ? -2 : parse_shape(p, info);
    } else {
      const int shown = key_len > NPY_MAX_SHOWN ? NPY_MAX_SHOWN : (int)key_len;
      set_err(p->err, p->errlen, p->path,
              "header has unexpected key '%.*s' (only 'descr', 'fortran_order' and 'shape' are allowed)", shown, key);
      return -1;
    }
    if (rc == -2) {
      set_err(p->err, p->errlen, p->path, "header has duplicate key '%.*s'", (int)key_len, key);
      return -1;
    }
    if (rc != 0) {
      return -1;
    }
    *seen = 1;

    skip_ws(p);
    if (peek(p) == ',') {
      p->pos++;
    } else if (peek(p) != '}') {
      return syntax_error(p, "expected ',' or '}' after a value");
    }
  }
  p->pos++; /* '}' */
  skip_ws(p);
  if (!at_end(p)) {
    return syntax_error(p, "unexpected text after the dict");
  }

  const char *missing = !info->have_descr     ? "descr"
                        : !info->have_fortran ? "fortran_order"
                        : !info->have_shape   ? "shape"
                                              : NULL;
  if (missing != NULL) {
    set_err(p->err, p->errlen, p->path, "header is missing key '%s'", missing);
    return -1;
  }
  if (info->fortran_order) {
    set_err(p->err, p->errlen, p->path, "Fortran order is not supported; save with np.ascontiguousarray");
    return -1;
  }
  return 0;
}

/* ---- reading ---- */

/* Read the fixed prelude and the header text. On success *hdr is malloc'd. */
static int read_header(FILE *f, const char *path, char **hdr, size_t *hdr_len, char *err, size_t errlen) {
  unsigned char pre[12];
  const size_t got = fread(pre, 1, 8, f);
  if (got < 8 && ferror(f)) {
    set_err(err, errlen, path, "cannot read: %s", strerror(errno));
    return -1;
  }
  if (got == 0) {
    set_err(err, errlen, path, "bad magic: the file is empty, not a .npy file");
    return -1;
  }
  const size_t cmp = got < NPY_MAGIC_LEN ? got : NPY_MAGIC_LEN;
  if (memcmp(pre, NPY_MAGIC, cmp) != 0) {
    set_err(err, errlen, path, "bad magic: not a .npy file (expected \\x93NUMPY)");
    return -1;
  }
  if (got < 8) {
    set_err(err, errlen, path, "truncated header: file ends after %zu bytes, inside the magic and version", got);
    return -1;
  }
  const unsigned major = pre[6];
  const unsigned minor = pre[7];
  if (major < 1 || major > 3 || minor != 0) {
    set_err(err, errlen, path, "unsupported .npy version %u.%u (1.0, 2.0 and 3.0 are supported)", major, minor);
    return -1;
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (fread(pre + 8, 1, len_bytes, f) != len_bytes) {
    set_err(err, errlen, path, "truncated header: file ends inside the header length field");
    return -1;
  }
  const uint32_t len = major == 1 ? ((uint32_t)pre[8] | ((uint32_t)pre[9] << 8)) : tsr_le32_load(pre + 8);
  if (len == 0) {
    set_err(err, errlen, path, "header is not a valid dict: header length is 0");
    return -1;
  }
  if (len > NPY_MAX_HEADER_LEN) {
    set_err(err, errlen, path, "header length %lu is absurd (limit %u bytes)", (unsigned long)len,
            NPY_MAX_HEADER_LEN);
    return -1;
  }
  char *text = malloc(len);
  if (text == NULL) {
    set_err(err, errlen, path, "out of memory reading a %lu-byte header", (unsigned long)len);
    return -1;
  }
  const size_t got_text = fread(text, 1, len, f);
  if (got_text != len) {
    free(text);
    set_err(err, errlen, path, "truncated header: expected %lu header bytes, found %zu", (unsigned long)len,
            got_text);
    return -1;
  }
  *hdr = text;
  *hdr_len = len;
  return 0;
}

/* Bytes left in f from the current position, which is restored. */
static int bytes_left(FILE *f, unsigned long long *left) {
  const long here = ftell(f);
  if (here < 0 || fseek(f, 0, SEEK_END) != 0) {
    return -1;
  }
  const long end = ftell(f);
  if (end < here || fseek(f, here, SEEK_SET) != 0) {
    return -1;
  }
  *left = (unsigned long long)(end - here);
  return 0;
}

static int read_file(FILE *f, const char *path, tsr_npy_t *out, char *err, size_t errlen) {
  char *hdr = NULL;
  size_t hdr_len = 0;
  if (read_header(f, path, &hdr, &hdr_len, err, errlen) != 0) {
    return -1;
  }
  hdr_parser_t parser = {hdr, hdr_len, 0, path, err, errlen};
  hdr_info_t info;
  const int parsed = parse_header(&parser, &info);
  free(hdr);
  if (parsed != 0) {
    return -1;
  }

  /* Element count and byte size, refusing anything that overflows size_t. */
  const size_t itemsize = tsr_npy_dtype_size(info.dtype);
  size_t count = 1;
  for (int d = 0; d < info.ndim; d++) {
    if (info.shape[d] == 0) {
      count = 0;
    }
  }
  for (int d = 0; d < info.ndim && count != 0; d++) {
    if (count > SIZE_MAX / info.shape[d]) {
      set_err(err, errlen, path, "bad shape: the element count overflows size_t");
      return -1;
    }
    count *= info.shape[d];
  }
  if (count > SIZE_MAX / itemsize) {
    set_err(err, errlen, path, "bad shape: the data size (%zu elements of %zu bytes) overflows size_t", count,
            itemsize);
    return -1;
  }
  const size_t nbytes = count * itemsize;

  /* Compare with the file size before allocating, so a lying header cannot
   * make us allocate gigabytes. */
  unsigned long long left;
  if (bytes_left(f, &left) != 0) {
    set_err(err, errlen, path, "cannot determine the file size (not a regular file?)");
    return -1;
  }
  if (left < (unsigned long long)nbytes) {
    set_err(err, errlen, path, "truncated: expected %zu bytes of data, found %llu", nbytes, left);
    return -1;
  }
  if (left > (unsigned long long)nbytes) {
    set_err(err, errlen, path, "%llu bytes of trailing data after the %zu data bytes the header describes",
            left - (unsigned long long)nbytes, nbytes);
    return -1;
  }

  unsigned char *data = malloc(nbytes > 0 ? nbytes : 1);
  if (data == NULL) {
    set_err(err, errlen, path, "out of memory allocating %zu bytes", nbytes);
    return -1;
  }
  const size_t got = fread(data, 1, nbytes, f);
  if (got != nbytes) {
    free(data);
    set_err(err, errlen, path, "truncated: expected %zu bytes of data, found %zu", nbytes, got);
    return -1;
  }
  if (itemsize == 4) {
    for (size_t i = 0; i < count; i++) {
      const uint32_t v = tsr_le32_load(data + 4 * i);
      memcpy(data + 4 * i, &v, 4);
    }
  }

  out->dtype = info.dtype;
  out->ndim = info.ndim;
  for (int d = 0; d < info.ndim; d++) {
    out->shape[d] = info.shape[d];
  }
  out->count = count;
  out->data = data;
  return 0;
}

int tsr_npy_read(const char *path, tsr_npy_t *out, char *err, size_t errlen) {
  if (err != NULL && errlen > 0) {
    err[0] = '\0';
  }
  if (path == NULL || out == NULL) {
    set_err(err, errlen, path, "invalid argument: %s is NULL", path == NULL ? "path" : "out");
    return -1;
  }
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    set_err(err, errlen, path, "cannot open: %s", strerror(errno));
    return -1;
  }
  const int rc = read_file(f, path, out, err, errlen);
  fclose(f);
  return rc;
}

int tsr_npy_read_stream(FILE *f, const char *name, tsr_npy_t *out, char *err, size_t errlen) {
  if (err != NULL && errlen > 0) {
    err[0] = '\0';
  }
  if (f == NULL || out == NULL) {
    set_err(err, errlen, name, "invalid argument: %s is NULL", f == NULL ? "f" : "out");
    return -1;
  }
  memset(out, 0, sizeof *out);
  return read_file(f, name, out, err, errlen);
}

/* ---- writing ---- */

int tsr_npy_check(const tsr_npy_t *arr, const char *path, size_t *nbytes, char *err, size_t errlen) {
  if (arr == NULL) {
    set_err(err, errlen, path, "invalid tensor: NULL");
    return -1;
  }
  const size_t itemsize = tsr_npy_dtype_size(arr->dtype);
  if (itemsize == 0) {
    set_err(err, errlen, path, "invalid tensor: unknown dtype %d", (int)arr->dtype);
    return -1;
  }
  if (arr->ndim < 0 || arr->ndim > TSR_NPY_MAX_DIMS) {
    set_err(err, errlen, path, "invalid tensor: ndim %d is outside 0..%d", arr->ndim, TSR_NPY_MAX_DIMS);
    return -1;
  }
  size_t count = 1;
  int overflow = 0;
  for (int d = 0; d < arr->ndim; d++) {
    if (arr->shape[d] != 0 && count > SIZE_MAX / arr->shape[d]) {
      overflow = 1;
    }
    count *= arr->shape[d];
  }
  for (int d = 0; d < arr->ndim; d++) {
    if (arr->shape[d] == 0) {
      count = 0;
      overflow = 0;
    }
  }
  if (overflow || count > SIZE_MAX / itemsize) {
    set_err(err, errlen, path, "invalid tensor: the shape's size overflows size_t");
    return -1;
  }
  if (count != arr->count) {
    set_err(err, errlen, path, "invalid tensor: count %zu does not match the shape (%zu elements)", arr->count,
            count);
    return -1;
  }
  if (arr->data == NULL && count > 0) {
    set_err(err, errlen, path, "invalid tensor: data is NULL");
    return -1;
  }
  *nbytes = count * itemsize;
  return 0;
}

/* Build the padded header text (dict, spaces, '\n'); returns its length. */
static size_t build_header(const tsr_npy_t *arr, char *buf, size_t bufsz) {
  char shape[TSR_NPY_MAX_DIMS * 24 + 4];
  size_t n = 0;
  shape[n++] = '(';
  for (int d = 0; d < arr->ndim; d++) {
    n += (size_t)snprintf(shape + n, sizeof shape - n, d == 0 ? "%zu" : ", %zu", arr->shape[d]);
  }
  if (arr->ndim == 1) {
    shape[n++] = ',';
  }
  shape[n++] = ')';
  shape[n] = '\0';

  size_t len = (size_t)snprintf(buf, bufsz, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                                dtype_descr(arr->dtype), shape);
  /* Pad with spaces so magic + version + length + header is a multiple of 64. */
  const size_t prelude = NPY_MAGIC_LEN + 2 + 2;
  while ((prelude + len + 1) % NPY_ALIGN != 0) {
    buf[len++] = ' ';
  }
  buf[len++] = '\n';
  return len;
}

static int write_file(FILE *f, const tsr_npy_t *arr, size_t nbytes) {
  char hdr[512];
  const size_t hdr_len = build_header(arr, hdr, sizeof hdr);
  unsigned char pre[10];
  memcpy(pre, NPY_MAGIC, NPY_MAGIC_LEN);
  pre[6] = 1; /* version 1.0 */
  pre[7] = 0;
  pre[8] = (unsigned char)(hdr_len & 0xffu);
  pre[9] = (unsigned char)(hdr_len >> 8);
  if (fwrite(pre, 1, sizeof pre, f) != sizeof pre || fwrite(hdr, 1, hdr_len, f) != hdr_len) {
    return -1;
  }
  if (tsr_npy_dtype_size(arr->dtype) == 1) {
    return fwrite(arr->data, 1, nbytes, f) == nbytes ? 0 : -1;
  }
  /* 4-byte elements: host order to little-endian, a block at a time. */
  const unsigned char *src = arr->data;
  unsigned char block[4096];
  size_t done = 0;
  while (done < nbytes) {
    const size_t chunk = nbytes - done < sizeof block ? nbytes - done : sizeof block;
    for (size_t i = 0; i < chunk; i += 4) {
      uint32_t v;
      memcpy(&v, src + done + i, 4);
      tsr_le32_store(block + i, v);
    }
    if (fwrite(block, 1, chunk, f) != chunk) {
      return -1;
    }
    done += chunk;
  }
  return 0;
}

int tsr_npy_write(const char *path, const tsr_npy_t *arr, char *err, size_t errlen) {
  if (err != NULL && errlen > 0) {
    err[0] = '\0';
  }
  if (path == NULL) {
    set_err(err, errlen, path, "invalid argument: path is NULL");
    return -1;
  }
  size_t nbytes;
  if (tsr_npy_check(arr, path, &nbytes, err, errlen) != 0) {
    return -1;
  }
  FILE *f = fopen(path, "wb");
  if (f == NULL) {
    set_err(err, errlen, path, "cannot create: %s", strerror(errno));
    return -1;
  }
  errno = 0;
  const int wrote = write_file(f, arr, nbytes);
  int saved_errno = errno;
  const int closed = fclose(f);
  if (wrote == 0 && closed != 0) {
    saved_errno = errno;
  }
  if (wrote != 0 || closed != 0) {
    /* The partial file is left alone: path may name a device or FIFO
     * (/dev/stdout, /dev/full) that must not be removed. */
    set_err(err, errlen, path, "write failed: %s", saved_errno != 0 ? strerror(saved_errno) : "I/O error");
    return -1;
  }
  return 0;
}

int tsr_npy_write_stream(FILE *f, const tsr_npy_t *arr, const char *name, char *err, size_t errlen) {
  if (err != NULL && errlen > 0) {
    err[0] = '\0';
  }
  size_t nbytes;
  if (tsr_npy_check(arr, name, &nbytes, err, errlen) != 0) {
    return -1;
  }
  if (f == NULL || write_file(f, arr, nbytes) != 0) {
    set_err(err, errlen, name, "write failed");
    return -1;
  }
  return 0;
}

void tsr_npy_free(tsr_npy_t *arr) {
  if (arr == NULL) {
    return;
  }
  free(arr->data);
  arr->data = NULL;
  arr->count = 0;
}
