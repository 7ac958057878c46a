/* fuzz_prog.c: the chip fuzzer's programs: command generators, plain programs and their text form. */
#include <stdio.h>
#include <string.h>

#include "fuzz_chip.h"
#include "tessera_regs.h"

/* The program language is described in fuzz_chip.c; ring programs are in fuzz_ring.c. */

/* ---- program generation ---------------------------------------------------------- */

uint32_t fz_rnd(sys_rng_t *r, uint32_t lo, uint32_t hi) {
  return (uint32_t)sys_rng_range(r, lo, hi);
}

uint32_t fz_extreme(sys_rng_t *r) {
  static const uint32_t k[] = {0u, 1u, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0xFFFFu,
                               0x10000u, 0xFFFF0000u, 0xFFFFFF00u, 0x00FFFFFFu, FZ_MEM_SIZE, FZ_MEM_SIZE - 1u};
  return k[fz_rnd(r, 0, (uint32_t)(sizeof k / sizeof k[0]) - 1u)];
}

void fz_cmd_load(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  const bool acc = sys_rng_pct(r, 25u);
  const uint32_t rows = fz_rnd(r, 1, 40), cols = fz_rnd(r, 1, acc ? 4u * fz_dim : 3u * fz_dim);
  w[0] = TSR_OP_LOAD | TSR_CMD_PUT(TSR_CMD_LOAD_W0_DEST, acc ? 1u : 0u);
  w[1] = fz_rnd(r, 0, FZ_MEM_SIZE / 2u);
  w[2] = sys_rng_pct(r, 70u) ? cols + fz_rnd(r, 0, 9) : fz_rnd(r, 0, 4096);
  w[3] = TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, rows) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, cols);
  w[4] = fz_rnd(r, 0, 200);
}

void fz_cmd_matmul(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  w[0] = TSR_OP_MATMUL | TSR_CMD_PUT(TSR_CMD_MATMUL_W0_ACCUMULATE, sys_rng_pct(r, 30u) ? 1u : 0u) |
         TSR_CMD_PUT(TSR_CMD_MATMUL_W0_KEEP_WEIGHTS, sys_rng_pct(r, 15u) ? 1u : 0u);
  w[1] = fz_rnd(r, 0, 200);
  w[2] = fz_rnd(r, 0, 200);
  w[3] = fz_rnd(r, 0, 100);
  /* K up to about 4N: up to four weight tiles (K > N); now and then a huge K,
   * whose ceil(K/N) * M A rows or W_ADDR + K run past the scratchpad. */
  uint32_t k;
  if (sys_rng_pct(r, 5u)) {
    k = sys_rng_pct(r, 50u) ? 0xFFFFu : fz_rnd(r, 1, 0xFFFFu);
  } else {
    k = fz_rnd(r, 1, sys_rng_pct(r, 50u) ? fz_dim : 4u * fz_dim + 3u);
  }
  w[4] = TSR_CMD_PUT(TSR_CMD_MATMUL_W4_M, fz_rnd(r, 1, 40)) | TSR_CMD_PUT(TSR_CMD_MATMUL_W4_K, k);
  w[5] = fz_rnd(r, 1, fz_dim);
}

void fz_cmd_store(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  const bool requant = sys_rng_pct(r, 60u);
  const uint32_t cols = fz_rnd(r, 1, fz_dim);
  w[0] = TSR_OP_STORE | TSR_CMD_PUT(TSR_CMD_STORE_W0_BIAS, sys_rng_pct(r, 40u) ? 1u : 0u) |
         TSR_CMD_PUT(TSR_CMD_STORE_W0_REQUANT, requant ? 1u : 0u) |
         TSR_CMD_PUT(TSR_CMD_STORE_W0_PER_CHANNEL, requant && sys_rng_pct(r, 30u) ? 1u : 0u);
  w[1] = FZ_MEM_SIZE / 2u + fz_rnd(r, 0, FZ_MEM_SIZE / 4u);
  w[2] = sys_rng_pct(r, 70u) ? cols * (requant ? 1u : 4u) + fz_rnd(r, 0, 7) : fz_rnd(r, 0, 512);
  w[3] = TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, fz_rnd(r, 1, 40)) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, cols);
  w[4] = fz_rnd(r, 0, 100);
  w[5] = fz_rnd(r, 0, 100);
  w[6] = fz_rnd(r, 0x40000000u, 0x7FFFFFFFu);
  const int32_t shift = (int32_t)fz_rnd(r, 0, 61) - 31, zp = (int32_t)fz_rnd(r, 0, 255) - 128;
  const int32_t lo = (int32_t)fz_rnd(r, 0, 127) - 128, hi = (int32_t)fz_rnd(r, 0, 127);
  w[7] = TSR_CMD_PUT(TSR_CMD_STORE_W7_SHIFT, (uint32_t)shift) | TSR_CMD_PUT(TSR_CMD_STORE_W7_OUT_ZP, (uint32_t)zp) |
         TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MIN, (uint32_t)lo) | TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MAX, (uint32_t)hi);
}

