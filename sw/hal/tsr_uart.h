/* tsr_uart.h: UART host link: frame encoder/decoder, byte transports and the HAL backend over them. */
#ifndef TSR_UART_H
#define TSR_UART_H

/*
 * The protocol is specified in docs/host-link.md; the board side is
 * rtl/tsr_uart_bridge.v. Three layers, each usable alone:
 *
 *   protocol  (sw/hal/tsr_uart_proto.c, freestanding, pure): CRC-16, request and
 *             reply encoders, an incremental decoder for either direction,
 *             the INFO block, status names.
 *   transport (an ops table moving bytes): a POSIX serial port
 *             (sw/hal/tsr_uart_serial.c) or the in-process simulation of
 *             fpga/tsr_uart_top.v (sw/hal/tsr_uart_simlink.c), or any test double.
 *   HAL       (sw/hal/tsr_hal_uart.c): tsr_hal_ops_t over a transport: read32,
 *             write32, mem_write, mem_read; stop-and-wait with retries, so
 *             that a write is applied exactly once (docs/host-link.md, "Retries").
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsr_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Protocol (sw/hal/tsr_uart_proto.c) ----------------------------------------------- */

#define TSR_UART_SYNC_REQ 0xA5u  /**< first byte of a request */
#define TSR_UART_SYNC_RSP 0x5Au  /**< first byte of a reply */

#define TSR_UART_CMD_INFO 0x00u       /**< LEN 0; reply: TSR_UART_INFO_BYTES bytes */
#define TSR_UART_CMD_READ32 0x01u     /**< LEN 4; reply: the register, little-endian */
#define TSR_UART_CMD_MEM_READ 0x02u   /**< LEN 1..max_len; reply: LEN bytes of memory */
#define TSR_UART_CMD_WRITE32 0x81u    /**< LEN 4, payload: the value, little-endian */
#define TSR_UART_CMD_MEM_WRITE 0x82u  /**< LEN 1..max_len, payload: the bytes */
#define TSR_UART_CMD_PAYLOAD 0x80u    /**< CMD bit: the request carries LEN payload bytes */

#define TSR_UART_STS_OK 0x00u      /**< done */
#define TSR_UART_STS_CRC 0x01u     /**< the request's CRC failed; nothing was done */
#define TSR_UART_STS_CMD 0x02u     /**< unknown command */
#define TSR_UART_STS_ARG 0x03u     /**< bad LEN, alignment or memory range */
#define TSR_UART_STS_SLVERR 0x04u  /**< the register slave answered SLVERR */
#define TSR_UART_STS_DECERR 0x05u  /**< the register slave answered DECERR */
#define TSR_UART_STS_REPLAY 0x80u  /**< bit: a repeated write, answered without executing it */

#define TSR_UART_REQ_HDR 9u     /**< SYNC, CMD, SEQ, ADDR (4), LEN (2) */
#define TSR_UART_RSP_HDR 5u     /**< SYNC, STATUS, SEQ, LEN (2) */
#define TSR_UART_CRC_BYTES 2u
#define TSR_UART_CRC_INIT 0xFFFFu
#define TSR_UART_INFO_BYTES 16u
#define TSR_UART_VERSION 1u     /**< protocol version in INFO */

/** CRC-16/CCITT-FALSE (polynomial 0x1021, MSB first, no final XOR) of `n` bytes,
 *  continuing from `crc` (start with TSR_UART_CRC_INIT). "123456789" gives 0x29B1. */
uint16_t tsr_uart_crc16(uint16_t crc, const uint8_t *p, size_t n);

/**
 * Encode a request into `buf`. The payload (`len` bytes) is sent only when CMD
 * has TSR_UART_CMD_PAYLOAD set. Returns the frame length, or 0 if `buf` is
 * too small or a payload is needed and `payload` is NULL.
 */
size_t tsr_uart_encode_req(uint8_t *buf, size_t cap, uint8_t cmd, uint8_t seq, uint32_t addr,
                           uint16_t len, const uint8_t *payload);

/** Encode a reply (`len` data bytes) into `buf`; the frame length, or 0 if it does not fit. */
size_t tsr_uart_encode_rsp(uint8_t *buf, size_t cap, uint8_t status, uint8_t seq,
                           const uint8_t *data, uint16_t len);

/** What tsr_uart_dec_feed says about the byte it was given. */
typedef enum tsr_uart_dec_result {
  TSR_UART_DEC_MORE = 0,   /**< nothing complete yet (hunting, or inside a frame) */
  TSR_UART_DEC_FRAME,      /**< a frame with a good CRC is complete: read the fields */
  TSR_UART_DEC_BAD_CRC,    /**< a frame was complete but its CRC failed (fields as received) */
  TSR_UART_DEC_TOO_LONG    /**< LEN exceeds the data buffer: the frame was abandoned */
} tsr_uart_dec_result_t;

