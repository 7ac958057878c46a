/* fuzz_net.c: libFuzzer harness of what `tessera run` and `tessera compile` read: a .tflite (reader + compiler) or a .tsr (container). */
#define _POSIX_C_SOURCE 200809L

/*
 * One input is one file's bytes, read for an N = 8 target as `tessera run
 * FILE` does: a .tsr (magic "TSRN") is loaded, any other bytes go through the
 * TFLite reader (sw/lib/tsr_tflite.c) and the compiler
 * (sw/lib/tsr_net_compile.c, with its command capture), and a model it
 * refuses again with allow_host (`--allow-host`). A .tsr is
 * tried twice: as it is, and with its checksum made right, so that mutations
 * reach the container's consistency checks instead of stopping at the
 * checksum. The harness links libtessera's sources, without a device.
 * Invariants, besides ASan/UBSan:
 *   - a refused input gives TSR_BAD_ARG or TSR_UNSUPPORTED (TSR_NO_MEMORY is
 *     let pass), no program, and a one-line message;
 *   - an accepted input gives a program whose every external command address
 *     (LOAD, STORE) lies inside its arena as captured, whose commands keep
 *     their dependency tokens balanced, and which saves to bytes that load
 *     back and save again to the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tsr_tsr_forge.h"
#include "tsr_net_prog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *err) {
  fprintf(stderr, "fuzz_net: %s%s%s\n", what, err != NULL ? ": " : "", err != NULL ? err : "");
  abort();
}

static void check_program(const tsr_net_prog_t *p) {
  for (uint32_t i = 0; i < p->n_cmds; i++) {
    uint32_t addr = 0;
    if (tsr_net_cmd_addr(&p->cmds[i], &addr) &&
        (addr < p->cmd_base || (uint64_t)addr - p->cmd_base >= p->arena_bytes)) {
      fprintf(stderr, "fuzz_net: command %u addresses 0x%08x, outside the arena [0x%08x, +%u)\n",
              i, addr, p->cmd_base, p->arena_bytes);
      abort();
    }
  }
  if (p->n_cmds != 0 && tsr_net_tokens_balanced(p->cmds, p->n_cmds) != 1) {
    fail("an accepted program's commands leave their tokens unbalanced", NULL);
  }
  char err[TESSERA_ERRLEN];
  uint8_t *bytes = NULL, *again = NULL;
  size_t len = 0, alen = 0;
  if (tsr_net_save(p, &bytes, &len, err, sizeof err) != TSR_OK) {
    fail("an accepted program does not save", err);
  }
  tsr_net_prog_t *back = NULL;
  if (tsr_net_load(bytes, len, &back, err, sizeof err) != TSR_OK) {
    fail("a saved program does not load", err);
  }
  if (tsr_net_save(back, &again, &alen, err, sizeof err) != TSR_OK || alen != len ||
      memcmp(again, bytes, len) != 0) {
    fail("a saved program does not load and save back to the same bytes", NULL);
  }
  tsr_net_free(back);
  free(bytes);
  free(again);
}

static void one(const uint8_t *data, size_t size, const tsr_dev_info_t *target, bool allow_host) {
  tsr_net_prog_t *p = NULL;
  char err[TESSERA_ERRLEN];
  err[0] = '\0';
  const tsr_status_t st =
      tsr_net_is_tsr(data, size)
          ? tsr_net_load(data, size, &p, err, sizeof err)
          : tsr_net_compile_ex(data, size, target, allow_host, &p, err, sizeof err);
  if (st == TSR_UNSUPPORTED && !allow_host && !tsr_net_is_tsr(data, size)) {
    /* A refused .tflite again as `--allow-host` compiles it (MUL as a HOST layer). */
    one(data, size, target, true);
  }
  if (st == TSR_OK) {
    if (p == NULL) {
      fail("accepted without a program", NULL);
    }
    check_program(p);
    tsr_net_free(p);
    return;
  }
  if (st == TSR_NO_MEMORY) {
    return;
  }
  if ((st != TSR_BAD_ARG && st != TSR_UNSUPPORTED) || p != NULL || err[0] == '\0' ||
      strchr(err, '\n') != NULL) {
    fprintf(stderr, "fuzz_net: refused with status %d, %s program and message '%s'\n", (int)st,
            p != NULL ? "a" : "no", err);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static tsr_dev_info_t target;
  if (target.dim == 0) {
    tsr_net_default_target(8, &target);
  }
  /* Every input as a buffer of its own, so that a read past the end is a sanitizer finding. */
  uint8_t *b = malloc(size != 0 ? size : 1u);
  if (b == NULL) {
    return 0;
  }
  memcpy(b, data, size);
  one(b, size, &target, false);
  if (tsr_net_is_tsr(b, size) && size >= 56u) {
    tsr_tsr_fix_checksum(b, size);
    one(b, size, &target, false);
  }
  free(b);
  return 0;
}
