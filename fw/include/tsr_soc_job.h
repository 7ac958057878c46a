/* tsr_soc_job.h: the job block through which the host hands a GEMM, an SFU job or a command stream to the firmware on the SoC's core (docs/soc.md). */
#ifndef TSR_SOC_JOB_H
#define TSR_SOC_JOB_H

/*
 * Freestanding; the host library (sw/lib/tsr_lib_soc.c) and the firmware image
 * (fw/rt/tsr_soc_main.c, build/fw/elf/tessera.elf) share it. The host writes the
 * block at device address TSR_SOC_JOB_ADDR of the SoC's external memory (the
 * core sees it at 0x8000_0000 + that), with the operands where the descriptor
 * says, releases the core's reset and waits for EXIT; the firmware fills the
 * second half and exits with 0 (status inside), or with a fault.
 *
 * The layout is the same on the host (x86-64, LP64) and the core (RV32, ILP32):
 * every field is 4 bytes or a struct of 4-byte fields and bools, or 8-byte
 * counters at 8-byte offsets; the size is asserted on both sides.
 */

#include <stddef.h>
#include <stdint.h>

#include "tsr_driver.h"
#include "tsr_fw.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_SOC_JOB_ADDR 0x100u        /**< device address of the block (below TESSERA_MEM_BASE) */
#define TSR_SOC_JOB_MAGIC 0x424f4a54u  /**< "TJOB", written by the host */
#define TSR_SOC_DONE_MAGIC 0x454e4f44u /**< "DONE", written by the firmware last */
#define TSR_SOC_EXT_BYTES 0x04000000u  /**< external memory the firmware reaches (tsr_rt.h's TSR_RT_EXT_SIZE) */

/** What the firmware does. */
typedef enum tsr_soc_kind {
  TSR_SOC_INFO = 1,   /**< open the device, report its CONFIG; no commands */
  TSR_SOC_GEMM = 2,   /**< tsr_gemm_plan_opts + tsr_gemm_run of `gemm` */
  TSR_SOC_SFU = 3,    /**< tsr_sfu_plan + tsr_sfu_run of `sfu` */
  TSR_SOC_STREAM = 4  /**< the commands at stream_addr, relocated (tsr_net_relocate), in segments
                           with a FENCE between two, inside a DMA window: one wait */
} tsr_soc_kind_t;

/** The most segments (network layers) of one STREAM job. */
#define TSR_SOC_MAX_SEGS 64u

/** The job block. Host-written fields first, firmware-written after `done`. */
typedef struct tsr_soc_job {
  uint32_t magic;        /**< TSR_SOC_JOB_MAGIC */
  uint32_t kind;         /**< tsr_soc_kind_t */
  uint32_t use_irq;      /**< 1: the driver waits on tsr_top's interrupt (IRQ 3), 0: polls STATUS */
  uint32_t ring_base;    /**< device address of the command ring (0: CMDQ_PUSH, the registers) */
  uint32_t ring_size;    /**< bytes */
  uint32_t ring_batch;   /**< commands per RING_TAIL write (0: the driver's default, CMDQ_DEPTH / 2) */
  /* GEMM: the descriptor and the planner's options (the host plans the same and compares). */
  tsr_gemm_desc_t gemm;
  uint32_t max_mt, max_kc, mem_bw, mem_latency, streamed;
  /* SFU */
  tsr_sfu_desc_t sfu;
  /* STREAM: `cmds` commands of 32 bytes at stream_addr, relocated from cmd_base to base;
   * seg_cmds[i] commands per segment, a FENCE between two non-empty ones; the DMA
   * window [win_lo, win_hi] while they run. */
  uint32_t stream_addr, cmds, cmd_base, base, win_lo, win_hi, n_segs;
  uint32_t seg_cmds[TSR_SOC_MAX_SEGS];
  /* ---- written by the firmware ---- */
  uint32_t done;         /**< TSR_SOC_DONE_MAGIC when the rest is valid */
  uint32_t status;       /**< tsr_status_t of the job (TSR_OK: 0) */
  char error[TSR_DEV_ERRLEN]; /**< what failed, one line ("" when status is TSR_OK) */
  uint32_t info[9];      /**< tsr_dev_info_t as the driver read it: id, version, dim, axi_bytes,
                              cmdq_depth, spad_rows, acc_rows, has_sfu, store_lanes */
  uint32_t plan_mt, plan_kc, plan_tiles, plan_cmds; /**< GEMM: the core's plan (cmds: SFU too) */
  uint32_t plan_est_lo, plan_est_hi;                /**< GEMM: its predicted cycles */
  uint32_t plan_cycles, plan_instret;  /**< core cycles and instructions in the planner */
  uint32_t run_cycles, run_instret;    /**< ... from the counters' clear to the chip's last command done */
  uint32_t submit_cycles;              /**< ... from the clear until the last command was handed over */
  uint32_t chip_irqs;                  /**< tsr_top interrupts the core took */
  uint32_t ring_flushes;               /**< RING_TAIL writes */
  uint32_t pad_;
  tsr_counters_t cnt;                  /**< the chip's counters, cleared before the commands */
} tsr_soc_job_t;

/* 64-bit counters at the same offsets on both sides: one size, asserted on both. */
_Static_assert(sizeof(tsr_soc_job_t) == 888u && offsetof(tsr_soc_job_t, cnt) == 776u, "tsr_soc_job_t: the host and the core disagree on its layout");

#ifdef __cplusplus
}
#endif

#endif /* TSR_SOC_JOB_H */
