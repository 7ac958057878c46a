// tsr_uart_shim.cpp: the only C++ of the UART board bench: moves pins between C structs and Verilated tsr_uart_top, clocks it, traces.
#include "tsr_uart_shim.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "Vtsr_uart_top.h"
#include "Vtsr_uart_top___024root.h"
#include "tsr_vshim.h"

struct tsr_ushim : TsrVshim<Vtsr_uart_top> {};

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
  if (!s->open("tsr_usim", trace_path, err, errlen)) {
    return nullptr;
  }
  s->top->rootp->clk_i = 0;
  put_inputs(*s->top->rootp, in);
  s->eval_dump();
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
  s->eval_dump();
  put_inputs(t, in);
  t.clk_i = 0;
  s->time += s->half;
  s->eval_dump();
  get_outputs(t, out);
}
