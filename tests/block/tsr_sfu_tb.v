// tsr_sfu_tb: the special-function unit (rtl/tsr_sfu.v) against the golden C model, every function (docs/sfu.md).
`default_nettype none
`timescale 1ns / 1ps

// Random SFU commands at ArrayDim 8 with behavioural scratchpad and accumulator
// (synchronous read with enable, read-during-write returns the old row, as tsr_sram):
// LUT_LOAD, MAP, REDUCE, SOFTMAX, LAYERNORM and ADD, with 1..4 rows of 1..40 elements
// in the tensor layout of docs/sfu.md (element (r, j) in byte j mod N of row
// BASE + (j div N) * ROWS + r), parameter blocks made the way the driver makes them
// (sw/lib/tsr_sfu_prep.c, from random scales and zero points), sometimes a clamp range
// of LAYERNORM narrowed, sometimes one parameter out of range, and MAP / ADD / SOFTMAX in
// place (DST = SRC) now and then. Checked after each command, against
// sw/golden/tsr_sfu_golden.c through DPI-C (tests/block/tsr_sfu_ref.c):
//   - every result byte; the bytes past LEN in a result row's last chunk are zero;
//   - REDUCE: accumulator row DST + r = {0.., sum of squares, sum, max};
//   - LUT_LOAD: the table writes (lut_we_o, row r = entries N*r ..) carry the
//     scratchpad rows SRC.. and MAP then uses that table; after a soft reset MAP reads 0;
//   - a parameter the golden model rejects: one param_err_o pulse and nothing written;
//   - nothing outside the result region is written (both memories compared whole);
//   - busy_o falls within a bound.
// The golden model needs DPI-C: under Icarus the bench only says SKIP.
// Plusargs: +seed=<n> (default 1), +cmds=<n> (default 1000), +trace=<file.vcd>.
module tsr_sfu_tb;
  localparam integer N     = 8;
  localparam integer Rows  = 256;            // scratchpad and accumulator rows
  localparam integer Aw    = 8;
  localparam integer LutAw = $clog2(256 / N);
  localparam integer FnLutLoad = 0, FnMap = 1, FnReduce = 2, FnSoftmax = 3, FnLayernorm = 4,
                     FnAdd = 5, FnMul = 6, NFn = 7;
  localparam integer RefA = 0, RefB = 1, RefGamma = 2, RefBeta = 3, RefParam = 4, RefLut = 5,
                     RefY = 6, RefR = 7;

  reg clk = 1'b0;
  always #5 clk = ~clk;

  integer seed = 1, ncmds = 1000, cmd = 0, cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;

`define TB_WHERE ("tsr_sfu_tb seed=%0d command=%0d (func %0d rows %0d len %0d) cycle=%0d", seed, cmd, func, rows, len, cyc)
`include "tsr_tb_check.vh"
`include "tsr_tb_prng.vh"

`ifdef VERILATOR
  import "DPI-C" function int tsr_tb_sfu_set(input int which, input int idx, input int value);
  import "DPI-C" function int tsr_tb_sfu_get(input int which, input int idx);
  import "DPI-C" function int tsr_tb_sfu_prepare(input int func, input int len, input int r1,
                                                 input int r2, input int r3);
  import "DPI-C" function int tsr_tb_sfu_run(input int func, input int rows, input int len);
