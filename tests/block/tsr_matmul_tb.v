// tsr_matmul_tb: the MATMUL unit (rtl/tsr_matmul.v, with its tsr_array) against a behavioural model, N 4 and 8.
`default_nettype none
`timescale 1ns / 1ps

// Each size runs sequences of random MATMULs issued back to back (start_i as soon as
// ready_o), with behavioural memories: the scratchpad with its two synchronous read
// ports (A rows, weight rows) and the accumulator (synchronous read, write port).
// Commands mix overwrite and ACCUMULATE, KEEP_WEIGHTS, the weight preload (pre_i for the
// next command whenever pre_ready_o during the last tile, as the controller asks, also
// in the cycle of its start), K below, at and above ArrayDim (T = ceil(K / N) tiles,
// the last one short; the next tile's weights loaded beside the STREAM with sep_i, a
// serial WLOAD per tile without), N below ArrayDim (weight rows >= K and columns >= N
// zero), M = 1 (every row a tile's last), and result rows that overlap the previous
// command's (read-modify-write right behind a write: the forwarding path). One
// sequence in ten pulls clr_i (soft reset) in the middle of a command; the unit must
// drain to idle, and the next sequence (model resynchronised) must be exact.
// Checked:
//   - every accumulator write, in order: its row address and its value, the model's
//     C[c + i] = (ACCUMULATE ? C[c + i] : 0) + sum_t sum_k A[a + t*M + i][k] * W[w + t*N + k][j]
//     (int8 x int8 summed in wrapping int32, tile t's W with rows >= K_t and columns >= N
//     zero, or the last tile of the command before with KEEP_WEIGHTS), tile by tile;
//   - no write beyond the command's M rows; idle_o only when every row is written;
//   - the whole accumulator equals the model's after each sequence;
//   - one MATMUL of T = 8 tiles with sep_i: N cycles a tile at M = 1, no pause at M = N + 2.
// Plusargs: +seed=<n> (default 1), +seqs=<n> sequences per size (default 300), +trace=<file.vcd>.
module tsr_matmul_tb;
  reg clk = 1'b0;
  always #5 clk = ~clk;

  integer seed = 1;
  integer seqs = 300;
  reg go = 1'b0;
  initial begin : setup
    string trace;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("seqs=%d", seqs)) seqs = 300;
    if ($value$plusargs("trace=%s", trace)) begin
      $dumpfile(trace);
      $dumpvars(0, tsr_matmul_tb);
    end
    #2 go = 1'b1;
  end

  wire [1:0] done;
  tsr_matmul_tb_bench #(.N(4), .Id(0)) u_n4 (.clk(clk), .go(go), .done(done[0]));
  tsr_matmul_tb_bench #(.N(8), .Id(1)) u_n8 (.clk(clk), .go(go), .done(done[1]));

  initial begin
    wait (done == 2'h3);
    $display("PASS tsr_matmul_tb seed=%0d: ArrayDim 4 and 8, %0d sequences each", seed, seqs);
    $finish;
  end
endmodule

module tsr_matmul_tb_bench #(
  parameter integer N  = 8,
  parameter integer Id = 0
) (
  input  wire clk,
  input  wire go,
  output reg  done
);
  localparam integer Rows = 256;
  localparam integer Aw   = 8;
  localparam integer Q    = 4096;   // expected-write queue

  integer seed, seqs, seq = 0, cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;

