// tsr_soc_shim.cpp: the only C++ of the SoC bench: moves pins between C structs and Verilated tsr_soc, clocks it, traces.
#include "tsr_soc_shim.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "Vtsr_soc.h"
#include "Vtsr_soc___024root.h"
#include "tsr_vshim.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the shim copies wide AXI data words bytewise and assumes a little-endian host"
#endif

static_assert(sizeof(Vtsr_soc___024root::m_axi_rdata) == sizeof(Vtsr_soc___024root::m_axi_wdata), "AXI data widths differ");
static_assert(sizeof(Vtsr_soc___024root::m_axi_rdata) <= TSR_AXI_MEM_MAX_BYTES, "AXI data wider than the memory model");
static constexpr unsigned kAxiBytes = sizeof(Vtsr_soc___024root::m_axi_rdata);

struct tsr_sshim : TsrVshim<Vtsr_soc> {};

using Root = Vtsr_soc___024root;

static void get_outputs(const Root &t, tsr_spins_out_t *o) {
  o->console_valid = t.console_valid_o;
  o->console_data = t.console_data_o;
  o->exit_valid = t.exit_valid_o;
  o->exit_code = t.exit_code_o;
  o->trap = t.trap_o;
  o->pc = t.pc_o;
  o->insn_pc = t.tsr_soc__DOT__u_core__DOT__dbg_insn_addr;  // public_flat_rd in rtl/soc/tsr_soc.vlt
  o->chip_status = static_cast<uint32_t>(t.tsr_soc__DOT__u_top__DOT__u_regs__DOT__status_busy_i) |
                   static_cast<uint32_t>(t.tsr_soc__DOT__u_top__DOT__u_regs__DOT__status_done_i) << 1 |
                   static_cast<uint32_t>(t.tsr_soc__DOT__u_top__DOT__u_regs__DOT__status_error_i) << 2;
  o->chip_err = t.tsr_soc__DOT__u_top__DOT__u_regs__DOT__err_code_code_i;
  o->fault = t.fault_o;
  o->fault_addr = t.fault_addr_o;
  o->fault_resp = t.fault_resp_o;
  o->irq = t.irq_o;
  o->mem.awvalid = t.m_axi_awvalid;
  o->mem.awaddr = t.m_axi_awaddr;
  o->mem.awlen = t.m_axi_awlen;
  o->mem.awsize = t.m_axi_awsize;
  o->mem.awburst = t.m_axi_awburst;
  o->mem.wvalid = t.m_axi_wvalid;
  std::memcpy(o->mem.wdata, &t.m_axi_wdata, kAxiBytes);
  o->mem.wstrb = static_cast<uint16_t>(t.m_axi_wstrb);
  o->mem.wlast = t.m_axi_wlast;
  o->mem.bready = t.m_axi_bready;
  o->mem.arvalid = t.m_axi_arvalid;
  o->mem.araddr = t.m_axi_araddr;
  o->mem.arlen = t.m_axi_arlen;
  o->mem.arsize = t.m_axi_arsize;
  o->mem.arburst = t.m_axi_arburst;
  o->mem.rready = t.m_axi_rready;
}

static void put_inputs(Root &t, const tsr_spins_in_t *i) {
  t.rst_ni = i->rst_n;
  t.load_we_i = i->load_we;
  t.load_addr_i = i->load_addr;
  t.load_wdata_i = i->load_wdata;
  t.m_axi_awready = i->mem.awready;
  t.m_axi_wready = i->mem.wready;
  t.m_axi_bvalid = i->mem.bvalid;
  t.m_axi_bresp = i->mem.bresp;
  t.m_axi_arready = i->mem.arready;
  t.m_axi_rvalid = i->mem.rvalid;
  std::memcpy(&t.m_axi_rdata, i->mem.rdata, kAxiBytes);
  t.m_axi_rresp = i->mem.rresp;
  t.m_axi_rlast = i->mem.rlast;
}

extern "C" tsr_sshim_t *tsr_sshim_create(const char *trace_path, tsr_spins_out_t *out, char *err,
                                         size_t errlen) {
  if (out == nullptr) {
    return nullptr;
  }
  std::unique_ptr<tsr_sshim> s(new (std::nothrow) tsr_sshim);
  if (!s) {
    std::snprintf(err, errlen, "tsr_ssim: out of memory");
    return nullptr;
  }
  if (!s->open("tsr_ssim", trace_path, err, errlen)) {
    return nullptr;
  }
  tsr_spins_in_t idle;
  std::memset(&idle, 0, sizeof idle);
  s->top->rootp->clk_i = 0;
  put_inputs(*s->top->rootp, &idle);
  s->eval_dump();
  get_outputs(*s->top->rootp, out);
  return s.release();
}

extern "C" void tsr_sshim_destroy(tsr_sshim_t *s) {
  if (s == nullptr) {
    return;
  }
  s->top->final();
  if (s->fst) {
    s->fst->close();
  }
  delete s;
}

extern "C" void tsr_sshim_cycle(tsr_sshim_t *s, const tsr_spins_in_t *in, tsr_spins_out_t *out) {
  Root &t = *s->top->rootp;
  t.clk_i = 1;
  s->time += s->half;
  s->eval_dump();
  put_inputs(t, in);
  t.clk_i = 0;
  s->time += s->half;
  s->eval_dump();
  get_outputs(t, out);
}

extern "C" unsigned tsr_sshim_axi_bytes(void) {
  return kAxiBytes;
}
