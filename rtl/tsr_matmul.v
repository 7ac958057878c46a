// tsr_matmul: the MATMUL command: load weights into the array, stream A rows, accumulate results.
`default_nettype none

// One command at a time: start_i (accepted while ready_o) latches a MATMUL.
//   WLOAD  : N cycles; reads weight rows W_ADDR.. from the scratchpad into the
//            bank the array is NOT computing with (rows >= K and columns >= N
//            are written as zero). Skipped for KEEP_WEIGHTS.
//   STREAM : M cycles; reads A rows A_ADDR.. and feeds one per cycle.
// ready_o is high in StIdle and on the last A row of a STREAM: a start then
// streams its first row in the next cycle when its weights are already in the
// array (preloaded, or KEEP_WEIGHTS), with no idle row between the two, and
// otherwise its weight load overlaps this one's drain through the array. Each
// row carries the bank it was read for (st_bank_q), since bank_q flips as the
// last row of the one before enters. Results
// leave the array in order and are written (overwrite or read-modify-write
// accumulate) to the accumulator; idle_o says nothing is left in flight.
//
// Weight preload: while a STREAM runs, pre_i (accepted while pre_ready_o)
// loads the NEXT command's weights (W_ADDR, K, N) into the idle bank through
// the separate weight read port; the next start_i then skips WLOAD and streams
// at once with the banks swapped. The controller asks for it only when the
// weight rows and the streaming A rows sit in different scratchpad banks, so
// the two read ports never meet. A preload starts once N rows of the current
// STREAM have entered, so the bank it overwrites (used by the MATMUL before)
// has drained (same argument as below).
//
// Why the bank being loaded is never in use: it was last used by the matmul
// before the previous weight load, whose N-cycle WLOAD plus at least one
// STREAM cycle separate that matmul's last input row from this load's first
// write; the row r written here was needed at most r + N cycles after it.
module tsr_matmul #(
  parameter integer ArrayDim = 8,
  parameter integer SpadRows = 4096,
  parameter integer AccRows  = 1024,
  localparam integer N = ArrayDim,
  localparam integer SpadAw = $clog2(SpadRows),
  localparam integer AccAw = $clog2(AccRows),
  localparam integer RowIdxWidth = (N > 1) ? $clog2(N) : 1
) (
  input  wire              clk_i,
  input  wire              rst_ni,
  input  wire              clr_i,          // synchronous abort (soft reset)
  input  wire              start_i,
  input  wire              accumulate_i,
  input  wire              keep_weights_i,
  input  wire [23:0]       a_addr_i,
  input  wire [23:0]       w_addr_i,
  input  wire [23:0]       c_addr_i,
  input  wire [15:0]       m_i,
  input  wire [15:0]       k_i,
  input  wire [15:0]       n_i,
  input  wire              pre_i,          // preload the next command's weights
  input  wire [23:0]       pre_w_addr_i,
  input  wire [15:0]       pre_k_i,
  input  wire [15:0]       pre_n_i,
  output wire              pre_ready_o,
  output wire              ready_o,
  output wire              idle_o,
  output wire              stream_o,       // an A row is read for the array this cycle
  output wire              spad_re_o,      // A rows
  output wire [SpadAw-1:0] spad_raddr_o,
  input  wire [8*N-1:0]    spad_rdata_i,
  output wire              w_re_o,         // weight rows (a second read port)
  output wire [SpadAw-1:0] w_raddr_o,
  input  wire [8*N-1:0]    w_rdata_i,
  output wire              acc_re_o,
  output wire [AccAw-1:0]  acc_raddr_o,
  input  wire [32*N-1:0]   acc_rdata_i,
  output wire              acc_we_o,
  output wire [AccAw-1:0]  acc_waddr_o,
  output wire [32*N-1:0]   acc_wdata_o
);
  localparam [15:0] LastRow = N[15:0] - 16'd1;
  localparam [1:0] StIdle = 2'd0, StWload = 2'd1, StStream = 2'd2;

  reg [1:0]   state_q, state_d;
  reg [15:0]  cnt_q, cnt_d;          // row counter within WLOAD / STREAM
  reg         acc_mode_q, acc_mode_d;
  reg [23:0]  a_addr_q, a_addr_d;
  reg [23:0]  w_addr_q, w_addr_d;
  reg [23:0]  c_addr_q, c_addr_d;
  reg [15:0]  m_q, m_d;
  reg [15:0]  k_q, k_d;
  reg [15:0]  n_q, n_d;
  reg         bank_q, bank_d;        // bank the array computes with

  // One-cycle read-latency stages.
  reg                   wl_valid_q, wl_valid_d;   // weight row write pending
  reg [RowIdxWidth-1:0] wl_row_q, wl_row_d;
  reg                   wl_zero_q, wl_zero_d;     // row >= K: write zeros
  reg [15:0]            wl_n_q, wl_n_d;           // columns >= this are written as zero
  reg                   wl_bank_q, wl_bank_d;     // array bank the row goes to
  // Preload of the next command's weights.
  reg                   pl_busy_q, pl_busy_d;
  reg                   pl_done_q, pl_done_d;     // the idle bank holds them
  reg [15:0]            pl_cnt_q, pl_cnt_d;
  reg [23:0]            pl_addr_q, pl_addr_d;
  reg [15:0]            pl_k_q, pl_k_d;
  reg [15:0]            pl_n_q, pl_n_d;
  reg                   st_valid_q, st_valid_d;   // A row arriving from the scratchpad
  reg                   st_bank_q;                // ... and the weight bank it was read for
  reg [AccAw:0]         st_tag_q, st_tag_d;       // {accumulate, acc row}

  reg              spad_re;
  reg [23:0]       spad_raddr;
  reg              w_re;
  reg [23:0]       w_raddr;
  // Cycles since an A row last entered the array with each weight bank
  // (saturating at N). A bank may be rewritten once that is N: row r of the
  // last input to use it has then left PE row r.
  localparam integer AgeW = $clog2(N + 1);
  localparam [AgeW-1:0] AgeMax = N[AgeW-1:0];
  reg  [AgeW-1:0]  age_q [0:1];
  wire             spare_free = (age_q[~bank_q] == AgeMax);
  wire             last_row   = (state_q == StStream) && (cnt_q == m_q - 16'h1);
  wire             pre_ready  = (state_q == StStream) && !last_row && !pl_busy_q && !pl_done_q && spare_free;
  wire             ready      = ((state_q == StIdle) || last_row) && !pl_busy_q;

  // A start (in StIdle, or on the last row of a STREAM: back to back).
  task automatic accept;
    begin
      acc_mode_d = accumulate_i;
      a_addr_d   = a_addr_i;
      w_addr_d   = w_addr_i;
      c_addr_d   = c_addr_i;
      m_d        = m_i;
      k_d        = k_i;
      n_d        = n_i;
      cnt_d      = 16'h0;
      pl_done_d  = 1'b0;
      if (keep_weights_i) begin
        state_d = StStream;
      end else if (pl_done_q) begin
        bank_d  = ~bank_q;          // the preloaded bank
        state_d = StStream;
      end else begin
        state_d = StWload;
      end
    end
  endtask

  always @(*) begin
    state_d    = state_q;
    cnt_d      = cnt_q;
    acc_mode_d = acc_mode_q;
    a_addr_d   = a_addr_q;
    w_addr_d   = w_addr_q;
    c_addr_d   = c_addr_q;
    m_d        = m_q;
    k_d        = k_q;
    n_d        = n_q;
    bank_d     = bank_q;
    wl_valid_d = 1'b0;
    wl_row_d   = wl_row_q;
    wl_zero_d  = 1'b0;
    wl_n_d     = wl_n_q;
    wl_bank_d  = wl_bank_q;
    pl_busy_d  = pl_busy_q;
    pl_done_d  = pl_done_q;
    pl_cnt_d   = pl_cnt_q;
    pl_addr_d  = pl_addr_q;
    pl_k_d     = pl_k_q;
    pl_n_d     = pl_n_q;
    w_re       = 1'b0;
    w_raddr    = 24'h0;
    st_valid_d = 1'b0;
    st_tag_d   = st_tag_q;
    spad_re    = 1'b0;
    spad_raddr = 24'h0;
    case (state_q)
      StIdle: begin
        if (start_i) begin
          accept();
        end
      end
      StWload: if (spare_free) begin
        w_re       = (cnt_q < k_q);
        w_raddr    = w_addr_q + {8'h0, cnt_q};
        wl_valid_d = 1'b1;
        wl_row_d   = cnt_q[RowIdxWidth-1:0];
        wl_zero_d  = (cnt_q >= k_q);
        wl_n_d     = n_q;
        wl_bank_d  = ~bank_q;
        if (cnt_q == LastRow) begin
          cnt_d   = 16'h0;
          bank_d  = ~bank_q;
          state_d = StStream;
        end else begin
          cnt_d = cnt_q + 16'h1;
        end
      end
      StStream: begin
        spad_re    = 1'b1;
        spad_raddr = a_addr_q + {8'h0, cnt_q};
        st_valid_d = 1'b1;
        st_tag_d   = {acc_mode_q, c_addr_q[AccAw-1:0] + cnt_q[AccAw-1:0]};
        if (cnt_q == m_q - 16'h1) begin
          state_d = StIdle;
          if (start_i && !pl_busy_q) begin
            accept();
          end
        end else begin
          cnt_d = cnt_q + 16'h1;
        end
      end
      default: state_d = StIdle;
    endcase
    // The preload runs beside a STREAM (never beside a WLOAD: it only starts
    // in STREAM, and a WLOAD only follows a start without a finished preload).
    if (pre_i && pre_ready) begin
      pl_busy_d = 1'b1;
      pl_cnt_d  = 16'h0;
      pl_addr_d = pre_w_addr_i;
      pl_k_d    = pre_k_i;
      pl_n_d    = pre_n_i;
    end
    if (pl_busy_q) begin
      w_re       = (pl_cnt_q < pl_k_q);
      w_raddr    = pl_addr_q + {8'h0, pl_cnt_q};
      wl_valid_d = 1'b1;
      wl_row_d   = pl_cnt_q[RowIdxWidth-1:0];
      wl_zero_d  = (pl_cnt_q >= pl_k_q);
      wl_n_d     = pl_n_q;
      wl_bank_d  = ~bank_q;
      pl_cnt_d   = pl_cnt_q + 16'h1;
      if (pl_cnt_q == LastRow) begin
        pl_busy_d = 1'b0;
        pl_done_d = 1'b1;
      end
    end
    if (clr_i) begin
      state_d    = StIdle;
      wl_valid_d = 1'b0;
      st_valid_d = 1'b0;
      pl_busy_d  = 1'b0;
      pl_done_d  = 1'b0;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StIdle;
      cnt_q      <= 16'h0;
      acc_mode_q <= 1'b0;
      a_addr_q   <= 24'h0;
      w_addr_q   <= 24'h0;
      c_addr_q   <= 24'h0;
      m_q        <= 16'h0;
      k_q        <= 16'h0;
      n_q        <= 16'h0;
      bank_q     <= 1'b0;
      wl_valid_q <= 1'b0;
      wl_row_q   <= {RowIdxWidth{1'b0}};
      wl_zero_q  <= 1'b0;
      wl_n_q     <= 16'h0;
      wl_bank_q  <= 1'b0;
      pl_busy_q  <= 1'b0;
      pl_done_q  <= 1'b0;
      pl_cnt_q   <= 16'h0;
      pl_addr_q  <= 24'h0;
      pl_k_q     <= 16'h0;
      pl_n_q     <= 16'h0;
      st_valid_q <= 1'b0;
      st_bank_q  <= 1'b0;
      st_tag_q   <= {(AccAw+1){1'b0}};
    end else begin
      state_q    <= state_d;
      cnt_q      <= cnt_d;
      acc_mode_q <= acc_mode_d;
      a_addr_q   <= a_addr_d;
      w_addr_q   <= w_addr_d;
      c_addr_q   <= c_addr_d;
      m_q        <= m_d;
      k_q        <= k_d;
      n_q        <= n_d;
      bank_q     <= bank_d;
      wl_valid_q <= wl_valid_d;
      wl_row_q   <= wl_row_d;
      wl_zero_q  <= wl_zero_d;
      wl_n_q     <= wl_n_d;
      wl_bank_q  <= wl_bank_d;
      pl_busy_q  <= pl_busy_d;
      pl_done_q  <= pl_done_d;
      pl_cnt_q   <= pl_cnt_d;
      pl_addr_q  <= pl_addr_d;
      pl_k_q     <= pl_k_d;
      pl_n_q     <= pl_n_d;
      st_valid_q <= st_valid_d;
      st_bank_q  <= bank_q;   // a start on the last row flips bank_q as that row enters
      st_tag_q   <= st_tag_d;
    end
  end

  integer b;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      age_q[0] <= AgeMax;
      age_q[1] <= AgeMax;
    end else begin
      for (b = 0; b < 2; b = b + 1) begin
        if (st_valid_d && (bank_q == b[0])) begin
          age_q[b] <= {AgeW{1'b0}};
        end else if (age_q[b] != AgeMax) begin
          age_q[b] <= age_q[b] + {{(AgeW-1){1'b0}}, 1'b1};
        end
      end
    end
  end

  // Weight row from the scratchpad, with columns >= N (the command's n) zeroed;
  // zero when no row is written (the array ignores it then).
  reg [8*N-1:0] w_row;
  integer col;
  always @(*) begin
    w_row = {(8*N){1'b0}};
    if (wl_valid_q) begin
      for (col = 0; col < N; col = col + 1) begin
        w_row[8*col +: 8] = (wl_zero_q || (col >= wl_n_q)) ? 8'h0 : w_rdata_i[8*col +: 8];
      end
    end
  end

  wire             out_valid;
  wire [32*N-1:0]  out_row;
  wire [AccAw:0]   out_tag;
  wire             array_busy;

  // The bank being loaded is the one not in use (~bank_q when the row was
  // read; the last WLOAD write lands the cycle bank_q flips, so it is kept
  // with the row in wl_bank_q).

  tsr_array #(
    .ArrayDim (N),
    .TagWidth (AccAw + 1)
  ) u_array (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (st_valid_q),
    .in_row_i    (spad_rdata_i),
    .in_sel_i    (st_bank_q),
    .in_tag_i    (st_tag_q),
    .w_we_i      (wl_valid_q),
    .w_row_i     (wl_row_q),
    .w_bank_i    (wl_bank_q),
    .w_data_i    (w_row),
    .out_valid_o (out_valid),
    .out_row_o   (out_row),
    .out_tag_o   (out_tag),
    .busy_o      (array_busy)
  );

  // Accumulator write-back: stage 0 reads the old row (accumulate), stage 1
  // adds and writes. A row written in stage 1 while the same row is read in
  // stage 0 is forwarded, because the RAM returns the old contents.
  reg              wb_valid_q;
  reg              wb_acc_q;
  reg [AccAw-1:0]  wb_addr_q;
  reg [32*N-1:0]   wb_row_q;
  reg              wb_fwd_q;
  reg [32*N-1:0]   wb_last_q;     // the sum written in the previous cycle
  wire             out_acc  = out_tag[AccAw];
  wire [AccAw-1:0] out_addr = out_tag[AccAw-1:0];

  reg [32*N-1:0] wb_sum;
  reg [32*N-1:0] wb_base;
  integer lane;
  always @(*) begin
    wb_base = wb_fwd_q ? wb_last_q : acc_rdata_i;
    for (lane = 0; lane < N; lane = lane + 1) begin
      wb_sum[32*lane +: 32] = wb_row_q[32*lane +: 32] +
                              (wb_acc_q ? wb_base[32*lane +: 32] : 32'h0);
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wb_valid_q <= 1'b0;
      wb_fwd_q   <= 1'b0;
    end else begin
      wb_valid_q <= out_valid && !clr_i;
      wb_fwd_q   <= out_valid && wb_valid_q && (wb_addr_q == out_addr);
    end
  end
  always @(posedge clk_i) begin
    wb_acc_q  <= out_acc;
    wb_addr_q <= out_addr;
    wb_row_q  <= out_row;
    wb_last_q <= wb_sum;
  end

  assign ready_o      = ready;
  assign stream_o     = (state_q == StStream);
  assign idle_o       = (state_q == StIdle) && !pl_busy_q && !wl_valid_q && !st_valid_q && !array_busy &&
                        !out_valid && !wb_valid_q;
  assign spad_re_o    = spad_re;
  assign spad_raddr_o = spad_raddr[SpadAw-1:0];
  assign w_re_o       = w_re;
  assign w_raddr_o    = w_raddr[SpadAw-1:0];
  assign pre_ready_o  = pre_ready;
  assign acc_re_o     = out_valid && out_acc;
  assign acc_raddr_o  = out_addr;
  assign acc_we_o     = wb_valid_q;
  assign acc_waddr_o  = wb_addr_q;
  assign acc_wdata_o  = wb_sum;

  // Address bits above the memory size were range-checked by the controller.
  /* verilator tracing_off */  // an unused signal the model need not compute
  wire unused_addr = ^{spad_raddr[23:SpadAw], w_raddr[23:SpadAw]};
  /* verilator tracing_on */
endmodule

`default_nettype wire