`define TB_WHERE ("tsr_matmul_tb N=%0d seed=%0d sequence=%0d cycle=%0d", N, seed, seq, cyc)
`include "tsr_tb_check.vh"
`include "tsr_tb_prng.vh"

  // ---- DUT and memories ------------------------------------------------------------------
  reg              rst_n = 1'b0;
  reg              start = 1'b0, accumulate = 1'b0, keep = 1'b0, pre = 1'b0, sep = 1'b0, clr = 1'b0;
  reg  [23:0]      a_addr = 0, w_addr = 0, c_addr = 0, pre_w_addr = 0;
  reg  [15:0]      m = 0, k = 0, n = 0, pre_k = 0, pre_n = 0;
  wire             pre_ready, ready, idle, stream, spad_re, w_re, acc_re, acc_we;
  wire [Aw-1:0]    spad_raddr, w_raddr, acc_raddr, acc_waddr;
  reg  [8*N-1:0]   spad_rdata, w_rdata;
  reg  [32*N-1:0]  acc_rdata;
  wire [32*N-1:0]  acc_wdata;

  reg  [8*N-1:0]   spad_mem [0:Rows-1];
  reg  [32*N-1:0]  acc_mem  [0:Rows-1];
  always @(posedge clk) begin
    if (spad_re) spad_rdata <= spad_mem[spad_raddr];
    if (w_re)    w_rdata    <= spad_mem[w_raddr];
    if (acc_re)  acc_rdata  <= acc_mem[acc_raddr];
    if (acc_we)  acc_mem[acc_waddr] <= acc_wdata;
  end

  tsr_matmul #(.ArrayDim(N), .SpadRows(Rows), .AccRows(Rows)) u_dut (
    .clk_i          (clk),
    .rst_ni         (rst_n),
    .clr_i          (clr),
    .start_i        (start),
    .accumulate_i   (accumulate),
    .keep_weights_i (keep),
    .sep_i          (sep),
    .a_addr_i       (a_addr),
    .w_addr_i       (w_addr),
    .c_addr_i       (c_addr),
    .m_i            (m),
    .k_i            (k),
    .n_i            (n),
    .pre_i          (pre),
    .pre_w_addr_i   (pre_w_addr),
    .pre_k_i        (pre_k),
    .pre_n_i        (pre_n),
    .pre_ready_o    (pre_ready),
    .ready_o        (ready),
    .idle_o         (idle),
    .stream_o       (stream),
    .spad_re_o      (spad_re),
    .spad_raddr_o   (spad_raddr),
    .spad_rdata_i   (spad_rdata),
    .w_re_o         (w_re),
    .w_raddr_o      (w_raddr),
    .w_rdata_i      (w_rdata),
    .acc_re_o       (acc_re),
    .acc_raddr_o    (acc_raddr),
    .acc_rdata_i    (acc_rdata),
    .acc_we_o       (acc_we),
    .acc_waddr_o    (acc_waddr),
    .acc_wdata_o    (acc_wdata)
  );

  // ---- Model -----------------------------------------------------------------------------
  reg  [32*N-1:0]  model_acc [0:Rows-1];
  reg  [8*N-1:0]   wcur [0:N-1];        // the weights the last command used (zeroed)
  // Expected writes, in order: row address, accumulate, product row.
  reg  [Aw-1:0]    q_addr [0:Q-1];
  reg              q_acc  [0:Q-1];
  reg  [32*N-1:0]  q_prod [0:Q-1];
  integer          q_wr = 0, q_rd = 0;

  function automatic [Aw-1:0] ix(input integer v);
    ix = v[Aw-1:0];
  endfunction

  function automatic [7:0] pick8(input integer unused);
    reg [31:0] r;
    begin
      r = rand32(0);
      case (r[31:29])
        3'd0: pick8 = 8'h80;
        3'd1: pick8 = 8'h7f;
        3'd2: pick8 = 8'hff;
        default: pick8 = r[7:0];
      endcase
    end
  endfunction

  // A command's expected writes, queued when it is issued.
  // Tile t: weight rows wi + t*N + r (r < K_t = min(N, K - t*N)), A rows ai + t*M + i;
  // every tile after the first accumulates.
  task automatic model_cmd(input integer ai, input integer wi, input integer ci,
                           input integer mi, input integer ki, input integer ni, input kp);
    integer r, c, kk, t, nt, kt, at;
    reg [31:0] sum;
    reg [32*N-1:0] prod;
    begin
      nt = kp ? 1 : (ki + N - 1) / N;
      for (t = 0; t < nt; t = t + 1) begin
        if (!kp) begin
          kt = (ki - t * N < N) ? ki - t * N : N;
          for (r = 0; r < N; r = r + 1) begin
            for (c = 0; c < N; c = c + 1) begin
              wcur[r][8*c +: 8] = (r < kt && c < ni) ? spad_mem[ix(wi + t * N + r)][8*c +: 8] : 8'h00;
            end
          end
        end
        at = ai + t * mi;
        for (r = 0; r < mi; r = r + 1) begin
          for (c = 0; c < N; c = c + 1) begin
            sum = 32'h0;
            for (kk = 0; kk < N; kk = kk + 1) begin
              sum = sum + $unsigned($signed({{24{spad_mem[ix(at + r)][8*kk + 7]}}, spad_mem[ix(at + r)][8*kk +: 8]}) *
                                    $signed({{24{wcur[kk][8*c + 7]}}, wcur[kk][8*c +: 8]}));
            end
            prod[32*c +: 32] = sum;
          end
          q_addr[q_wr % Q] = ix(ci + r);
          q_acc[q_wr % Q]  = (t == 0) ? accumulate : 1'b1;
          q_prod[q_wr % Q] = prod;
          q_wr = q_wr + 1;
        end
      end
    end
  endtask

  // Every accumulator write against the head of the queue.
  reg [32*N-1:0] exp_row;
  integer c2;
  reg resync = 1'b0;   // after a soft reset: writes are not checked until the model resyncs
  always @(posedge clk) begin
    if (rst_n && acc_we && !resync) begin
      if (q_rd == q_wr) begin
        `CHECK(0, ("a write to row %0d that no command asked for", acc_waddr))
      end else begin
        for (c2 = 0; c2 < N; c2 = c2 + 1) begin
          exp_row[32*c2 +: 32] = q_prod[q_rd % Q][32*c2 +: 32] +
                                 (q_acc[q_rd % Q] ? model_acc[q_addr[q_rd % Q]][32*c2 +: 32] : 32'h0);
        end
        `CHECK(acc_waddr == q_addr[q_rd % Q] && acc_wdata == exp_row,
               ("write %0d: row %0d = %h, expected row %0d = %h (accumulate=%0d)", q_rd, acc_waddr,
                acc_wdata, q_addr[q_rd % Q], exp_row, q_acc[q_rd % Q]))
        model_acc[q_addr[q_rd % Q]] = exp_row;
        q_rd = q_rd + 1;
      end
    end
  end

  // ---- A sequence of commands ------------------------------------------------------------
  integer n_cmds = 0, n_keep = 0, n_pre = 0, n_acc = 0, n_fwd = 0;
  integer n_b2b = 0;   // starts on the last row of a STREAM with the weights already in the array
  integer n_multi = 0, n_m1 = 0, n_serial = 0, n_pre_m1 = 0, n_pre_same = 0, n_clr = 0;
  // Coverage, white-box: accumulating writes whose old row came from the forwarding path.
  integer n_fwd_hit = 0;
  always @(posedge clk) if (rst_n && acc_we && u_dut.wb_fwd_q && u_dut.wb_acc_q) n_fwd_hit = n_fwd_hit + 1;

  task automatic wait_idle;
    integer t;
    begin
      t = 0;
      @(posedge clk); #1;
      while (!idle) begin
        @(posedge clk); #1;
        t = t + 1;
        `CHECK(t < 4000, ("idle_o never rises"))
      end
    end
  endtask

  task automatic fill_spad;
    integer r, c;
    begin
      for (r = 0; r < Rows; r = r + 1) begin
        for (c = 0; c < N; c = c + 1) spad_mem[r][8*c +: 8] = pick8(0);
      end
    end
  endtask

  task automatic run_seq;
    integer i, r, c, ncmd, ai, wi, ci, mi, ki, ni, nt, last_ci, last_mi, t, gap, clr_at, clr_wait;
    integer prev_wi, prev_ki, prev_ai, prev_an;
    reg first, last_m1, pre_want, pre_sent, go_now, have_w, was_stream, do_clr;
    reg [31:0] x;
    begin
      fill_spad();
      ncmd = 1 + urand(6);
      do_clr = (urand(10) == 0);
      clr_at = urand(ncmd);
      last_ci = 0; last_mi = 0; last_m1 = 1'b0; first = 1'b1;
      prev_wi = 0; prev_ki = 0; prev_ai = 0; prev_an = 0;
      for (i = 0; i < ncmd; i = i + 1) begin
        keep = !first && (urand(5) == 0);
        pre_want = !first && !keep && (urand(2) == 0);
        case (urand(4))
          0: ki = N;
          1: ki = 1 + urand(N);
          default: ki = 1 + urand(4 * N + 3);
        endcase
        ni = (urand(2) == 0) ? N : 1 + urand(N);
        wi = urand(Rows - ki + 1);
        nt = keep ? 1 : (ki + N - 1) / N;
        case (urand(4))
          0: mi = 1;
          1: mi = 1 + urand(N);
          default: mi = 1 + urand(20);
        endcase
        if (nt * mi > Rows) mi = Rows / nt;
        ai = urand(Rows - nt * mi + 1);
        // Overlap the command before (one in three; half of them starting on its last
        // row, which, streamed right behind it, is read while being written: forwarding).
        ci = (!first && urand(3) == 0) ? last_ci + last_mi - 1 - (urand(2) == 0 ? 0 : urand(last_mi))
                                       : urand(Rows - mi + 1);
        if (ci + mi > Rows) ci = Rows - mi;
        accumulate = (urand(2) == 0);
        sep = (urand(4) != 0);
        x = wi; pre_w_addr = x[23:0]; x = ki; pre_k = x[15:0]; x = ni; pre_n = x[15:0];
        // Issue when ready, after a random gap; meanwhile preload this command's first
        // tile (pre_i) when the unit accepts it, at once, later, or with the start.
        gap = (urand(3) == 0) ? urand(12) : 0;
        pre_sent = 1'b0;
        go_now = 1'b0;
        t = 0;
        #1;
        while (!go_now) begin
          go_now = (t >= gap) && ready;
          if (pre_want && !pre_sent && pre_ready && (go_now || urand(3) == 0)) begin
            pre = 1'b1;
            pre_sent = 1'b1;
            n_pre = n_pre + 1;
            if (last_m1) n_pre_m1 = n_pre_m1 + 1;
            if (go_now) n_pre_same = n_pre_same + 1;
          end
          if (!go_now) begin
            @(posedge clk); #1;
            pre = 1'b0;
            t = t + 1;
            `CHECK(t < 4000, ("ready_o never rises"))
          end
        end
        // The command before has retired (ready_o): a LOAD may now overwrite its
        // weight rows (those neither it nor this one reads as A rows, which its
        // last A row may be in this very cycle, nor this one as weights): the unit
        // must be done with them.
        for (r = prev_wi; r < prev_wi + prev_ki; r = r + 1) begin
          if ((r < wi || r >= wi + ki) && (r < ai || r >= ai + nt * mi) && (r < prev_ai || r >= prev_ai + prev_an)) begin
            for (c = 0; c < N; c = c + 1) spad_mem[r][8*c +: 8] = pick8(0);
          end
        end
        prev_wi = wi; prev_ki = keep ? 0 : ki; prev_ai = ai; prev_an = nt * mi;
        x = ai; a_addr = x[23:0]; x = wi; w_addr = x[23:0]; x = ci; c_addr = x[23:0];
        x = mi; m = x[15:0]; x = ki; k = x[15:0]; x = ni; n = x[15:0];
        model_cmd(ai, wi, ci, mi, ki, ni, keep);
        was_stream = stream;
        have_w = keep || u_dut.pl_done_q || (u_dut.pl_loaded && sep);
        start = 1'b1;
        @(posedge clk); #1;
        start = 1'b0;
        pre = 1'b0;
        // Taken on the last row of a STREAM, a command whose weights are in the
        // array (preloaded, or KEEP_WEIGHTS) streams its first row the next cycle.
        if (was_stream && have_w) begin
          n_b2b = n_b2b + 1;
          `CHECK(stream && u_dut.cnt_q == 16'h0,
                 ("a start on the last row with the weights in the array left the array a cycle without a row"))
        end
        n_cmds = n_cmds + 1;
        if (keep) n_keep = n_keep + 1;
        if (accumulate) n_acc = n_acc + 1;
        if (nt > 1) n_multi = n_multi + 1;
        if (nt > 1 && mi == 1) n_m1 = n_m1 + 1;
        if (nt > 1 && !sep) n_serial = n_serial + 1;
        if (!first && ci <= last_ci + last_mi - 1 && ci + mi > last_ci) n_fwd = n_fwd + 1;
        last_ci = ci; last_mi = mi; last_m1 = (mi == 1); first = 1'b0;
        // A soft reset in the middle of this command: drain, resynchronise the model
        // with the accumulator, and go on without KEEP_WEIGHTS or a preload.
        if (do_clr && i == clr_at) begin
          clr_wait = urand(nt * (mi + N + 2));
          repeat (clr_wait) @(posedge clk);
          #1 clr = 1'b1;
          resync = 1'b1;
          @(posedge clk); #1;
          clr = 1'b0;
          `CHECK(!stream, ("a row streams the cycle after a soft reset"))
          wait_idle();
          for (r = 0; r < Rows; r = r + 1) model_acc[r] = acc_mem[r];
          q_rd = q_wr;
          resync = 1'b0;
          n_clr = n_clr + 1;
          first = 1'b1;
        end
      end
      // Drain: idle only when every row is written.
      wait_idle();
      `CHECK(q_rd == q_wr, ("idle_o with %0d rows not written", q_wr - q_rd))
      for (r = 0; r < Rows; r = r + 1) begin
        `CHECK(acc_mem[r] == model_acc[r], ("accumulator row %0d = %h, expected %h", r, acc_mem[r], model_acc[r]))
      end
    end
  endtask

  // One MATMUL of T = 8 tiles: cycles from its start to its retirement (ready_o), and
  // from its first A row to its last, a tile's cost in steady state.
  integer per_tile;
  task automatic timed_cmd(input integer mi, input reg sp, output integer total, output integer span);
    integer t, first_row, last_row;
    reg [31:0] x;
    begin
      fill_spad();
      x = mi; m = x[15:0]; x = 8 * N; k = x[15:0]; x = N; n = x[15:0];
      a_addr = 24'd0; w_addr = 24'd192; c_addr = 24'd0;
      accumulate = 1'b0; keep = 1'b0; sep = sp;
      model_cmd(0, 192, 0, mi, 8 * N, N, 1'b0);
      #1 start = 1'b1;
      @(posedge clk); #1;
      start = 1'b0;
      t = 1; first_row = -1; last_row = -1;
      while (!ready) begin
        if (stream && first_row < 0) first_row = t;
        if (stream) last_row = t;
        @(posedge clk); #1;
        t = t + 1;
        `CHECK(t < 4000, ("ready_o never rises"))
      end
      if (stream) last_row = t;
      total = t + 1;
      span = last_row - first_row;
      wait_idle();
      `CHECK(q_rd == q_wr, ("idle_o with %0d rows not written", q_wr - q_rd))
    end
  endtask
  task automatic perf_check;
    integer tot1, sp1, tot1s, sp1s, tot8, sp8;
    begin
      timed_cmd(1, 1'b1, tot1, sp1);
      timed_cmd(1, 1'b0, tot1s, sp1s);
      timed_cmd(N + 2, 1'b1, tot8, sp8);
      // 7 tile boundaries between the first and the last A row: at M = 1 the weight
      // port reads a row every cycle (N a tile), at M = N + 2 the A rows never pause.
      `CHECK(sp1 <= 7 * N, ("M = 1, 8 tiles: %0d cycles from the first A row to the last, more than 7 x N", sp1))
      `CHECK(sp8 == 8 * (N + 2) - 1, ("M = N + 2, 8 tiles: %0d cycles from the first A row to the last, not 8 x M - 1", sp8))
      $display("- tsr_matmul_tb N=%0d: one MATMUL of 8 tiles: M = 1 %0d cycles (%0d from the first A row to the last), serial (same bank) %0d (%0d); M = N + 2 %0d (%0d)",
               N, tot1, sp1, tot1s, sp1s, tot8, sp8);
    end
  endtask

  integer r0, c0;
  initial begin
    done = 1'b0;
    wait (go);
    seed = tsr_matmul_tb.seed;
    seqs = tsr_matmul_tb.seqs;
    rng_seed((32'h9e3779b9 * (Id + 1)) ^ seed);
    for (r0 = 0; r0 < Rows; r0 = r0 + 1) begin
      for (c0 = 0; c0 < N; c0 = c0 + 1) acc_mem[r0][32*c0 +: 32] = rand32(0);
      model_acc[r0] = acc_mem[r0];
    end
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    perf_check();
    for (seq = 0; seq < seqs; seq = seq + 1) run_seq();
    if (seqs >= 40 && (n_keep == 0 || n_pre == 0 || n_fwd == 0 || n_b2b == 0 || n_multi == 0 || n_m1 == 0 ||
                       n_serial == 0 || n_pre_m1 == 0 || n_pre_same == 0 || n_clr == 0)) begin
      $display("FAIL tsr_matmul_tb N=%0d seed=%0d: too little coverage (%0d KEEP_WEIGHTS, %0d preloads, %0d overlapping, %0d forwarded, %0d back to back, %0d multi-tile, %0d of them M = 1, %0d serial, %0d preloads behind M = 1, %0d with their start, %0d soft resets)",
               N, seed, n_keep, n_pre, n_fwd, n_fwd_hit, n_b2b, n_multi, n_m1, n_serial, n_pre_m1, n_pre_same, n_clr);
      $fatal(1);
    end
    $display("- tsr_matmul_tb N=%0d: %0d commands (%0d accumulate, %0d KEEP_WEIGHTS, %0d preloaded (%0d behind M = 1, %0d with the start), %0d of several tiles (%0d at M = 1, %0d serial), %0d overlapping the one before, %0d rows forwarded, %0d started on the last row, %0d soft resets), %0d rows written, %0d checks",
             N, n_cmds, n_acc, n_keep, n_pre, n_pre_m1, n_pre_same, n_multi, n_m1, n_serial, n_fwd, n_fwd_hit, n_b2b, n_clr, q_rd, n_checks);
    done = 1'b1;
  end
endmodule

`default_nettype wire
