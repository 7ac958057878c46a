/* tsr_hal_devmem.c: HAL backend for Linux: registers through /dev/uioN or /dev/mem, plus a DMA buffer window. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tessera_regs.h"
#include "tsr_hal_host.h"

/* One mapped window: `size` bytes of the device at `base`, reachable at `ptr`. */
typedef struct window {
  int fd;
  void *map;      /* what mmap returned */
  size_t map_len;
  volatile uint8_t *ptr; /* first byte of the window (map + page offset) */
  uint64_t base;
  uint64_t size;
} window_t;

typedef struct devmem_ctx {
  window_t regs;
  window_t dma;
  bool uio; /* registers come from a UIO device: IRQs through read() */
} devmem_ctx_t;

/* ---- Spec parsing (pure) ----------------------------------------------------------------- */

static tsr_status_t spec_err(char *err, size_t errlen, const char *spec, const char *why) {
  if (err != NULL && errlen != 0) {
    snprintf(err, errlen, "%s: %s", spec, why);
  }
  return TSR_BAD_ARG;
}

/* Parse an unsigned decimal or 0x-hex number spanning [s, end) exactly. */
static bool parse_u64(const char *s, const char *end, uint64_t *out) {
  if (s == end || *s == '-' || *s == '+' || *s == ' ') {
    return false;
  }
  char buf[32];
  size_t n = (size_t)(end - s);
  if (n >= sizeof buf) {
    return false;
  }
  memcpy(buf, s, n);
  buf[n] = '\0';
  errno = 0;
  char *stop = NULL;
  unsigned long long v = strtoull(buf, &stop, 0);
  if (errno != 0 || stop != buf + n) {
    return false;
  }
  *out = (uint64_t)v;
  return true;
}

tsr_status_t tsr_devmem_parse(const char *spec, uint64_t default_size, tsr_devmem_spec_t *out,
                              char *err, size_t errlen) {
  if (err != NULL && errlen != 0) {
    err[0] = '\0';
  }
  if (spec == NULL || out == NULL) {
    return spec_err(err, errlen, "(null)", "no device spec");
  }
  memset(out, 0, sizeof *out);
  if (strncmp(spec, "uio:", 4) == 0) {
    const char *path = spec + 4;
    if (path[0] == '\0') {
      return spec_err(err, errlen, spec, "missing device path after 'uio:' (e.g. uio:/dev/uio0)");
    }
    if (strlen(path) >= sizeof out->path) {
      return spec_err(err, errlen, spec, "device path is too long");
    }
    out->kind = TSR_DEVMEM_UIO;
    snprintf(out->path, sizeof out->path, "%s", path);
    return TSR_OK;
  }
  if (strncmp(spec, "devmem:", 7) != 0) {
    return spec_err(err, errlen, spec,
                    "unknown device spec: use uio:/dev/uioN or devmem:BASE[,SIZE][@FILE]");
  }
  const char *p = spec + 7;
  const char *at = strchr(p, '@');
  const char *nums_end = at != NULL ? at : p + strlen(p);
  const char *comma = memchr(p, ',', (size_t)(nums_end - p));
  uint64_t base = 0;
  uint64_t size = default_size;
  if (!parse_u64(p, comma != NULL ? comma : nums_end, &base)) {
    return spec_err(err, errlen, spec, "BASE is not a number (decimal or 0x-hex)");
  }
  if (comma != NULL && !parse_u64(comma + 1, nums_end, &size)) {
    return spec_err(err, errlen, spec, "SIZE is not a number (decimal or 0x-hex)");
  }
  if (base % 4u != 0u) {
    return spec_err(err, errlen, spec, "BASE is not 4-byte aligned");
  }
  if (size == 0u || size % 4u != 0u) {
    return spec_err(err, errlen, spec, "SIZE must be a non-zero multiple of 4");
  }
  if (base > UINT64_MAX - size || base + size > (uint64_t)INT64_MAX) {
    return spec_err(err, errlen, spec, "BASE + SIZE overflows the physical address space");
  }
  const char *file = "/dev/mem";
  if (at != NULL) {
    file = at + 1;
    if (file[0] == '\0') {
      return spec_err(err, errlen, spec, "missing file name after '@'");
    }
  }
  if (strlen(file) >= sizeof out->path) {
    return spec_err(err, errlen, spec, "file name is too long");
  }
  out->kind = TSR_DEVMEM_MEM;
  out->base = base;
  out->size = size;
  snprintf(out->path, sizeof out->path, "%s", file);
  return TSR_OK;
}

/* ---- Mapping ------------------------------------------------------------------------------------- */

static void window_close(window_t *w) {
  if (w->map != NULL && w->map != MAP_FAILED) {
    munmap(w->map, w->map_len);
  }
  if (w->fd >= 0) {
    close(w->fd);
  }
  w->map = NULL;
  w->fd = -1;
  w->ptr = NULL;
}

