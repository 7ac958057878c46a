/* buserr.c: a fault case: a load past the end of the external memory gets DECERR, which must stop the run. */
#include "tsr_rt.h"

int main(void) {
  tsr_rt_puts("reading just past the end of the external memory\n");
  uint32_t v = *(volatile uint32_t *)(uintptr_t)(TSR_RT_EXT_BASE + TSR_RT_EXT_SIZE);
  tsr_rt_puts("still running: the error response was missed\n");
  return (int)(v & 1u);
}
