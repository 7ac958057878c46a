/* test_hal_devmem.c: devmem/UIO HAL: spec parsing, validation and failure paths (no hardware). */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tsr_hal_baremetal.h"
#include "tsr_hal_host.h"

static char g_err[512];

static void assert_err_contains(const char *needle) {
  if (strstr(g_err, needle) == NULL) {
    fail_msg("error message \"%s\" lacks \"%s\"", g_err, needle);
  }
}

/* ---- parsing ------------------------------------------------------------------------------ */

static void parse_accepts_uio_and_devmem_forms(void **state) {
  (void)state;
  tsr_devmem_spec_t s;
  assert_int_equal(tsr_devmem_parse("uio:/dev/uio0", 0x1000, &s, g_err, sizeof g_err), TSR_OK);
  assert_int_equal(s.kind, TSR_DEVMEM_UIO);
  assert_string_equal(s.path, "/dev/uio0");

  assert_int_equal(tsr_devmem_parse("devmem:0x43c00000", 0x1000, &s, g_err, sizeof g_err), TSR_OK);
  assert_int_equal(s.kind, TSR_DEVMEM_MEM);
  assert_true(s.base == 0x43c00000u && s.size == 0x1000u);
  assert_string_equal(s.path, "/dev/mem");

  assert_int_equal(tsr_devmem_parse("devmem:4096,0x20000@/tmp/x", 0x1000, &s, g_err, sizeof g_err),
                   TSR_OK);
  assert_true(s.base == 4096u && s.size == 0x20000u);
  assert_string_equal(s.path, "/tmp/x");

  /* The largest window that does not wrap. */
  assert_int_equal(tsr_devmem_parse("devmem:0x7ffffffffffff000,0xffc", 0, &s, g_err, sizeof g_err),
                   TSR_OK);
}

