/* tsr_cmd_reloc.c: relocation of captured commands (tsr_cmd_reloc.h), freestanding so that the network runtime on the host and the firmware on the SoC's core share it. */
#include "tsr_cmd_reloc.h"

bool tsr_net_cmd_addr(const tsr_cmd_t *c, uint32_t *addr) {
  const uint32_t op = TSR_CMD_GET(c->w[0], TSR_CMD_W0_OPCODE);
  if (op == TSR_OP_LOAD) {
    *addr = TSR_CMD_GET(c->w[1], TSR_CMD_LOAD_W1_ADDR);
    return true;
  }
  if (op == TSR_OP_STORE) {
    *addr = TSR_CMD_GET(c->w[1], TSR_CMD_STORE_W1_ADDR);
    return true;
  }
  return false;
}

void tsr_net_relocate(const tsr_cmd_t *in, uint32_t from_base, uint32_t to_base, tsr_cmd_t *out) {
  /* Word by word: a struct copy can become a memcpy call, which the firmware does not link. */
  for (unsigned i = 0u; i < TSR_CMD_WORDS; i++) {
    out->w[i] = in->w[i];
  }
  uint32_t a = 0;
  if (!tsr_net_cmd_addr(in, &a)) {
    return;
  }
  const uint32_t moved = a - from_base + to_base;
  if (TSR_CMD_GET(in->w[0], TSR_CMD_W0_OPCODE) == TSR_OP_LOAD) {
    out->w[1] = (in->w[1] & ~(TSR_CMD_LOAD_W1_ADDR_MASK << TSR_CMD_LOAD_W1_ADDR_OFFSET)) |
                TSR_CMD_PUT(TSR_CMD_LOAD_W1_ADDR, moved);
  } else {
    out->w[1] = (in->w[1] & ~(TSR_CMD_STORE_W1_ADDR_MASK << TSR_CMD_STORE_W1_ADDR_OFFSET)) |
                TSR_CMD_PUT(TSR_CMD_STORE_W1_ADDR, moved);
  }
}
