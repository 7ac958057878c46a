// tsr_axi_rd_arb: shares the AXI4 read channels (AR, R) of the one master port between two readers.
`default_nettype none

// Reader 0 is the DMA read engine, reader 1 the command ring fetcher. The
// transactions carry no ID, so R beats return in AR order; to route them
// without tracking every burst, one reader owns the port until all of its
// bursts are answered (the last R beat of each). While the port has nothing
// outstanding, the next AR goes to reader 0 if it asks, else to reader 1:
// the DMA never waits behind a fetch it did not see coming, and the fetcher
// (whose bursts are short and only issued when the command queue has room)
// takes the gaps, except when reader 1 is urgent (s1_urgent_i: the command
// queue is running low): then reader 0's next AR waits until the port has
// drained and reader 1 has had its turn, so the queue refills while the DMA
// streams a long load. Once an AR is shown to the memory it stays, with its
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
  input  wire                    s1_urgent_i,
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

  wire free  = (out_q == {OutWidth{1'b0}}) && !hold_q;
  // Reader 0 shows no new AR while reader 1 is urgent (one already shown stays).
  wire wait0 = s1_urgent_i && s1_arvalid && !hold_q;
  wire sel   = free ? ((!s0_arvalid || wait0) && s1_arvalid) : owner_q;

  assign m_arvalid  = sel ? s1_arvalid : (s0_arvalid && !wait0);
  assign m_araddr   = sel ? s1_araddr  : s0_araddr;
  assign m_arlen    = sel ? s1_arlen   : s0_arlen;
  assign m_arsize   = sel ? s1_arsize  : s0_arsize;
  assign m_arburst  = sel ? s1_arburst : s0_arburst;
  assign s0_arready = m_arready && !sel && !wait0;
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
`ifdef FORMAL
  // ---- Formal properties: `make formal` proves them by k-induction (arb). The readers
  // follow AXI (ARVALID and its payload held until ARREADY); the memory answers only
  // bursts it accepted. Proved: the port's AR obeys the same rule (never withdrawn or
  // changed before ARREADY, whichever reader it came from), and every R beat reaches the
  // reader whose burst it belongs to, so neither reader ever sees another's data.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  reg [OutWidth-1:0] f_out0, f_out1;    // bursts of each reader accepted and not answered
  wire f_ar0 = s0_arvalid && s0_arready;
  wire f_ar1 = s1_arvalid && s1_arready;
  wire f_rl  = m_rvalid && m_rready && m_rlast;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_out0 <= {OutWidth{1'b0}};
      f_out1 <= {OutWidth{1'b0}};
    end else begin
      f_out0 <= f_out0 + {{(OutWidth-1){1'b0}}, f_ar0} - {{(OutWidth-1){1'b0}}, f_rl && !owner_q};
      f_out1 <= f_out1 + {{(OutWidth-1){1'b0}}, f_ar1} - {{(OutWidth-1){1'b0}}, f_rl && owner_q};
    end
  end
  always @(*) begin
    if (!rst_ni) assume (!m_rvalid);
    if (m_rvalid) assume (out_q != {OutWidth{1'b0}});
    // Counters do not wrap (the readers have far fewer bursts in flight).
    assume (f_out0 < {1'b0, {(OutWidth-1){1'b1}}} && f_out1 < {1'b0, {(OutWidth-1){1'b1}}});
  end
  // Last cycle's AR of each side, when it was shown and not taken (registered, so that
  // the rules below constrain this cycle's values, not the next one's).
  reg        f_h0, f_h1, f_hm;
  reg [44:0] f_p0, f_p1, f_pm;
  wire [44:0] f_ar0_pl = {s0_araddr, s0_arlen, s0_arsize, s0_arburst};
  wire [44:0] f_ar1_pl = {s1_araddr, s1_arlen, s1_arsize, s1_arburst};
  wire [44:0] f_arm_pl = {m_araddr, m_arlen, m_arsize, m_arburst};
  always @(posedge clk_i) begin
    f_h0 <= rst_ni && s0_arvalid && !s0_arready;
    f_h1 <= rst_ni && s1_arvalid && !s1_arready;
    f_hm <= rst_ni && m_arvalid && !m_arready;
    f_p0 <= f_ar0_pl;
    f_p1 <= f_ar1_pl;
    f_pm <= f_arm_pl;
  end
  always @(*) begin
    if (f_past_valid && rst_ni) begin
      if (f_h0) assume (s0_arvalid && f_ar0_pl == f_p0);
      if (f_h1) assume (s1_arvalid && f_ar1_pl == f_p1);
      if (f_hm) assert (m_arvalid && f_arm_pl == f_pm);
    end
  end
  always @(*) begin
    if (rst_ni) begin
      assert (out_q == f_out0 + f_out1);
      // One reader's bursts at a time, and the owner is that reader.
      assert (f_out0 == {OutWidth{1'b0}} || f_out1 == {OutWidth{1'b0}});
      if (f_out0 != {OutWidth{1'b0}}) assert (!owner_q);
      if (f_out1 != {OutWidth{1'b0}}) assert (owner_q);
      if (hold_q) assert (m_arvalid);
      if (s0_rvalid) assert (f_out0 != {OutWidth{1'b0}});
      if (s1_rvalid) assert (f_out1 != {OutWidth{1'b0}});
      assert (!(s0_arready && s1_arready));
    end
  end
`endif
endmodule

`default_nettype wire