/* Size of map0 of a UIO device from sysfs, 0 if unknown. */
static uint64_t uio_map0_size(const struct stat *st) {
  char path[96];
  snprintf(path, sizeof path, "/sys/dev/char/%u:%u/maps/map0/size", major(st->st_rdev),
           minor(st->st_rdev));
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    return 0;
  }
  unsigned long long v = 0;
  int n = fscanf(f, "%llx", &v);
  fclose(f);
  return n == 1 ? (uint64_t)v : 0u;
}

static tsr_status_t window_open(const char *spec, const tsr_devmem_spec_t *s, window_t *w,
                                char *err, size_t errlen) {
  w->fd = -1;
  w->map = NULL;
  w->fd = open(s->path, O_RDWR | O_SYNC | O_CLOEXEC);
  if (w->fd < 0) {
    int e = errno;
    snprintf(err, errlen, "%s: cannot open %s: %s", spec, s->path, strerror(e));
    return (e == ENOENT || e == ENODEV || e == ENXIO) ? TSR_NO_DEVICE : TSR_IO;
  }
  struct stat st;
  if (fstat(w->fd, &st) != 0) {
    snprintf(err, errlen, "%s: cannot stat %s: %s", spec, s->path, strerror(errno));
    window_close(w);
    return TSR_IO;
  }
  long page_l = sysconf(_SC_PAGESIZE);
  uint64_t page = page_l > 0 ? (uint64_t)page_l : 4096u;
  uint64_t base = s->base;
  uint64_t size = s->size;
  if (s->kind == TSR_DEVMEM_UIO) {
    if (!S_ISCHR(st.st_mode)) {
      snprintf(err, errlen, "%s: %s is not a character device (a UIO node like /dev/uio0)", spec,
               s->path);
      window_close(w);
      return TSR_NO_DEVICE;
    }
    base = 0; /* map 0 is selected by mmap offset 0 */
    size = uio_map0_size(&st);
    if (size == 0) {
      size = TSR_REG_SPACE_BYTES;
    }
  } else if (S_ISREG(st.st_mode)) {
    /* A plain file stands in for physical memory (tests); mapping past its
     * end would fault on access, so refuse it here. */
    if ((uint64_t)st.st_size < base + size) {
      snprintf(err, errlen, "%s: %s holds %lld bytes, the window ends at %llu", spec, s->path,
               (long long)st.st_size, (unsigned long long)(base + size));
      window_close(w);
      return TSR_BAD_ARG;
    }
  } else if (!S_ISCHR(st.st_mode)) {
    snprintf(err, errlen, "%s: %s is neither a device nor a regular file", spec, s->path);
    window_close(w);
    return TSR_NO_DEVICE;
  }
  uint64_t map_off = base & ~(page - 1u);
  uint64_t delta = base - map_off;
  uint64_t len = (delta + size + page - 1u) & ~(page - 1u);
  if (len > SIZE_MAX) {
    snprintf(err, errlen, "%s: window too large for this host", spec);
    window_close(w);
    return TSR_BAD_ARG;
  }
  w->map = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, (off_t)map_off);
  if (w->map == MAP_FAILED) {
    snprintf(err, errlen, "%s: mmap of %s at 0x%llx failed: %s", spec, s->path,
             (unsigned long long)map_off, strerror(errno));
    w->map = NULL;
    window_close(w);
    return TSR_IO;
  }
  w->map_len = (size_t)len;
  w->ptr = (volatile uint8_t *)w->map + delta;
  w->base = s->kind == TSR_DEVMEM_UIO ? 0u : s->base;
  w->size = size;
  return TSR_OK;
}

/* ---- Ops ------------------------------------------------------------------------------------------------ */

static bool reg_ok(const devmem_ctx_t *c, uint32_t off) {
  return off % 4u == 0u && (uint64_t)off + 4u <= c->regs.size;
}

static tsr_status_t dm_read32(void *ctx, uint32_t off, uint32_t *val) {
  devmem_ctx_t *c = ctx;
  if (!reg_ok(c, off) || val == NULL) {
    return TSR_BAD_ARG;
  }
  *val = *(volatile uint32_t *)(c->regs.ptr + off);
  return TSR_OK;
}

static tsr_status_t dm_write32(void *ctx, uint32_t off, uint32_t val) {
  devmem_ctx_t *c = ctx;
  if (!reg_ok(c, off)) {
    return TSR_BAD_ARG;
  }
  *(volatile uint32_t *)(c->regs.ptr + off) = val;
  return TSR_OK;
}

/* UIO: unmask with write(1), then wait for read() to return the event count. */
static tsr_status_t dm_wait_irq(void *ctx, uint64_t max_ms) {
  devmem_ctx_t *c = ctx;
  uint32_t one = 1;
  if (write(c->regs.fd, &one, sizeof one) != (ssize_t)sizeof one) {
    return TSR_IO;
  }
  struct pollfd pfd = {.fd = c->regs.fd, .events = POLLIN};
  int timeout = max_ms == 0u ? -1 : (max_ms > INT_MAX ? INT_MAX : (int)max_ms);
  int rc = poll(&pfd, 1, timeout);
  if (rc == 0) {
    return TSR_TIMEOUT;
  }
  uint32_t count = 0;
  if (rc < 0 || read(c->regs.fd, &count, sizeof count) != (ssize_t)sizeof count) {
    return TSR_IO;
  }
  return TSR_OK;
}

