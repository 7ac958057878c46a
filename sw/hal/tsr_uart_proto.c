/* tsr_uart_proto.c: UART host link frames: CRC-16, encoders, incremental decoder, INFO (freestanding). */
#include "tsr_uart.h"

/* Decoder states. */
enum {
  DEC_HUNT = 0,  /* waiting for SYNC */
  DEC_HDR,       /* request: CMD SEQ ADDR0..3 LEN0 LEN1; reply: STATUS SEQ LEN0 LEN1 */
  DEC_DATA,      /* payload / reply data */
  DEC_CRC        /* two CRC bytes, high first */
};

uint16_t tsr_uart_crc16(uint16_t crc, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    crc = (uint16_t)(crc ^ ((uint16_t)p[i] << 8));
    for (int b = 0; b < 8; b++) {
      crc = (crc & 0x8000u) != 0u ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
  }
  return crc;
}

size_t tsr_uart_encode_req(uint8_t *buf, size_t cap, uint8_t cmd, uint8_t seq, uint32_t addr,
                           uint16_t len, const uint8_t *payload) {
  const bool has_payload = (cmd & TSR_UART_CMD_PAYLOAD) != 0u;
  const size_t n = TSR_UART_REQ_HDR + (has_payload ? (size_t)len : 0u) + TSR_UART_CRC_BYTES;
  if (buf == NULL || cap < n || (has_payload && len != 0u && payload == NULL)) {
    return 0u;
  }
  buf[0] = TSR_UART_SYNC_REQ;
  buf[1] = cmd;
  buf[2] = seq;
  for (unsigned i = 0; i < 4u; i++) {
    buf[3u + i] = (uint8_t)(addr >> (8u * i));
  }
  buf[7] = (uint8_t)len;
  buf[8] = (uint8_t)(len >> 8);
  size_t k = TSR_UART_REQ_HDR;
  if (has_payload) {
    for (size_t i = 0; i < len; i++) {
      buf[k++] = payload[i];
    }
  }
  uint16_t crc = tsr_uart_crc16(TSR_UART_CRC_INIT, buf + 1, k - 1u);
  buf[k++] = (uint8_t)(crc >> 8);
  buf[k++] = (uint8_t)crc;
  return k;
}

size_t tsr_uart_encode_rsp(uint8_t *buf, size_t cap, uint8_t status, uint8_t seq,
                           const uint8_t *data, uint16_t len) {
  const size_t n = TSR_UART_RSP_HDR + (size_t)len + TSR_UART_CRC_BYTES;
  if (buf == NULL || cap < n || (len != 0u && data == NULL)) {
    return 0u;
  }
  buf[0] = TSR_UART_SYNC_RSP;
  buf[1] = status;
  buf[2] = seq;
  buf[3] = (uint8_t)len;
  buf[4] = (uint8_t)(len >> 8);
  size_t k = TSR_UART_RSP_HDR;
  for (size_t i = 0; i < len; i++) {
    buf[k++] = data[i];
  }
  uint16_t crc = tsr_uart_crc16(TSR_UART_CRC_INIT, buf + 1, k - 1u);
  buf[k++] = (uint8_t)(crc >> 8);
  buf[k++] = (uint8_t)crc;
  return k;
}

void tsr_uart_dec_init(tsr_uart_dec_t *d, bool request, uint8_t *data, size_t cap) {
  d->request = request;
  d->data = data;
  d->cap = data != NULL ? cap : 0u;
  d->code = 0u;
  d->seq = 0u;
  d->addr = 0u;
  d->len = 0u;
  d->ndata = 0u;
  tsr_uart_dec_reset(d);
}

void tsr_uart_dec_reset(tsr_uart_dec_t *d) {
  d->state = DEC_HUNT;
  d->idx = 0u;
  d->crc = TSR_UART_CRC_INIT;
  d->crc_hi = 0u;
}

bool tsr_uart_dec_busy(const tsr_uart_dec_t *d) {
  return d->state != DEC_HUNT;
}

/* Bytes of data that follow the header of the frame being decoded. */
static size_t data_bytes(const tsr_uart_dec_t *d) {
  if (d->request) {
    return (d->code & TSR_UART_CMD_PAYLOAD) != 0u ? (size_t)d->len : 0u;
  }
  return d->len;
}

