// tsr_requant_tb: one output-stage lane (rtl/tsr_requant.v) against the golden C model, 10^6 random values and the corners.
`default_nettype none
`timescale 1ns / 1ps

// Reference: tsr_golden_output() of sw/golden/tsr_golden.c (TFLite's
// MultiplyByQuantizedMultiplier in sw/driver/tsr_quant.c), called through DPI-C
// (tests/block/tsr_requant_ref.c, Verilator). Every value is also checked
// against ref_out() below, a plain Verilog model written from the same spec;
// under Icarus (no DPI) that is the only reference.
//
// Checked, per value: the lane's output, and, white-box, the 32-bit value
// before the clamp (stage 7's y7_q = mbqm(x) + zp, wrapping), since the int8
// clamp alone would hide most of the arithmetic of the multiply and shift.
//
// Stimulus: batches of rows under one set of per-store settings (zero point,
// clamp bounds, REQUANT/LUT/LEAKY, bias on/off: constant while rows flow, as
// tsr_store keeps them), each row with its own accumulator, bias, multiplier
// and shift (and leaky twins). Rows enter with random gaps, and the whole
// pipeline stalls at random (load_i low), as tsr_store stalls the lanes. The
// corners come first: rounding ties of both signs in srdhm and in rdbpot,
// INT32_MIN x INT32_MIN (also reached through the left shift), every shift
// -31..30, multiplier 0, +-1, INT32_MIN, INT32_MAX, wrapping bias, raw mode,
// LEAKY, the table (LUT) before and after a clear.
//
// Plusargs: +seed=<n> (default 1), +vectors=<n> random rows (default 1000000;
// 100000 under Icarus), +trace=<file.vcd>.
module tsr_requant_tb;
  localparam integer N      = 8;
  localparam integer Stages = 9;
  localparam integer LutAw  = $clog2(256 / N);
  localparam [31:0] Int32Min = 32'h8000_0000;
  localparam [31:0] Int32Max = 32'h7fff_ffff;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  integer seed = 1;
  integer nvec = 0;        // rows fed so far
  integer nvectors;

`define TB_WHERE ("tsr_requant_tb seed=%0d row=%0d", seed, out_seq)
`include "tsr_tb_check.vh"
`include "tsr_tb_prng.vh"

`ifdef VERILATOR
  import "DPI-C" function int tsr_tb_requant_ref(input int acc, input int bias_en, input int bias,
    input int requant, input int mult, input int shift, input int zp, input int act_min,
    input int act_max, input int leaky, input int mult_neg, input int shift_neg, input int lut_en);
  import "DPI-C" function void tsr_tb_requant_lut(input int idx, input int value);
  import "DPI-C" function int tsr_mbqm(input int x, input int mult, input int shift);
