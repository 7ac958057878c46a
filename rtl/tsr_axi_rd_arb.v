// tsr_axi_rd_arb: shares the AXI4 read channels (AR, R) of the one master port between two readers.
`default_nettype none

// Reader 0 is the DMA read engine, reader 1 the command ring fetcher. The
// transactions carry no ID, so R beats return in AR order; to route them
// without tracking every burst, one reader owns the port until all of its
// bursts are answered (the last R beat of each). While the port has nothing
// outstanding, the next AR goes to reader 0 if it asks, else to reader 1:
// the DMA never waits behind a fetch it did not see coming, and the fetcher
// (whose bursts are short and only issued when the command queue has room)
// takes the gaps. Once an AR is shown to the memory it stays, with its
// address, until ARREADY (the owner cannot change under it). A reader that
// is not granted sees ARREADY low and keeps its ARVALID and address, as AXI
// allows. The other reader's R channel sees RVALID low.
module tsr_axi_rd_arb #(
  parameter integer OutWidth = 8          // counter of bursts in flight (> log2 of either reader's)
) (
  input  wire                    clk_i,
  input  wire                    rst_ni,
  // reader 0 (DMA)
  input  wire                    s0_arvalid,
  output wire                    s0_arready,
  input  wire [31:0]             s0_araddr,
  input  wire [7:0]              s0_arlen,
  input  wire [2:0]              s0_arsize,
  input  wire [1:0]              s0_arburst,
  output wire                    s0_rvalid,
  input  wire                    s0_rready,
  // reader 1 (command fetcher)
  input  wire                    s1_arvalid,
  output wire                    s1_arready,
  input  wire [31:0]             s1_araddr,
  input  wire [7:0]              s1_arlen,
  input  wire [2:0]              s1_arsize,
  input  wire [1:0]              s1_arburst,
  output wire                    s1_rvalid,
  input  wire                    s1_rready,
  // the port (RDATA, RRESP and RLAST go to both readers unchanged)
  output wire                    m_arvalid,
  input  wire                    m_arready,
  output wire [31:0]             m_araddr,
  output wire [7:0]              m_arlen,
  output wire [2:0]              m_arsize,
  output wire [1:0]              m_arburst,
  input  wire                    m_rvalid,
  output wire                    m_rready,
  input  wire                    m_rlast
);
  reg                owner_q;            // 1: reader 1 owns the port
  reg                hold_q;             // an AR was shown and not yet taken
  reg [OutWidth-1:0] out_q, out_d;       // bursts accepted, last beat not yet seen

  wire free = (out_q == {OutWidth{1'b0}}) && !hold_q;
  wire sel  = free ? (!s0_arvalid && s1_arvalid) : owner_q;

  assign m_arvalid  = sel ? s1_arvalid : s0_arvalid;
  assign m_araddr   = sel ? s1_araddr  : s0_araddr;
  assign m_arlen    = sel ? s1_arlen   : s0_arlen;
  assign m_arsize   = sel ? s1_arsize  : s0_arsize;
  assign m_arburst  = sel ? s1_arburst : s0_arburst;
  assign s0_arready = m_arready && !sel;
  assign s1_arready = m_arready && sel;
  // R beats belong to the owner (only its bursts are in flight).
  assign s0_rvalid  = m_rvalid && !owner_q;
  assign s1_rvalid  = m_rvalid && owner_q;
  assign m_rready   = owner_q ? s1_rready : s0_rready;

  always @(*) begin
    out_d = out_q + {{(OutWidth-1){1'b0}}, m_arvalid && m_arready} -
            {{(OutWidth-1){1'b0}}, m_rvalid && m_rready && m_rlast};
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      owner_q <= 1'b0;
      hold_q  <= 1'b0;
      out_q   <= {OutWidth{1'b0}};
    end else begin
      owner_q <= sel;
      hold_q  <= m_arvalid && !m_arready;
      out_q   <= out_d;
    end
  end
endmodule

`default_nettype wire
