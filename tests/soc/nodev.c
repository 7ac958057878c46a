/* nodev.c: a fault case: a load from an address where no device answers must stop the run with that address. */
#include "tsr_rt.h"

int main(void) {
  tsr_rt_puts("reading 0x60000000, where nothing is mapped\n");
  uint32_t v = *(volatile uint32_t *)(uintptr_t)0x60000000u;
  tsr_rt_puts("still running: the bus fault was missed\n");
  return (int)(v & 1u);
}