`endif

  // ---- DUT -------------------------------------------------------------------------------
  reg               clr;
  reg  [Stages-1:0] load;
  reg  [31:0]       acc, bias, mult, mult_neg;
  reg  [5:0]        shift, shift_neg;
  reg               bias_en, requant, leaky, lut_en;
  reg  [7:0]        zp, act_min, act_max;
  reg               lut_we;
  reg  [LutAw-1:0]  lut_waddr;
  reg  [8*N-1:0]    lut_wdata;
  wire [31:0]       out;

  tsr_requant #(.ArrayDim(N)) u_dut (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .clr_i       (clr),
    .load_i      (load),
    .acc_i       (acc),
    .bias_en_i   (bias_en),
    .bias_i      (bias),
    .requant_i   (requant),
    .mult_i      (mult),
    .shift_i     (shift),
    .zp_i        (zp),
    .act_min_i   (act_min),
    .act_max_i   (act_max),
    .leaky_i     (leaky),
    .mult_neg_i  (mult_neg),
    .shift_neg_i (shift_neg),
    .lut_en_i    (lut_en),
    .lut_we_i    (lut_we),
    .lut_waddr_i (lut_waddr),
    .lut_wdata_i (lut_wdata),
    .out_o       (out)
  );

  // ---- Plain Verilog reference (lut_ref, ref_mbqm, ref_out) ---------------------------
`include "tsr_tb_requant_ref.vh"

  // ---- Scoreboard: expected values by row number ------------------------------------------
  reg [31:0] exp_y   [0:15];
  reg [31:0] exp_o   [0:15];
  reg [31:0] row_acc [0:15];
  reg [31:0] row_m   [0:15];
  reg [5:0]  row_sh  [0:15];
  integer in_seq = 0, y_seq = 0, out_seq = 0;
  integer n_y_checks = 0;

  // Compute a row's expected values (at the time it is fed; settings are constant
  // until the pipeline drains).
  task automatic expect_row;
    reg [63:0] r;
    reg [31:0] x, g, gy;
    integer k;
    begin
      k = in_seq % 16;
      r = ref_out(acc, bias_en, bias, requant, mult, shift, zp, act_min, act_max, leaky,
                  mult_neg, shift_neg, lut_en);
      exp_y[k] = r[63:32];
      exp_o[k] = r[31:0];
      row_acc[k] = acc;
      x = acc + (bias_en ? bias : 32'd0);
      row_m[k]  = (leaky && x[31]) ? mult_neg : mult;
      row_sh[k] = (leaky && x[31]) ? shift_neg : shift;
`ifdef VERILATOR
      g = tsr_tb_requant_ref(acc, {31'd0, bias_en}, bias, {31'd0, requant}, mult,
                             sx6(shift), {{24{zp[7]}}, zp}, {{24{act_min[7]}}, act_min},
                             {{24{act_max[7]}}, act_max}, {31'd0, leaky}, mult_neg,
                             sx6(shift_neg), {31'd0, lut_en});
      gy = tsr_mbqm(x, row_m[k], sx6(row_sh[k])) + {{24{zp[7]}}, zp};
      `CHECK(g == exp_o[k] && gy == exp_y[k],
             ("references disagree: golden C %h / %h, Verilog model %h / %h (acc=%h mult=%h shift=%0d)",
              g, gy, exp_o[k], exp_y[k], acc, row_m[k], $signed(row_sh[k])))
`else
      g = 32'd0; gy = 32'd0;
`endif
      in_seq = in_seq + 1;
    end
  endtask

  // ---- Pipeline driver: valid bits as tsr_store keeps them ----------------------------------
  reg [Stages-1:0] v = {Stages{1'b0}};   // stage k+1 holds a row
  integer stall_pct = 0;                 // chance of a stall cycle
  integer gap_pct   = 0;                 // chance of no row offered

  // One clock: with a row offered (have) it is fed unless the cycle stalls or gaps.
  // Returns whether the row was taken.
  task automatic cycle(input have, output taken);
    reg adv;
    reg [Stages-1:0] ld;
    begin
      adv = (stall_pct == 0) || (urand(100) >= stall_pct);
      taken = have && adv && ((gap_pct == 0) || (urand(100) >= gap_pct));
      ld = adv ? {v[Stages-2:0], taken} : {Stages{1'b0}};
      load = ld;
      if (taken) expect_row();
      @(posedge clk);
      #1;
      if (adv) v = {v[Stages-2:0], taken};
      if (ld[6]) begin
        if (requant) begin
          `CHECK(u_dut.y7_q == exp_y[y_seq % 16],
                 ("y before the clamp = %h, expected %h (acc=%h mult=%h shift=%0d zp=%0d)",
                  u_dut.y7_q, exp_y[y_seq % 16], row_acc[y_seq % 16], row_m[y_seq % 16],
                  $signed(row_sh[y_seq % 16]), $signed(zp)))
          n_y_checks = n_y_checks + 1;
        end
        y_seq = y_seq + 1;
      end
      if (ld[8]) begin
        `CHECK(out == exp_o[out_seq % 16],
               ("out = %h, expected %h (acc=%h bias_en=%0d requant=%0d mult=%h shift=%0d zp=%0d clamp %0d..%0d leaky=%0d lut=%0d)",
                out, exp_o[out_seq % 16], row_acc[out_seq % 16], bias_en, requant,
                row_m[out_seq % 16], $signed(row_sh[out_seq % 16]), $signed(zp),
                $signed(act_min), $signed(act_max), leaky, lut_en))
        out_seq = out_seq + 1;
      end
      load = {Stages{1'b0}};
    end
  endtask

  task automatic feed;   // one row with the current inputs
    reg t;
    begin
      t = 1'b0;
      while (!t) cycle(1'b1, t);
      nvec = nvec + 1;
    end
  endtask

  task automatic drain;  // until every fed row has left the lane
    reg t;
    begin
      while (out_seq != in_seq) cycle(1'b0, t);
    end
  endtask

  // ---- Settings and values --------------------------------------------------------------
  task automatic settings(input r, input be, input lk, input le, input [7:0] z,
                          input [7:0] lo, input [7:0] hi);
    begin
      requant = r; bias_en = be; leaky = lk; lut_en = le; zp = z; act_min = lo; act_max = hi;
    end
  endtask

  task automatic row(input [31:0] a, input [31:0] b, input [31:0] m, input integer sh);
    begin
      acc = a; bias = b; mult = m; shift = sh[5:0];
      mult_neg = m; shift_neg = sh[5:0];
      feed();
    end
  endtask

  function automatic [31:0] pick32(input integer unused);
    reg [31:0] r;
    begin
      r = rand32(0);
      case (urand(16))
        0: pick32 = Int32Min;
        1: pick32 = Int32Max;
        2: pick32 = {32{r[0]}};                          // 0 or -1
        3: pick32 = r[31] ? 32'd1 : Int32Min + 32'd1;
        4, 5, 6: pick32 = {{16{r[15]}}, r[15:0]};        // small
        7, 8: pick32 = {{24{r[7]}}, r[7:0]};             // tiny
        default: pick32 = r;
      endcase
    end
  endfunction

  function automatic [31:0] pick_mult(input integer unused);
    reg [31:0] r;
    begin
      r = rand32(0);
      case (urand(16))
        0: pick_mult = 32'd0;
        1: pick_mult = Int32Min;
        2: pick_mult = Int32Max;
        3: pick_mult = 32'h4000_0000;                    // 0.5: srdhm ties on odd values
        4: pick_mult = r[0] ? 32'd1 : 32'hffff_ffff;
        5, 6, 7: pick_mult = r;                          // any, negative too
        default: pick_mult = {2'b01, r[29:0]};           // TFLite's [2^30, 2^31)
      endcase
    end
  endfunction

  function automatic integer pick_shift(input integer unused);
    begin
      pick_shift = $signed(urand(62)) - 31;              // -31..30
    end
  endfunction

  task automatic random_settings;
    reg [7:0] a, b;
    reg [31:0] t;
    begin
      t = rand32(0); a = t[7:0]; b = t[15:8];
      if ($signed(a) > $signed(b)) begin a = a ^ b; b = a ^ b; a = a ^ b; end
      if (urand(4) == 0) begin a = 8'h80; b = 8'h7f; end
      t = rand32(0);
      settings(urand(8) != 0, t[0], urand(3) == 0, urand(3) == 0, t[15:8], a, b);
      stall_pct = (urand(3) == 0) ? 0 : urand(40);
      gap_pct   = (urand(3) == 0) ? 0 : urand(40);
    end
  endtask

  task automatic random_row;
    reg [31:0] t;
    begin
      acc = pick32(0); bias = pick32(0);
      t = pick_shift(0); mult = pick_mult(0); shift = t[5:0];
      t = pick_shift(0); mult_neg = pick_mult(0); shift_neg = t[5:0];
      feed();
    end
  endtask

  // Write the whole table (drained pipeline): random, or the identity.
  task automatic load_lut(input ident);
    integer r, e;
    reg [7:0] val;
    reg [31:0] t32;
    begin
      for (r = 0; r < 256 / N; r = r + 1) begin
        for (e = 0; e < N; e = e + 1) begin
          t32 = ident ? (r * N + e) : rand32(0);
          val = t32[7:0];
          lut_wdata[8*e +: 8] = val;
          lut_ref[r * N + e] = val;
`ifdef VERILATOR
          tsr_tb_requant_lut(r * N + e, {{24{val[7]}}, val});
`endif
        end
        lut_we = 1'b1; lut_waddr = r[LutAw-1:0];
        @(posedge clk); #1;
        lut_we = 1'b0;
      end
    end
  endtask

  task automatic clear_lut;
    integer e;
    begin
      clr = 1'b1;
      @(posedge clk); #1;
      clr = 1'b0;
      for (e = 0; e < 256; e = e + 1) begin
        lut_ref[e] = 8'h00;
`ifdef VERILATOR
        tsr_tb_requant_lut(e, 0);
`endif
      end
    end
  endtask

  // ---- The run ------------------------------------------------------------------------------
  integer i, s, e, k, batch, n_batches, n_corner;
  reg [31:0] t32;
  initial begin : main
    string trace;
    if ($value$plusargs("trace=%s", trace)) begin
      $dumpfile(trace);
      $dumpvars(0, tsr_requant_tb);
    end
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
`ifdef VERILATOR
    nvectors = 1000000;
`else
    nvectors = 100000;
`endif
    if ($value$plusargs("vectors=%d", i)) nvectors = i;
    rng_seed(32'h5eed_4e01 ^ seed);
    for (e = 0; e < 256; e = e + 1) lut_ref[e] = 8'h00;
    clr = 1'b0; load = {Stages{1'b0}}; lut_we = 1'b0; lut_waddr = 0; lut_wdata = 0;
    acc = 0; bias = 0; mult = 0; shift = 0; mult_neg = 0; shift_neg = 0;
    settings(1'b1, 1'b0, 1'b0, 1'b0, 8'h00, 8'h80, 8'h7f);
    repeat (3) @(posedge clk);
    #1 rst_n = 1'b1;

    // -- Corners (no stalls, full int8 clamp, zero point 0) --
    // Multiplier 0 and the extremes of the product, every shift.
    for (s = -31; s <= 30; s = s + 1) begin
      row(32'd0, 0, 32'd0, s);
      row(Int32Max, 0, 32'd0, s);
      row(Int32Min, 0, Int32Min, s);               // INT32_MIN x INT32_MIN saturates
      row(Int32Min, 0, Int32Max, s);
      row(Int32Max, 0, Int32Min, s);
      row(Int32Max, 0, Int32Max, s);
      row(32'd1, 0, Int32Min, s);                  // 1 << s may become INT32_MIN
      row(32'hffff_ffff, 0, Int32Min, s);
      row(32'd100, 0, 32'h4000_0000, s);
      row(32'hffff_ff9c, 0, 32'h4000_0000, s);
    end
    // INT32_MIN reached through the left shift: x << s == INT32_MIN, times INT32_MIN.
    for (s = 0; s <= 30; s = s + 1) row(32'h1 << (31 - s), 0, Int32Min, s);
    // srdhm ties: x * 2^30 / 2^31 = x / 2 for odd x, both signs.
    for (i = -300; i <= 300; i = i + 1) row(i, 0, 32'h4000_0000, 0);
    // rdbpot ties: srdhm(2s, 2^30) = s exactly; s = +-(k * 2^e + 2^(e-1)), shift -e.
    for (e = 1; e <= 31; e = e + 1) begin
      for (k = 0; k < 4; k = k + 1) begin
        t32 = (e == 31) ? 32'h4000_0000 : ((k << e) + (32'd1 << (e - 1)));
        if (e == 31 || t32 < 32'h4000_0000) begin
          row(t32 << 1, 0, 32'h4000_0000, -e);
          row(-(t32 << 1), 0, 32'h4000_0000, -e);
          row((t32 << 1) + 2, 0, 32'h4000_0000, -e);     // just above the tie
          row(-(t32 << 1) - 2, 0, 32'h4000_0000, -e);
        end
      end
    end
    // Into the int8 range at every shift (the clamp hides nothing): x * 2^-(31 - s).
    for (s = -31; s <= 30; s = s + 1) begin
      for (k = 0; k < 16; k = k + 1) row(pick32(0), 0, pick_mult(0), s);
    end
    // Bias wraps.
    row(Int32Max, 32'd1, 32'h4000_0000, 0);
    settings(1'b1, 1'b1, 1'b0, 1'b0, 8'h00, 8'h80, 8'h7f);
    row(Int32Max, 32'd1, 32'h4000_0000, -20);
    row(Int32Min, 32'hffff_ffff, 32'h4000_0000, -20);
    drain();
    // Raw mode: acc + bias, 32 bits.
    settings(1'b0, 1'b1, 1'b0, 1'b0, 8'h05, 8'hf0, 8'h10);
    row(Int32Max, 32'd1, 32'h1, 0);
    row(Int32Min, 32'hffff_ffff, 32'h1, 0);
    row(32'h1234_5678, 32'h1111_1111, 32'h1, 0);
    drain();
    // Zero point and clamp bounds at their extremes.
    settings(1'b1, 1'b0, 1'b0, 1'b0, 8'h7f, 8'h80, 8'h7f);
    for (i = 0; i < 64; i = i + 1) row(pick32(0), 0, pick_mult(0), pick_shift(0));
    drain();
    settings(1'b1, 1'b0, 1'b0, 1'b0, 8'h80, 8'hf6, 8'h0a);
    for (i = 0; i < 64; i = i + 1) row(pick32(0), 0, pick_mult(0), pick_shift(0));
    drain();
    // LEAKY: a negative x takes the other multiplier and shift.
    settings(1'b1, 1'b1, 1'b1, 1'b0, 8'h00, 8'h80, 8'h7f);
    for (i = 0; i < 64; i = i + 1) begin
      acc = pick32(0); bias = pick32(0); mult = 32'h4000_0000; shift = -6'sd8;
      mult_neg = 32'h0ccc_cccd; shift_neg = -6'sd4;
      feed();
    end
    drain();
    // The table: empty after reset (reads 0), the identity, random, cleared.
    settings(1'b1, 1'b0, 1'b0, 1'b1, 8'h00, 8'h80, 8'h7f);
    for (i = 0; i < 256; i = i + 1) row(i - 128, 0, Int32Max, 0);
    drain();
    load_lut(1'b1);
    for (i = 0; i < 256; i = i + 1) row(i - 128, 0, Int32Max, 0);
    drain();
    load_lut(1'b0);
    for (i = 0; i < 256; i = i + 1) row(i - 128, 0, Int32Max, 0);
    drain();
    clear_lut();
    for (i = 0; i < 16; i = i + 1) row(i - 8, 0, Int32Max, 0);
    drain();
    load_lut(1'b0);

    // -- Random batches, stalls and gaps --
    n_corner = nvec;
    n_batches = 0;
    while (nvec - n_corner < nvectors) begin
      random_settings();
      if (lut_en && urand(8) == 0) load_lut(1'b0);
      batch = 1 + urand(4000);
      for (i = 0; i < batch; i = i + 1) random_row();
      drain();
      n_batches = n_batches + 1;
    end
    stall_pct = 0; gap_pct = 0;
    drain();

    if (n_y_checks < nvectors / 2) begin
      $display("FAIL tsr_requant_tb seed=%0d: only %0d pre-clamp checks", seed, n_y_checks);
      $fatal(1);
    end
    $display("PASS tsr_requant_tb seed=%0d: %0d corner rows, %0d random rows in %0d batches, %0d checks",
             seed, n_corner, nvec - n_corner, n_batches, n_checks);
    $finish;
  end
endmodule

`default_nettype wire
