/* tsr_cmd_reloc.h: move the external address of a captured LOAD or STORE from one arena to another (freestanding: the host runtime and the SoC's firmware both relocate). */
#ifndef TSR_CMD_RELOC_H
#define TSR_CMD_RELOC_H

#include <stdbool.h>
#include <stdint.h>

#include "tsr_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The external address of a LOAD or STORE into *addr (true); false for other commands. */
bool tsr_net_cmd_addr(const tsr_cmd_t *c, uint32_t *addr);

/** `in` with its external address (LOAD, STORE) moved from the arena at from_base to the
 *  arena at to_base; other commands are copied as they are. */
void tsr_net_relocate(const tsr_cmd_t *in, uint32_t from_base, uint32_t to_base, tsr_cmd_t *out);

#ifdef __cplusplus
}
#endif

#endif /* TSR_CMD_RELOC_H */
