// tsr_soc_axi_arb: two masters on one AXI4 memory port: tsr_top's DMA (bursts) and the core (single words).
`default_nettype none

// Theory of operation
//   Master 0 is tsr_top's AXI4 master (INCR bursts of the bus width, several
//   outstanding per direction, no IDs). Master 1 is the core's AXI4-Lite window
//   (picorv32_axi_adapter: one 32-bit access at a time, wstrb for bytes); its
//   addresses are already device addresses. Each access of master 1 becomes a
//   one-beat AXI4 burst of the bus width: the address aligned down to the bus
//   word, the write data copied into every 32-bit lane with the strobes
//   shifted to the addressed lane, and the read data taken from that lane.
//
//   AR and AW each go through one register slice (a burst waits there until
//   the memory takes it), so what the memory sees is stable by construction
//   whatever the masters do. The slice takes master 1 first when both ask:
//   master 1 has at most one access outstanding and waits for its answer, so
//   it cannot starve master 0. When a burst enters a slice its owner is pushed
//   on a queue (tsr_soc_srcq): R beats go to the owner at the head of the read
//   queue, W beats are taken from the owner at the head of the W queue (the
//   memory wants W in AW order), and B goes to the head of the B queue. The
//   memory answers every direction in order (no IDs), which is what makes the
//   queues right. A slice stops taking bursts while its queues are full.
//
//   Valid/ready contract on every channel: a beat moves when valid and ready
//   are both high; valid and its payload hold until ready; valid never waits
//   on ready (the slices' valids come from registers, the routed R/W/B
//   valids only from the other side's valid and the queue heads).
// Reset: the slices' valid bits and the queues; payload registers have none
// (their valid bit qualifies them).
module tsr_soc_axi_arb #(
  parameter integer DataWidth = 64,   // memory bus width: 32, 64 or 128
  parameter integer Depth     = 16,   // bursts outstanding per direction at most
  localparam integer Bytes    = DataWidth / 8,
  localparam integer SizeLog  = $clog2(Bytes)
) (
  input  wire                   clk_i,
  input  wire                   rst_ni,

  // master 0: tsr_top's AXI4 master
  input  wire                   m0_awvalid,
  output wire                   m0_awready,
  input  wire [31:0]            m0_awaddr,
  input  wire [7:0]             m0_awlen,
  input  wire [2:0]             m0_awsize,
  input  wire [1:0]             m0_awburst,
  input  wire                   m0_wvalid,
  output wire                   m0_wready,
  input  wire [DataWidth-1:0]   m0_wdata,
  input  wire [Bytes-1:0]       m0_wstrb,
  input  wire                   m0_wlast,
  output wire                   m0_bvalid,
  input  wire                   m0_bready,
  output wire [1:0]             m0_bresp,
  input  wire                   m0_arvalid,
  output wire                   m0_arready,
  input  wire [31:0]            m0_araddr,
  input  wire [7:0]             m0_arlen,
  input  wire [2:0]             m0_arsize,
  input  wire [1:0]             m0_arburst,
  output wire                   m0_rvalid,
  input  wire                   m0_rready,
  output wire [DataWidth-1:0]   m0_rdata,
  output wire [1:0]             m0_rresp,
  output wire                   m0_rlast,

  // master 1: the core's AXI4-Lite window (device addresses)
  input  wire                   m1_awvalid,
  output wire                   m1_awready,
  input  wire [31:0]            m1_awaddr,
  input  wire                   m1_wvalid,
  output wire                   m1_wready,
  input  wire [31:0]            m1_wdata,
  input  wire [3:0]             m1_wstrb,
  output wire                   m1_bvalid,
  input  wire                   m1_bready,
  output wire [1:0]             m1_bresp,
  input  wire                   m1_arvalid,
  output wire                   m1_arready,
  input  wire [31:0]            m1_araddr,
  output wire                   m1_rvalid,
  input  wire                   m1_rready,
  output wire [31:0]            m1_rdata,
  output wire [1:0]             m1_rresp,

  // the memory
  output wire                   s_awvalid,
  input  wire                   s_awready,
  output wire [31:0]            s_awaddr,
  output wire [7:0]             s_awlen,
  output wire [2:0]             s_awsize,
  output wire [1:0]             s_awburst,
  output wire                   s_wvalid,
  input  wire                   s_wready,
  output wire [DataWidth-1:0]   s_wdata,
  output wire [Bytes-1:0]       s_wstrb,
  output wire                   s_wlast,
  input  wire                   s_bvalid,
  output wire                   s_bready,
  input  wire [1:0]             s_bresp,
  output wire                   s_arvalid,
  input  wire                   s_arready,
  output wire [31:0]            s_araddr,
  output wire [7:0]             s_arlen,
  output wire [2:0]             s_arsize,
  output wire [1:0]             s_arburst,
  input  wire                   s_rvalid,
  output wire                   s_rready,
  input  wire [DataWidth-1:0]   s_rdata,
  input  wire [1:0]             s_rresp,
  input  wire                   s_rlast
);
  localparam [31:0] WordMask = ~(Bytes - 1);
  localparam [31:0] LaneMask = (Bytes - 1) & ~32'h3;

  // ---- queues of owners ------------------------------------------------------------
  wire r_head, r_empty, r_full;
  wire w_head, w_empty, w_full;
  wire b_head, b_empty, b_full;

  // ---- AR slice --------------------------------------------------------------------
  reg         ar_valid_q, ar_valid_d;
  reg  [31:0] ar_addr_q, ar_addr_d;
  reg  [7:0]  ar_len_q, ar_len_d;
  reg  [2:0]  ar_size_q, ar_size_d;
  reg  [1:0]  ar_burst_q, ar_burst_d;
  reg  [31:0] m1_rlane_q, m1_rlane_d;   // byte offset of master 1's read lane

  wire ar_open = (!ar_valid_q || s_arready) && !r_full;
  wire ar_take = ar_open && (m0_arvalid || m1_arvalid);

  always @(*) begin
    ar_valid_d = ar_valid_q && !s_arready;
    ar_addr_d  = ar_addr_q;
    ar_len_d   = ar_len_q;
    ar_size_d  = ar_size_q;
    ar_burst_d = ar_burst_q;
    m1_rlane_d = m1_rlane_q;
    if (ar_take) begin
      ar_valid_d = 1'b1;
      if (m1_arvalid) begin
        ar_addr_d  = m1_araddr & WordMask;
        ar_len_d   = 8'd0;
        ar_size_d  = SizeLog[2:0];
        ar_burst_d = 2'b01;
        m1_rlane_d = m1_araddr & LaneMask;
      end else begin
        ar_addr_d  = m0_araddr;
        ar_len_d   = m0_arlen;
        ar_size_d  = m0_arsize;
        ar_burst_d = m0_arburst;
      end
    end
  end

  assign m1_arready = ar_open;
  assign m0_arready = ar_open && !m1_arvalid;
  assign s_arvalid  = ar_valid_q;
  assign s_araddr   = ar_addr_q;
  assign s_arlen    = ar_len_q;
  assign s_arsize   = ar_size_q;
  assign s_arburst  = ar_burst_q;

  // ---- R routing -------------------------------------------------------------------
  assign s_rready  = !r_empty && (r_head ? m1_rready : m0_rready);
  assign m0_rvalid = s_rvalid && !r_empty && !r_head;
  assign m1_rvalid = s_rvalid && !r_empty && r_head;
  assign m0_rdata  = s_rdata;
  assign m0_rresp  = s_rresp;
  assign m0_rlast  = s_rlast;
  wire [DataWidth+31:0] m1_rword = {32'h0, s_rdata} >> {m1_rlane_q, 3'b000};  // 32 bits above: any width
  assign m1_rdata  = m1_rword[31:0];
  assign m1_rresp  = s_rresp;
  // Only the addressed 32-bit lane goes to master 1.
  wire unused_rword = ^m1_rword[DataWidth+31:32];
  wire r_pop = s_rvalid && s_rready && s_rlast;

  // ---- AW slice --------------------------------------------------------------------
  reg         aw_valid_q, aw_valid_d;
  reg  [31:0] aw_addr_q, aw_addr_d;
  reg  [7:0]  aw_len_q, aw_len_d;
  reg  [2:0]  aw_size_q, aw_size_d;
  reg  [1:0]  aw_burst_q, aw_burst_d;
  reg  [31:0] m1_wlane_q, m1_wlane_d;   // byte offset of master 1's write lane

  wire aw_open = (!aw_valid_q || s_awready) && !w_full && !b_full;
  wire aw_take = aw_open && (m0_awvalid || m1_awvalid);

  always @(*) begin
    aw_valid_d = aw_valid_q && !s_awready;
    aw_addr_d  = aw_addr_q;
    aw_len_d   = aw_len_q;
    aw_size_d  = aw_size_q;
    aw_burst_d = aw_burst_q;
    m1_wlane_d = m1_wlane_q;
    if (aw_take) begin
      aw_valid_d = 1'b1;
      if (m1_awvalid) begin
        aw_addr_d  = m1_awaddr & WordMask;
        aw_len_d   = 8'd0;
        aw_size_d  = SizeLog[2:0];
        aw_burst_d = 2'b01;
        m1_wlane_d = m1_awaddr & LaneMask;
      end else begin
        aw_addr_d  = m0_awaddr;
        aw_len_d   = m0_awlen;
        aw_size_d  = m0_awsize;
        aw_burst_d = m0_awburst;
      end
    end
  end

  assign m1_awready = aw_open;
  assign m0_awready = aw_open && !m1_awvalid;
  assign s_awvalid  = aw_valid_q;
  assign s_awaddr   = aw_addr_q;
  assign s_awlen    = aw_len_q;
  assign s_awsize   = aw_size_q;
  assign s_awburst  = aw_burst_q;

  // ---- W routing: from the owner of the oldest burst whose data is not all sent ----
  wire [Bytes-1:0] m1_wstrb_wide = {{(Bytes-4){1'b0}}, m1_wstrb};
  assign s_wvalid  = !w_empty && (w_head ? m1_wvalid : m0_wvalid);
  assign s_wdata   = w_head ? {(DataWidth/32){m1_wdata}} : m0_wdata;
  assign s_wstrb   = w_head ? (m1_wstrb_wide << m1_wlane_q) : m0_wstrb;
  assign s_wlast   = w_head ? 1'b1 : m0_wlast;
  assign m0_wready = !w_empty && !w_head && s_wready;
  assign m1_wready = !w_empty && w_head && s_wready;
  wire w_pop = s_wvalid && s_wready && s_wlast;

  // ---- B routing -------------------------------------------------------------------
  assign s_bready  = !b_empty && (b_head ? m1_bready : m0_bready);
  assign m0_bvalid = s_bvalid && !b_empty && !b_head;
  assign m1_bvalid = s_bvalid && !b_empty && b_head;
  assign m0_bresp  = s_bresp;
  assign m1_bresp  = s_bresp;
  wire b_pop = s_bvalid && s_bready;

  tsr_soc_srcq #(.Depth(Depth)) u_rq (
    .clk_i(clk_i), .rst_ni(rst_ni), .push_i(ar_take), .owner_i(m1_arvalid), .pop_i(r_pop),
    .head_o(r_head), .empty_o(r_empty), .full_o(r_full)
  );
  tsr_soc_srcq #(.Depth(Depth)) u_wq (
    .clk_i(clk_i), .rst_ni(rst_ni), .push_i(aw_take), .owner_i(m1_awvalid), .pop_i(w_pop),
    .head_o(w_head), .empty_o(w_empty), .full_o(w_full)
  );
  tsr_soc_srcq #(.Depth(Depth)) u_bq (
    .clk_i(clk_i), .rst_ni(rst_ni), .push_i(aw_take), .owner_i(m1_awvalid), .pop_i(b_pop),
    .head_o(b_head), .empty_o(b_empty), .full_o(b_full)
  );

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ar_valid_q <= 1'b0;
      aw_valid_q <= 1'b0;
    end else begin
      ar_valid_q <= ar_valid_d;
      aw_valid_q <= aw_valid_d;
    end
  end

  // Payload: no reset, qualified by the valid bits above.
  always @(posedge clk_i) begin
    ar_addr_q  <= ar_addr_d;
    ar_len_q   <= ar_len_d;
    ar_size_q  <= ar_size_d;
    ar_burst_q <= ar_burst_d;
    m1_rlane_q <= m1_rlane_d;
    aw_addr_q  <= aw_addr_d;
    aw_len_q   <= aw_len_d;
    aw_size_q  <= aw_size_d;
    aw_burst_q <= aw_burst_d;
    m1_wlane_q <= m1_wlane_d;
  end
`ifdef FORMAL
  // ---- Formal properties: `make soc-formal` checks them by bounded model checking (BMC,
  // tools/formal.py --bmc-only) from reset, with Depth = 4 and short bursts.
  // The environment, assumed: every master and the memory follow AXI (VALID and payload
  // held until READY); master 1 behaves like picorv32_axi_adapter (one access at a time:
  // a read, or a write whose AW and single W may come in either order, then its B);
  // master 0 writes one-beat bursts (AWLEN 0, WLAST) and reads bursts of 1..4 beats; the
  // memory answers only what it accepted, in order: R beats with RLAST on the last beat of
  // the oldest read burst, a B only after that write's W beat.
  // Asserted: the memory sees AR, AW and W held until taken; an R or B beat goes only to
  // a master with that kind of access outstanding; master 1 gets the 32-bit lane of its
  // own address; every R beat the memory gives is taken by exactly the master it is for.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);

  // Bookkeeping of the masters (bursts accepted, not yet answered).
  reg [3:0]  f_rd0, f_b0;          // master 0: read bursts, write bursts (AW taken, B not)
  reg        f_rd1, f_aw1, f_w1;   // master 1: its read, its AW, its W (until the B)
  reg [31:0] f_raddr1;             // master 1's read address
  // The memory's side: accepted read bursts' lengths in order, and write beats owed B.
  reg [7:0]  f_len [0:7];
  reg [3:0]  f_srd;                // read bursts accepted, not finished
  reg [7:0]  f_beat;               // beats of the oldest read burst sent
  reg [3:0]  f_sw;                 // write bursts whose W last beat was taken, B not sent
  integer f_i;
  wire f_m0ar = m0_arvalid && m0_arready, f_m1ar = m1_arvalid && m1_arready;
  wire f_m0r  = m0_rvalid && m0_rready && m0_rlast, f_m1r = m1_rvalid && m1_rready;
  wire f_m0aw = m0_awvalid && m0_awready, f_m1aw = m1_awvalid && m1_awready;
  wire f_m1w  = m1_wvalid && m1_wready;
  wire f_m0b  = m0_bvalid && m0_bready, f_m1b = m1_bvalid && m1_bready;
  wire f_sar  = s_arvalid && s_arready, f_sr = s_rvalid && s_rready;
  wire f_swl  = s_wvalid && s_wready && s_wlast;
  wire f_sbh  = s_bvalid && s_bready;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_rd0 <= 4'd0; f_b0 <= 4'd0; f_rd1 <= 1'b0; f_aw1 <= 1'b0; f_w1 <= 1'b0;
      f_srd <= 4'd0; f_beat <= 8'd0; f_sw <= 4'd0;
    end else begin
      f_rd0 <= f_rd0 + {3'd0, f_m0ar} - {3'd0, f_m0r};
      f_b0  <= f_b0 + {3'd0, f_m0aw} - {3'd0, f_m0b};
      f_rd1 <= (f_rd1 || f_m1ar) && !f_m1r;
      f_aw1 <= (f_aw1 || f_m1aw) && !f_m1b;
      f_w1  <= (f_w1 || f_m1w) && !f_m1b;
      f_srd <= f_srd + {3'd0, f_sar} - {3'd0, f_sr && s_rlast};
      f_beat <= (f_sr && s_rlast) ? 8'd0 : f_beat + {7'd0, f_sr};
      f_sw  <= f_sw + {3'd0, f_swl} - {3'd0, f_sbh};
    end
  end
  always @(posedge clk_i) begin
    if (f_m1ar) f_raddr1 <= m1_araddr;
    // the lengths of the accepted read bursts, oldest first
    if (f_sr && s_rlast) begin
      for (f_i = 0; f_i < 7; f_i = f_i + 1) f_len[f_i] <= f_len[f_i + 1];
      if (f_sar) f_len[f_srd - 4'd1] <= s_arlen;
    end else if (f_sar) begin
      f_len[f_srd] <= s_arlen;
    end
  end

  // Last cycle's channels, when shown and not taken.
  reg        f_hm0ar, f_hm1ar, f_hm0aw, f_hm1aw, f_hm0w, f_hm1w, f_hsar, f_hsaw, f_hsw, f_hsr, f_hsb;
  reg [44:0] f_pm0ar, f_pm0aw, f_psar, f_psaw;
  reg [31:0] f_pm1ar, f_pm1aw;
  reg [DataWidth+Bytes:0] f_pm0w, f_psw, f_psr;
  reg [35:0] f_pm1w;
  reg [1:0]  f_psb;
  always @(posedge clk_i) begin
    f_hm0ar <= rst_ni && m0_arvalid && !m0_arready;  f_pm0ar <= {m0_araddr, m0_arlen, m0_arsize, m0_arburst};
    f_hm1ar <= rst_ni && m1_arvalid && !m1_arready;  f_pm1ar <= m1_araddr;
    f_hm0aw <= rst_ni && m0_awvalid && !m0_awready;  f_pm0aw <= {m0_awaddr, m0_awlen, m0_awsize, m0_awburst};
    f_hm1aw <= rst_ni && m1_awvalid && !m1_awready;  f_pm1aw <= m1_awaddr;
    f_hm0w  <= rst_ni && m0_wvalid && !m0_wready;    f_pm0w  <= {m0_wdata, m0_wstrb, m0_wlast};
    f_hm1w  <= rst_ni && m1_wvalid && !m1_wready;    f_pm1w  <= {m1_wdata, m1_wstrb};
    f_hsar  <= rst_ni && s_arvalid && !s_arready;    f_psar  <= {s_araddr, s_arlen, s_arsize, s_arburst};
    f_hsaw  <= rst_ni && s_awvalid && !s_awready;    f_psaw  <= {s_awaddr, s_awlen, s_awsize, s_awburst};
    f_hsw   <= rst_ni && s_wvalid && !s_wready;      f_psw   <= {s_wdata, s_wstrb, s_wlast};
    f_hsr   <= rst_ni && s_rvalid && !s_rready;      f_psr   <= {s_rdata, s_rresp[0], {(Bytes-1){1'b0}}, s_rlast};
    f_hsb   <= rst_ni && s_bvalid && !s_bready;      f_psb   <= s_bresp;
  end

  // Whose is each burst, in the order the masters handed them over (one per cycle: the
  // slice takes one master at a time): the memory answers in that order.
  reg [7:0] f_rown, f_wown, f_bown;
  reg [3:0] f_rcnt, f_wcnt, f_bcnt;
  wire      f_rpop = f_sr && s_rlast, f_wpop = f_swl, f_bpop = f_sbh;
  wire      f_rpush = f_m0ar || f_m1ar, f_wpush = f_m0aw || f_m1aw;
  wire [3:0] f_rmid = f_rcnt - {3'd0, f_rpop}, f_wmid = f_wcnt - {3'd0, f_wpop}, f_bmid = f_bcnt - {3'd0, f_bpop};
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_rown <= 8'd0; f_wown <= 8'd0; f_bown <= 8'd0; f_rcnt <= 4'd0; f_wcnt <= 4'd0; f_bcnt <= 4'd0;
    end else begin
      f_rown <= (f_rpop ? f_rown >> 1 : f_rown) | ({7'd0, f_rpush && f_m1ar} << f_rmid);
      f_wown <= (f_wpop ? f_wown >> 1 : f_wown) | ({7'd0, f_wpush && f_m1aw} << f_wmid);
      f_bown <= (f_bpop ? f_bown >> 1 : f_bown) | ({7'd0, f_wpush && f_m1aw} << f_bmid);
      f_rcnt <= f_rmid + {3'd0, f_rpush};
      f_wcnt <= f_wmid + {3'd0, f_wpush};
      f_bcnt <= f_bmid + {3'd0, f_wpush};
    end
  end

  wire [DataWidth+31:0] f_lane1 = {32'h0, s_rdata} >> {f_raddr1 & LaneMask, 3'b000};
  always @(*) begin
    if (f_past_valid && rst_ni) begin
      // AXI from the masters and the memory
      if (f_hm0ar) assume (m0_arvalid && {m0_araddr, m0_arlen, m0_arsize, m0_arburst} == f_pm0ar);
      if (f_hm1ar) assume (m1_arvalid && m1_araddr == f_pm1ar);
      if (f_hm0aw) assume (m0_awvalid && {m0_awaddr, m0_awlen, m0_awsize, m0_awburst} == f_pm0aw);
      if (f_hm1aw) assume (m1_awvalid && m1_awaddr == f_pm1aw);
      if (f_hm0w)  assume (m0_wvalid && {m0_wdata, m0_wstrb, m0_wlast} == f_pm0w);
      if (f_hm1w)  assume (m1_wvalid && {m1_wdata, m1_wstrb} == f_pm1w);
      if (f_hsr)   assume (s_rvalid && {s_rdata, s_rresp[0], {(Bytes-1){1'b0}}, s_rlast} == f_psr);
      if (f_hsb)   assume (s_bvalid && s_bresp == f_psb);
      // ... and from the memory to the arbiter
      if (f_hsar) assert (s_arvalid && {s_araddr, s_arlen, s_arsize, s_arburst} == f_psar);
      if (f_hsaw) assert (s_awvalid && {s_awaddr, s_awlen, s_awsize, s_awburst} == f_psaw);
      if (f_hsw)  assert (s_wvalid && {s_wdata, s_wstrb, s_wlast} == f_psw);
    end
    if (rst_ni) begin
      // master 1: one access at a time, like picorv32_axi_adapter
      if (m1_arvalid) assume (!f_rd1 && !f_aw1 && !f_w1 && !m1_awvalid && !m1_wvalid);
      if (m1_awvalid) assume (!f_rd1 && !f_aw1 && (m1_wvalid || f_w1));
      if (m1_wvalid)  assume (!f_rd1 && !f_w1 && (m1_awvalid || f_aw1));
      // master 0: one-beat writes, reads of 1..4 beats, nothing outstanding past 8
      if (m0_awvalid) assume (m0_awlen == 8'd0 && f_b0 < 4'd6);
      if (m0_wvalid)  assume (m0_wlast);
      if (m0_arvalid) assume (m0_arlen < 8'd4 && f_rd0 < 4'd6);
      // the memory: in order, only what it accepted
      if (s_rvalid) assume (f_srd != 4'd0 && s_rlast == (f_beat == f_len[0]));
      if (s_bvalid) assume (f_sw != 4'd0);
      // asserted: answers reach only a master that waits for one, and the right lane
      if (m0_rvalid) assert (f_rd0 != 4'd0);
      if (m1_rvalid) assert (f_rd1 && m1_rdata == f_lane1[31:0]);
      if (m0_bvalid) assert (f_b0 != 4'd0);
      if (m1_bvalid) assert (f_aw1 && f_w1);
      assert ((s_rvalid && s_rready) == ((m0_rvalid && m0_rready) || (m1_rvalid && m1_rready)));
      assert (!(m0_rvalid && m1_rvalid) && !(m0_bvalid && m1_bvalid));
      assert (!(f_m0ar && f_m1ar) && !(f_m0aw && f_m1aw));
      // every beat to the owner of its burst, and every W beat from it
      if (s_rvalid && f_rcnt != 4'd0) assert (f_rown[0] ? !m0_rvalid : !m1_rvalid);
      if (s_bvalid && f_bcnt != 4'd0) assert (f_bown[0] ? !m0_bvalid : !m1_bvalid);
      if (s_wvalid) assert (f_wcnt != 4'd0 && (f_wown[0] ? (m1_wvalid && s_wdata == {(DataWidth/32){m1_wdata}})
                                                          : (m0_wvalid && s_wdata == m0_wdata)));
    end
  end
`endif
endmodule

`default_nettype wire
