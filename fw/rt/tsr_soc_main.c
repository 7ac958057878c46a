/* tsr_soc_main.c: the SoC's firmware image (tessera.elf): run the one job the host left in external memory (tsr_soc_job.h) with fw/'s planner and runners and the driver, and report. */
#include <stddef.h>

#include "tsr_cmd_reloc.h"
#include "tsr_fw.h"
#include "tsr_hal_baremetal.h"
#include "tsr_ring.h"
#include "tsr_rt.h"
#include "tsr_soc_job.h"
#include "tessera_regs.h"

/*
 * The host (sw/lib/tsr_lib_soc.c, `tessera --hal soc ...`) writes the job block
 * and the operands, releases the core's reset and waits for EXIT. This program
 * copies the block into RAM, opens the device through the bare-metal HAL, runs
 * the job as the host library would (soft reset, counters cleared, the command
 * ring attached, the commands, one wait on tsr_top's interrupt, the counters),
 * writes the results after `done` and `done` last, and exits with 0. A job the
 * driver or the planner refuses is a status in the block, not an exit code; a
 * trap, an assert or a hang ends the run as in every SoC program (docs/soc.md).
 */

#define JOB ((tsr_soc_job_t *)(uintptr_t)(TSR_RT_EXT_BASE + TSR_SOC_JOB_ADDR))

static tsr_soc_job_t g_job;
static tsr_hal_baremetal_t g_ctx;
static tsr_hal_t g_hal;
static tsr_hal_ops_t g_ops;
static tsr_dev_t g_dev;
static tsr_ring_t g_ring;
static tsr_gemm_plan_t g_plan;
static tsr_sfu_plan_t g_sfu_plan;

/* Every register write goes through here: the cycle of the last RING_TAIL or CMDQ_PUSH write is
 * when the last command was handed to the chip. */
static tsr_status_t (*g_write32)(void *ctx, uint32_t off, uint32_t val);
static uint32_t g_handed;

static tsr_status_t write32_timed(void *ctx, uint32_t off, uint32_t val) {
  tsr_status_t st = g_write32(ctx, off, val);
  if (off == TSR_RING_TAIL_REG_OFFSET || off == TSR_CMDQ_PUSH_REG_OFFSET) {
    g_handed = tsr_rt_cycles();
  }
  return st;
}

static void set_error(const char *a, const char *b) {
  size_t i = 0u;
  while (a != NULL && *a != '\0' && i < sizeof g_job.error - 1u) {
    g_job.error[i++] = *a++;
  }
  while (b != NULL && *b != '\0' && i < sizeof g_job.error - 1u) {
    g_job.error[i++] = *b++;
  }
  g_job.error[i] = '\0';
}

/* Soft reset, counters cleared, the ring attached (if the host gave one). */
static tsr_status_t begin(void) {
  tsr_status_t st;
  if ((st = tsr_soft_reset(&g_dev)) != TSR_OK || (st = tsr_counters_clear(&g_dev)) != TSR_OK) {
    return st;
  }
  if (g_job.ring_size != 0u) {
    if ((st = tsr_ring_attach(&g_dev, &g_ring, g_job.ring_base, g_job.ring_size)) != TSR_OK) {
      return st;
    }
    if (g_job.ring_batch != 0u) {
      g_ring.batch = g_job.ring_batch;
    }
  }
  return TSR_OK;
}

/* The counters, the ring detached. */
static tsr_status_t end(void) {
  tsr_status_t st = tsr_counters_read(&g_dev, &g_job.cnt);
  g_job.ring_flushes = (uint32_t)g_ring.flushes;
  if (st == TSR_OK && g_job.ring_size != 0u) {
    st = tsr_ring_detach(&g_dev);
  }
  return st;
}

