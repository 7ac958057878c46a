// tsr_vshim.h: what the three C++ shims (tsr_top, the UART board, the SoC) share: a Verilated model with its context, clock and optional FST trace.
#ifndef TSR_VSHIM_H
#define TSR_VSHIM_H

#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>

#include "verilated.h"
#include "verilated_fst_c.h"

template <class Model>
struct TsrVshim {
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Model> top;
  std::unique_ptr<VerilatedFstC> fst;
  uint64_t time = 0;  // in units of the model's time precision
  uint64_t half = 1;  // half a clock period (5 ns) in those units

  // The context, the model, the clock and, with a trace path, the trace. prepare(ctx), if
  // given, runs before the model is built (its constructor draws every initial value). On
  // failure: false, and one line in err naming `who` (the library).
  bool open(const char *who, const char *trace_path, char *err, size_t errlen,
            void (*prepare)(VerilatedContext &) = nullptr) {
    ctx.reset(new (std::nothrow) VerilatedContext);
    if (!ctx) {
      std::snprintf(err, errlen, "%s: out of memory", who);
      return false;
    }
    if (prepare != nullptr) {
      prepare(*ctx);
    }
    if (trace_path != nullptr) {
      ctx->traceEverOn(true);  // must precede the model's construction
    }
    top.reset(new (std::nothrow) Model{ctx.get(), "TOP"});
    if (!top) {
      std::snprintf(err, errlen, "%s: out of memory", who);
      return false;
    }
    for (int p = ctx->timeprecision(); p < -9; ++p) {
      half *= 10u;
    }
    half *= 5u;
    if (trace_path != nullptr) {
      fst.reset(new (std::nothrow) VerilatedFstC);
      if (!fst) {
        std::snprintf(err, errlen, "%s: out of memory", who);
        return false;
      }
      top->trace(fst.get(), 99);
      fst->open(trace_path);
      if (!fst->isOpen()) {
        std::snprintf(err, errlen, "%s: cannot open trace file %s", who, trace_path);
        return false;
      }
    }
    return true;
  }

  // Evaluate the model and, when tracing, dump this instant.
  void eval_dump() {
    ctx->time(time);
    top->eval();
    if (fst) {
      fst->dump(time);
    }
  }
};

#endif
