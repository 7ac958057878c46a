// tsr_delay: a Depth-cycle delay line of Width-bit values, one register per stage, no reset.
`default_nettype none

// Each stage is its own register in its own generate scope rather than a
// slice of one wide shift register: the Verilated model then moves one word
// per stage per cycle instead of shifting a multi-word vector, and synthesis
// sees the same flip-flops (or a shift-register primitive).
module tsr_delay #(
  parameter integer Width = 8,
  parameter integer Depth = 1   // >= 1
) (
  input  wire             clk_i,
  input  wire [Width-1:0] d_i,
  output wire [Width-1:0] q_o
);
  genvar s;
  generate
    for (s = 0; s < Depth; s = s + 1) begin : gen_stage
      reg [Width-1:0] q;
      if (s == 0) begin : gen_first
        always @(posedge clk_i) begin
          q <= d_i;
        end
      end else begin : gen_next
        always @(posedge clk_i) begin
          q <= gen_stage[s-1].q;
        end
      end
    end
  endgenerate

  assign q_o = gen_stage[Depth-1].q;
endmodule

`default_nettype wire
