/* fuzz_cli.c: libFuzzer harness of the tessera CLI's argument parsing and validation (sw/cli/). */
#define _POSIX_C_SOURCE 200809L

/*
 * An input is the argument list after the program name, arguments separated
 * by NUL bytes. The harness runs what main() runs: the command check,
 * parse_args, then cmd_gemm / cmd_info, which validate every option, read
 * the operand files, plan the layout and try to open the device. The
 * simulator directory is set to one that does not exist, so no simulation
 * ever starts: every input ends in a one-line error or at "no simulator
 * build". To keep the fuzzer inside its sandbox:
 *   - options that create or map files or open devices (--out, --trace,
 *     --device, --dma, --hal) are parsed but the command is not run;
 *   - every file option names one of the files in $FUZZ_CLI_FILES (chosen by
 *     a hash of the value, so valid, mismatched, broken and missing files all
 *     occur);
 *   - random operands bigger than 2^22 elements are parsed but not run (the
 *     CLI would allocate them, legitimately).
 * Invariants, besides ASan/UBSan: every message is one line, and a command
 * never succeeds (there is no simulator).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static FILE *g_fuzz_out; /* /dev/null: the CLI's stdout and stderr go here */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_ARGS 40

static const char *k_files[] = {"a34.npy",  "b42.npy", "b52.npy",   "a34i32.npy", "bias2.npy",
                                "bias3.npy", "sh2.npy", "mult2.npy", "a1d.npy",    "junk.npy",
                                "missing.npy"};
#define FUZZ_NFILES (sizeof k_files / sizeof k_files[0])
static char g_paths[FUZZ_NFILES][512];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  g_fuzz_out = fopen("/dev/null", "w");
  if (g_fuzz_out == NULL) {
    abort();
  }
  g_cli_out = g_fuzz_out;
  g_cli_err = g_fuzz_out;
  setenv("TSR_SIM_LIB_DIR", "/nonexistent/tessera-fuzz-no-lib", 1);
  const char *dir = getenv("FUZZ_CLI_FILES");
  if (dir == NULL) {
    dir = "build/fuzz/cli-files";
  }
  for (size_t i = 0; i < FUZZ_NFILES; i++) {
    snprintf(g_paths[i], sizeof g_paths[i], "%s/%s", dir, k_files[i]);
  }
  return 0;
}

static uint32_t hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s != '\0'; s++) {
    h = (h ^ (uint8_t)*s) * 16777619u;
  }
  return h;
}

/* Value of a numeric option, or 0 when absent or not a number. */
static uint64_t num(const args_t *a, opt_id_t id) {
  if (!a->set[id]) {
    return 0;
  }
  char *end = NULL;
  long long v = strtoll(a->val[id], &end, 0);
  return (end == a->val[id] || v < 0) ? 0 : (uint64_t)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) {
    return 0;
  }
  char *buf = malloc(size + 1);
  if (buf == NULL) {
    return 0;
  }
  memcpy(buf, data, size);
  buf[size] = '\0';
  char *argv[FUZZ_MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = "tessera";
  for (size_t i = 0; i <= size && argc <= FUZZ_MAX_ARGS;) {
    argv[argc++] = buf + i;
    i += strlen(buf + i) + 1;
  }
  argv[argc] = NULL;
  if (argc < 2 || (strcmp(argv[1], "gemm") != 0 && strcmp(argv[1], "info") != 0)) {
    free(buf);
    return 0;
  }
  args_t ar;
  if (parse_args(argc, argv, &ar) == 0) {
    if (ar.cmd != argv[1]) {
      abort();
    }
    const bool files_out = ar.set[O_OUT] || ar.set[O_TRACE] || ar.set[O_DEVICE] || ar.set[O_DMA] ||
                           ar.set[O_HAL];
    const opt_id_t file_opts[] = {O_A, O_B, O_BIAS, O_MULT_NPY, O_SHIFT_NPY};
    for (size_t i = 0; i < sizeof file_opts / sizeof file_opts[0]; i++) {
      if (ar.set[file_opts[i]]) {
        ar.val[file_opts[i]] = g_paths[hash(ar.val[file_opts[i]]) % FUZZ_NFILES];
      }
    }
    const uint64_t m = num(&ar, O_M), k = num(&ar, O_K), n = num(&ar, O_N);
    const bool big = (m > (1u << 22) || k > (1u << 22) || n > (1u << 22) || m * k > (1u << 22) ||
                      k * n > (1u << 22) || m * n > (1u << 22));
    if (!files_out && !big) {
      const int rc = strcmp(ar.cmd, "gemm") == 0 ? cmd_gemm(&ar) : cmd_info(&ar);
      if (rc != EXIT_ERROR) {
        fprintf(g_fuzz_out, "unreachable\n");
        abort(); /* no simulator: every command must fail with exit status 2 */
      }
    }
  }
  free(buf);
  return 0;
}
