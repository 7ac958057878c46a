// tsr_sim_shim.cpp: the only C++ of the bench: moves pins between C structs and Verilated tsr_top, clocks it, traces.
#include "tsr_sim_shim.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "Vtsr_top.h"
#include "Vtsr_top___024root.h"
#include "tsr_vshim.h"
#if VM_COVERAGE
#include <unistd.h>

#include "verilated_cov.h"
#endif

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the shim copies wide AXI data words bytewise and assumes a little-endian host"
#endif

// Wide ports are stored as little-endian arrays of 32-bit words (or a plain
// integer up to 64 bits), so byte i of the struct is bits 8i+7:8i of the bus.
static_assert(sizeof(Vtsr_top___024root::m_axi_rdata) == sizeof(Vtsr_top___024root::m_axi_wdata), "AXI data widths differ");
static_assert(sizeof(Vtsr_top___024root::m_axi_rdata) <= TSR_AXI_MEM_MAX_BYTES, "AXI data wider than the memory model");
static constexpr unsigned kAxiBytes = sizeof(Vtsr_top___024root::m_axi_rdata);

struct tsr_shim : TsrVshim<Vtsr_top> {};

// Pins are accessed through rootp: the port members of Vtsr_top are references
// into it, and going through them costs an extra load per pin and cycle.
using Root = Vtsr_top___024root;

static void get_outputs(const Root &t, tsr_pins_out_t *o) {
  o->awready = t.s_axil_awready;
  o->wready = t.s_axil_wready;
  o->bvalid = t.s_axil_bvalid;
  o->bresp = t.s_axil_bresp;
  o->arready = t.s_axil_arready;
  o->rvalid = t.s_axil_rvalid;
  o->rresp = t.s_axil_rresp;
  o->rdata = t.s_axil_rdata;
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
  o->irq = t.irq_o;
}

static void put_inputs(Root &t, const tsr_pins_in_t *i) {
  t.rst_ni = i->rst_n;
  t.s_axil_awvalid = i->awvalid;
  t.s_axil_awaddr = i->awaddr;
  t.s_axil_wvalid = i->wvalid;
  t.s_axil_wdata = i->wdata;
  t.s_axil_wstrb = i->wstrb;
  t.s_axil_bready = i->bready;
  t.s_axil_arvalid = i->arvalid;
  t.s_axil_araddr = i->araddr;
  t.s_axil_rready = i->rready;
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

// Run-time options of the Verilated model from $TSR_SIM_PLUSARGS (tb/tsr_sim.h):
// whitespace-separated words, e.g. "+verilator+seed+7 +verilator+rand+reset+2".
// They must reach the context before the model is constructed, since the
// constructor draws the initial values of every variable.
static void apply_plusargs(VerilatedContext &ctx) {
  const char *env = std::getenv("TSR_SIM_PLUSARGS");
  if (env == nullptr || env[0] == '\0') {
    return;
  }
  std::vector<std::string> words;
  words.emplace_back("tsr_sim");  // argv[0]
  std::string w;
  for (const char *p = env;; ++p) {
    if (*p == '\0' || *p == ' ' || *p == '\t' || *p == '\n') {
      if (!w.empty()) {
        words.push_back(w);
        w.clear();
      }
      if (*p == '\0') {
        break;
      }
    } else {
      w += *p;
    }
  }
  std::vector<const char *> argv;
  for (const std::string &s : words) {
    argv.push_back(s.c_str());
  }
  ctx.commandArgs(static_cast<int>(argv.size()), argv.data());
}

extern "C" tsr_shim_t *tsr_shim_create(const char *trace_path, tsr_pins_out_t *out, char *err,
                                       size_t errlen) {
  if (out == nullptr) {
    return nullptr;
  }
  std::unique_ptr<tsr_shim> s(new (std::nothrow) tsr_shim);
  if (!s) {
    std::snprintf(err, errlen, "tsr_sim: out of memory");
    return nullptr;
  }
  if (!s->open("tsr_sim", trace_path, err, errlen, apply_plusargs)) {
    return nullptr;
  }
  tsr_pins_in_t idle;
  std::memset(&idle, 0, sizeof idle);
  s->top->rootp->clk_i = 0;
  put_inputs(*s->top->rootp, &idle);
  s->eval_dump();
  get_outputs(*s->top->rootp, out);
  return s.release();
}

#if VM_COVERAGE
// A coverage build writes its counts to $TSR_SIM_COVERAGE_DIR/cov_<pid>_<n>.dat,
// one file per simulation, n the first free number (the library may be
// unloaded between simulations, so no counter here survives); covreport.py
// merges them.
static void write_coverage(VerilatedContext &ctx) {
  const char *dir = std::getenv("TSR_SIM_COVERAGE_DIR");
  if (dir == nullptr || dir[0] == '\0') {
    return;
  }
  std::string path;
  for (unsigned n = 0;; ++n) {
    path = std::string(dir) + "/cov_" + std::to_string(getpid()) + "_" + std::to_string(n) + ".dat";
    if (access(path.c_str(), F_OK) != 0) {
      break;
    }
  }
  ctx.coveragep()->write(path.c_str());
}
#endif

extern "C" void tsr_shim_destroy(tsr_shim_t *s) {
  if (s == nullptr) {
    return;
  }
  s->top->final();
#if VM_COVERAGE
  write_coverage(*s->ctx);
#endif
  if (s->fst) {
    s->fst->close();
  }
  delete s;
}

extern "C" void tsr_shim_cycle(tsr_shim_t *s, const tsr_pins_in_t *in, tsr_pins_out_t *out) {
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

extern "C" void tsr_shim_apply(tsr_shim_t *s, const tsr_pins_in_t *in, tsr_pins_out_t *out) {
  put_inputs(*s->top->rootp, in);
  s->ctx->time(s->time);
  s->top->eval();
  get_outputs(*s->top->rootp, out);
}

extern "C" unsigned tsr_shim_axi_bytes(void) {
  return kAxiBytes;
}
