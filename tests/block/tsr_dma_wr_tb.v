// tsr_dma_wr_tb: self-checking test of tsr_dma_wr against a behavioural AXI4 write slave.
`timescale 1ns/1ps
`default_nettype none

// The slave keeps a byte memory window around each job, accepts AW and W independently
// (W beats may arrive before their AW), stalls every channel at random, answers B after a
// random latency and answers SLVERR/DECERR for bursts that touch a per-job error window
// (without writing them). A row source feeds rows with random gaps, holding valid and data
// until ready. The bench runs directed jobs (throughput, errors, abort) and random ones,
// and checks:
//   - every strobed byte: inside the window, inside the row its burst belongs to, with
//     that row's data; every beat strobes exactly the row's bytes it covers (so no byte
//     outside the rows changes and no row byte is skipped); after a normal job the memory
//     region equals the reference (rows applied in order);
//   - AW rules: INCR, awsize, aligned, 1..MaxBurstBeats beats, no 4 KiB crossing, bursts
//     cover exactly the beats of each row, in order, at most MaxOutstanding bursts between
//     AW and B; W: beats per burst = awlen+1 with WLAST on the last; AW and W held stable
//     until ready; wr_bytes_o = strobed bytes of each W handshake, 0 otherwise;
//   - errors and abort: no new AW and no row taken after the cycle the error response is
//     accepted (or abort_i is seen); every issued burst completes; done with err_o and the
//     first failing burst address only after the last B response;
//   - job handshake: busy_o high until the done_o pulse, one done_o per job, no hang;
//   - throughput: an unstalled job of multi-beat rows runs within 15 % of one beat/cycle.
// Plusargs: +seed=<n> (default 1), +jobs=<n> random jobs (default 400), +trace=<file.vcd> (waves).

module tsr_dma_wr_tb #(
  parameter integer ArrayDim       = 8,
  parameter integer AxiDataWidth   = 64,
  parameter integer MaxBurstBeats  = 16,
  parameter integer MaxOutstanding = 4
);
  localparam integer B        = AxiDataWidth / 8;
  localparam integer OffW     = $clog2(B);
  localparam integer N        = ArrayDim;
  localparam integer RowMax   = 4 * N;
  localparam integer WinBytes = 32768;       // memory window around a job
  localparam integer Margin   = 128;         // window bytes kept free around the rows
  localparam integer QDepth   = 256;         // slave queues (bursts and W beats)
  // The throughput bound assumes enough bursts in flight to cover the slave latency.
  localparam integer PerfChecked = ((MaxBurstBeats >= 8) && (MaxOutstanding >= 4)) ? 1 : 0;
  localparam integer Timeout  = 400000;

  // ---------------------------------------------------------------------------------------
  // Clock, reset, random numbers (xorshift32: identical sequence in every simulator)
  // ---------------------------------------------------------------------------------------
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  integer    seed;
  integer    job;
