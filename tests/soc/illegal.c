/* illegal.c: a fault case: an illegal instruction must end the run through the trap handler. */
#include "tsr_rt.h"

int main(void) {
  tsr_rt_puts("about to execute an illegal instruction\n");
  __asm__ volatile(".word 0x00000000");  /* all zeros: illegal in RV32 */
  tsr_rt_puts("still running: the trap was missed\n");
  return 0;
}
