/* test_sys_gemm.c: random GEMMs on the whole chip (RTL + driver + firmware), bit-exact with the golden model. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys_util.h"

/*
 * Each case is drawn from its own 32-bit seed (tests/system/sys_util.c,
 * sys_case_make): M, K, N uniform in 1..300, odd addresses, row strides with
 * gaps, per-tensor or per-channel requantization or raw int32 output, bias
 * or none, random zero point and clamp range, planner limits, and a memory
 * model with random latencies, stalls and bandwidth cap. A fresh simulation
 * runs each case; the whole external memory is compared with the expected
 * image afterwards (C from the golden model, every other byte unchanged).
 *
 * usage: test_sys_gemm --dim N [--count C] [--base-seed B] [--seed S]
 *                      [--mixed] [--max-dim D] [--keep-going] [--verbose]
 *                      [--break golden|stray]
 *   --count      number of cases (default 20)
 *   --base-seed  seed of the case seeds (default: $TSR_SEED, else the clock)
 *   --seed       run only the case with this seed (replay a failure)
 *   --mixed      draw 40 % of the dimensions from 1..48 and 15 % from the top
 *                fifth (about half the simulated cycles of the uniform default)
 *   --max-dim    largest M, K, N (default 300)
 *   --keep-going run every case even after a failure
 *   --verbose    one line per case
 *   --break      inject a fault so the checks must fail (see sys_break_t)
 */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seed of case i of a run: a hash of the base seed and i. */
static uint32_t case_seed(uint32_t base, uint32_t i) {
  uint64_t x = ((uint64_t)base << 32) | i;
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return (uint32_t)(x ^ (x >> 31));
}

static int usage(const char *why) {
  fprintf(stderr, "test_sys_gemm: %s (usage: test_sys_gemm --dim N [--count C] [--base-seed B] "
                  "[--seed S] [--mixed] [--max-dim D] [--keep-going] [--verbose] "
                  "[--break golden|stray])\n",
          why);
  return 2;
}

