/* halt.c: a fault case: an illegal instruction with IRQ 1 masked halts picorv32; the bench reports the halt. */
#include "tsr_rt.h"

uint32_t tsr_rt_maskirq(uint32_t mask);  /* crt0.S: picorv32's maskirq */

int main(void) {
  tsr_rt_puts("masking every IRQ, then an illegal instruction\n");
  (void)tsr_rt_maskirq(0xffffffffu);
  __asm__ volatile(".word 0x00000000");
  tsr_rt_puts("still running: the core did not halt\n");
  return 0;
}
