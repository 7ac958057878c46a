/* tsr_soc_api.h: the functions of tsr_soc_sim.h as a table filled from a dlopen'ed libtsrsoc_d<N>.so (libtessera's --hal soc and tests/soc/soc_run.c share it). */
#ifndef TSR_SOC_API_H
#define TSR_SOC_API_H

#include <dlfcn.h>
#include <stddef.h>

#include "tsr_soc_sim.h"

/* One pointer per function of tsr_soc_sim.h, same names without the tsr_ssim_ prefix. */
typedef struct tsr_ssim_api {
  void (*cfg_default)(tsr_ssim_cfg_t *);
  tsr_ssim_t *(*open)(const tsr_ssim_cfg_t *, char *, size_t);
  void (*destroy)(tsr_ssim_t *);
  int (*load_ram)(tsr_ssim_t *, uint32_t, const void *, size_t);
  int (*reset)(tsr_ssim_t *);
  int (*mem_write)(tsr_ssim_t *, uint64_t, const void *, size_t);
  int (*mem_read)(const tsr_ssim_t *, uint64_t, void *, size_t);
  tsr_ssim_end_t (*run)(tsr_ssim_t *, uint64_t, tsr_ssim_result_t *);
  void (*mem_stats)(const tsr_ssim_t *, tsr_axi_mem_stats_t *);
  uint32_t (*ram_bytes)(void);
  unsigned (*array_dim)(void);
} tsr_ssim_api_t;

/* Fill `api` from the library `dl`: NULL when every function is there, else the name of the
 * first that is missing (the caller says which library lacks it). */
static inline const char *tsr_ssim_api_load(void *dl, tsr_ssim_api_t *api) {
#define TSR_SSIM_SYM(field)                                   \
  do {                                                        \
    *(void **)(&api->field) = dlsym(dl, "tsr_ssim_" #field); \
    if (api->field == NULL) {                                 \
      return "tsr_ssim_" #field;                              \
    }                                                         \
  } while (0)
  TSR_SSIM_SYM(cfg_default);
  TSR_SSIM_SYM(open);
  TSR_SSIM_SYM(destroy);
  TSR_SSIM_SYM(load_ram);
  TSR_SSIM_SYM(reset);
  TSR_SSIM_SYM(mem_write);
  TSR_SSIM_SYM(mem_read);
  TSR_SSIM_SYM(run);
  TSR_SSIM_SYM(mem_stats);
  TSR_SSIM_SYM(ram_bytes);
  TSR_SSIM_SYM(array_dim);
#undef TSR_SSIM_SYM
  return NULL;
}

#endif /* TSR_SOC_API_H */
