// tsr_requant: one output-stage lane: bias, TFLite requantization, zero point, clamp, table (9 stages).
`default_nettype none

// Bit-exact with sw/driver/tsr_quant.c (the golden model):
//   x   = acc + bias                                   (wrapping int32)
//   y   = rdbpot(srdhm(x << left, mult), right) + zp   (wrapping int32)
//   out = clamp(y, act_min, act_max)                   (requant_i = 1)
//   out = lut[out mod 256]                             (and lut_en_i: fused activation)
//   out = x                                            (requant_i = 0: raw int32)
// With leaky_i, a negative x uses mult_neg_i/shift_neg_i instead (leaky ReLU,
// docs/sfu.md).
// The lanes of the store unit run in lockstep, so the valid bits live there
// (tsr_store): stage k of a lane loads when load_i[k-1] is high, i.e. when a
// row enters it and the pipeline advances; otherwise it holds, so the store
// unit can stall the lanes on output backpressure. out_o is defined in the
// cycles after load_i[Stages-1] loaded the last stage.
// The channel's parameters (bias, mult, shift and their leaky twins) are
// sampled with the value in stage 1, and the multiplier and shift the value
// needs ride down the pipeline with it: a lane may take a different column's
// value every cycle (tsr_store's StoreLanes < N). The per-store settings (zp,
// clamp bounds, mode bits) must stay constant while rows flow.
//
// Stages, each at most about one 64-bit carry chain deep (FPGA timing):
//   1 bias add and left shift        4 srdhm's nudge                7 add zp and the rounding bit
//   2 four 16 x 16 partial products  5 srdhm's truncation; rdbpot's 8 clamp
//   3 their 64-bit sum                 divisor and mask             9 table
//                                    6 rdbpot's shift and compare
// In raw mode x rides along and stage 8 picks it.
//
// Each stage's arithmetic is a function evaluated inside that stage's
// clocked block. This is also what keeps the Verilated model fast: an idle
// lane costs nothing, where free-standing combinational wires would be
// evaluated every cycle (the 16 lanes of an N = 16 chip were a fifth of its
// simulation time).
module tsr_requant #(
  parameter integer ArrayDim = 8,   // N: the table copy is 256/N rows of N entries
  localparam integer Stages = 9,    // tsr_store's lane pipeline has as many valid bits
  localparam integer LutAw = $clog2(256 / ArrayDim)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        clr_i,
  input  wire [Stages-1:0] load_i, // stage k+1 takes a row (valid and advancing)
  input  wire [31:0] acc_i,
  input  wire        bias_en_i,
  input  wire [31:0] bias_i,
  input  wire        requant_i,
  input  wire [31:0] mult_i,
  input  wire [5:0]  shift_i,     // signed -31..30, positive = left
  input  wire [7:0]  zp_i,        // signed
  input  wire [7:0]  act_min_i,   // signed
  input  wire [7:0]  act_max_i,   // signed
  input  wire        leaky_i,
  input  wire [31:0] mult_neg_i,
  input  wire [5:0]  shift_neg_i, // signed -31..30
  input  wire        lut_en_i,
  input  wire        lut_we_i,    // table writes (LUT_LOAD), see tsr_lut
  input  wire [LutAw-1:0] lut_waddr_i,
  input  wire [8*ArrayDim-1:0] lut_wdata_i,
  output wire [31:0] out_o
);
  localparam [31:0] Int32Min = 32'h8000_0000;
  localparam [31:0] Int32Max = 32'h7fff_ffff;

  // Stage 1: bias and left shift (wrapping, as TFLite's x * (1 << left)).
  // A negative x picks the leaky parameters. Returns {shift, mult, x,
  // x << left}: the chosen shift and multiplier go on with the value.
  function automatic [101:0] bias_shift(input [31:0] acc, input bias_en, input [31:0] bias,
                                        input leaky, input [31:0] mult, input [5:0] shift,
                                        input [31:0] mult_neg, input [5:0] shift_neg);
    reg [31:0] x;
    reg        neg;
    reg [5:0]  sh;
    begin
      x   = acc + (bias_en ? bias : 32'h0);
      neg = leaky && x[31];
      sh  = neg ? shift_neg : shift;
      bias_shift = {sh, neg ? mult_neg : mult, x, sh[5] ? x : (x << sh[4:0])};
    end
  endfunction

  // Stage 3: the 64-bit product of srdhm from its partial products
  //   a * b = ah*bh * 2^32 + (ah*bl + al*bh) * 2^16 + al*bl
  // (ah, bh the signed upper halves; al, bl the unsigned lower halves).
  function automatic [63:0] sum_pp(input [31:0] hh, input [32:0] hl, input [32:0] lh,
                                   input [31:0] ll);
    sum_pp = {hh, 32'h0} + {{15{hl[32]}}, hl, 16'h0} + {{15{lh[32]}}, lh, 16'h0} + {32'h0, ll};
  endfunction

  // Stage 5: srdhm divides the nudged product by 2^31, truncating toward zero.
  // Only the saturating case (INT32_MIN * INT32_MIN) does not fit int32.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic [31:0] srdhm_div(input [63:0] nudged, input sat);
    reg [63:0] biased;
    begin
      biased    = nudged[63] ? nudged + 64'h0000_0000_7fff_ffff : nudged;
      srdhm_div = sat ? Int32Max : biased[62:31];
    end
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Stage 5 also prepares rdbpot's divisor: right = -shift when the shift is
  // negative, and the mask of the bits it drops. Returns {mask, right}.
  function automatic [36:0] rdbpot_div(input [5:0] shift);
    reg [4:0] right;
    begin
      right      = shift[5] ? 5'd0 - shift[4:0] : 5'd0;
      rdbpot_div = {(32'h1 << right) - 32'h1, right};
    end
  endfunction

  // Stage 6: rdbpot(srd, right), round half away from zero.
  // Returns {round up, srd >> right (arithmetic)}.
  function automatic [32:0] rdbpot_parts(input [31:0] srd, input [4:0] right, input [31:0] mask);
    reg [31:0] remainder, threshold;
    begin
      remainder    = srd & mask;
      threshold    = (mask >> 1) + {31'h0, srd[31]};
      rdbpot_parts = {remainder > threshold, $unsigned($signed(srd) >>> right)};
    end
  endfunction

  function automatic [31:0] clamp(input [31:0] y, input [7:0] act_min, input [7:0] act_max);
    reg [31:0] lo, hi;
    begin
      lo    = {{24{act_min[7]}}, act_min};
      hi    = {{24{act_max[7]}}, act_max};
      clamp = ($signed(y) < $signed(lo)) ? lo : ($signed(y) > $signed(hi)) ? hi : y;
    end
  endfunction

  // Stage registers, named by stage. x (bias added, not shifted) rides along
  // for raw mode; the shift until stage 5 turns it into rdbpot's divisor;
  // sat until srdhm's division.
  reg [5:0]  sh1_q, sh2_q, sh3_q, sh4_q;
  reg [4:0]  right5_q;
  reg [31:0] mask5_q;
  reg [31:0] m1_q;
  reg [31:0] x1_q, x2_q, x3_q, x4_q, x5_q, x6_q, x7_q;
  reg [31:0] xl1_q;
  reg [31:0] hh2_q, ll2_q;
  reg [32:0] hl2_q, lh2_q;
  reg        sat2_q, sat3_q, sat4_q;
  reg [63:0] prod3_q, nudged4_q;
  reg [31:0] srd5_q, shifted6_q, y7_q, out8_q, out9_q;
  reg        up6_q, lut8_q, lut9_q;

  always @(posedge clk_i) begin
    if (load_i[0]) begin
      {sh1_q, m1_q, x1_q, xl1_q} <= bias_shift(acc_i, bias_en_i, bias_i, leaky_i, mult_i, shift_i,
                                               mult_neg_i, shift_neg_i);
    end
    if (load_i[1]) begin
      // Four products a DSP block each takes whole (17 x 17 signed at most).
      // (Operands extended to the product's width: a Verilog product is as
      // wide as its operands.)
      hh2_q  <= $unsigned($signed({{16{xl1_q[31]}}, xl1_q[31:16]}) * $signed({{16{m1_q[31]}}, m1_q[31:16]}));
      hl2_q  <= $unsigned($signed({{17{xl1_q[31]}}, xl1_q[31:16]}) * $signed({17'h0, m1_q[15:0]}));
      lh2_q  <= $unsigned($signed({17'h0, xl1_q[15:0]}) * $signed({{17{m1_q[31]}}, m1_q[31:16]}));
      ll2_q  <= {16'h0, xl1_q[15:0]} * {16'h0, m1_q[15:0]};
      sat2_q <= (xl1_q == Int32Min) && (m1_q == Int32Min);
      {sh2_q, x2_q} <= {sh1_q, x1_q};
    end
    if (load_i[2]) begin
      prod3_q <= sum_pp(hh2_q, hl2_q, lh2_q, ll2_q);
      {sh3_q, x3_q, sat3_q} <= {sh2_q, x2_q, sat2_q};
    end
    if (load_i[3]) begin
      nudged4_q <= prod3_q + (prod3_q[63] ? 64'hffff_ffff_c000_0001 : 64'h0000_0000_4000_0000);
      {sh4_q, x4_q, sat4_q} <= {sh3_q, x3_q, sat3_q};
    end
    if (load_i[4]) begin
      srd5_q <= srdhm_div(nudged4_q, sat4_q);
      {mask5_q, right5_q} <= rdbpot_div(sh4_q);
      x5_q <= x4_q;
    end
    if (load_i[5]) begin
      {up6_q, shifted6_q} <= rdbpot_parts(srd5_q, right5_q, mask5_q);
      x6_q <= x5_q;
    end
    if (load_i[6]) begin
      // rounded + zp, with the rounding bit as the carry in.
      y7_q <= shifted6_q + {{24{zp_i[7]}}, zp_i} + {31'h0, up6_q};
      x7_q <= x6_q;
    end
    if (load_i[7]) begin
      out8_q <= requant_i ? clamp(y7_q, act_min_i, act_max_i) : x7_q;
      lut8_q <= requant_i && lut_en_i;
    end
    if (load_i[8]) begin
      out9_q <= out8_q;
      lut9_q <= lut8_q;
    end
  end

  // Stage 9: this lane's copy of the table, read with the clamped value.
  wire [7:0] lut_entry;
  tsr_lut #(.N(ArrayDim), .SyncRead(1)) u_lut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .clr_i   (clr_i),
    .we_i    (lut_we_i),
    .waddr_i (lut_waddr_i),
    .wdata_i (lut_wdata_i),
    .re_i    (load_i[8] && lut8_q),
    .idx_i   (out8_q[7:0]),
    .entry_o (lut_entry)
  );

  assign out_o   = lut9_q ? {{24{lut_entry[7]}}, lut_entry} : out9_q;
endmodule

`default_nettype wire
