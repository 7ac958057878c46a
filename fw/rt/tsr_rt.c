/* tsr_rt.c: bare-metal runtime of the co-simulation SoC: console, exit, trap and IRQ handling (freestanding). */
#include "tsr_rt.h"

#include "tessera_regs.h"

/* crt0.S: picorv32's maskirq and waitirq. */
uint32_t tsr_rt_maskirq(uint32_t mask);
uint32_t tsr_rt_waitirq(void);
uint32_t tsr_rt_timer(uint32_t cycles);

#define IO_CONSOLE (*(volatile uint32_t *)(TSR_RT_IO_BASE + 0x0u))
#define IO_EXIT (*(volatile uint32_t *)(TSR_RT_IO_BASE + 0x4u))
#define CHIP_STATUS (*(volatile uint32_t *)(TSR_RT_REG_BASE + TSR_STATUS_REG_OFFSET))

/* The mask crt0.S sets: IRQ 1 and 2 enabled, the rest masked. */
#define MASK_DEFAULT (~(TSR_RT_IRQ_TRAP | TSR_RT_IRQ_MISALIGN))

static volatile uint32_t g_chip_irqs;
static volatile uint32_t g_timer_fired;

void tsr_rt_putc(char c) {
  IO_CONSOLE = (uint32_t)(uint8_t)c;
}

void tsr_rt_puts(const char *s) {
  while (*s != '\0') {
    tsr_rt_putc(*s++);
  }
}

void tsr_rt_puthex(uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  tsr_rt_puts("0x");
  for (int sh = 28; sh >= 0; sh -= 4) {
    tsr_rt_putc(digits[(v >> sh) & 0xfu]);
  }
}

