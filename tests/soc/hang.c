/* hang.c: a fault case: firmware that never writes EXIT must be stopped by the bench's watchdog. */
#include "tsr_rt.h"

int main(void) {
  tsr_rt_puts("spinning forever\n");
  for (;;) {
    __asm__ volatile("nop");
  }
}
