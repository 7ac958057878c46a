// tsr_array_tb: self-checking test of tsr_array (N x N weight-stationary systolic array).
`timescale 1ns/1ps
`default_nettype none

// ArrayDim 4, 8 and 16 run side by side (one build), each with its own random stream.
// Each bench alternates the two weight banks in phases: while rows that use bank b stream in
// (back to back, with random bubbles carrying garbage rows), the other bank is loaded with
// new random weights, and the next phase streams with it. The schedule is as tight as the
// array allows, and often exactly at the limit:
//   - row k of a bank is rewritten no earlier than N-1+k cycles after the last row that
//     used the old weights entered (the cycle that row's element k leaves PE[k][N-1]);
//   - rows using the new weights enter from the cycle after row 0 of the bank is written,
//     while rows 1..N-1 are still being written (the skew makes that safe).
// Checks, every cycle:
//   - out_valid_o is exactly in_valid_i delayed by Latency = 2N-1 cycles;
//   - a valid output row carries the input row's tag and equals the reference product
//     row * W[bank] (int8 x int8 summed in int32), computed when the row entered with the
//     weights its bank held then, so a row that saw a single wrong weight fails;
//   - busy_o is high exactly while some valid row is inside (entered 1..Latency cycles ago);
//   - an asynchronous reset in mid-stream drops the rows inside (no out_valid_o for them);
//     the weights, which have no reset, stay usable.
// Plusargs: +seed=<n> (default 1), +cycles=<n> cycles per size (default 4000),
//           +trace=<file.vcd> (waves).

module tsr_array_tb;
  reg clk = 1'b0;
  always #5 clk = ~clk;

  integer seed;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
      seed = 1;
    end
    begin : trace
      reg [8*256-1:0] tfile;
      if ($value$plusargs("trace=%s", tfile)) begin
        $dumpfile(tfile);
        $dumpvars(0, tsr_array_tb);
      end
    end
  end

  wire [2:0] done;
  tsr_array_tb_bench #(.N(4))  u_n4  (.clk(clk), .done(done[0]));
  tsr_array_tb_bench #(.N(8))  u_n8  (.clk(clk), .done(done[1]));
  tsr_array_tb_bench #(.N(16)) u_n16 (.clk(clk), .done(done[2]));

  initial begin
    wait (done == 3'h7);
    $display("PASS tsr_array_tb seed=%0d: ArrayDim 4, 8 and 16", seed);
    $finish;
  end
endmodule

// One array size with its driver, reference model and checks.
module tsr_array_tb_bench #(
  parameter integer N = 8
) (
  input  wire clk,
  output reg  done
);
  localparam integer L    = 2 * N - 1;      // documented latency
  localparam integer H    = 64;             // history depth (> L)
  localparam integer TagW = 16;
  localparam integer Rw   = (N > 1) ? $clog2(N) : 1;

  integer seed, ncycles;
