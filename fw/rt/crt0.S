/* crt0.S: start-up and IRQ entry of the co-simulation SoC's firmware (picorv32, RV32IM). */

/* picorv32's custom IRQ instructions (its README, "Custom Instructions for IRQ
 * Handling"), all under the custom-0 opcode: getq rd, qs (f7 0, qs in the rs1
 * field), retirq (f7 2), maskirq rd, rs (f7 3: new mask from rs, old one to rd),
 * waitirq rd (f7 4), timer rd, rs (f7 5: IRQ 0 after rs cycles). x0..x3 in the q fields
 * name q0..q3. */
#define GETQ_A0_Q0  .insn r 0x0b, 0, 0, a0, x0, x0
#define GETQ_A1_Q1  .insn r 0x0b, 0, 0, a1, x1, x0
#define RETIRQ      .insn r 0x0b, 0, 2, x0, x0, x0
#define MASKIRQ_T0  .insn r 0x0b, 0, 3, x0, t0, x0

  .section .text.reset, "ax"
  .globl _reset
_reset:                         /* 0x00: PROGADDR_RESET */
  j _start
  .balign 16
_irq_entry:                     /* 0x10: PROGADDR_IRQ */
  addi sp, sp, -64
  sw ra, 0(sp)
  sw t0, 4(sp)
  sw t1, 8(sp)
  sw t2, 12(sp)
  sw a0, 16(sp)
  sw a1, 20(sp)
  sw a2, 24(sp)
  sw a3, 28(sp)
  sw a4, 32(sp)
  sw a5, 36(sp)
  sw a6, 40(sp)
  sw a7, 44(sp)
  sw t3, 48(sp)
  sw t4, 52(sp)
  sw t5, 56(sp)
  sw t6, 60(sp)
  GETQ_A0_Q0                    /* return PC */
  GETQ_A1_Q1                    /* IRQs to handle */
  call tsr_rt_irq
  lw ra, 0(sp)
  lw t0, 4(sp)
  lw t1, 8(sp)
  lw t2, 12(sp)
  lw a0, 16(sp)
  lw a1, 20(sp)
  lw a2, 24(sp)
  lw a3, 28(sp)
  lw a4, 32(sp)
  lw a5, 36(sp)
  lw a6, 40(sp)
  lw a7, 44(sp)
  lw t3, 48(sp)
  lw t4, 52(sp)
  lw t5, 56(sp)
  lw t6, 60(sp)
  addi sp, sp, 64
  RETIRQ

  .text
  .globl _start
_start:
  la sp, __stack_top
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  /* .bss to zero (.data is loaded with the image: there is no ROM to copy from) */
  la t0, __bss_start
  la t1, __bss_end
1:
  bgeu t0, t1, 2f
  sw zero, 0(t0)
  addi t0, t0, 4
  j 1b
2:
  /* Unmask IRQ 1 (illegal instruction, EBREAK, ECALL) and IRQ 2 (misaligned): a fault
   * then reaches the handler instead of halting the core. IRQ 0 (timer) and 3 (the
   * chip) stay masked until a program asks (tsr_rt_irq_wait). */
  li t0, ~0x6
  MASKIRQ_T0
  call main
  call tsr_rt_exit              /* a0 = main's return value */

  .globl tsr_rt_maskirq
tsr_rt_maskirq:                 /* uint32_t tsr_rt_maskirq(uint32_t mask): old mask */
  .insn r 0x0b, 0, 3, a0, a0, x0
  ret

  .globl tsr_rt_timer
tsr_rt_timer:                   /* uint32_t tsr_rt_timer(uint32_t cycles): old count; 0 stops it */
  .insn r 0x0b, 0, 5, a0, a0, x0
  ret

  .globl tsr_rt_waitirq
tsr_rt_waitirq:                 /* uint32_t tsr_rt_waitirq(void): pending IRQs */
  .insn r 0x0b, 0, 4, a0, x0, x0
  ret
