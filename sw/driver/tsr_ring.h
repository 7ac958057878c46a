/* tsr_ring.h: the command ring: commands in external memory that the chip fetches by itself. */
#ifndef TSR_RING_H
#define TSR_RING_H

/*
 * Freestanding, like tsr_driver.h. The ring is `size` bytes of external
 * memory at device address `base` (both multiples of 32), one 32-byte
 * command (8 little-endian words) a slot. Software writes commands at its
 * tail and then writes RING_TAIL; the chip fetches up to RING_TAIL with its
 * own AXI reads and advances RING_HEAD (docs/programming.md, "Command ring").
 *
 * Per command the host makes no register access: tsr_ring_append writes the
 * command into memory (the HAL's mem_write) and only tsr_ring_flush writes
 * RING_TAIL, once per batch. Attached to a device (tsr_ring_attach), the ring
 * is the device's submission path: tsr_submit appends, tsr_wait flushes, so
 * the firmware's GEMM and SFU runners use it unchanged.
 *
 * The ring holds at most size / 32 - 1 commands not yet fetched (head = tail
 * means empty). Appending to a full ring flushes and waits for RING_HEAD to
 * move, reading STATUS too so that an engine stopped on an error is reported
 * instead of waited on.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tsr_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_RING_CMD_BYTES 32u   /**< bytes of one command slot */
#define TSR_RING_MIN_BYTES 64u   /**< the smallest useful ring: two slots, one command */

/** A command ring's software state. The caller owns the storage. */
typedef struct tsr_ring {
  uint32_t base;       /**< device address of slot 0 (RING_BASE) */
  uint32_t size;       /**< bytes (RING_SIZE) */
  uint32_t tail;       /**< offset of the next slot software writes */
  uint32_t published;  /**< offset last written to RING_TAIL */
  uint32_t head;       /**< RING_HEAD as last read */
  uint32_t batch;      /**< tsr_submit flushes after this many unpublished commands (0: only tsr_wait) */
  uint64_t appended;   /**< commands appended since tsr_ring_attach */
  uint64_t flushes;    /**< RING_TAIL writes since tsr_ring_attach */
} tsr_ring_t;

/**
 * Program the ring registers (RING_CTRL.ENABLE = 0, RING_BASE, RING_SIZE,
 * RING_TAIL = 0, RING_CTRL.ENABLE = 1) and make `ring` the submission path of
 * `dev`. The engine should be idle. TSR_BAD_ARG unless base and size are
 * multiples of 32, size >= TSR_RING_MIN_BYTES and base + size <= 2^32;
 * TSR_UNSUPPORTED if the HAL cannot write external memory. The ring must lie
 * inside the DMA window (else the chip stops with ERR_RING_WINDOW).
 */
tsr_status_t tsr_ring_attach(tsr_dev_t *dev, tsr_ring_t *ring, uint32_t base, uint32_t size);

/** RING_CTRL.ENABLE = 0 and submit through CMDQ_PUSH again. Call it with the engine idle. */
tsr_status_t tsr_ring_detach(tsr_dev_t *dev);

/**
 * Write `cmd` into the next slot of the attached ring, without touching a
 * register unless the ring is full (then it flushes and waits for room).
 * TSR_BAD_STATE if no ring is attached.
 */
tsr_status_t tsr_ring_append(tsr_dev_t *dev, const tsr_cmd_t *cmd);

/** Write RING_TAIL so that the chip fetches every appended command (no access if none is new). */
tsr_status_t tsr_ring_flush(tsr_dev_t *dev);

/** Read RING_HEAD into ring->head and *head (may be NULL). */
tsr_status_t tsr_ring_read_head(tsr_dev_t *dev, uint32_t *head);

#ifdef __cplusplus
}
#endif

#endif /* TSR_RING_H */
