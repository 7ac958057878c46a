// tsr_axi_rd_arb: shares the AXI4 read channels (AR, R) of the one master port between two readers.
`default_nettype none

// Reader 0 is the DMA read engine, reader 1 the command ring fetcher. The
// transactions carry no ID, so R beats return in AR order: the arbiter keeps
// the reader of every burst in flight, oldest first (ord_q, up to OrdDepth
// bursts), and hands each R beat to the reader of the oldest burst; its last
// beat (RLAST) retires the entry. Both readers' bursts may be in flight at
// once, so switching readers costs no cycle of the port.
//
// The next AR goes to reader 0 (the DMA) if it asks, else to reader 1: the
// fetcher, whose bursts are short and issued only when the command queue has
// room for them, takes the DMA's gaps, which come at the latest when the DMA
// has its most bursts in flight. (Priority for the fetcher while the queue
// runs low changed no cycle count of 16^3, 64^3, 256^3, batch 1 and batch 8
// at N = 8 and 16 once both readers' bursts could be in flight together, so
// there is no such rule.) Once an AR is shown to the memory it stays, with
// its address, until ARREADY (the choice is held with it). With OrdDepth
// bursts in flight no new AR is shown. A reader that is not granted sees
// ARREADY low and keeps its ARVALID and address, as AXI allows; a reader's R
// channel sees RVALID only for its own bursts.
module tsr_axi_rd_arb #(
  parameter integer OrdDepth = 8,         // bursts in flight on the port at most (both readers)
  localparam integer CntW    = $clog2(OrdDepth + 1)
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
  reg                hold_q;             // an AR was shown and not yet taken
  reg                hsel_q;             // the reader of that AR (1: reader 1)
  reg [OrdDepth-1:0] ord_q, ord_d;       // reader of each burst in flight, oldest at bit 0
  reg [CntW-1:0]     cnt_q, cnt_d;       // bursts in flight

  wire show  = hold_q || (cnt_q != OrdDepth[CntW-1:0]);   // room to record a new burst
  wire pick1 = s1_arvalid && !s0_arvalid;
  wire sel   = hold_q ? hsel_q : pick1;
  wire head  = ord_q[0];                 // the reader the R beats belong to

  assign m_arvalid  = show && (sel ? s1_arvalid : s0_arvalid);
  assign m_araddr   = sel ? s1_araddr  : s0_araddr;
  assign m_arlen    = sel ? s1_arlen   : s0_arlen;
  assign m_arsize   = sel ? s1_arsize  : s0_arsize;
  assign m_arburst  = sel ? s1_arburst : s0_arburst;
  assign s0_arready = m_arready && show && !sel;
  assign s1_arready = m_arready && show && sel;
  assign s0_rvalid  = m_rvalid && !head;
  assign s1_rvalid  = m_rvalid && head;
  assign m_rready   = head ? s1_rready : s0_rready;

  wire ar_hs = m_arvalid && m_arready;
  wire r_end = m_rvalid && m_rready && m_rlast;
  always @(*) begin
    ord_d = ord_q;
    cnt_d = cnt_q;
    if (r_end) begin
      ord_d = ord_q >> 1;
      cnt_d = cnt_q - {{(CntW-1){1'b0}}, 1'b1};
    end
    if (ar_hs) begin
      // The entries past the count are 0, so the new one is set by an OR.
      ord_d = ord_d | ({{(OrdDepth-1){1'b0}}, sel} << cnt_d);
      cnt_d = cnt_d + {{(CntW-1){1'b0}}, 1'b1};
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_q <= 1'b0;
      hsel_q <= 1'b0;
      ord_q  <= {OrdDepth{1'b0}};
      cnt_q  <= {CntW{1'b0}};
    end else begin
      hold_q <= m_arvalid && !m_arready;
      hsel_q <= sel;
      ord_q  <= ord_d;
      cnt_q  <= cnt_d;
    end
  end

`ifdef FORMAL
  // ---- Formal properties: `make formal` proves them by k-induction (arb). The readers
  // follow AXI (ARVALID and its payload held until ARREADY); the memory answers only
  // bursts it accepted, in order. Proved: the port's AR obeys the same rule (never
  // withdrawn or changed before ARREADY, whichever reader it came from), and every R beat
  // reaches the reader whose burst it belongs to, so neither reader sees another's data.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  reg [CntW-1:0] f_out0, f_out1;        // bursts of each reader accepted and not answered
  wire f_ar0 = s0_arvalid && s0_arready;
  wire f_ar1 = s1_arvalid && s1_arready;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_out0 <= {CntW{1'b0}};
      f_out1 <= {CntW{1'b0}};
    end else begin
      f_out0 <= f_out0 + {{(CntW-1){1'b0}}, f_ar0} - {{(CntW-1){1'b0}}, r_end && !head};
      f_out1 <= f_out1 + {{(CntW-1){1'b0}}, f_ar1} - {{(CntW-1){1'b0}}, r_end && head};
    end
  end
  always @(*) begin
    if (!rst_ni) assume (!m_rvalid);
    if (m_rvalid) assume (cnt_q != {CntW{1'b0}});
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
  // Bursts in flight of reader 1 by the record: its set bits below cnt_q.
  reg [CntW-1:0] f_ones;
  integer f_i;
  always @(*) begin
    f_ones = {CntW{1'b0}};
    for (f_i = 0; f_i < OrdDepth; f_i = f_i + 1) f_ones = f_ones + {{(CntW-1){1'b0}}, ord_q[f_i]};
  end
  always @(*) begin
    if (f_past_valid && rst_ni) begin
      if (f_h0) assume (s0_arvalid && f_ar0_pl == f_p0);
      if (f_h1) assume (s1_arvalid && f_ar1_pl == f_p1);
      if (f_hm) assert (m_arvalid && f_arm_pl == f_pm);
    end
    if (rst_ni) begin
      assert (cnt_q <= OrdDepth[CntW-1:0]);
      assert (cnt_q == f_out0 + f_out1);
      // The record holds reader 1's bursts exactly, and nothing past its end.
      assert (f_ones == f_out1);
      for (f_i = 0; f_i < OrdDepth; f_i = f_i + 1) if (f_i >= cnt_q) assert (!ord_q[f_i]);
      if (hold_q) assert (m_arvalid && cnt_q != OrdDepth[CntW-1:0]);
      if (s0_rvalid) assert (f_out0 != {CntW{1'b0}});
      if (s1_rvalid) assert (f_out1 != {CntW{1'b0}});
      assert (!(s0_arready && s1_arready));
      // A beat leaves the port exactly when its reader takes it.
      assert ((m_rvalid && m_rready) == ((s0_rvalid && s0_rready) || (s1_rvalid && s1_rready)));
    end
  end
`endif
endmodule

`default_nettype wire
