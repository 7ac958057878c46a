/* tsr_le.h: little-endian 32-bit words in byte buffers, as the file formats the library reads and writes store them (.npy, .tflite, .tsr). */
#ifndef TSR_LE_H
#define TSR_LE_H

#include <stdint.h>

static inline uint32_t tsr_le32_load(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline void tsr_le32_store(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

#endif