static void parse_rejects_malformed_specs_with_a_reason(void **state) {
  (void)state;
  static const struct {
    const char *spec;
    const char *reason;
  } bad[] = {
      {"", "unknown device spec"},
      {"pci:0000:01:00.0", "unknown device spec"},
      {"uio:", "missing device path"},
      {"devmem:", "BASE is not a number"},
      {"devmem:xyz", "BASE is not a number"},
      {"devmem:0x1000junk", "BASE is not a number"},
      {"devmem:-4096", "BASE is not a number"},
      {"devmem: 4096", "BASE is not a number"},
      {"devmem:99999999999999999999999", "BASE is not a number"},
      {"devmem:0x1000,", "SIZE is not a number"},
      {"devmem:0x1000,12k", "SIZE is not a number"},
      {"devmem:0x1002", "not 4-byte aligned"},
      {"devmem:0x1000,0", "non-zero multiple of 4"},
      {"devmem:0x1000,6", "non-zero multiple of 4"},
      {"devmem:0xfffffffffffff000,0x2000", "overflows"},
      {"devmem:0x7ffffffffffff000,0x2000", "overflows"},
      {"devmem:0x1000@", "missing file name"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tsr_devmem_spec_t s;
    g_err[0] = '\0';
    if (tsr_devmem_parse(bad[i].spec, 0x1000, &s, g_err, sizeof g_err) != TSR_BAD_ARG) {
      fail_msg("\"%s\" was accepted", bad[i].spec);
    }
    assert_err_contains(bad[i].reason);
    /* The message starts with the spec the user typed. */
    assert_int_equal(strncmp(g_err, bad[i].spec, strlen(bad[i].spec)), 0);
  }
  char longpath[400];
  memset(longpath, 'a', sizeof longpath);
  memcpy(longpath, "uio:/", 5);
  longpath[sizeof longpath - 1] = '\0';
  tsr_devmem_spec_t s;
  assert_int_equal(tsr_devmem_parse(longpath, 0, &s, g_err, sizeof g_err), TSR_BAD_ARG);
  assert_err_contains("too long");
  assert_int_equal(tsr_devmem_parse(NULL, 0, &s, g_err, sizeof g_err), TSR_BAD_ARG);
  assert_int_equal(tsr_devmem_parse("uio:/dev/uio0", 0, NULL, NULL, 0), TSR_BAD_ARG);
  /* A NULL or empty message buffer is fine. */
  assert_int_equal(tsr_devmem_parse("bogus", 0, &s, NULL, 0), TSR_BAD_ARG);
}

/* ---- opening ------------------------------------------------------------------------------- */

static char g_file[64];

/* A 16 KiB file of zeros standing in for physical memory. */
static int make_file(void **state) {
  (void)state;
  snprintf(g_file, sizeof g_file, "/tmp/tsr_devmem_test_XXXXXX");
  int fd = mkstemp(g_file);
  if (fd < 0) {
    return -1;
  }
  int rc = ftruncate(fd, 16384);
  close(fd);
  return rc;
}

static int remove_file(void **state) {
  (void)state;
  unlink(g_file);
  return 0;
}

static void open_failures_name_the_cause(void **state) {
  (void)state;
  tsr_hal_t hal;
  char spec[160];
  assert_int_equal(tsr_hal_devmem_open("uio:/nonexistent/uio9", NULL, &hal, g_err, sizeof g_err),
                   TSR_NO_DEVICE);
  assert_err_contains("cannot open /nonexistent/uio9");
  assert_null(hal.ops);

  snprintf(spec, sizeof spec, "uio:%s", g_file); /* a regular file is no UIO node */
  assert_int_equal(tsr_hal_devmem_open(spec, NULL, &hal, g_err, sizeof g_err), TSR_NO_DEVICE);
  assert_err_contains("not a character device");

  assert_int_equal(
      tsr_hal_devmem_open("devmem:0x1000@/nonexistent/mem", NULL, &hal, g_err, sizeof g_err),
      TSR_NO_DEVICE);
  assert_err_contains("No such file");

  snprintf(spec, sizeof spec, "devmem:0x3000,0x2000@%s", g_file); /* ends at 20 KiB > 16 KiB */
  assert_int_equal(tsr_hal_devmem_open(spec, NULL, &hal, g_err, sizeof g_err), TSR_BAD_ARG);
  assert_err_contains("holds 16384 bytes");

  snprintf(spec, sizeof spec, "devmem:0x1000,0x100@%s", g_file); /* smaller than the register block */
  assert_int_equal(tsr_hal_devmem_open(spec, NULL, &hal, g_err, sizeof g_err), TSR_BAD_ARG);
  assert_err_contains("4 KiB register block");

  char dma[160];
  snprintf(spec, sizeof spec, "devmem:0x0@%s", g_file);
  assert_int_equal(tsr_hal_devmem_open(spec, "uio:/dev/uio1", &hal, g_err, sizeof g_err),
                   TSR_BAD_ARG);
  assert_err_contains("DMA buffer must be devmem");
  snprintf(dma, sizeof dma, "devmem:0xfffff000,0x2000@%s", g_file);
  assert_int_equal(tsr_hal_devmem_open(spec, dma, &hal, g_err, sizeof g_err), TSR_BAD_ARG);
  assert_err_contains("below 4 GiB");
  assert_int_equal(tsr_hal_devmem_open(spec, "devmem:0x1000", &hal, g_err, sizeof g_err),
                   TSR_BAD_ARG); /* a DMA window has no default size */
  assert_err_contains("SIZE");
  assert_int_equal(tsr_hal_devmem_open(spec, NULL, NULL, g_err, sizeof g_err), TSR_BAD_ARG);
}

static void registers_and_dma_window_map_the_right_bytes(void **state) {
  (void)state;
  tsr_hal_t hal;
  char spec[160], dma[160];
  /* Registers at 0x1004 (not page aligned: mapped from the page below), DMA
   * buffer at device address 0x2800 for 0x800 bytes. */
  snprintf(spec, sizeof spec, "devmem:0x1004,0x1000@%s", g_file);
  snprintf(dma, sizeof dma, "devmem:0x2800,0x800@%s", g_file);
  assert_int_equal(tsr_hal_devmem_open(spec, dma, &hal, g_err, sizeof g_err), TSR_OK);
  assert_string_equal(hal.ops->name, "devmem");
  assert_null(hal.ops->wait_irq); /* no interrupts through /dev/mem: the driver polls */

  assert_int_equal(tsr_hal_write32(&hal, 0x10, 0xcafef00du), TSR_OK);
  assert_int_equal(tsr_hal_write32(&hal, 0xffc, 0x01020304u), TSR_OK);
  uint32_t v = 0;
  assert_int_equal(tsr_hal_read32(&hal, 0x10, &v), TSR_OK);
  assert_int_equal(v, 0xcafef00du);
  /* Misaligned and out-of-window offsets are refused. */
  assert_int_equal(tsr_hal_read32(&hal, 0x11, &v), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_read32(&hal, 0x1000, &v), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_write32(&hal, 0xfffffffcu, 0), TSR_BAD_ARG);

  const uint8_t data[5] = {1, 2, 3, 4, 5};
  assert_int_equal(tsr_hal_mem_write(&hal, 0x2800, data, 5), TSR_OK);
  assert_int_equal(tsr_hal_mem_write(&hal, 0x2ffb, data, 5), TSR_OK);    /* ends at the last byte */
  assert_int_equal(tsr_hal_mem_write(&hal, 0x2ffc, data, 5), TSR_BAD_ARG); /* one past */
  assert_int_equal(tsr_hal_mem_write(&hal, 0x27ff, data, 1), TSR_BAD_ARG); /* below the window */
  assert_int_equal(tsr_hal_mem_write(&hal, 0x2800, data, SIZE_MAX), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_mem_write(&hal, UINT64_MAX, data, 2), TSR_BAD_ARG);
  uint8_t back[5] = {0};
  assert_int_equal(tsr_hal_mem_read(&hal, 0x2ffb, back, 5), TSR_OK);
  assert_memory_equal(back, data, 5);
  tsr_hal_close(&hal);
  assert_null(hal.ops);

  /* The bytes landed at the physical addresses the specs name. */
  FILE *f = fopen(g_file, "rb");
  assert_non_null(f);
  uint8_t img[16384];
  assert_int_equal(fread(img, 1, sizeof img, f), sizeof img);
  fclose(f);
  uint32_t w;
  memcpy(&w, img + 0x1004 + 0x10, 4);
  assert_int_equal(w, 0xcafef00du);
  memcpy(&w, img + 0x1004 + 0xffc, 4);
  assert_int_equal(w, 0x01020304u);
  assert_memory_equal(img + 0x2800, data, 5);
  assert_memory_equal(img + 0x2ffb, data, 5);
  assert_int_equal(img[0x3000], 0); /* the refused write left the byte past the window alone */

  /* Without a DMA window there is no memory access. */
  assert_int_equal(tsr_hal_devmem_open(spec, NULL, &hal, g_err, sizeof g_err), TSR_OK);
  assert_int_equal(tsr_hal_mem_write(&hal, 0x2800, data, 1), TSR_BAD_ARG);
  tsr_hal_close(&hal);
}

static void baremetal_backend_validates_its_window(void **state) {
  (void)state;
  static uint32_t regs[1024];
  static uint8_t mem[256];
  tsr_hal_baremetal_t ctx;
  tsr_hal_t hal;
  assert_int_equal(tsr_hal_baremetal_init(&ctx, 0, 0, 0, 0, &hal), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_baremetal_init(&ctx, (uintptr_t)regs + 2, 0, 0, 0, &hal), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_baremetal_init(&ctx, (uintptr_t)regs, (uintptr_t)mem, 0xffffff80u,
                                          sizeof mem, &hal),
                   TSR_BAD_ARG); /* window past 4 GiB */
  assert_int_equal(tsr_hal_baremetal_init(&ctx, (uintptr_t)regs, (uintptr_t)mem, 0x1000u,
                                          sizeof mem, &hal),
                   TSR_OK);
  assert_int_equal(tsr_hal_write32(&hal, 8, 77u), TSR_OK);
  assert_int_equal(regs[2], 77u);
  uint32_t v = 0;
  assert_int_equal(tsr_hal_read32(&hal, 8, &v), TSR_OK);
  assert_int_equal(v, 77u);
  assert_int_equal(tsr_hal_read32(&hal, 6, &v), TSR_BAD_ARG);
  const uint8_t data[3] = {9, 8, 7};
  assert_int_equal(tsr_hal_mem_write(&hal, 0x1000 + 253, data, 3), TSR_OK);
  assert_memory_equal(mem + 253, data, 3);
  assert_int_equal(tsr_hal_mem_write(&hal, 0x1000 + 254, data, 3), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_mem_write(&hal, 0xfff, data, 1), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_cycles(&hal), 0u);
  tsr_hal_close(&hal);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parse_accepts_uio_and_devmem_forms),
      cmocka_unit_test(parse_rejects_malformed_specs_with_a_reason),
      cmocka_unit_test_setup_teardown(open_failures_name_the_cause, make_file, remove_file),
      cmocka_unit_test_setup_teardown(registers_and_dma_window_map_the_right_bytes, make_file,
                                      remove_file),
      cmocka_unit_test(baremetal_backend_validates_its_window),
  };
  return cmocka_run_group_tests_name("hal_devmem", tests, NULL, NULL);
}
