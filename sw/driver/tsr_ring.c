/* tsr_ring.c: the command ring: set-up, append, flush (see tsr_ring.h). */
#include "tsr_ring.h"

#include "tessera_regs.h"

/* One line into dev->err (freestanding: no string library). */
static tsr_status_t ring_fail(tsr_dev_t *dev, tsr_status_t st, const char *msg) {
  unsigned i = 0u;
  for (; msg[i] != '\0' && i + 1u < TSR_DEV_ERRLEN; i++) {
    dev->err[i] = msg[i];
  }
  dev->err[i] = '\0';
  return st;
}

/* The ring holds each command as 8 little-endian 32-bit words. */
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
static void put_le32(uint8_t *p, uint32_t v) {
  for (unsigned b = 0u; b < 4u; b++) {
    p[b] = (uint8_t)(v >> (8u * b));
  }
}
#endif

static tsr_ring_t *ring_of(const tsr_dev_t *dev) {
  return (tsr_ring_t *)dev->path_ctx;
}

/* Slots free for software: the ring keeps one empty so that head = tail means empty. */
static uint32_t ring_room(const tsr_ring_t *r) {
  uint32_t used = r->tail >= r->head ? r->tail - r->head : r->size - r->head + r->tail;
  return (r->size - used) / TSR_RING_CMD_BYTES - 1u;
}

static uint32_t ring_pending(const tsr_ring_t *r) {
  uint32_t d = r->tail >= r->published ? r->tail - r->published : r->size - r->published + r->tail;
  return d / TSR_RING_CMD_BYTES;
}

static tsr_status_t path_submit(tsr_dev_t *dev, const tsr_cmd_t *cmd) {
  tsr_status_t st = tsr_ring_append(dev, cmd);
  tsr_ring_t *r = ring_of(dev);
  if (st == TSR_OK && r->batch != 0u && ring_pending(r) >= r->batch) {
    st = tsr_ring_flush(dev);
  }
  return st;
}

static tsr_status_t path_flush(tsr_dev_t *dev) { return tsr_ring_flush(dev); }

static void path_reset(tsr_dev_t *dev) {
  /* The chip set RING_HEAD = RING_TAIL: unpublished slots are dropped. */
  tsr_ring_t *r = ring_of(dev);
  r->tail = r->published;
  r->head = r->published;
}

static const tsr_submit_path_t ring_path = {
    .submit = path_submit,
    .flush = path_flush,
    .reset = path_reset,
};

tsr_status_t tsr_ring_attach(tsr_dev_t *dev, tsr_ring_t *ring, uint32_t base, uint32_t size) {
  if (dev == NULL || ring == NULL || dev->info.dim == 0u) {
    return TSR_BAD_ARG;
  }
  if (base % TSR_RING_CMD_BYTES != 0u || size % TSR_RING_CMD_BYTES != 0u || size < TSR_RING_MIN_BYTES ||
      (uint64_t)base + size > (UINT64_C(1) << 32)) {
    return ring_fail(dev, TSR_BAD_ARG,
                     "ring: base and size must be multiples of 32, size >= 64, and base + size <= 2^32");
  }
  if (dev->hal.ops->mem_write == NULL) {
    return ring_fail(dev, TSR_UNSUPPORTED, "ring: this HAL cannot write the accelerator's memory");
  }
  tsr_status_t st;
  if ((st = tsr_reg_write(dev, TSR_RING_CTRL_REG_OFFSET, 0u)) != TSR_OK ||
      (st = tsr_reg_write(dev, TSR_RING_BASE_REG_OFFSET, base)) != TSR_OK ||
      (st = tsr_reg_write(dev, TSR_RING_SIZE_REG_OFFSET, size)) != TSR_OK ||
      (st = tsr_reg_write(dev, TSR_RING_TAIL_REG_OFFSET, 0u)) != TSR_OK ||
      (st = tsr_reg_write(dev, TSR_RING_CTRL_REG_OFFSET, 1u << TSR_RING_CTRL_ENABLE_BIT)) != TSR_OK) {
    return st;
  }
  ring->base = base;
  ring->size = size;
  ring->tail = 0u;
  ring->published = 0u;
  ring->head = 0u;
  /* Half the command queue: the chip has work while the host writes the next half. */
  ring->batch = dev->info.cmdq_depth / 2u != 0u ? dev->info.cmdq_depth / 2u : 1u;
  ring->appended = 0u;
  ring->flushes = 0u;
  dev->path = &ring_path;
  dev->path_ctx = ring;
  return TSR_OK;
}

