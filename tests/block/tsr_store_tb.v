// tsr_store_tb: the STORE unit (rtl/tsr_store.v) against a behavioural model, at four ArrayDim x StoreLanes shapes.
`default_nettype none
`timescale 1ns / 1ps

// Shapes (one build, run one after the other): N 8 with 8 and 2 lanes, N 4 with 4,
// N 16 with 4. Each runs random STOREs against a behavioural accumulator and
// scratchpad (synchronous read with enable, as tsr_sram) and checks, per job:
//   - the parameter rows it reads (PARAM..PARAM+2, +3..+4 with LEAKY) and the
//     shift check: with REQUANT, a per-channel or negative-side shift of a column
//     < COLS outside -31..30 gives one param_err_o pulse and no dma_start_o, no row;
//   - otherwise one dma_start_o pulse, then exactly ROWS rows, in order, each equal
//     to the model: column c of source row r through the output stage with that
//     column's bias / multiplier / shift (per channel or the command's), packed to
//     bytes with REQUANT or SPAD, raw int32 otherwise. The lane's arithmetic is the
//     golden C model's (DPI-C, Verilator) and tests/block/tsr_tb_requant_ref.vh's;
//   - the row stream contract: valid and data hold until ready (random backpressure);
//   - with the writer still busy with the STORE before (wr_busy_i for the first 0..30
//     cycles of one job in three), no dma_start_o while it is, and no row before
//     dma_start_o;
//   - busy_o low again after the last row is taken; a soft reset (clr_i) in the
//     middle of a job ends it at once and empties the table (LUT reads 0).
// Only columns < COLS are compared (the writer drops the others).
// Plusargs: +seed=<n> (default 1), +jobs=<n> per shape (default 1000), +trace=<file.vcd>.
module tsr_store_tb;
  reg clk = 1'b0;
  always #5 clk = ~clk;

  integer seed = 1;
  integer jobs = 1000;
  initial begin : setup
    string trace;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("jobs=%d", jobs)) jobs = 1000;
    if ($value$plusargs("trace=%s", trace)) begin
      $dumpfile(trace);
      $dumpvars(0, tsr_store_tb);
    end
  end

  wire [3:0] done;
  reg go = 1'b0;
  initial #2 go = 1'b1;
  tsr_store_tb_bench #(.N(8),  .L(8), .Id(0)) u_n8_l8  (.clk(clk), .go(go),      .done(done[0]));
  tsr_store_tb_bench #(.N(8),  .L(2), .Id(1)) u_n8_l2  (.clk(clk), .go(done[0]), .done(done[1]));
  tsr_store_tb_bench #(.N(4),  .L(4), .Id(2)) u_n4_l4  (.clk(clk), .go(done[1]), .done(done[2]));
  tsr_store_tb_bench #(.N(16), .L(4), .Id(3)) u_n16_l4 (.clk(clk), .go(done[2]), .done(done[3]));

  initial begin
    wait (done == 4'hf);
    $display("PASS tsr_store_tb seed=%0d: N 8 (8 and 2 lanes), N 4 (4 lanes), N 16 (4 lanes), %0d jobs each",
             seed, jobs);
    $finish;
  end
endmodule

// One shape: its DUT, memories, driver and model. Starts on go (the shapes run in turn:
// the DPI model's table is one).
module tsr_store_tb_bench #(
  parameter integer N  = 8,
  parameter integer L  = 8,
  parameter integer Id = 0
) (
  input  wire clk,
  input  wire go,
  output reg  done
);
  localparam integer Rows  = 64;
  localparam integer Aw    = 6;
  localparam integer LutAw = $clog2(256 / N);

  integer seed, jobs, job = 0, cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;

`define TB_WHERE ("tsr_store_tb N=%0d L=%0d seed=%0d job=%0d cycle=%0d", N, L, seed, job, cyc)
`include "tsr_tb_check.vh"
`include "tsr_tb_prng.vh"
`include "tsr_tb_requant_ref.vh"

