// tsr_lut_tb: the activation table (rtl/tsr_lut.v) against a plain 256-entry array, both read modes, N 4, 8 and 16.
`default_nettype none
`timescale 1ns / 1ps

// Six copies side by side (N 4, 8, 16, each with SyncRead 1 and 0), fed the same
// random traffic: row writes (row r = entries N*r .. N*r+N-1), reads of random entries
// (with re_i random for the synchronous copy), soft resets (clr_i) and resets.
// Checked every cycle against the model: after reset or clr_i every entry reads 0
// until the next write (then the written rows, and the RAM's old contents for the
// others, which the model tracks as it has no reset); SyncRead 1: entry_o shows the
// entry sampled on the last edge with re_i high and holds otherwise; SyncRead 0:
// entry_o follows idx_i in the same cycle. A write and a read of the same row in one
// cycle: the synchronous read returns the old row (read-before-write RAM).
// Plusargs: +seed=<n> (default 1), +cycles=<n> (default 100000), +trace=<file.vcd>.
module tsr_lut_tb;
  reg clk = 1'b0;
  always #5 clk = ~clk;

  integer seed = 1, ncycles = 100000;
  reg go = 1'b0;
  initial begin : setup
    string trace;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("cycles=%d", ncycles)) ncycles = 100000;
    if ($value$plusargs("trace=%s", trace)) begin
      $dumpfile(trace);
      $dumpvars(0, tsr_lut_tb);
    end
    #2 go = 1'b1;
  end

  wire [5:0] done;
  tsr_lut_tb_bench #(.N(4),  .SyncRead(1)) u_n4_s  (.clk(clk), .go(go), .done(done[0]));
  tsr_lut_tb_bench #(.N(8),  .SyncRead(1)) u_n8_s  (.clk(clk), .go(go), .done(done[1]));
  tsr_lut_tb_bench #(.N(16), .SyncRead(1)) u_n16_s (.clk(clk), .go(go), .done(done[2]));
  tsr_lut_tb_bench #(.N(4),  .SyncRead(0)) u_n4_a  (.clk(clk), .go(go), .done(done[3]));
  tsr_lut_tb_bench #(.N(8),  .SyncRead(0)) u_n8_a  (.clk(clk), .go(go), .done(done[4]));
  tsr_lut_tb_bench #(.N(16), .SyncRead(0)) u_n16_a (.clk(clk), .go(go), .done(done[5]));

  initial begin
    wait (done == 6'h3f);
    $display("PASS tsr_lut_tb seed=%0d: N 4, 8, 16, synchronous and asynchronous read, %0d cycles each",
             seed, ncycles);
    $finish;
  end
endmodule

module tsr_lut_tb_bench #(
  parameter integer N        = 8,
  parameter integer SyncRead = 1
) (
  input  wire clk,
  input  wire go,
  output reg  done
);
  localparam integer Rows = 256 / N;
  localparam integer Aw   = $clog2(Rows);

  integer seed, cyc = 0;
`define TB_WHERE ("tsr_lut_tb N=%0d SyncRead=%0d seed=%0d cycle=%0d", N, SyncRead, seed, cyc)
`include "tsr_tb_check.vh"
`include "tsr_tb_prng.vh"

  reg           rst_n = 1'b0, clr = 1'b0, we = 1'b0, re = 1'b0;
  reg [Aw-1:0]  waddr = 0;
  reg [8*N-1:0] wdata = 0;
  reg [7:0]     idx = 0;
  wire [7:0]    entry;

  tsr_lut #(.N(N), .SyncRead(SyncRead)) u_dut (
    .clk_i   (clk),
    .rst_ni  (rst_n),
    .clr_i   (clr),
    .we_i    (we),
    .waddr_i (waddr),
    .wdata_i (wdata),
    .re_i    (re),
    .idx_i   (idx),
    .entry_o (entry)
  );

  // Model: the RAM's contents (no reset; X until written), whether the table has been
  // written since the last (soft) reset, and the synchronous read's sample.
  reg [7:0] mem [0:255];
  reg [255:0] known = 256'h0;
  reg       loaded = 1'b0;
  reg [7:0] samp = 8'h00;      // entry index sampled by the last read
  reg       samp_v = 1'b0;     // a read happened since the start
  reg [7:0] samp_val = 8'h00;  // its value at the sample (read-before-write)
  reg       samp_known = 1'b0;
  integer   n_reads = 0, n_clr = 0, e;

  initial begin : run
    reg [31:0] r;
    reg [7:0] exp;
    reg exp_known;
    done = 1'b0;
    wait (go);
    seed = tsr_lut_tb.seed;
    rng_seed((32'h9e3779b9 * (N + 64 * SyncRead)) ^ seed);
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    for (cyc = 0; cyc < tsr_lut_tb.ncycles; cyc = cyc + 1) begin
      // Inputs for this cycle.
      r = rand32(0);
      we = (r[3:0] < 4'd3);
      clr = (r[11:4] == 8'd0);
      re = (SyncRead != 0) ? r[12] | r[13] : r[12];
      idx = r[31:24];
      r = rand32(0);
      waddr = r[Aw-1:0];
      for (e = 0; e < N; e = e + 4) begin   // N / 4 fresh words (N >= 4)
        r = rand32(0);
        wdata[8*e +: 32] = r;
      end
      #1;
      // Asynchronous read: the entry of idx now.
      if (SyncRead == 0) begin
        exp = loaded ? mem[idx] : 8'h00;
        exp_known = !loaded || known[idx];
        if (exp_known) begin
          `CHECK(entry == exp, ("entry[%0d] = %h, expected %h", idx, entry, exp))
          n_reads = n_reads + 1;
        end
      end
      @(posedge clk);
      // The model follows the edge: the sample first (old contents), then the write.
      if (SyncRead != 0 && re) begin
        samp = idx; samp_v = 1'b1; samp_val = mem[idx]; samp_known = known[idx];
      end
      if (we) begin
        for (e = 0; e < N; e = e + 1) begin
          mem[waddr * N + e] = wdata[8*e +: 8];
          known[waddr * N + e] = 1'b1;
        end
      end
      if (clr) begin
        loaded = 1'b0;
        n_clr = n_clr + 1;
      end else if (we) begin
        loaded = 1'b1;
      end
      #1;
      // Synchronous read: the sampled row's entry, gated by the flag as it is now.
      if (SyncRead != 0 && samp_v && (samp_known || !loaded)) begin
        `CHECK(entry == (loaded ? samp_val : 8'h00),
               ("entry (idx %0d sampled) = %h, expected %h", samp, entry, loaded ? samp_val : 8'h00))
        n_reads = n_reads + 1;
      end
      // Now and then a reset: the table reads 0 again.
      if (rand32(0) % 2000 == 0) begin
        rst_n = 1'b0;
        #1 rst_n = 1'b1;
        loaded = 1'b0;
      end
    end
    if (n_reads < tsr_lut_tb.ncycles / 4 || n_clr == 0) begin
      $display("FAIL tsr_lut_tb N=%0d SyncRead=%0d seed=%0d: too little coverage (%0d reads, %0d clears)",
               N, SyncRead, seed, n_reads, n_clr);
      $fatal(1);
    end
    done = 1'b1;
  end
endmodule

`default_nettype wire