tsr_status_t tsr_ring_detach(tsr_dev_t *dev) {
  if (dev == NULL || dev->info.dim == 0u) {
    return TSR_BAD_ARG;
  }
  dev->path = NULL;
  dev->path_ctx = NULL;
  return tsr_reg_write(dev, TSR_RING_CTRL_REG_OFFSET, 0u);
}

tsr_status_t tsr_ring_read_head(tsr_dev_t *dev, uint32_t *head) {
  if (dev == NULL || dev->path != &ring_path) {
    return TSR_BAD_STATE;
  }
  tsr_ring_t *r = ring_of(dev);
  uint32_t h = 0u;
  tsr_status_t st = tsr_reg_read(dev, TSR_RING_HEAD_REG_OFFSET, &h);
  if (st != TSR_OK) {
    return st;
  }
  r->head = h;
  if (head != NULL) {
    *head = h;
  }
  return TSR_OK;
}

tsr_status_t tsr_ring_flush(tsr_dev_t *dev) {
  if (dev == NULL || dev->path != &ring_path) {
    return TSR_BAD_STATE;
  }
  tsr_ring_t *r = ring_of(dev);
  if (r->published == r->tail) {
    return TSR_OK;
  }
  tsr_status_t st = tsr_reg_write(dev, TSR_RING_TAIL_REG_OFFSET, r->tail);
  if (st == TSR_OK) {
    r->published = r->tail;
    r->flushes++;
  }
  return st;
}

/* The ring is full: hand it over and wait until the chip fetched a slot. */
static tsr_status_t wait_room(tsr_dev_t *dev, tsr_ring_t *r) {
  tsr_status_t st = tsr_ring_flush(dev);
  for (uint32_t polls = 0u; st == TSR_OK; polls++) {
    if ((st = tsr_ring_read_head(dev, NULL)) != TSR_OK) {
      return st;
    }
    if (ring_room(r) != 0u) {
      return TSR_OK;
    }
    uint32_t status = 0u;
    if ((st = tsr_reg_read(dev, TSR_STATUS_REG_OFFSET, &status)) != TSR_OK) {
      return st;
    }
    if ((status >> TSR_STATUS_ERROR_BIT) & 1u) {
      return ring_fail(dev, TSR_HW_ERROR, "ring full and the engine stopped on an error (tsr_read_error)");
    }
    if (polls >= dev->poll_limit) {
      return ring_fail(dev, TSR_TIMEOUT, "ring full: RING_HEAD did not move");
    }
  }
  return st;
}

tsr_status_t tsr_ring_append(tsr_dev_t *dev, const tsr_cmd_t *cmd) {
  if (dev == NULL || cmd == NULL) {
    return TSR_BAD_ARG;
  }
  if (dev->path != &ring_path) {
    return ring_fail(dev, TSR_BAD_STATE, "ring: no ring attached (tsr_ring_attach)");
  }
  tsr_ring_t *r = ring_of(dev);
  tsr_status_t st;
  if (ring_room(r) == 0u && (st = wait_room(dev, r)) != TSR_OK) {
    return st;
  }
  /* Word-aligned, so that a HAL can store it a word at a time (the bare-metal HAL on the
   * SoC's core: 8 stores instead of 32, measured in docs/soc.md); on a little-endian
   * machine the words are already in the ring's byte order. */
  union {
    uint32_t w[TSR_CMD_WORDS];
    uint8_t b[TSR_RING_CMD_BYTES];
  } slot;
  _Static_assert(sizeof slot.w == sizeof slot.b, "a ring slot is one command");
  for (unsigned i = 0u; i < TSR_CMD_WORDS; i++) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    slot.w[i] = cmd->w[i];
#else
    put_le32(slot.b + 4u * i, cmd->w[i]);
#endif
  }
  if ((st = tsr_hal_mem_write(&dev->hal, (uint64_t)r->base + r->tail, slot.b, sizeof slot.b)) != TSR_OK) {
    return ring_fail(dev, st, "ring: writing the command into memory failed");
  }
  r->tail = r->tail + TSR_RING_CMD_BYTES >= r->size ? 0u : r->tail + TSR_RING_CMD_BYTES;
  r->appended++;
  dev->cmds_pushed++;
  return TSR_OK;
}
