// tsr_requant: one output-stage lane: bias, TFLite requantization, zero point, clamp, table (4 stages).
`default_nettype none

// Bit-exact with sw/tsr_quant.c (the golden model):
//   x   = acc + bias                                   (wrapping int32)
//   y   = rdbpot(srdhm(x << left, mult), right) + zp   (wrapping int32)
//   out = clamp(y, act_min, act_max)                   (requant_i = 1)
//   out = lut[out mod 256]                             (and lut_en_i: fused activation)
//   out = x                                            (requant_i = 0: raw int32)
// With leaky_i, a negative x uses mult_neg_i/shift_neg_i instead (leaky ReLU,
// docs/sfu.md); the choice travels down the pipeline with the value.
// The lanes of the store unit run in lockstep, so the valid bits live there
// (tsr_store): stage k of a lane loads when load_i[k-1] is high, i.e. when a
// row enters it and the pipeline advances; otherwise it holds, so the store
// unit can stall the lanes on output backpressure. out_o is defined in the
// cycles after load_i[3] loaded stage 4. Per-store settings (bias, mult,
// shift, zp, clamp bounds, mode bits) must stay constant while rows flow.
//
// Each stage's arithmetic is a function evaluated inside that stage's
// clocked block. This is also what keeps the Verilated model fast: an idle
// lane costs nothing, where free-standing combinational wires would be
// evaluated every cycle (the 16 lanes of an N = 16 chip were a fifth of its
// simulation time).
module tsr_requant #(
  parameter integer ArrayDim = 8,   // N: the table copy is 256/N rows of N entries
  localparam integer LutAw = $clog2(256 / ArrayDim)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        clr_i,
  input  wire [3:0]  load_i,      // stage k+1 takes a row (valid and advancing)
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
  // Returns {negative, x << left}; a negative x picks the leaky parameters.
  function automatic [32:0] bias_shift(input [31:0] acc, input bias_en, input [31:0] bias,
                                       input leaky, input [5:0] shift, input [5:0] shift_neg);
    reg [31:0] x;
    reg        neg;
    reg [5:0]  sh;
    begin
      x   = acc + (bias_en ? bias : 32'h0);
      neg = leaky && x[31];
      sh  = neg ? shift_neg : shift;
      bias_shift = {neg, sh[5] ? x : (x << sh[4:0])};
    end
  endfunction

  // Stage 3: srdhm's rounding of the 64-bit product, rdbpot(., right), zero
  // point and clamp. (The quotient's low and sign bits are dropped by design.)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic [31:0] round_clamp(input [63:0] prod, input sat, input [5:0] shift,
                                        input [7:0] zp, input [7:0] act_min, input [7:0] act_max);
    reg [63:0] nudged, biased;
    reg [31:0] srd, mask, remainder, threshold, rounded, y, lo, hi;
    reg [4:0]  right;
    begin
      // Division by 2^31 truncating toward zero; only the saturating case
      // (INT32_MIN * INT32_MIN) does not fit int32.
      nudged = prod + (prod[63] ? 64'hffff_ffff_c000_0001 : 64'h0000_0000_4000_0000);
      biased = nudged[63] ? nudged + 64'h0000_0000_7fff_ffff : nudged;
      srd    = sat ? Int32Max : biased[62:31];
      // rdbpot(srd, right): round half away from zero; right = -shift when negative.
      right     = shift[5] ? 5'd0 - shift[4:0] : 5'd0;
      mask      = (32'h1 << right) - 32'h1;
      remainder = srd & mask;
      threshold = (mask >> 1) + {31'h0, srd[31]};
      rounded   = $unsigned($signed(srd) >>> right) + {31'h0, (remainder > threshold)};
      y         = rounded + {{24{zp[7]}}, zp};
      lo        = {{24{act_min[7]}}, act_min};
      hi        = {{24{act_max[7]}}, act_max};
      round_clamp = ($signed(y) < $signed(lo)) ? lo : ($signed(y) > $signed(hi)) ? hi : y;
    end
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  reg        neg1_q, neg2_q;
  reg [31:0] xl_q, x2_q;
  reg signed [63:0] prod_q;
  reg        sat_q;
  reg [31:0] out3_q, out4_q;
  reg        lut3_q, lut4_q;

  always @(posedge clk_i) begin
    if (load_i[0]) begin
      {neg1_q, xl_q} <= bias_shift(acc_i, bias_en_i, bias_i, leaky_i, shift_i, shift_neg_i);
    end
    if (load_i[1]) begin
      // Stage 2: the 32 x 32 -> 64 product of srdhm.
      x2_q   <= xl_q;
      neg2_q <= neg1_q;
      prod_q <= $signed(xl_q) * $signed(neg1_q ? mult_neg_i : mult_i);
      sat_q  <= (xl_q == Int32Min) && ((neg1_q ? mult_neg_i : mult_i) == Int32Min);
    end
    if (load_i[2]) begin
      out3_q <= requant_i ? round_clamp(prod_q, sat_q, neg2_q ? shift_neg_i : shift_i,
                                        zp_i, act_min_i, act_max_i)
                          : x2_q;
      lut3_q <= requant_i && lut_en_i;
    end
    if (load_i[3]) begin
      out4_q <= out3_q;
      lut4_q <= lut3_q;
    end
  end

  // Stage 4: this lane's copy of the table, read with the clamped value.
  wire [7:0] lut_entry;
  tsr_lut #(.N(ArrayDim), .SyncRead(1)) u_lut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .clr_i   (clr_i),
    .we_i    (lut_we_i),
    .waddr_i (lut_waddr_i),
    .wdata_i (lut_wdata_i),
    .re_i    (load_i[3] && lut3_q),
    .idx_i   (out3_q[7:0]),
    .entry_o (lut_entry)
  );

  assign out_o   = lut4_q ? {{24{lut_entry[7]}}, lut_entry} : out4_q;
endmodule

`default_nettype wire
