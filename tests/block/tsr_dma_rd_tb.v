// tsr_dma_rd_tb: self-checking test of tsr_dma_rd against a behavioural AXI4 read slave.
`timescale 1ns/1ps
`default_nettype none

// The slave answers every address with a hash of the address (no storage), accepts up to
// SlaveDepth bursts, stalls AR and R at random, adds a random latency per burst and answers
// SLVERR/DECERR for beats that touch a per-job error window. The bench runs directed jobs
// (errors, abort, throughput) and then random jobs, and checks:
//   - every local write against the LOAD definition (chunk c of row r -> local+c*rows+r,
//     zero-filled tail), each local row written exactly once, all of them on success;
//   - AR rules: INCR, arsize, aligned address, 1..MaxBurstBeats beats, no 4 KiB crossing,
//     bursts cover exactly the beats of each row, rows in order, AR stable until ready,
//     at most MaxOutstanding bursts in flight;
//   - R drained completely before done, rd_beat_o = R handshake;
//   - errors and abort: no new AR and no local write after the cycle the error beat is
//     accepted (or abort_i is seen); done with err_o and the first failing burst address;
//   - job handshake: busy_o high until the done_o pulse, one done_o per job, no hang;
//   - throughput: an unstalled long job runs within 15 % of one beat (or write) per cycle.
// Plusargs: +seed=<n> (default 1), +jobs=<n> random jobs (default 400), +trace=<file.vcd> (waves).

module tsr_dma_rd_tb #(
  parameter integer ArrayDim       = 8,
  parameter integer AxiDataWidth   = 64,
  parameter integer MaxBurstBeats  = 16,
  parameter integer MaxOutstanding = 4
);
  localparam integer B          = AxiDataWidth / 8;
  localparam integer OffW       = $clog2(B);
  localparam integer N          = ArrayDim;
  localparam integer SlaveDepth = 16;
  localparam integer MaxLocal   = 8192;      // bound on C*rows of a random job
  // The throughput bound assumes enough bursts in flight to cover the slave latency.
  localparam integer PerfChecked = ((MaxBurstBeats >= 8) && (MaxOutstanding >= 4)) ? 1 : 0;
  localparam integer Timeout    = 400000;    // cycles per job

  // ---------------------------------------------------------------------------------------
  // Clock, reset, random numbers (xorshift32: identical sequence in every simulator)
  // ---------------------------------------------------------------------------------------
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  integer    seed;
  integer    job;
