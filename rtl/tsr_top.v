// tsr_top: Tessera int8 systolic GEMM accelerator, top level.
`default_nettype none

module tsr_top #(
  parameter integer ArrayDim     = 8,     // N of the N x N array
  parameter integer SpadRows     = 4096,  // scratchpad rows of N int8
  parameter integer AccRows      = 1024,  // accumulator rows of N int32
  parameter integer AxiDataWidth = 64,    // AXI4 master data width: 32, 64 or 128
  parameter integer CmdQDepth    = 16,    // command queue depth in commands
  parameter integer EnableSfu    = 1,     // 0: build without the SFU (CONFIG.SFU = 0)
  parameter integer StoreLanes   = ArrayDim,  // output-stage lanes: N, or a power of two dividing N
  parameter integer FetchBurst   = 8      // command ring: commands per fetch burst at most
) (
  input  wire                      clk_i,
  input  wire                      rst_ni,

  // AXI4-Lite register slave, 32-bit. Only araddr/awaddr[11:0] are decoded.
  input  wire                      s_axil_awvalid,
  output wire                      s_axil_awready,
  input  wire [31:0]               s_axil_awaddr,
  input  wire                      s_axil_wvalid,
  output wire                      s_axil_wready,
  input  wire [31:0]               s_axil_wdata,
  input  wire [3:0]                s_axil_wstrb,
  output wire                      s_axil_bvalid,
  input  wire                      s_axil_bready,
  output wire [1:0]                s_axil_bresp,
  input  wire                      s_axil_arvalid,
  output wire                      s_axil_arready,
  input  wire [31:0]               s_axil_araddr,
  output wire                      s_axil_rvalid,
  input  wire                      s_axil_rready,
  output wire [31:0]               s_axil_rdata,
  output wire [1:0]                s_axil_rresp,

  // AXI4 master for the DMA and the command ring fetcher: INCR bursts, no IDs
  // (all transactions use ID 0). The two readers share AR and R (tsr_axi_rd_arb).
  output wire                      m_axi_awvalid,
  input  wire                      m_axi_awready,
  output wire [31:0]               m_axi_awaddr,
  output wire [7:0]                m_axi_awlen,
  output wire [2:0]                m_axi_awsize,
  output wire [1:0]                m_axi_awburst,
  output wire                      m_axi_wvalid,
  input  wire                      m_axi_wready,
  output wire [AxiDataWidth-1:0]   m_axi_wdata,
  output wire [AxiDataWidth/8-1:0] m_axi_wstrb,
  output wire                      m_axi_wlast,
  input  wire                      m_axi_bvalid,
  output wire                      m_axi_bready,
  input  wire [1:0]                m_axi_bresp,
  output wire                      m_axi_arvalid,
  input  wire                      m_axi_arready,
  output wire [31:0]               m_axi_araddr,
  output wire [7:0]                m_axi_arlen,
  output wire [2:0]                m_axi_arsize,
  output wire [1:0]                m_axi_arburst,
  input  wire                      m_axi_rvalid,
  output wire                      m_axi_rready,
  input  wire [AxiDataWidth-1:0]   m_axi_rdata,
  input  wire [1:0]                m_axi_rresp,
  input  wire                      m_axi_rlast,

  output wire                      irq_o
);
  localparam integer N        = ArrayDim;
  localparam integer SpadAw   = $clog2(SpadRows);
  localparam integer AccAw    = $clog2(AccRows);
  localparam integer AxiBytes = AxiDataWidth / 8;
  localparam integer WrBytesWidth = $clog2(AxiBytes + 1);
  localparam [31:0]  N32        = N;
  localparam [31:0]  AxiBytes32 = AxiBytes;
  localparam [31:0]  QDepth32   = CmdQDepth;
  localparam integer LanesLog2  = $clog2(StoreLanes);
  localparam [31:0]  LanesLog2_32 = LanesLog2;
  // Bursts each DMA master keeps in flight. Short rows (an im2col row of a few bytes, a
  // weight row of N bytes, an output row of one pixel's channels) are one or two beats, so
  // a burst's slot is mostly the memory's latency: with 10 cycles of it, 4 bursts moved
  // about one beat in three cycles; 8 keep the bus busy (docs/networks.md).
  localparam integer DmaOutstanding = 8;

  // StoreLanes must be a power of two dividing N: elaboration stops on a
  // missing module named after the rule.
  generate
    if (StoreLanes < 1 || (1 << LanesLog2) != StoreLanes || (N % StoreLanes) != 0) begin : gen_bad_lanes
      StoreLanes_must_be_a_power_of_two_dividing_ArrayDim u_bad_lanes ();
    end
  endgenerate
  localparam [31:0]  SpadRows32 = SpadRows;
  localparam [31:0]  AccRows32  = AccRows;

  // ------------------------------------------------------------ registers
  wire        ctrl_soft_reset, ctrl_counters_clear, ctrl_we;
  wire        cmdq_push_we;
  wire [31:0] cmdq_push_word;
  wire        irq_done_q, irq_error_q, irq_fence_q, irq_cmd_q;
  wire        irq_en_done, irq_en_error, irq_en_fence, irq_en_cmd;
  wire        busy, done, error;
  wire [7:0]  err_code, opcode;
  wire [31:0] err_cmd_idx, err_addr, cmd_idx;
  wire [15:0] cmdq_free;
  wire [2:0]  cmdq_words;
  wire        irq_done_set, irq_error_set, irq_fence_set, irq_cmd_set, irq_clear;
  wire [31:0] ring_base, ring_size, ring_tail, ring_head;
  wire        ring_enable;
  wire [63:0] cnt_cycles, cnt_busy, cnt_macs, cnt_dma_rd, cnt_dma_wr, cnt_cmds;
  wire [63:0] cnt_array, cnt_fill, cnt_load_wait, cnt_store, cnt_sfu, cnt_ctrl, cnt_rd_stall,
              cnt_wr_stall;
  wire [31:0] dma_win_base, dma_win_limit;
  wire        dma_win_lock;

  tsr_regs u_regs (
    .clk_i                   (clk_i),
    .rst_ni                  (rst_ni),
    .s_axil_awvalid          (s_axil_awvalid),
    .s_axil_awready          (s_axil_awready),
    .s_axil_awaddr           (s_axil_awaddr),
    .s_axil_wvalid           (s_axil_wvalid),
    .s_axil_wready           (s_axil_wready),
    .s_axil_wdata            (s_axil_wdata),
    .s_axil_wstrb            (s_axil_wstrb),
    .s_axil_bvalid           (s_axil_bvalid),
    .s_axil_bready           (s_axil_bready),
    .s_axil_bresp            (s_axil_bresp),
    .s_axil_arvalid          (s_axil_arvalid),
    .s_axil_arready          (s_axil_arready),
    .s_axil_araddr           (s_axil_araddr),
    .s_axil_rvalid           (s_axil_rvalid),
    .s_axil_rready           (s_axil_rready),
    .s_axil_rdata            (s_axil_rdata),
    .s_axil_rresp            (s_axil_rresp),
    .w1c_clear_i             (irq_clear),
    .id_minor_i              (8'd0),
    .id_major_i              (8'd1),
    .id_vendor_i             (16'h5453),
    .config_array_dim_i      (N32[7:0]),
    .config_axi_bytes_i      (AxiBytes32[7:0]),
    .config_cmdq_depth_i     (QDepth32[7:0]),
    .config_sfu_i            (EnableSfu != 0),
    .config_lanes_log2_i     (LanesLog2_32[3:0]),
    .spad_rows_rows_i        (SpadRows32),
    .acc_rows_rows_i         (AccRows32),
    .ctrl_soft_reset_o       (ctrl_soft_reset),
    .ctrl_counters_clear_o   (ctrl_counters_clear),
    .ctrl_we_o               (ctrl_we),
    .status_busy_i           (busy),
    .status_done_i           (done),
    .status_error_i          (error),
    .irq_status_done_set_i   (irq_done_set),
    .irq_status_error_set_i  (irq_error_set),
    .irq_status_fence_set_i  (irq_fence_set),
    .irq_status_cmd_set_i    (irq_cmd_set),
    .irq_status_done_o       (irq_done_q),
    .irq_status_error_o      (irq_error_q),
    .irq_status_fence_o      (irq_fence_q),
    .irq_status_cmd_o        (irq_cmd_q),
    .irq_enable_done_o       (irq_en_done),
    .irq_enable_error_o      (irq_en_error),
    .irq_enable_fence_o      (irq_en_fence),
    .irq_enable_cmd_o        (irq_en_cmd),
    .err_code_code_i         (err_code),
    .err_cmd_idx_idx_i       (err_cmd_idx),
    .err_addr_addr_i         (err_addr),
    .cmd_idx_idx_i           (cmd_idx),
    .cmdq_push_word_o        (cmdq_push_word),
    .cmdq_push_we_o          (cmdq_push_we),
    .cmdq_status_free_i      (cmdq_free),
    .cmdq_status_words_i     (cmdq_words),
    .opcode_op_i             (opcode),
    .cnt_cycles_lo_val_i     (cnt_cycles[31:0]),
    .cnt_cycles_hi_val_i     (cnt_cycles[63:32]),
    .cnt_busy_lo_val_i       (cnt_busy[31:0]),
    .cnt_busy_hi_val_i       (cnt_busy[63:32]),
    .cnt_macs_lo_val_i       (cnt_macs[31:0]),
    .cnt_macs_hi_val_i       (cnt_macs[63:32]),
    .cnt_dma_rd_lo_val_i     (cnt_dma_rd[31:0]),
    .cnt_dma_rd_hi_val_i     (cnt_dma_rd[63:32]),
    .cnt_dma_wr_lo_val_i     (cnt_dma_wr[31:0]),
    .cnt_dma_wr_hi_val_i     (cnt_dma_wr[63:32]),
    .cnt_cmds_lo_val_i       (cnt_cmds[31:0]),
    .cnt_cmds_hi_val_i       (cnt_cmds[63:32]),
    .cnt_array_lo_val_i      (cnt_array[31:0]),
    .cnt_array_hi_val_i      (cnt_array[63:32]),
    .cnt_fill_lo_val_i       (cnt_fill[31:0]),
    .cnt_fill_hi_val_i       (cnt_fill[63:32]),
    .cnt_load_wait_lo_val_i  (cnt_load_wait[31:0]),
    .cnt_load_wait_hi_val_i  (cnt_load_wait[63:32]),
    .cnt_store_lo_val_i      (cnt_store[31:0]),
    .cnt_store_hi_val_i      (cnt_store[63:32]),
    .cnt_sfu_lo_val_i        (cnt_sfu[31:0]),
    .cnt_sfu_hi_val_i        (cnt_sfu[63:32]),
    .cnt_ctrl_lo_val_i       (cnt_ctrl[31:0]),
    .cnt_ctrl_hi_val_i       (cnt_ctrl[63:32]),
    .cnt_rd_stall_lo_val_i   (cnt_rd_stall[31:0]),
    .cnt_rd_stall_hi_val_i   (cnt_rd_stall[63:32]),
    .cnt_wr_stall_lo_val_i   (cnt_wr_stall[31:0]),
    .cnt_wr_stall_hi_val_i   (cnt_wr_stall[63:32]),
    .dma_win_base_addr_o     (dma_win_base),
    .dma_win_limit_addr_o    (dma_win_limit),
    .dma_win_ctrl_lock_o     (dma_win_lock),
    .ring_base_addr_o        (ring_base),
    .ring_size_bytes_o       (ring_size),
    .ring_head_offset_i      (ring_head),
    .ring_tail_offset_o      (ring_tail),
    .ring_ctrl_enable_o      (ring_enable)
  );

  // The lock acts inside tsr_regs (it refuses writes to the window registers).
  wire unused_win_lock = dma_win_lock;

  assign irq_o = (irq_done_q && irq_en_done) || (irq_error_q && irq_en_error) ||
                 (irq_fence_q && irq_en_fence) || (irq_cmd_q && irq_en_cmd);

  // ------------------------------------------------------------ controller
  // Whole commands; each unit's ports take the fields of its own opcode as part-selects at
  // the generated positions (rtl/regs/tsr_cmd_fields.vh), so some bits are never read here.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [255:0] cmd, cmd_rd, cmd_st;
  /* verilator lint_on UNUSEDSIGNAL */
  wire         unit_clr;
  wire         rd_start, rd_abort, rd_busy, rd_done, rd_err, rd_beat;
  wire [31:0]  rd_err_addr;
  wire         wr_abort, wr_busy, wr_done, wr_err;
  wire [31:0]  wr_err_addr;
  wire [WrBytesWidth-1:0] wr_bytes;
  wire         mm_start, mm_ready, mm_idle, mm_stream;
  // The DMA read engine's side of the read arbiter.
  wire         dma_arvalid, dma_arready, dma_rvalid, dma_rready;
  wire [31:0]  dma_araddr;
  wire [7:0]   dma_arlen;
  wire [2:0]   dma_arsize;
  wire [1:0]   dma_arburst;
  wire         st_start, st_busy, st_param_err, st_dma_start;
  wire         sfu_start, sfu_busy, sfu_param_err;
  wire         ring_push, ring_ready, ring_busy, ring_idle, ring_err, ring_halt;
  wire [255:0] ring_cmd;
  wire [31:0]  ring_addr, ring_err_addr;
  wire [7:0]   ring_err_code;
  wire [15:0]  ring_rsv;

  tsr_ctrl #(
    .ArrayDim     (N),
    .SpadRows     (SpadRows),
    .AccRows      (AccRows),
    .AxiDataWidth (AxiDataWidth),
    .CmdQDepth    (CmdQDepth),
    .EnableSfu    (EnableSfu)
  ) u_ctrl (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .cmd_we_i       (cmdq_push_we),
    .cmd_word_i     (cmdq_push_word),
    .ring_push_i    (ring_push),
    .ring_ready_o   (ring_ready),
    .ring_cmd_i     (ring_cmd),
    .ring_addr_i    (ring_addr),
    .ring_rsv_i     (ring_rsv),
    .ring_busy_i    (ring_busy),
    .ring_idle_i    (ring_idle),
    .ring_err_i     (ring_err),
    .ring_err_code_i (ring_err_code),
    .ring_err_addr_i (ring_err_addr),
    .halt_o         (ring_halt),
    .soft_reset_i   (ctrl_we && ctrl_soft_reset),
    .cnt_clear_i    (ctrl_we && ctrl_counters_clear),
    .win_base_i     (dma_win_base),
    .win_limit_i    (dma_win_limit),
    .busy_o         (busy),
    .done_o         (done),
    .error_o        (error),
    .err_code_o     (err_code),
    .err_cmd_idx_o  (err_cmd_idx),
    .err_addr_o     (err_addr),
    .cmd_idx_o      (cmd_idx),
    .opcode_o       (opcode),
    .cmdq_free_o    (cmdq_free),
    .cmdq_words_o   (cmdq_words),
    .irq_done_o     (irq_done_set),
    .irq_error_o    (irq_error_set),
    .irq_fence_o    (irq_fence_set),
    .irq_cmd_o      (irq_cmd_set),
    .irq_clear_o    (irq_clear),
    .cnt_cycles_o   (cnt_cycles),
    .cnt_busy_o     (cnt_busy),
    .cnt_macs_o     (cnt_macs),
    .cnt_dma_rd_o   (cnt_dma_rd),
    .cnt_dma_wr_o   (cnt_dma_wr),
    .cnt_cmds_o     (cnt_cmds),
    .cmd_o          (cmd),
    .cmd_rd_o       (cmd_rd),
    .cmd_st_o       (cmd_st),
    .unit_clr_o     (unit_clr),
    .rd_start_o     (rd_start),
    .rd_abort_o     (rd_abort),
    .rd_busy_i      (rd_busy),
    .rd_done_i      (rd_done),
    .rd_err_i       (rd_err),
    .rd_err_addr_i  (rd_err_addr),
    .rd_beat_i      (rd_beat),
    .wr_abort_o     (wr_abort),
    .wr_busy_i      (wr_busy),
    .wr_done_i      (wr_done),
    .wr_err_i       (wr_err),
    .wr_err_addr_i  (wr_err_addr),
    .wr_bytes_i     (wr_bytes),
    .mm_start_o     (mm_start),
    .mm_pre_o       (mm_pre),
    .mm_sep_o       (mm_sep),
    .mm_pre_ready_i (mm_pre_ready),
    .cmd_pre_o      (cmd_pre),
    .mm_ready_i     (mm_ready),
    .mm_idle_i      (mm_idle),
    .st_start_o     (st_start),
    .st_busy_i      (st_busy),
    .st_param_err_i (st_param_err),
    .sfu_start_o    (sfu_start),
    .sfu_busy_i     (sfu_busy),
    .sfu_param_err_i (sfu_param_err)
  );

  // Command fields (docs/commands.md), read by the cmd_*() functions of the
  // generated include (rtl/regs/tessera_cmds.toml), for the three commands in
  // flight: the front end's `cmd` (MATMUL, SFU), the LOAD starting the DMA read
  // engine (`cmd_rd`) and the store queue's head (`cmd_st`).
`include "rtl/regs/tsr_cmd_fields.vh"
  wire        s_bias    = cmd_st[CmdStoreBiasLsb +: CmdStoreBiasWidth];
  wire        s_requant = cmd_st[CmdStoreRequantLsb +: CmdStoreRequantWidth];
  wire        s_per_ch  = cmd_st[CmdStorePerChannelLsb +: CmdStorePerChannelWidth];
  wire        s_spad    = cmd_st[CmdStoreSpadLsb +: CmdStoreSpadWidth];
  wire        s_lut     = cmd_st[CmdStoreLutLsb +: CmdStoreLutWidth];
  wire        s_leaky   = cmd_st[CmdStoreLeakyLsb +: CmdStoreLeakyWidth];
  wire [15:0] s_cols    = cmd_st[CmdStoreColsLsb +: CmdStoreColsWidth];
  wire [7:0]  st_row_bytes = (s_requant || s_spad) ? s_cols[7:0] : {s_cols[5:0], 2'b00};

  // ------------------------------------------------------------ memories
  wire                dma_wr_valid, dma_wr_acc;
  wire [23:0]         dma_wr_addr;
  wire [32*N-1:0]     dma_wr_data;
  wire                mm_spad_re, mm_w_re;
  wire [SpadAw-1:0]   mm_spad_raddr, mm_w_raddr;
  wire                mm_pre, mm_pre_ready, mm_sep;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [255:0]        cmd_pre;          // the next MATMUL, whose weights are preloaded
  /* verilator lint_on UNUSEDSIGNAL */
  wire [8*N-1:0]      spad_rdata;
  wire                mm_acc_re, mm_acc_we;
  wire [AccAw-1:0]    mm_acc_raddr, mm_acc_waddr;
  wire [32*N-1:0]     mm_acc_wdata;
  wire                st_acc_re;
  wire [AccAw-1:0]    st_acc_raddr;
  wire [SpadAw-1:0]   st_spad_raddr;
  wire                sfu_spad_re, sfu_spad_we, sfu_acc_re, sfu_acc_we;
  wire [SpadAw-1:0]   sfu_spad_raddr, sfu_spad_waddr;
  wire [8*N-1:0]      sfu_spad_wdata;
  wire [AccAw-1:0]    sfu_acc_raddr, sfu_acc_waddr;
  wire [32*N-1:0]     sfu_acc_wdata;
  wire                lut_we;
  wire [$clog2(256 / N)-1:0] lut_waddr;
  wire [8*N-1:0]      lut_wdata;
  // A STORE with the SPAD flag reads its rows from the scratchpad.
  wire                st_spad_re = st_acc_re && s_spad;
  wire                st_acc_rd  = st_acc_re && !s_spad;

  // The controller never runs two users of a memory port at once; the muxes
  // only pick whichever is active.
  // The scratchpad is two banks (tsr_bank2). Reader 0 is the A-row port (the
  // MATMUL's A rows, a SPAD STORE, the SFU; one at a time), reader 1 the
  // MATMUL's weight port, which preloads the next weights from one bank while
  // A rows stream from the other.
  wire [8*N-1:0]      mm_w_rdata;
  tsr_bank2 #(
    .Width   (8 * N),
    .Depth   (SpadRows),
    .Readers (2)
  ) u_spad (
    .clk_i   (clk_i),
    .we_i    ((dma_wr_valid && !dma_wr_acc) || sfu_spad_we),
    .waddr_i (sfu_spad_we ? sfu_spad_waddr : dma_wr_addr[SpadAw-1:0]),
    .wdata_i (sfu_spad_we ? sfu_spad_wdata : dma_wr_data[8*N-1:0]),
    .re_i    ({mm_w_re, mm_spad_re || st_spad_re || sfu_spad_re}),
    .raddr_i ({mm_w_raddr, mm_spad_re ? mm_spad_raddr :
                           st_spad_re ? st_spad_raddr : sfu_spad_raddr}),
    .rdata_o ({mm_w_rdata, spad_rdata})
  );

  // The accumulator is two banks too (tsr_bank2): a STORE reads one while a
  // MATMUL uses the other (the controller interlocks the banks). Its one
  // write port per bank is used by one unit at a time.
  wire [32*N-1:0] mm_acc_rdata, st_acc_rdata, sfu_acc_rdata;
  tsr_bank2 #(
    .Width   (32 * N),
    .Depth   (AccRows),
    .Readers (3)
  ) u_acc (
    .clk_i   (clk_i),
    .we_i    (mm_acc_we || (dma_wr_valid && dma_wr_acc) || sfu_acc_we),
    .waddr_i (mm_acc_we ? mm_acc_waddr : sfu_acc_we ? sfu_acc_waddr : dma_wr_addr[AccAw-1:0]),
    .wdata_i (mm_acc_we ? mm_acc_wdata : sfu_acc_we ? sfu_acc_wdata : dma_wr_data),
    .re_i    ({sfu_acc_re, st_acc_rd, mm_acc_re}),
    .raddr_i ({sfu_acc_raddr, st_acc_raddr, mm_acc_raddr}),
    .rdata_o ({sfu_acc_rdata, st_acc_rdata, mm_acc_rdata})
  );

  // ------------------------------------------------------------ units
  tsr_dma_rd #(
    .ArrayDim       (N),
    .AxiDataWidth   (AxiDataWidth),
    .MaxOutstanding (DmaOutstanding)
  ) u_dma_rd (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .start_i       (rd_start),
    .to_acc_i      (cmd_rd[CmdLoadDestLsb +: CmdLoadDestWidth]),
    .addr_i        (cmd_rd[CmdLoadAddrLsb +: CmdLoadAddrWidth]),
    .stride_i      (cmd_rd[CmdLoadStrideLsb +: CmdLoadStrideWidth]),
    .rows_i        (cmd_rd[CmdLoadRowsLsb +: CmdLoadRowsWidth]),
    .cols_i        (cmd_rd[CmdLoadColsLsb +: CmdLoadColsWidth]),
    .local_i       (cmd_rd[CmdLoadLocalLsb +: CmdLoadLocalWidth]),
    .abort_i       (rd_abort),
    .busy_o        (rd_busy),
    .done_o        (rd_done),
    .err_o         (rd_err),
    .err_addr_o    (rd_err_addr),
    .wr_valid_o    (dma_wr_valid),
    .wr_acc_o      (dma_wr_acc),
    .wr_addr_o     (dma_wr_addr),
    .wr_data_o     (dma_wr_data),
    .rd_beat_o     (rd_beat),
    .m_axi_arvalid (dma_arvalid),
    .m_axi_arready (dma_arready),
    .m_axi_araddr  (dma_araddr),
    .m_axi_arlen   (dma_arlen),
    .m_axi_arsize  (dma_arsize),
    .m_axi_arburst (dma_arburst),
    .m_axi_rvalid  (dma_rvalid),
    .m_axi_rready  (dma_rready),
    .m_axi_rdata   (m_axi_rdata),
    .m_axi_rresp   (m_axi_rresp),
    .m_axi_rlast   (m_axi_rlast)
  );

  // ------------------------------------------------------------ command ring
  // The fetcher reads commands from the ring in memory into the controller's
  // queue; it shares the read channels with the DMA read engine (tsr_axi_rd_arb).
  wire        fe_arvalid, fe_arready, fe_rvalid, fe_rready;
  wire [31:0] fe_araddr;
  wire [7:0]  fe_arlen;
  wire [2:0]  fe_arsize;
  wire [1:0]  fe_arburst;

  tsr_cmd_fetch #(
    .AxiDataWidth (AxiDataWidth),
    .FetchBurst   (FetchBurst)
  ) u_fetch (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .enable_i      (ring_enable),
    .base_i        (ring_base),
    .size_i        (ring_size),
    .tail_i        (ring_tail),
    .win_base_i    (dma_win_base),
    .win_limit_i   (dma_win_limit),
    .soft_reset_i  (ctrl_we && ctrl_soft_reset),
    .halt_i        (ring_halt),
    .head_o        (ring_head),
    .busy_o        (ring_busy),
    .idle_o        (ring_idle),
    .err_o         (ring_err),
    .err_code_o    (ring_err_code),
    .err_addr_o    (ring_err_addr),
    .q_free_i      (cmdq_free),
    .rsv_o         (ring_rsv),
    .push_valid_o  (ring_push),
    .push_ready_i  (ring_ready),
    .push_cmd_o    (ring_cmd),
    .push_addr_o   (ring_addr),
    .m_axi_arvalid (fe_arvalid),
    .m_axi_arready (fe_arready),
    .m_axi_araddr  (fe_araddr),
    .m_axi_arlen   (fe_arlen),
    .m_axi_arsize  (fe_arsize),
    .m_axi_arburst (fe_arburst),
    .m_axi_rvalid  (fe_rvalid),
    .m_axi_rready  (fe_rready),
    .m_axi_rdata   (m_axi_rdata),
    .m_axi_rresp   (m_axi_rresp),
    .m_axi_rlast   (m_axi_rlast)
  );

  // Bursts in flight on the read port: the DMA's DmaOutstanding and the fetcher's one fit.
  tsr_axi_rd_arb #(
    .OrdDepth (DmaOutstanding + 1)
  ) u_rd_arb (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .s0_arvalid (dma_arvalid),
    .s0_arready (dma_arready),
    .s0_araddr  (dma_araddr),
    .s0_arlen   (dma_arlen),
    .s0_arsize  (dma_arsize),
    .s0_arburst (dma_arburst),
    .s0_rvalid  (dma_rvalid),
    .s0_rready  (dma_rready),
    .s1_arvalid (fe_arvalid),
    .s1_arready (fe_arready),
    .s1_araddr  (fe_araddr),
    .s1_arlen   (fe_arlen),
    .s1_arsize  (fe_arsize),
    .s1_arburst (fe_arburst),
    .s1_rvalid  (fe_rvalid),
    .s1_rready  (fe_rready),
    .m_arvalid  (m_axi_arvalid),
    .m_arready  (m_axi_arready),
    .m_araddr   (m_axi_araddr),
    .m_arlen    (m_axi_arlen),
    .m_arsize   (m_axi_arsize),
    .m_arburst  (m_axi_arburst),
    .m_rvalid   (m_axi_rvalid),
    .m_rready   (m_axi_rready),
    .m_rlast    (m_axi_rlast)
  );

  tsr_matmul #(
    .ArrayDim (N),
    .SpadRows (SpadRows),
    .AccRows  (AccRows)
  ) u_matmul (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .clr_i          (unit_clr),
    .start_i        (mm_start),
    .accumulate_i   (cmd[CmdMatmulAccumulateLsb +: CmdMatmulAccumulateWidth]),
    .keep_weights_i (cmd[CmdMatmulKeepWeightsLsb +: CmdMatmulKeepWeightsWidth]),
    .sep_i          (mm_sep),
    .a_addr_i       (cmd[CmdMatmulAAddrLsb +: CmdMatmulAAddrWidth]),
    .w_addr_i       (cmd[CmdMatmulWAddrLsb +: CmdMatmulWAddrWidth]),
    .c_addr_i       (cmd[CmdMatmulCAddrLsb +: CmdMatmulCAddrWidth]),
    .m_i            (cmd[CmdMatmulMLsb +: CmdMatmulMWidth]),
    .k_i            (cmd[CmdMatmulKLsb +: CmdMatmulKWidth]),
    .n_i            (cmd[CmdMatmulNLsb +: CmdMatmulNWidth]),
    .pre_i          (mm_pre),
    .pre_w_addr_i   (cmd_pre[CmdMatmulWAddrLsb +: CmdMatmulWAddrWidth]),
    .pre_k_i        (cmd_pre[CmdMatmulKLsb +: CmdMatmulKWidth]),
    .pre_n_i        (cmd_pre[CmdMatmulNLsb +: CmdMatmulNWidth]),
    .pre_ready_o    (mm_pre_ready),
    .ready_o        (mm_ready),
    .idle_o         (mm_idle),
    .stream_o       (mm_stream),
    .spad_re_o      (mm_spad_re),
    .spad_raddr_o   (mm_spad_raddr),
    .spad_rdata_i   (spad_rdata),
    .w_re_o         (mm_w_re),
    .w_raddr_o      (mm_w_raddr),
    .w_rdata_i      (mm_w_rdata),
    .acc_re_o       (mm_acc_re),
    .acc_raddr_o    (mm_acc_raddr),
    .acc_rdata_i    (mm_acc_rdata),
    .acc_we_o       (mm_acc_we),
    .acc_waddr_o    (mm_acc_waddr),
    .acc_wdata_o    (mm_acc_wdata)
  );

  wire            row_valid, row_ready;
  wire [32*N-1:0] row_data;

  tsr_store #(
    .ArrayDim (N),
    .AccRows  (AccRows),
    .SpadRows (SpadRows),
    .StoreLanes (StoreLanes)
  ) u_store (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .clr_i         (unit_clr),
    .start_i       (st_start),
    .bias_en_i     (s_bias),
    .requant_i     (s_requant),
    .per_channel_i (s_per_ch),
    .src_i         (cmd_st[CmdStoreSrcLsb +: CmdStoreSrcWidth]),
    .param_i       (cmd_st[CmdStoreParamLsb +: CmdStoreParamWidth]),
    .rows_i        (cmd_st[CmdStoreRowsLsb +: CmdStoreRowsWidth]),
    .cols_i        (s_cols),
    .mult_i        (cmd_st[CmdStoreMultLsb +: CmdStoreMultWidth]),
    .shift_i       (cmd_st[CmdStoreShiftLsb +: CmdStoreShiftWidth]),
    .zp_i          (cmd_st[CmdStoreOutZpLsb +: CmdStoreOutZpWidth]),
    .act_min_i     (cmd_st[CmdStoreActMinLsb +: CmdStoreActMinWidth]),
    .act_max_i     (cmd_st[CmdStoreActMaxLsb +: CmdStoreActMaxWidth]),
    .spad_i        (s_spad),
    .leaky_i       (s_leaky),
    .lut_en_i      (s_lut),
    .lut_we_i      (lut_we),
    .lut_waddr_i   (lut_waddr),
    .lut_wdata_i   (lut_wdata),
    .busy_o        (st_busy),
    .param_err_o   (st_param_err),
    .dma_start_o   (st_dma_start),
    .acc_re_o      (st_acc_re),
    .acc_raddr_o   (st_acc_raddr),
    .spad_raddr_o  (st_spad_raddr),
    .acc_rdata_i   (st_acc_rdata),
    .spad_rdata_i  (spad_rdata),
    .row_valid_o   (row_valid),
    .row_ready_i   (row_ready),
    .wr_busy_i     (wr_busy),
    .row_data_o    (row_data)
  );

  // EnableSfu = 0 leaves the SFU out (small FPGAs): the controller rejects its
  // commands with ErrNoUnit, so it never starts, and its ports read as idle.
  if (EnableSfu != 0) begin : gen_sfu
    tsr_sfu #(
      .ArrayDim (N),
      .SpadRows (SpadRows),
      .AccRows  (AccRows)
    ) u_sfu (
      .clk_i        (clk_i),
      .rst_ni       (rst_ni),
      .clr_i        (unit_clr),
      .start_i      (sfu_start),
      .func_i       (cmd[CmdSfuFuncLsb +: CmdSfuFuncWidth]),
      .src_i        (cmd[CmdSfuSrcLsb +: CmdSfuSrcWidth]),
      .dst_i        (cmd[CmdSfuDstLsb +: CmdSfuDstWidth]),
      .rows_i       (cmd[CmdSfuRowsLsb +: CmdSfuRowsWidth]),
      .len_i        (cmd[CmdSfuLenLsb +: CmdSfuLenWidth]),
      .src2_i       (cmd[CmdSfuSrc2Lsb +: CmdSfuSrc2Width]),
      .param_i      (cmd[CmdSfuParamLsb +: CmdSfuParamWidth]),
      .aux_i        (cmd[CmdSfuAuxLsb +: CmdSfuAuxWidth]),
      .busy_o       (sfu_busy),
      .param_err_o  (sfu_param_err),
      .spad_re_o    (sfu_spad_re),
      .spad_raddr_o (sfu_spad_raddr),
      .spad_rdata_i (spad_rdata),
      .spad_we_o    (sfu_spad_we),
      .spad_waddr_o (sfu_spad_waddr),
      .spad_wdata_o (sfu_spad_wdata),
      .acc_re_o     (sfu_acc_re),
      .acc_raddr_o  (sfu_acc_raddr),
      .acc_rdata_i  (sfu_acc_rdata),
      .acc_we_o     (sfu_acc_we),
      .acc_waddr_o  (sfu_acc_waddr),
      .acc_wdata_o  (sfu_acc_wdata),
      .lut_we_o     (lut_we),
      .lut_waddr_o  (lut_waddr),
      .lut_wdata_o  (lut_wdata)
    );
  end else begin : gen_no_sfu
    /* verilator tracing_off */  // what only the SFU reads
    wire unused_sfu = ^{sfu_start, sfu_acc_rdata};
    assign sfu_busy       = 1'b0;
    assign sfu_param_err  = 1'b0;
    assign sfu_spad_re    = 1'b0;
    assign sfu_spad_raddr = {SpadAw{1'b0}};
    assign sfu_spad_we    = 1'b0;
    assign sfu_spad_waddr = {SpadAw{1'b0}};
    assign sfu_spad_wdata = {8*N{1'b0}};
    assign sfu_acc_re     = 1'b0;
    assign sfu_acc_raddr  = {AccAw{1'b0}};
    assign sfu_acc_we     = 1'b0;
    assign sfu_acc_waddr  = {AccAw{1'b0}};
    assign sfu_acc_wdata  = {32*N{1'b0}};
    assign lut_we         = 1'b0;
    assign lut_waddr      = {$clog2(256 / N){1'b0}};
    assign lut_wdata      = {8*N{1'b0}};
  end

  tsr_dma_wr #(
    .ArrayDim       (N),
    .AxiDataWidth   (AxiDataWidth),
    .MaxOutstanding (DmaOutstanding)
  ) u_dma_wr (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .start_i       (st_dma_start),
    .addr_i        (cmd_st[CmdStoreAddrLsb +: CmdStoreAddrWidth]),
    .stride_i      (cmd_st[CmdStoreStrideLsb +: CmdStoreStrideWidth]),
    .rows_i        (cmd_st[CmdStoreRowsLsb +: CmdStoreRowsWidth]),
    .row_bytes_i   (st_row_bytes),
    .abort_i       (wr_abort),
    .busy_o        (wr_busy),
    .done_o        (wr_done),
    .err_o         (wr_err),
    .err_addr_o    (wr_err_addr),
    .row_valid_i   (row_valid),
    .row_ready_o   (row_ready),
    .row_data_i    (row_data),
    .wr_bytes_o    (wr_bytes),
    .m_axi_awvalid (m_axi_awvalid),
    .m_axi_awready (m_axi_awready),
    .m_axi_awaddr  (m_axi_awaddr),
    .m_axi_awlen   (m_axi_awlen),
    .m_axi_awsize  (m_axi_awsize),
    .m_axi_awburst (m_axi_awburst),
    .m_axi_wvalid  (m_axi_wvalid),
    .m_axi_wready  (m_axi_wready),
    .m_axi_wdata   (m_axi_wdata),
    .m_axi_wstrb   (m_axi_wstrb),
    .m_axi_wlast   (m_axi_wlast),
    .m_axi_bvalid  (m_axi_bvalid),
    .m_axi_bready  (m_axi_bready),
    .m_axi_bresp   (m_axi_bresp)
  );

  tsr_perf u_perf (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clear_i     (ctrl_we && ctrl_counters_clear),
    .busy_i      (busy),
    .mm_stream_i (mm_stream),
    .mm_idle_i   (mm_idle),
    .rd_busy_i   (rd_busy),
    .st_busy_i   (st_busy),
    .wr_busy_i   (wr_busy),
    .sfu_busy_i  (sfu_busy),
    .arvalid_i   (dma_arvalid),          // the DMA's side: fetches are not DMA stalls
    .arready_i   (dma_arready),
    .rvalid_i    (dma_rvalid),
    .rready_i    (dma_rready),
    .rlast_i     (m_axi_rlast),
    .awvalid_i   (m_axi_awvalid),
    .awready_i   (m_axi_awready),
    .wvalid_i    (m_axi_wvalid),
    .wready_i    (m_axi_wready),
    .wlast_i     (m_axi_wlast),
    .bvalid_i    (m_axi_bvalid),
    .bready_i    (m_axi_bready),
    .array_o     (cnt_array),
    .fill_o      (cnt_fill),
    .load_wait_o (cnt_load_wait),
    .store_o     (cnt_store),
    .sfu_o       (cnt_sfu),
    .ctrl_o      (cnt_ctrl),
    .rd_stall_o  (cnt_rd_stall),
    .wr_stall_o  (cnt_wr_stall)
  );

  // Address bits above the memory sizes were range-checked by the controller.
  /* verilator tracing_off */  // an unused signal the model need not compute
  wire unused_bits = ^{dma_wr_addr[23:SpadAw], s_cols[15:8]};
  /* verilator tracing_on */
endmodule

`default_nettype wire