static tsr_status_t run_gemm(void) {
  tsr_gemm_opts_t o;
  __builtin_memset(&o, 0, sizeof o);
  o.max_mt = g_job.max_mt;
  o.max_kc = g_job.max_kc;
  o.mem_bw = g_job.mem_bw;
  o.mem_latency = g_job.mem_latency;
  o.streamed = g_job.streamed != 0u;
  uint32_t c0 = tsr_rt_cycles(), i0 = tsr_rt_instret();
  tsr_status_t st = tsr_gemm_plan_opts(&g_dev.info, &g_job.gemm, &o, &g_plan);
  g_job.plan_cycles = tsr_rt_cycles() - c0;
  g_job.plan_instret = tsr_rt_instret() - i0;
  if (st != TSR_OK) {
    set_error("tsr_gemm_plan_opts refused the job on the core", NULL);
    return st;
  }
  g_job.plan_mt = g_plan.mt;
  g_job.plan_kc = g_plan.kc;
  g_job.plan_tiles = g_plan.tiles;
  g_job.plan_cmds = (uint32_t)g_plan.cmds;
  g_job.plan_est_lo = (uint32_t)g_plan.est_cycles;
  g_job.plan_est_hi = (uint32_t)(g_plan.est_cycles >> 32);
  if ((st = begin()) != TSR_OK) {
    return st;
  }
  c0 = tsr_rt_cycles();
  i0 = tsr_rt_instret();
  st = tsr_gemm_run(&g_dev, &g_job.gemm, &g_plan, NULL, NULL);
  g_job.run_cycles = tsr_rt_cycles() - c0;
  g_job.run_instret = tsr_rt_instret() - i0;
  g_job.submit_cycles = g_handed - c0;
  return st != TSR_OK ? st : end();
}

static tsr_status_t run_sfu(void) {
  const char *why = "";
  uint32_t c0 = tsr_rt_cycles(), i0 = tsr_rt_instret();
  tsr_status_t st = tsr_sfu_plan(&g_dev.info, &g_job.sfu, &g_sfu_plan, &why);
  g_job.plan_cycles = tsr_rt_cycles() - c0;
  g_job.plan_instret = tsr_rt_instret() - i0;
  if (st != TSR_OK) {
    set_error("tsr_sfu_plan on the core: ", why);
    return st;
  }
  g_job.plan_cmds = (uint32_t)g_sfu_plan.cmds;
  if ((st = begin()) != TSR_OK) {
    return st;
  }
  c0 = tsr_rt_cycles();
  i0 = tsr_rt_instret();
  st = tsr_sfu_run(&g_dev, &g_job.sfu, &g_sfu_plan);
  g_job.run_cycles = tsr_rt_cycles() - c0;
  g_job.run_instret = tsr_rt_instret() - i0;
  g_job.submit_cycles = g_handed - c0;
  return st != TSR_OK ? st : end();
}

/* A network's chip layers: the captured commands relocated to the arena, a FENCE between two
 * segments, inside the DMA window, one wait (sw/lib/tsr_net_run.c does the same on the host). */
