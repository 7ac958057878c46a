// tsr_tb_prng.vh: the Verilog test benches' random numbers (include inside the module).
//
// xorshift32 (Marsaglia): the same sequence in every simulator, and the same generator as
// the C tests' tests/common/tsr_prng.h. The state is `rng`; seed it with
// rng_seed(salt ^ seed) (a zero state is replaced by 1, xorshift's one fixed point).
//   rand32(0)      next 32 random bits
//   urand(n)       uniform in 0 .. n-1 (n >= 1; modulo bias is negligible for small n)
//   xorshift32(x)  the next state after x, for a bench that keeps a second stream

  reg [31:0] rng = 32'h1;

  function automatic [31:0] xorshift32(input [31:0] x);
    reg [31:0] y;
    begin
      y = x ^ (x << 13);
      y = y ^ (y >> 17);
      xorshift32 = y ^ (y << 5);
    end
  endfunction

  task automatic rng_seed(input [31:0] s);
    begin
      rng = (s == 32'h0) ? 32'h1 : s;
    end
  endtask

  /* verilator lint_off UNUSEDSIGNAL */
  function [31:0] rand32(input integer unused);
    begin
      rng = xorshift32(rng);
      rand32 = rng;
    end
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  function [31:0] urand(input [31:0] n);
    begin
      rng = xorshift32(rng);
      urand = rng % n;
    end
  endfunction
