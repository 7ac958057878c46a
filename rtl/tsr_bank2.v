// tsr_bank2: a RAM split into two banks (lower and upper half of the rows), each with its own read port.
`default_nettype none

// Rows below 2^(Aw-1) live in bank 0, the others in bank 1; each bank is one
// tsr_sram, so it still maps to block RAM. Readers read ports share the two
// banks: in a cycle, each bank serves the lowest-numbered reader that
// addresses it. The controller never lets two readers address the same bank
// in one cycle, so nobody ever waits; that is what gives two users of the
// memory two ports without doubling it. Each reader gets the data of the bank
// it read last (like tsr_sram, rdata holds until that reader reads again).
// One write port, routed to the bank of waddr_i.
module tsr_bank2 #(
  parameter integer Width   = 32,
  parameter integer Depth   = 256,
  parameter integer Readers = 2,
  localparam integer Aw = $clog2(Depth)
) (
  input  wire                      clk_i,
  input  wire                      we_i,
  input  wire [Aw-1:0]             waddr_i,
  input  wire [Width-1:0]          wdata_i,
  input  wire [Readers-1:0]        re_i,
  input  wire [Readers*Aw-1:0]     raddr_i,
  output wire [Readers*Width-1:0]  rdata_o
);
  localparam integer Half = 1 << (Aw - 1);

  wire [Width-1:0] bank_rdata [0:1];
  reg  [1:0]       bank_re;
  reg  [Aw-2:0]    bank_raddr [0:1];
  reg  [Readers-1:0] sel_q;          // bank each reader read last
  integer r, bk;
  always @(*) begin
    for (bk = 0; bk < 2; bk = bk + 1) begin
      bank_re[bk]    = 1'b0;
      bank_raddr[bk] = {(Aw-1){1'b0}};
      for (r = Readers - 1; r >= 0; r = r - 1) begin
        if (re_i[r] && (raddr_i[Aw*r + Aw - 1] == bk[0])) begin
          bank_re[bk]    = 1'b1;
          bank_raddr[bk] = raddr_i[Aw*r +: Aw-1];
        end
      end
    end
  end

  genvar g;
  generate
    for (g = 0; g < 2; g = g + 1) begin : gen_bank
      localparam [0:0] Hi = (g == 1) ? 1'b1 : 1'b0;
      tsr_sram #(
        .Width (Width),
        .Depth (g == 0 ? Half : Depth - Half)
      ) u_ram (
        .clk_i   (clk_i),
        .we_i    (we_i && (waddr_i[Aw-1] == Hi)),
        .waddr_i (waddr_i[Aw-2:0]),
        .wdata_i (wdata_i),
        .re_i    (bank_re[g]),
        .raddr_i (bank_raddr[g]),
        .rdata_o (bank_rdata[g])
      );
    end
    for (g = 0; g < Readers; g = g + 1) begin : gen_reader
      always @(posedge clk_i) begin
        if (re_i[g]) begin
          sel_q[g] <= raddr_i[Aw*g + Aw - 1];
        end
      end
      assign rdata_o[Width*g +: Width] = bank_rdata[sel_q[g]];
    end
  endgenerate
endmodule

`default_nettype wire
