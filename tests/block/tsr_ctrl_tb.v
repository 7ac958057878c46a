// tsr_ctrl_tb: self-checking test of tsr_ctrl (the command processor) with behavioural units.
`timescale 1ns/1ps
`default_nettype none

// The bench pushes commands word by word through cmd_we_i / cmd_word_i and plays the units
// around the controller:
//   - DMA read engine (LOAD): busy for RdLat cycles, then up to 6 rd_beat pulses, then a done
//     pulse; a LOAD whose ADDR[31:24] is 0xE0 ends with rd_err and ERR_ADDR = ADDR + 0x40;
//     on rd_abort it keeps returning beats for RdDrain cycles, then goes idle without done.
//   - matmul unit: ready low while it "feeds" rows, idle low until MmDrain cycles after
//     ready rises (the array drain); unit_clr shortens the drain to MmClr cycles.
//   - store unit + DMA write engine (STORE): a STORE with REQUANT, PER_CHANNEL and MULT =
//     0xBAD00001 pulses st_param_err; otherwise it streams ROWS x row bytes through
//     wr_bytes (AxiBytes per cycle at most), drops st_busy, and pulses wr_done WrTail cycles
//     later; ADDR[31:24] = 0xE1 makes that done carry wr_err and ERR_ADDR = ADDR + 0x80.
//     The store first reads its parameters for StParam cycles. wr_abort drains for WrDrain
//     cycles; unit_clr stops the store part at once.
//
// Every scenario is data: a program of commands, a list of driver steps (push, wait, soft
// reset, counter clear, checks) and the expected outcome. One driver loop runs the steps,
// one monitor checks every cycle, so each check exists once (Verilator 5.006 compiles
// timed tasks per call site, slowly). The monitor checks, every cycle:
//   - one unit start at a time, the right unit for cmd_o's opcode, cmd_o equal to the
//     pushed command of that index, opcode_o equal to it, and only when the units it
//     shares are free: LOAD to the scratchpad and MATMUL need mm_ready_i; LOAD to the
//     accumulator, STORE (and FENCE's retire) need mm_idle_i; nothing else may be busy;
//   - no start, no retire while STATUS.ERROR is up or a soft reset is in progress; a LOAD
//     retires only on rd_done_i, a STORE on wr_done_i, a MATMUL once mm_ready_i is back
//     (its rows are in the array), a FENCE with mm_idle_i;
//   - irq_*_o are one-cycle pulses; IRQ done only with the queue empty and the units idle;
//   - during a soft reset: rd_abort_o, wr_abort_o and unit_clr_o high until the engines are
//     idle; irq_clear_o once, only when they are; then no error, empty queue, index 0;
//   - CNT_CYCLES, CNT_BUSY (cycles with busy_o), CNT_MACS (m*k*n at each MATMUL start),
//     CNT_DMA_RD (AxiBytes per beat) and CNT_DMA_WR (sum of wr_bytes) against a mirror,
//     with COUNTERS_CLEAR; counters survive soft reset;
//   - done_o drops when the 8th word of a command is written.
// At the end of a scenario: the sequence of unit starts (unit and command index), ERR_CODE,
// ERR_CMD_IDX, ERR_ADDR, CMD_IDX, retired commands (and CNT_CMDS), FENCE interrupts.
//
// Failed checks are all reported (up to 80 lines) and the bench ends with $fatal.
// Checks of known RTL bugs say so in their message ("RTL bug Bn", see the report).
// Plusargs: +scenario=<n> runs one scenario, +trace=<file.vcd> (waves).

