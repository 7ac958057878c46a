// tsr_requant: one output-stage lane: bias, TFLite requantization, zero point, clamp (3 stages).
`default_nettype none

// Bit-exact with sw/tsr_quant.c (the golden model):
//   x   = acc + bias                                   (wrapping int32)
//   y   = rdbpot(srdhm(x << left, mult), right) + zp   (wrapping int32)
//   out = clamp(y, act_min, act_max)                   (requant_i = 1)
//   out = lut[out mod 256]                             (and lut_en_i: fused activation)
//   out = x                                            (requant_i = 0: raw int32)
// With leaky_i, a negative x uses mult_neg_i/shift_neg_i instead (leaky ReLU,
// docs/sfu.md); the choice travels down the pipeline with the value.
// The pipeline advances when en_i is high and holds otherwise, so the store
// unit can stall it on output backpressure. Per-store settings (bias, mult,
// shift, zp, clamp bounds, mode bits) must stay constant while rows flow.
module tsr_requant #(
  parameter integer ArrayDim = 8,   // N: the table copy is 256/N rows of N entries
  localparam integer LutAw = $clog2(256 / ArrayDim)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        clr_i,
  input  wire        en_i,
  input  wire        valid_i,
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
  output wire        valid_o,
  output wire [31:0] out_o
);
  localparam [31:0] Int32Min = 32'h8000_0000;
  localparam [31:0] Int32Max = 32'h7fff_ffff;

  // Stage 1: bias and left shift (wrapping, as TFLite's x * (1 << left)).
  reg        v1_q, neg1_q;
  reg [31:0] xl_q;
  wire [31:0] x = acc_i + (bias_en_i ? bias_i : 32'h0);
  wire        neg = leaky_i && x[31];
  wire [5:0]  shift1    = neg ? shift_neg_i : shift_i;
  wire [4:0]  left      = shift1[5] ? 5'd0 : shift1[4:0];

  // Stage 2: the 32 x 32 -> 64 product of srdhm.
  reg               v2_q, neg2_q;
  wire [31:0]       mult2 = neg1_q ? mult_neg_i : mult_i;
  reg [31:0]        x2_q;
  reg signed [63:0] prod_q;
  reg               sat_q;

  // Stage 3: rounding, rdbpot, zero point and clamp.
  reg        v3_q, lut3_q;
  reg [31:0] out_q;
  wire [5:0] shift3 = neg2_q ? shift_neg_i : shift_i;
  wire [5:0] right6 = shift3[5] ? (6'd0 - shift3) : 6'd0;   // 0..31
  wire [4:0] right  = right6[4:0];

  wire [63:0] nudge   = prod_q[63] ? 64'hffff_ffff_c000_0001 : 64'h0000_0000_4000_0000;
  wire [63:0] nudged  = prod_q + nudge;
  // Division by 2^31 truncating toward zero.
  wire [63:0] biased  = nudged[63] ? nudged + 64'h0000_0000_7fff_ffff : nudged;
  wire [32:0] quot    = biased[63:31];   // fits int32 except the saturating case
  wire [31:0] srd     = sat_q ? Int32Max : quot[31:0];
  // rdbpot(srd, right): round half away from zero.
  wire [31:0] mask      = (32'h1 << right) - 32'h1;
  wire [31:0] remainder = srd & mask;
  wire [31:0] threshold = (mask >> 1) + {31'h0, srd[31]};
  wire [31:0] shifted   = $unsigned($signed(srd) >>> right);
  wire [31:0] rounded   = shifted + {31'h0, (remainder > threshold)};
  wire [31:0] y         = rounded + {{24{zp_i[7]}}, zp_i};
  wire [31:0] lo        = {{24{act_min_i[7]}}, act_min_i};
  wire [31:0] hi        = {{24{act_max_i[7]}}, act_max_i};
  wire [31:0] clamped   = ($signed(y) < $signed(lo)) ? lo :
                          ($signed(y) > $signed(hi)) ? hi : y;
  // This lane's copy of the table, read with the clamped value on the edge
  // that registers stage 3, so the entry appears together with out_q.
  wire [7:0] lut_entry;
  tsr_lut #(.N(ArrayDim), .SyncRead(1)) u_lut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .clr_i   (clr_i),
    .we_i    (lut_we_i),
    .waddr_i (lut_waddr_i),
    .wdata_i (lut_wdata_i),
    .re_i    (en_i),
    .idx_i   (clamped[7:0]),
    .entry_o (lut_entry)
  );

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v1_q <= 1'b0;
      v2_q <= 1'b0;
      v3_q <= 1'b0;
    end else if (clr_i) begin
      v1_q <= 1'b0;
      v2_q <= 1'b0;
      v3_q <= 1'b0;
    end else if (en_i) begin
      v1_q <= valid_i;
      v2_q <= v1_q;
      v3_q <= v2_q;
    end
  end

  always @(posedge clk_i) begin
    if (en_i) begin
      xl_q   <= x << left;
      neg1_q <= neg;
      x2_q   <= xl_q;
      neg2_q <= neg1_q;
      prod_q <= $signed(xl_q) * $signed(mult2);
      sat_q  <= (xl_q == Int32Min) && (mult2 == Int32Min);
      out_q  <= requant_i ? clamped : x2_q;
      lut3_q <= requant_i && lut_en_i;
    end
  end

  // The low bits are shifted out; the sign bit of the quotient is implied.
  wire unused_bits = ^{right6[5], biased[30:0], quot[32]};

  assign valid_o = v3_q;
  assign out_o   = lut3_q ? {{24{lut_entry[7]}}, lut_entry} : out_q;
endmodule

`default_nettype wire
