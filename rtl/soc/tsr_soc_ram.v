// tsr_soc_ram: the SoC's on-chip instruction and data RAM: one port, 32-bit words, byte write enables.
`default_nettype none

// One access per cycle: with en_i, the word at addr_i is read (rdata_o holds it
// from the next cycle on, until the next access) and the bytes selected by
// we_i are written (read-before-write: rdata_o shows the old word). No reset
// on the array, as block RAM requires; the bench fills it before the core
// leaves reset (tsr_soc's load port).
module tsr_soc_ram #(
  parameter integer Words = 16384,
  localparam integer AddrWidth = $clog2(Words)
) (
  input  wire                 clk_i,
  input  wire                 en_i,
  input  wire [3:0]           we_i,
  input  wire [AddrWidth-1:0] addr_i,
  input  wire [31:0]          wdata_i,
  output wire [31:0]          rdata_o
);
  reg [31:0] mem_q [0:Words-1];
  reg [31:0] rdata_q;
  integer i;

  always @(posedge clk_i) begin
    if (en_i) begin
      rdata_q <= mem_q[addr_i];
      for (i = 0; i < 4; i = i + 1) begin
        if (we_i[i]) begin
          mem_q[addr_i][8*i +: 8] <= wdata_i[8*i +: 8];
        end
      end
    end
  end

  assign rdata_o = rdata_q;
endmodule

`default_nettype wire