`ifdef VERILATOR
  import "DPI-C" function int tsr_tb_requant_ref(input int acc, input int bias_en, input int bias,
    input int requant, input int mult, input int shift, input int zp, input int act_min,
    input int act_max, input int leaky, input int mult_neg, input int shift_neg, input int lut_en);
  import "DPI-C" function void tsr_tb_requant_lut(input int idx, input int value);
`endif

  // ---- DUT and memories ------------------------------------------------------------------
  reg               rst_n = 1'b0;
  reg               clr = 1'b0, start = 1'b0;
  reg               bias_en, requant, per_ch, spad, leaky, lut_en;
  reg  [23:0]       src, param;
  reg  [15:0]       rows, cols;
  reg  [31:0]       mult;
  reg  [7:0]        shift, zp, act_min, act_max;
  reg               lut_we = 1'b0;
  reg  [LutAw-1:0]  lut_waddr = 0;
  reg  [8*N-1:0]    lut_wdata = 0;
  wire              busy, param_err, dma_start, acc_re;
  wire [Aw-1:0]     acc_raddr, spad_raddr;
  reg  [32*N-1:0]   acc_rdata;
  reg  [8*N-1:0]    spad_rdata;
  wire              row_valid;
  reg               row_ready = 1'b0;
  reg               wr_busy = 1'b0;
  wire [32*N-1:0]   row_data;

  reg  [32*N-1:0]   acc_mem  [0:Rows-1];
  reg  [8*N-1:0]    spad_mem [0:Rows-1];
  always @(posedge clk) begin
    if (acc_re) begin
      acc_rdata  <= acc_mem[acc_raddr];
      spad_rdata <= spad_mem[spad_raddr];
    end
  end

  tsr_store #(.ArrayDim(N), .AccRows(Rows), .SpadRows(Rows), .StoreLanes(L)) u_dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .clr_i         (clr),
    .start_i       (start),
    .bias_en_i     (bias_en),
    .requant_i     (requant),
    .per_channel_i (per_ch),
    .src_i         (src),
    .param_i       (param),
    .rows_i        (rows),
    .cols_i        (cols),
    .mult_i        (mult),
    .shift_i       (shift),
    .zp_i          (zp),
    .act_min_i     (act_min),
    .act_max_i     (act_max),
    .spad_i        (spad),
    .leaky_i       (leaky),
    .lut_en_i      (lut_en),
    .lut_we_i      (lut_we),
    .lut_waddr_i   (lut_waddr),
    .lut_wdata_i   (lut_wdata),
    .busy_o        (busy),
    .param_err_o   (param_err),
    .dma_start_o   (dma_start),
    .acc_re_o      (acc_re),
    .acc_raddr_o   (acc_raddr),
    .spad_raddr_o  (spad_raddr),
    .acc_rdata_i   (acc_rdata),
    .spad_rdata_i  (spad_rdata),
    .row_valid_o   (row_valid),
    .row_ready_i   (row_ready),
    .wr_busy_i     (wr_busy),
    .row_data_o    (row_data)
  );

  // ---- Model ---------------------------------------------------------------------------
  function automatic [31:0] pick_val(input integer unused);
    reg [31:0] r;
    begin
      r = rand32(0);
      case (urand(8))
        0: pick_val = {r[0], {31{~r[0]}}};               // INT32_MIN or INT32_MAX
        1, 2: pick_val = {{16{r[15]}}, r[15:0]};
        3, 4: pick_val = {{24{r[7]}}, r[7:0]};
        default: pick_val = r;
      endcase
    end
  endfunction

  function automatic [31:0] pick_shift32(input integer bad_pct);
    reg [31:0] r;
    begin
      if (urand(100) < bad_pct) begin
        r = rand32(0);
        case (urand(4))
          0: pick_shift32 = 32'd31;
          1: pick_shift32 = 32'hffff_ffe0;               // -32
          2: pick_shift32 = {r[31], r[30:0] | 31'h40};   // far out
          default: pick_shift32 = r;
        endcase
      end else begin
        pick_shift32 = urand(62) - 32'd31;
      end
    end
  endfunction

  // One column's expected output (value already through bias add etc. in the model).
  function automatic [31:0] expect_col(input [31:0] a, input [31:0] b, input [31:0] m,
                                       input [31:0] sh, input [31:0] mn, input [31:0] shn);
    reg [63:0] r;
    reg [31:0] g;
    begin
      r = ref_out(a, bias_en, b, requant, m, sh[5:0], zp, act_min, act_max, leaky, mn, shn[5:0],
                  lut_en);
      expect_col = r[31:0];
`ifdef VERILATOR
      g = tsr_tb_requant_ref(a, {31'd0, bias_en}, b, {31'd0, requant}, m, sh, {{24{zp[7]}}, zp},
                             {{24{act_min[7]}}, act_min}, {{24{act_max[7]}}, act_max},
                             {31'd0, leaky}, mn, shn, {31'd0, lut_en});
      `CHECK(g == r[31:0], ("references disagree: golden C %h, Verilog model %h", g, r[31:0]))
`else
      g = 32'd0;
`endif
    end
  endfunction

  reg [32*N-1:0] exp_row [0:Rows-1];
  integer        nrows, pi, si;   // ROWS, PARAM and SRC as integers

  function automatic [Aw-1:0] ix(input integer v);   // a memory row index
    ix = v[Aw-1:0];
  endfunction
  reg            exp_err;

  task automatic model;
    integer r, c;
    reg [32*N-1:0] pb, pm, ps, pmn, psn, x, o;
    reg [31:0] m, sh, v;
    begin
      pb = acc_mem[ix(pi)]; pm = acc_mem[ix(pi + 1)]; ps = acc_mem[ix(pi + 2)];
      pmn = acc_mem[ix(pi + 3)]; psn = acc_mem[ix(pi + 4)];
      exp_err = 1'b0;
      for (c = 0; c < N; c = c + 1) begin
        if (requant && c < cols) begin
          if (per_ch && ($signed(ps[32*c +: 32]) < -31 || $signed(ps[32*c +: 32]) > 30))
            exp_err = 1'b1;
          if (leaky && ($signed(psn[32*c +: 32]) < -31 || $signed(psn[32*c +: 32]) > 30))
            exp_err = 1'b1;
        end
      end
      // (With a bad shift no row leaves; the golden model would clamp the shift.)
      for (r = 0; r < (exp_err ? 0 : nrows); r = r + 1) begin
        x = acc_mem[ix(si + r)];
        o = {(32*N){1'b0}};
        for (c = 0; c < N; c = c + 1) begin
          if (c < cols) begin
            m  = per_ch ? pm[32*c +: 32] : mult;
            sh = per_ch ? ps[32*c +: 32] : {{24{shift[7]}}, shift};
            v  = spad ? {24'h0, spad_mem[ix(si + r)][8*c +: 8]} : x[32*c +: 32];
            v  = expect_col(v, pb[32*c +: 32], m, sh, pmn[32*c +: 32], psn[32*c +: 32]);
            if (requant || spad) o[8*c +: 8] = v[7:0];
            else                 o[32*c +: 32] = v;
          end
        end
        exp_row[r] = o;
      end
    end
  endtask

  // Columns < COLS of a row as the stream carries them.
  function automatic [32*N-1:0] col_mask(input integer unused);
    integer c;
    begin
      col_mask = {(32*N){1'b0}};
      for (c = 0; c < N; c = c + 1) begin
        if (c < cols) begin
          if (requant || spad) col_mask[8*c +: 8] = 8'hff;
          else                 col_mask[32*c +: 32] = 32'hffff_ffff;
        end
      end
    end
  endfunction

  task automatic load_lut;
    integer r, e;
    reg [31:0] t;
    begin
      for (r = 0; r < 256 / N; r = r + 1) begin
        for (e = 0; e < N; e = e + 1) begin
          t = rand32(0);
          lut_wdata[8*e +: 8] = t[7:0];
          lut_ref[r * N + e] = t[7:0];
`ifdef VERILATOR
          tsr_tb_requant_lut(r * N + e, {{24{t[7]}}, t[7:0]});
`endif
        end
        lut_we = 1'b1; lut_waddr = r[LutAw-1:0];
        @(posedge clk); #1;
        lut_we = 1'b0;
      end
    end
  endtask

  task automatic forget_lut;   // reset or soft reset: the table reads 0
    integer e;
    begin
      for (e = 0; e < 256; e = e + 1) begin
        lut_ref[e] = 8'h00;
`ifdef VERILATOR
        tsr_tb_requant_lut(e, 0);
`endif
      end
    end
  endtask

  // ---- One job ---------------------------------------------------------------------------
  integer n_rows_ok = 0, n_err_jobs = 0, n_clr_jobs = 0;

  task automatic run_job;
    integer r, c, got, ready_pct, clr_at, t, n_start, n_err, wb;
    reg [32*N-1:0] held, mask, row;
    reg held_v;
    reg [31:0] x;
    begin
      // Memories and settings.
      for (r = 0; r < Rows; r = r + 1) begin
        for (c = 0; c < N; c = c + 1) begin
          acc_mem[r][32*c +: 32] = pick_val(0);
          x = rand32(0);
          spad_mem[r][8*c +: 8] = x[7:0];
        end
      end
      x = rand32(0);
      spad = (urand(8) == 0);
      requant = spad ? 1'b0 : (urand(6) != 0);
      bias_en = spad ? 1'b0 : x[0];
      per_ch  = x[1];
      leaky   = requant && (urand(4) == 0);
      lut_en  = requant && (urand(4) == 0);
      zp = x[15:8]; act_min = x[23:16]; act_max = x[31:24];
      if ($signed(act_min) > $signed(act_max)) begin act_min = x[31:24]; act_max = x[23:16]; end
      if (urand(3) == 0) begin act_min = 8'h80; act_max = 8'h7f; end
      mult  = pick_val(0);
      x     = urand(62) - 32'd31;
      shift = x[7:0];
      x     = 1 + urand(16);
      rows  = x[15:0];
      nrows = x;
      x     = 1 + urand(N);
      cols  = x[15:0];
      x     = urand(Rows - 5);
      param = x[23:0];
      pi    = x;
      x     = urand(Rows - nrows + 1);
      src   = x[23:0];
      si    = x;
      t = (urand(4) == 0) ? 10 : 0;   // bad shifts: in one job of four, 10% of them
      for (c = 0; c < N; c = c + 1) begin
        acc_mem[ix(pi + 2)][32*c +: 32] = pick_shift32(t);
        acc_mem[ix(pi + 4)][32*c +: 32] = pick_shift32(t);
        if (urand(4) == 0) acc_mem[ix(pi + 1)][32*c +: 32] = 32'h4000_0000;
      end
      model();
      ready_pct = (urand(3) == 0) ? 100 : 30 + urand(70);
      clr_at = (urand(12) == 0) ? 5 + urand(40) : -1;
      wb = (urand(3) == 0) ? urand(31) : 0;   // cycles the writer still runs the STORE before

      // Start.
      @(posedge clk); #1;
      `CHECK(!busy, ("busy before the start"))
      start = 1'b1;
      @(posedge clk); #1;
      start = 1'b0;
      got = 0; n_start = 0; n_err = 0; held_v = 1'b0; t = 0;
      wr_busy = (wb > 0);
      mask = col_mask(0);
      while (busy || t == 0) begin
        row_ready = (urand(100) < ready_pct);
        if (t == clr_at) clr = 1'b1;
        // Before the edge: what the unit shows this cycle.
        if (held_v && clr_at < 0) begin
          `CHECK(row_valid && row_data == held, ("row %0d dropped or changed while not ready", got))
        end
        `CHECK(!row_valid || n_start == 1, ("a row before dma_start"))
        if (row_valid && row_ready && !clr) begin
          row = row_data;
          if (got >= nrows) begin
            `CHECK(0, ("a row beyond ROWS=%0d", rows))
          end else begin
            `CHECK((row & mask) == (exp_row[got] & mask),
                   ("row %0d = %h, expected %h (requant=%0d bias=%0d per_ch=%0d spad=%0d leaky=%0d lut=%0d cols=%0d)",
                    got, row & mask, exp_row[got] & mask, requant, bias_en, per_ch, spad, leaky,
                    lut_en, cols))
            `CHECK(!(requant || spad) || row[32*N-1:8*N] == 0, ("packed row %0d not zero above byte N", got))
          end
          got = got + 1;
        end
        held_v = row_valid && !row_ready && !clr;
        held = row_data;
        @(posedge clk); #1;
        wr_busy = (t + 1 < wb);
        #1;   // dma_start_o follows wr_busy_i in the same cycle
        if (dma_start) begin
          `CHECK(!wr_busy, ("dma_start while the writer is busy"))
          n_start = n_start + 1;
        end
        if (param_err) n_err = n_err + 1;
        if (clr) begin
          clr = 1'b0;
          forget_lut();
          @(posedge clk); #1;
          `CHECK(!busy && !row_valid, ("still busy after the soft reset"))
          n_clr_jobs = n_clr_jobs + 1;
        end
        t = t + 1;
        `CHECK(t < 2000, ("job does not end"))
      end
      row_ready = 1'b0;
      wr_busy = 1'b0;
      if (clr_at < 0 || t <= clr_at) begin
        if (exp_err) begin
          `CHECK(n_err == 1 && n_start == 0 && got == 0,
                 ("a bad shift: %0d param_err, %0d dma_start, %0d rows; expected 1, 0, 0", n_err, n_start, got))
          n_err_jobs = n_err_jobs + 1;
        end else begin
          `CHECK(n_err == 0 && n_start == 1 && got == nrows,
                 ("%0d param_err, %0d dma_start, %0d rows; expected 0, 1, %0d", n_err, n_start, got, rows))
          n_rows_ok = n_rows_ok + got;
        end
      end
    end
  endtask

  initial begin
    done = 1'b0;
    forget_lut();
    wait (go);
    #1;   // after the top's plusargs
    seed = tsr_store_tb.seed;
    jobs = tsr_store_tb.jobs;
    rng_seed((32'h9e3779b9 * (Id + 1)) ^ seed);
    forget_lut();
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    for (job = 0; job < jobs; job = job + 1) begin
      if (urand(10) == 0) load_lut();
      run_job();
    end
    if (jobs >= 200 && (n_err_jobs == 0 || n_rows_ok < jobs || n_clr_jobs == 0)) begin
      $display("FAIL tsr_store_tb N=%0d L=%0d seed=%0d: too little coverage (%0d rows, %0d param errors, %0d soft resets)",
               N, L, seed, n_rows_ok, n_err_jobs, n_clr_jobs);
      $fatal(1);
    end
    $display("- tsr_store_tb N=%0d L=%0d: %0d jobs, %0d rows checked, %0d param errors, %0d soft resets, %0d checks",
             N, L, jobs, n_rows_ok, n_err_jobs, n_clr_jobs, n_checks);
    done = 1'b1;
  end
endmodule

`default_nettype wire
