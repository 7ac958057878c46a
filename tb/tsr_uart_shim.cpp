// tsr_uart_shim.cpp: the only C++ of the UART board bench: moves pins between C structs and Verilated tsr_uart_top, clocks it, traces.
#include "tsr_uart_shim.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "Vtsr_uart_top.h"
#include "Vtsr_uart_top___024root.h"
#include "verilated.h"
#include "verilated_fst_c.h"

struct tsr_ushim {
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vtsr_uart_top> top;
  std::unique_ptr<VerilatedFstC> fst;
  uint64_t time = 0;  // in units of the model's time precision
  uint64_t half = 1;  // half a clock period (5 ns) in those units
};

using Root = Vtsr_uart_top___024root;

static void put_inputs(Root &t, const tsr_upins_in_t *i) {
  t.rst_ni = i->rst_n;
  t.uart_rx_i = i->rx;
}

static void get_outputs(const Root &t, tsr_upins_out_t *o) {
  o->tx = t.uart_tx_o;
  o->irq = t.irq_o;
  o->evt = t.evt_o;
}

static void eval_dump(tsr_ushim *s) {
  s->ctx->time(s->time);
  s->top->eval();
  if (s->fst) {
    s->fst->dump(s->time);
  }
}

extern "C" tsr_ushim_t *tsr_ushim_create(const char *trace_path, const tsr_upins_in_t *in,
                                         tsr_upins_out_t *out, char *err, size_t errlen) {
  if (in == nullptr || out == nullptr) {
    return nullptr;
  }
  std::unique_ptr<tsr_ushim> s(new (std::nothrow) tsr_ushim);
  if (!s) {
    std::snprintf(err, errlen, "tsr_usim: out of memory");
    return nullptr;
  }
  s->ctx.reset(new (std::nothrow) VerilatedContext);
  if (!s->ctx) {
    std::snprintf(err, errlen, "tsr_usim: out of memory");
    return nullptr;
  }
  if (trace_path != nullptr) {
    s->ctx->traceEverOn(true);  // must precede the model's construction
  }
  s->top.reset(new (std::nothrow) Vtsr_uart_top{s->ctx.get(), "TOP"});
  if (!s->top) {
    std::snprintf(err, errlen, "tsr_usim: out of memory");
    return nullptr;
  }
  for (int p = s->ctx->timeprecision(); p < -9; ++p) {
    s->half *= 10u;
  }
  s->half *= 5u;
  if (trace_path != nullptr) {
    s->fst.reset(new (std::nothrow) VerilatedFstC);
    if (!s->fst) {
      std::snprintf(err, errlen, "tsr_usim: out of memory");
      return nullptr;
    }
    s->top->trace(s->fst.get(), 99);
    s->fst->open(trace_path);
    if (!s->fst->isOpen()) {
      std::snprintf(err, errlen, "tsr_usim: cannot open trace file %s", trace_path);
      return nullptr;
    }
  }
  s->top->rootp->clk_i = 0;
  put_inputs(*s->top->rootp, in);
  eval_dump(s.get());
  get_outputs(*s->top->rootp, out);
  return s.release();
}

extern "C" void tsr_ushim_destroy(tsr_ushim_t *s) {
  if (s == nullptr) {
    return;
  }
  s->top->final();
  if (s->fst) {
    s->fst->close();
  }
  delete s;
}

extern "C" void tsr_ushim_cycle(tsr_ushim_t *s, const tsr_upins_in_t *in, tsr_upins_out_t *out) {
  Root &t = *s->top->rootp;
  t.clk_i = 1;
  s->time += s->half;
  eval_dump(s);
  put_inputs(t, in);
  t.clk_i = 0;
  s->time += s->half;
  eval_dump(s);
  get_outputs(t, out);
}
