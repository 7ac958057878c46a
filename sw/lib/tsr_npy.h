/* tsr_npy.h: read and write NumPy .npy tensors (int8, uint8, int32, float32; C order). */
#ifndef TSR_NPY_H
#define TSR_NPY_H

/*
 * Reading accepts format versions 1.0, 2.0 and 3.0 with descr '|i1' '|u1'
 * '<i4' '<f4' ('<' or '>' in place of '|' is accepted for the one-byte
 * types, where byte order means nothing), fortran_order False, and a shape
 * of up to TSR_NPY_MAX_DIMS non-negative dimensions. Data is converted from
 * little-endian to host order. The file must end exactly where the data
 * ends: trailing bytes are rejected, because they nearly always mean the
 * header's shape or dtype is not the one the writer intended.
 *
 * Every failure returns -1 and writes one line, "<path>: <problem>", into
 * the caller's buffer (truncated to fit, always NUL-terminated; err may be
 * NULL or errlen 0 to discard it).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_NPY_MAX_DIMS 8

/** Element types a tensor file may hold. */
typedef enum {
  TSR_NPY_INT8,    /**< '|i1' */
  TSR_NPY_UINT8,   /**< '|u1' */
  TSR_NPY_INT32,   /**< '<i4' */
  TSR_NPY_FLOAT32, /**< '<f4' */
} tsr_npy_dtype_t;

/** A dense C-order tensor. */
typedef struct tsr_npy {
  tsr_npy_dtype_t dtype;
  int ndim;                        /**< 0 (scalar) .. TSR_NPY_MAX_DIMS */
  size_t shape[TSR_NPY_MAX_DIMS];  /**< shape[0..ndim-1]; the rest are 0 after a read */
  size_t count;                    /**< product of the shape (1 for a scalar, 0 if a dim is 0) */
  void *data;                      /**< count elements of dtype, host byte order */
} tsr_npy_t;

/**
 * Read the .npy file at `path` into *out. On success returns 0 and out->data
 * is a malloc'd buffer (never NULL, even for count 0) that the caller
 * releases with tsr_npy_free. On failure returns -1, writes the message into
 * err, and leaves *out empty (data NULL, count 0), so tsr_npy_free is still
 * safe to call.
 */
int tsr_npy_read(const char *path, tsr_npy_t *out, char *err, size_t errlen);

/**
 * Write *arr to `path` as a version 1.0 .npy file (header padded so the data
 * starts on a 64-byte boundary, as NumPy does). arr->count must equal the
 * product of shape[0..ndim-1]; data may be NULL only if count is 0.
 * Returns 0, or -1 with a message in err (invalid tensor, cannot create, or
 * a write error such as a full disk). An invalid tensor is reported before
 * the file is opened; after a write error the partial file is left as it is.
 */
int tsr_npy_write(const char *path, const tsr_npy_t *arr, char *err, size_t errlen);

/** tsr_npy_read of a .npy image on an open stream (read from its position; not
 *  closed). `name` stands for the file in messages. */
int tsr_npy_read_stream(FILE *f, const char *name, tsr_npy_t *out, char *err, size_t errlen);

/** tsr_npy_write to an open stream (not closed); "write failed" on a stream error. */
int tsr_npy_write_stream(FILE *f, const tsr_npy_t *arr, const char *name, char *err, size_t errlen);

/**
 * Check that *arr is a consistent tensor (known dtype, ndim in range, count the
 * product of the shape without overflow, data unless count is 0) and set
 * *nbytes to its data size. Returns 0, or -1 with a message naming `name`.
 */
int tsr_npy_check(const tsr_npy_t *arr, const char *name, size_t *nbytes, char *err, size_t errlen);

/** Free the data of a tensor and leave it empty. NULL and empty tensors are accepted. */
void tsr_npy_free(tsr_npy_t *arr);

/** NumPy's name of a dtype ("int8", "uint8", "int32", "float32"), or "invalid". */
const char *tsr_npy_dtype_name(tsr_npy_dtype_t dt);

/** Bytes per element of a dtype (1 or 4), or 0 for an invalid value. */
size_t tsr_npy_dtype_size(tsr_npy_dtype_t dt);

#ifdef __cplusplus
}
#endif

#endif /* TSR_NPY_H */
