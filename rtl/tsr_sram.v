// tsr_sram: simple dual-port RAM (one write, one synchronous read) that infers block RAM.
`default_nettype none

// Every Tessera buffer (scratchpad, accumulator, command queue) is one of
// these, so an FPGA or ASIC port swaps this one file for a vendor macro.
// Read-during-write to the same address returns the OLD contents; callers
// that need the new value forward it themselves. rdata_o holds its value in
// cycles without re_i. The array has no reset, as block RAM requires.
module tsr_sram #(
  parameter integer Width = 32,
  parameter integer Depth = 256,
  localparam integer AddrWidth = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  wire                 clk_i,
  input  wire                 we_i,
  input  wire [AddrWidth-1:0] waddr_i,
  input  wire [Width-1:0]     wdata_i,
  input  wire                 re_i,
  input  wire [AddrWidth-1:0] raddr_i,
  output wire [Width-1:0]     rdata_o
);
  reg [Width-1:0] mem_q [0:Depth-1];
  reg [Width-1:0] rdata_q;

  always @(posedge clk_i) begin
    if (we_i) begin
      mem_q[waddr_i] <= wdata_i;
    end
    if (re_i) begin
      rdata_q <= mem_q[raddr_i];
    end
  end

  assign rdata_o = rdata_q;
endmodule

`default_nettype wire