/* An SFU command (docs/sfu.md) with small tensors; the table, params and beta
 * are whatever the accumulator and scratchpad hold, so ERR_PARAM is common. */
void fz_cmd_sfu(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  w[0] = TSR_OP_SFU | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, fz_rnd(r, 0, TSR_FUNC_COUNT)); /* one past the last */
  w[1] = fz_rnd(r, 0, 200);
  w[2] = fz_rnd(r, 0, 200);
  w[3] = TSR_CMD_PUT(TSR_CMD_SFU_W3_ROWS, fz_rnd(r, 1, 6)) | TSR_CMD_PUT(TSR_CMD_SFU_W3_LEN, fz_rnd(r, 1, 40));
  w[4] = fz_rnd(r, 0, 200);
  w[5] = fz_rnd(r, 0, 100);
  w[6] = fz_rnd(r, 0, 100);
}

void fz_mutate(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  const unsigned n = fz_rnd(r, 1, 3);
  for (unsigned i = 0; i < n; i++) {
    const unsigned k = fz_rnd(r, 0, 7);
    switch (fz_rnd(r, 0, 9)) {
      case 0: w[k] ^= 1u << fz_rnd(r, 0, 31); break;
      case 1: w[k] = fz_extreme(r); break;
      case 2: w[k] = (uint32_t)sys_rng_next(r); break;
      case 3: w[0] = (w[0] & ~(uint32_t)TSR_CMD_PUT(TSR_CMD_W0_OPCODE, TSR_CMD_W0_OPCODE_MASK)) |
                      TSR_CMD_PUT(TSR_CMD_W0_OPCODE, fz_rnd(r, 0, 255)); break;  /* opcode */
      case 4: w[0] |= (fz_rnd(r, 1, 15) << TSR_CMD_W0_POP_PREV_BIT) & TSR_DEP_MASK; break; /* token bits */
      case 5: w[3] = sys_rng_pct(r, 50u) ? 0xFFFFFFFFu : fz_extreme(r); break;   /* huge counts */
      case 6: w[1] = 0xFFFFFFFFu - fz_rnd(r, 0, 300); break;                     /* wrapping address */
      case 7: w[2] = sys_rng_pct(r, 50u) ? 0u : 0xFFFFFFFFu - fz_rnd(r, 0, 64); break; /* zero / negative stride */
      case 8: w[0] |= TSR_CMD_PUT(TSR_CMD_W0_RESERVED, fz_rnd(r, 1, 15)); break; /* reserved bits */
      default: w[k] += (uint32_t)fz_rnd(r, 0, 16) - 8u; break;                   /* off by a few */
    }
  }
}

void fz_reg_write(sys_rng_t *r, act_t *a) {
  static const uint32_t offs[] = {TSR_CTRL_REG_OFFSET,       TSR_IRQ_STATUS_REG_OFFSET,
                                  TSR_IRQ_ENABLE_REG_OFFSET, TSR_CMDQ_PUSH_REG_OFFSET,
                                  TSR_STATUS_REG_OFFSET,     TSR_ID_REG_OFFSET,
                                  0x070u,                    0x074u,
                                  0x078u,                    0x03Cu};
  a->kind = A_WRITE;
  const unsigned p = fz_rnd(r, 0, 99);
  if (p < 60) {
    a->off = offs[fz_rnd(r, 0, (uint32_t)(sizeof offs / sizeof offs[0]) - 1u)];
  } else if (p < 85) {
    a->off = fz_rnd(r, 0, 0x3FF) * 4u;
  } else {
    a->off = fz_rnd(r, 0, 0xFFF); /* often misaligned */
  }
  a->val = sys_rng_pct(r, 50u) ? fz_extreme(r) : (uint32_t)sys_rng_next(r);
  if (a->off == TSR_CTRL_REG_OFFSET && sys_rng_pct(r, 50u)) {
    a->val = fz_rnd(r, 1, 3); /* soft reset and/or counter clear */
  }
  if (a->off == 0x078u && sys_rng_pct(r, 80u)) {
    a->val = 0; /* keep the window unlocked most of the time */
  }
}

