// tsr_matmul: the MATMUL command: load weights into the array, stream A rows, accumulate results.
`default_nettype none

// One command at a time: start_i (accepted while ready_o) latches a MATMUL.
// Its K rows of weights are T = ceil(K / N) tiles of N rows (the last one
// K - (T-1)*N rows); tile t uses weight rows W_ADDR + t*N .. and A rows
// A_ADDR + t*M .., and every tile after the first accumulates onto the rows
// the one before wrote, so a command is T one-tile MATMULs back to back.
//   WLOAD  : N cycles; reads a tile's weight rows from the scratchpad into the
//            bank the array is NOT computing with (rows >= K_t and columns
//            >= N are written as zero), then streams with it. Used when the
//            command's weight and A rows share a scratchpad bank (sep_i low),
//            one tile after the other. Skipped for KEEP_WEIGHTS (one tile).
//   STREAM : M cycles per tile; reads the tile's A rows and feeds one per cycle.
//   WAIT   : until the weight loader (below) is loading the next tile.
// ready_o is high in StIdle and on the last A row of the last tile, once the
// loader has read every weight row of the command (see cur_ld). Each row
// carries the bank it was read for (st_bank_q), since bank_q flips as the
// last row of the tile before enters. Results leave the array in order and
// are written (overwrite or read-modify-write accumulate) to the
// accumulator; idle_o says nothing is left in flight or waiting.
//
// Weight loader. It fills the idle bank through the separate weight read
// port, one row a cycle, with the next tile to stream:
//   - the current command's tiles, when sep_i said at the start that the
//     command's weight rows and A rows lie in different scratchpad banks;
//   - the NEXT command's first tile, requested by the controller (pre_i,
//     accepted while pre_ready_o: during the last tile, when the idle bank
//     holds nothing for the current command) only when its rows and the
//     streaming A rows sit in different banks. The request waits (pq_*) until
//     the loader and the idle bank are free, so it works at any M; the next
//     start then waits for it (WAIT) instead of loading its own first tile.
// The streamer takes the bank being loaded (flips bank_q) as soon as the
// loader has issued its first read, and streams while the loader writes on
// (only with sep: the loader's reads then never meet the A rows' bank).
//
// Timing, per PE: an A row read in cycle R (st_valid_d) enters the array in
// R+1, and element k meets PE[k][j] in cycle R+1+k+j, which multiplies by
// the weight register as it is in that cycle. A load whose first read is in
// cycle P writes weight row k at the end of cycle P+1+k.
//   - New weights in time: the first A row of the new tile is read in R >= P+1
//     (the take), so PE[k][j] needs row k in R+1+k+j >= P+2+k: written.
//   - Old weights not overwritten in use: the last row that used the bank,
//     read in R', is done with PE[k][N-1] in cycle R'+k+N; row k is rewritten
//     at the end of P+1+k, so P >= R'+N-1 suffices. age_q counts cycles since
//     R' (0 in R'+1); a load starts its reads at age >= AgeFree = N-2 (WLOAD
//     reads in the cycle it sees that, the loader one cycle later).
// So a bank turns around in about 2N cycles (N draining, N loading) while the
// other streams, and a tile costs about max(M, N) cycles: at M = 1 the loader
// is the bound, N rows and one cycle to start per tile.
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
  input  wire              sep_i,          // W and A rows in different scratchpad banks
  input  wire [23:0]       a_addr_i,
  input  wire [23:0]       w_addr_i,
  input  wire [23:0]       c_addr_i,
  input  wire [15:0]       m_i,
  input  wire [15:0]       k_i,
  input  wire [15:0]       n_i,
  input  wire              pre_i,          // preload the next command's first tile
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
  localparam [15:0] Dim16 = N[15:0];
  localparam [23:0] Dim24 = N[23:0];
  localparam integer DimLog2 = $clog2(N);
  localparam [1:0] StIdle = 2'd0, StWload = 2'd1, StStream = 2'd2, StWait = 2'd3;

  reg [1:0]   state_q, state_d;
  reg [15:0]  cnt_q, cnt_d;          // row counter within WLOAD / STREAM
  reg         acc_mode_q, acc_mode_d;
  reg [23:0]  a_addr_q, a_addr_d;    // the streaming tile's first A row
  reg [23:0]  w_addr_q, w_addr_d;    // the tile a WLOAD loads: first row ...
  reg [15:0]  k_q, k_d;              // ... and rows
  reg [23:0]  c_addr_q, c_addr_d;
  reg [15:0]  m_q, m_d;
  reg [15:0]  n_q, n_d;
  reg         sep_q, sep_d;
  reg [15:0]  st_left_q, st_left_d;  // tiles still to stream after this one
  reg [15:0]  ld_left_q, ld_left_d;  // tiles whose weight load has not begun
  reg [23:0]  nw_addr_q, nw_addr_d;  // first weight row of the next tile to load
  reg [15:0]  nk_q, nk_d;            // weight rows not yet loaded
  reg         bank_q, bank_d;        // bank the array computes with

  // One-cycle read-latency stages.
  reg                   wl_valid_q, wl_valid_d;   // weight row write pending
  reg [RowIdxWidth-1:0] wl_row_q, wl_row_d;
  reg                   wl_zero_q, wl_zero_d;     // row >= K: write zeros
  reg [15:0]            wl_n_q, wl_n_d;           // columns >= this are written as zero
  reg                   wl_bank_q, wl_bank_d;     // array bank the row goes to
  // The weight loader, and the next command's request waiting for it.
  reg                   pl_busy_q, pl_busy_d;
  reg                   pl_taken_q, pl_taken_d;   // the streamer already uses the bank
  reg                   pl_done_q, pl_done_d;     // the idle bank holds the next tile
  reg                   pl_bank_q, pl_bank_d;     // the bank being loaded
  reg [15:0]            pl_cnt_q, pl_cnt_d;
  reg [23:0]            pl_addr_q, pl_addr_d;
  reg [15:0]            pl_k_q, pl_k_d;
  reg [15:0]            pl_n_q, pl_n_d;
  reg                   pq_v_q, pq_v_d;
  reg [23:0]            pq_addr_q, pq_addr_d;
  reg [15:0]            pq_k_q, pq_k_d;
  reg [15:0]            pq_n_q, pq_n_d;
  reg                   st_valid_q, st_valid_d;   // A row arriving from the scratchpad
  reg                   st_bank_q;                // ... and the weight bank it was read for
  reg [AccAw:0]         st_tag_q, st_tag_d;       // {accumulate, acc row}

  reg              spad_re;
  reg [23:0]       spad_raddr;
  reg              w_re;
  reg [23:0]       w_raddr;
  reg              take;             // the streamer takes the loaded (or loading) bank now
  reg              drop;             // a KEEP_WEIGHTS start: whatever was preloaded is not its
  reg              pl_go_int;        // the loader starts the current command's next tile
  reg              pl_go_ext;        // ... or the next command's first tile
  // Cycles since an A row was last read for each weight bank (saturating at
  // N). A load may start once that is AgeFree (see the timing note above).
  localparam integer AgeW = $clog2(N + 1);
  localparam [AgeW-1:0] AgeMax = N[AgeW-1:0];
  localparam [AgeW-1:0] AgeFree = AgeMax - 2;
  reg  [AgeW-1:0]  age_q [0:1];
  wire             spare_free = (age_q[~bank_q] >= AgeFree);
  wire             last_tile  = (st_left_q == 16'h0);
  wire             last_row   = (state_q == StStream) && (cnt_q == m_q - 16'h1) && last_tile;
  wire             pl_fin     = pl_busy_q && (pl_cnt_q == LastRow);
  wire             pl_loaded  = pl_done_q || (pl_busy_q && !pl_taken_q);  // the idle bank's next tile
  wire             pre_ready  = (state_q == StStream) && last_tile && !pq_v_q && !pl_loaded;
  wire             pre_go     = pre_i && pre_ready;
  // A MATMUL retires (ready_o) only once the loader has read all its weight
  // rows too: its retirement may free them for a LOAD to overwrite.
  wire             cur_ld     = pl_busy_q && pl_taken_q;
  wire             ready      = ((state_q == StIdle) || last_row) && !cur_ld;
  // Free for a new load: idle, or issuing the last read of a load already
  // taken (bank_q has flipped, so ~bank_q is the bank to load next): the
  // port then reads a row every cycle.
  wire             pl_free    = (!pl_busy_q || (pl_fin && pl_taken_q)) && !pl_done_q && spare_free;
  wire [16:0]      k_tiles    = ({1'b0, k_i} + {1'b0, LastRow}) >> DimLog2;   // T = ceil(K / N)
  wire [15:0]      k_first    = (k_i < Dim16) ? k_i : Dim16;
  wire [15:0]      nk_tile    = (nk_q < Dim16) ? nk_q : Dim16;

  // A start (in StIdle, or on the last row of a STREAM: back to back).
  task automatic accept;
    begin
      acc_mode_d = accumulate_i;
      a_addr_d   = a_addr_i;
      c_addr_d   = c_addr_i;
      m_d        = m_i;
      n_d        = n_i;
      sep_d      = sep_i;
      cnt_d      = 16'h0;
      w_addr_d   = w_addr_i;
      k_d        = k_first;
      st_left_d  = k_tiles[15:0] - 16'h1;
      ld_left_d  = k_tiles[15:0] - 16'h1;
      nw_addr_d  = w_addr_i + Dim24;
      nk_d       = k_i - k_first;
      if (keep_weights_i) begin
        st_left_d = 16'h0;
        ld_left_d = 16'h0;
        drop      = 1'b1;
        state_d   = StStream;
      end else if (pl_done_q || (pl_loaded && sep_i)) begin
        take    = 1'b1;             // its first tile, preloaded
        bank_d  = ~bank_q;
        state_d = StStream;
      end else if (pl_loaded || pq_v_q || pre_go) begin
        state_d = StWait;           // its first tile is being (or will be) preloaded
      end else if (sep_i) begin
        ld_left_d = k_tiles[15:0];  // the loader loads every tile
        nw_addr_d = w_addr_i;
        nk_d      = k_i;
        state_d   = StWait;
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
    k_d        = k_q;
    c_addr_d   = c_addr_q;
    m_d        = m_q;
    n_d        = n_q;
    sep_d      = sep_q;
    st_left_d  = st_left_q;
    ld_left_d  = ld_left_q;
    nw_addr_d  = nw_addr_q;
    nk_d       = nk_q;
    bank_d     = bank_q;
    take       = 1'b0;
    drop       = 1'b0;
    pl_go_int  = 1'b0;
    pl_go_ext  = 1'b0;
    wl_valid_d = 1'b0;
    wl_row_d   = wl_row_q;
    wl_zero_d  = 1'b0;
    wl_n_d     = wl_n_q;
    wl_bank_d  = wl_bank_q;
    pl_busy_d  = pl_busy_q;
    pl_taken_d = pl_taken_q;
    pl_done_d  = pl_done_q;
    pl_bank_d  = pl_bank_q;
    pl_cnt_d   = pl_cnt_q;
    pl_addr_d  = pl_addr_q;
    pl_k_d     = pl_k_q;
    pl_n_d     = pl_n_q;
    pq_v_d     = pq_v_q;
    pq_addr_d  = pq_addr_q;
    pq_k_d     = pq_k_q;
    pq_n_d     = pq_n_q;
    w_re       = 1'b0;
    w_raddr    = 24'h0;
    st_valid_d = 1'b0;
    st_tag_d   = st_tag_q;
    spad_re    = 1'b0;
    spad_raddr = 24'h0;
    case (state_q)
      StIdle: begin
        if (start_i && !cur_ld) begin
          accept();
        end
      end
      // Never beside the loader: both use the weight port.
      StWload: if (spare_free && !pl_busy_q) begin
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
          cnt_d = 16'h0;
          if (!last_tile) begin
            // The next tile: its A rows follow, and it adds to these results.
            a_addr_d   = a_addr_q + {8'h0, m_q};
            acc_mode_d = 1'b1;
            st_left_d  = st_left_q - 16'h1;
            if (sep_q) begin
              if (pl_loaded) begin
                take   = 1'b1;
                bank_d = ~bank_q;
              end else begin
                state_d = StWait;
              end
            end else begin
              // Same scratchpad bank: a serial WLOAD of the next tile.
              w_addr_d  = nw_addr_q;
              k_d       = nk_tile;
              nw_addr_d = nw_addr_q + Dim24;
              nk_d      = nk_q - nk_tile;
              ld_left_d = ld_left_q - 16'h1;
              state_d   = StWload;
            end
          end else begin
            state_d = StIdle;
            if (start_i && !cur_ld) begin
              accept();
            end
          end
        end else begin
          cnt_d = cnt_q + 16'h1;
        end
      end
      StWait: begin
        if (pl_done_q || (pl_loaded && sep_q)) begin
          take    = 1'b1;
          bank_d  = ~bank_q;
          state_d = StStream;
        end
      end
      default: state_d = StIdle;
    endcase

    // A request of the next command, kept until the loader is free.
    if (pre_go) begin
      pq_v_d    = 1'b1;
      pq_addr_d = pre_w_addr_i;
      pq_k_d    = pre_k_i;
      pq_n_d    = pre_n_i;
    end
    if (pl_busy_q) begin
      w_re       = (pl_cnt_q < pl_k_q);
      w_raddr    = pl_addr_q + {8'h0, pl_cnt_q};
      wl_valid_d = 1'b1;
      wl_row_d   = pl_cnt_q[RowIdxWidth-1:0];
      wl_zero_d  = (pl_cnt_q >= pl_k_q);
      wl_n_d     = pl_n_q;
      wl_bank_d  = pl_bank_q;
      pl_cnt_d   = pl_cnt_q + 16'h1;
      if (pl_fin) begin
        pl_busy_d  = 1'b0;
        pl_taken_d = 1'b0;
        pl_done_d  = !(pl_taken_q || take || drop);
      end
    end
    // The loader: a waiting request of the next command first (the current
    // one then has no tile left to load), else the current command's next tile.
    if (pl_free && pq_v_q) begin
      pl_go_ext = 1'b1;
      pq_v_d    = 1'b0;
      pl_addr_d = pq_addr_q;
      pl_k_d    = pq_k_q;
      pl_n_d    = pq_n_q;
    end else if (pl_free && (state_q == StStream || state_q == StWait) && sep_q && ld_left_q != 16'h0) begin
      pl_go_int = 1'b1;
      pl_addr_d = nw_addr_q;
      pl_k_d    = nk_tile;
      pl_n_d    = n_q;
      nw_addr_d = nw_addr_q + Dim24;
      nk_d      = nk_q - nk_tile;
      ld_left_d = ld_left_q - 16'h1;
    end
    if (pl_go_int || pl_go_ext) begin
      pl_busy_d  = 1'b1;
      pl_taken_d = 1'b0;
      pl_cnt_d   = 16'h0;
      pl_bank_d  = ~bank_q;
    end
    if (take || drop) begin
      if (pl_done_q) begin
        pl_done_d = 1'b0;
      end else if (pl_busy_q && !pl_fin) begin
        pl_taken_d = 1'b1;
      end
    end
    if (drop) begin
      pq_v_d = 1'b0;
    end
    if (clr_i) begin
      state_d    = StIdle;
      wl_valid_d = 1'b0;
      st_valid_d = 1'b0;
      pl_busy_d  = 1'b0;
      pl_done_d  = 1'b0;
      pq_v_d     = 1'b0;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StIdle;
      cnt_q      <= 16'h0;
      acc_mode_q <= 1'b0;
      a_addr_q   <= 24'h0;
      w_addr_q   <= 24'h0;
      k_q        <= 16'h0;
      c_addr_q   <= 24'h0;
      m_q        <= 16'h0;
      n_q        <= 16'h0;
      sep_q      <= 1'b0;
      st_left_q  <= 16'h0;
      ld_left_q  <= 16'h0;
      nw_addr_q  <= 24'h0;
      nk_q       <= 16'h0;
      bank_q     <= 1'b0;
      wl_valid_q <= 1'b0;
      wl_row_q   <= {RowIdxWidth{1'b0}};
      wl_zero_q  <= 1'b0;
      wl_n_q     <= 16'h0;
      wl_bank_q  <= 1'b0;
      pl_busy_q  <= 1'b0;
      pl_taken_q <= 1'b0;
      pl_done_q  <= 1'b0;
      pl_bank_q  <= 1'b0;
      pl_cnt_q   <= 16'h0;
      pl_addr_q  <= 24'h0;
      pl_k_q     <= 16'h0;
      pl_n_q     <= 16'h0;
      pq_v_q     <= 1'b0;
      pq_addr_q  <= 24'h0;
      pq_k_q     <= 16'h0;
      pq_n_q     <= 16'h0;
      st_valid_q <= 1'b0;
      st_bank_q  <= 1'b0;
      st_tag_q   <= {(AccAw+1){1'b0}};
    end else begin
      state_q    <= state_d;
      cnt_q      <= cnt_d;
      acc_mode_q <= acc_mode_d;
      a_addr_q   <= a_addr_d;
      w_addr_q   <= w_addr_d;
      k_q        <= k_d;
      c_addr_q   <= c_addr_d;
      m_q        <= m_d;
      n_q        <= n_d;
      sep_q      <= sep_d;
      st_left_q  <= st_left_d;
      ld_left_q  <= ld_left_d;
      nw_addr_q  <= nw_addr_d;
      nk_q       <= nk_d;
      bank_q     <= bank_d;
      wl_valid_q <= wl_valid_d;
      wl_row_q   <= wl_row_d;
      wl_zero_q  <= wl_zero_d;
      wl_n_q     <= wl_n_d;
      wl_bank_q  <= wl_bank_d;
      pl_busy_q  <= pl_busy_d;
      pl_taken_q <= pl_taken_d;
      pl_done_q  <= pl_done_d;
      pl_bank_q  <= pl_bank_d;
      pl_cnt_q   <= pl_cnt_d;
      pl_addr_q  <= pl_addr_d;
      pl_k_q     <= pl_k_d;
      pl_n_q     <= pl_n_d;
      pq_v_q     <= pq_v_d;
      pq_addr_q  <= pq_addr_d;
      pq_k_q     <= pq_k_d;
      pq_n_q     <= pq_n_d;
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
  assign idle_o       = (state_q == StIdle) && !pl_busy_q && !pq_v_q && !wl_valid_q && !st_valid_q && !array_busy &&
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
  wire unused_addr = ^{spad_raddr[23:SpadAw], w_raddr[23:SpadAw], k_tiles[16]};
  /* verilator tracing_on */
endmodule

`default_nettype wire