`include "tsr_tb_prng.vh"   // rng, rand32(), urand(), xorshift32()

  // Weights of a bank: random, or (one bank in four) the extremes: -128 in
  // even columns and 127 in odd ones. With an all -128 row these give every
  // column its largest (N * 16384) or smallest (N * -16256) sum: the partial
  // sums are only as wide as they must be (tsr_array).
  function [7:0] weight_int8(input integer col, input reg extreme);
    weight_int8 = !extreme ? rand_int8(0) : (col % 2 == 0) ? 8'h80 : 8'h7f;
  endfunction

  function [7:0] rand_int8(input integer unused);   // biased to the extremes
    reg [31:0] x;
    begin
      x = urand(32'hffffffff);
      case (x[3:0])
        4'd0: rand_int8 = 8'h80;
        4'd1: rand_int8 = 8'h7f;
        4'd2: rand_int8 = 8'hff;
        default: rand_int8 = x[31:24];
      endcase
    end
  endfunction

  reg               rst_n = 1'b0;
  reg               in_valid = 1'b0;
  reg  [8*N-1:0]    in_row = {(8*N){1'b0}};
  reg               in_sel = 1'b0;
  reg  [TagW-1:0]   in_tag = {TagW{1'b0}};
  reg               w_we = 1'b0;
  reg  [Rw-1:0]     w_row = {Rw{1'b0}};
  reg               w_bank = 1'b0;
  reg  [8*N-1:0]    w_data = {(8*N){1'b0}};
  wire              out_valid;
  wire [32*N-1:0]   out_row;
  wire [TagW-1:0]   out_tag;
  wire              busy;

  tsr_array #(
    .ArrayDim (N),
    .TagWidth (TagW)
  ) u_dut (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .in_valid_i  (in_valid),
    .in_row_i    (in_row),
    .in_sel_i    (in_sel),
    .in_tag_i    (in_tag),
    .w_we_i      (w_we),
    .w_row_i     (w_row),
    .w_bank_i    (w_bank),
    .w_data_i    (w_data),
    .out_valid_o (out_valid),
    .out_row_o   (out_row),
    .out_tag_o   (out_tag),
    .busy_o      (busy)
  );

  // Reference weights: wm[bank*N + k] is row k of the bank as the rows now entering see it.
  reg [8*N-1:0]  wm [0:2*N-1];
  reg [8*N-1:0]  wnew [0:N-1];              // the bank being loaded, row by row
  // What entered the array, by cycle.
  reg            h_valid [0:H-1];
  reg [TagW-1:0] h_tag   [0:H-1];
  reg            h_bank  [0:H-1];
  reg [32*N-1:0] h_exp   [0:H-1];

  function [32*N-1:0] ref_row(input [8*N-1:0] a, input integer bank);
    integer k, j;
    reg [31:0] acc;
    reg [8*N-1:0] wr;
    integer prod;
    begin
      for (j = 0; j < N; j = j + 1) begin
        acc = 32'h0;
        for (k = 0; k < N; k = k + 1) begin
          wr = wm[bank * N + k];
          prod = $signed(a[8*k +: 8]) * $signed(wr[8*j +: 8]);   // signed: not mixed with acc
          acc = acc + prod;
        end
        ref_row[32*j +: 32] = acc;
      end
    end
  endfunction

  // Schedule state.
  integer t, i, j, k, hi;
  integer bank;                 // bank of the current phase
  integer rows_left;            // cycles left in the current phase
  integer next_start;           // first cycle the next phase may start
  integer ld_bank, ld_w0, ld_k; // weight load: bank, first write cycle, next row (N: done)
  integer last_use [0:1];       // last cycle a valid row used each bank
  integer rst_at;
  reg     want_load;            // the bank of the previous phase waits to be reloaded
  reg [TagW-1:0] tag;
  reg            exp_busy;
  reg [31:0]     u;
  reg            ext_w, ext_a;    // extreme weights, an extreme row
  // Coverage.
  integer n_rows, n_phases, n_tight_load, n_tight_start, n_bubbles, n_dropped;

  initial begin
    done = 1'b0;
    if (!$value$plusargs("seed=%d", seed)) begin
      seed = 1;
    end
    if (!$value$plusargs("cycles=%d", ncycles)) begin
      ncycles = 4000;
    end
    rng = (32'h9e3779b9 * N) ^ seed;
    if (rng == 32'h0) begin
      rng = 32'h1;
    end
    for (i = 0; i < H; i = i + 1) begin
      h_valid[i] = 1'b0;
    end
    n_rows = 0; n_dropped = 0; n_phases = 0; n_tight_load = 0; n_tight_start = 0; n_bubbles = 0;
    last_use[0] = -1000; last_use[1] = -1000;
    tag = {TagW{1'b0}};
    rst_at = -1;
    // Bank 0 is loaded first, from cycle 3; the first phase may start the cycle after.
    bank = 1; rows_left = 0;
    ld_bank = 0; ld_w0 = 3; ld_k = 0; want_load = 1'b0;
    next_start = ld_w0 + 1;
    for (k = 0; k < N; k = k + 1) begin
      for (j = 0; j < N; j = j + 1) begin
        wnew[k][8*j +: 8] = weight_int8(j, 1'b1);   // the first bank: extreme
      end
      wm[k] = wnew[k];
    end

    for (t = 0; t < ncycles; t = t + 1) begin
      @(negedge clk);
      // ---------------- checks: the outputs after t clock edges ----------------
      if (rst_n) begin
        hi = (t - L + H) % H;
        if (out_valid !== (t >= L && h_valid[hi])) begin
          $display("FAIL tsr_array_tb N=%0d seed=%0d cycle=%0d: out_valid_o=%b, expected %b (in_valid_i %0d cycles earlier)",
                   N, seed, t, out_valid, (t >= L && h_valid[hi]), L);
          $fatal(1);
        end
        if (out_valid && out_tag !== h_tag[hi]) begin
          $display("FAIL tsr_array_tb N=%0d seed=%0d cycle=%0d: out_tag_o=%h, expected %h",
                   N, seed, t, out_tag, h_tag[hi]);
          $fatal(1);
        end
        if (out_valid && out_row !== h_exp[hi]) begin
          for (j = N - 1; j >= 0; j = j - 1) begin
            if (out_row[32*j +: 32] !== h_exp[hi][32*j +: 32]) begin
              k = j;
            end
          end
          $display("FAIL tsr_array_tb N=%0d seed=%0d cycle=%0d: row tag %h (bank %0d) column %0d = %h, expected %h",
                   N, seed, t, h_tag[hi], h_bank[hi], k, out_row[32*k +: 32], h_exp[hi][32*k +: 32]);
          $fatal(1);
        end
        exp_busy = 1'b0;
        for (i = 1; i <= L; i = i + 1) begin
          if (t - i >= 0 && h_valid[(t - i + H) % H]) begin
            exp_busy = 1'b1;
          end
        end
        if (busy !== exp_busy) begin
          $display("FAIL tsr_array_tb N=%0d seed=%0d cycle=%0d: busy_o=%b, expected %b",
                   N, seed, t, busy, exp_busy);
          $fatal(1);
        end
      end else if (out_valid !== 1'b0 || busy !== 1'b0) begin
        $display("FAIL tsr_array_tb N=%0d seed=%0d cycle=%0d: out_valid_o=%b busy_o=%b in reset",
                 N, seed, t, out_valid, busy);
        $fatal(1);
      end

      // ---------------- drive cycle t ----------------
      // Reset for two cycles from the first cycle after half time with rows inside.
      if (rst_at < 0 && t >= ncycles / 2 && exp_busy) begin
        rst_at = t;
      end
      rst_n = !(t < 2 || t == rst_at || t == rst_at + 1);
      if (!rst_n) begin
        for (i = 1; i < L; i = i + 1) begin   // rows inside are dropped
          if (t - i >= 0 && h_valid[(t - i + H) % H]) begin
            n_dropped = n_dropped + 1;
          end
        end
        for (i = 0; i < H; i = i + 1) begin
          h_valid[i] = 1'b0;
        end
      end
      // Phase change: the next phase streams with the bank loaded last, from the cycle after
      // its row 0 was written; then the other bank is to be reloaded.
      if (rows_left == 0 && !want_load && t >= next_start && rst_n) begin
        if (t == next_start) begin
          n_tight_start = n_tight_start + 1;
        end
        bank = ld_bank;
        rows_left = 1 + urand(3 * N);
        n_phases = n_phases + 1;
        want_load = 1'b1;
      end
      // Reload the bank the last phase used, once the previous load is done, as early as the
      // rows still using the old weights allow (often exactly then).
      if (want_load && ld_k == N) begin
        ld_bank = 1 - bank;
        ld_w0 = last_use[ld_bank] + N - 1;
        if (ld_w0 < t) begin
          ld_w0 = t;
        end
        if (ld_w0 == last_use[ld_bank] + N - 1) begin
          n_tight_load = n_tight_load + 1;
        end
        if (urand(3) == 0) begin
          ld_w0 = ld_w0 + urand(2 * N);
        end
        ld_k = 0;
        ext_w = (urand(4) == 0);
        for (k = 0; k < N; k = k + 1) begin
          for (j = 0; j < N; j = j + 1) begin
            wnew[k][8*j +: 8] = weight_int8(j, ext_w);
          end
        end
        next_start = ld_w0 + 1;
        want_load = 1'b0;
      end
      // Weight load: row ld_k at cycle ld_w0 + ld_k.
      w_we = 1'b0;
      u = urand(32'hffffffff);
      w_row = u[Rw-1:0];
      w_bank = u[8];
      for (j = 0; j < N; j = j + 1) begin
        u = urand(32'hffffffff);
        w_data[8*j +: 8] = u[7:0];
      end
      if (ld_k < N && t == ld_w0 + ld_k) begin
        if (ld_k == 0) begin                   // the reference switches to the new weights now
          for (k = 0; k < N; k = k + 1) begin
            wm[ld_bank * N + k] = wnew[k];
          end
        end
        w_we = 1'b1;
        u = ld_k;
        w_row = u[Rw-1:0];
        w_bank = (ld_bank != 0);
        w_data = wnew[ld_k];
        ld_k = ld_k + 1;
      end
      // Row: valid in most cycles of a phase; otherwise a garbage row with a random bank.
      // One row in four is all -128 (see weight_int8).
      ext_a = (urand(4) == 0);
      for (j = 0; j < N; j = j + 1) begin
        in_row[8*j +: 8] = ext_a ? 8'h80 : rand_int8(0);
      end
      u = urand(32'hffffffff);
      in_sel = u[16];
      in_tag = u[TagW-1:0];
      in_valid = 1'b0;
      if (rows_left > 0 && rst_n) begin
        rows_left = rows_left - 1;
        if (urand(8) != 0) begin
          in_valid = 1'b1;
          in_sel = (bank != 0);
          tag = tag + 1'b1;
          in_tag = tag;
          last_use[bank] = t;
          n_rows = n_rows + 1;
        end else begin
          n_bubbles = n_bubbles + 1;
        end
      end
      hi = t % H;
      h_valid[hi] = in_valid;
      h_tag[hi]   = in_tag;
      h_bank[hi]  = in_sel;
      h_exp[hi]   = ref_row(in_row, in_sel ? 1 : 0);
    end
    if (n_phases < 20 || n_tight_load < 5 || n_tight_start < 5 || n_dropped < 1) begin
      $display("FAIL tsr_array_tb N=%0d seed=%0d: too little coverage (%0d phases, %0d loads and %0d bank switches at the limit, %0d rows dropped by reset)",
               N, seed, n_phases, n_tight_load, n_tight_start, n_dropped);
      $fatal(1);
    end
    $display("tsr_array_tb N=%0d: %0d rows in %0d phases, %0d bubbles, %0d dropped by reset; %0d weight loads and %0d bank switches at the timing limit",
             N, n_rows, n_phases, n_bubbles, n_dropped, n_tight_load, n_tight_start);
    done = 1'b1;
  end
endmodule

`default_nettype wire