module tsr_ctrl_tb;
  localparam integer N            = 8;
  localparam integer SpadRows     = 512;
  localparam integer AccRows      = 128;
  localparam integer AxiDataWidth = 64;
  localparam integer QDepth       = 4;
  localparam integer AxiBytes     = AxiDataWidth / 8;
  localparam integer WrBw         = $clog2(AxiBytes + 1);
  localparam integer MaxProg      = 1100;
  localparam integer MaxSteps     = 40;
  localparam integer MaxLog       = 1100;
  localparam integer Timeout      = 20000;
  // Sized copies for expressions.
  localparam [31:0] N32 = N, Spad32 = SpadRows, Acc32 = AccRows, Q32 = QDepth, Axi32 = AxiBytes;
  localparam [15:0] N16 = N32[15:0];
  localparam [15:0] Q16 = Q32[15:0];
  localparam [23:0] Spad24 = Spad32[23:0];
  localparam [23:0] Acc24 = Acc32[23:0];
  localparam [WrBw-1:0] AxiBytesW = Axi32[WrBw-1:0];
  localparam [63:0] AxiBytes64 = {32'h0, Axi32};

  localparam [3:0] PopPrev = 4'd1, PopNext = 4'd2, PushPrev = 4'd4, PushNext = 4'd8;
  localparam [7:0] OpNop = 8'd0, OpLoad = 8'd1, OpMatmul = 8'd2, OpStore = 8'd3, OpFence = 8'd4;
  localparam [7:0] EOpcode = 8'd1, EDim = 8'd2, ESpad = 8'd3, EAcc = 8'd4, EDram = 8'd5,
                   EBusRd = 8'd6, EBusWr = 8'd7, EParam = 8'd8, EDep = 8'd9, EOvf = 8'd10,
                   ENoW = 8'd11, EWin = 8'd12;
  // Driver steps.
  localparam integer SPush = 1, SWords = 2, SWaitEnd = 3, SWaitStarts = 4, SWaitCyc = 5,
                     SSreset = 6, SWaitAbort = 7, SCclear = 8, SCheck = 9, SGeneric = 10,
                     SClean = 11, SKnob = 12;
  // Knobs (SKnob argument: id * 65536 + value).
  localparam integer KRdLat = 0, KRdDrain = 1, KMmDrain = 2, KMmClr = 3, KWrTail = 4,
                     KWrDrain = 5, KStParam = 6;

  // -------------------------------------------------------------------------------------
  // Clock, reset, DUT
  // -------------------------------------------------------------------------------------
  reg clk = 1'b0;
  always #5 clk = ~clk;
  reg rst_n = 1'b0;

  reg         cmd_we = 1'b0;
  reg  [31:0] cmd_word = 32'h0;
  reg         soft_reset = 1'b0;
  reg         cnt_clear = 1'b0;
  reg         rd_busy = 1'b0, rd_done = 1'b0, rd_err = 1'b0, rd_beat = 1'b0;
  reg  [31:0] rd_err_addr = 32'h0;
  reg         wr_busy = 1'b0, wr_done = 1'b0, wr_err = 1'b0;
  reg  [31:0] wr_err_addr = 32'h0;
  reg  [WrBw-1:0] wr_bytes = {WrBw{1'b0}};
  reg         mm_ready = 1'b1, mm_idle = 1'b1;
  reg         st_busy = 1'b0, st_param_err = 1'b0;
  reg  [31:0] win_base = 32'h0, win_limit = 32'hffff_ffff;   // DMA window (tsr_regs in the chip)

  wire        busy_o, done_o, error_o;
  wire [7:0]  err_code_o, opcode_o;
  wire [31:0] err_cmd_idx_o, err_addr_o, cmd_idx_o;
  wire [15:0] cmdq_free_o;
  wire [2:0]  cmdq_words_o;
  wire        irq_done_o, irq_error_o, irq_fence_o, irq_clear_o;
  wire [63:0] cnt_cycles_o, cnt_busy_o, cnt_macs_o, cnt_dma_rd_o, cnt_dma_wr_o, cnt_cmds_o;
  wire [255:0] cmd_o;
  wire        unit_clr_o, rd_start_o, rd_abort_o, wr_abort_o, mm_start_o, st_start_o, sfu_start_o;

  tsr_ctrl #(
    .ArrayDim     (N),
    .SpadRows     (SpadRows),
    .AccRows      (AccRows),
    .AxiDataWidth (AxiDataWidth),
    .CmdQDepth    (QDepth)
  ) u_dut (
    .clk_i          (clk),
    .rst_ni         (rst_n),
    .cmd_we_i       (cmd_we),
    .cmd_word_i     (cmd_word),
    .soft_reset_i   (soft_reset),
    .cnt_clear_i    (cnt_clear),
    .win_base_i     (win_base),
    .win_limit_i    (win_limit),
    .busy_o         (busy_o),
    .done_o         (done_o),
    .error_o        (error_o),
    .err_code_o     (err_code_o),
    .err_cmd_idx_o  (err_cmd_idx_o),
    .err_addr_o     (err_addr_o),
    .cmd_idx_o      (cmd_idx_o),
    .opcode_o       (opcode_o),
    .cmdq_free_o    (cmdq_free_o),
    .cmdq_words_o   (cmdq_words_o),
    .irq_done_o     (irq_done_o),
    .irq_error_o    (irq_error_o),
    .irq_fence_o    (irq_fence_o),
    .irq_clear_o    (irq_clear_o),
    .cnt_cycles_o   (cnt_cycles_o),
    .cnt_busy_o     (cnt_busy_o),
    .cnt_macs_o     (cnt_macs_o),
    .cnt_dma_rd_o   (cnt_dma_rd_o),
    .cnt_dma_wr_o   (cnt_dma_wr_o),
    .cnt_cmds_o     (cnt_cmds_o),
    .cmd_o          (cmd_o),
    .unit_clr_o     (unit_clr_o),
    .rd_start_o     (rd_start_o),
    .rd_abort_o     (rd_abort_o),
    .rd_busy_i      (rd_busy),
    .rd_done_i      (rd_done),
    .rd_err_i       (rd_err),
    .rd_err_addr_i  (rd_err_addr),
    .rd_beat_i      (rd_beat),
    .wr_abort_o     (wr_abort_o),
    .wr_busy_i      (wr_busy),
    .wr_done_i      (wr_done),
    .wr_err_i       (wr_err),
    .wr_err_addr_i  (wr_err_addr),
    .wr_bytes_i     (wr_bytes),
    .mm_start_o     (mm_start_o),
    .mm_ready_i     (mm_ready),
    .mm_idle_i      (mm_idle),
    .st_start_o     (st_start_o),
    .st_busy_i      (st_busy),
    .st_param_err_i (st_param_err),
    // The SFU is covered by the system tests (test_sys_sfu); here it stays idle.
    .sfu_start_o    (sfu_start_o),
    .sfu_busy_i     (1'b0),
    .sfu_param_err_i (1'b0)
  );

  // -------------------------------------------------------------------------------------
  // Scenario state (written by the driver, read by the monitor)
  // -------------------------------------------------------------------------------------
  integer    sc = -1;
  string     sc_name = "reset";
  integer    cyc = 0;
  integer    n_fail = 0;
  integer    n_checks = 0;

`define CHECK(cond, msg) \
  begin \
    n_checks = n_checks + 1; \
    if (!(cond)) begin \
      n_fail = n_fail + 1; \
      if (n_fail <= 80) begin \
        $display("FAIL tsr_ctrl_tb scenario %0d (%s) cycle %0d: %s", sc, sc_name, cyc, \
                 $sformatf msg); \
      end \
    end \
  end

  reg [255:0] prog [0:MaxProg-1];
  integer     nprog;
  integer     st_kind [0:MaxSteps-1];
  integer     st_arg  [0:MaxSteps-1];
  integer     nsteps;
  reg [7:0]   exp_err;                  // expected ERR_CODE (0: none)
  integer     exp_err_idx;              // and the failing command
  reg [31:0]  exp_err_addr;
  integer     exp_unit_err;             // 1: the failing command started its unit
  integer     base;                     // program index of command 0 since the last soft reset
  integer     pushed;                   // commands fully pushed
  integer     wi;                       // words of prog[pushed] pushed so far
  integer     sc_cleared;               // a COUNTERS_CLEAR happened in this scenario
  integer     clr_mark;                 // n_irq_clear when the last soft reset was written
  reg [63:0]  cmds_at_start;
  // Knobs of the behavioural units.
  integer     k_rd_lat, k_rd_drain, k_mm_drain, k_mm_clr, k_wr_tail, k_wr_drain, k_st_param;

  // What the monitor saw in this scenario.
  integer     nlog;
  integer     log_unit [0:MaxLog-1];    // 1 LOAD (read engine), 2 MATMUL, 3 STORE
  integer     log_idx  [0:MaxLog-1];    // program index
  integer     log_idle [0:MaxLog-1];    // mm_idle_i at the start
  integer     log_age  [0:MaxLog-1];    // cycles since mm_ready_i last rose
  integer     n_irq_done, n_irq_err, n_irq_fence, n_irq_clear, n_retired;
  integer     fence_age;                // cycles from mm_ready_i rising to the last fence IRQ
  integer     abort_len;                // cycles of the last soft reset (StAbort)

  // -------------------------------------------------------------------------------------
  // Command builders (docs/commands.md)
  // -------------------------------------------------------------------------------------
  function [255:0] c_op(input [7:0] op, input [3:0] deps, input [15:0] flags);
    c_op = {224'h0, flags, 4'h0, deps, op};
  endfunction

  function [255:0] c_load(input [3:0] deps, input dest, input [31:0] addr, input [31:0] stride,
                          input [15:0] rows, input [15:0] cols, input [23:0] loc);
    c_load = {96'h0, 8'h0, loc, cols, rows, stride, addr, 15'h0, dest, 4'h0, deps, OpLoad};
  endfunction

  function [255:0] c_mm(input [3:0] deps, input acc, input keep, input [23:0] a,
                        input [23:0] w, input [23:0] c, input [15:0] m, input [15:0] k,
                        input [15:0] n);
    c_mm = {64'h0, 16'h0, n, k, m, 8'h0, c, 8'h0, w, 8'h0, a, 14'h0, keep, acc, 4'h0, deps,
            OpMatmul};
  endfunction

  // flags = {PER_CHANNEL, REQUANT, BIAS}; w7 = {ACT_MAX, ACT_MIN, OUT_ZP, SHIFT}.
  function [255:0] c_store(input [3:0] deps, input [2:0] flags, input [31:0] addr,
                           input [31:0] stride, input [15:0] rows, input [15:0] cols,
                           input [23:0] src, input [23:0] param, input [31:0] mult,
                           input [31:0] w7);
    c_store = {w7, mult, 8'h0, param, 8'h0, src, cols, rows, stride, addr, 13'h0, flags, 4'h0,
               deps, OpStore};
  endfunction

  // A few good commands.
  function [255:0] ld(input [3:0] deps);             // 4 rows x 8 bytes to spad row 0
    ld = c_load(deps, 1'b0, 32'h1000, 32'd16, 16'd4, 16'd8, 24'd0);
  endfunction
  function [255:0] lda(input [3:0] deps);            // 2 rows x 32 bytes to acc row 0
    lda = c_load(deps, 1'b1, 32'h2000, 32'd64, 16'd2, 16'd32, 24'd0);
  endfunction
  function [255:0] mm(input [3:0] deps, input [15:0] m, input [15:0] k, input [15:0] n);
    mm = c_mm(deps, 1'b0, 1'b0, 24'd0, 24'd8, 24'd0, m, k, n);
  endfunction
  function [255:0] st(input [3:0] deps);             // 2 raw int32 rows of 8
    st = c_store(deps, 3'b000, 32'h3000, 32'd32, 16'd2, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0);
  endfunction
  // REQUANT store of one row: shift, act_min, act_max.
  function [255:0] stq(input [2:0] flags, input [23:0] param, input [7:0] shift,
                       input [7:0] amin, input [7:0] amax);
    stq = c_store(4'h0, flags, 32'h4000, 32'd8, 16'd1, 16'd8, 24'd0, param,
                  32'h40000000, {amax, amin, 8'h00, shift});
  endfunction
  localparam [2:0] FBias = 3'b001, FRq = 3'b010, FPc = 3'b100;

  function integer unit_of(input [255:0] c);
    case (c[7:0])
      OpLoad:   unit_of = 1;
      OpMatmul: unit_of = 2;
      OpStore:  unit_of = 3;
      default:  unit_of = 0;
    endcase
  endfunction

  task add(input [255:0] c);
    begin
      prog[nprog] = c;
      nprog = nprog + 1;
    end
  endtask

  task bad(input [255:0] c, input [7:0] code);   // the command that must fail
    begin
      exp_err = code;
      exp_err_idx = nprog;
      add(c);
    end
  endtask

  task step(input integer kind, input integer arg);
    begin
      st_kind[nsteps] = kind;
      st_arg[nsteps] = arg;
      nsteps = nsteps + 1;
    end
  endtask

  // -------------------------------------------------------------------------------------
  // Behavioural units
  // -------------------------------------------------------------------------------------
  integer    rd_cnt, rd_beats_left, rd_drain;
  reg        rd_aborting = 1'b0, rd_err_pend = 1'b0;
  reg [31:0] rd_err_addr_pend = 32'h0;
  reg [15:0] rd_rows;
  always @(posedge clk) begin
    rd_done <= 1'b0;
    rd_err  <= 1'b0;
    rd_beat <= 1'b0;
    if (!rst_n) begin
      rd_busy <= 1'b0;
      rd_aborting = 1'b0;
    end else if (rd_busy) begin
      if (rd_abort_o || rd_aborting) begin
        if (!rd_aborting) begin
          rd_aborting = 1'b1;
          rd_drain = k_rd_drain;
        end
        if (rd_drain == 0) begin
          rd_busy <= 1'b0;
          rd_aborting = 1'b0;
        end else begin
          rd_drain = rd_drain - 1;
          rd_beat <= 1'b1;             // bursts in flight still deliver beats
        end
      end else if (rd_cnt > 0) begin
        rd_cnt = rd_cnt - 1;
      end else if (rd_beats_left > 0) begin
        rd_beat <= 1'b1;
        rd_beats_left = rd_beats_left - 1;
      end else begin
        rd_done <= 1'b1;
        rd_err <= rd_err_pend;
        rd_err_addr <= rd_err_pend ? rd_err_addr_pend : 32'hdeadbeef;
        rd_busy <= 1'b0;
      end
    end else if (rd_start_o) begin
      rd_busy <= 1'b1;
      rd_rows = cmd_o[111:96];
      rd_cnt = k_rd_lat;
      rd_beats_left = (rd_rows > 16'd6) ? 6 : {16'h0, rd_rows};
      rd_err_pend = (cmd_o[63:56] == 8'he0);
      rd_err_addr_pend = cmd_o[63:32] + 32'h40;
    end
  end

  integer mm_feed, mm_drain;
  always @(posedge clk) begin
    if (!rst_n) begin
      mm_ready <= 1'b1;
      mm_idle <= 1'b1;
      mm_feed = 0;
      mm_drain = 0;
    end else if (mm_start_o && mm_ready) begin
      mm_ready <= 1'b0;
      mm_idle <= 1'b0;
      mm_feed = 1 + ({16'h0, cmd_o[143:128]} % 5) + (cmd_o[17] ? 0 : 3);
      mm_drain = k_mm_drain;
    end else if (unit_clr_o && !mm_idle) begin
      mm_ready <= 1'b1;                 // cleared: no more rows; the array still drains
      mm_feed = 0;
      if (mm_drain > k_mm_clr) begin
        mm_drain = k_mm_clr;
      end
      if (mm_drain <= 1) begin
        mm_idle <= 1'b1;
      end
      mm_drain = mm_drain - 1;
    end else if (!mm_ready) begin
      if (mm_feed <= 1) begin
        mm_ready <= 1'b1;
      end
      mm_feed = mm_feed - 1;
    end else if (!mm_idle) begin
      if (mm_drain <= 1) begin
        mm_idle <= 1'b1;
      end
      mm_drain = mm_drain - 1;
    end
  end

  // Store unit and write engine: phase 0 idle, 1 parameters, 2 streaming, 3 B wait, 4 abort.
  integer    ws_phase = 0, ws_cnt, ws_left;
  reg        ws_pe, ws_err;
  reg [31:0] ws_addr;
  reg [15:0] ws_rows, ws_cols;
  always @(posedge clk) begin
    st_param_err <= 1'b0;
    wr_done <= 1'b0;
    wr_err <= 1'b0;
    wr_bytes <= {WrBw{1'b0}};
    if (!rst_n) begin
      st_busy <= 1'b0;
      wr_busy <= 1'b0;
      ws_phase = 0;
    end else begin
      if (unit_clr_o) begin
        st_busy <= 1'b0;                 // the store part stops at once
      end
      if (wr_abort_o && (ws_phase == 2 || ws_phase == 3)) begin
        ws_phase = 4;
        ws_cnt = k_wr_drain;
      end
      case (ws_phase)
        0: begin
          if (st_start_o) begin
            st_busy <= 1'b1;
            ws_phase = 1;
            ws_cnt = k_st_param;
            ws_rows = cmd_o[111:96];
            ws_cols = cmd_o[127:112];
            ws_left = {16'h0, ws_rows} * (cmd_o[17] ? {16'h0, ws_cols} : 4 * {16'h0, ws_cols});
            ws_pe = cmd_o[17] && cmd_o[18] && cmd_o[223:192] == 32'hbad00001;
            ws_addr = cmd_o[63:32];
            ws_err = (ws_addr[31:24] == 8'he1);
          end
        end
        1: begin
          if (unit_clr_o) begin
            ws_phase = 0;
          end else if (ws_cnt > 0) begin
            ws_cnt = ws_cnt - 1;
          end else if (ws_pe) begin
            st_param_err <= 1'b1;
            st_busy <= 1'b0;
            ws_phase = 0;
          end else begin
            wr_busy <= 1'b1;
            ws_phase = 2;
          end
        end
        2: begin
          if (ws_left > AxiBytes) begin
            wr_bytes <= AxiBytesW;
            ws_left = ws_left - AxiBytes;
          end else begin
            wr_bytes <= ws_left[WrBw-1:0];
            ws_left = 0;
            st_busy <= 1'b0;
            ws_phase = 3;
            ws_cnt = k_wr_tail;
          end
        end
        3: begin
          if (ws_cnt > 0) begin
            ws_cnt = ws_cnt - 1;
          end else begin
            wr_done <= 1'b1;
            wr_err <= ws_err;
            wr_err_addr <= ws_err ? ws_addr + 32'h80 : 32'hdeadbeef;
            wr_busy <= 1'b0;
            ws_phase = 0;
          end
        end
        4: begin
          if (ws_cnt > 0) begin
            ws_cnt = ws_cnt - 1;
            wr_bytes <= 1;               // bursts in flight complete
          end else begin
            wr_busy <= 1'b0;
            ws_phase = 0;
          end
        end
        default: ws_phase = 0;
      endcase
    end
  end

  // -------------------------------------------------------------------------------------
  // Monitor: every per-cycle check and the counter mirror (pre-edge values at each edge)
  // -------------------------------------------------------------------------------------
  reg [63:0] m_cycles = 64'h0, m_busy = 64'h0, m_macs = 64'h0, m_rd = 64'h0, m_wr = 64'h0;
  reg [15:0] m_k = 16'h0, m_n = 16'h0;       // K and N of the weights in the array
  reg        abort_win = 1'b0;               // soft reset seen, irq_clear_o not yet
  integer    abort_start;
  reg        p_irq_done = 1'b0, p_irq_err = 1'b0, p_irq_fence = 1'b0, p_irq_clear = 1'b0;
  reg        p_error = 1'b0, p_mm_ready = 1'b1;
  reg        p_last_word = 1'b0;
  reg [7:0]  p_opcode = 8'h0;
  reg        p_rd_done = 1'b0, p_rd_err = 1'b0, p_wr_done = 1'b0, p_wr_err = 1'b0, p_mm_idle = 1'b1;
  reg [31:0] p_cmd_idx = 32'h0;
  integer    ready_rise = 0;
  integer    u, nstart, li;
  reg [255:0] want;
  reg        any_busy;

  always @(posedge clk) begin
    if (rst_n) begin
      cyc = cyc + 1;
      any_busy = rd_busy || wr_busy || st_busy || !mm_idle || !mm_ready;
      if (mm_ready && !p_mm_ready) begin
        ready_rise = cyc;
      end
      // ---- unit starts ----
      nstart = (rd_start_o ? 1 : 0) + (mm_start_o ? 1 : 0) + (st_start_o ? 1 : 0) +
               (sfu_start_o ? 1 : 0);
      `CHECK(nstart <= 1, ("%0d units started in one cycle", nstart))
      if (nstart != 0) begin
        u = rd_start_o ? 1 : mm_start_o ? 2 : 3;
        li = nlog;
        `CHECK(unit_of(cmd_o) == u, ("unit %0d started for opcode %0d", u, cmd_o[7:0]))
        `CHECK(opcode_o == cmd_o[7:0], ("opcode_o=%0d at a start of opcode %0d", opcode_o, cmd_o[7:0]))
        `CHECK(!error_o && !p_error, ("unit %0d started while STATUS.ERROR", u))
        `CHECK(!abort_win, ("unit %0d started during a soft reset", u))
        `CHECK(!rd_busy && !wr_busy && !st_busy,
               ("unit %0d started while another is busy (rd %b wr %b st %b)", u, rd_busy, wr_busy, st_busy))
        `CHECK(mm_ready, ("unit %0d started while the matmul unit is not ready", u))
        if (u == 3) begin
          `CHECK(mm_idle, ("STORE started before mm_idle_i (the array was still draining)"))
        end
        if (u == 1 && cmd_o[16]) begin
          `CHECK(mm_idle, ("LOAD to the accumulator started before mm_idle_i (the array was still draining)"))
        end
        `CHECK(base + cmd_idx_o < nprog && cmd_o == prog[base + cmd_idx_o],
               ("cmd_o of command %0d differs from the pushed command", cmd_idx_o))
        if (nlog < MaxLog) begin
          log_unit[nlog] = u;
          log_idx[nlog] = base + cmd_idx_o;
          log_idle[nlog] = mm_idle ? 1 : 0;
          log_age[nlog] = cyc - ready_rise;
          nlog = nlog + 1;
        end
      end
      // ---- error state, retire, pulses ----
      if (p_error && !abort_win) begin
        `CHECK(error_o, ("STATUS.ERROR fell without a soft reset"))
        `CHECK(cmd_idx_o == p_cmd_idx, ("CMD_IDX moved from %0d to %0d in the error state", p_cmd_idx, cmd_idx_o))
      end
      if (p_irq_err && !abort_win) begin
        `CHECK(error_o, ("irq_error_o pulsed but STATUS.ERROR did not follow"))
      end
      if (cmd_idx_o == p_cmd_idx + 32'd1) begin
        // Retired at the last edge: the p_* values are those of the retiring cycle.
        n_retired = n_retired + 1;
        `CHECK(!abort_win, ("a command retired during a soft reset"))
        case (p_opcode)
          OpLoad:   `CHECK(p_rd_done && !p_rd_err, ("a LOAD retired without rd_done_i"))
          OpMatmul: `CHECK(p_mm_ready, ("a MATMUL retired before mm_ready_i (rows still being fed)"))
          OpStore:  `CHECK(p_wr_done && !p_wr_err, ("a STORE retired without wr_done_i"))
          OpFence:  `CHECK(p_mm_idle, ("a FENCE retired before mm_idle_i"))
          OpNop:    ;
          default:  `CHECK(0, ("command with opcode %0d retired", p_opcode))
        endcase
      end
      `CHECK(!(irq_done_o && p_irq_done), ("irq_done_o high two cycles in a row"))
      `CHECK(!(irq_error_o && p_irq_err), ("irq_error_o high two cycles in a row"))
      `CHECK(!(irq_fence_o && p_irq_fence), ("irq_fence_o high two cycles in a row"))
      `CHECK(!(irq_clear_o && p_irq_clear), ("irq_clear_o high two cycles in a row"))
      if (irq_done_o) begin
        n_irq_done = n_irq_done + 1;
        `CHECK(!any_busy && cmdq_free_o == Q16 && !error_o,
               ("IRQ done with work left (units busy %b, free %0d, error %b)", any_busy, cmdq_free_o, error_o))
      end
      if (irq_error_o) begin
        n_irq_err = n_irq_err + 1;
      end
      if (irq_fence_o) begin
        n_irq_fence = n_irq_fence + 1;
        fence_age = cyc - ready_rise;
        `CHECK(!any_busy, ("FENCE retired while a unit is busy (rd %b wr %b st %b mm idle %b)",
                           rd_busy, wr_busy, st_busy, mm_idle))
      end
      if (p_last_word) begin
        `CHECK(!done_o, ("done_o still high after a new command was written"))
      end
      // ---- soft reset ----
      if (abort_win) begin
        `CHECK(rd_abort_o && wr_abort_o && unit_clr_o && busy_o,
               ("during soft reset: rd_abort_o %b wr_abort_o %b unit_clr_o %b busy_o %b, expected all high",
                rd_abort_o, wr_abort_o, unit_clr_o, busy_o))
      end else begin
        `CHECK(!rd_abort_o && !wr_abort_o && !unit_clr_o,
               ("rd_abort_o %b wr_abort_o %b unit_clr_o %b outside a soft reset", rd_abort_o, wr_abort_o, unit_clr_o))
      end
      if (irq_clear_o) begin
        n_irq_clear = n_irq_clear + 1;
        `CHECK(abort_win, ("irq_clear_o without a soft reset"))
        `CHECK(!rd_busy && !wr_busy && mm_idle,
               ("soft reset ended with engines busy (rd %b wr %b mm idle %b)", rd_busy, wr_busy, mm_idle))
        `CHECK(!st_busy, ("soft reset ended while st_busy_i was still high (RTL bug B4)"))
        abort_len = cyc - abort_start;
        abort_win = 1'b0;
      end
      if (soft_reset) begin
        abort_win = 1'b1;
        abort_start = cyc;
      end
      // ---- busy_o ----
      if (any_busy) begin
        `CHECK(busy_o, ("busy_o low while a unit is busy"))
      end
      if (!error_o && !abort_win && cmdq_free_o != Q16) begin
        `CHECK(busy_o, ("busy_o low with commands queued"))
      end
      if (error_o && !any_busy) begin
        `CHECK(!busy_o, ("busy_o high in the error state with every unit idle"))
      end
      // ---- counters: compare (values up to the last edge), then account this cycle ----
      `CHECK(cnt_cycles_o == m_cycles, ("CNT_CYCLES=%0d, expected %0d", cnt_cycles_o, m_cycles))
      `CHECK(cnt_busy_o == m_busy, ("CNT_BUSY=%0d, expected %0d (cycles with busy_o)", cnt_busy_o, m_busy))
      `CHECK(cnt_macs_o == m_macs,
             ("CNT_MACS=%0d, expected %0d: m*k*n of every MATMUL; with KEEP_WEIGHTS k and n of the weights in use (RTL bug B1)",
              cnt_macs_o, m_macs))
      `CHECK(cnt_dma_rd_o == m_rd, ("CNT_DMA_RD=%0d, expected %0d", cnt_dma_rd_o, m_rd))
      `CHECK(cnt_dma_wr_o == m_wr, ("CNT_DMA_WR=%0d, expected %0d", cnt_dma_wr_o, m_wr))
      m_macs = cnt_macs_o;          // resynchronise after a reported mismatch
      if (mm_start_o && !cmd_o[17]) begin
        m_k = cmd_o[159:144];
        m_n = cmd_o[175:160];
      end
      if (cnt_clear) begin
        m_cycles = 64'h0; m_busy = 64'h0; m_macs = 64'h0; m_rd = 64'h0; m_wr = 64'h0;
      end else begin
        m_cycles = m_cycles + 64'h1;
        m_busy = m_busy + (busy_o ? 64'h1 : 64'h0);
        if (mm_start_o) begin
          m_macs = m_macs + {48'h0, cmd_o[143:128]} * {48'h0, m_k} * {48'h0, m_n};
        end
        m_rd = m_rd + (rd_beat ? AxiBytes64 : 64'h0);
        m_wr = m_wr + {{(64-WrBw){1'b0}}, wr_bytes};
      end
      p_irq_done = irq_done_o; p_irq_err = irq_error_o; p_irq_fence = irq_fence_o;
      p_irq_clear = irq_clear_o; p_error = error_o; p_cmd_idx = cmd_idx_o; p_mm_ready = mm_ready;
      p_last_word = cmd_we && cmdq_words_o == 3'd7;
      p_opcode = opcode_o; p_rd_done = rd_done; p_rd_err = rd_err; p_wr_done = wr_done;
      p_wr_err = wr_err; p_mm_idle = mm_idle;
    end
  end

  // -------------------------------------------------------------------------------------
  // Scenarios
  // -------------------------------------------------------------------------------------
  localparam integer NumScen = 69;

  task setup(input integer s);
    integer i;
    begin
      nprog = 0; nsteps = 0; pushed = 0; wi = 0; base = 0;
      exp_err = 0; exp_err_idx = 0; exp_err_addr = 32'h0; exp_unit_err = 0;
      win_base = 32'h0; win_limit = 32'hffff_ffff;
      k_rd_lat = 2; k_rd_drain = 5; k_mm_drain = 12; k_mm_clr = 4; k_wr_tail = 3;
      k_wr_drain = 5; k_st_param = 2;
      nlog = 0; n_irq_done = 0; n_irq_err = 0; n_irq_fence = 0; n_irq_clear = 0;
      n_retired = 0; fence_age = -1; abort_len = -1;
      sc_cleared = 0;
      cmds_at_start = cnt_cmds_o;
      sc_name = "?";
      case (s)
        // ---------------- dispatch ----------------
        0: begin
          sc_name = "dispatch order, overlap with the matmul drain, waits for mm_idle";
          add(c_load(4'h0, 1'b0, 32'h1000, 32'd16, 16'd5, 16'd8, 24'd0));
          add(mm(4'h0, 16'd6, 16'd8, 16'd8));
          add(ld(4'h0));                       // may overlap the drain
          add(mm(4'h0, 16'd3, 16'd2, 16'd5));
          add(lda(4'h0));                      // waits for mm_idle
          add(mm(4'h0, 16'd2, 16'd8, 16'd8));
          add(c_op(OpFence, 4'h0, 16'h1));     // waits for mm_idle, IRQ
          add(mm(4'h0, 16'd4, 16'd4, 16'd4));
          add(st(4'h0));                       // waits for mm_idle
          add(c_op(OpNop, 4'h0, 16'h0));
          add(st(4'h0));
          add(c_op(OpFence, 4'h0, 16'h0));     // no IRQ
          add(c_op(OpNop, 4'h0, 16'h0));
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 0);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        1: begin
          sc_name = "counters: clear, clear while running, CNT_CMDS, CNT_MACS";
          k_rd_lat = 40;
          step(SCclear, 0); step(SWaitCyc, 3); step(SCheck, 10);
          add(ld(4'h0));
          add(c_mm(4'h0, 1'b1, 1'b0, 24'd0, 24'd0, 24'd0, Acc32[15:0], 16'd8, 16'd8));
          add(st(4'h0));
          add(ld(4'h0));
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 11);
          add(c_load(4'h0, 1'b0, 32'h1000, 32'd16, 16'd60, 16'd8, 24'd0));
          add(st(4'h0));
          step(SPush, nprog); step(SWaitStarts, 5); step(SCclear, 0); step(SWaitEnd, 0);
          step(SCheck, 12);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        2: begin
          sc_name = "CNT_MACS of a KEEP_WEIGHTS matmul (RTL bug B1)";
          add(mm(4'h0, 16'd3, 16'd5, 16'd7));
          add(c_mm(4'h0, 1'b0, 1'b1, 24'd0, 24'd0, 24'd0, 16'd4, 16'd0, 16'd0)); // as the driver encodes it
          add(c_mm(4'h0, 1'b1, 1'b1, 24'd0, 24'hffffff, 24'd0, 16'd2, 16'hffff, 16'hffff)); // K, N, W_ADDR ignored
        end
        3: begin
          sc_name = "partial command: CMDQ_STATUS.WORDS, nothing runs until the 8th word";
          add(ld(4'h0));
          step(SWords, 3); step(SWaitCyc, 6); step(SCheck, 20);
          step(SWords, 5); step(SWaitEnd, 0); step(SGeneric, 0);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        4: begin
          sc_name = "CMDQ_OVERFLOW: a command written while the queue is full";
          k_rd_lat = 150;
          add(ld(4'h0));
          for (i = 0; i < QDepth; i = i + 1) begin
            add(c_op(OpNop, 4'h0, 16'h0));
          end
          add(c_op(OpFence, 4'h0, 16'h1));     // dropped: the queue is full
          add(c_op(OpNop, 4'h0, 16'h0));       // also dropped, must not move ERR_CMD_IDX
          exp_err = EOvf; exp_err_idx = 1 + QDepth;
          step(SPush, 1); step(SWaitStarts, 1); step(SPush, 2); step(SWaitCyc, 3); step(SCheck, 33);
          step(SPush, 1 + QDepth); step(SCheck, 30);
          step(SPush, 2 + QDepth); step(SWaitCyc, 4); step(SCheck, 31);
          step(SPush, 3 + QDepth); step(SWaitCyc, 4); step(SCheck, 31);
          step(SWaitEnd, 0); step(SCheck, 32);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        // ---------------- opcode, DIM ----------------
        5: begin
          sc_name = "ERR_OPCODE";
          add(c_op(OpNop, 4'h0, 16'h0));
          bad(c_op(8'd6, 4'h0, 16'h0), EOpcode);
          add(ld(4'h0));
        end
        6: begin
          sc_name = "ERR_OPCODE wins over token bits";
          add(ld(4'h0));
          bad(c_op(8'hff, 4'hf, 16'hffff), EOpcode);
          add(ld(4'h0));
        end
        7: begin
          sc_name = "LOAD ROWS = 0: ERR_DIM";
          add(c_op(OpNop, 4'h0, 16'h0));
          bad(c_load(4'h0, 1'b0, 32'h0, 32'd8, 16'd0, 16'd8, 24'd0), EDim);
          add(ld(4'h0));
        end
        8: begin
          sc_name = "LOAD COLS = 0: ERR_DIM";
          bad(c_load(4'h0, 1'b1, 32'h0, 32'd8, 16'd1, 16'd0, 24'd0), EDim);
          add(ld(4'h0));
        end
        9: begin
          sc_name = "MATMUL M = 0: ERR_DIM";
          add(ld(4'h0));
          bad(mm(4'h0, 16'd0, 16'd8, 16'd8), EDim);
          add(ld(4'h0));
        end
        10: begin
          sc_name = "MATMUL K = 0: ERR_DIM";
          bad(mm(4'h0, 16'd1, 16'd0, 16'd8), EDim);
          add(ld(4'h0));
        end
        11: begin
          sc_name = "MATMUL K = N ok, K = N+1: ERR_DIM";
          add(mm(4'h0, 16'd1, N16, 16'd1));
          bad(mm(4'h0, 16'd1, N16 + 16'd1, 16'd1), EDim);
          add(ld(4'h0));
        end
        12: begin
          sc_name = "MATMUL N = 0: ERR_DIM";
          bad(mm(4'h0, 16'd1, 16'd1, 16'd0), EDim);
        end
        13: begin
          sc_name = "MATMUL N = ARRAY_DIM ok, N+1: ERR_DIM";
          add(mm(4'h0, 16'd1, 16'd1, N16));
          bad(mm(4'h0, 16'd1, 16'd1, N16 + 16'd1), EDim);
          add(ld(4'h0));
        end
        14: begin
          sc_name = "MATMUL KEEP_WEIGHTS with M = 0: ERR_DIM";
          add(mm(4'h0, 16'd1, 16'd8, 16'd8));
          bad(c_mm(4'h0, 1'b0, 1'b1, 24'd0, 24'd0, 24'd0, 16'd0, 16'd8, 16'd8), EDim);
        end
        15: begin
          sc_name = "STORE ROWS = 0: ERR_DIM";
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd0, 16'd0, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0), EDim);
        end
        16: begin
          sc_name = "STORE COLS = 0: ERR_DIM";
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd0, 16'd1, 16'd0, 24'd0, 24'd0, 32'h0, 32'h0), EDim);
        end
        17: begin
          sc_name = "STORE COLS = ARRAY_DIM ok, N+1: ERR_DIM";
          add(c_store(4'h0, 3'b000, 32'h0, 32'd0, 16'd1, N16, 24'd0, 24'd0, 32'h0, 32'h0));
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd0, 16'd1, N16 + 16'd1, 24'd0, 24'd0, 32'h0, 32'h0), EDim);
          add(st(4'h0));
        end
        // ---------------- scratchpad / accumulator ranges ----------------
        18: begin
          sc_name = "LOAD spad LOCAL + C*ROWS = SPAD_ROWS ok, one chunk more: ERR_SPAD_RANGE";
          add(c_load(4'h0, 1'b0, 32'h0, 32'd64, 16'd4, 16'd2 * N16, Spad24 - 24'd8));          // C = 2
          bad(c_load(4'h0, 1'b0, 32'h0, 32'd64, 16'd4, 16'd2 * N16 + 16'd1, Spad24 - 24'd8), ESpad); // C = 3
          add(ld(4'h0));
        end
        19: begin
          sc_name = "LOAD spad LOCAL = 0xffffff: ERR_SPAD_RANGE (no 24-bit wrap)";
          bad(c_load(4'h0, 1'b0, 32'h0, 32'd0, 16'd1, 16'd1, 24'hffffff), ESpad);
        end
        20: begin
          sc_name = "LOAD spad ROWS = 65535: ERR_SPAD_RANGE";
          bad(c_load(4'h0, 1'b0, 32'h0, 32'd1, 16'hffff, 16'd1, 24'd0), ESpad);
        end
        21: begin
          sc_name = "MATMUL A_ADDR + M = SPAD_ROWS ok, +1: ERR_SPAD_RANGE";
          add(c_mm(4'h0, 1'b0, 1'b0, Spad24 - 24'd6, 24'd0, 24'd0, 16'd6, 16'd8, 16'd8));
          bad(c_mm(4'h0, 1'b0, 1'b0, Spad24 - 24'd6, 24'd0, 24'd0, 16'd7, 16'd8, 16'd8), ESpad);
        end
        22: begin
          sc_name = "MATMUL W_ADDR + K = SPAD_ROWS ok, +1: ERR_SPAD_RANGE";
          add(c_mm(4'h0, 1'b0, 1'b0, 24'd0, Spad24 - 24'd8, 24'd0, 16'd1, 16'd8, 16'd8));
          bad(c_mm(4'h0, 1'b0, 1'b0, 24'd0, Spad24 - 24'd7, 24'd0, 16'd1, 16'd8, 16'd8), ESpad);
        end
        23: begin
          sc_name = "MATMUL KEEP_WEIGHTS ignores W_ADDR, K and N; A_ADDR still checked";
          add(mm(4'h0, 16'd1, 16'd4, 16'd4));
          add(c_mm(4'h0, 1'b0, 1'b1, 24'd0, 24'hffffff, 24'd0, 16'd1, 16'hffff, 16'hffff));
          bad(c_mm(4'h0, 1'b0, 1'b1, 24'hffffff, 24'd0, 24'd0, 16'd1, 16'd0, 16'd0), ESpad);
        end
        24: begin
          sc_name = "LOAD acc LOCAL + C*ROWS = ACC_ROWS ok, one chunk more: ERR_ACC_RANGE";
          add(c_load(4'h0, 1'b1, 32'h0, 32'd64, 16'd2, 16'd4 * N16, Acc24 - 24'd2));           // C = 1
          bad(c_load(4'h0, 1'b1, 32'h0, 32'd64, 16'd2, 16'd4 * N16 + 16'd1, Acc24 - 24'd2), EAcc);  // C = 2
        end
        25: begin
          sc_name = "MATMUL C_ADDR + M = ACC_ROWS ok, +1: ERR_ACC_RANGE";
          add(c_mm(4'h0, 1'b0, 1'b0, 24'd0, 24'd0, Acc24 - 24'd4, 16'd4, 16'd8, 16'd8));
          bad(c_mm(4'h0, 1'b0, 1'b0, 24'd0, 24'd0, Acc24 - 24'd4, 16'd5, 16'd8, 16'd8), EAcc);
        end
        26: begin
          sc_name = "STORE SRC + ROWS = ACC_ROWS ok, +1: ERR_ACC_RANGE";
          add(c_store(4'h0, 3'b000, 32'h0, 32'd32, 16'd3, 16'd8, Acc24 - 24'd3, 24'd0, 32'h0, 32'h0));
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd32, 16'd4, 16'd8, Acc24 - 24'd3, 24'd0, 32'h0, 32'h0), EAcc);
        end
        27: begin
          sc_name = "STORE PARAM + 3 > ACC_ROWS without BIAS/REQUANT: ERR_ACC_RANGE (docs; RTL bug B2)";
          add(c_store(4'h0, 3'b000, 32'h0, 32'd32, 16'd1, 16'd8, 24'd0, Acc24 - 24'd3, 32'h0, 32'h0));
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd32, 16'd1, 16'd8, 24'd0, Acc24 - 24'd2, 32'h0, 32'h0), EAcc);
        end
        28: begin
          sc_name = "STORE BIAS with PARAM + 3 > ACC_ROWS: ERR_ACC_RANGE (docs; RTL bug B2)";
          add(c_store(4'h0, FBias, 32'h0, 32'd32, 16'd1, 16'd8, 24'd0, Acc24 - 24'd3, 32'h0, 32'h0));
          bad(c_store(4'h0, FBias, 32'h0, 32'd32, 16'd1, 16'd8, 24'd0, Acc24 - 24'd2, 32'h0, 32'h0), EAcc);
        end
        29: begin
          sc_name = "STORE REQUANT+PER_CHANNEL PARAM + 3 = ACC_ROWS ok, +1: ERR_ACC_RANGE";
          add(stq(FRq | FPc, Acc24 - 24'd3, 8'd0, 8'h80, 8'h7f));
          bad(stq(FRq | FPc, Acc24 - 24'd2, 8'd0, 8'h80, 8'h7f), EAcc);
        end
        // ---------------- external ranges ----------------
        30: begin
          sc_name = "LOAD region ending at 2^32 ok, one byte past: ERR_DRAM_RANGE";
          add(c_load(4'h0, 1'b0, 32'hfffffff0, 32'd0, 16'd1, 16'd16, 24'd0));
          bad(c_load(4'h0, 1'b0, 32'hfffffff0, 32'd0, 16'd1, 16'd17, 24'd0), EDram);
          add(ld(4'h0));
        end
        31: begin
          sc_name = "LOAD (ROWS-1)*STRIDE: end exactly 2^32 ok, one byte past: ERR_DRAM_RANGE";
          add(c_load(4'h0, 1'b0, 32'h0, 32'h80000000, 16'd2, 16'd8, 24'd0));
          add(c_load(4'h0, 1'b0, 32'h7ffffff8, 32'h80000000, 16'd2, 16'd8, 24'd0));
          bad(c_load(4'h0, 1'b0, 32'h7ffffff9, 32'h80000000, 16'd2, 16'd8, 24'd0), EDram);
        end
        32: begin
          sc_name = "LOAD STRIDE 0xffffffff, 2 rows ending at 2^32 ok; (ROWS-1)*STRIDE = 2^32: ERR_DRAM_RANGE";
          add(c_load(4'h0, 1'b0, 32'h0, 32'hffffffff, 16'd2, 16'd1, 24'd0));
          add(c_load(4'h0, 1'b0, 32'h0, 32'h00ffffff, 16'd257, 16'd1, 24'd0));
          bad(c_load(4'h0, 1'b0, 32'h0, 32'h01000000, 16'd257, 16'd1, 24'd0), EDram);
        end
        33: begin
          sc_name = "STORE raw int32 rows (4*COLS bytes) ending at 2^32 ok, one byte past: ERR_DRAM_RANGE";
          add(c_store(4'h0, 3'b000, 32'hffffffe0, 32'd0, 16'd1, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0));
          bad(c_store(4'h0, 3'b000, 32'hffffffe1, 32'd0, 16'd1, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0), EDram);
        end
        34: begin
          sc_name = "STORE int8 rows (COLS bytes) ending at 2^32 ok, one byte past: ERR_DRAM_RANGE";
          add(c_store(4'h0, FRq, 32'hfffffff0, 32'd8, 16'd2, 16'd8, 24'd0, 24'd0, 32'h1, 32'h7f800000));
          bad(c_store(4'h0, FRq, 32'hfffffff1, 32'd8, 16'd2, 16'd8, 24'd0, 24'd0, 32'h1, 32'h7f800000), EDram);
        end
        // ---------------- output-stage parameters ----------------
        35: begin
          sc_name = "STORE SHIFT 30 and -31 ok, 31: ERR_PARAM";
          add(stq(FRq, 24'd0, 8'd30, 8'h80, 8'h7f));
          add(stq(FRq, 24'd0, 8'hE1, 8'h80, 8'h7f));
          bad(stq(FRq, 24'd0, 8'd31, 8'h80, 8'h7f), EParam);
        end
        36: begin
          sc_name = "STORE SHIFT -32: ERR_PARAM";
          bad(stq(FRq, 24'd0, 8'hE0, 8'h80, 8'h7f), EParam);
        end
        37: begin
          sc_name = "STORE ACT_MIN -1 <= ACT_MAX 1 and MIN = MAX ok (signed), 1 > -1: ERR_PARAM";
          add(stq(FRq, 24'd0, 8'd0, 8'hff, 8'h01));
          add(stq(FRq, 24'd0, 8'd0, 8'h05, 8'h05));
          bad(stq(FRq, 24'd0, 8'd0, 8'h01, 8'hff), EParam);
        end
        38: begin
          sc_name = "STORE without REQUANT ignores SHIFT and ACT_MIN/MAX; with it 5 > 4: ERR_PARAM";
          add(stq(3'b000, 24'd0, 8'd100, 8'h05, 8'h04));
          bad(stq(FRq, 24'd0, 8'd0, 8'h05, 8'h04), EParam);
        end
        39: begin
          sc_name = "store unit reports a per-channel shift out of range: ERR_PARAM";
          add(st(4'h0));
          bad(c_store(4'h0, FRq | FPc, 32'h5000, 32'd8, 16'd1, 16'd8, 24'd0, 24'd4, 32'hbad00001,
                      32'h7f800000), EParam);
          exp_unit_err = 1;
          add(st(4'h0));
        end
        // ---------------- unit errors ----------------
        40: begin
          sc_name = "DMA read error: ERR_BUS_READ with ERR_ADDR";
          add(ld(4'h0));
          bad(c_load(4'h0, 1'b0, 32'he0001230, 32'd16, 16'd3, 16'd8, 24'd0), EBusRd);
          exp_unit_err = 1; exp_err_addr = 32'he0001270;
          add(ld(4'h0));
          add(mm(4'h0, 16'd1, 16'd1, 16'd1));
        end
        41: begin
          sc_name = "DMA write error: ERR_BUS_WRITE with ERR_ADDR";
          add(st(4'h0));
          add(ld(4'h0));
          bad(c_store(4'h0, 3'b000, 32'he1000100, 32'd32, 16'd2, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0), EBusWr);
          exp_unit_err = 1; exp_err_addr = 32'he1000180;
          add(st(4'h0));
        end
        // ---------------- dependency tokens ----------------
        42: begin
          sc_name = "LOAD to the scratchpad with POP_PREV: ERR_DEP_TOKEN";
          bad(ld(PopPrev), EDep);
        end
        43: begin
          sc_name = "LOAD to the scratchpad with PUSH_PREV: ERR_DEP_TOKEN";
          add(ld(4'h0));
          bad(ld(PushPrev), EDep);
        end
        44: begin
          sc_name = "STORE with POP_NEXT: ERR_DEP_TOKEN";
          bad(st(PopNext), EDep);
        end
        45: begin
          sc_name = "STORE with PUSH_NEXT: ERR_DEP_TOKEN";
          bad(st(PushNext), EDep);
        end
        46: begin
          sc_name = "FENCE with a token bit: ERR_DEP_TOKEN";
          bad(c_op(OpFence, PushPrev, 16'h1), EDep);
        end
        47: begin
          sc_name = "MATMUL POP_PREV: one LOAD token, the second pop fails";
          add(ld(PushNext));
          add(mm(PopPrev, 16'd1, 16'd1, 16'd1));
          bad(mm(PopPrev, 16'd1, 16'd1, 16'd1), EDep);
        end
        48: begin
          sc_name = "compute POP_NEXT with no STORE token: ERR_DEP_TOKEN";
          bad(c_op(OpNop, PopNext, 16'h0), EDep);
        end
        49: begin
          sc_name = "LOAD POP_NEXT with no compute token: ERR_DEP_TOKEN";
          bad(ld(PopNext), EDep);
        end
        50: begin
          sc_name = "STORE POP_PREV with no compute token: ERR_DEP_TOKEN";
          bad(st(PopPrev), EDep);
        end
        51: begin
          sc_name = "double-buffered pipeline in program order, then one pop too many";
          add(ld(PushNext));
          add(ld(PushNext));
          add(mm(PopPrev | PushNext | PushPrev, 16'd2, 16'd8, 16'd8));
          add(ld(PopNext | PushNext));
          add(mm(PopPrev | PushNext, 16'd2, 16'd8, 16'd8));
          add(st(PopPrev | PushPrev));
          add(st(PopPrev | PushPrev));
          add(lda(PopNext));                    // the accumulator LOAD is a compute command
          add(c_op(OpNop, PopNext, 16'h0));
          bad(c_op(OpNop, PopNext, 16'h0), EDep);
        end
        52: begin
          sc_name = "LOAD to the accumulator pops the load stage's token";
          add(ld(PushNext));
          add(lda(PopPrev));
          bad(lda(PopPrev), EDep);
        end
        53: begin
          sc_name = "compute->store counter: 255 tokens ok, the 256th: ERR_DEP_TOKEN";
          for (i = 0; i < 255; i = i + 1) begin
            add(c_op(OpNop, PushNext, 16'h0));
          end
          add(c_store(PopPrev, FRq, 32'h0, 32'd1, 16'd1, 16'd1, 24'd0, 24'd0, 32'h1, 32'h7f800000));
          add(c_op(OpNop, PushNext, 16'h0));
          bad(c_op(OpNop, PushNext, 16'h0), EDep);
        end
        54: begin
          sc_name = "compute->load counter: 255 tokens ok, the 256th: ERR_DEP_TOKEN";
          for (i = 0; i < 255; i = i + 1) begin
            add(c_op(OpNop, PushPrev, 16'h0));
          end
          bad(c_op(OpNop, PushPrev, 16'h0), EDep);
        end
        55: begin
          sc_name = "load->compute counter: 255 tokens ok, the 256th: ERR_DEP_TOKEN";
          for (i = 0; i < 255; i = i + 1) begin
            add(c_load(PushNext, 1'b0, 32'h0, 32'd0, 16'd1, 16'd1, 24'd0));
          end
          bad(c_load(PushNext, 1'b0, 32'h0, 32'd0, 16'd1, 16'd1, 24'd0), EDep);
        end
        56: begin
          sc_name = "store->compute counter: 255 tokens ok, the 256th: ERR_DEP_TOKEN";
          for (i = 0; i < 255; i = i + 1) begin
            add(c_store(PushPrev, FRq, 32'h0, 32'd1, 16'd1, 16'd1, 24'd0, 24'd0, 32'h1, 32'h7f800000));
          end
          bad(c_store(PushPrev, FRq, 32'h0, 32'd1, 16'd1, 16'd1, 24'd0, 24'd0, 32'h1, 32'h7f800000), EDep);
        end
        57: begin
          sc_name = "soft reset clears the tokens";
          add(ld(PushNext));
          bad(mm(PopPrev, 16'd1, 16'd1, 16'd1), EDep);
          step(SPush, 1); step(SWaitEnd, 0); step(SSreset, 0); step(SWaitAbort, 0);
          step(SPush, 2); step(SWaitEnd, 0); step(SGeneric, 0);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        // ---------------- weights ----------------
        58: begin
          sc_name = "KEEP_WEIGHTS before any weights: ERR_NO_WEIGHTS";
          add(ld(4'h0));
          bad(c_mm(4'h0, 1'b0, 1'b1, 24'd0, 24'd0, 24'd0, 16'd1, 16'd0, 16'd0), ENoW);
        end
        59: begin
          sc_name = "KEEP_WEIGHTS after a matmul ok; after soft reset: ERR_NO_WEIGHTS";
          add(mm(4'h0, 16'd1, 16'd2, 16'd3));
          add(c_mm(4'h0, 1'b0, 1'b1, 24'd0, 24'd0, 24'd0, 16'd1, 16'd2, 16'd3));
          bad(c_mm(4'h0, 1'b0, 1'b1, 24'd0, 24'd0, 24'd0, 16'd1, 16'd2, 16'd3), ENoW);
          step(SPush, 2); step(SWaitEnd, 0); step(SSreset, 0); step(SWaitAbort, 0);
          step(SPush, 3); step(SWaitEnd, 0); step(SGeneric, 0);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        // ---------------- soft reset ----------------
        60: begin
          sc_name = "soft reset during a LOAD: read engine drains, then the next command runs";
          k_rd_lat = 200; k_rd_drain = 9;
          add(ld(4'h0));
          add(mm(4'h0, 16'd1, 16'd1, 16'd1));
          add(ld(4'h0));                        // after the reset: command 0
          step(SPush, 2); step(SWaitStarts, 1); step(SWaitCyc, 10); step(SSreset, 0);
          step(SWaitAbort, 0); step(SCheck, 40); step(SClean, 0);
          step(SKnob, KRdLat * 65536 + 2);
          step(SPush, 3); step(SWaitEnd, 0); step(SCheck, 41);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        61: begin
          sc_name = "soft reset during a STORE: write engine drains, store unit cleared";
          k_wr_tail = 40; k_wr_drain = 7;
          add(c_store(4'h0, 3'b000, 32'h3000, 32'd32, 16'd20, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0));
          add(st(4'h0));                        // after the reset: command 0
          step(SPush, 1); step(SWaitStarts, 1); step(SWaitCyc, 6); step(SSreset, 0);
          step(SWaitAbort, 0); step(SCheck, 42); step(SClean, 0);
          step(SKnob, KWrTail * 65536 + 3);
          step(SPush, 2); step(SWaitEnd, 0); step(SCheck, 41);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        62: begin
          sc_name = "soft reset while the array drains: waits for mm_idle";
          k_mm_drain = 60; k_mm_clr = 8;
          add(mm(4'h0, 16'd2, 16'd8, 16'd8));
          add(c_op(OpFence, 4'h0, 16'h1));      // still waiting for the drain: never retires
          add(mm(4'h0, 16'd1, 16'd1, 16'd1));   // after the reset: command 0
          step(SPush, 2); step(SWaitStarts, 1); step(SWaitCyc, 15); step(SSreset, 0);
          step(SWaitAbort, 0); step(SCheck, 43); step(SClean, 0);
          step(SKnob, KMmDrain * 65536 + 12);
          step(SPush, 3); step(SWaitEnd, 0); step(SCheck, 41);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        63: begin
          sc_name = "soft reset with a full queue, a pending overflow and a partial command";
          k_rd_lat = 100;
          exp_err = EOvf;                       // push into the full queue
          add(ld(4'h0));
          for (i = 0; i < QDepth + 1; i = i + 1) begin
            add(c_op(OpNop, 4'h0, 16'h0));
          end
          add(ld(4'h0));                        // 3 words before the reset
          add(ld(4'h0));                        // after the reset: command 0
          step(SPush, 1); step(SWaitStarts, 1); step(SPush, QDepth + 2); step(SWords, 3);
          step(SWaitCyc, 3); step(SCheck, 44);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
          step(SKnob, KRdLat * 65536 + 2);
          step(SPush, QDepth + 4); step(SWaitEnd, 0); step(SCheck, 41);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        64: begin
          sc_name = "a command written during the soft reset is kept (RTL bug B3)";
          k_rd_lat = 100; k_rd_drain = 30;
          add(ld(4'h0));
          add(c_op(OpFence, 4'h0, 16'h1));      // written right after CTRL.SOFT_RESET
          step(SPush, 1); step(SWaitStarts, 1); step(SSreset, 0); step(SPush, 2);
          step(SWaitAbort, 0); step(SWaitCyc, 20); step(SCheck, 45);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        65: begin
          sc_name = "soft reset while idle: one cycle, IRQ clear pulse";
          add(c_op(OpFence, 4'h0, 16'h1));
          step(SPush, 1); step(SWaitEnd, 0); step(SGeneric, 0);
          step(SSreset, 0); step(SWaitAbort, 0); step(SCheck, 46); step(SClean, 0);
        end
        66: begin
          sc_name = "soft reset while the store unit reads its parameters (RTL bug B4)";
          k_st_param = 12;
          add(st(4'h0));
          add(st(4'h0));                        // after the reset: command 0
          step(SPush, 1); step(SWaitStarts, 1); step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
          step(SKnob, KStParam * 65536 + 2);
          step(SPush, 2); step(SWaitEnd, 0); step(SCheck, 41);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        // ---------------- DMA window ----------------
        67: begin
          sc_name = "LOAD inside the window ok, one byte past the limit: ERR_DMA_WINDOW, ERR_ADDR = its start";
          win_base = 32'h0000_1000; win_limit = 32'h0000_1fff;
          add(c_load(4'h0, 1'b0, 32'h1000, 32'h100, 16'd16, 16'd8, 24'd0));   // ends at 0x1f08
          add(c_load(4'h0, 1'b0, 32'h1ff8, 32'h0, 16'd3, 16'd8, 24'd0));       // last 8 bytes, 3 times
          bad(c_load(4'h0, 1'b0, 32'h1ff9, 32'h0, 16'd1, 16'd8, 24'd0), EWin);
          exp_err_addr = 32'h1ff9;
          add(ld(4'h0));
        end
        68: begin
          sc_name = "STORE ending at 2^32 inside the window ok, one byte below the base: ERR_DMA_WINDOW";
          win_base = 32'h0000_1000; win_limit = 32'hffff_ffff;
          add(c_store(4'h0, 3'b000, 32'h1000, 32'd32, 16'd2, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0));
          add(c_store(4'h0, 3'b000, 32'hffffffe0, 32'd0, 16'd1, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0));
          bad(c_store(4'h0, 3'b000, 32'h0fff, 32'd32, 16'd1, 16'd8, 24'd0, 24'd0, 32'h0, 32'h0), EWin);
          exp_err_addr = 32'h0fff;
          add(st(4'h0));
        end
        default: begin
          sc_name = "none";
        end
      endcase
      if (nsteps == 0) begin
        step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0);
        step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
      end
    end
  endtask

  // -------------------------------------------------------------------------------------
  // End-of-scenario checks (no timing)
  // -------------------------------------------------------------------------------------
  function integer find_log(input integer idx);   // log entry of program index idx, or -1
    integer i;
    begin
      find_log = -1;
      for (i = 0; i < nlog; i = i + 1) begin
        if (log_idx[i] == idx) begin
          find_log = i;
        end
      end
    end
  endfunction

  task generic_checks;
    integer e, i, n, fences;
    reg [63:0] e64;
    begin
      e = (exp_err != 0) ? exp_err_idx : pushed;
      n = 0;
      fences = 0;
      for (i = 0; i < e + exp_unit_err; i = i + 1) begin
        if (unit_of(prog[i]) != 0) begin
          `CHECK(n < nlog && log_unit[n] == unit_of(prog[i]) && log_idx[n] == i,
                 ("start %0d: expected unit %0d for command %0d, saw unit %0d for command %0d (-1: none)",
                  n, unit_of(prog[i]), i, n < nlog ? log_unit[n] : -1, n < nlog ? log_idx[n] : -1))
          n = n + 1;
        end
        if (i < e && prog[i][7:0] == OpFence && prog[i][16]) begin
          fences = fences + 1;
        end
      end
      `CHECK(nlog == n, ("%0d unit starts, expected %0d", nlog, n))
      `CHECK(n_retired == e, ("%0d commands retired, expected %0d", n_retired, e))
      e64 = {32'h0, e[31:0]};
      if (sc_cleared == 0) begin
        `CHECK(cnt_cmds_o - cmds_at_start == e64, ("CNT_CMDS grew by %0d, expected %0d",
                                                   cnt_cmds_o - cmds_at_start, e))
      end
      `CHECK(n_irq_fence == fences, ("%0d FENCE interrupts, expected %0d", n_irq_fence, fences))
      if (exp_err != 0) begin
        `CHECK(error_o && err_code_o == exp_err,
               ("ERR_CODE %0d (error_o %b), expected %0d", err_code_o, error_o, exp_err))
        `CHECK(err_cmd_idx_o == exp_err_idx - base, ("ERR_CMD_IDX %0d, expected %0d", err_cmd_idx_o,
                                                      exp_err_idx - base))
        `CHECK(err_addr_o == exp_err_addr, ("ERR_ADDR %h, expected %h", err_addr_o, exp_err_addr))
        `CHECK(n_irq_err == 1, ("%0d error interrupts, expected 1", n_irq_err))
        `CHECK(!done_o, ("done_o high in the error state"))
        `CHECK(opcode_o == 8'h0, ("opcode_o %0d in the error state", opcode_o))
      end else begin
        `CHECK(!error_o && err_code_o == 8'd0, ("unexpected error %0d at command %0d", err_code_o,
                                                err_cmd_idx_o))
        `CHECK(done_o && !busy_o, ("done_o %b busy_o %b after the last command", done_o, busy_o))
        `CHECK(n_irq_done >= 1 && n_irq_err == 0, ("%0d done and %0d error interrupts", n_irq_done,
                                                    n_irq_err))
        `CHECK(cmdq_free_o == Q16, ("CMDQ_STATUS.FREE %0d with the queue drained", cmdq_free_o))
        `CHECK(opcode_o == 8'h0, ("opcode_o %0d while idle", opcode_o))
      end
      `CHECK(cmd_idx_o == e - base, ("CMD_IDX %0d, expected %0d", cmd_idx_o, e - base))
      `CHECK(cmdq_words_o == 3'd0, ("CMDQ_STATUS.WORDS %0d between commands", cmdq_words_o))
    end
  endtask

  task clean_checks;   // right after a soft reset completed
    begin
      `CHECK(n_irq_clear >= 1, ("no IRQ clear pulse"))
      `CHECK(!error_o && err_code_o == 8'd0 && err_cmd_idx_o == 32'd0 && err_addr_o == 32'd0,
             ("error state not cleared (error %b code %0d idx %0d addr %h)", error_o, err_code_o,
              err_cmd_idx_o, err_addr_o))
      `CHECK(cmd_idx_o == 32'd0, ("CMD_IDX %0d after soft reset", cmd_idx_o))
      `CHECK(cmdq_free_o == Q16 && cmdq_words_o == 3'd0,
             ("queue not flushed (free %0d words %0d)", cmdq_free_o, cmdq_words_o))
      `CHECK(!done_o && !busy_o, ("done_o %b busy_o %b after soft reset", done_o, busy_o))
      `CHECK(cnt_cycles_o > 64'd20, ("counters cleared by soft reset (CNT_CYCLES %0d)", cnt_cycles_o))
    end
  endtask

  task custom_check(input integer id);
    integer a;
    begin
      case (id)
        0: begin
          a = find_log(2);
          `CHECK(a >= 0 && log_idle[a] == 0 && log_age[a] < k_mm_drain,
                 ("LOAD to the scratchpad after a MATMUL should start while the array drains (idle %0d, %0d cycles after ready)",
                  a >= 0 ? log_idle[a] : -1, a >= 0 ? log_age[a] : -1))
          a = find_log(4);
          `CHECK(a >= 0 && log_idle[a] == 1 && log_age[a] >= k_mm_drain,
                 ("LOAD to the accumulator after a MATMUL must wait for the drain (%0d cycles after ready)",
                  a >= 0 ? log_age[a] : -1))
          a = find_log(8);
          `CHECK(a >= 0 && log_idle[a] == 1 && log_age[a] >= k_mm_drain,
                 ("STORE after a MATMUL must wait for the drain (%0d cycles after ready)",
                  a >= 0 ? log_age[a] : -1))
          `CHECK(fence_age >= k_mm_drain, ("FENCE after a MATMUL retired %0d cycles after ready, before the drain",
                                          fence_age))
        end
        10: begin
          `CHECK(cnt_cycles_o >= 64'd2 && cnt_cycles_o <= 64'd6 && cnt_macs_o == 64'd0 &&
                 cnt_dma_rd_o == 64'd0 && cnt_dma_wr_o == 64'd0 && cnt_cmds_o == 64'd0 &&
                 cnt_busy_o <= cnt_cycles_o,
                 ("counters after COUNTERS_CLEAR: cycles %0d busy %0d macs %0d rd %0d wr %0d cmds %0d",
                  cnt_cycles_o, cnt_busy_o, cnt_macs_o, cnt_dma_rd_o, cnt_dma_wr_o, cnt_cmds_o))
          sc_cleared = 1;
        end
        11: begin
          `CHECK(cnt_cmds_o == 64'd4 && cnt_macs_o == {32'h0, Acc32} * 64'd64 && cnt_dma_rd_o == 64'd8 * AxiBytes64 &&
                 cnt_dma_wr_o == 64'd64,
                 ("after LOAD, MATMUL ACC_ROWSx8x8, STORE, LOAD: cmds %0d macs %0d rd %0d wr %0d",
                  cnt_cmds_o, cnt_macs_o, cnt_dma_rd_o, cnt_dma_wr_o))
        end
        12: begin
          `CHECK(cnt_cmds_o == 64'd2 && cnt_cycles_o < 64'd200 && cnt_dma_rd_o == 64'd6 * AxiBytes64,
                 ("COUNTERS_CLEAR while running: cmds %0d cycles %0d rd %0d",
                  cnt_cmds_o, cnt_cycles_o, cnt_dma_rd_o))
        end
        20: begin
          `CHECK(cmdq_words_o == 3'd3 && cmdq_free_o == Q16 && nlog == 0 && !busy_o,
                 ("3 words written: WORDS %0d FREE %0d, %0d starts, busy %b", cmdq_words_o, cmdq_free_o,
                  nlog, busy_o))
        end
        33: begin
          `CHECK(cmdq_free_o == Q16 - 16'd1 && cmdq_words_o == 3'd0,
                 ("one command queued behind a LOAD: FREE %0d WORDS %0d, expected %0d 0", cmdq_free_o,
                  cmdq_words_o, QDepth - 1))
        end
        30: begin
          `CHECK(cmdq_free_o == 16'd0 && !error_o && nlog == 1,
                 ("queue full behind a LOAD: FREE %0d, error %b, %0d starts", cmdq_free_o, error_o, nlog))
        end
        31: begin
          `CHECK(cmdq_free_o == 16'd0 && cmdq_words_o == 3'd0 && nlog == 1,
                 ("after a write to the full queue: FREE %0d WORDS %0d, %0d starts", cmdq_free_o,
                  cmdq_words_o, nlog))
          `CHECK(!error_o || err_cmd_idx_o == exp_err_idx,
                 ("ERR_CMD_IDX %0d, expected %0d", err_cmd_idx_o, exp_err_idx))
        end
        32: begin
          `CHECK(error_o && err_code_o == EOvf && err_cmd_idx_o == exp_err_idx,
                 ("ERR_CODE %0d ERR_CMD_IDX %0d, expected %0d at %0d", err_code_o, err_cmd_idx_o, EOvf,
                  exp_err_idx))
          `CHECK(nlog == 1 && n_retired == 1 && n_irq_err == 1,
                 ("overflow: %0d starts, %0d retired, %0d error IRQs; expected 1, 1 (the LOAD), 1",
                  nlog, n_retired, n_irq_err))
        end
        40: begin
          `CHECK(abort_len >= k_rd_drain && nlog == 1 && n_retired == 0,
                 ("soft reset during a LOAD: %0d cycles (read engine drains %0d), %0d starts, %0d retired",
                  abort_len, k_rd_drain, nlog, n_retired))
        end
        41: begin
          a = nlog - 1;
          `CHECK(a >= 0 && log_idx[a] == base && !error_o && done_o && cmd_idx_o == 32'd1,
                 ("the first command after soft reset: last start %0d (expected %0d), error %b done %b CMD_IDX %0d",
                  a >= 0 ? log_idx[a] : -1, base, error_o, done_o, cmd_idx_o))
        end
        42: begin
          `CHECK(abort_len >= k_wr_drain && nlog == 1 && n_retired == 0,
                 ("soft reset during a STORE: %0d cycles (write engine drains %0d), %0d starts, %0d retired",
                  abort_len, k_wr_drain, nlog, n_retired))
        end
        43: begin
          `CHECK(abort_len >= k_mm_clr && n_irq_fence == 0 && n_retired == 1,
                 ("soft reset during the drain: %0d cycles (matmul clears in %0d), %0d fence IRQs, %0d retired (expected the MATMUL only)",
                  abort_len, k_mm_clr, n_irq_fence, n_retired))
        end
        44: begin
          `CHECK(cmdq_free_o == 16'd0 && cmdq_words_o == 3'd3 && !error_o,
                 ("before the reset: FREE %0d WORDS %0d error %b", cmdq_free_o, cmdq_words_o, error_o))
        end
        45: begin
          `CHECK(n_irq_fence == 1 && cmd_idx_o == 32'd1 && cmdq_words_o == 3'd0,
                 ("a FENCE written right after CTRL.SOFT_RESET (while the read engine drained) was lost: %0d fence IRQs, CMD_IDX %0d, WORDS %0d (RTL bug B3)",
                  n_irq_fence, cmd_idx_o, cmdq_words_o))
        end
        46: begin
          `CHECK(abort_len <= 1, ("soft reset while idle took %0d cycles", abort_len))
        end
        default: begin
          `CHECK(0, ("bench error: no custom check %0d", id))
        end
      endcase
    end
  endtask

  // -------------------------------------------------------------------------------------
  // Driver: one loop, one clock wait, runs the steps of every scenario
  // -------------------------------------------------------------------------------------
  integer only, sp, kind, arg, timer, settle, knob;
  reg     adv;

  initial begin
    if (!$value$plusargs("scenario=%d", only)) begin
      only = -1;
    end
    begin : trace
      reg [8*256-1:0] tfile;
      if ($value$plusargs("trace=%s", tfile)) begin
        $dumpfile(tfile);
        $dumpvars(0, tsr_ctrl_tb);
      end
    end
    nprog = 0; nlog = 0; base = 0;
    n_irq_done = 0; n_irq_err = 0; n_irq_fence = 0; n_irq_clear = 0; n_retired = 0;
    k_rd_lat = 2; k_rd_drain = 5; k_mm_drain = 12; k_mm_clr = 4; k_wr_tail = 3; k_wr_drain = 5;
    k_st_param = 2;
    repeat (3) @(posedge clk);
    #1 rst_n = 1'b1;
    for (sc = 0; sc < NumScen; sc = sc + 1) begin
      if (only < 0 || only == sc) begin
        @(posedge clk);
        setup(sc);
        sp = 0; timer = 0; settle = 0;
        while (sp < nsteps) begin
          // Inputs change 1 ns after the edge; outputs read here are the current state.
          @(posedge clk);
          #1;
          cmd_we = 1'b0;
          soft_reset = 1'b0;
          cnt_clear = 1'b0;
          kind = st_kind[sp];
          arg = st_arg[sp];
          adv = 1'b0;
          timer = timer + 1;
          if (settle > 0) begin
            settle = settle - 1;
          end
          case (kind)
            SPush, SWords: begin
              // SPush: push up to command arg (exclusive); a new command waits for a free slot
              // unless the scenario means to overflow (then it pushes anyway). SWords: arg words.
              if ((kind == SPush && pushed >= arg) || (kind == SWords && arg == 0)) begin
                adv = 1'b1;
              end else if (kind == SPush && wi == 0 && settle > 0) begin
                // the previous command's last word is not counted yet
              end else if (kind == SPush && wi == 0 && cmdq_free_o == 16'd0 && exp_err != EOvf) begin
                if (error_o) begin
                  adv = 1'b1;                   // a stopped engine never frees a slot
                end
              end else begin
                cmd_we = 1'b1;
                cmd_word = prog[pushed][32*wi +: 32];
                wi = wi + 1;
                if (wi == 8) begin
                  wi = 0;
                  pushed = pushed + 1;
                  settle = 2;
                end
                if (kind == SWords) begin
                  st_arg[sp] = arg - 1;
                end
              end
            end
            SWaitEnd: begin
              if (timer > 3 && settle == 0 &&
                  ((error_o && !rd_busy && !wr_busy && !st_busy && mm_idle) || (done_o && !busy_o))) begin
                adv = 1'b1;
              end
            end
            SWaitStarts: adv = (nlog >= arg && timer > 2);
            SWaitCyc:    adv = (timer >= arg);
            SSreset: begin
              soft_reset = 1'b1;
              if (wi != 0) begin                // a partial command is flushed
                pushed = pushed + 1;
              end
              base = pushed;
              wi = 0;
              clr_mark = n_irq_clear;
              adv = 1'b1;
            end
            SWaitAbort: adv = (n_irq_clear > clr_mark && !abort_win && timer > 3);
            SCclear: begin
              cnt_clear = 1'b1;
              sc_cleared = 1;
              adv = 1'b1;
            end
            SCheck: begin
              custom_check(arg);
              adv = 1'b1;
            end
            SGeneric: begin
              generic_checks;
              adv = 1'b1;
            end
            SClean: begin
              clean_checks;
              n_irq_clear = 0;
              adv = 1'b1;
            end
            SKnob: begin
              knob = arg % 65536;
              case (arg / 65536)
                KRdLat:   k_rd_lat = knob;
                KRdDrain: k_rd_drain = knob;
                KMmDrain: k_mm_drain = knob;
                KMmClr:   k_mm_clr = knob;
                KWrTail:  k_wr_tail = knob;
                KStParam: k_st_param = knob;
                default:  k_wr_drain = knob;
              endcase
              adv = 1'b1;
            end
            default: adv = 1'b1;
          endcase
          if (adv) begin
            sp = sp + 1;
            timer = 0;
          end else if (timer > Timeout) begin
            `CHECK(0, ("timeout in step %0d (kind %0d arg %0d): busy %b done %b error %b code %0d",
                       sp, kind, arg, busy_o, done_o, error_o, err_code_o))
            sp = sp + 1;
            timer = 0;
          end
        end
      end
    end
    @(posedge clk);
    if (n_fail != 0) begin
      $display("FAIL tsr_ctrl_tb: %0d of %0d checks failed", n_fail, n_checks);
      $fatal(1);
    end
    $display("PASS tsr_ctrl_tb: %0d scenarios, %0d checks, %0d cycles", only < 0 ? NumScen : 1,
             n_checks, cyc);
    $finish;
  end
endmodule

`default_nettype wire
