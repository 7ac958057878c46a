/* tsr_rt.h: bare-metal runtime of the co-simulation SoC (rtl/soc/tsr_soc.v): console, exit, traps, IRQs. */
#ifndef TSR_RT_H
#define TSR_RT_H

/*
 * Freestanding. A program for the SoC links fw/rt/crt0.S, fw/rt/tsr_rt.c and
 * fw/rt/tsr_soc.ld (make fw-elf) and provides `int main(void)`; main's return
 * value is the simulation's exit code. The memory map (docs/soc.md):
 *   0x0000_0000  on-chip RAM: code, data, stack (the stack starts at its end)
 *   0x4000_0000  tsr_top's registers
 *   0x5000_0000  CONSOLE (+0x0, write a byte), EXIT (+0x4, write the code)
 *   0x8000_0000  external memory: device address a is CPU address 0x8000_0000 + a
 *
 * Traps: picorv32 raises IRQ 1 on an illegal instruction, EBREAK or ECALL and
 * IRQ 2 on a misaligned access. crt0.S enables both; the handler prints one
 * line naming the cause, the PC and the chip's STATUS, and exits with
 * TSR_RT_EXIT_TRAP (TSR_RT_EXIT_MISALIGN). IRQ 3 is tsr_top's irq_o: the handler
 * counts it and masks it (tsr_rt_irq_wait unmasks it again).
 */

#include <stddef.h>
#include <stdint.h>

#include "tsr_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_RT_RAM_BASE 0x00000000u    /**< on-chip RAM */
#define TSR_RT_REG_BASE 0x40000000u    /**< tsr_top's registers */
#define TSR_RT_IO_BASE 0x50000000u     /**< CONSOLE at +0, EXIT at +4 */
#define TSR_RT_EXT_BASE 0x80000000u    /**< external memory, device address 0 */
#define TSR_RT_EXT_SIZE 0x04000000u    /**< the bench's memory model: 64 MiB */

#define TSR_RT_IRQ_TIMER 0x1u          /**< IRQ 0: picorv32's timer (tsr_rt_irq_wait_for) */
#define TSR_RT_IRQ_TRAP 0x2u           /**< IRQ 1: illegal instruction, EBREAK, ECALL */
#define TSR_RT_IRQ_MISALIGN 0x4u       /**< IRQ 2: misaligned load, store or jump */
#define TSR_RT_IRQ_CHIP 0x8u           /**< IRQ 3: tsr_top's irq_o */

#define TSR_RT_EXIT_ASSERT 134         /**< a TSR_RT_ASSERT failed (128 + SIGABRT) */
#define TSR_RT_EXIT_TRAP 132           /**< illegal instruction, EBREAK or ECALL (128 + SIGILL) */
#define TSR_RT_EXIT_MISALIGN 135       /**< misaligned access (128 + SIGBUS) */

/** Write one byte to the console. */
void tsr_rt_putc(char c);

/** Write a NUL-terminated string to the console. */
void tsr_rt_puts(const char *s);

/** Write "0x" and 8 hex digits. */
void tsr_rt_puthex(uint32_t v);

/** Write an unsigned decimal number. */
void tsr_rt_putdec(uint32_t v);

/** End the simulation with `code` (the EXIT register); never returns. */
void tsr_rt_exit(uint32_t code) __attribute__((noreturn));

/** Print "assert: <file>:<line>: <expr>", PC and the chip's STATUS, and exit with TSR_RT_EXIT_ASSERT. */
void tsr_rt_assert_fail(const char *expr, const char *file, int line) __attribute__((noreturn));

/** Firmware assertion: checked in every build (the SoC is a test rig). */
#define TSR_RT_ASSERT(e) ((e) ? (void)0 : tsr_rt_assert_fail(#e, __FILE__, __LINE__))

/** tsr_top's interrupts taken so far (IRQ 3). */
uint32_t tsr_rt_chip_irqs(void);

/** Unmask IRQ 3 and sleep (picorv32 waitirq) until tsr_top's irq_o has been taken once more. */
void tsr_rt_irq_wait(void);

/** tsr_rt_irq_wait, but give up after `max_cycles` (picorv32's timer, IRQ 0; 0 = never).
 *  0 when the chip's interrupt came, -1 on the timeout. */
int tsr_rt_irq_wait_for(uint32_t max_cycles);

/**
 * Give `hal` (a bare-metal HAL, tsr_hal_baremetal_init) a wait_irq operation that sleeps
 * in tsr_rt_irq_wait_for until tsr_top's irq_o is taken: the driver's TSR_WAIT_IRQ, and
 * with it tsr_gemm_run, then waits on the interrupt instead of polling STATUS. `ops` is
 * the caller's storage for the new table (a copy of hal's). Its `max` is in core cycles
 * (0: no limit; above 2^32 - 1: that); past it the op returns TSR_TIMEOUT.
 */
void tsr_rt_hal_use_irq(tsr_hal_t *hal, tsr_hal_ops_t *ops);

/** Called by crt0.S's IRQ entry with q0 (return PC) and q1 (the IRQs to handle). Not for programs. */
void tsr_rt_irq(uint32_t pc, uint32_t pending);

/** Low 32 bits of the core's cycle counter (rdcycle). */
uint32_t tsr_rt_cycles(void);

/** picorv32's instructions retired (rdinstret), low 32 bits. */
uint32_t tsr_rt_instret(void);

#ifdef __cplusplus
}
#endif

#endif /* TSR_RT_H */
