// tsr_softmul_tb: every input of each multiplier shape that fpga/tsr_softmul_map.v maps,
// gate-level (build/softmul/softmul_gates.v, from fpga/tsr_softmul_check.ys), against `*`.
`timescale 1ns/1ps
`default_nettype none

// One shape: operands a (AW bits) and b (BW bits), signed or not (SG), product YW bits.
`define SHAPE(NAME, SG, AW, BW, YW) \
  reg  SG [AW-1:0] a_``NAME; \
  reg  SG [BW-1:0] b_``NAME; \
  wire [YW-1:0] y_``NAME; \
  wire [YW-1:0] e_``NAME = a_``NAME * b_``NAME; \
  softmul_``NAME u_``NAME (.a(a_``NAME), .b(b_``NAME), .y(y_``NAME));

`define SWEEP(NAME, AW, BW) \
  for (i = 0; i < (1 << AW); i = i + 1) begin \
    for (j = 0; j < (1 << BW); j = j + 1) begin \
      a_``NAME = i; b_``NAME = j; #1; \
      checked = checked + 1; \
      if (y_``NAME !== e_``NAME) begin \
        if (errors < 10) $display(`"FAIL NAME: %0d * %0d = %h, expected %h`", a_``NAME, b_``NAME, y_``NAME, e_``NAME); \
        errors = errors + 1; \
      end \
    end \
  end

module tsr_softmul_tb;
  integer errors = 0, checked = 0;
  integer i, j;
  `SHAPE(s8x8_16, signed, 8, 8, 16)
  `SHAPE(s8x8_20, signed, 8, 8, 20)
  `SHAPE(u8x8_16, , 8, 8, 16)
  `SHAPE(s10x5_15, signed, 10, 5, 15)
  `SHAPE(s5x10_15, signed, 5, 10, 15)
  `SHAPE(u5x10_15, , 5, 10, 15)
  `SHAPE(s8x8_10, signed, 8, 8, 10)
  `SHAPE(s3x2_3, signed, 3, 2, 3)
  initial begin
    `SWEEP(s8x8_16, 8, 8)
    `SWEEP(s8x8_20, 8, 8)
    `SWEEP(u8x8_16, 8, 8)
    `SWEEP(s10x5_15, 10, 5)
    `SWEEP(s5x10_15, 5, 10)
    `SWEEP(u5x10_15, 5, 10)
    `SWEEP(s8x8_10, 8, 8)
    `SWEEP(s3x2_3, 3, 2)
    if (errors != 0) begin
      $display("FAIL tsr_softmul_tb: %0d of %0d products wrong", errors, checked);
      $fatal(1);
    end
    $display("PASS tsr_softmul_tb: %0d products of 8 shapes, every input", checked);
    $finish;
  end
endmodule

`undef SHAPE
`undef SWEEP
`default_nettype wire