static tsr_status_t run_stream(void) {
  if (g_job.n_segs > TSR_SOC_MAX_SEGS) {
    set_error("stream: too many segments", NULL);
    return TSR_BAD_ARG;
  }
  tsr_status_t st = begin();
  if (st != TSR_OK) {
    return st;
  }
  if ((st = tsr_set_dma_window(&g_dev, g_job.win_lo, g_job.win_hi, false)) != TSR_OK) {
    return st;
  }
  const tsr_cmd_t *src = (const tsr_cmd_t *)(uintptr_t)(TSR_RT_EXT_BASE + g_job.stream_addr);
  uint32_t c0 = tsr_rt_cycles(), i0 = tsr_rt_instret();
  uint32_t at = 0u;
  bool fence = false;
  for (uint32_t s = 0u; s < g_job.n_segs && st == TSR_OK; s++) {
    for (uint32_t i = 0u; i < g_job.seg_cmds[s] && st == TSR_OK; i++, at++) {
      tsr_cmd_t c;
      if (fence) {
        fence = false;
        if ((st = tsr_cmd_fence(&g_dev, false, &c)) != TSR_OK || (st = tsr_submit(&g_dev, &c)) != TSR_OK) {
          break;
        }
      }
      tsr_net_relocate(&src[at], g_job.cmd_base, g_job.base, &c);
      st = tsr_submit(&g_dev, &c);
    }
    fence = fence || g_job.seg_cmds[s] != 0u;
  }
  if (st == TSR_OK && at != g_job.cmds) {
    set_error("stream: the segments do not add up to the commands", NULL);
    st = TSR_BAD_ARG;
  }
  if (st == TSR_OK) {
    st = tsr_wait(&g_dev, TSR_WAIT_IRQ, 0u);
  }
  g_job.run_cycles = tsr_rt_cycles() - c0;
  g_job.run_instret = tsr_rt_instret() - i0;
  g_job.submit_cycles = g_handed - c0;
  if (st == TSR_OK && (st = end()) == TSR_OK) {
    st = tsr_set_dma_window(&g_dev, 0u, 0xffffffffu, false);
  }
  return st;
}

int main(void) {
  __builtin_memcpy(&g_job, JOB, offsetof(tsr_soc_job_t, done));
  if (g_job.magic != TSR_SOC_JOB_MAGIC) {
    tsr_rt_puts("tessera.elf: no job at device address ");
    tsr_rt_puthex(TSR_SOC_JOB_ADDR);
    tsr_rt_putc('\n');
    return 2;
  }
  __builtin_memset((char *)&g_job + offsetof(tsr_soc_job_t, done), 0, sizeof g_job - offsetof(tsr_soc_job_t, done));
  tsr_status_t st = tsr_hal_baremetal_init(&g_ctx, TSR_RT_REG_BASE, TSR_RT_EXT_BASE, 0u, TSR_SOC_EXT_BYTES, &g_hal);
  _Static_assert(TSR_SOC_EXT_BYTES == TSR_RT_EXT_SIZE, "the job header and the runtime disagree on the memory");
  TSR_RT_ASSERT(st == TSR_OK);
  g_ops = *g_hal.ops;
  g_hal.ops = &g_ops;
  if (g_job.use_irq != 0u) {
    tsr_rt_hal_use_irq(&g_hal, &g_ops);
  }
  g_write32 = g_ops.write32;
  g_ops.write32 = write32_timed;
  st = tsr_dev_open(&g_dev, &g_hal);
  if (st == TSR_OK) {
    const tsr_dev_info_t *i = &g_dev.info;
    const uint32_t info[9] = {i->id, i->version, i->dim, i->axi_bytes, i->cmdq_depth, i->spad_rows,
                              i->acc_rows, i->has_sfu ? 1u : 0u, i->store_lanes};
    __builtin_memcpy(g_job.info, info, sizeof info);
    switch (g_job.kind) {
      case TSR_SOC_INFO:
        break;
      case TSR_SOC_GEMM:
        st = run_gemm();
        break;
      case TSR_SOC_SFU:
        st = run_sfu();
        break;
      case TSR_SOC_STREAM:
        st = run_stream();
        break;
      default:
        set_error("unknown job kind", NULL);
        st = TSR_BAD_ARG;
        break;
    }
  }
  g_job.status = (uint32_t)st;
  if (st != TSR_OK && g_job.error[0] == '\0') {
    set_error(tsr_dev_error(&g_dev), NULL);
  }
  g_job.chip_irqs = tsr_rt_chip_irqs();
  const size_t from = offsetof(tsr_soc_job_t, done) + sizeof g_job.done;
  __builtin_memcpy((char *)JOB + from, (const char *)&g_job + from, sizeof g_job - from);
  JOB->done = TSR_SOC_DONE_MAGIC;
  return 0;
}
