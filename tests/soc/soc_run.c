/* soc_run.c: run an RV32IM program on the co-simulation SoC: load the ELF, run to EXIT or a fault, print what happened. */
/*
 * Usage: soc_run --lib build/soc/lib/libtsrsoc_d<N>.so [options] prog.elf
 *   --max-cycles C      the watchdog: give up after C cycles (default 20000000)
 *   --trace out.fst     FST waveform of the whole run
 *   --stall P           the memory model withholds each ready/valid with P% chance (random stalls)
 *   --mem-seed S        seed of those stalls (default 1)
 *   --gemm MxKxN        leave a GEMM job (tests/soc/soc_gemm_job.h) with random operands in
 *                       external memory before the run, and compare C with the golden model
 *                       after it, bit for bit (for gemm.elf)
 *   --requant           ... with int8 output (per-tensor multiplier, shift, zero point) and a bias
 *   --irq               ... and let the firmware wait on tsr_top's interrupt instead of polling
 *   --seed S            seed of the operands (default 1)
 * The program's CONSOLE bytes go to stdout as they come. The last line says how the run
 * ended. Exit status: the firmware's exit code (EXIT), 124 watchdog, 125 bus fault
 * (nothing at the address, or an error response to the core), 126 core halted, 1 a bench
 * failure or a GEMM mismatch.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tsr_prng.h"
#include "soc_gemm_job.h"
#include "tsr_golden.h"
#include "tsr_soc_api.h"

#define EXIT_WATCHDOG 124
#define EXIT_FAULT 125
#define EXIT_HALTED 126

/* The library's functions, from dlopen (tb/tsr_soc_api.h). */
typedef struct soc_lib {
  void *dl;
  tsr_ssim_api_t api;
} soc_lib_t;

static int lib_load(soc_lib_t *l, const char *path) {
  l->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (l->dl == NULL) {
    fprintf(stderr, "soc_run: %s\n", dlerror());
    return -1;
  }
  const char *missing = tsr_ssim_api_load(l->dl, &l->api);
  if (missing != NULL) {
    fprintf(stderr, "soc_run: %s does not export %s\n", path, missing);
    return -1;
  }
  return 0;
}

