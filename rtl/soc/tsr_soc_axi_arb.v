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
endmodule

`default_nettype wire
