// tsr_pe_tb: self-checking test of tsr_pe (int8 x int8 MAC with two weight banks).
`timescale 1ns/1ps
`default_nettype none

// Every cycle the bench drives a_i, a_sel_i, psum_i and an optional weight write, and one
// cycle later checks, against a model of the two banks:
//   psum_o  == psum_i + int8(a_i) * int8(bank[a_sel_i])   (wrapping int32; the bank value
//              before a weight write in the same cycle)
//   a_o     == a_i, a_sel_o == a_sel_i                    (one register each)
// Phases (one driving loop, one call site):
//   1. exhaustive: for each of the 256 weights w, bank 0 = w and bank 1 = 255 - w, then all
//      256 activations through bank 0 and all 256 through bank 1 (every sign combination,
//      -128 x -128, -128 x 127, 0 x anything ...), with random psum_i;
//   2. directed int32 wrap: psum_i at 0x7fffffff, 0x80000000, 0xffffffff and friends;
//   3. random: random activation, bank select, psum_i (biased to the int32 extremes) and a
//      random weight write to either bank in half the cycles, including the bank in use.
// Plusargs: +seed=<n> (default 1), +cycles=<n> random cycles (default 20000),
//           +trace=<file.vcd> (waves).

module tsr_pe_tb;
  reg clk = 1'b0;
  always #5 clk = ~clk;

  integer    seed;
  integer    ncycles;
  integer    nchecks = 0;

