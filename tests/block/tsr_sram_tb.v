// tsr_sram_tb: self-checking test of tsr_sram (one write port, one synchronous read port).
`timescale 1ns/1ps
`default_nettype none

// Four shapes run side by side, each with its own random stream: 8 x 16, 32 x 256 (the
// default), 64 x 4096 (a scratchpad) and 256 x 16 (the command queue). Each bench keeps a
// model of the memory and, every cycle, checks rdata_o against:
//   re_i high: the model's word at raddr_i BEFORE this cycle's write (a read during a write
//              to the same address returns the old contents, as documented);
//   re_i low : the previous rdata_o, unchanged (also while raddr_i moves and while the word
//              it came from is being overwritten).
// Phases: fill every address (reading back behind the writes); random traffic with a third
// of the reads on the address being written; a hold phase (re_i low, writes aimed at the
// word last read, raddr_i wandering); random traffic again inside a small address window
// so reads often hit recently written words.
// Plusargs: +seed=<n> (default 1), +cycles=<n> random cycles per phase (default 6000),
//           +trace=<file.vcd> (waves).

module tsr_sram_tb;
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
        $dumpvars(0, tsr_sram_tb);
      end
    end
  end

  wire [3:0] done;
  tsr_sram_tb_bench #(.Width(8),   .Depth(16),   .Id(0)) u_b0 (.clk(clk), .done(done[0]));
  tsr_sram_tb_bench #(.Width(32),  .Depth(256),  .Id(1)) u_b1 (.clk(clk), .done(done[1]));
  tsr_sram_tb_bench #(.Width(64),  .Depth(4096), .Id(2)) u_b2 (.clk(clk), .done(done[2]));
  tsr_sram_tb_bench #(.Width(256), .Depth(16),   .Id(3)) u_b3 (.clk(clk), .done(done[3]));

  initial begin
    wait (done == 4'hf);
    $display("PASS tsr_sram_tb seed=%0d: 4 shapes (8x16, 32x256, 64x4096, 256x16)", seed);
    $finish;
  end
endmodule

// One shape of tsr_sram with its driver, model and checks.
module tsr_sram_tb_bench #(
  parameter integer Width = 32,
  parameter integer Depth = 256,
  parameter integer Id = 0,
  localparam integer Aw = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  wire clk,
  output reg  done
);
  integer seed, ncycles;
