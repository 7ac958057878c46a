/* tsr_tsr_forge.h: make a .tsr file's checksum right again after a test changed its bytes (header-only). */
#ifndef TSR_TSR_FORGE_H
#define TSR_TSR_FORGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The checksum of the format (docs/networks.md): FNV-1a over the whole file
 * with header word 13 (bytes 52..55) read as zero, stored in word 13. The
 * tests' own copy: a forged file must get past the checksum so that the
 * container's other checks are what refuses it, and a wrong checksum in the
 * library shows in the tests that flip bytes without forging.
 * Include it as "../common/tsr_tsr_forge.h" from tests/<suite>/.
 */
static inline void tsr_tsr_fix_checksum(uint8_t *b, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ (i >= 52u && i < 56u ? 0u : b[i])) * 16777619u;
  }
  for (int i = 0; i < 4; i++) {
    b[52 + i] = (uint8_t)(h >> (8 * i));
  }
}

#endif /* TSR_TSR_FORGE_H */