`include "tsr_tb_prng.vh"   // rng, rand32(), urand(), xorshift32()

  function [31:0] hash(input [31:0] a);
    reg [31:0] x;
    begin
      x = a * 32'h9E3779B1;
      x = x ^ (x >> 15);
      x = x * 32'h85EBCA77;
      hash = x ^ (x >> 13);
    end
  endfunction

  integer cyc = 0;

`define TB_WHERE ("tsr_dma_wr_tb N=%0d W=%0d seed=%0d job=%0d cycle=%0d", N, AxiDataWidth, seed, job, cyc)
`include "tsr_tb_check.vh"

  // ---------------------------------------------------------------------------------------
  // DUT
  // ---------------------------------------------------------------------------------------
  reg         start = 1'b0;
  reg  [31:0] addr = 32'h0;
  reg  [31:0] stride = 32'h0;
  integer     rows = 1;           // 16-bit port field
  integer     rbytes = 1;         // 8-bit port field
  reg         abort = 1'b0;
  wire        busy, done, err;
  wire [31:0] err_addr;

  reg               row_valid = 1'b0;
  wire              row_ready;
  reg  [32*N-1:0]   row_data = {(32*N){1'b0}};
  wire [$clog2(B+1)-1:0] wr_bytes;

  wire        awvalid, wvalid, wlast, bready;
  reg         awready = 1'b0, wready = 1'b0, bvalid = 1'b0;
  wire [31:0] awaddr;
  wire [7:0]  awlen;
  wire [2:0]  awsize;
  wire [1:0]  awburst;
  wire [AxiDataWidth-1:0] wdata;
  wire [B-1:0] wstrb;
  reg  [1:0]  bresp = 2'b00;

  tsr_dma_wr #(
    .ArrayDim       (ArrayDim),
    .AxiDataWidth   (AxiDataWidth),
    .MaxBurstBeats  (MaxBurstBeats),
    .MaxOutstanding (MaxOutstanding)
  ) u_dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .start_i       (start),
    .addr_i        (addr),
    .stride_i      (stride),
    .rows_i        (rows[15:0]),
    .row_bytes_i   (rbytes[7:0]),
    .abort_i       (abort),
    .busy_o        (busy),
    .done_o        (done),
    .err_o         (err),
    .err_addr_o    (err_addr),
    .row_valid_i   (row_valid),
    .row_ready_o   (row_ready),
    .row_data_i    (row_data),
    .wr_bytes_o    (wr_bytes),
    .m_axi_awvalid (awvalid),
    .m_axi_awready (awready),
    .m_axi_awaddr  (awaddr),
    .m_axi_awlen   (awlen),
    .m_axi_awsize  (awsize),
    .m_axi_awburst (awburst),
    .m_axi_wvalid  (wvalid),
    .m_axi_wready  (wready),
    .m_axi_wdata   (wdata),
    .m_axi_wstrb   (wstrb),
    .m_axi_wlast   (wlast),
    .m_axi_bvalid  (bvalid),
    .m_axi_bready  (bready),
    .m_axi_bresp   (bresp)
  );

  // ---------------------------------------------------------------------------------------
  // Job as seen by the checker: latched from the inputs in the start_i cycle.
  // ---------------------------------------------------------------------------------------
  reg [31:0] j_addr, j_stride, j_salt, j_win;
  integer    j_rows, j_rb;
  reg        j_err_en;
  integer    in_job = 0;
  integer    stop_cyc = -1;
  reg        seen_err = 1'b0;
  reg [31:0] first_err_addr;
  integer    aw_row;              // AW tracking: row being issued, next beat address
  reg [31:0] aw_next;
  integer    src_row;             // next row the source presents
  integer    nbeats;              // W handshakes of the job
  integer    t_start;
  integer    max_out = 0;
  integer    n_ok_jobs = 0, n_err_jobs = 0, n_abort_jobs = 0;
  integer    r_beats, r_cycles;   // results of the last finished job
  reg        r_err;
  integer    r_rows_taken;

  // Driver settings (changed between jobs).
  reg [31:0] salt = 32'h0;
  reg [31:0] win = 32'h0;         // window base of the next job
  reg        err_en = 1'b0;
  reg [31:0] err_lo = 32'h0, err_hi = 32'h0;
  integer    abort_at = -1;
  integer    abort_pulse = 0;
  integer    p_aw, p_w, p_b, p_row;   // percent chance per cycle
  integer    lat_min, lat_max;        // cycles from the last W beat to B

  reg [7:0]  mem  [0:WinBytes-1];
  reg [7:0]  expm [0:WinBytes-1];

  function [7:0] rowbyte(input integer r, input integer k);
    reg [31:0] h;
    begin
      h = hash((r * 256 + k) ^ j_salt);
      rowbyte = h[7:0];
    end
  endfunction

  function [31:0] row_addr(input integer r);
    begin
      row_addr = j_addr + r * j_stride;
    end
  endfunction

  function [31:0] row_first_beat(input integer r);
    reg [31:0] a;
    begin
      a = row_addr(r);
      row_first_beat = {a[31:OffW], {OffW{1'b0}}};
    end
  endfunction

  function [31:0] row_last_beat(input integer r);
    reg [31:0] a;
    begin
      a = row_addr(r) + j_rb - 1;
      row_last_beat = {a[31:OffW], {OffW{1'b0}}};
    end
  endfunction

  // ---------------------------------------------------------------------------------------
  // Behavioural AXI4 write slave, row source and every cycle-level check
  // ---------------------------------------------------------------------------------------
  reg [31:0] aq_addr [0:QDepth-1];       // accepted AW: address, len, row, error
  integer    aq_len  [0:QDepth-1];
  integer    aq_row  [0:QDepth-1];
  reg        aq_err  [0:QDepth-1];
  integer    aq_head = 0, aq_tail = 0, aq_cnt = 0, aq_beat = 0;
  reg [AxiDataWidth-1:0] wq_data [0:QDepth-1];   // accepted W beats
  reg [B-1:0] wq_strb [0:QDepth-1];
  reg        wq_last [0:QDepth-1];
  integer    wq_head = 0, wq_tail = 0, wq_cnt = 0;
  reg [31:0] bq_addr [0:QDepth-1];       // finished bursts waiting for B
  reg        bq_err  [0:QDepth-1];
  integer    bq_time [0:QDepth-1];
  integer    bq_head = 0, bq_tail = 0, bq_cnt = 0;
  integer    outstanding = 0;            // AW accepted, B not yet accepted

  reg        p_awvalid = 1'b0, p_awready = 1'b0, p_wvalid = 1'b0, p_wready = 1'b0;
  reg [31:0] p_awaddr = 32'h0;
  reg [7:0]  p_awlen = 8'h0;
  reg [2:0]  p_awsize = 3'h0;
  reg [1:0]  p_awburst = 2'h0;
  reg [AxiDataWidth-1:0] p_wdata = {AxiDataWidth{1'b0}};
  reg [B-1:0] p_wstrb = {B{1'b0}};
  reg        p_wlast = 1'b0;

  integer    k, alen, nstrb, off, rr;
  integer    reg_lo, reg_hi;         // memory region of the job, window offsets
  reg [31:0] a, baddr, lo_a, hi_a;
  reg        inrow;
  reg [32*N-1:0] rd;

  always @(posedge clk) begin
    if (!rst_n) begin
      awready   <= 1'b0;
      wready    <= 1'b0;
      bvalid    <= 1'b0;
      row_valid <= 1'b0;
    end else begin
      if (abort && busy && in_job != 0 && stop_cyc < 0) begin
        stop_cyc = cyc;
      end

      // ---- Stability of AW and W --------------------------------------------------------
      if (p_awvalid && !p_awready) begin
        `CHECK(awvalid && awaddr == p_awaddr && awlen == p_awlen && awsize == p_awsize &&
               awburst == p_awburst, ("AW changed before awready (valid %0b addr %h)",
               awvalid, awaddr))
      end
      if (p_wvalid && !p_wready) begin
        `CHECK(wvalid && wdata == p_wdata && wstrb == p_wstrb && wlast == p_wlast,
               ("W changed before wready (valid %0b strb %h last %0b)", wvalid, wstrb, wlast))
      end
      if (awvalid && !(p_awvalid && !p_awready)) begin
        `CHECK(stop_cyc < 0 || cyc <= stop_cyc,
               ("new AW %h presented after the error/abort at cycle %0d", awaddr, stop_cyc))
        `CHECK(in_job != 0, ("AW %h outside a job", awaddr))
      end

      // ---- AW ---------------------------------------------------------------------------
      alen = {24'h0, awlen};
      if (awvalid && awready) begin
        `CHECK(awburst == 2'b01, ("awburst %0d is not INCR", awburst))
        `CHECK({29'h0, awsize} == OffW, ("awsize %0d, expected %0d", awsize, OffW))
        `CHECK(awaddr[OffW-1:0] == 0, ("awaddr %h not aligned to the bus", awaddr))
        `CHECK(alen < MaxBurstBeats, ("awlen %0d exceeds MaxBurstBeats %0d", awlen,
               MaxBurstBeats))
        `CHECK({20'h0, awaddr[11:0]} + (alen + 1) * B <= 4096,
               ("burst %h len %0d crosses 4 KiB", awaddr, awlen))
        `CHECK(aw_row < j_rows, ("AW %h after every row was issued", awaddr))
        `CHECK(awaddr == aw_next, ("AW %h, expected the next beat of row %0d at %h", awaddr,
               aw_row, aw_next))
        `CHECK(awaddr + alen * B <= row_last_beat(aw_row),
               ("AW %h len %0d writes past the last beat %h of row %0d", awaddr, awlen,
                row_last_beat(aw_row), aw_row))
        `CHECK(aw_row < src_row, ("AW for row %0d before the row was taken", aw_row))
        aq_addr[aq_tail] = awaddr;
        aq_len[aq_tail]  = alen;
        aq_row[aq_tail]  = aw_row;
        aq_err[aq_tail]  = err_en && (awaddr + (alen + 1) * B - 1 >= err_lo) &&
                           (awaddr <= err_hi - 1);
        aq_tail = (aq_tail + 1) % QDepth;
        aq_cnt  = aq_cnt + 1;
        outstanding = outstanding + 1;
        if (outstanding > max_out) begin
          max_out = outstanding;
        end
        `CHECK(outstanding <= MaxOutstanding, ("%0d bursts between AW and B, MaxOutstanding is %0d",
               outstanding, MaxOutstanding))
        if (awaddr + alen * B == row_last_beat(aw_row)) begin
          aw_row  = aw_row + 1;
          aw_next = row_first_beat(aw_row);
        end else begin
          aw_next = awaddr + (alen + 1) * B;
        end
      end

      // ---- W (may come before its AW) ---------------------------------------------------
      nstrb = 0;
      for (k = 0; k < B; k = k + 1) begin
        nstrb = nstrb + {31'h0, wstrb[k]};
      end
      `CHECK({{(32 - $clog2(B + 1)){1'b0}}, wr_bytes} == ((wvalid && wready) ? nstrb : 0),
             ("wr_bytes_o %0d, W handshake %0b with %0d strobes", wr_bytes, wvalid && wready,
              nstrb))
      if (wvalid) begin
        `CHECK(in_job != 0, ("W beat outside a job"))
      end
      if (wvalid && wready) begin
        wq_data[wq_tail] = wdata;
        wq_strb[wq_tail] = wstrb;
        wq_last[wq_tail] = wlast;
        wq_tail = (wq_tail + 1) % QDepth;
        wq_cnt  = wq_cnt + 1;
        nbeats  = nbeats + 1;
      end

      // ---- Apply W beats to their bursts -------------------------------------------------
      while (aq_cnt > 0 && wq_cnt > 0) begin
        baddr = aq_addr[aq_head] + aq_beat * B;
        rr    = aq_row[aq_head];
        `CHECK(wq_last[wq_head] == (aq_beat == aq_len[aq_head]),
               ("WLAST %0b on beat %0d of a %0d-beat burst at %h", wq_last[wq_head], aq_beat,
                aq_len[aq_head] + 1, aq_addr[aq_head]))
        for (k = 0; k < B; k = k + 1) begin
          a     = baddr + k;
          off   = a - row_addr(rr);
          inrow = (a - row_addr(rr)) < j_rb;
          `CHECK(wq_strb[wq_head][k] == inrow,
                 ("byte %h (row %0d offset %0d): strobe %0b, in row %0b", a, rr, off,
                  wq_strb[wq_head][k], inrow))
          if (wq_strb[wq_head][k]) begin
            `CHECK(a - j_win < WinBytes, ("write to %h outside the window at %h", a, j_win))
            `CHECK(wq_data[wq_head][8*k +: 8] == rowbyte(rr, off),
                   ("byte %h (row %0d offset %0d) is %h, expected %h", a, rr, off,
                    wq_data[wq_head][8*k +: 8], rowbyte(rr, off)))
            if (!aq_err[aq_head]) begin
              mem[a - j_win] = wq_data[wq_head][8*k +: 8];
            end
          end
        end
        wq_head = (wq_head + 1) % QDepth;
        wq_cnt  = wq_cnt - 1;
        if (aq_beat == aq_len[aq_head]) begin
          bq_addr[bq_tail] = aq_addr[aq_head];
          bq_err[bq_tail]  = aq_err[aq_head];
          bq_time[bq_tail] = cyc + lat_min + urand(lat_max - lat_min + 1);
          bq_tail = (bq_tail + 1) % QDepth;
          bq_cnt  = bq_cnt + 1;
          aq_head = (aq_head + 1) % QDepth;
          aq_cnt  = aq_cnt - 1;
          aq_beat = 0;
        end else begin
          aq_beat = aq_beat + 1;
        end
      end

      // ---- B ------------------------------------------------------------------------------
      if (bvalid && bready) begin
        if (bresp[1] && !seen_err) begin
          seen_err       = 1'b1;
          first_err_addr = bq_addr[bq_head];
          if (stop_cyc < 0) begin
            stop_cyc = cyc;
          end
        end
        bq_head = (bq_head + 1) % QDepth;
        bq_cnt  = bq_cnt - 1;
        outstanding = outstanding - 1;
      end
      if (!bvalid || bready) begin
        if (bq_cnt > 0 && cyc >= bq_time[bq_head] && urand(100) < p_b) begin
          bvalid <= 1'b1;
          bresp  <= bq_err[bq_head] ? ((urand(2) == 0) ? 2'b10 : 2'b11) : 2'b00;
        end else begin
          bvalid <= 1'b0;
          bresp  <= 2'bxx;
        end
      end

      // ---- Row source ---------------------------------------------------------------------
      if (row_valid && row_ready) begin
        `CHECK(in_job != 0 && src_row < j_rows, ("row taken outside a job"))
        `CHECK(stop_cyc < 0 || cyc <= stop_cyc,
               ("row %0d taken after the error/abort at cycle %0d", src_row, stop_cyc))
        src_row = src_row + 1;
      end
      if (!row_valid || row_ready) begin
        if (in_job != 0 && src_row < j_rows && urand(100) < p_row) begin
          for (k = 0; k < RowMax; k = k + 1) begin
            rd[8*k +: 8] = rowbyte(src_row, k);
          end
          row_valid <= 1'b1;
          row_data  <= rd;
        end else begin
          row_valid <= 1'b0;
          row_data  <= {(32*N){1'bx}};
        end
      end

      awready <= (aq_cnt < QDepth - 1) && (urand(100) < p_aw);
      wready  <= (wq_cnt < QDepth - 1) && (urand(100) < p_w);

      p_awvalid = awvalid;  p_awready = awready;  p_awaddr = awaddr;  p_awlen = awlen;
      p_awsize  = awsize;   p_awburst = awburst;
      p_wvalid  = wvalid;   p_wready  = wready;   p_wdata  = wdata;   p_wstrb = wstrb;
      p_wlast   = wlast;

      // ---- Job handshake and end-of-job checks --------------------------------------------
      if (done) begin
        `CHECK(in_job != 0, ("done_o outside a job"))
        `CHECK(!busy, ("busy_o high in the done_o cycle"))
        `CHECK(aq_cnt == 0 && wq_cnt == 0 && bq_cnt == 0 && !awvalid && !wvalid,
               ("done_o with transfers open: %0d AW, %0d W, %0d B, awvalid %0b wvalid %0b",
                aq_cnt, wq_cnt, bq_cnt, awvalid, wvalid))
        `CHECK(err == seen_err, ("err_o %0b, but an error response was %0sseen", err,
               seen_err ? "" : "not "))
        if (seen_err) begin
          `CHECK(j_err_en, ("error response without an error window"))
          `CHECK(err_addr == first_err_addr, ("err_addr_o %h, first failing burst %h",
                 err_addr, first_err_addr))
        end
        if (stop_cyc < 0) begin
          `CHECK(src_row == j_rows && aw_row == j_rows, ("%0d rows taken, %0d issued, of %0d",
                 src_row, aw_row, j_rows))
          for (k = reg_lo; k < reg_hi; k = k + 1) begin
            `CHECK(mem[k] == expm[k], ("memory at %h is %h, expected %h", j_win + k, mem[k],
                   expm[k]))
          end
        end
        r_beats      = nbeats;
        r_cycles     = cyc - t_start;
        r_err        = err;
        r_rows_taken = src_row;
        if (seen_err) begin
          n_err_jobs = n_err_jobs + 1;
        end else if (stop_cyc >= 0) begin
          n_abort_jobs = n_abort_jobs + 1;
        end else begin
          n_ok_jobs = n_ok_jobs + 1;
        end
        in_job = 0;
        row_valid <= 1'b0;           // the lead's soft reset clears the upstream
      end else if (in_job != 0) begin
        `CHECK(busy, ("busy_o low before done_o"))
      end
      if (start && !busy) begin
        `CHECK(in_job == 0, ("start_i during a job"))
        j_addr   = addr;
        j_stride = stride;
        j_rows   = rows;
        j_rb     = rbytes;
        j_salt   = salt;
        j_win    = win;
        j_err_en = err_en;
        // Memory and reference over the job's region (rows plus Margin each side): a
        // pattern, then the rows in order on the reference. Strobes outside the rows are
        // caught byte by byte, anywhere.
        reg_lo = j_addr - j_win - Margin;
        reg_hi = j_addr - j_win + j_stride * (j_rows - 1) + j_rb + Margin;
        for (k = reg_lo; k < reg_hi; k = k + 1) begin
          a       = hash(j_win + k + j_salt);
          mem[k]  = a[15:8];
          expm[k] = a[15:8];
        end
        for (rr = 0; rr < j_rows; rr = rr + 1) begin
          for (k = 0; k < j_rb; k = k + 1) begin
            expm[row_addr(rr) + k - j_win] = rowbyte(rr, k);
          end
        end
        stop_cyc = -1;
        seen_err = 1'b0;
        aw_row   = 0;
        aw_next  = row_first_beat(0);
        src_row  = 0;
        nbeats   = 0;
        t_start  = cyc;
        in_job   = 1;
      end
      cyc = cyc + 1;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Job driver (inputs change at the falling edge)
  // ---------------------------------------------------------------------------------------
  // Start the job set up in the inputs and return in its done_o cycle (at the falling
  // edge), so the caller may start the next job in that very cycle.
  task run_job;
    integer t0;
    begin
      start = 1'b1;
      t0    = cyc;
      @(negedge clk);
      start = 1'b0;
      while (!done) begin
        if (abort_at >= 0 && cyc >= abort_at) begin
          abort = (abort_pulse == 0) || (cyc == abort_at);
        end
        `CHECK(cyc - t0 < Timeout, ("no done_o after %0d cycles (rows %0d row_bytes %0d)",
               Timeout, rows, rbytes))
        @(negedge clk);
      end
      abort = 1'b0;
    end
  endtask

  task run_job_wait;
    begin
      run_job();
      @(negedge clk);
    end
  endtask

  task slave_mode(input integer m);
    begin
      case (m)
        0: begin p_aw = 100; p_w = 100; p_b = 100; p_row = 100; lat_min = 0; lat_max = 2; end
        1: begin p_aw = 60;  p_w = 70;  p_b = 60;  p_row = 80;  lat_min = 0; lat_max = 5; end
        2: begin p_aw = 25;  p_w = 35;  p_b = 40;  p_row = 50;  lat_min = 0; lat_max = 3; end
        3: begin p_aw = 100; p_w = 100; p_b = 100; p_row = 30;  lat_min = 0; lat_max = 1; end
        default: begin p_aw = 90; p_w = 85; p_b = 90; p_row = 95; lat_min = 8; lat_max = 30; end
      endcase
    end
  endtask

  // Window base and job address: the rows fit in the window with Margin bytes to spare.
  task place_job;
    reg [31:0] span;
    begin
      case (urand(4))
        0: win = 32'h0;
        1: win = 32'h0 - WinBytes;                              // top of the address space
        default: win = 4096 * urand(32'h100000 - WinBytes / 4096);
      endcase
      span = stride * (rows - 1) + rbytes;
      addr = win + Margin + urand(WinBytes - 2 * Margin - span + 1);
    end
  endtask

  // Random job: row sizes around beat multiples, overlapping, packed and 4 KiB strides.
  task random_job;
    integer m;
    begin
      case (urand(5))
        0: rbytes = 1 + urand(B);
        1: rbytes = RowMax;
        2: rbytes = 1 + urand(RowMax);
        3: rbytes = B * (1 + urand(RowMax / B));
        default: rbytes = RowMax - urand(3);
      endcase
      m = urand(100);
      rows = (m < 40) ? 1 + urand(4) : (m < 90) ? 1 + urand(24) : 1 + urand(64);
      case (urand(6))
        0: stride = rbytes;
        1: stride = rbytes + urand(40);
        2: stride = urand(rbytes + 1);                       // overlapping rows, incl. 0
        3: stride = 4096 + urand(64) - 32;
        4: stride = urand(700);
        default: stride = B * urand(40);
      endcase
      while (stride * (rows - 1) + rbytes > WinBytes - 2 * Margin) begin
        rows = rows / 2 + 1;
      end
      salt = urand(32'hFFFFFFFF);
      place_job();
    end
  endtask

  task error_window(input integer er, input integer ec, input integer len);
    begin
      err_en = 1'b1;
      err_lo = addr + er * stride + ec;
      err_hi = err_lo + len;
    end
  endtask

  task check_throughput(input [8*24-1:0] what, input integer allowance);
    begin
      $display("tsr_dma_wr_tb: %0s: %0d W beats in %0d cycles", what, r_beats, r_cycles);
      `CHECK(PerfChecked == 0 || r_cycles * 100 <= r_beats * 115 + allowance * 100,
             ("%0s: %0d cycles for %0d W beats", what, r_cycles, r_beats))
    end
  endtask

  integer jobs, j, m;
  reg [8*256-1:0] trace_file;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
      seed = 1;
    end
    if (!$value$plusargs("jobs=%d", jobs)) begin
      jobs = 400;
    end
    if ($value$plusargs("trace=%s", trace_file)) begin
      $dumpfile(trace_file);
      $dumpvars(0, tsr_dma_wr_tb);
    end
    rng = 32'h9E3779B9 ^ seed;
    if (rng == 32'h0) begin
      rng = 32'h1;
    end
    job = -1;
    slave_mode(0);
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // ---- Directed 0: throughput, full rows, misaligned, packed -----------------------
    job = 0;
    slave_mode(0);
    rbytes = RowMax; rows = 32; stride = RowMax; salt = 32'h1234;
    win = 32'h0010_0000; addr = win + Margin + 3;
    run_job_wait();
    check_throughput("full rows, misaligned", 30);

    // ---- Directed 1: throughput, strided rows crossing 4 KiB --------------------------
    job = 1;
    rbytes = RowMax - 1; rows = 6; stride = 4096 + 5;
    win = 32'h0020_0000; addr = win + 4096 - RowMax / 2;
    run_job_wait();
    check_throughput("4 KiB crossings", 30 + 2 * rows);

    // ---- Directed 2: SLVERR/DECERR in the middle of a job -----------------------------
    job = 2;
    slave_mode(1);
    rbytes = RowMax; rows = 40; stride = RowMax + 9;
    win = 32'h0030_0000; addr = win + Margin + 1;
    error_window(20, 5, 1);
    run_job_wait();
    `CHECK(r_err && err_addr <= err_lo && err_lo - err_addr < MaxBurstBeats * B,
           ("mid-job error: err %0b err_addr %h, window %h", r_err, err_addr, err_lo))
    `CHECK(r_rows_taken < rows, ("every row taken despite the error"))
    err_en = 1'b0;

    // ---- Directed 3: error on the first burst, slow slave ----------------------------
    job = 3;
    slave_mode(2);
    rbytes = 3; rows = 10; stride = 100;
    win = 32'h0; addr = 32'h0000_0100;
    error_window(0, 0, 1);
    run_job_wait();
    `CHECK(r_err && err_addr == 32'h0000_0100, ("first-burst error: err %0b err_addr %h",
           r_err, err_addr))
    err_en = 1'b0;

    // ---- Directed 4: abort pulse in the middle ---------------------------------------
    job = 4;
    slave_mode(4);
    rbytes = RowMax; rows = 60; stride = 200;
    win = 32'h0040_0000; addr = win + Margin;
    abort_at = cyc + 30; abort_pulse = 1;
    run_job_wait();
    `CHECK(!r_err && r_rows_taken < rows, ("abort pulse: err %0b, %0d rows taken", r_err,
           r_rows_taken))

    // ---- Directed 5: abort held from the first busy cycle ----------------------------
    job = 5;
    slave_mode(1);
    abort_at = cyc + 1; abort_pulse = 0;
    run_job_wait();
    `CHECK(!r_err && r_rows_taken <= 1 && r_beats == 0,
           ("abort at once: err %0b, %0d rows taken, %0d W beats", r_err, r_rows_taken,
            r_beats))
    abort_at = -1;

    // ---- Random jobs (checked by the monitor) -----------------------------------------
    for (j = 0; j < jobs; j = j + 1) begin
      job = 6 + j;
      random_job();
      slave_mode(urand(5));
      err_en   = 1'b0;
      abort_at = -1;
      m = urand(100);
      if (m < 12) begin
        error_window(urand(rows), urand(rbytes), 1 + urand(8));
      end else if (m < 22) begin
        abort_at    = cyc + 1 + urand(rows * (RowMax / B + 2) + 20);
        abort_pulse = urand(2);
      end
      run_job();
      if (urand(2) == 0) begin
        repeat (1 + urand(4)) @(negedge clk);
      end
    end
    @(negedge clk);
    @(negedge clk);

    $display("PASS tsr_dma_wr_tb N=%0d W=%0d MaxBurstBeats=%0d MaxOutstanding=%0d seed=%0d: %0d jobs (%0d ok, %0d bus error, %0d aborted), up to %0d bursts outstanding",
             N, AxiDataWidth, MaxBurstBeats, MaxOutstanding, seed, jobs + 6, n_ok_jobs,
             n_err_jobs, n_abort_jobs, max_out);
    $finish;
  end

endmodule

`default_nettype wire