`include "tsr_tb_prng.vh"   // rng, rand32(), urand(), xorshift32()

  function [Width-1:0] rand_word(input integer unused);
    reg [255:0] x;
    integer i;
    begin
      for (i = 0; i < 8; i = i + 1) begin
        x[32*i +: 32] = rand32(0);
      end
      rand_word = x[Width-1:0];
    end
  endfunction

  function [Aw-1:0] mod_depth(input [31:0] x);   // x mod Depth, as an address
    reg [31:0] m;
    begin
      m = x % Depth;
      mod_depth = m[Aw-1:0];
    end
  endfunction

  reg              we = 1'b0, re = 1'b0;
  reg  [Aw-1:0]    waddr = {Aw{1'b0}}, raddr = {Aw{1'b0}};
  reg  [Width-1:0] wdata = {Width{1'b0}};
  wire [Width-1:0] rdata;

  tsr_sram #(
    .Width (Width),
    .Depth (Depth)
  ) u_dut (
    .clk_i   (clk),
    .we_i    (we),
    .waddr_i (waddr),
    .wdata_i (wdata),
    .re_i    (re),
    .raddr_i (raddr),
    .rdata_o (rdata)
  );

  reg [Width-1:0] model [0:Depth-1];
  reg             written [0:Depth-1];
  reg [Width-1:0] exp_rdata;
  reg             exp_valid;         // exp_rdata is known (a written word was read)
  reg [Aw-1:0]    last_raddr;
  reg [1:0]       exp_why;           // for the message: 0 hold, 1 read, 2 read during write
  integer cyc, phase, plen, ncol, nhold, nreads;
  integer i;
  reg [31:0] r;
  reg [Aw-1:0] win;

  initial begin
    done = 1'b0;
    exp_valid = 1'b0;
    last_raddr = {Aw{1'b0}};
    ncol = 0; nhold = 0; nreads = 0;
    for (i = 0; i < Depth; i = i + 1) begin
      written[i] = 1'b0;
    end
    if (!$value$plusargs("seed=%d", seed)) begin
      seed = 1;
    end
    if (!$value$plusargs("cycles=%d", ncycles)) begin
      ncycles = 6000;
    end
    rng = (32'h9e3779b9 * (Id + 1)) ^ seed;
    if (rng == 32'h0) begin
      rng = 32'h1;
    end
    win = {Aw{1'b0}};
    // phase 0: fill; 1: random; 2: hold; 3: random in a window of 4 addresses
    for (phase = 0; phase < 4; phase = phase + 1) begin
      plen = (phase == 0) ? Depth + 1 : ncycles;
      for (cyc = 0; cyc < plen; cyc = cyc + 1) begin
        @(negedge clk);
        // ---- check the previous cycle ----
        if (exp_valid && rdata !== exp_rdata) begin
          $write("FAIL tsr_sram_tb Width=%0d Depth=%0d seed=%0d phase=%0d cycle=%0d: rdata_o=%h, expected %h ",
                 Width, Depth, seed, phase, cyc, rdata, exp_rdata);
          if (exp_why == 2'd2) begin
            $display("(read of address %0d during a write to it returns the old data)", last_raddr);
          end else if (exp_why == 2'd1) begin
            $display("(read of address %0d)", last_raddr);
          end else begin
            $display("(re_i low: holds the last read, of address %0d)", last_raddr);
          end
          $fatal(1);
        end
        // ---- drive this cycle ----
        r = rand32(0);
        wdata = rand_word(0);
        case (phase)
          0: begin
            we = (cyc < Depth);
            waddr = cyc[Aw-1:0];
            re = (cyc > 0);
            raddr = cyc[Aw-1:0] - {{(Aw-1){1'b0}}, 1'b1};
          end
          1: begin
            we = r[0] | r[1];
            waddr = mod_depth(rand32(0));
            re = r[2] | r[3];
            raddr = (r[6:4] < 3'd3) ? waddr : mod_depth(rand32(0));
          end
          2: begin
            we = r[0] | r[1];
            waddr = r[2] ? last_raddr : mod_depth(rand32(0));
            re = (r[7:3] == 5'd0);     // a rare read, so that holds last many cycles
            raddr = r[8] ? waddr : mod_depth(rand32(0));
          end
          default: begin
            if (r[9:5] == 5'd0) begin
              win = mod_depth(rand32(0));
            end
            we = r[0] | r[1];
            waddr = mod_depth({{(32-Aw){1'b0}}, win} + {30'h0, r[11:10]});
            re = r[2] | r[3];
            raddr = mod_depth({{(32-Aw){1'b0}}, win} + {30'h0, r[13:12]});
          end
        endcase
        // ---- expected rdata after the edge: old contents on a read, else unchanged ----
        exp_why = 2'd0;
        if (re) begin
          exp_why = (we && waddr == raddr) ? 2'd2 : 2'd1;
          exp_rdata = model[raddr];
          exp_valid = written[raddr];
          last_raddr = raddr;
          nreads = nreads + 1;
          if (we && waddr == raddr && written[raddr]) begin
            ncol = ncol + 1;
          end
        end else if (exp_valid) begin
          nhold = nhold + 1;
        end
        if (we) begin
          model[waddr] = wdata;
          written[waddr] = 1'b1;
        end
      end
    end
    if (ncol < 100 || nhold < 1000) begin
      $display("FAIL tsr_sram_tb Width=%0d Depth=%0d seed=%0d: too little coverage (%0d read-during-write, %0d hold cycles)",
               Width, Depth, seed, ncol, nhold);
      $fatal(1);
    end
    $display("tsr_sram_tb Width=%0d Depth=%0d: %0d reads, %0d read-during-write to the same address, %0d hold cycles checked",
             Width, Depth, nreads, ncol, nhold);
    done = 1'b1;
  end
endmodule

`default_nettype wire
