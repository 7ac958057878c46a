/* assert.c: a fault case: a failed firmware assertion ends the run with its file, line and PC. */
#include "tsr_rt.h"

int main(void) {
  volatile uint32_t two = 2u;
  TSR_RT_ASSERT(two + two == 5u);
  return 0;
}
