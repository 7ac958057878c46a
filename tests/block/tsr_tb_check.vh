// tsr_tb_check.vh: the CHECK macro of the Verilog test benches (include inside the module).
//
// Before the include, define TB_WHERE: a parenthesised $sformatf argument list that names
// the bench and where it is (seed, cycle, ...), printed before each failure's message:
//
//   `define TB_WHERE ("tsr_foo_tb seed=%0d cycle=%0d", seed, cyc)
//   `include "tsr_tb_check.vh"
//   ...
//   `CHECK(got == exp, ("out=%h, expected %h", got, exp))
//
// A failed check prints "FAIL <where>: <message>" and ends the run with $fatal (non-zero
// exit). With TB_KEEP_GOING defined before the include, it counts the failure in n_fail
// instead, prints the first 80, and goes on; the bench then reports n_fail at the end.
// n_checks counts every check evaluated (a bench can refuse to pass with too few).
`ifndef TSR_TB_CHECK_VH
`define TSR_TB_CHECK_VH

`ifdef TB_KEEP_GOING
`define CHECK(cond, msg) \
  begin \
    n_checks = n_checks + 1; \
    if (!(cond)) begin \
      n_fail = n_fail + 1; \
      if (n_fail <= 80) begin \
        $display("FAIL %s: %s", $sformatf `TB_WHERE, $sformatf msg); \
      end \
    end \
  end
`else
`define CHECK(cond, msg) \
  begin \
    n_checks = n_checks + 1; \
    if (!(cond)) begin \
      n_fail = n_fail + 1; \
      $display("FAIL %s: %s", $sformatf `TB_WHERE, $sformatf msg); \
      $fatal(1); \
    end \
  end
`endif

`endif

  integer n_checks = 0;   // checks evaluated
  integer n_fail   = 0;   // checks failed
