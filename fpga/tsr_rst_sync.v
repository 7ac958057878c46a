// tsr_rst_sync: reset synchronizer: asserts asynchronously, releases on the clock after Stages edges.
`default_nettype none

// rst_ni may come from a button or a PLL lock, asynchronous to clk_i. The
// output goes low at once (no clock needed, so a reset reaches the design
// even while the PLL is unlocked) and goes high only after Stages rising
// edges of clk_i with rst_ni high, so every flip-flop of the design leaves
// reset in the same cycle and no release can fall inside a setup window.
module tsr_rst_sync #(
  parameter integer Stages = 2   // >= 2: flip-flops in the release chain
) (
  input  wire clk_i,
  input  wire rst_ni,   // asynchronous, active low
  output wire rst_no    // synchronous release, active low
);
  reg [Stages-1:0] sync_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sync_q <= {Stages{1'b0}};
    end else begin
      sync_q <= {sync_q[Stages-2:0], 1'b1};
    end
  end

  assign rst_no = sync_q[Stages-1];
endmodule
`default_nettype wire