int main(int argc, char **argv) {
  uint32_t dim = 0;
  uint32_t count = 20;
  uint32_t base = 0;
  uint32_t one_seed = 0;
  uint32_t max_dim = 300;
  bool have_base = false;
  bool have_one = false;
  bool mixed = false;
  bool keep_going = false;
  bool verbose = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint32_t *slot = NULL;
    if (strcmp(a, "--dim") == 0) {
      slot = &dim;
    } else if (strcmp(a, "--count") == 0) {
      slot = &count;
    } else if (strcmp(a, "--base-seed") == 0) {
      slot = &base;
      have_base = true;
    } else if (strcmp(a, "--seed") == 0) {
      slot = &one_seed;
      have_one = true;
    } else if (strcmp(a, "--max-dim") == 0) {
      slot = &max_dim;
    } else if (strcmp(a, "--mixed") == 0) {
      mixed = true;
      continue;
    } else if (strcmp(a, "--keep-going") == 0) {
      keep_going = true;
      continue;
    } else if (strcmp(a, "--verbose") == 0) {
      verbose = true;
      continue;
    } else if (strcmp(a, "--break") == 0) {
      if (v != NULL && strcmp(v, "golden") == 0) {
        sys_break_mode = SYS_BREAK_GOLDEN;
      } else if (v != NULL && strcmp(v, "stray") == 0) {
        sys_break_mode = SYS_BREAK_STRAY;
      } else {
        return usage("--break takes golden or stray");
      }
      i++;
      continue;
    } else {
      char why[128];
      snprintf(why, sizeof why, "unknown argument '%s'", a);
      return usage(why);
    }
    if (v == NULL || sys_parse_u32(v, slot) != 0) {
      char why[128];
      snprintf(why, sizeof why, "%s needs an unsigned integer", a);
      return usage(why);
    }
    i++;
  }
  if (dim == 0) {
    return usage("give --dim");
  }
  if (max_dim == 0 || max_dim > 4096) {
    return usage("--max-dim must be 1..4096");
  }
  if (!have_base) {
    base = sys_seed_from_env_or_clock();
  }
  if (have_one) {
    count = 1;
  }

  sys_shape_cfg_t shape;
  shape.max_dim = max_dim;
  shape.small_pct = mixed ? 40u : 0u;
  shape.small_max = max_dim < 48u ? max_dim : 48u;
  shape.large_pct = mixed ? 15u : 0u;
  shape.large_min = max_dim * 4u / 5u > 0u ? max_dim * 4u / 5u : 1u;

  if (have_one) {
    printf("test_sys_gemm: dim %u: replaying case seed %u\n", dim, one_seed);
  } else {
    printf("test_sys_gemm: dim %u: %u random GEMMs, base seed %u (replay the run with "
           "--base-seed %u, one case with --seed S)\n",
           dim, count, base, base);
  }
  fflush(stdout);

  double t0 = now_s();
  uint64_t cycles = 0;
  uint64_t outputs8 = 0;
  uint64_t inside = 0;
  uint32_t failures = 0;
  uint32_t near_max[3] = {0, 0, 0};
  uint32_t ran = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t seed = have_one ? one_seed : case_seed(base, i);
    sys_case_t c;
    sys_case_make(seed, &shape, SYS_MEM_SIZE, &c);
    char desc[512];
    sys_case_describe(&c, desc, sizeof desc);

    sys_env_t env;
    char msg[512];
    double tc = now_s();
    tsr_status_t st = sys_open(&env, dim, &c.sim, msg, sizeof msg);
    if (st != TSR_OK) {
      fprintf(stderr, "test_sys_gemm: FAIL: cannot open the simulator: %s\n", msg);
      return 1;
    }
    sys_case_result_t res;
    int rc = sys_case_run(&env, &c, &res, msg, sizeof msg);
    sys_close(&env);
    ran++;
    cycles += res.sim_cycles;
    if (c.d.requant) {
      outputs8 += res.outputs;
      inside += res.inside;
    }
    near_max[0] += c.d.m * 5u >= max_dim * 4u ? 1u : 0u;
    near_max[1] += c.d.k * 5u >= max_dim * 4u ? 1u : 0u;
    near_max[2] += c.d.n * 5u >= max_dim * 4u ? 1u : 0u;
    if (rc != 0) {
      failures++;
      fprintf(stderr,
              "test_sys_gemm: FAIL dim %u case %u seed %u: %s\n"
              "  case: %s\n"
              "  replay: %s --dim %u --seed %u\n",
              dim, i, seed, msg, desc, argv[0], dim, seed);
      if (!keep_going) {
        break;
      }
    } else if (verbose) {
      printf("  case %u seed %u: ok, %" PRIu64 " cycles, %.2f s: %s\n", i, seed, res.sim_cycles,
             now_s() - tc, desc);
    }
    if (!verbose && !have_one && (i + 1u) % 50u == 0u && i + 1u < count) {
      printf("  %u/%u cases done, %.1f s\n", i + 1u, count, now_s() - t0);
      fflush(stdout);
    }
  }
  double wall = now_s() - t0;
  if (failures != 0) {
    fprintf(stderr, "test_sys_gemm: dim %u: %u of %u cases FAILED (base seed %u)\n", dim, failures,
            ran, base);
    return 1;
  }
  printf("test_sys_gemm: dim %u: all %u cases bit-exact, memory outside C unchanged, counters "
         "right; %.1f s, %.1f M cycles (%.0f k cycles/s); dims >= 80%% of %u: M %u, K %u, N %u "
         "cases; int8 outputs strictly inside the clamp range: %.0f %%\n",
         dim, ran, wall, (double)cycles / 1e6, wall > 0 ? (double)cycles / wall / 1e3 : 0.0,
         max_dim, near_max[0], near_max[1], near_max[2],
         outputs8 != 0 ? 100.0 * (double)inside / (double)outputs8 : 0.0);
  return 0;
}