/* ---- ELF32 little-endian RISC-V: the PT_LOAD segments ------------------------------- */

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "soc_run: cannot open %s\n", path);
    return NULL;
  }
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (nb == NULL) {
        free(buf);
        fclose(f);
        fprintf(stderr, "soc_run: out of memory reading %s\n", path);
        return NULL;
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) {
      break;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

/* Load every PT_LOAD segment: in RAM through the back door, in the external window
 * (0x8000_0000 + a) into the memory model; .bss parts are zero already. */
static int load_elf(const soc_lib_t *l, tsr_ssim_t *sim, const char *path) {
  size_t len = 0;
  uint8_t *img = read_file(path, &len);
  if (img == NULL) {
    return -1;
  }
  int rc = -1;
  if (len < 52 || memcmp(img, "\177ELF", 4) != 0 || img[4] != 1 || img[5] != 1 || rd16(img + 18) != 243) {
    fprintf(stderr, "soc_run: %s is not a 32-bit little-endian RISC-V ELF file\n", path);
    goto out;
  }
  uint32_t phoff = rd32(img + 28);
  uint16_t phentsize = rd16(img + 42), phnum = rd16(img + 44);
  for (unsigned i = 0; i < phnum; i++) {
    size_t at = (size_t)phoff + (size_t)i * phentsize;
    if (at + 32 > len) {
      fprintf(stderr, "soc_run: %s: program header %u past the end of the file\n", path, i);
      goto out;
    }
    const uint8_t *ph = img + at;
    uint32_t type = rd32(ph), off = rd32(ph + 4), paddr = rd32(ph + 12), filesz = rd32(ph + 16);
    if (type != 1 || filesz == 0) {
      continue;
    }
    if ((size_t)off + filesz > len) {
      fprintf(stderr, "soc_run: %s: segment %u past the end of the file\n", path, i);
      goto out;
    }
    int r = paddr >= 0x80000000u ? l->api.mem_write(sim, paddr - 0x80000000u, img + off, filesz)
                                 : l->api.load_ram(sim, paddr, img + off, filesz);
    if (r != 0) {
      fprintf(stderr, "soc_run: %s: segment %u (0x%08" PRIx32 "+%" PRIu32 ") is outside the RAM (%" PRIu32
              " bytes) and the external memory\n", path, i, paddr, filesz, l->api.ram_bytes());
      goto out;
    }
  }
  rc = 0;
out:
  free(img);
  return rc;
}

/* ---- the GEMM job ------------------------------------------------------------------- */

typedef struct gemm_job {
  uint32_t m, k, n;
  int requant;
  int use_irq;
  int8_t *a, *b;
  int32_t *bias;
  soc_gemm_job_t job;
} gemm_job_t;

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

/* Random operands and the job, written into external memory. */
static int gemm_place(const soc_lib_t *l, tsr_ssim_t *sim, gemm_job_t *g, uint32_t seed) {
  tsr_prng_t r;
  tsr_prng_seed(&r, seed, 0x50c);
  g->a = malloc((size_t)g->m * g->k);
  g->b = malloc((size_t)g->k * g->n);
  g->bias = malloc((size_t)g->n * sizeof(int32_t));
  if (g->a == NULL || g->b == NULL || g->bias == NULL) {
    fprintf(stderr, "soc_run: out of memory\n");
    return -1;
  }
  tsr_prng_fill(&r, (uint8_t *)g->a, (size_t)g->m * g->k);
  tsr_prng_fill(&r, (uint8_t *)g->b, (size_t)g->k * g->n);
  for (uint32_t j = 0; j < g->n; j++) {
    g->bias[j] = (int32_t)tsr_prng_range(&r, -5000, 5000);
  }
  soc_gemm_job_t *j = &g->job;
  memset(j, 0, sizeof *j);
  j->magic = SOC_GEMM_JOB_MAGIC;
  j->m = g->m;
  j->k = g->k;
  j->n = g->n;
  j->a_addr = 0x00010000u;
  j->b_addr = j->a_addr + ((g->m * g->k + 63u) & ~63u);
  j->bias_addr = j->b_addr + ((g->k * g->n + 63u) & ~63u);
  j->c_addr = j->bias_addr + ((4u * g->n + 63u) & ~63u);
  j->requant = (uint32_t)g->requant;
  j->has_bias = (uint32_t)g->requant;
  j->use_irq = (uint32_t)g->use_irq;
  j->mult = 1518500250;  /* ~0.707 in Q31 */
  j->shift = -9;
  j->out_zp = 3;
  uint8_t words[sizeof *j];
  const uint32_t *src = (const uint32_t *)j;
  for (size_t i = 0; i < sizeof *j / 4u; i++) {
    put32(words + 4u * i, src[i]);
  }
  uint8_t bias_le[4u * 4096u];
  if (g->n > 4096u) {
    fprintf(stderr, "soc_run: --gemm: n above 4096\n");
    return -1;
  }
  for (uint32_t i = 0; i < g->n; i++) {
    put32(bias_le + 4u * i, (uint32_t)g->bias[i]);
  }
  if (l->api.mem_write(sim, SOC_GEMM_JOB_ADDR, words, sizeof words) != 0 ||
      l->api.mem_write(sim, j->a_addr, g->a, (size_t)g->m * g->k) != 0 ||
      l->api.mem_write(sim, j->b_addr, g->b, (size_t)g->k * g->n) != 0 ||
      l->api.mem_write(sim, j->bias_addr, bias_le, 4u * g->n) != 0) {
    fprintf(stderr, "soc_run: --gemm: the operands do not fit the external memory\n");
    return -1;
  }
  return 0;
}

/* C from external memory against tsr_golden_gemm, every element. 0 when bit-exact. */
static int gemm_check(const soc_lib_t *l, const tsr_ssim_t *sim, const gemm_job_t *g) {
  const soc_gemm_job_t *j = &g->job;
  size_t cells = (size_t)g->m * g->n;
  size_t elem = g->requant ? 1u : 4u;
  int32_t *want32 = calloc(cells, sizeof(int32_t));
  int8_t *want8 = calloc(cells, 1);
  uint8_t *got = calloc(cells, elem);
  uint8_t back[sizeof(soc_gemm_job_t)];
  int rc = 1;
  if (want32 == NULL || want8 == NULL || got == NULL) {
    fprintf(stderr, "soc_run: out of memory\n");
    goto out;
  }
  tsr_gemm_params_t p;
  memset(&p, 0, sizeof p);
  p.requant = g->requant;
  p.bias = g->requant ? g->bias : NULL;
  p.mult_scalar = j->mult;
  p.shift_scalar = j->shift;
  p.out_zp = j->out_zp;
  p.act_min = -128;
  p.act_max = 127;
  if (tsr_golden_gemm(g->m, g->k, g->n, g->a, g->k, g->b, g->n, &p, want32, want8) != 0) {
    fprintf(stderr, "soc_run: the golden model refused the job\n");
    goto out;
  }
  if (l->api.mem_read(sim, j->c_addr, got, cells * elem) != 0 ||
      l->api.mem_read(sim, SOC_GEMM_JOB_ADDR, back, sizeof back) != 0) {
    fprintf(stderr, "soc_run: cannot read C back\n");
    goto out;
  }
  uint32_t status = rd32(back + offsetof(soc_gemm_job_t, status));
  uint32_t fw_cycles = rd32(back + offsetof(soc_gemm_job_t, cycles));
  uint32_t irqs = rd32(back + offsetof(soc_gemm_job_t, chip_irqs));
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < cells; i++) {
    int32_t v = g->requant ? (int32_t)(int8_t)got[i] : (int32_t)rd32(got + 4u * i);
    int32_t w = g->requant ? want8[i] : want32[i];
    if (v != w) {
      if (bad == 0) {
        first = i;
      }
      bad++;
    }
  }
  if (bad != 0) {
    size_t i = first;
    int32_t v = g->requant ? (int32_t)(int8_t)got[i] : (int32_t)rd32(got + 4u * i);
    printf("soc_run: gemm %" PRIu32 "x%" PRIu32 "x%" PRIu32 ": %zu of %zu elements differ from the golden model; "
           "first C[%zu][%zu] = %" PRId32 ", golden %" PRId32 "\n", g->m, g->k, g->n, bad, cells,
           i / g->n, i % g->n, v, g->requant ? (int32_t)want8[i] : want32[i]);
    goto out;
  }
  printf("soc_run: gemm %" PRIu32 "x%" PRIu32 "x%" PRIu32 " %s: bit-exact against the golden model "
         "(%zu elements; firmware status %" PRIu32 ", %" PRIu32 " core cycles in tsr_gemm_run, %" PRIu32
         " chip interrupts)\n", g->m, g->k, g->n, g->requant ? "int8 requant+bias" : "int32", cells, status,
         fw_cycles, irqs);
  rc = 0;
out:
  free(want32);
  free(want8);
  free(got);
  return rc;
}