`include "tsr_tb_prng.vh"   // rng, rand32(), urand(), xorshift32()

  reg  [7:0]  a = 8'h0;
  reg         sel = 1'b0;
  reg  [31:0] psum = 32'h0;
  reg         w_we = 1'b0;
  reg         w_bank = 1'b0;
  reg  [7:0]  w = 8'h0;
  wire [7:0]  a_o;
  wire        sel_o;
  wire [31:0] psum_o;

  tsr_pe u_dut (
    .clk_i    (clk),
    .a_i      (a),
    .a_sel_i  (sel),
    .psum_i   (psum),
    .w_we_i   (w_we),
    .w_bank_i (w_bank),
    .w_i      (w),
    .a_o      (a_o),
    .a_sel_o  (sel_o),
    .psum_o   (psum_o)
  );

  // Model and expectations for the outputs after the next clock edge.
  reg  [7:0]  bank0, bank1;
  reg         bank0_ok = 1'b0, bank1_ok = 1'b0;   // bank written at least once
  reg  [7:0]  exp_a;
  reg         exp_sel;
  reg  [31:0] exp_psum;
  reg         exp_valid = 1'b0;                   // a cycle was driven
  reg         exp_psum_valid = 1'b0;              // ... with a written bank
  reg  [7:0]  exp_w;                              // for the message

  reg         lit_valid = 1'b0, exp_lit_valid = 1'b0;   // a hand-written expectation
  reg  [31:0] lit_psum = 32'h0, exp_lit = 32'h0;
  integer    cyc, k, sub;
  reg [31:0] r;
  reg [7:0]  cur_w;
  integer    prod;

  localparam integer ExhCycles = 256 * 514;       // per weight: 2 writes + 2 x 256 products
  localparam integer WrapCases = 16;

  // Directed wrap cases: psum_i, a, w (through bank 0) and the expected psum_o, written out
  // by hand so that the model itself is checked too.
  function [79:0] wrap_case(input integer n);
    begin
      case (n)
        0:  wrap_case = {32'h7fffffff, 8'h01, 8'h01, 32'h80000000};  // +1 wraps to INT_MIN
        1:  wrap_case = {32'h80000000, 8'hff, 8'h01, 32'h7fffffff};  // -1 wraps to INT_MAX
        2:  wrap_case = {32'hffffffff, 8'h01, 8'h01, 32'h00000000};  // -1 + 1
        3:  wrap_case = {32'h7fffc001, 8'h80, 8'h80, 32'h80000001};  // + 16384 wraps
        4:  wrap_case = {32'h80003fff, 8'h80, 8'h7f, 32'h8000007f};  // - 16256
        5:  wrap_case = {32'h80000000, 8'h80, 8'h7f, 32'h7fffc080};  // - 16256 wraps
        6:  wrap_case = {32'h7fffffff, 8'h80, 8'h80, 32'h80003fff};  // + 16384 wraps
        7:  wrap_case = {32'h00000000, 8'h80, 8'h80, 32'h00004000};  // -128 x -128
        8:  wrap_case = {32'h00000000, 8'h80, 8'h7f, 32'hffffc080};  // -128 x 127
        9:  wrap_case = {32'h00000000, 8'h7f, 8'h7f, 32'h00003f01};  // 127 x 127
        10: wrap_case = {32'h00000000, 8'h7f, 8'h80, 32'hffffc080};  // 127 x -128
        11: wrap_case = {32'h00000005, 8'h00, 8'h80, 32'h00000005};  // 0 x -128
        12: wrap_case = {32'hfffffff0, 8'hff, 8'hff, 32'hfffffff1};  // -1 x -1
        13: wrap_case = {32'h12345678, 8'hfe, 8'h03, 32'h12345672};  // -2 x 3
        14: wrap_case = {32'h80000000, 8'h80, 8'h80, 32'h80004000};  // INT_MIN + 16384
        default: wrap_case = {32'h7ffffffe, 8'h02, 8'h01, 32'h80000000};
      endcase
    end
  endfunction

  function [31:0] pick_psum(input [31:0] x);     // random psum, half of them near an extreme
    begin
      case (x[2:0])
        3'd0: pick_psum = 32'h7fffffff - {27'h0, x[7:3]};
        3'd1: pick_psum = 32'h80000000 + {27'h0, x[7:3]};
        3'd2: pick_psum = 32'hffffffff - {27'h0, x[7:3]};
        3'd3: pick_psum = {27'h0, x[7:3]};
        default: pick_psum = rand32(0);
      endcase
    end
  endfunction

  initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
      seed = 1;
    end
    if (!$value$plusargs("cycles=%d", ncycles)) begin
      ncycles = 20000;
    end
    rng = 32'h9e3779b9 ^ seed;
    if (rng == 32'h0) begin
      rng = 32'h1;
    end
    begin : trace
      reg [8*256-1:0] tfile;
      if ($value$plusargs("trace=%s", tfile)) begin
        $dumpfile(tfile);
        $dumpvars(0, tsr_pe_tb);
      end
    end

    for (cyc = 0; cyc < ExhCycles + 2 * WrapCases + ncycles + 1; cyc = cyc + 1) begin
      @(negedge clk);
      // ---- check the outputs of the previous cycle ----
      if (exp_valid) begin
        if (a_o !== exp_a || sel_o !== exp_sel) begin
          $display("FAIL tsr_pe_tb seed=%0d cycle=%0d: a_o=%h a_sel_o=%b, expected %h %b (one-cycle pass-through)",
                   seed, cyc, a_o, sel_o, exp_a, exp_sel);
          $fatal(1);
        end
        if (exp_psum_valid && psum_o !== exp_psum) begin
          $display("FAIL tsr_pe_tb seed=%0d cycle=%0d: psum_o=%h, expected %h (a=%0d w=%0d bank=%0d psum_i=%h)",
                   seed, cyc, psum_o, exp_psum, $signed(exp_a), $signed(exp_w), exp_sel, psum);
          $fatal(1);
        end
        if (exp_lit_valid && psum_o !== exp_lit) begin
          $display("FAIL tsr_pe_tb seed=%0d cycle=%0d: psum_o=%h, expected %h (wrap case: a=%0d w=%0d psum_i=%h)",
                   seed, cyc, psum_o, exp_lit, $signed(exp_a), $signed(exp_w), psum);
          $fatal(1);
        end
        nchecks = nchecks + 1;
      end
      // ---- drive this cycle ----
      r = rand32(0);
      lit_valid = 1'b0;
      w_we = 1'b0;
      w_bank = r[8];
      w = r[23:16];
      if (cyc < ExhCycles) begin
        k   = cyc / 514;          // weight index
        sub = cyc % 514;
        a   = sub[7:0] - 8'd2;
        sel = (sub >= 258);
        psum = rand32(0);
        if (sub == 0) begin
          w_we = 1'b1; w_bank = 1'b0; w = k[7:0];
        end else if (sub == 1) begin
          w_we = 1'b1; w_bank = 1'b1; w = 8'd255 - k[7:0];
        end
      end else if (cyc < ExhCycles + 2 * WrapCases) begin
        // Even cycle: write the case's weight into bank 0 (product through bank 1).
        // Odd cycle: the case's activation and psum_i through bank 0.
        k = (cyc - ExhCycles) / 2;
        {psum, a, w, lit_psum} = wrap_case(k);
        sel = 1'b0;
        lit_valid = ((cyc - ExhCycles) % 2 == 1);
        if ((cyc - ExhCycles) % 2 == 0) begin
          w_we = 1'b1; w_bank = 1'b0; sel = 1'b1;
        end
      end else begin
        a    = r[31:24];
        sel  = r[9];
        psum = pick_psum(rand32(0));
        w_we = r[10];
        if (r[14:12] == 3'd0) begin
          w = 8'h80;
        end else if (r[14:12] == 3'd1) begin
          w = 8'h7f;
        end
        if (r[15]) begin
          w_bank = sel;    // write the bank this cycle's product uses
        end
      end
      // ---- expected outputs after the edge (weights before this cycle's write) ----
      cur_w = sel ? bank1 : bank0;
      prod = $signed(a) * $signed(cur_w);
      exp_a    = a;
      exp_sel  = sel;
      exp_w    = cur_w;
      exp_psum = psum + prod;
      exp_valid = 1'b1;
      exp_lit_valid = lit_valid;
      exp_lit = lit_psum;
      exp_psum_valid = sel ? bank1_ok : bank0_ok;
      if (w_we && !w_bank) begin
        bank0 = w; bank0_ok = 1'b1;
      end
      if (w_we && w_bank) begin
        bank1 = w; bank1_ok = 1'b1;
      end
    end
    $display("PASS tsr_pe_tb seed=%0d: %0d cycles checked (exhaustive 256x256 on both banks, %0d int32 wrap cases, %0d random)",
             seed, nchecks, WrapCases, ncycles);
    $finish;
  end
endmodule

`default_nettype wire