/**
 * Incremental decoder of requests (the board's view) or replies (the host's).
 * It hunts for the direction's SYNC, reads the header, the data (a request's
 * payload when CMD bit 7 is set; a reply's LEN bytes) into the caller's
 * buffer and the CRC. After FRAME, BAD_CRC or TOO_LONG it hunts again.
 */
typedef struct tsr_uart_dec {
  bool request;       /**< decode requests (SYNC 0xA5) rather than replies (0x5A) */
  uint8_t *data;      /**< payload / reply data buffer */
  size_t cap;         /**< its size: the largest LEN accepted with data */
  /* the frame (valid after FRAME or BAD_CRC) */
  uint8_t code;       /**< request CMD or reply STATUS */
  uint8_t seq;
  uint32_t addr;      /**< requests only */
  uint16_t len;
  size_t ndata;       /**< bytes in data[] (LEN, or 0 for a request without payload) */
  /* internal */
  unsigned state;
  size_t idx;
  uint16_t crc;
  uint8_t crc_hi;
} tsr_uart_dec_t;

/** Set up a decoder; `data` of `cap` bytes receives payloads (may be NULL with cap 0). */
void tsr_uart_dec_init(tsr_uart_dec_t *d, bool request, uint8_t *data, size_t cap);

/** Drop any partial frame and hunt for SYNC again (e.g. after a timeout). */
void tsr_uart_dec_reset(tsr_uart_dec_t *d);

/** True while the decoder is inside a frame (after SYNC, before the last CRC byte). */
bool tsr_uart_dec_busy(const tsr_uart_dec_t *d);

/** Feed one received byte. */
tsr_uart_dec_result_t tsr_uart_dec_feed(tsr_uart_dec_t *d, uint8_t byte);

/** The board's parameters, as the INFO reply carries them. */
typedef struct tsr_uart_info {
  uint8_t version;           /**< TSR_UART_VERSION */
  uint16_t max_len;          /**< largest MEM_READ / MEM_WRITE */
  uint16_t rx_timeout_bits;  /**< the bridge's inter-byte timeout, in bit times */
  uint32_t mem_bytes;        /**< on-chip memory at device address 0 */
  uint32_t clk_per_bit;      /**< the baud divisor */
} tsr_uart_info_t;

/** Encode `info` as the 16-byte INFO reply data. */
void tsr_uart_info_encode(const tsr_uart_info_t *info, uint8_t out[TSR_UART_INFO_BYTES]);

/** Decode INFO reply data; TSR_NO_DEVICE unless it is 16 bytes starting 'T' 'U' with
 *  version 1 and a max_len of at least 4. */
tsr_status_t tsr_uart_info_decode(const uint8_t *data, size_t n, tsr_uart_info_t *info);

/** "OK", "CRC: ...", ... for a reply STATUS (the REPLAY bit is ignored). Never NULL. */
const char *tsr_uart_status_str(uint8_t status);

/* ---- Transports ----------------------------------------------------------------------- */

/** Moves bytes to and from the board. Time is counted in characters (10 bit times). */
typedef struct tsr_uart_transport_ops {
  const char *name;
  /** Send `n` bytes (queued or written; returns when the transport has them). */
  tsr_status_t (*send)(void *ctx, const uint8_t *src, size_t n);
  /** Wait up to `timeout_chars` character times for at least one byte, then return
   *  the bytes there are, at most `n`, in *got (0 after a timeout). */
  tsr_status_t (*recv)(void *ctx, uint8_t *dst, size_t n, uint32_t timeout_chars, size_t *got);
  /** Clock cycles simulated so far (simulation only; NULL otherwise). */
  uint64_t (*cycles)(void *ctx);
  /** Release everything. */
  void (*close)(void *ctx);
} tsr_uart_transport_ops_t;

/** A transport: ops and private context. */
typedef struct tsr_uart_transport {
  const tsr_uart_transport_ops_t *ops;
  void *ctx;
} tsr_uart_transport_t;

/**
 * Open a POSIX serial port (sw/hal/tsr_uart_serial.c): raw mode, 8N1, no flow
 * control, `baud` one of the standard rates (9600 .. 4000000). A 50 ms floor
 * is added to every timeout for USB-serial latency.
 */
tsr_status_t tsr_uart_serial_open(const char *path, uint32_t baud, tsr_uart_transport_t *t,
                                  char *err, size_t errlen);

/** Default baud rate of "uart:PATH" specs. */
#define TSR_UART_DEFAULT_BAUD 115200u

/**
 * Parse "uart:PATH[,BAUD]" (BAUD decimal, default TSR_UART_DEFAULT_BAUD).
 * Checks syntax only.
 */
tsr_status_t tsr_uart_parse_spec(const char *spec, char *path, size_t pathlen, uint32_t *baud,
                                 char *err, size_t errlen);

/* ---- In-process simulation transport (sw/hal/tsr_uart_simlink.c) ------------------------------ */

/** A fault the simulated line injects once, then disarms. */
typedef struct tsr_uart_fault {
  bool to_host;      /**< false: on a byte going to the board; true: on a byte coming back */
  uint64_t at;       /**< which byte in that direction, counted from 0 when armed */
  uint8_t xor_mask;  /**< XOR the byte with this; 0: drop the byte */
} tsr_uart_fault_t;