/* ---- main ---------------------------------------------------------------------------- */

static void console_out(void *user, char c) {
  (void)user;
  fputc(c, stdout);
  if (c == '\n') {
    fflush(stdout);
  }
}

static void usage(void) {
  fprintf(stderr, "usage: soc_run --lib libtsrsoc_dN.so [--max-cycles C] [--trace f.fst] [--stall P] [--mem-seed S] "
                  "[--gemm MxKxN [--requant] [--irq] [--seed S]] prog.elf\n");
}

int main(int argc, char **argv) {
  const char *lib_path = NULL, *elf = NULL, *trace = NULL;
  uint64_t max_cycles = 20000000u;
  uint32_t seed = 1;
  unsigned stall = 0;
  uint32_t mem_seed = 1;
  gemm_job_t g;
  memset(&g, 0, sizeof g);
  int want_gemm = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc) {
      lib_path = argv[++i];
    } else if (strcmp(argv[i], "--max-cycles") == 0 && i + 1 < argc) {
      max_cycles = strtoull(argv[++i], NULL, 0);
    } else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) {
      trace = argv[++i];
    } else if (strcmp(argv[i], "--stall") == 0 && i + 1 < argc) {
      stall = (unsigned)strtoul(argv[++i], NULL, 0);
    } else if (strcmp(argv[i], "--mem-seed") == 0 && i + 1 < argc) {
      mem_seed = (uint32_t)strtoul(argv[++i], NULL, 0);
    } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = (uint32_t)strtoul(argv[++i], NULL, 0);
    } else if (strcmp(argv[i], "--irq") == 0) {
      g.use_irq = 1;
    } else if (strcmp(argv[i], "--requant") == 0) {
      g.requant = 1;
    } else if (strcmp(argv[i], "--gemm") == 0 && i + 1 < argc) {
      if (sscanf(argv[++i], "%" SCNu32 "x%" SCNu32 "x%" SCNu32, &g.m, &g.k, &g.n) != 3 || g.m == 0 ||
          g.k == 0 || g.n == 0) {
        fprintf(stderr, "soc_run: --gemm wants MxKxN, e.g. 16x32x8\n");
        return 1;
      }
      want_gemm = 1;
    } else if (argv[i][0] != '-' && elf == NULL) {
      elf = argv[i];
    } else {
      usage();
      return 1;
    }
  }
  if (lib_path == NULL || elf == NULL) {
    usage();
    return 1;
  }
  soc_lib_t l;
  memset(&l, 0, sizeof l);
  if (lib_load(&l, lib_path) != 0) {
    return 1;
  }
  tsr_ssim_cfg_t cfg;
  l.api.cfg_default(&cfg);
  cfg.trace_path = trace;
  cfg.console = console_out;
  cfg.stall_pct = stall;
  cfg.seed = mem_seed;
  char err[256];
  tsr_ssim_t *sim = l.api.open(&cfg, err, sizeof err);
  if (sim == NULL) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  int rc = 1;
  if (load_elf(&l, sim, elf) != 0 || (want_gemm && gemm_place(&l, sim, &g, seed) != 0)) {
    goto out;
  }
  tsr_ssim_result_t res;
  l.api.run(sim, max_cycles, &res);
  fflush(stdout);
  tsr_axi_mem_stats_t ms;
  l.api.mem_stats(sim, &ms);
  switch (res.end) {
    case TSR_SSIM_EXIT:
      printf("soc_run: %s exited with %" PRIu32 " after %" PRIu64 " cycles (N=%u; memory: %" PRIu64
             " read and %" PRIu64 " write bursts, %u%% stalls)\n", elf, res.exit_code, res.cycles, l.api.array_dim(),
             ms.rd_bursts, ms.wr_bursts, stall);
      rc = (int)(res.exit_code & 0xffu);
      break;
    case TSR_SSIM_TRAP:
      printf("soc_run: the core halted (picorv32 trap: a fault with its IRQ masked or inside the handler) at PC=0x%08"
             PRIx32 " after %" PRIu64 " cycles; chip STATUS=0x%08" PRIx32 " ERR_CODE=%" PRIu32 " irq_o=%d\n",
             res.pc, res.cycles, res.chip_status, res.chip_err, res.irq);
      rc = EXIT_HALTED;
      break;
    case TSR_SSIM_FAULT:
      if (res.fault_resp == 0u) {
        printf("soc_run: bus fault: nothing answers at 0x%08" PRIx32 ", PC=0x%08" PRIx32 " after %" PRIu64
               " cycles; chip STATUS=0x%08" PRIx32 " ERR_CODE=%" PRIu32 " irq_o=%d\n", res.fault_addr, res.pc,
               res.cycles, res.chip_status, res.chip_err, res.irq);
      } else {
        printf("soc_run: bus fault: %s answered to the core's access at 0x%08" PRIx32 ", PC=0x%08" PRIx32
               " after %" PRIu64 " cycles; chip STATUS=0x%08" PRIx32 " ERR_CODE=%" PRIu32 " irq_o=%d\n",
               res.fault_resp == 3u ? "DECERR" : "SLVERR", res.fault_addr, res.pc, res.cycles, res.chip_status,
               res.chip_err, res.irq);
      }
      rc = EXIT_FAULT;
      break;
    case TSR_SSIM_WATCHDOG:
    default:
      printf("watchdog: no exit after %" PRIu64 " cycles, PC=0x%08" PRIx32 "; chip STATUS=0x%08" PRIx32
             " ERR_CODE=%" PRIu32 " irq_o=%d\n", res.cycles, res.pc, res.chip_status, res.chip_err, res.irq);
      rc = EXIT_WATCHDOG;
      break;
  }
  if (ms.protocol_errors != 0) {
    printf("soc_run: %" PRIu64 " AXI protocol errors on the external memory bus\n", ms.protocol_errors);
    rc = 1;
  }
  if (want_gemm && res.end == TSR_SSIM_EXIT && rc == 0 && gemm_check(&l, sim, &g) != 0) {
    rc = 1;
  }
out:
  free(g.a);
  free(g.b);
  free(g.bias);
  l.api.destroy(sim);
  dlclose(l.dl);
  return rc;
}