/* Device address range [addr, addr+n) inside the DMA window? */
static bool dma_ok(const devmem_ctx_t *c, uint64_t addr, size_t n) {
  return c->dma.ptr != NULL && addr >= c->dma.base && addr - c->dma.base <= c->dma.size &&
         (uint64_t)n <= c->dma.size - (addr - c->dma.base);
}

/* Byte accesses through volatile: the window may be mapped uncached, where
 * wide or unaligned accesses that memcpy might use can fault. */
static tsr_status_t dm_mem_write(void *ctx, uint64_t addr, const void *src, size_t n) {
  devmem_ctx_t *c = ctx;
  if (!dma_ok(c, addr, n) || (src == NULL && n != 0)) {
    return TSR_BAD_ARG;
  }
  volatile uint8_t *dst = c->dma.ptr + (addr - c->dma.base);
  const uint8_t *s = src;
  for (size_t i = 0; i < n; i++) {
    dst[i] = s[i];
  }
  return TSR_OK;
}

static tsr_status_t dm_mem_read(void *ctx, uint64_t addr, void *dst, size_t n) {
  devmem_ctx_t *c = ctx;
  if (!dma_ok(c, addr, n) || (dst == NULL && n != 0)) {
    return TSR_BAD_ARG;
  }
  const volatile uint8_t *s = c->dma.ptr + (addr - c->dma.base);
  uint8_t *d = dst;
  for (size_t i = 0; i < n; i++) {
    d[i] = s[i];
  }
  return TSR_OK;
}

static void dm_close(void *ctx) {
  devmem_ctx_t *c = ctx;
  if (c == NULL) {
    return;
  }
  window_close(&c->regs);
  window_close(&c->dma);
  free(c);
}

static const tsr_hal_ops_t k_uio_ops = {
    .name = "uio",
    .read32 = dm_read32,
    .write32 = dm_write32,
    .wait_irq = dm_wait_irq,
    .mem_write = dm_mem_write,
    .mem_read = dm_mem_read,
    .close = dm_close,
};

static const tsr_hal_ops_t k_devmem_ops = {
    .name = "devmem",
    .read32 = dm_read32,
    .write32 = dm_write32,
    .mem_write = dm_mem_write,
    .mem_read = dm_mem_read,
    .close = dm_close,
};

tsr_status_t tsr_hal_devmem_open(const char *reg_spec, const char *dma_spec, tsr_hal_t *hal,
                                 char *err, size_t errlen) {
  char dummy[8];
  if (err == NULL || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (hal == NULL) {
    snprintf(err, errlen, "devmem: no HAL to fill");
    return TSR_BAD_ARG;
  }
  hal->ops = NULL;
  hal->ctx = NULL;
  tsr_devmem_spec_t rs;
  tsr_devmem_spec_t ds;
  tsr_status_t st = tsr_devmem_parse(reg_spec, TSR_REG_SPACE_BYTES, &rs, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  if (rs.kind == TSR_DEVMEM_MEM && rs.size < TSR_REG_SPACE_BYTES) {
    return spec_err(err, errlen, reg_spec, "SIZE is smaller than the 4 KiB register block");
  }
  if (dma_spec != NULL) {
    st = tsr_devmem_parse(dma_spec, 0, &ds, err, errlen);
    if (st != TSR_OK) {
      return st;
    }
    if (ds.kind != TSR_DEVMEM_MEM) {
      return spec_err(err, errlen, dma_spec, "the DMA buffer must be devmem:BASE,SIZE[@FILE]");
    }
    if (ds.base + ds.size > ((uint64_t)1 << 32)) {
      return spec_err(err, errlen, dma_spec,
                      "the DMA buffer must lie below 4 GiB (the accelerator has 32-bit addresses)");
    }
  }
  devmem_ctx_t *c = calloc(1, sizeof *c);
  if (c == NULL) {
    snprintf(err, errlen, "devmem: out of memory");
    return TSR_NO_MEMORY;
  }
  c->regs.fd = -1;
  c->dma.fd = -1;
  c->uio = rs.kind == TSR_DEVMEM_UIO;
  st = window_open(reg_spec, &rs, &c->regs, err, errlen);
  if (st == TSR_OK && c->regs.size < TSR_REG_SPACE_BYTES) {
    snprintf(err, errlen, "%s: map 0 holds %llu bytes, less than the 4 KiB register block", reg_spec,
             (unsigned long long)c->regs.size);
    st = TSR_NO_DEVICE;
  }
  if (st == TSR_OK && dma_spec != NULL) {
    st = window_open(dma_spec, &ds, &c->dma, err, errlen);
  }
  if (st != TSR_OK) {
    dm_close(c);
    return st;
  }
  hal->ops = c->uio ? &k_uio_ops : &k_devmem_ops;
  hal->ctx = c;
  return TSR_OK;
}
