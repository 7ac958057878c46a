// tsr_lut: one copy of the 256-entry int8 activation table, held as a small RAM.
`default_nettype none

// The table is 256/N rows of N entries: LUT_LOAD writes one scratchpad row per
// cycle (row r holds entries N*r .. N*r+N-1), and a read selects row idx/N and
// then byte idx mod N. Every copy (the SFU's and one per store lane) sees the
// same writes, so the copies stay identical.
//
// Reset and soft reset empty the table: until the next LUT_LOAD writes it,
// every entry reads 0 (docs/sfu.md). A flag does this, since a RAM cannot be
// cleared in one cycle; it also hides the RAM's power-up contents.
//
// SyncRead = 1: idx_i is sampled on a clock edge with re_i high and entry_o
// shows that entry after the edge (a block-RAM read). SyncRead = 0: entry_o
// follows idx_i combinationally (a distributed-RAM read).
module tsr_lut #(
  parameter integer N        = 8,   // entries per row: the array dimension, a power of two
  parameter integer SyncRead = 1,
  localparam integer Rows = 256 / N,
  localparam integer Aw   = $clog2(Rows),
  localparam integer Sw   = $clog2(N)
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  input  wire          clr_i,
  input  wire          we_i,
  input  wire [Aw-1:0] waddr_i,
  input  wire [8*N-1:0] wdata_i,
  input  wire          re_i,
  input  wire [7:0]    idx_i,
  output wire [7:0]    entry_o
);
  reg [8*N-1:0] mem [0:Rows-1];
  reg           loaded_q;

  always @(posedge clk_i) begin
    if (we_i) begin
      mem[waddr_i] <= wdata_i;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      loaded_q <= 1'b0;
    end else if (clr_i) begin
      loaded_q <= 1'b0;
    end else if (we_i) begin
      loaded_q <= 1'b1;
    end
  end

  wire [8*N-1:0] row;
  wire [Sw-1:0]  sel;
  generate
    if (SyncRead != 0) begin : gen_sync
      reg [8*N-1:0] row_q;
      reg [Sw-1:0]  sel_q;
      always @(posedge clk_i) begin
        if (re_i) begin
          row_q <= mem[idx_i[7:Sw]];
          sel_q <= idx_i[Sw-1:0];
        end
      end
      assign row = row_q;
      assign sel = sel_q;
    end else begin : gen_async
      assign row = mem[idx_i[7:Sw]];
      assign sel = idx_i[Sw-1:0];
      wire unused_re = re_i;
    end
  endgenerate

  assign entry_o = loaded_q ? row[8*sel +: 8] : 8'h0;
endmodule

`default_nettype wire