/** Counters of the simulated board and line. */
typedef struct tsr_uart_simlink_stats {
  uint64_t cycles;          /**< clock cycles simulated */
  uint64_t bytes_to_dev;    /**< bytes put on the line to the bridge */
  uint64_t bytes_from_dev;  /**< bytes the line model decoded from the bridge */
  uint64_t faults;          /**< faults injected */
  /* the bridge's evt_o pulses (rtl/tsr_uart_bridge.v) */
  uint64_t frames_ok, crc_errors, abandoned, framing_errors, replays;
  uint64_t reg_writes;      /**< register writes issued on the AXI4-Lite bus */
  uint64_t mem_writes;      /**< memory bytes written through the byte port */
} tsr_uart_simlink_stats_t;

/**
 * Load <dir>/libtsruart_d<dim>.so (dir: $TSR_UART_LIB_DIR, else <directory of
 * the running program>/../uart/lib), create the simulated board (trace_path:
 * an FST file or NULL) and fill `t`.
 */
tsr_status_t tsr_uart_simlink_open(unsigned dim, const char *trace_path, tsr_uart_transport_t *t,
                                   char *err, size_t errlen);

/** Arm one fault on a simulation transport (TSR_UNSUPPORTED for other transports). */
tsr_status_t tsr_uart_simlink_fault(const tsr_uart_transport_t *t, const tsr_uart_fault_t *f);

/** Counters of a simulation transport. */
tsr_status_t tsr_uart_simlink_stats(const tsr_uart_transport_t *t, tsr_uart_simlink_stats_t *st);

/* ---- HAL backend (sw/hal/tsr_hal_uart.c) ---------------------------------------------------- */

/** Link settings; zero fields take the defaults. */
typedef struct tsr_uart_link_cfg {
  uint32_t max_attempts;  /**< sends of one request before giving up (default 8) */
  uint32_t slack_chars;   /**< characters added to every reply timeout (default 16) */
} tsr_uart_link_cfg_t;

/** What the link did. */
typedef struct tsr_uart_stats {
  uint64_t requests;       /**< operations (one SEQ each) */
  uint64_t frames_sent;    /**< request frames, retries included */
  uint64_t bytes_sent, bytes_received;
  uint64_t retries;        /**< frames sent again */
  uint64_t timeouts;       /**< no complete reply in time */
  uint64_t naks;           /**< replies with STATUS CRC (the board saw a damaged request) */
  uint64_t bad_replies;    /**< replies whose CRC failed, or that were too long */
  uint64_t stale_replies;  /**< replies with another SEQ, skipped */
  uint64_t replays;        /**< replies with the REPLAY bit (a write was not repeated) */
  uint64_t errors;         /**< final error statuses (CMD, ARG, SLVERR, DECERR) */
} tsr_uart_stats_t;

/**
 * A HAL over transport `t` (taken over: it is closed by tsr_hal_close, and on
 * failure here). Drains the line, sends INFO, and checks the answer.
 * wait_irq is NULL (the driver polls STATUS); mem_write/mem_read reach the
 * board's on-chip memory at device addresses 0..mem_bytes-1, in frames of
 * at most max_len bytes. `cfg` may be NULL.
 */
tsr_status_t tsr_hal_uart_open_transport(const tsr_uart_transport_t *t,
                                         const tsr_uart_link_cfg_t *cfg, tsr_hal_t *hal,
                                         char *err, size_t errlen);

/** The board's INFO as read at open, or TSR_UNSUPPORTED if `hal` is not a UART HAL. */
tsr_status_t tsr_hal_uart_info(const tsr_hal_t *hal, tsr_uart_info_t *info);

/** The link counters of a UART HAL. */
tsr_status_t tsr_hal_uart_stats(const tsr_hal_t *hal, tsr_uart_stats_t *st);

/** One line about the last failure of a UART HAL ("" if none or not a UART HAL). */
const char *tsr_hal_uart_error(const tsr_hal_t *hal);

/** The transport under a UART HAL (for tsr_uart_simlink_fault / _stats), or NULL. */
const tsr_uart_transport_t *tsr_hal_uart_transport(const tsr_hal_t *hal);

/**
 * One raw request through the link with all its retry rules, for tests and
 * tools: `cmd`, `addr`, `len`, `payload` as in the protocol; on return
 * *status is the board's STATUS (REPLAY bit included) and up to `cap` reply
 * data bytes are in `data` (*ndata of them). Returns TSR_OK when a reply
 * arrived, whatever its status; TSR_TIMEOUT / TSR_IO when none did.
 */
tsr_status_t tsr_hal_uart_request(const tsr_hal_t *hal, uint8_t cmd, uint32_t addr, uint16_t len,
                                  const uint8_t *payload, uint8_t *status, uint8_t *data,
                                  size_t cap, size_t *ndata);

#ifdef __cplusplus
}
#endif

#endif /* TSR_UART_H */