`include "tsr_tb_prng.vh"   // rng, rand32(), urand(), xorshift32()

`define TB_WHERE ("tsr_dma_rd_tb N=%0d W=%0d seed=%0d job=%0d cycle=%0d", N, AxiDataWidth, seed, job, cyc)
`include "tsr_tb_check.vh"

  // ---------------------------------------------------------------------------------------
  // DUT
  // ---------------------------------------------------------------------------------------
  reg         start = 1'b0;
  reg         to_acc = 1'b0;
  reg  [31:0] addr = 32'h0;
  reg  [31:0] stride = 32'h0;
  integer     rows = 1;            // 16-bit port fields, kept as integers in the bench
  integer     cols = 1;
  integer     lbase = 0;           // 24-bit
  reg         abort = 1'b0;
  wire        busy, done, err;
  wire [31:0] err_addr;
  wire        wr_valid, wr_acc, rd_beat;
  wire [23:0] wr_addr;
  wire [32*N-1:0] wr_data;

  wire        arvalid, rready;
  reg         arready = 1'b0;
  wire [31:0] araddr;
  wire [7:0]  arlen;
  wire [2:0]  arsize;
  wire [1:0]  arburst;
  reg         rvalid = 1'b0;
  reg  [AxiDataWidth-1:0] rdata = {AxiDataWidth{1'b0}};
  reg  [1:0]  rresp = 2'b00;
  reg         rlast = 1'b0;

  tsr_dma_rd #(
    .ArrayDim       (ArrayDim),
    .AxiDataWidth   (AxiDataWidth),
    .MaxBurstBeats  (MaxBurstBeats),
    .MaxOutstanding (MaxOutstanding)
  ) u_dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .start_i       (start),
    .to_acc_i      (to_acc),
    .addr_i        (addr),
    .stride_i      (stride),
    .rows_i        (rows[15:0]),
    .cols_i        (cols[15:0]),
    .local_i       (lbase[23:0]),
    .abort_i       (abort),
    .busy_o        (busy),
    .done_o        (done),
    .err_o         (err),
    .err_addr_o    (err_addr),
    .wr_valid_o    (wr_valid),
    .wr_acc_o      (wr_acc),
    .wr_addr_o     (wr_addr),
    .wr_data_o     (wr_data),
    .rd_beat_o     (rd_beat),
    .m_axi_arvalid (arvalid),
    .m_axi_arready (arready),
    .m_axi_araddr  (araddr),
    .m_axi_arlen   (arlen),
    .m_axi_arsize  (arsize),
    .m_axi_arburst (arburst),
    .m_axi_rvalid  (rvalid),
    .m_axi_rready  (rready),
    .m_axi_rdata   (rdata),
    .m_axi_rresp   (rresp),
    .m_axi_rlast   (rlast)
  );

  // ---------------------------------------------------------------------------------------
  // Job as seen by the checker: latched from the inputs in the start_i cycle, so the driver
  // may set up (and start) the next job in the done_o cycle of the previous one.
  // ---------------------------------------------------------------------------------------
  reg        j_to_acc;
  reg [31:0] j_addr, j_stride, j_salt;
  integer    j_rows, j_cols, j_chunk, j_nchunks;
  reg [23:0] j_local;
  reg        j_err_en;
  reg        written [0:MaxLocal-1];
  integer    nwrites;
  integer    in_job = 0;         // 1 from the cycle after start_i up to the done_o cycle
  integer    stop_cyc = -1;      // cycle of the first error beat or abort, -1 if none
  reg        seen_err = 1'b0;
  reg [31:0] first_err_addr;
  integer    ar_row;             // AR tracking: row being requested, next beat address
  reg [31:0] ar_next;
  integer    beats;              // R handshakes in the job
  integer    t_start;
  integer    max_out = 0;
  // Results of the last finished job, for the directed checks.
  integer    r_beats, r_writes, r_cycles;
  reg        r_err;
  reg        r_complete;

  // Driver settings (changed between jobs).
  reg [31:0] salt = 32'h0;          // memory hash salt of the next job
  integer    abort_at = -1;         // cycle to raise abort_i, -1: never
  integer    abort_pulse = 0;       // 1: one cycle, 0: held until done_o
  integer    n_ok_jobs = 0, n_err_jobs = 0, n_abort_jobs = 0;
  reg        err_en = 1'b0;
  reg [31:0] err_lo = 32'h0, err_hi = 32'h0;   // error window [err_lo, err_hi)
  integer    p_ar, p_r;             // percent chance of AR ready / R valid per cycle
  integer    lat_min, lat_max;      // cycles from AR accept to first R beat

  // Memory contents: a hash of the byte address and a per-job salt.
  function [7:0] mbyte(input [31:0] a);
    reg [31:0] x;
    begin
      x = (a ^ j_salt) * 32'h9E3779B1;
      x = x ^ (x >> 15);
      x = x * 32'h85EBCA77;
      mbyte = x[31:24] ^ x[7:0];
    end
  endfunction

  function [31:0] row_first_beat(input integer r);
    reg [31:0] a;
    begin
      a = j_addr + r * j_stride;
      row_first_beat = {a[31:OffW], {OffW{1'b0}}};
    end
  endfunction

  function [31:0] row_last_beat(input integer r);
    reg [31:0] a;
    begin
      a = j_addr + r * j_stride + j_cols - 1;
      row_last_beat = {a[31:OffW], {OffW{1'b0}}};
    end
  endfunction

  // ---------------------------------------------------------------------------------------
  // Behavioural AXI4 read slave and every cycle-level check
  // ---------------------------------------------------------------------------------------
  integer    cyc = 0;
  reg [31:0] q_addr [0:SlaveDepth-1];
  integer    q_len  [0:SlaveDepth-1];
  integer    q_time [0:SlaveDepth-1];
  integer    q_head = 0, q_tail = 0, q_cnt = 0, q_beat = 0;

  reg        p_arvalid = 1'b0, p_arready = 1'b0;
  reg [31:0] p_araddr = 32'h0;
  reg [7:0]  p_arlen = 8'h0;
  reg [2:0]  p_arsize = 3'h0;
  reg [1:0]  p_arburst = 2'h0;

  integer    k, idx, c, r, col, alen;
  reg [31:0] baddr;
  reg [7:0]  expb;
  reg        berr;
  reg [AxiDataWidth-1:0] d;

  always @(posedge clk) begin
    if (!rst_n) begin
      q_head = 0; q_tail = 0; q_cnt = 0; q_beat = 0;
      rvalid  <= 1'b0;
      arready <= 1'b0;
    end else begin
      if (abort && busy && in_job != 0 && stop_cyc < 0) begin
        stop_cyc = cyc;
      end

      // ---- AR channel ---------------------------------------------------------------------
      if (p_arvalid && !p_arready) begin
        `CHECK(arvalid && araddr == p_araddr && arlen == p_arlen && arsize == p_arsize &&
               arburst == p_arburst, ("AR changed before arready (valid %0b addr %h len %0d)",
               arvalid, araddr, arlen))
      end
      if (arvalid && !(p_arvalid && !p_arready)) begin
        `CHECK(stop_cyc < 0 || cyc <= stop_cyc,
               ("new AR %h presented after the error/abort at cycle %0d", araddr, stop_cyc))
        `CHECK(in_job != 0, ("AR %h outside a job", araddr))
      end
      alen = {24'h0, arlen};
      if (arvalid && arready) begin
        `CHECK(arburst == 2'b01, ("arburst %0d is not INCR", arburst))
        `CHECK({29'h0, arsize} == OffW, ("arsize %0d, expected %0d", arsize, OffW))
        `CHECK(araddr[OffW-1:0] == 0, ("araddr %h not aligned to the bus", araddr))
        `CHECK(alen < MaxBurstBeats, ("arlen %0d exceeds MaxBurstBeats %0d", arlen,
               MaxBurstBeats))
        `CHECK({20'h0, araddr[11:0]} + (alen + 1) * B <= 4096,
               ("burst %h len %0d crosses 4 KiB", araddr, arlen))
        `CHECK(ar_row < j_rows, ("AR %h after every row was requested", araddr))
        `CHECK(araddr == ar_next, ("AR %h, expected the next beat of row %0d at %h",
               araddr, ar_row, ar_next))
        `CHECK(araddr + alen * B <= row_last_beat(ar_row),
               ("AR %h len %0d reads past the last beat %h of row %0d", araddr, arlen,
                row_last_beat(ar_row), ar_row))
        if (araddr + alen * B == row_last_beat(ar_row)) begin
          ar_row  = ar_row + 1;
          ar_next = row_first_beat(ar_row);
        end else begin
          ar_next = araddr + (alen + 1) * B;
        end
        q_addr[q_tail] = araddr;
        q_len[q_tail]  = alen;
        q_time[q_tail] = cyc + lat_min + urand(lat_max - lat_min + 1);
        q_tail = (q_tail + 1) % SlaveDepth;
        q_cnt  = q_cnt + 1;
        if (q_cnt > max_out) begin
          max_out = q_cnt;
        end
        `CHECK(q_cnt <= MaxOutstanding, ("%0d bursts in flight, MaxOutstanding is %0d",
               q_cnt, MaxOutstanding))
      end
      p_arvalid = arvalid;  p_arready = arready;  p_araddr = araddr;
      p_arlen   = arlen;    p_arsize  = arsize;   p_arburst = arburst;

      // ---- R channel ----------------------------------------------------------------------
      `CHECK(rd_beat == (rvalid && rready), ("rd_beat_o %0b but R handshake %0b", rd_beat,
             rvalid && rready))
      if (rvalid && rready) begin
        beats = beats + 1;
        if (rresp[1] && !seen_err) begin
          seen_err       = 1'b1;
          first_err_addr = q_addr[q_head];
          if (stop_cyc < 0) begin
            stop_cyc = cyc;
          end
        end
        if (q_beat == q_len[q_head]) begin
          q_head = (q_head + 1) % SlaveDepth;
          q_cnt  = q_cnt - 1;
          q_beat = 0;
        end else begin
          q_beat = q_beat + 1;
        end
      end
      if (!rvalid || rready) begin
        if (q_cnt > 0 && cyc >= q_time[q_head] && urand(100) < p_r) begin
          baddr = q_addr[q_head] + q_beat * B;
          for (k = 0; k < B; k = k + 1) begin
            d[8*k +: 8] = mbyte(baddr + k);
          end
          berr = err_en && (baddr + B - 1 >= err_lo) && (baddr <= err_hi - 1);
          rvalid <= 1'b1;
          rdata  <= d;
          rresp  <= berr ? ((urand(2) == 0) ? 2'b10 : 2'b11) : 2'b00;
          rlast  <= (q_beat == q_len[q_head]);
        end else begin
          rvalid <= 1'b0;
          rdata  <= {AxiDataWidth{1'bx}};
          rlast  <= 1'bx;
          rresp  <= 2'bxx;
        end
      end
      arready <= (q_cnt < SlaveDepth - 1) && (urand(100) < p_ar);

      // ---- Local writes -------------------------------------------------------------------
      if (wr_valid) begin
        `CHECK(in_job != 0, ("local write to %h outside a job", wr_addr))
        `CHECK(stop_cyc < 0 || cyc <= stop_cyc,
               ("local write to %h after the error/abort at cycle %0d", wr_addr, stop_cyc))
        `CHECK(wr_acc == j_to_acc, ("wr_acc_o %0b for a job with to_acc %0b", wr_acc,
               j_to_acc))
        idx = {8'h0, wr_addr - j_local};
        `CHECK(idx < j_nchunks * j_rows, ("local write to row %h outside %h + %0d", wr_addr,
               j_local, j_nchunks * j_rows))
        `CHECK(!written[idx], ("local row %h written twice", wr_addr))
        written[idx] = 1'b1;
        nwrites = nwrites + 1;
        c = idx / j_rows;
        r = idx % j_rows;
        for (k = 0; k < j_chunk; k = k + 1) begin
          col  = c * j_chunk + k;
          expb = (col < j_cols) ? mbyte(j_addr + r * j_stride + col) : 8'h00;
          `CHECK(wr_data[8*k +: 8] == expb,
                 ("local row %h (row %0d chunk %0d) byte %0d is %h, expected %h", wr_addr, r,
                  c, k, wr_data[8*k +: 8], expb))
        end
      end

      // ---- Job handshake and end-of-job checks --------------------------------------------
      if (done) begin
        `CHECK(in_job != 0, ("done_o outside a job"))
        `CHECK(!busy, ("busy_o high in the done_o cycle"))
        `CHECK(q_cnt == 0 && !arvalid, ("done_o with %0d bursts still in flight", q_cnt))
        `CHECK(err == seen_err, ("err_o %0b, but an error beat was %0sseen", err,
               seen_err ? "" : "not "))
        if (seen_err) begin
          `CHECK(j_err_en, ("error response without an error window"))
          `CHECK(err_addr == first_err_addr, ("err_addr_o %h, first failing burst %h",
                 err_addr, first_err_addr))
        end
        if (stop_cyc < 0) begin
          `CHECK(nwrites == j_nchunks * j_rows, ("%0d local writes, expected %0d", nwrites,
                 j_nchunks * j_rows))
          `CHECK(ar_row == j_rows, ("only %0d of %0d rows requested", ar_row, j_rows))
        end
        r_beats    = beats;
        r_writes   = nwrites;
        r_cycles   = cyc - t_start;
        r_err      = err;
        r_complete = (nwrites == j_nchunks * j_rows);
        if (seen_err) begin
          n_err_jobs = n_err_jobs + 1;
        end else if (stop_cyc >= 0) begin
          n_abort_jobs = n_abort_jobs + 1;
        end else begin
          n_ok_jobs = n_ok_jobs + 1;
        end
        in_job     = 0;
      end else if (in_job != 0) begin
        `CHECK(busy, ("busy_o low before done_o"))
      end
      if (start && !busy) begin
        `CHECK(in_job == 0, ("start_i during a job"))
        j_to_acc  = to_acc;
        j_addr    = addr;
        j_stride  = stride;
        j_rows    = rows;
        j_cols    = cols;
        j_local   = lbase[23:0];
        j_salt    = salt;
        j_err_en  = err_en;
        j_chunk   = to_acc ? 4 * N : N;
        j_nchunks = (j_cols + j_chunk - 1) / j_chunk;
        `CHECK(j_nchunks * j_rows <= MaxLocal, ("job too large for the bench"))
        for (k = 0; k < j_nchunks * j_rows; k = k + 1) begin
          written[k] = 1'b0;
        end
        nwrites  = 0;
        stop_cyc = -1;
        seen_err = 1'b0;
        ar_row   = 0;
        ar_next  = row_first_beat(0);
        beats    = 0;
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
        `CHECK(cyc - t0 < Timeout, ("no done_o after %0d cycles (rows %0d cols %0d)",
               Timeout, rows, cols))
        @(negedge clk);
      end
      abort = 1'b0;
    end
  endtask

  // Run a job to completion and let the checker finish it before returning.
  task run_job_wait;
    begin
      run_job();
      @(negedge clk);
    end
  endtask

  // Slave behaviour presets.
  task slave_mode(input integer m);
    begin
      case (m)
        0: begin p_ar = 100; p_r = 100; lat_min = 0;  lat_max = 0;  end  // ideal
        1: begin p_ar = 100; p_r = 100; lat_min = 4;  lat_max = 8;  end  // latency only
        2: begin p_ar = 60;  p_r = 70;  lat_min = 0;  lat_max = 6;  end
        3: begin p_ar = 25;  p_r = 40;  lat_min = 0;  lat_max = 3;  end
        default: begin p_ar = 80; p_r = 90; lat_min = 10; lat_max = 30; end
      endcase
    end
  endtask

  // Random job: alignment, sizes around chunk and beat multiples, overlapping, packed and
  // 4 KiB-crossing strides, addresses near 4 KiB boundaries and the top of the space.
  task random_job;
    reg [63:0] span;
    integer m, ch, nch;
    begin
      to_acc = (urand(2) != 0);
      ch = to_acc ? 4 * N : N;
      m = urand(100);
      rows = (m < 45) ? 1 + urand(4) : (m < 90) ? 1 + urand(16) : 1 + urand(40);
      case (urand(6))
        0: cols = 1 + urand(2 * B);
        1: cols = ch * (1 + urand(4)) + urand(3) - 1;
        2: cols = 1 + urand(200);
        3: cols = 1 + urand(1200);
        4: cols = 1 + urand(ch);
        default: cols = B * (1 + urand(40));
      endcase
      while (((cols + ch - 1) / ch) * rows > MaxLocal) begin
        rows = rows / 2 + 1;
      end
      case (urand(6))
        0: stride = cols;
        1: stride = cols + urand(64);
        2: stride = urand(cols + 1);                       // overlapping rows, incl. 0
        3: stride = 4096 + urand(64) - 32;
        4: stride = urand(5000);
        default: stride = B * urand(300);
      endcase
      case (urand(5))
        0: addr = urand(32'hFFFFFFFF);
        1: addr = 4096 * urand(32'h100000) - urand(3 * B);
        2: addr = 32'hFFFFFFFF - urand(64);                // pulled down below
        3: addr = urand(256);
        default: addr = 4096 * urand(32'h100000) + urand(4096);
      endcase
      span = {32'h0, stride} * {32'h0, rows[31:0] - 32'd1} + {32'h0, cols[31:0]};
      if ({32'h0, addr} + span > 64'h100000000) begin
        addr = 32'hFFFFFFFF - span[31:0] + 1 - urand(17);
      end
      nch   = (cols + ch - 1) / ch;
      lbase = urand(32'h1000000 - nch * rows);
      salt  = urand(32'hFFFFFFFF);
    end
  endtask

  // Error window of len bytes at byte ec of row er of the job in the inputs.
  task error_window(input integer er, input integer ec, input integer len);
    begin
      err_en = 1'b1;
      err_lo = addr + er * stride + ec;
      err_hi = err_lo + len;
    end
  endtask

  // Directed throughput check: cycles within 15 % of max(beats, writes) plus a fixed
  // allowance (start-up and latency per row).
  task check_throughput(input [8*24-1:0] what, input integer allowance);
    integer work;
    begin
      work = (r_beats > r_writes) ? r_beats : r_writes;
      $display("tsr_dma_rd_tb: %0s: %0d beats, %0d local writes in %0d cycles", what,
               r_beats, r_writes, r_cycles);
      `CHECK(r_complete && (PerfChecked == 0 || r_cycles * 100 <= work * 115 + allowance * 100),
             ("%0s: %0d cycles for %0d beats / %0d writes", what, r_cycles, r_beats, r_writes))
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
      $dumpvars(0, tsr_dma_rd_tb);
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

    // ---- Directed 0: throughput, no stalls, misaligned long rows, accumulator ----------
    job = 0;
    slave_mode(1);
    to_acc = 1'b1; addr = 32'h0001_0003; rows = 4; cols = 16 * 4 * N + 5;
    stride = cols + 7; lbase = 'h100; salt = 32'h5a5a;
    run_job_wait();
    check_throughput("acc, misaligned", 4 * (8 + 8));

    // ---- Directed 1: throughput, scratchpad chunks, 4 KiB stride ----------------------
    job = 1;
    to_acc = 1'b0; addr = 32'h0002_0005; rows = 3; cols = 20 * N + 3; stride = 32'd4096;
    run_job_wait();
    check_throughput("spad, misaligned", 3 * (8 + 8));

    // ---- Directed 2: SLVERR/DECERR in the middle of a long job --------------------------
    job = 2;
    slave_mode(2);
    to_acc = 1'b0; addr = 32'h0003_0ff1; rows = 8; cols = 300; stride = 400; lbase = 0;
    error_window(3, 150, 1);
    run_job_wait();
    // The failing burst is the one of row 3 holding byte err_lo.
    `CHECK(r_err && err_addr <= err_lo && err_lo - err_addr < MaxBurstBeats * B &&
           err_addr >= row_first_beat(3), ("mid-job error: err %0b err_addr %h, window %h",
           r_err, err_addr, err_lo))
    `CHECK(!r_complete, ("every row written despite the error"))
    err_en = 1'b0;

    // ---- Directed 3: error on the very first beat, slow slave --------------------------
    job = 3;
    slave_mode(3);
    to_acc = 1'b1; addr = 32'h0000_1000; rows = 5; cols = 64; stride = 64;
    error_window(0, 0, 1);
    run_job_wait();
    `CHECK(r_err && err_addr == 32'h0000_1000 && r_writes == 0,
           ("first-beat error: err %0b err_addr %h, %0d local writes", r_err, err_addr,
            r_writes))
    err_en = 1'b0;

    // ---- Directed 4: abort pulse in the middle -----------------------------------------
    job = 4;
    slave_mode(4);
    to_acc = 1'b0; addr = 32'h0004_0002; rows = 16; cols = 1000; stride = 1001;
    abort_at = cyc + 40; abort_pulse = 1;
    run_job_wait();
    `CHECK(!r_err && !r_complete, ("abort pulse: err %0b, complete %0b", r_err, r_complete))

    // ---- Directed 5: abort held from the first busy cycle ------------------------------
    job = 5;
    slave_mode(2);
    to_acc = 1'b1; addr = 32'h0005_0007; rows = 4; cols = 500; stride = 600;
    abort_at = cyc + 1; abort_pulse = 0;
    run_job_wait();
    `CHECK(!r_err && r_writes == 0, ("abort at once: err %0b, %0d local writes", r_err,
           r_writes))
    abort_at = -1;

    // ---- Random jobs (checked by the monitor) ------------------------------------------
    for (j = 0; j < jobs; j = j + 1) begin
      job = 6 + j;
      random_job();
      slave_mode(urand(5));
      err_en   = 1'b0;
      abort_at = -1;
      m = urand(100);
      if (m < 12) begin
        error_window(urand(rows), urand(cols), 1 + urand(8));
      end else if (m < 22) begin
        abort_at    = cyc + 1 + urand(((cols + 4 * N - 1) / N) * rows * 2 + 20);
        abort_pulse = urand(2);
      end
      run_job();
      // Half of the time the next job starts in this done_o cycle.
      if (urand(2) == 0) begin
        repeat (1 + urand(4)) @(negedge clk);
      end
    end
    @(negedge clk);
    @(negedge clk);

    $display("PASS tsr_dma_rd_tb N=%0d W=%0d MaxBurstBeats=%0d MaxOutstanding=%0d seed=%0d: %0d jobs (%0d ok, %0d bus error, %0d aborted), up to %0d bursts in flight",
             N, AxiDataWidth, MaxBurstBeats, MaxOutstanding, seed, jobs + 6, n_ok_jobs,
             n_err_jobs, n_abort_jobs, max_out);
    $finish;
  end

endmodule

`default_nettype wire
