// tsr_dma_wr: AXI4 write DMA for STORE: a stream of output rows -> strided rows in memory.
`default_nettype none

// What it does (docs/commands.md, STORE): row r of the job (row_bytes bytes, byte 0 in
// bits 7:0 of row_data_i) is written to addr + r*stride .. + row_bytes - 1 with bus-aligned
// beats whose write strobes cover exactly the row's bytes, so nothing else in memory changes.
//
// How:
//   Row input. row_ready_o is a registered "input slot empty"; an accepted row waits there
//     with its first byte lane (addr + r*stride mod beat bytes).
//   AW issue. For each accepted row, INCR bursts of at most MaxBurstBeats that never cross
//     4 KiB and cover exactly the beats holding the row. A burst is issued only for a row
//     already held inside the engine, so every issued burst can always send its data, even
//     after an error stops the row stream. Each AW pushes {len, last-of-row} for the W side
//     and its address for the B side (first failing burst address). At most
//     MaxOutstanding bursts are between AW issue and their B response.
//   W. The row being sent sits shifted to its byte lanes in a shift register together with
//     its strobe mask; each W handshake sends the low beat and shifts down one beat. W may
//     be presented before its AW is accepted (never before it is presented). The next
//     row moves in on the last beat of the previous one, so rows of two or more beats
//     stream at one beat per cycle when AW, W and B are not stalled.
//   B. Always ready. Done after every issued burst is answered.
//
// Errors and abort: a SLVERR/DECERR response or abort_i stops new bursts and stops taking
// rows (an AW already presented stays until accepted); bursts already issued send all their
// beats; when the last B response is back, done_o pulses (with err_o if any B response of
// the job was an error; err_addr_o = awaddr of the first failing burst). Rows not taken
// are left to the upstream, which the lead's soft reset clears.
//
// Row stream contract: a row moves when row_valid_i & row_ready_o; row_valid_i and
// row_data_i hold until then. row_ready_o does not depend on row_valid_i.
// Job interface: start_i is a one-cycle pulse accepted only while busy_o is low; done_o is
// a one-cycle pulse, busy_o is low from that cycle on.

module tsr_dma_wr #(
  parameter integer ArrayDim       = 8,   // N; a row is at most 4N bytes
  parameter integer AxiDataWidth   = 64,  // 32, 64 or 128
  parameter integer MaxBurstBeats  = 16,  // longest AXI burst issued (1..256)
  parameter integer MaxOutstanding = 4    // bursts between AW issue and B response
) (
  input  wire                        clk_i,
  input  wire                        rst_ni,

  // Job.
  input  wire                        start_i,
  input  wire [31:0]                 addr_i,
  input  wire [31:0]                 stride_i,
  input  wire [15:0]                 rows_i,        // >= 1
  input  wire [7:0]                  row_bytes_i,   // 1..4N
  input  wire                        abort_i,
  output wire                        busy_o,
  output wire                        done_o,
  output wire                        err_o,
  output wire [31:0]                 err_addr_o,

  // Row stream from the output stage.
  input  wire                        row_valid_i,
  output wire                        row_ready_o,
  input  wire [32*ArrayDim-1:0]      row_data_i,
  output wire [$clog2(AxiDataWidth/8+1)-1:0] wr_bytes_o, // strobed bytes of this W handshake

  // AXI4 master write channels.
  output wire                        m_axi_awvalid,
  input  wire                        m_axi_awready,
  output wire [31:0]                 m_axi_awaddr,
  output wire [7:0]                  m_axi_awlen,
  output wire [2:0]                  m_axi_awsize,
  output wire [1:0]                  m_axi_awburst,
  output wire                        m_axi_wvalid,
  input  wire                        m_axi_wready,
  output wire [AxiDataWidth-1:0]     m_axi_wdata,
  output wire [AxiDataWidth/8-1:0]   m_axi_wstrb,
  output wire                        m_axi_wlast,
  input  wire                        m_axi_bvalid,
  output wire                        m_axi_bready,
  input  wire [1:0]                  m_axi_bresp
);

  // ---------------------------------------------------------------------------------------
  // Derived sizes
  // ---------------------------------------------------------------------------------------
  localparam integer BeatBytes = AxiDataWidth / 8;
  localparam integer OffW      = $clog2(BeatBytes);
  localparam integer RowBytes  = 4 * ArrayDim;
  localparam integer ShBytes   = RowBytes + BeatBytes - 1;   // row moved up by < one beat
  localparam integer CntW      = $clog2(BeatBytes + 1);
  localparam integer FifoDepth = MaxOutstanding;
  localparam integer PtrW      = (FifoDepth > 1) ? $clog2(FifoDepth) : 1;
  localparam integer OutW      = $clog2(FifoDepth + 1);
  localparam integer PtrLastI  = FifoDepth - 1;
  localparam integer MaxLenI   = MaxBurstBeats - 1;

  // From a beat of a row (at most RowBytes bytes) to the row's last beat is fewer than
  // RowBytes + BeatBytes bytes, so that distance needs only SpanW bits.
  localparam integer SpanW     = $clog2(RowBytes + BeatBytes);
  localparam integer MaxBurstBytesI = MaxBurstBeats * BeatBytes;

  localparam [31:0]     MaxLenM1 = MaxLenI;
  localparam [31:0]     MaxBurstBytes = MaxBurstBytesI;
  localparam [2:0]      AxSize   = OffW[2:0];
  localparam [PtrW-1:0] PtrLast  = PtrLastI[PtrW-1:0];
  localparam [OutW-1:0] OutMax   = FifoDepth[OutW-1:0];

  // ---------------------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------------------
  // Job control.
  reg         busy_q, busy_d;
  reg         stop_q, stop_d;
  reg         err_q, err_d;
  reg  [31:0] err_addr_q, err_addr_d;
  reg         done_q, done_d;
  reg  [31:0] stride_q, stride_d;
  reg  [7:0]  rb_m1_q, rb_m1_d;          // row_bytes - 1

  // Row input slot.
  reg  [15:0]            in_rows_q, in_rows_d;   // rows still to take from the stream
  reg  [OffW-1:0]        in_lane_q, in_lane_d;   // first lane of the next row taken
  reg                    in_v_q, in_v_d;
  reg  [8*RowBytes-1:0]  in_data_q, in_data_d;
  reg  [OffW-1:0]        in_lo_q, in_lo_d;

  // AW side.
  reg  [1:0]  ahead_q, ahead_d;          // rows held whose bursts are not all issued
  reg  [15:0] aw_rows_q, aw_rows_d;      // rows whose bursts are not all issued
  reg  [31:0] row_addr_q, row_addr_d;    // first byte of the row being issued
  reg  [31:0] row_end_q, row_end_d;      // last byte of the row being issued
  reg  [31:0] cur_q, cur_d;              // next beat address of the row being issued
  reg         awvalid_q, awvalid_d;
  reg  [31:0] awaddr_q, awaddr_d;
  reg  [7:0]  awlen_q, awlen_d;

  // Burst FIFOs: W side {len, last_of_row} and B side {addr}; both pushed with the AW.
  reg  [8:0]       wq_q [0:FifoDepth-1];
  reg  [31:0]      bq_q [0:FifoDepth-1];
  reg  [PtrW-1:0]  wq_wptr_q, wq_wptr_d;
  reg  [PtrW-1:0]  wq_rptr_q, wq_rptr_d;
  reg  [OutW-1:0]  wq_cnt_q, wq_cnt_d;
  reg  [PtrW-1:0]  bq_wptr_q, bq_wptr_d;
  reg  [PtrW-1:0]  bq_rptr_q, bq_rptr_d;
  reg  [OutW-1:0]  bq_cnt_q, bq_cnt_d;   // bursts issued and not yet answered

  // W shift register.
  reg                    sh_v_q, sh_v_d;
  reg  [8*ShBytes-1:0]   sh_data_q, sh_data_d;
  reg  [ShBytes-1:0]     sh_mask_q, sh_mask_d;
  reg  [7:0]             w_beat_q, w_beat_d;     // beat index inside the current burst

  // ---------------------------------------------------------------------------------------
  // AW burst calculation (from registers only)
  // ---------------------------------------------------------------------------------------
  // Three decisions side by side, none waiting on another's carry chain (FPGA timing: in
  // series they were the ULX3S top's critical path): the beats left in the row (a SpanW-bit
  // subtraction), the beats left before 4 KiB (cur_q's low bits inverted), and the next
  // address for both ways a burst that does not end the row can stop.
  wire [SpanW-1:0] last_lo    = {row_end_q[SpanW-1:OffW], {OffW{1'b0}}};  // the row's last beat
  wire [SpanW-1:0] span_bytes = last_lo - cur_q[SpanW-1:0];
  wire [31:0]      span_m1    = {{(32-SpanW){1'b0}}, span_bytes >> OffW};
  wire [31:0]      to4k_m1    = {20'h0, ~cur_q[11:0]} >> OffW;
  wire             stop_at_4k = (to4k_m1 <= MaxLenM1);
  wire [31:0]      lim_m1     = stop_at_4k ? to4k_m1 : MaxLenM1;
  wire             aw_row_last = (span_m1 <= lim_m1);
  wire [7:0]       len_m1     = aw_row_last ? span_m1[7:0] : lim_m1[7:0];
  wire [31:0]      next_row   = row_addr_q + stride_q;
  wire [31:0]      cur_next   = aw_row_last ? {next_row[31:OffW], {OffW{1'b0}}} :
                                stop_at_4k  ? {cur_q[31:12] + 20'd1, 12'h0} :
                                              cur_q + MaxBurstBytes;

  // ---------------------------------------------------------------------------------------
  // Handshakes and W-side decode
  // ---------------------------------------------------------------------------------------
  wire        row_ready = busy_q & ~stop_q & ~in_v_q & (in_rows_q != 16'd0);
  wire        row_hs    = row_valid_i & row_ready;

  wire [8:0]  wq_head   = wq_q[wq_rptr_q];
  wire [7:0]  w_len     = wq_head[8:1];
  wire        w_row_last = wq_head[0];
  wire        wvalid    = sh_v_q & (wq_cnt_q != {OutW{1'b0}});
  wire        wlast     = (w_beat_q == w_len);
  wire        w_hs      = wvalid & m_axi_wready;
  wire        w_row_end = w_hs & wlast & w_row_last;

  wire        b_hs      = m_axi_bvalid;                 // bready is always high
  wire        b_err     = m_axi_bresp[1];               // SLVERR or DECERR
  wire [31:0] b_addr    = bq_q[bq_rptr_q];

  wire        stop_now  = stop_q | (busy_q & (abort_i | (b_hs & b_err)));

  // Strobe mask of a row at lane 0: bytes 0 .. row_bytes-1.
  wire [RowBytes-1:0] row_mask = ~({RowBytes{1'b1}} << ({1'b0, rb_m1_q} + 9'd1));
  integer i;

  wire [8*ShBytes-1:0] in_shifted   = {{(8*(BeatBytes-1)){1'b0}}, in_data_q} << {in_lo_q, 3'b000};
  wire [ShBytes-1:0]   mask_shifted = {{(BeatBytes-1){1'b0}}, row_mask} << in_lo_q;

  // Bytes strobed in the current beat (counter output).
  reg  [CntW-1:0] strb_count;
  always @(*) begin
    strb_count = {CntW{1'b0}};
    for (i = 0; i < BeatBytes; i = i + 1) begin
      strb_count = strb_count + {{(CntW-1){1'b0}}, sh_mask_q[i]};
    end
  end

  // ---------------------------------------------------------------------------------------
  // Next state
  // ---------------------------------------------------------------------------------------
  reg aw_load;

  always @(*) begin
    busy_d      = busy_q;
    stop_d      = stop_q;
    err_d       = err_q;
    err_addr_d  = err_addr_q;
    done_d      = 1'b0;
    stride_d    = stride_q;
    rb_m1_d     = rb_m1_q;
    in_rows_d   = in_rows_q;
    in_lane_d   = in_lane_q;
    in_v_d      = in_v_q;
    // An empty input slot copies the stream every cycle, so a row taken
    // (row_hs) is already in it: the wide register's enable is in_v_q, not
    // the handshake (FPGA timing: the store's valid reached this enable
    // through four LUTs and 18 ns of routing at N = 4).
    in_data_d   = in_v_q ? in_data_q : row_data_i;
    in_lo_d     = in_v_q ? in_lo_q : in_lane_q;
    ahead_d     = ahead_q;
    aw_rows_d   = aw_rows_q;
    row_addr_d  = row_addr_q;
    row_end_d   = row_end_q;
    cur_d       = cur_q;
    awvalid_d   = awvalid_q;
    awaddr_d    = awaddr_q;
    awlen_d     = awlen_q;
    wq_wptr_d   = wq_wptr_q;
    wq_rptr_d   = wq_rptr_q;
    wq_cnt_d    = wq_cnt_q;
    bq_wptr_d   = bq_wptr_q;
    bq_rptr_d   = bq_rptr_q;
    bq_cnt_d    = bq_cnt_q;
    sh_v_d      = sh_v_q;
    sh_data_d   = sh_data_q;
    sh_mask_d   = sh_mask_q;
    w_beat_d    = w_beat_q;
    aw_load     = 1'b0;

    if (!busy_q) begin
      if (start_i) begin
        busy_d      = 1'b1;
        stop_d      = 1'b0;
        err_d       = 1'b0;
        err_addr_d  = 32'h0;
        stride_d    = stride_i;
        rb_m1_d     = row_bytes_i - 8'd1;
        in_rows_d   = rows_i;
        in_lane_d   = addr_i[OffW-1:0];
        in_v_d      = 1'b0;
        ahead_d     = 2'd0;
        aw_rows_d   = rows_i;
        row_addr_d  = addr_i;
        row_end_d   = addr_i + {24'h0, row_bytes_i} - 32'd1;
        cur_d       = {addr_i[31:OffW], {OffW{1'b0}}};
        sh_v_d      = 1'b0;
        w_beat_d    = 8'd0;
      end
    end else begin
      // ---- Row input ----------------------------------------------------------------------
      if (row_hs) begin
        in_v_d    = 1'b1;
        in_lane_d = in_lane_q + stride_q[OffW-1:0];
        in_rows_d = in_rows_q - 16'd1;
      end

      // ---- AW issue -----------------------------------------------------------------------
      if (awvalid_q && m_axi_awready) begin
        awvalid_d = 1'b0;
      end
      if (!stop_now && (ahead_q != 2'd0) && (!awvalid_q || m_axi_awready) &&
          (bq_cnt_q != OutMax)) begin
        aw_load     = 1'b1;
        awvalid_d   = 1'b1;
        awaddr_d    = cur_q;
        awlen_d     = len_m1;
        cur_d       = cur_next;
        if (aw_row_last) begin
          row_addr_d  = next_row;
          row_end_d   = row_end_q + stride_q;
          aw_rows_d   = aw_rows_q - 16'd1;
        end
      end
      ahead_d = ahead_q + {1'b0, row_hs} - {1'b0, (aw_load & aw_row_last)};

      // ---- W ------------------------------------------------------------------------------
      if (w_hs) begin
        sh_data_d = sh_data_q >> (8 * BeatBytes);
        sh_mask_d = sh_mask_q >> BeatBytes;
        if (wlast) begin
          w_beat_d  = 8'd0;
          wq_rptr_d = (wq_rptr_q == PtrLast) ? {PtrW{1'b0}} : wq_rptr_q + 1'b1;
        end else begin
          w_beat_d  = w_beat_q + 8'd1;
        end
        if (w_row_end) begin
          sh_v_d = 1'b0;
        end
      end
      if (in_v_q && (!sh_v_q || w_row_end)) begin
        sh_v_d    = 1'b1;
        sh_data_d = in_shifted;
        sh_mask_d = mask_shifted;
        in_v_d    = 1'b0;
      end
      if (aw_load) begin
        wq_wptr_d = (wq_wptr_q == PtrLast) ? {PtrW{1'b0}} : wq_wptr_q + 1'b1;
        bq_wptr_d = (bq_wptr_q == PtrLast) ? {PtrW{1'b0}} : bq_wptr_q + 1'b1;
      end
      wq_cnt_d = wq_cnt_q + {{(OutW-1){1'b0}}, aw_load}
                          - {{(OutW-1){1'b0}}, (w_hs & wlast)};

      // ---- B ------------------------------------------------------------------------------
      if (b_hs) begin
        bq_rptr_d = (bq_rptr_q == PtrLast) ? {PtrW{1'b0}} : bq_rptr_q + 1'b1;
        if (b_err && !err_q) begin
          err_d      = 1'b1;
          err_addr_d = b_addr;
        end
      end
      bq_cnt_d = bq_cnt_q + {{(OutW-1){1'b0}}, aw_load}
                          - {{(OutW-1){1'b0}}, b_hs};

      // ---- Stop and finish ----------------------------------------------------------------
      if (stop_now) begin
        stop_d = 1'b1;
      end
      if ((bq_cnt_q == {OutW{1'b0}}) && (stop_q || (aw_rows_q == 16'd0))) begin
        busy_d = 1'b0;
        done_d = 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------------------
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q      <= 1'b0;
      stop_q      <= 1'b0;
      err_q       <= 1'b0;
      err_addr_q  <= 32'h0;
      done_q      <= 1'b0;
      stride_q    <= 32'h0;
      rb_m1_q     <= 8'h0;
      in_rows_q   <= 16'h0;
      in_lane_q   <= {OffW{1'b0}};
      in_v_q      <= 1'b0;
      in_lo_q     <= {OffW{1'b0}};
      ahead_q     <= 2'd0;
      aw_rows_q   <= 16'h0;
      row_addr_q  <= 32'h0;
      row_end_q   <= 32'h0;
      cur_q       <= 32'h0;
      awvalid_q   <= 1'b0;
      awaddr_q    <= 32'h0;
      awlen_q     <= 8'h0;
      wq_wptr_q   <= {PtrW{1'b0}};
      wq_rptr_q   <= {PtrW{1'b0}};
      wq_cnt_q    <= {OutW{1'b0}};
      bq_wptr_q   <= {PtrW{1'b0}};
      bq_rptr_q   <= {PtrW{1'b0}};
      bq_cnt_q    <= {OutW{1'b0}};
      sh_v_q      <= 1'b0;
      sh_mask_q   <= {ShBytes{1'b0}};
      w_beat_q    <= 8'd0;
    end else begin
      busy_q      <= busy_d;
      stop_q      <= stop_d;
      err_q       <= err_d;
      err_addr_q  <= err_addr_d;
      done_q      <= done_d;
      stride_q    <= stride_d;
      rb_m1_q     <= rb_m1_d;
      in_rows_q   <= in_rows_d;
      in_lane_q   <= in_lane_d;
      in_v_q      <= in_v_d;
      in_lo_q     <= in_lo_d;
      ahead_q     <= ahead_d;
      aw_rows_q   <= aw_rows_d;
      row_addr_q  <= row_addr_d;
      row_end_q   <= row_end_d;
      cur_q       <= cur_d;
      awvalid_q   <= awvalid_d;
      awaddr_q    <= awaddr_d;
      awlen_q     <= awlen_d;
      wq_wptr_q   <= wq_wptr_d;
      wq_rptr_q   <= wq_rptr_d;
      wq_cnt_q    <= wq_cnt_d;
      bq_wptr_q   <= bq_wptr_d;
      bq_rptr_q   <= bq_rptr_d;
      bq_cnt_q    <= bq_cnt_d;
      sh_v_q      <= sh_v_d;
      sh_mask_q   <= sh_mask_d;
      w_beat_q    <= w_beat_d;
    end
  end

  // Row data registers are qualified by in_v_q / sh_v_q: no reset.
  always @(posedge clk_i) begin
    in_data_q <= in_data_d;
    sh_data_q <= sh_data_d;
  end

  // FIFO storage, written with the AW.
  always @(posedge clk_i) begin
    if (aw_load) begin
      wq_q[wq_wptr_q] <= {len_m1, aw_row_last};
      bq_q[bq_wptr_q] <= cur_q;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Outputs
  // ---------------------------------------------------------------------------------------
  assign busy_o        = busy_q;
  assign done_o        = done_q;
  assign err_o         = err_q;
  assign err_addr_o    = err_addr_q;
  assign row_ready_o   = row_ready;
  assign wr_bytes_o    = w_hs ? strb_count : {CntW{1'b0}};
  assign m_axi_awvalid = awvalid_q;
  assign m_axi_awaddr  = awaddr_q;
  assign m_axi_awlen   = awlen_q;
  assign m_axi_awsize  = AxSize;
  assign m_axi_awburst = 2'b01;                       // INCR
  assign m_axi_wvalid  = wvalid;
  assign m_axi_wdata   = sh_data_q[8*BeatBytes-1:0];
  assign m_axi_wstrb   = sh_mask_q[BeatBytes-1:0];
  assign m_axi_wlast   = wlast;
  assign m_axi_bready  = 1'b1;

  // bresp[0] only separates EXOKAY from OKAY and DECERR from SLVERR.
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_bresp0 = m_axi_bresp[0];
  /* verilator lint_on UNUSEDSIGNAL */

`ifdef FORMAL
  // ---- Formal properties: `make formal` proves them by k-induction (docs/formal.md).
  // Assumptions (assume): a well-behaved job source, row source and AXI4 slave; small jobs
  // (at most FMaxRows rows) whose region does not wrap past 2^32, as tsr_ctrl's range and
  // window checks guarantee. Assertions (assert): the AXI4 master rules for AW/W/B and that
  // every burst stays inside the job's region (so the DMA window check is sufficient).
  localparam integer FMaxRows = 3;
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);

  // Job source: start only while idle, 1..FMaxRows rows of 1..4N bytes, no wrap.
  wire [34:0] f_mul_i = (rows_i == 16'd3) ? {3'b0, stride_i} + {3'b0, stride_i} :
                        (rows_i == 16'd2) ? {3'b0, stride_i} : 35'h0;
  always @(*) begin
    if (start_i) begin
      assume (!busy_q);
      assume (rows_i != 16'd0 && rows_i <= FMaxRows);
      assume (row_bytes_i != 8'd0 && row_bytes_i <= RowBytes);
      assume ({3'b0, addr_i} + f_mul_i + {27'h0, row_bytes_i} - 35'd1 < 35'h1_0000_0000);
    end
  end
  // Row source: valid and data hold until ready.
  always @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni && $past(row_valid_i && !row_ready_o))
      assume (row_valid_i && row_data_i == $past(row_data_i));
  end

  // Job region, captured at start: bytes f_start .. f_end.
  reg  [31:0] f_start, f_end;
  reg  [15:0] f_rows;
  always @(posedge clk_i) begin
    if (!busy_q && start_i) begin
      f_start <= addr_i;
      f_end   <= addr_i + f_mul_i[31:0] + {24'h0, row_bytes_i} - 32'd1;
      f_rows  <= rows_i;
    end
  end
  wire [31:0] f_lo = {f_start[31:OffW], {OffW{1'b0}}};    // first beat of the region
  wire [31:0] f_hi = {f_end[31:OffW], {OffW{1'b0}}};      // last beat of the region

  // Bus-level bookkeeping. An AW is "new" in its first cycle of VALID.
  wire f_w_hs  = m_axi_wvalid & m_axi_wready;
  wire f_wl_hs = f_w_hs & m_axi_wlast;
  wire f_b_hs  = m_axi_bvalid & m_axi_bready;
  reg  f_aw_held;                                         // AW presented, not yet taken
  wire f_aw_new = m_axi_awvalid & ~f_aw_held;
  wire [OutW:0] f_aw_out;   // AWs accepted, B not yet received
  reg  [OutW:0] f_wd_out;   // W bursts completed, B not yet received
  reg  [OutW:0] f_lq_cnt;   // AWs presented whose W burst is not complete
  reg  [7:0]    f_len [0:FifoDepth-1];
  reg  [PtrW-1:0] f_wp, f_rp;
  reg  [7:0]    f_wbeat;    // W beats of the current burst already sent
  wire [7:0]    f_head = (f_lq_cnt == 0) ? m_axi_awlen : f_len[f_rp];
  wire          f_have = (f_lq_cnt != 0) | f_aw_new;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_aw_held <= 1'b0;
      f_wd_out <= 0; f_lq_cnt <= 0;
      f_wp <= 0; f_rp <= 0; f_wbeat <= 8'd0;
    end else begin
      f_aw_held <= m_axi_awvalid & ~m_axi_awready;
      f_wd_out  <= f_wd_out + f_wl_hs - f_b_hs;
      f_lq_cnt  <= f_lq_cnt + f_aw_new - f_wl_hs;
      if (f_aw_new) f_wp <= (f_wp == PtrLast) ? {PtrW{1'b0}} : f_wp + 1'b1;
      if (f_wl_hs)  f_rp <= (f_rp == PtrLast) ? {PtrW{1'b0}} : f_rp + 1'b1;
      if (f_w_hs)   f_wbeat <= m_axi_wlast ? 8'd0 : f_wbeat + 8'd1;
    end
  end
  always @(posedge clk_i) if (rst_ni && f_aw_new) f_len[f_wp] <= m_axi_awlen;

  // Slave: B only for a burst whose AW was accepted and whose W beats all arrived.
  always @(*) if (m_axi_bvalid) assume (f_aw_out != 0 && f_wd_out != 0);

  // ---- Assertions ------------------------------------------------------------------------
  // The AXI4 master rules for AW (shared with tsr_dma_rd's AR): INCR bursts of full-width
  // beats, aligned, 1..MaxBurstBeats beats, no 4 KiB crossing, inside the job's region,
  // VALID and payload held until READY, at most MaxOutstanding bursts unanswered.
  tsr_axi_master_props #(
    .AxiDataWidth   (AxiDataWidth),
    .MaxBurstBeats  (MaxBurstBeats),
    .MaxOutstanding (MaxOutstanding)
  ) u_f_aw (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .valid_i       (m_axi_awvalid),
    .ready_i       (m_axi_awready),
    .addr_i        (m_axi_awaddr),
    .len_i         (m_axi_awlen),
    .size_i        (m_axi_awsize),
    .burst_i       (m_axi_awburst),
    .region_lo_i   (f_lo),
    .region_hi_i   (f_hi),
    .answer_i      (f_b_hs),
    .outstanding_o (f_aw_out)
  );

  // The write channels' own rules.
  always @(*) begin
    if (rst_ni) begin
      // W: never ahead of its AW; AWLEN+1 beats with WLAST exactly on the last.
      if (m_axi_wvalid) begin
        assert (f_have);
        assert (f_wbeat <= f_head);
        assert (m_axi_wlast == (f_wbeat == f_head));
      end
      assert (m_axi_bready);
    end
  end
  // W VALID and payload hold until READY.
  always @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni) begin
      if ($past(m_axi_wvalid && !m_axi_wready))
        assert (m_axi_wvalid && m_axi_wdata == $past(m_axi_wdata) &&
                m_axi_wstrb == $past(m_axi_wstrb) && m_axi_wlast == $past(m_axi_wlast));
    end
  end

  // ---- Inductive invariants (internal state <-> bus bookkeeping) -------------------------
  wire [15:0] f_done_rows = f_rows - aw_rows_q;           // rows whose bursts are all issued
  wire [31:0] f_row_off   = (f_done_rows == 16'd3) ? stride_q + stride_q + stride_q :
                            (f_done_rows == 16'd2) ? stride_q + stride_q :
                            (f_done_rows == 16'd1) ? stride_q : 32'h0;
  wire [31:0] f_mul_rows  = (f_rows == 16'd3) ? stride_q + stride_q :
                            (f_rows == 16'd2) ? stride_q : 32'h0;
  wire [34:0] f_mul_rows35 = (f_rows == 16'd3) ? {3'b0, stride_q} + {3'b0, stride_q} :
                             (f_rows == 16'd2) ? {3'b0, stride_q} : 35'h0;
  // Queued W bursts that end a row: one per row fully issued but not yet fully sent.
  wire [FifoDepth-1:0] f_qlast;
  reg  [7:0]           f_nlast;
  integer              f_i;
  always @(*) begin
    f_nlast = 8'd0;
    for (f_i = 0; f_i < FifoDepth; f_i = f_i + 1) f_nlast = f_nlast + {7'b0, f_qlast[f_i]};
  end
  genvar fj;
  generate
    for (fj = 0; fj < FifoDepth; fj = fj + 1) begin : gen_f_len
      wire [PtrW-1:0] f_dist = fj - f_rp;               // slot's place in the queue
      always @(*) if (rst_ni && ({1'b0, f_dist} < f_lq_cnt))
        assert (f_len[fj] == wq_q[fj][8:1]);
      // Every queued burst (AW presented or not) is 1..MaxBurstBeats beats long.
      wire [PtrW-1:0] f_wdist = fj - wq_rptr_q;
      always @(*) if (rst_ni && ({1'b0, f_wdist} < wq_cnt_q))
        assert ({24'h0, wq_q[fj][8:1]} <= MaxLenM1);
      assign f_qlast[fj] = ({1'b0, f_wdist} < wq_cnt_q) & wq_q[fj][0];
    end
  endgenerate
  always @(*) begin
    if (rst_ni) begin
      assert (bq_cnt_q == f_aw_out + awvalid_q);
      assert (bq_cnt_q == wq_cnt_q + f_wd_out);
      assert (wq_cnt_q == f_lq_cnt + f_aw_new);
      assert (bq_cnt_q <= OutMax);
      assert (wq_cnt_q <= OutMax);
      // The bus counters stay in range (no wrap inside the sums above).
      assert (f_aw_out <= bq_cnt_q && f_wd_out <= bq_cnt_q && f_lq_cnt <= wq_cnt_q);
      assert (wq_cnt_q <= bq_cnt_q);
      // No burst queued for W: the beat counter is at the start of a burst.
      if (wq_cnt_q == 0) assert (w_beat_q == 8'd0);
      else               assert (w_beat_q <= w_len);
      assert ((wq_wptr_q - wq_rptr_q) == wq_cnt_q[PtrW-1:0]);
      assert (f_wbeat == w_beat_q);
      assert (f_rp == wq_rptr_q);
      assert (wq_wptr_q == ((f_aw_new) ? ((f_wp == PtrLast) ? {PtrW{1'b0}} : f_wp + 1'b1) : f_wp));
      assert (bq_wptr_q == wq_wptr_q);
      assert (f_aw_held == (awvalid_q & f_aw_held));
      // Rows held (input slot, shift register) = rows not fully issued + rows fully issued
      // whose last burst is still queued for W.
      assert ({7'b0, in_v_q} + {7'b0, sh_v_q} == {6'b0, ahead_q} + f_nlast);
      if (awvalid_q) assert (wq_q[(wq_wptr_q == 0) ? PtrLast : wq_wptr_q - 1'b1][8:1] == awlen_q);
      if (!busy_q) assert (!awvalid_q && bq_cnt_q == 0);
      if (busy_q) begin
        assert (f_rows != 16'd0 && f_rows <= FMaxRows);
        assert (aw_rows_q <= f_rows && in_rows_q <= aw_rows_q);
        assert ({14'h0, ahead_q} == aw_rows_q - in_rows_q);
        assert (ahead_q <= 2'd2);
        // Row size and the whole region (start_i's assumptions, kept while busy).
        assert (rb_m1_q < RowBytes);
        assert ({3'b0, f_start} + f_mul_rows35 + {27'h0, rb_m1_q} < 35'h1_0000_0000);
        if (aw_rows_q != 16'd0)
          assert ({1'b0, f_start} + {1'b0, f_row_off} + {25'h0, rb_m1_q} <= {1'b0, f_end});
        assert (row_addr_q == f_start + f_row_off);
        assert (row_end_q == row_addr_q + {24'h0, rb_m1_q});
        assert (f_end == f_start + f_mul_rows + {24'h0, rb_m1_q});
        if (aw_rows_q != 16'd0)
          assert (cur_q[OffW-1:0] == {OffW{1'b0}} && cur_q >= {row_addr_q[31:OffW], {OffW{1'b0}}} &&
                  cur_q <= {row_end_q[31:OffW], {OffW{1'b0}}});
      end
    end
  end
`endif
endmodule

`default_nettype wire
