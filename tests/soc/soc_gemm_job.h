/* soc_gemm_job.h: the GEMM job the host leaves in external memory for gemm.elf, and what the firmware writes back. */
#ifndef SOC_GEMM_JOB_H
#define SOC_GEMM_JOB_H

#include <stdint.h>

/* Device address of the job (the core sees it at 0x8000_0000 + this). The host (soc_run
 * --gemm) writes the job and the operands A (m x k int8, stride k) and B (k x n int8,
 * stride n), runs gemm.elf, and compares C with the golden model. */
#define SOC_GEMM_JOB_ADDR 0x00001000u
#define SOC_GEMM_JOB_MAGIC 0x4a4d4d47u  /* "GMMJ" */

/** The job: all words, little-endian, at SOC_GEMM_JOB_ADDR. */
typedef struct soc_gemm_job {
  uint32_t magic;          /**< SOC_GEMM_JOB_MAGIC, written by the host */
  uint32_t m, k, n;
  uint32_t a_addr, b_addr, c_addr;   /**< device addresses */
  uint32_t requant;        /**< 0: C is int32 (stride 4n); 1: int8 (stride n) with mult, shift, zp */
  int32_t mult, shift, out_zp;
  uint32_t has_bias;       /**< 1: int32 bias[n] at bias_addr */
  uint32_t bias_addr;
  uint32_t use_irq;        /**< 1: the driver waits on tsr_top's interrupt (IRQ 3), not by polling */
  /* written by the firmware */
  uint32_t status;         /**< tsr_status_t of the run (0 OK) */
  uint32_t tiles;          /**< the plan's STOREs */
  uint32_t cycles;         /**< the core's cycles around tsr_gemm_run */
  uint32_t chip_irqs;      /**< tsr_top interrupts the core took */
} soc_gemm_job_t;

#endif /* SOC_GEMM_JOB_H */