`endif

  // ---- DUT and memories ------------------------------------------------------------------
  reg              rst_n = 1'b0, clr = 1'b0, start = 1'b0;
  reg  [3:0]       func = 0;
  reg  [23:0]      src = 0, dst = 0, src2 = 0, param = 0, aux = 0;
  reg  [15:0]      rows = 0, len = 0;
  wire             busy, param_err, spad_re, spad_we, acc_re, acc_we, lut_we;
  wire [Aw-1:0]    spad_raddr, spad_waddr, acc_raddr, acc_waddr;
  reg  [8*N-1:0]   spad_rdata;
  wire [8*N-1:0]   spad_wdata;
  reg  [32*N-1:0]  acc_rdata;
  wire [32*N-1:0]  acc_wdata;
  wire [LutAw-1:0] lut_waddr;
  wire [8*N-1:0]   lut_wdata;

  reg  [8*N-1:0]   spad_mem [0:Rows-1];
  reg  [32*N-1:0]  acc_mem  [0:Rows-1];
  always @(posedge clk) begin
    if (spad_re) spad_rdata <= spad_mem[spad_raddr];
    if (acc_re)  acc_rdata  <= acc_mem[acc_raddr];
    if (spad_we) spad_mem[spad_waddr] <= spad_wdata;
    if (acc_we)  acc_mem[acc_waddr] <= acc_wdata;
  end

  tsr_sfu #(.ArrayDim(N), .SpadRows(Rows), .AccRows(Rows)) u_dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .clr_i        (clr),
    .start_i      (start),
    .func_i       (func),
    .src_i        (src),
    .dst_i        (dst),
    .rows_i       (rows),
    .len_i        (len),
    .src2_i       (src2),
    .param_i      (param),
    .aux_i        (aux),
    .busy_o       (busy),
    .param_err_o  (param_err),
    .spad_re_o    (spad_re),
    .spad_raddr_o (spad_raddr),
    .spad_rdata_i (spad_rdata),
    .spad_we_o    (spad_we),
    .spad_waddr_o (spad_waddr),
    .spad_wdata_o (spad_wdata),
    .acc_re_o     (acc_re),
    .acc_raddr_o  (acc_raddr),
    .acc_rdata_i  (acc_rdata),
    .acc_we_o     (acc_we),
    .acc_waddr_o  (acc_waddr),
    .acc_wdata_o  (acc_wdata),
    .lut_we_o     (lut_we),
    .lut_waddr_o  (lut_waddr),
    .lut_wdata_o  (lut_wdata)
  );

  // Table writes as seen on the port (the store lanes' copies follow them).
  reg [7:0] lut_seen [0:255];
  integer le;
  always @(posedge clk) begin
    if (lut_we) begin
      for (le = 0; le < N; le = le + 1) lut_seen[lut_waddr * N + le] = lut_wdata[8*le +: 8];
    end
  end

`ifdef VERILATOR
  // ---- One command -------------------------------------------------------------------------
  reg  [8*N-1:0]   spad_exp [0:Rows-1];
  reg  [32*N-1:0]  acc_exp  [0:Rows-1];
  integer n_by_func [0:NFn-1];
  integer n_param_err = 0, n_inplace = 0, n_clr = 0, n_sat = 0;

  function automatic [Aw-1:0] ix(input integer v);
    ix = v[Aw-1:0];
  endfunction

  integer param_int;   // PARAM as an integer

  function automatic integer chunks(input integer l);
    chunks = (l + N - 1) / N;
  endfunction

  task automatic put_param(input integer i, input [31:0] v);   // word i of the block at PARAM
    begin
      acc_mem[ix(param_int + i / N)][32*(i % N) +: 32] = v;
    end
  endtask

  task automatic run_cmd(input integer fn);
    integer r, j, c, nr, nl, cc, p, t, pw, gold, row_i;
    reg bad, inplace;
    integer src_i, dst_i, src2_i, param_i, aux_i;
    reg [31:0] x, r1, r2, r3;
    begin
      // Shape and regions: A at 0.., B / gamma at 64.., DST at 128.. (or in place),
      // the parameter block at accumulator row 0.., beta at 16.., REDUCE results at 64...
      nr = 1 + urand(4);
      nl = (urand(4) == 0) ? 1 + urand(N) : 1 + urand(40);
      if (fn == FnLutLoad) begin nr = 1; nl = 1; end
      cc = chunks(nl);
      inplace = (fn == FnMap || fn == FnAdd || fn == FnMul || fn == FnSoftmax) && (urand(4) == 0);
      src_i = urand(64 - cc * nr + 1);
      if (fn == FnLutLoad) src_i = urand(64 - 256 / N + 1);
      src2_i = 64 + urand(64 - cc * nr + 1);
      dst_i = inplace ? src_i : 128 + urand(64 - cc * nr + 1);
      if (fn == FnReduce) dst_i = 64 + urand(64 - nr + 1);
      param_i = urand(8);
      aux_i = 16 + urand(32);
      x = fn;      func = x[3:0];
      x = nr;      rows = x[15:0];
      x = nl;      len = x[15:0];
      x = src_i;   src = x[23:0];
      x = dst_i;   dst = x[23:0];
      x = src2_i;  src2 = x[23:0];
      x = param_i; param = x[23:0]; param_int = param_i;
      x = aux_i;   aux = x[23:0];
      // Memories: random, then the tensors (also staged for the golden model).
      for (r = 0; r < Rows; r = r + 1) begin
        for (c = 0; c < N; c = c + 1) begin
          x = rand32(0);
          spad_mem[r][8*c +: 8] = x[7:0];
          acc_mem[r][32*c +: 32] = rand32(0);
        end
      end
      for (r = 0; r < nr; r = r + 1) begin
        for (j = 0; j < nl; j = j + 1) begin
          row_i = (j / N) * nr + r;
          x = {24'h0, spad_mem[ix(src_i + row_i)][8*(j % N) +: 8]};
          void'(tsr_tb_sfu_set(RefA, r * nl + j, {{24{x[7]}}, x[7:0]}));
          x = {24'h0, spad_mem[ix(src2_i + row_i)][8*(j % N) +: 8]};
          void'(tsr_tb_sfu_set(RefB, r * nl + j, {{24{x[7]}}, x[7:0]}));
        end
      end
      for (j = 0; j < nl; j = j + 1) begin   // gamma: one row of LEN at SRC2; beta at AUX
        x = {24'h0, spad_mem[ix(src2_i + j / N)][8*(j % N) +: 8]};
        void'(tsr_tb_sfu_set(RefGamma, j, {{24{x[7]}}, x[7:0]}));
        x = urand(2) != 0 ? {{20{x[7]}}, x[7:0], 4'h0} : rand32(0) % 32'd100000;
        acc_mem[ix(aux_i + j / N)][32*(j % N) +: 32] = x;
        void'(tsr_tb_sfu_set(RefBeta, j, x));
      end
      // Parameters.
      pw = (fn == FnSoftmax) ? 3 : (fn == FnLayernorm) ? 8 : (fn == FnAdd) ? 11 : (fn == FnMul) ? 7 : 0;
      bad = 1'b0;
      if (pw != 0) begin
        t = 0;
        while (tsr_tb_sfu_prepare(fn, nl, rand32(0), rand32(0), rand32(0)) != 0) begin
          t = t + 1;
          `CHECK(t < 100, ("no parameters the driver accepts"))
        end
        if (urand(8) == 0) begin   // one parameter out of range
          bad = 1'b1;
          case (fn)
            FnSoftmax:   void'(tsr_tb_sfu_set(RefParam, 1, urand(2) != 0 ? 32 : -1));
            FnLayernorm: void'(tsr_tb_sfu_set(RefParam, urand(2) != 0 ? 4 : 6, urand(2) != 0 ? 31 : -200));
            FnMul:       void'(tsr_tb_sfu_set(RefParam, urand(2) != 0 ? 3 : 5, urand(2) != 0 ? 31 : -200));
            default:     void'(tsr_tb_sfu_set(RefParam, urand(2) != 0 ? 2 : 7, urand(2) != 0 ? 1 : 31));
          endcase
        end
        if (!bad && fn == FnAdd && urand(8) == 0) begin
          // srdhm's one saturating case, INT32_MIN * INT32_MIN, in A's first element:
          // (x + p0) << 20 = INT32_MIN with the multiplier p1 = INT32_MIN.
          x = {{24{spad_mem[ix(src_i)][7]}}, spad_mem[ix(src_i)][7:0]};
          void'(tsr_tb_sfu_set(RefParam, 0, 32'h800 - x));
          void'(tsr_tb_sfu_set(RefParam, 1, 32'h8000_0000));
          n_sat = n_sat + 1;
        end
        for (p = 0; p < pw; p = p + 1) put_param(p, tsr_tb_sfu_get(RefParam, p));
      end
      // Expected memories.
      for (r = 0; r < Rows; r = r + 1) begin
        spad_exp[r] = spad_mem[r];
        acc_exp[r]  = acc_mem[r];
      end
      gold = 0;
      if (fn == FnLutLoad) begin
        for (j = 0; j < 256; j = j + 1) begin
          x = {24'h0, spad_mem[ix(src_i + j / N)][8*(j % N) +: 8]};
          void'(tsr_tb_sfu_set(RefLut, j, {{24{x[7]}}, x[7:0]}));
        end
      end else begin
        gold = tsr_tb_sfu_run(fn, nr, nl);
        `CHECK(gold == 0 || (gold == -1 && bad), ("golden model refused the command (%0d)", gold))
        if (gold == 0 && fn == FnReduce) begin
          for (r = 0; r < nr; r = r + 1) begin
            acc_exp[ix(dst_i + r)] = {(32*N){1'b0}};
            for (c = 0; c < 3; c = c + 1)
              acc_exp[ix(dst_i + r)][32*c +: 32] = tsr_tb_sfu_get(RefR, 3 * r + c);
          end
        end else if (gold == 0) begin
          for (r = 0; r < nr; r = r + 1) begin
            for (c = 0; c < cc; c = c + 1) begin
              for (j = 0; j < N; j = j + 1) begin
                x = (c * N + j < nl) ? tsr_tb_sfu_get(RefY, r * nl + c * N + j) : 0;
                spad_exp[ix(dst_i + c * nr + r)][8*j +: 8] = x[7:0];
              end
            end
          end
        end
      end
      // Run.
      @(posedge clk); #1;
      `CHECK(!busy, ("busy before the start"))
      start = 1'b1;
      @(posedge clk); #1;
      start = 1'b0;
      t = 0; p = 0;
      while (busy) begin
        if (param_err) p = p + 1;
        @(posedge clk); #1;
        t = t + 1;
        `CHECK(t < 200000, ("busy_o does not fall"))
      end
      if (param_err) p = p + 1;
      @(posedge clk); #1;
      if (param_err) p = p + 1;
      `CHECK(p == ((gold == -1) ? 1 : 0), ("%0d param_err_o pulses, expected %0d", p, (gold == -1) ? 1 : 0))
      for (r = 0; r < Rows; r = r + 1) begin
        `CHECK(spad_mem[r] == spad_exp[r], ("scratchpad row %0d = %h, expected %h", r, spad_mem[r], spad_exp[r]))
        `CHECK(acc_mem[r] == acc_exp[r], ("accumulator row %0d = %h, expected %h", r, acc_mem[r], acc_exp[r]))
      end
      if (fn == FnLutLoad) begin
        for (j = 0; j < 256; j = j + 1) begin
          x = tsr_tb_sfu_get(RefLut, j);
          `CHECK(lut_seen[j] == x[7:0], ("table entry %0d written as %h, expected %h", j, lut_seen[j], x[7:0]))
        end
      end
      n_by_func[fn] = n_by_func[fn] + 1;
      if (gold == -1) n_param_err = n_param_err + 1;
      if (inplace) n_inplace = n_inplace + 1;
    end
  endtask

  task automatic soft_reset;   // empties the table: MAP reads 0
    integer j;
    begin
      clr = 1'b1;
      @(posedge clk); #1;
      clr = 1'b0;
      for (j = 0; j < 256; j = j + 1) void'(tsr_tb_sfu_set(RefLut, j, 0));
      n_clr = n_clr + 1;
    end
  endtask

  integer fn0, k0;
  reg [31:0] pick;
  initial begin : main
    string trace;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("cmds=%d", ncmds)) ncmds = 1000;
    if ($value$plusargs("trace=%s", trace)) begin
      $dumpfile(trace);
      $dumpvars(0, tsr_sfu_tb);
    end
    rng_seed(32'h5f0_5eed ^ seed);
    for (k0 = 0; k0 < NFn; k0 = k0 + 1) n_by_func[k0] = 0;
    for (k0 = 0; k0 < 256; k0 = k0 + 1) void'(tsr_tb_sfu_set(RefLut, k0, 0));
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    // MAP on the empty table first, then every function once, then at random.
    run_cmd(FnMap);
    for (fn0 = 0; fn0 < NFn; fn0 = fn0 + 1) run_cmd(fn0);
    for (cmd = NFn + 1; cmd < ncmds; cmd = cmd + 1) begin
      pick = urand(100);
      if (pick < 2) begin
        soft_reset();
        run_cmd(FnMap);
      end else if (pick < 8) begin
        run_cmd(FnLutLoad);
      end else begin
        run_cmd(1 + urand(NFn - 1));
      end
    end
    if (ncmds >= 200 && (n_param_err == 0 || n_inplace == 0 || n_clr == 0 || n_sat == 0)) begin
      $display("FAIL tsr_sfu_tb seed=%0d: too little coverage (%0d parameter errors, %0d in place, %0d soft resets, %0d saturating ADDs)",
               seed, n_param_err, n_inplace, n_clr, n_sat);
      $fatal(1);
    end
    $display("PASS tsr_sfu_tb seed=%0d: %0d commands (LUT_LOAD %0d, MAP %0d, REDUCE %0d, SOFTMAX %0d, LAYERNORM %0d, ADD %0d, MUL %0d; %0d parameter errors, %0d in place, %0d soft resets, %0d saturating ADDs), %0d checks",
             seed, cmd, n_by_func[0], n_by_func[1], n_by_func[2], n_by_func[3], n_by_func[4],
             n_by_func[5], n_by_func[6], n_param_err, n_inplace, n_clr, n_sat, n_checks);
    $finish;
  end
`else
  initial begin
    $display("SKIP tsr_sfu_tb: the golden model is C (DPI-C), which needs Verilator");
    $finish;
  end
`endif
endmodule

`default_nettype wire