tsr_uart_dec_result_t tsr_uart_dec_feed(tsr_uart_dec_t *d, uint8_t byte) {
  switch (d->state) {
    case DEC_HUNT:
      if (byte == (d->request ? TSR_UART_SYNC_REQ : TSR_UART_SYNC_RSP)) {
        d->state = DEC_HDR;
        d->idx = 0u;
        d->crc = TSR_UART_CRC_INIT;
        d->ndata = 0u;
        d->addr = 0u;
        d->len = 0u;
      }
      return TSR_UART_DEC_MORE;
    case DEC_HDR: {
      d->crc = tsr_uart_crc16(d->crc, &byte, 1u);
      const size_t hdr = d->request ? TSR_UART_REQ_HDR - 1u : TSR_UART_RSP_HDR - 1u;
      const size_t i = d->idx++;
      if (i == 0u) {
        d->code = byte;
      } else if (i == 1u) {
        d->seq = byte;
      } else if (d->request && i < 6u) {
        d->addr |= (uint32_t)byte << (8u * (i - 2u));
      } else if (i == hdr - 2u) {
        d->len = byte;
      } else {
        d->len = (uint16_t)(d->len | ((uint16_t)byte << 8));
      }
      if (d->idx == hdr) {
        size_t n = data_bytes(d);
        d->idx = 0u;
        if (n > d->cap) {
          tsr_uart_dec_reset(d);
          return TSR_UART_DEC_TOO_LONG;
        }
        d->state = n != 0u ? DEC_DATA : DEC_CRC;
      }
      return TSR_UART_DEC_MORE;
    }
    case DEC_DATA:
      d->crc = tsr_uart_crc16(d->crc, &byte, 1u);
      d->data[d->idx++] = byte;
      if (d->idx == data_bytes(d)) {
        d->ndata = d->idx;
        d->idx = 0u;
        d->state = DEC_CRC;
      }
      return TSR_UART_DEC_MORE;
    default: /* DEC_CRC */
      if (d->idx == 0u) {
        d->crc_hi = byte;
        d->idx = 1u;
        return TSR_UART_DEC_MORE;
      } else {
        const uint16_t got = (uint16_t)(((uint16_t)d->crc_hi << 8) | byte);
        const bool ok = got == d->crc;
        tsr_uart_dec_reset(d);
        return ok ? TSR_UART_DEC_FRAME : TSR_UART_DEC_BAD_CRC;
      }
  }
}

void tsr_uart_info_encode(const tsr_uart_info_t *info, uint8_t out[TSR_UART_INFO_BYTES]) {
  out[0] = 'T';
  out[1] = 'U';
  out[2] = info->version;
  out[3] = 0u;
  out[4] = (uint8_t)info->max_len;
  out[5] = (uint8_t)(info->max_len >> 8);
  out[6] = (uint8_t)info->rx_timeout_bits;
  out[7] = (uint8_t)(info->rx_timeout_bits >> 8);
  for (unsigned i = 0; i < 4u; i++) {
    out[8u + i] = (uint8_t)(info->mem_bytes >> (8u * i));
    out[12u + i] = (uint8_t)(info->clk_per_bit >> (8u * i));
  }
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

tsr_status_t tsr_uart_info_decode(const uint8_t *data, size_t n, tsr_uart_info_t *info) {
  if (data == NULL || info == NULL || n != TSR_UART_INFO_BYTES || data[0] != 'T' ||
      data[1] != 'U' || data[2] != TSR_UART_VERSION) {
    return TSR_NO_DEVICE;
  }
  info->version = data[2];
  info->max_len = (uint16_t)(data[4] | (data[5] << 8));
  info->rx_timeout_bits = (uint16_t)(data[6] | (data[7] << 8));
  info->mem_bytes = le32(data + 8);
  info->clk_per_bit = le32(data + 12);
  if (info->max_len < 4u) {
    return TSR_NO_DEVICE;
  }
  return TSR_OK;
}

const char *tsr_uart_status_str(uint8_t status) {
  switch (status & (uint8_t)~TSR_UART_STS_REPLAY) {
    case TSR_UART_STS_OK:
      return "OK";
    case TSR_UART_STS_CRC:
      return "CRC: the board received a damaged request and did nothing";
    case TSR_UART_STS_CMD:
      return "CMD: the board does not know the command";
    case TSR_UART_STS_ARG:
      return "ARG: wrong length, a register address not 4-byte aligned, or a memory range outside the board's memory";
    case TSR_UART_STS_SLVERR:
      return "SLVERR: the register slave refused the access (unmapped, read-only or locked)";
    case TSR_UART_STS_DECERR:
      return "DECERR: no register slave at that address";
    default:
      return "unknown status";
  }
}