void fz_gen(sys_rng_t *r, prog_t *p) {
  if (sys_rng_pct(r, 35u)) {
    fz_gen_ring(r, p);
    return;
  }
  memset(p, 0, sizeof *p);
  if (sys_rng_pct(r, 30u)) {
    p->has_faults = true;
    tsr_sim_faults_t *f = &p->faults;
    f->rd_burst = sys_rng_pct(r, 70u) ? fz_rnd(r, 1, 40) : 0u;
    f->rd_beat = fz_rnd(r, 0, 16);
    f->wr_burst = sys_rng_pct(r, 50u) ? fz_rnd(r, 1, 10) : 0u;
    f->resp = fz_rnd(r, 2, 3);
    f->rand_pct = sys_rng_pct(r, 30u) ? fz_rnd(r, 1, 5) : 0u;
    f->delay_pct = sys_rng_pct(r, 40u) ? fz_rnd(r, 1, 5) : 0u;
    f->delay_max = fz_rnd(r, 1, 2000);
    f->seed = (uint32_t)sys_rng_next(r);
  }
  if (sys_rng_pct(r, 25u)) {
    /* A window of 16-byte words somewhere in the first half, where most commands point. */
    p->has_guard = true;
    p->guard_lo = fz_rnd(r, 0, FZ_MEM_SIZE / 32u) * 16u;
    p->guard_hi = p->guard_lo + fz_rnd(r, 1, FZ_MEM_SIZE / 64u) * 16u - 1u;
  }
  const unsigned style = fz_rnd(r, 0, 99);
  p->n = fz_rnd(r, 1, 24);
  for (unsigned i = 0; i < p->n; i++) {
    act_t *a = &p->a[i];
    const unsigned q = fz_rnd(r, 0, 99);
    if (q < (style < 20 ? 50u : 8u)) {
      fz_reg_write(r, a);
    } else if (q < 12) {
      a->kind = A_STEP;
      a->val = fz_rnd(r, 1, 3000);
    } else {
      a->kind = A_CMD;
      if (style < 70) {
        const unsigned op = fz_rnd(r, 0, 10);
        if (op == 10) {
          fz_cmd_sfu(r, a->w);
        } else if (op < 3) {
          fz_cmd_load(r, a->w);
        } else if (op < 6) {
          fz_cmd_matmul(r, a->w);
        } else if (op < 9) {
          fz_cmd_store(r, a->w);
        } else {
          memset(a->w, 0, sizeof a->w);
          a->w[0] = TSR_OP_FENCE | TSR_CMD_PUT(TSR_CMD_FENCE_W0_IRQ, sys_rng_pct(r, 50u) ? 1u : 0u);
        }
        if (p->has_guard && op != 9 && op != 10 && (op < 3 || op >= 6) && sys_rng_pct(r, 70u)) {
          /* Aim LOADs and STOREs at the guard window: inside, across either end, just outside. */
          const uint32_t span = p->guard_hi - p->guard_lo + 1u;
          a->w[1] = p->guard_lo - 64u + fz_rnd(r, 0, span + 128u);
        }
        if (sys_rng_pct(r, style < 35 ? 10u : 40u)) {
          fz_mutate(r, a->w);
        }
      } else {
        for (unsigned k = 0; k < TSR_CMD_WORDS; k++) {
          a->w[k] = sys_rng_pct(r, 30u) ? fz_extreme(r) : (uint32_t)sys_rng_next(r);
        }
        a->w[0] = (a->w[0] & ~0xFFu) | (sys_rng_pct(r, 80u) ? fz_rnd(r, 0, 5) : fz_rnd(r, 0, 255));
      }
    }
  }
}

