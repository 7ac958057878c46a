/* test_uart_proto.c: the UART host link frames: CRC, encoders, decoder, damage detection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tsr_uart.h"
#include "../common/tsr_prng.h"

/* xorshift32 (tests/common/tsr_prng.h), seeded per test so that every case is reproducible. */
static uint32_t g_rng;
static uint32_t rnd(void) {
  return tsr_xorshift32(&g_rng);
}

/* Feed a whole buffer; return the first non-MORE result (MORE if none). */
static tsr_uart_dec_result_t feed_all(tsr_uart_dec_t *d, const uint8_t *p, size_t n,
                                      size_t *consumed) {
  for (size_t i = 0; i < n; i++) {
    tsr_uart_dec_result_t r = tsr_uart_dec_feed(d, p[i]);
    if (r != TSR_UART_DEC_MORE) {
      if (consumed != NULL) {
        *consumed = i + 1u;
      }
      return r;
    }
  }
  if (consumed != NULL) {
    *consumed = n;
  }
  return TSR_UART_DEC_MORE;
}

static void crc_gives_the_ccitt_false_check_value(void **state) {
  (void)state;
  const uint8_t check[] = "123456789";
  assert_int_equal(tsr_uart_crc16(TSR_UART_CRC_INIT, check, 9), 0x29B1);
  /* Byte by byte continues the same CRC. */
  uint16_t c = TSR_UART_CRC_INIT;
  for (int i = 0; i < 9; i++) {
    c = tsr_uart_crc16(c, &check[i], 1);
  }
  assert_int_equal(c, 0x29B1);
  assert_int_equal(tsr_uart_crc16(TSR_UART_CRC_INIT, NULL, 0), 0xFFFF);
}

static void write32_request_has_the_documented_layout(void **state) {
  (void)state;
  uint8_t buf[32];
  const uint8_t val[4] = {0x78, 0x56, 0x34, 0x12};
  size_t n = tsr_uart_encode_req(buf, sizeof buf, TSR_UART_CMD_WRITE32, 0x42, 0x00000010u, 4, val);
  assert_int_equal(n, 15);
  const uint8_t want[13] = {0xA5, 0x81, 0x42, 0x10, 0x00, 0x00, 0x00, 0x04, 0x00,
                            0x78, 0x56, 0x34, 0x12};
  assert_memory_equal(buf, want, sizeof want);
  uint16_t crc = tsr_uart_crc16(TSR_UART_CRC_INIT, buf + 1, 12);
  assert_int_equal(buf[13], crc >> 8);
  assert_int_equal(buf[14], crc & 0xff);
  /* A read carries no payload even with LEN 4. */
  n = tsr_uart_encode_req(buf, sizeof buf, TSR_UART_CMD_READ32, 1, 0x14, 4, NULL);
  assert_int_equal(n, 11);
  assert_int_equal(buf[7], 4);
}

static void encoders_refuse_small_buffers_and_missing_payloads(void **state) {
  (void)state;
  uint8_t buf[16] = {0};
  assert_int_equal(tsr_uart_encode_req(buf, 14, TSR_UART_CMD_WRITE32, 0, 0, 4, buf), 0);
  assert_int_equal(tsr_uart_encode_req(buf, sizeof buf, TSR_UART_CMD_WRITE32, 0, 0, 4, NULL), 0);
  assert_int_equal(tsr_uart_encode_req(NULL, 64, TSR_UART_CMD_INFO, 0, 0, 0, NULL), 0);
  assert_int_equal(tsr_uart_encode_rsp(buf, 10, 0, 0, buf, 4), 0);
  assert_int_equal(tsr_uart_encode_rsp(buf, sizeof buf, 0, 0, NULL, 4), 0);
  assert_int_equal(tsr_uart_encode_rsp(buf, sizeof buf, 0, 0, NULL, 0), 7);
}

