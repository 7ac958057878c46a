// tsr_softmul_tb: every input of each multiplier shape that fpga/tsr_softmul_map.v maps,
// gate-level (build/softmul/softmul_gates.v, from fpga/tsr_softmul_check.ys), against `*`.
`timescale 1ns/1ps
`default_nettype none

module tsr_softmul_tb;
  integer errors = 0, checked = 0;
  reg  signed [7:0] a_s8x8_16;
  reg  signed [7:0] b_s8x8_16;
  wire [15:0] y_s8x8_16;
  wire [15:0] e_s8x8_16 = a_s8x8_16 * b_s8x8_16;
  softmul_s8x8_16 u_s8x8_16 (.a(a_s8x8_16), .b(b_s8x8_16), .y(y_s8x8_16));
  reg  signed [7:0] a_s8x8_20;
  reg  signed [7:0] b_s8x8_20;
  wire [19:0] y_s8x8_20;
  wire [19:0] e_s8x8_20 = a_s8x8_20 * b_s8x8_20;
  softmul_s8x8_20 u_s8x8_20 (.a(a_s8x8_20), .b(b_s8x8_20), .y(y_s8x8_20));
  reg  [7:0] a_u8x8_16;
  reg  [7:0] b_u8x8_16;
  wire [15:0] y_u8x8_16;
  wire [15:0] e_u8x8_16 = a_u8x8_16 * b_u8x8_16;
  softmul_u8x8_16 u_u8x8_16 (.a(a_u8x8_16), .b(b_u8x8_16), .y(y_u8x8_16));
  reg  signed [9:0] a_s10x5_15;
  reg  signed [4:0] b_s10x5_15;
  wire [14:0] y_s10x5_15;
  wire [14:0] e_s10x5_15 = a_s10x5_15 * b_s10x5_15;
  softmul_s10x5_15 u_s10x5_15 (.a(a_s10x5_15), .b(b_s10x5_15), .y(y_s10x5_15));
  reg  signed [4:0] a_s5x10_15;
  reg  signed [9:0] b_s5x10_15;
  wire [14:0] y_s5x10_15;
  wire [14:0] e_s5x10_15 = a_s5x10_15 * b_s5x10_15;
  softmul_s5x10_15 u_s5x10_15 (.a(a_s5x10_15), .b(b_s5x10_15), .y(y_s5x10_15));
  reg  [4:0] a_u5x10_15;
  reg  [9:0] b_u5x10_15;
  wire [14:0] y_u5x10_15;
  wire [14:0] e_u5x10_15 = a_u5x10_15 * b_u5x10_15;
  softmul_u5x10_15 u_u5x10_15 (.a(a_u5x10_15), .b(b_u5x10_15), .y(y_u5x10_15));
  reg  signed [7:0] a_s8x8_10;
  reg  signed [7:0] b_s8x8_10;
  wire [9:0] y_s8x8_10;
  wire [9:0] e_s8x8_10 = a_s8x8_10 * b_s8x8_10;
  softmul_s8x8_10 u_s8x8_10 (.a(a_s8x8_10), .b(b_s8x8_10), .y(y_s8x8_10));
  reg  signed [2:0] a_s3x2_3;
  reg  signed [1:0] b_s3x2_3;
  wire [2:0] y_s3x2_3;
  wire [2:0] e_s3x2_3 = a_s3x2_3 * b_s3x2_3;
  softmul_s3x2_3 u_s3x2_3 (.a(a_s3x2_3), .b(b_s3x2_3), .y(y_s3x2_3));
  integer i, j;
  initial begin
    for (i = 0; i < 256; i = i + 1) begin
      for (j = 0; j < 256; j = j + 1) begin
        a_s8x8_16 = i; b_s8x8_16 = j; #1;
        checked = checked + 1;
        if (y_s8x8_16 !== e_s8x8_16) begin
          if (errors < 10) $display("FAIL s8x8_16: %0d * %0d = %h, expected %h", a_s8x8_16, b_s8x8_16, y_s8x8_16, e_s8x8_16);
          errors = errors + 1;
        end
      end
    end
    for (i = 0; i < 256; i = i + 1) begin
      for (j = 0; j < 256; j = j + 1) begin
        a_s8x8_20 = i; b_s8x8_20 = j; #1;
        checked = checked + 1;
        if (y_s8x8_20 !== e_s8x8_20) begin
          if (errors < 10) $display("FAIL s8x8_20: %0d * %0d = %h, expected %h", a_s8x8_20, b_s8x8_20, y_s8x8_20, e_s8x8_20);
          errors = errors + 1;
        end
      end
    end
    for (i = 0; i < 256; i = i + 1) begin
      for (j = 0; j < 256; j = j + 1) begin
        a_u8x8_16 = i; b_u8x8_16 = j; #1;
        checked = checked + 1;
        if (y_u8x8_16 !== e_u8x8_16) begin
          if (errors < 10) $display("FAIL u8x8_16: %0d * %0d = %h, expected %h", a_u8x8_16, b_u8x8_16, y_u8x8_16, e_u8x8_16);
          errors = errors + 1;
        end
      end
    end
    for (i = 0; i < 1024; i = i + 1) begin
      for (j = 0; j < 32; j = j + 1) begin
        a_s10x5_15 = i; b_s10x5_15 = j; #1;
        checked = checked + 1;
        if (y_s10x5_15 !== e_s10x5_15) begin
          if (errors < 10) $display("FAIL s10x5_15: %0d * %0d = %h, expected %h", a_s10x5_15, b_s10x5_15, y_s10x5_15, e_s10x5_15);
          errors = errors + 1;
        end
      end
    end
    for (i = 0; i < 32; i = i + 1) begin
      for (j = 0; j < 1024; j = j + 1) begin
        a_s5x10_15 = i; b_s5x10_15 = j; #1;
        checked = checked + 1;
        if (y_s5x10_15 !== e_s5x10_15) begin
          if (errors < 10) $display("FAIL s5x10_15: %0d * %0d = %h, expected %h", a_s5x10_15, b_s5x10_15, y_s5x10_15, e_s5x10_15);
          errors = errors + 1;
        end
      end
    end
    for (i = 0; i < 32; i = i + 1) begin
      for (j = 0; j < 1024; j = j + 1) begin
        a_u5x10_15 = i; b_u5x10_15 = j; #1;
        checked = checked + 1;
        if (y_u5x10_15 !== e_u5x10_15) begin
          if (errors < 10) $display("FAIL u5x10_15: %0d * %0d = %h, expected %h", a_u5x10_15, b_u5x10_15, y_u5x10_15, e_u5x10_15);
          errors = errors + 1;
        end
      end
    end
    for (i = 0; i < 256; i = i + 1) begin
      for (j = 0; j < 256; j = j + 1) begin
        a_s8x8_10 = i; b_s8x8_10 = j; #1;
        checked = checked + 1;
        if (y_s8x8_10 !== e_s8x8_10) begin
          if (errors < 10) $display("FAIL s8x8_10: %0d * %0d = %h, expected %h", a_s8x8_10, b_s8x8_10, y_s8x8_10, e_s8x8_10);
          errors = errors + 1;
        end
      end
    end
    for (i = 0; i < 8; i = i + 1) begin
      for (j = 0; j < 4; j = j + 1) begin
        a_s3x2_3 = i; b_s3x2_3 = j; #1;
        checked = checked + 1;
        if (y_s3x2_3 !== e_s3x2_3) begin
          if (errors < 10) $display("FAIL s3x2_3: %0d * %0d = %h, expected %h", a_s3x2_3, b_s3x2_3, y_s3x2_3, e_s3x2_3);
          errors = errors + 1;
        end
      end
    end
    if (errors != 0) begin
      $display("FAIL tsr_softmul_tb: %0d of %0d products wrong", errors, checked);
      $fatal(1);
    end
    $display("PASS tsr_softmul_tb: %0d products of 8 shapes, every input", checked);
    $finish;
  end
endmodule

`default_nettype wire
