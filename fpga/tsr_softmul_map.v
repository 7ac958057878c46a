// tsr_softmul_map: Yosys techmap for the multipliers left out of the DSP blocks (FPGA flows).
//
// tools/synth.py applies it to each $mul the DSP budget did not take, before
// alumacc. A multiplier whose narrower operand has at most MaxShiftBits bits
// becomes that many shifted copies of the other operand, summed by a chain of
// $alu cells, which the FPGA flows map to carry chains (CCU2C, SB_CARRY,
// CARRY4). Without it, alumacc merges the product and the add that follows it
// (a PE's partial sum) into one $macc, and maccmap builds that from full
// adders in LUTs: an ECP5 PE with its 8 x 8 multiplier in LUTs took about
// 530 LUT4s that way, and takes about 80 LUT4s and 80 CCU2C this way.
// Wider multipliers fall back to Yosys' own mapping (_TECHMAP_FAIL_).
//
// For B the narrower operand, sign- or zero-extended to Y_WIDTH bits:
//   A * B = sum over k < B_WIDTH - 1 of B[k] * (A << k)
//           + B[B_WIDTH-1] * (A << (B_WIDTH-1)) * (B_SIGNED ? -1 : 1)   (mod 2^Y_WIDTH)
// because the sign bits above B[B_WIDTH-1] add up to -2^(B_WIDTH-1) modulo
// 2^Y_WIDTH. `make formal` proves this equal to $mul for several shapes
// (tools/formal.py --softmul).
(* techmap_celltype = "$mul" *)
module _tsr_softmul (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  localparam integer MaxShiftBits = 8;

  input  wire [A_WIDTH-1:0] A;
  input  wire [B_WIDTH-1:0] B;
  output wire [Y_WIDTH-1:0] Y;

  // The operand that is shifted (wide) and the one whose bits select (narrow).
  localparam Swap = B_WIDTH > A_WIDTH;
  localparam integer WW = Swap ? B_WIDTH : A_WIDTH;
  localparam integer NW = Swap ? A_WIDTH : B_WIDTH;
  localparam WS = Swap ? B_SIGNED : A_SIGNED;
  localparam NS = Swap ? A_SIGNED : B_SIGNED;

  generate
    if (NW > MaxShiftBits || NW < 2 || Y_WIDTH < 2) begin : gen_fail
      wire _TECHMAP_FAIL_ = 1'b1;
    end else begin : gen_map
      wire [WW-1:0] wide = Swap ? B : A;
      wire [NW-1:0] narrow = Swap ? A : B;
      // The wide operand extended to Y_WIDTH bits (the narrow one's extension is the sign term).
      wire [Y_WIDTH-1:0] wext;
      if (Y_WIDTH > WW) begin : gen_ext
        assign wext = {{(Y_WIDTH - WW){WS ? wide[WW-1] : 1'b0}}, wide};
      end else begin : gen_cut
        assign wext = wide[Y_WIDTH-1:0];
      end

      // sum[k + 1] = sum[k] +/- (narrow[k] ? wext << k : 0). Bits below k
      // pass through: only bits k and up are added.
      wire [Y_WIDTH*(NW+1)-1:0] sum;   // sum[k] is bits Y_WIDTH*k +: Y_WIDTH (sum[0] unused)
      assign sum[Y_WIDTH +: Y_WIDTH] = narrow[0] ? wext : {Y_WIDTH{1'b0}};
      assign sum[Y_WIDTH-1:0] = {Y_WIDTH{1'b0}};
      genvar k;
      for (k = 1; k < NW; k = k + 1) begin : gen_pp
        localparam integer AW = (Y_WIDTH > k) ? Y_WIDTH - k : 1;
        localparam Sub = NS && (k == NW - 1);
        if (Y_WIDTH > k) begin : gen_add
          wire [AW-1:0] pp = narrow[k] ? wext[AW-1:0] : {AW{1'b0}};
          wire [AW-1:0] hi, x_unused, co_unused;
          \$alu #(
            .A_SIGNED (0),
            .B_SIGNED (0),
            .A_WIDTH  (AW),
            .B_WIDTH  (AW),
            .Y_WIDTH  (AW)
          ) u_add (
            .A  (sum[Y_WIDTH*k+k +: AW]),
            .B  (pp),
            .CI (Sub ? 1'b1 : 1'b0),
            .BI (Sub ? 1'b1 : 1'b0),
            .X  (x_unused),
            .Y  (hi),
            .CO (co_unused)
          );
          assign sum[Y_WIDTH*(k+1) +: Y_WIDTH] = {hi, sum[Y_WIDTH*k +: k]};
        end else begin : gen_none   // the shifted copy is entirely above Y
          assign sum[Y_WIDTH*(k+1) +: Y_WIDTH] = sum[Y_WIDTH*k +: Y_WIDTH];
        end
      end
      assign Y = sum[Y_WIDTH*NW +: Y_WIDTH];
    end
  endgenerate
endmodule