/* Random requests and replies survive encode + decode, with noise between frames. */
static void random_frames_round_trip_through_the_decoder(void **state) {
  (void)state;
  g_rng = 0x1234567u;
  static const uint8_t cmds[] = {TSR_UART_CMD_INFO, TSR_UART_CMD_READ32, TSR_UART_CMD_MEM_READ,
                                 TSR_UART_CMD_WRITE32, TSR_UART_CMD_MEM_WRITE, 0x7f, 0xff};
  uint8_t frame[600], payload[300], data[300];
  for (int iter = 0; iter < 2000; iter++) {
    const bool request = (iter & 1) == 0;
    const uint8_t code = request ? cmds[rnd() % sizeof cmds] : (uint8_t)(rnd() % 7u);
    const uint8_t seq = (uint8_t)rnd();
    const uint32_t addr = rnd();
    const uint16_t len = (uint16_t)(rnd() % 257u);
    for (int i = 0; i < len; i++) {
      payload[i] = (uint8_t)rnd();
    }
    size_t n = request ? tsr_uart_encode_req(frame, sizeof frame, code, seq, addr, len, payload)
                       : tsr_uart_encode_rsp(frame, sizeof frame, code, seq, payload, len);
    assert_true(n > 0);
    tsr_uart_dec_t d;
    tsr_uart_dec_init(&d, request, data, sizeof data);
    /* Noise first: bytes other than the direction's SYNC are skipped. */
    for (int i = 0; i < 5; i++) {
      uint8_t b = (uint8_t)rnd();
      if (b == (request ? TSR_UART_SYNC_REQ : TSR_UART_SYNC_RSP)) {
        b ^= 1u;
      }
      assert_int_equal(tsr_uart_dec_feed(&d, b), TSR_UART_DEC_MORE);
    }
    size_t used = 0;
    assert_int_equal(feed_all(&d, frame, n, &used), TSR_UART_DEC_FRAME);
    assert_int_equal(used, n);
    assert_int_equal(d.code, code);
    assert_int_equal(d.seq, seq);
    assert_int_equal(d.len, len);
    if (request) {
      assert_int_equal(d.addr, addr);
    }
    const size_t nd = (!request || (code & TSR_UART_CMD_PAYLOAD) != 0u) ? len : 0u;
    assert_int_equal(d.ndata, nd);
    assert_memory_equal(data, payload, nd);
    assert_false(tsr_uart_dec_busy(&d));
  }
}

/* Every single-bit error and every burst within one byte is caught: the decoder never
 * reports FRAME for a damaged frame (it may report BAD_CRC, TOO_LONG, or wait for more). */
static void every_damaged_byte_of_a_frame_is_detected(void **state) {
  (void)state;
  g_rng = 99u;
  uint8_t frame[64], payload[16], data[64];
  unsigned frames = 0, damaged = 0;
  for (int kind = 0; kind < 3; kind++) {
    for (int i = 0; i < 16; i++) {
      payload[i] = (uint8_t)rnd();
    }
    size_t n = kind == 0   ? tsr_uart_encode_req(frame, sizeof frame, TSR_UART_CMD_WRITE32, 7, 0x30, 4, payload)
               : kind == 1 ? tsr_uart_encode_req(frame, sizeof frame, TSR_UART_CMD_MEM_WRITE, 8, 0x100, 16, payload)
                           : tsr_uart_encode_rsp(frame, sizeof frame, TSR_UART_STS_OK, 9, payload, 4);
    const bool request = kind != 2;
    frames++;
    for (size_t pos = 1; pos < n; pos++) {
      for (unsigned mask = 1; mask < 256; mask++) {
        uint8_t bad[64];
        memcpy(bad, frame, n);
        bad[pos] ^= (uint8_t)mask;
        tsr_uart_dec_t d;
        tsr_uart_dec_init(&d, request, data, 32);
        tsr_uart_dec_result_t r = feed_all(&d, bad, n, NULL);
        assert_int_not_equal(r, TSR_UART_DEC_FRAME);
        damaged++;
      }
    }
  }
  /* A dropped byte: the frame is one short, so it either waits or fails its CRC. */
  size_t n = tsr_uart_encode_req(frame, sizeof frame, TSR_UART_CMD_WRITE32, 7, 0x30, 4, payload);
  for (size_t pos = 1; pos < n; pos++) {
    uint8_t bad[64];
    memcpy(bad, frame, pos);
    memcpy(bad + pos, frame + pos + 1, n - pos - 1);
    tsr_uart_dec_t d;
    tsr_uart_dec_init(&d, true, data, 32);
    assert_int_not_equal(feed_all(&d, bad, n - 1, NULL), TSR_UART_DEC_FRAME);
    damaged++;
  }
  assert_true(frames == 3 && damaged > 10000);
}