void tsr_rt_putdec(uint32_t v) {
  char buf[10];
  int n = 0;
  do {
    buf[n++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0u);
  while (n > 0) {
    tsr_rt_putc(buf[--n]);
  }
}

void tsr_rt_exit(uint32_t code) {
  IO_EXIT = code;
  for (;;) {
    /* the bench stops the clock at the EXIT write */
  }
}

uint32_t tsr_rt_cycles(void) {
  uint32_t c;
  __asm__ volatile("rdcycle %0" : "=r"(c));
  return c;
}

uint32_t tsr_rt_instret(void) {
  uint32_t n;
  __asm__ volatile("rdinstret %0" : "=r"(n));
  return n;
}

static void put_status(void) {
  tsr_rt_puts(", chip STATUS=");
  tsr_rt_puthex(CHIP_STATUS);
  tsr_rt_putc('\n');
}

void tsr_rt_assert_fail(const char *expr, const char *file, int line) {
  uint32_t ra = (uint32_t)(uintptr_t)__builtin_return_address(0);
  tsr_rt_puts("assert: ");
  tsr_rt_puts(file);
  tsr_rt_putc(':');
  tsr_rt_putdec((uint32_t)line);
  tsr_rt_puts(": ");
  tsr_rt_puts(expr);
  tsr_rt_puts(" failed at PC=");
  tsr_rt_puthex(ra - 4u);
  put_status();
  tsr_rt_exit(TSR_RT_EXIT_ASSERT);
}

uint32_t tsr_rt_chip_irqs(void) {
  return g_chip_irqs;
}

int tsr_rt_irq_wait_for(uint32_t max_cycles) {
  uint32_t seen = g_chip_irqs;
  uint32_t mask = MASK_DEFAULT & ~TSR_RT_IRQ_CHIP;
  g_timer_fired = 0u;
  if (max_cycles != 0u) {
    (void)tsr_rt_timer(max_cycles);
    mask &= ~TSR_RT_IRQ_TIMER;
  }
  (void)tsr_rt_maskirq(mask);
  while (g_chip_irqs == seen && g_timer_fired == 0u) {
    (void)tsr_rt_waitirq();
  }
  (void)tsr_rt_timer(0u);
  (void)tsr_rt_maskirq(MASK_DEFAULT);
  return g_chip_irqs != seen ? 0 : -1;
}

void tsr_rt_irq_wait(void) {
  (void)tsr_rt_irq_wait_for(0u);
}

static tsr_status_t rt_wait_irq(void *ctx, uint64_t max) {
  (void)ctx;
  uint32_t cycles = max > 0xffffffffu ? 0xffffffffu : (uint32_t)max;
  return tsr_rt_irq_wait_for(cycles) == 0 ? TSR_OK : TSR_TIMEOUT;
}

void tsr_rt_hal_use_irq(tsr_hal_t *hal, tsr_hal_ops_t *ops) {
  *ops = *hal->ops;
  ops->wait_irq = rt_wait_irq;
  hal->ops = ops;
}

/* picorv32 hands over the address of the instruction after the one that
 * trapped (q0); that instruction is at pc - 4 (no compressed instructions). */
static void trap(uint32_t pc, uint32_t pending) {
  uint32_t at = pc - 4u;
  if ((pending & TSR_RT_IRQ_MISALIGN) != 0u) {
    tsr_rt_puts("trap: misaligned access (IRQ 2) by the instruction at PC=");
    tsr_rt_puthex(at);
    put_status();
    tsr_rt_exit(TSR_RT_EXIT_MISALIGN);
  }
  uint32_t insn = *(const volatile uint32_t *)(uintptr_t)at;
  const char *what = insn == 0x00100073u   ? "EBREAK"
                     : insn == 0x00000073u ? "ECALL"
                                           : "illegal instruction";
  tsr_rt_puts("trap: ");
  tsr_rt_puts(what);
  tsr_rt_puts(" (IRQ 1, word ");
  tsr_rt_puthex(insn);
  tsr_rt_puts(") at PC=");
  tsr_rt_puthex(at);
  put_status();
  tsr_rt_exit(TSR_RT_EXIT_TRAP);
}

void tsr_rt_irq(uint32_t pc, uint32_t pending) {
  if ((pending & (TSR_RT_IRQ_TRAP | TSR_RT_IRQ_MISALIGN)) != 0u) {
    trap(pc, pending);
  }
  if ((pending & TSR_RT_IRQ_TIMER) != 0u) {
    /* tsr_rt_irq_wait_for's limit: stop waiting */
    (void)tsr_rt_maskirq(MASK_DEFAULT);
    g_timer_fired = 1u;
  }
  if ((pending & TSR_RT_IRQ_CHIP) != 0u) {
    /* irq_o stays high until the driver clears IRQ_STATUS: mask it, count it, and let
     * the program (tsr_rt_irq_wait's caller) clear the cause. */
    (void)tsr_rt_maskirq(MASK_DEFAULT);
    g_chip_irqs = g_chip_irqs + 1u;
  }
}

/* What GCC may call even in a freestanding program (struct copies and clears): the C
 * library's four memory functions, plain loops. */
void *memset(void *d, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memset(void *d, int c, size_t n) {
  uint8_t *p = d;
  for (size_t i = 0; i < n; i++) {
    p[i] = (uint8_t)c;
  }
  return d;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n) {
  uint8_t *dp = d;
  const uint8_t *sp = s;
  for (size_t i = 0; i < n; i++) {
    dp[i] = sp[i];
  }
  return d;
}

void *memmove(void *d, const void *s, size_t n) {
  uint8_t *dp = d;
  const uint8_t *sp = s;
  if (dp < sp) {
    for (size_t i = 0; i < n; i++) {
      dp[i] = sp[i];
    }
  } else {
    for (size_t i = n; i > 0; i--) {
      dp[i - 1] = sp[i - 1];
    }
  }
  return d;
}

int memcmp(const void *a, const void *b, size_t n) {
  const uint8_t *x = a;
  const uint8_t *y = b;
  for (size_t i = 0; i < n; i++) {
    if (x[i] != y[i]) {
      return x[i] < y[i] ? -1 : 1;
    }
  }
  return 0;
}