/* ---- text form -------------------------------------------------------------------- */

void fz_prog_print(FILE *f, const prog_t *p) {
  if (p->has_faults) {
    const tsr_sim_faults_t *x = &p->faults;
    fprintf(f, "f %x %x %x %x %x %x %x %x\n", x->rd_burst, x->rd_beat, x->wr_burst, x->resp, x->rand_pct,
            x->delay_pct, x->delay_max, x->seed);
  }
  if (p->has_guard) {
    fprintf(f, "g %x %x\n", p->guard_lo, p->guard_hi);
  }
  if (p->has_expect) {
    if (p->has_expect_idx) {
      fprintf(f, "x %x %x %x\n", p->expect_code, p->expect_addr, p->expect_idx);
    } else {
      fprintf(f, "x %x %x\n", p->expect_code, p->expect_addr);
    }
  }
  for (unsigned i = 0; i < p->n; i++) {
    const act_t *a = &p->a[i];
    if (a->kind == A_WRITE) {
      fprintf(f, "w %x %x\n", a->off, a->val);
    } else if (a->kind == A_STEP) {
      fprintf(f, "s %x\n", a->val);
    } else {
      if (a->kind == A_MEM) {
        fprintf(f, "m %x", a->off);
      } else {
        fprintf(f, "c");
      }
      for (unsigned k = 0; k < TSR_CMD_WORDS; k++) {
        fprintf(f, " %x", a->w[k]);
      }
      fprintf(f, "\n");
    }
  }
}

int fz_prog_load(const char *path, prog_t *p) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "fuzz_chip: cannot open %s\n", path);
    return -1;
  }
  memset(p, 0, sizeof *p);
  char line[512];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
    if (line[0] == '#' || line[0] == '\n') {
      continue;
    }
    if (line[0] == 'f') {
      tsr_sim_faults_t *x = &p->faults;
      p->has_faults = sscanf(line + 1, "%x %x %x %x %x %x %x %x", &x->rd_burst, &x->rd_beat, &x->wr_burst,
                             &x->resp, &x->rand_pct, &x->delay_pct, &x->delay_max, &x->seed) == 8;
      rc = p->has_faults ? 0 : -1;
      continue;
    }
    if (line[0] == 'g') {
      p->has_guard = sscanf(line + 1, "%x %x", &p->guard_lo, &p->guard_hi) == 2 &&
                     p->guard_lo % 16u == 0u && p->guard_hi % 16u == 15u && p->guard_lo < p->guard_hi;
      rc = p->has_guard ? 0 : -1;
      continue;
    }
    if (line[0] == 'x') {
      const int got = sscanf(line + 1, "%x %x %x", &p->expect_code, &p->expect_addr, &p->expect_idx);
      p->has_expect = got >= 2;
      p->has_expect_idx = got == 3;
      rc = p->has_expect ? 0 : -1;
      continue;
    }
    if (p->n == FZ_MAX_ACTIONS) {
      rc = -1;
      break;
    }
    act_t *a = &p->a[p->n++];
    if (line[0] == 'w') {
      a->kind = A_WRITE;
      rc = sscanf(line + 1, "%x %x", &a->off, &a->val) == 2 ? 0 : -1;
    } else if (line[0] == 's') {
      a->kind = A_STEP;
      rc = sscanf(line + 1, "%x", &a->val) == 1 ? 0 : -1;
    } else if (line[0] == 'c') {
      a->kind = A_CMD;
      rc = sscanf(line + 1, "%x %x %x %x %x %x %x %x", &a->w[0], &a->w[1], &a->w[2], &a->w[3], &a->w[4],
                  &a->w[5], &a->w[6], &a->w[7]) == 8
               ? 0
               : -1;
    } else if (line[0] == 'm') {
      a->kind = A_MEM;
      rc = sscanf(line + 1, "%x %x %x %x %x %x %x %x %x", &a->off, &a->w[0], &a->w[1], &a->w[2], &a->w[3],
                  &a->w[4], &a->w[5], &a->w[6], &a->w[7]) == 9
               ? 0
               : -1;
    } else {
      rc = -1;
    }
  }
  fclose(f);
  if (rc != 0) {
    fprintf(stderr, "fuzz_chip: %s: bad line: %s", path, line);
  }
  return rc;
}