static void a_payload_longer_than_the_buffer_is_abandoned(void **state) {
  (void)state;
  uint8_t frame[400], payload[300] = {0}, data[16];
  size_t n = tsr_uart_encode_req(frame, sizeof frame, TSR_UART_CMD_MEM_WRITE, 1, 0, 17, payload);
  tsr_uart_dec_t d;
  tsr_uart_dec_init(&d, true, data, sizeof data);
  size_t used = 0;
  assert_int_equal(feed_all(&d, frame, n, &used), TSR_UART_DEC_TOO_LONG);
  assert_int_equal(used, TSR_UART_REQ_HDR);  /* at the last LEN byte, before any payload */
  assert_false(tsr_uart_dec_busy(&d));
  /* A read of the same length carries nothing, so it is fine. */
  n = tsr_uart_encode_req(frame, sizeof frame, TSR_UART_CMD_MEM_READ, 1, 0, 17, NULL);
  tsr_uart_dec_init(&d, true, data, sizeof data);
  assert_int_equal(feed_all(&d, frame, n, NULL), TSR_UART_DEC_FRAME);
  /* Then a good frame decodes after a reset mid-frame. */
  tsr_uart_dec_feed(&d, TSR_UART_SYNC_REQ);
  tsr_uart_dec_feed(&d, 0x81);
  assert_true(tsr_uart_dec_busy(&d));
  tsr_uart_dec_reset(&d);
  assert_int_equal(feed_all(&d, frame, n, NULL), TSR_UART_DEC_FRAME);
}

static void a_reply_is_not_taken_for_a_request(void **state) {
  (void)state;
  uint8_t frame[32], data[16];
  size_t n = tsr_uart_encode_rsp(frame, sizeof frame, 0, 3, (const uint8_t *)"abcd", 4);
  tsr_uart_dec_t d;
  tsr_uart_dec_init(&d, true, data, sizeof data);
  assert_int_equal(feed_all(&d, frame, n, NULL), TSR_UART_DEC_MORE);
  assert_false(tsr_uart_dec_busy(&d) && d.idx > 2);
}

static void info_round_trips_and_rejects_strangers(void **state) {
  (void)state;
  tsr_uart_info_t in = {TSR_UART_VERSION, 256, 1024, 65536, 868};
  uint8_t b[TSR_UART_INFO_BYTES];
  tsr_uart_info_encode(&in, b);
  assert_int_equal(b[0], 'T');
  assert_int_equal(b[1], 'U');
  tsr_uart_info_t out;
  assert_int_equal(tsr_uart_info_decode(b, sizeof b, &out), TSR_OK);
  assert_int_equal(out.max_len, 256);
  assert_int_equal(out.rx_timeout_bits, 1024);
  assert_int_equal(out.mem_bytes, 65536);
  assert_int_equal(out.clk_per_bit, 868);
  assert_int_equal(tsr_uart_info_decode(b, 15, &out), TSR_NO_DEVICE);
  b[2] = 2;
  assert_int_equal(tsr_uart_info_decode(b, sizeof b, &out), TSR_NO_DEVICE);
  b[2] = 1;
  b[4] = 2;
  b[5] = 0;
  assert_int_equal(tsr_uart_info_decode(b, sizeof b, &out), TSR_NO_DEVICE);
}

static void every_status_has_a_message(void **state) {
  (void)state;
  for (unsigned s = 0; s < 256; s++) {
    const char *m = tsr_uart_status_str((uint8_t)s);
    assert_non_null(m);
    assert_true(strlen(m) > 0);
  }
  assert_string_equal(tsr_uart_status_str(TSR_UART_STS_OK | TSR_UART_STS_REPLAY), "OK");
  assert_non_null(strstr(tsr_uart_status_str(TSR_UART_STS_SLVERR), "SLVERR"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(crc_gives_the_ccitt_false_check_value),
      cmocka_unit_test(write32_request_has_the_documented_layout),
      cmocka_unit_test(encoders_refuse_small_buffers_and_missing_payloads),
      cmocka_unit_test(random_frames_round_trip_through_the_decoder),
      cmocka_unit_test(every_damaged_byte_of_a_frame_is_detected),
      cmocka_unit_test(a_payload_longer_than_the_buffer_is_abandoned),
      cmocka_unit_test(a_reply_is_not_taken_for_a_request),
      cmocka_unit_test(info_round_trips_and_rejects_strangers),
      cmocka_unit_test(every_status_has_a_message),
  };
  return cmocka_run_group_tests_name("uart_proto", tests, NULL, NULL);
}
