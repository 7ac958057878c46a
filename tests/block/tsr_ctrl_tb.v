// tsr_ctrl_tb: self-checking test of tsr_ctrl (the command processor) with behavioural units.
`timescale 1ns/1ps
`default_nettype none

// The bench pushes commands word by word through cmd_we_i / cmd_word_i and plays the units
// around the controller. Each unit takes its command fields from the output the chip wires
// to it: the read engine from cmd_rd_o at rd_start_o, the matmul unit and the SFU from cmd_o,
// the store unit from cmd_st_o at st_start_o and the write engine from cmd_st_o later.
//   - DMA read engine (LOAD): busy for RdLat cycles, then up to 6 rd_beat pulses, then a done
//     pulse; a LOAD whose ADDR[31:24] is 0xE0 ends with rd_err and ERR_ADDR = ADDR + 0x40;
//     on rd_abort it keeps returning beats for RdDrain cycles, then goes idle without done.
//   - matmul unit: ready low while it "feeds" rows, idle low until MmDrain cycles after
//     ready rises (the array drain); unit_clr shortens the drain to MmClr cycles.
//   - store unit + DMA write engine (STORE): a STORE with REQUANT, PER_CHANNEL and MULT =
//     0xBAD00001 pulses st_param_err; otherwise, once the write engine is free (it may
//     still wait for the responses of the STORE before), the write engine takes ROWS, COLS,
//     ADDR and the mode from cmd_st_o when it starts, streams ROWS x row bytes through
//     wr_bytes (AxiBytes per cycle at most), drops st_busy, and pulses wr_done WrTail
//     cycles later; ADDR[31:24] = 0xE1 makes that done carry wr_err and ERR_ADDR = ADDR +
//     0x80. The store first reads its parameters for StParam cycles. wr_abort drains for
//     WrDrain cycles; unit_clr stops the store part at once.
//   - SFU: busy for SfuLat cycles after sfu_start.
//
// Every scenario is data: a program of commands, a list of driver steps (push, wait, soft
// reset, counter clear, checks) and the expected outcome. One driver loop runs the steps,
// one monitor checks every cycle, so each check exists once (Verilator 5.006 compiles
// timed tasks per call site, slowly). The monitor keeps a mirror of the overlapped engine
// (docs/commands.md, rtl/tsr_ctrl.v header): the load and store queues (a scratchpad LOAD
// or a STORE enters its queue when CMD_IDX moves past it), the real token counters
// (popped at a start, pushed at a retire), the running jobs of the read engine and the
// store unit, and the accumulator banks of the MATMULs in flight. Every cycle it checks:
//   - starts: the read engine never starts while busy, the store unit never while st_busy
//     or while a STORE it took has rows to send or two have not retired; at every start the
//     unit's command (cmd_rd_o, cmd_st_o, cmd_o) equals the pushed command: the load queue
//     head, the first store queue entry not yet started (so each stage starts in program
//     order) or, for the front end, command CMD_IDX with opcode_o equal to it; cmd_st_o
//     holds the last STORE started until the next starts; at most LoadQ LOADs and StoreQ
//     STOREs wait in their queues;
//   - resources: a MATMUL needs mm_ready_i; a STORE and a MATMUL in flight (from its start
//     until mm_idle_i) never touch the same accumulator bank, and a SPAD STORE reads only
//     with the array idle; an accumulator LOAD needs mm_idle_i and every scratchpad LOAD
//     retired; the SFU needs mm_idle_i, both queues empty, !st_busy_i and !wr_busy_i, and
//     nothing starts while it runs;
//   - tokens: no pop on an empty real counter (the bench's mirror); a command with no token
//     bit decoded while every program-order counter is zero leaves decode (enters its
//     queue or starts) only after every earlier command retired, and such a STORE starts
//     with the array idle;
//   - retires: a background LOAD on rd_done_i, a STORE on wr_done_i (both without error),
//     an accumulator LOAD on rd_done_i, a MATMUL with mm_ready_i (with PUSH_NEXT only with
//     mm_idle_i), a FENCE with mm_idle_i once every earlier command retired; no start, no
//     retire while STATUS.ERROR is up or a soft reset is in progress; CMD_IDX moves by one
//     (or to 0 at the end of a soft reset);
//   - errors: a decode error rises only after every earlier command retired; a bus or
//     parameter error of a background LOAD/STORE rises at once with ERR_CMD_IDX = its index;
//   - irq_*_o are one-cycle pulses; IRQ done only with both queues empty and units idle;
//   - during a soft reset: rd_abort_o, wr_abort_o and unit_clr_o high until the engines are
//     idle; irq_clear_o once, only when they are; then no error, empty queue, index 0;
//   - CNT_CYCLES, CNT_BUSY (cycles with busy_o), CNT_MACS (m*k*n at each MATMUL start),
//     CNT_DMA_RD (AxiBytes per beat), CNT_DMA_WR (sum of wr_bytes) and CNT_CMDS (front-end
//     and background retirements) against a mirror, with COUNTERS_CLEAR; counters survive
//     soft reset;
//   - done_o drops when the 8th word of a command is written.
// At the end of a scenario: which commands started (once) and retired, ERR_CODE,
// ERR_CMD_IDX, ERR_ADDR, CMD_IDX, CNT_CMDS, FENCE interrupts, and per scenario the overlap
// (cycles with a LOAD or a STORE running beside a MATMUL in flight) or its absence.
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

  // Opcodes (Op*), error codes (Err*) and the cmd_*() field functions: generated from
  // rtl/regs/tessera_cmds.toml (docs/commands.md).
`define TSR_CMD_FUNCS
`include "rtl/regs/tsr_cmd_fields.vh"
`undef TSR_CMD_FUNCS
  // The bench's deps argument: one bit per token flag of word 0 (see w0_of).
  localparam [3:0] PopPrev = 4'd1, PopNext = 4'd2, PushPrev = 4'd4, PushNext = 4'd8;
  // Short names of the error codes the scenarios expect.
  localparam [7:0] EOpcode = ErrOpcode, EDim = ErrDim, ESpad = ErrSpadRange, EAcc = ErrAccRange,
                   EDram = ErrDramRange, EBusRd = ErrBusRead, EBusWr = ErrBusWrite, EParam = ErrParam,
                   EDep = ErrDepToken, EOvf = ErrCmdqOverflow, ENoW = ErrNoWeights, EWin = ErrDmaWindow;
  // Driver steps.
  localparam integer SPush = 1, SWords = 2, SWaitEnd = 3, SWaitStarts = 4, SWaitCyc = 5,
                     SSreset = 6, SWaitAbort = 7, SCclear = 8, SCheck = 9, SGeneric = 10,
                     SClean = 11, SKnob = 12;
  // Knobs (SKnob argument: id * 65536 + value).
  localparam integer KRdLat = 0, KRdDrain = 1, KMmDrain = 2, KMmClr = 3, KWrTail = 4,
                     KWrDrain = 5, KStParam = 6, KSfuLat = 7;
  localparam integer AccHalf = AccRows / 2;      // the accumulator's two banks
  localparam integer LoadQ = 2, StoreQ = 4;       // entries of the load and store queues (rtl/tsr_ctrl.v)

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
  reg         sfu_busy = 1'b0;
  reg  [31:0] win_base = 32'h0, win_limit = 32'hffff_ffff;   // DMA window (tsr_regs in the chip)

  wire        busy_o, done_o, error_o;
  wire [7:0]  err_code_o, opcode_o;
  wire [31:0] err_cmd_idx_o, err_addr_o, cmd_idx_o;
  wire [15:0] cmdq_free_o;
  wire [2:0]  cmdq_words_o;
  wire        irq_done_o, irq_error_o, irq_fence_o, irq_clear_o;
  wire [63:0] cnt_cycles_o, cnt_busy_o, cnt_macs_o, cnt_dma_rd_o, cnt_dma_wr_o, cnt_cmds_o;
  wire [255:0] cmd_o, cmd_rd_o, cmd_st_o, cmd_pre_o;
  wire        mm_pre_o, mm_sep_o;
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
    // No command ring here (tests/block/tsr_cmd_fetch_tb.v, tests/system/test_sys_ring.c).
    .ring_push_i    (1'b0),
    .ring_ready_o   (),
    .ring_cmd_i     (256'h0),
    .ring_addr_i    (32'h0),
    .ring_rsv_i     (16'h0),
    .ring_busy_i    (1'b0),
    .ring_idle_i    (1'b1),
    .ring_err_i     (1'b0),
    .ring_err_code_i (8'h0),
    .ring_err_addr_i (32'h0),
    .halt_o         (),
    .irq_cmd_o      (),
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
    .cmd_rd_o       (cmd_rd_o),
    .cmd_st_o       (cmd_st_o),
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
    // Weight preload: not modelled here (the system tests cover it); the unit never offers it.
    .mm_pre_o       (mm_pre_o),
    .mm_sep_o       (mm_sep_o),
    .mm_pre_ready_i (1'b0),
    .cmd_pre_o      (cmd_pre_o),
    .mm_ready_i     (mm_ready),
    .mm_idle_i      (mm_idle),
    .st_start_o     (st_start_o),
    .st_busy_i      (st_busy),
    .st_param_err_i (st_param_err),
    // The SFU's functions are covered by the system tests (test_sys_sfu); here only its
    // dispatch: busy for SfuLat cycles, never a parameter error.
    .sfu_start_o    (sfu_start_o),
    .sfu_busy_i     (sfu_busy),
    .sfu_param_err_i (1'b0)
  );

  // -------------------------------------------------------------------------------------
  // Scenario state (written by the driver, read by the monitor)
  // -------------------------------------------------------------------------------------
  integer    sc = -1;
  string     sc_name = "reset";
  integer    cyc = 0;

  // Failures are counted (n_fail, n_checks) and reported at the end.
`define TB_KEEP_GOING
`define TB_WHERE ("tsr_ctrl_tb scenario %0d (%s) cycle %0d", sc, sc_name, cyc)
`include "tsr_tb_check.vh"

  reg [255:0] prog [0:MaxProg-1];
  integer     nprog;
  integer     st_kind [0:MaxSteps-1];
  integer     st_arg  [0:MaxSteps-1];
  integer     nsteps;
  reg [7:0]   exp_err;                  // expected ERR_CODE (0: none)
  integer     exp_err_idx;              // and the failing command
  reg [31:0]  exp_err_addr;
  integer     exp_unit_err;             // 1: the failing command started its unit
  integer     exp_imprecise;            // 1: a background error; later commands may have run
  integer     exp_cmd_idx;              // CMD_IDX at the end (-1: the failing command's)
  integer     base;                     // program index of command 0 of the DUT's segment
  integer     base_next;                // the driver's base for after the soft reset it writes
  integer     pushed;                   // commands fully pushed
  integer     wi;                       // words of prog[pushed] pushed so far
  integer     sc_cleared;               // a COUNTERS_CLEAR happened in this scenario
  integer     clr_mark;                 // n_irq_clear when the last soft reset was written
  reg [63:0]  cmds_at_start;
  // Knobs of the behavioural units.
  integer     k_rd_lat, k_rd_drain, k_mm_drain, k_mm_clr, k_wr_tail, k_wr_drain, k_st_param;
  integer     k_sfu_lat;

  // What the monitor saw in this scenario.
  integer     nlog;
  integer     log_unit [0:MaxLog-1];    // 1 LOAD (read engine), 2 MATMUL, 3 STORE
  integer     log_idx  [0:MaxLog-1];    // program index
  integer     log_idle [0:MaxLog-1];    // mm_idle_i at the start
  integer     log_age  [0:MaxLog-1];    // cycles since mm_ready_i last rose
  integer     log_cyc  [0:MaxLog-1];    // cycle of the start
  // Per program index: unit starts, cycle of the first start, cycle of the retire (-1: none).
  integer     ix_starts   [0:MaxProg-1];
  integer     ix_start_cyc [0:MaxProg-1];
  integer     ix_ret_cyc  [0:MaxProg-1];
  integer     ix_enq      [0:MaxProg-1];  // 1: entered its stage queue
  integer     ov_rd_mm, ov_st_mm, ov_rd_st; // cycles: LOAD / STORE beside a MATMUL in flight, LOAD beside STORE
  integer     ov_st_wr = 0;   // cycles, every scenario: a STORE in the store unit, the one before in its writer
  integer     err_cyc;                  // cycle STATUS.ERROR rose (-1: not yet)
  integer     err_mm_busy;              // 1: a MATMUL was in flight when it rose
  integer     dec_beside_rd;            // 1: opcode_o showed a MATMUL while the read engine ran
  integer     n_irq_done, n_irq_err, n_irq_fence, n_irq_clear, n_retired;
  integer     fence_age;                // cycles from mm_ready_i rising to the last fence IRQ
  integer     abort_len;                // cycles of the last soft reset (StAbort)

  // -------------------------------------------------------------------------------------
  // Command builders (docs/commands.md)
  // -------------------------------------------------------------------------------------
  // Word 0: the opcode, the token flags (deps: PopPrev | PopNext | PushPrev | PushNext)
  // and the opcode's flags.
  function [255:0] w0_of(input [7:0] op, input [3:0] deps, input [15:0] flags);
    reg [255:0] c;
    begin
      c = cmd_opcode_put(256'h0, op);
      c = cmd_pop_prev_put(c, deps[0]);
      c = cmd_pop_next_put(c, deps[1]);
      c = cmd_push_prev_put(c, deps[2]);
      c = cmd_push_next_put(c, deps[3]);
      w0_of = cmd_flags_put(c, flags);
    end
  endfunction

  function [255:0] c_op(input [7:0] op, input [3:0] deps, input [15:0] flags);
    c_op = w0_of(op, deps, flags);
  endfunction

  // SFU LUT_LOAD (function 0): table rows from scratchpad row a (docs/sfu.md).
  function [255:0] c_sfu(input [3:0] deps, input [23:0] a);
    c_sfu = cmd_sfu_src_put(cmd_sfu_func_put(w0_of(OpSfu, deps, 16'h0), FnLutLoad), a);
  endfunction

  function [255:0] c_load(input [3:0] deps, input dest, input [31:0] addr, input [31:0] stride,
                          input [15:0] rows, input [15:0] cols, input [23:0] loc);
    reg [255:0] c;
    begin
      c = cmd_load_dest_put(w0_of(OpLoad, deps, 16'h0), dest);
      c = cmd_load_addr_put(c, addr);
      c = cmd_load_stride_put(c, stride);
      c = cmd_load_rows_put(c, rows);
      c = cmd_load_cols_put(c, cols);
      c_load = cmd_load_local_put(c, loc);
    end
  endfunction

  function [255:0] c_mm(input [3:0] deps, input acc, input keep, input [23:0] a,
                        input [23:0] w, input [23:0] c, input [15:0] m, input [15:0] k,
                        input [15:0] n);
    reg [255:0] x;
    begin
      x = cmd_matmul_accumulate_put(w0_of(OpMatmul, deps, 16'h0), acc);
      x = cmd_matmul_keep_weights_put(x, keep);
      x = cmd_matmul_a_addr_put(x, a);
      x = cmd_matmul_w_addr_put(x, w);
      x = cmd_matmul_c_addr_put(x, c);
      x = cmd_matmul_m_put(x, m);
      x = cmd_matmul_k_put(x, k);
      c_mm = cmd_matmul_n_put(x, n);
    end
  endfunction

  // flags = {PER_CHANNEL, REQUANT, BIAS}.
  function [255:0] c_store(input [3:0] deps, input [2:0] flags, input [31:0] addr,
                           input [31:0] stride, input [15:0] rows, input [15:0] cols,
                           input [23:0] src, input [23:0] param, input [31:0] mult,
                           input [7:0] shift, input [7:0] zp, input [7:0] amin, input [7:0] amax);
    reg [255:0] c;
    begin
      c = cmd_store_bias_put(w0_of(OpStore, deps, 16'h0), flags[0]);
      c = cmd_store_requant_put(c, flags[1]);
      c = cmd_store_per_channel_put(c, flags[2]);
      c = cmd_store_addr_put(c, addr);
      c = cmd_store_stride_put(c, stride);
      c = cmd_store_rows_put(c, rows);
      c = cmd_store_cols_put(c, cols);
      c = cmd_store_src_put(c, src);
      c = cmd_store_param_put(c, param);
      c = cmd_store_mult_put(c, mult);
      c = cmd_store_shift_put(c, shift);
      c = cmd_store_out_zp_put(c, zp);
      c = cmd_store_act_min_put(c, amin);
      c_store = cmd_store_act_max_put(c, amax);
    end
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
    st = c_store(deps, 3'b000, 32'h3000, 32'd32, 16'd2, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0);
  endfunction
  // REQUANT store of one row: shift, act_min, act_max.
  function [255:0] stq(input [2:0] flags, input [23:0] param, input [7:0] shift,
                       input [7:0] amin, input [7:0] amax);
    stq = c_store(4'h0, flags, 32'h4000, 32'd8, 16'd1, 16'd8, 24'd0, param,
                  32'h40000000, shift, 8'h00, amin, amax);
  endfunction
  localparam [2:0] FBias = 3'b001, FRq = 3'b010, FPc = 3'b100;
  // Pipeline pieces: 8 rows x 8 bytes to scratchpad row loc; an 8x8x8 MATMUL of A at row a
  // into accumulator row c; a raw STORE of rows src.. with parameter rows param..
  function [255:0] ldx(input [3:0] deps, input [31:0] addr, input [23:0] loc);
    ldx = c_load(deps, 1'b0, addr, 32'd16, 16'd8, 16'd8, loc);
  endfunction
  function [255:0] mmc(input [3:0] deps, input [23:0] a, input [23:0] c);
    mmc = c_mm(deps, 1'b0, 1'b0, a, 24'd200, c, 16'd8, 16'd8, 16'd8);
  endfunction
  function [255:0] stx(input [3:0] deps, input [23:0] src, input [23:0] param, input [15:0] rows);
    stx = c_store(deps, 3'b000, 32'h3000, 32'd32, rows, 16'd8, src, param, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0);
  endfunction

  function integer unit_of(input [255:0] c);
    case (cmd_opcode(c))
      OpLoad:   unit_of = 1;
      OpMatmul: unit_of = 2;
      OpStore:  unit_of = 3;
      OpSfu:    unit_of = 4;
      default:  unit_of = 0;
    endcase
  endfunction

  // A scratchpad LOAD or a STORE: runs in the background from its stage queue.
  function integer is_bg(input [255:0] c);
    is_bg = ((cmd_opcode(c) == OpLoad && !cmd_load_dest(c)) || cmd_opcode(c) == OpStore) ? 1 : 0;
  endfunction

  // Accumulator banks of rows base..base+len-1: bit 0 the lower half, bit 1 the upper.
  function [1:0] banks(input [23:0] b, input [31:0] len);
    banks = {({8'h0, b} + len > AccHalf), ({8'h0, b} < AccHalf)};
  endfunction
  function [1:0] mm_banks(input [255:0] c);          // a MATMUL's result rows
    mm_banks = banks(cmd_matmul_c_addr(c), {16'h0, cmd_matmul_m(c)});
  endfunction
  function [1:0] st_banks(input [255:0] c);          // a STORE's source and parameter rows
    st_banks = (cmd_store_spad(c) ? 2'b00 : banks(cmd_store_src(c), {16'h0, cmd_store_rows(c)})) |
               banks(cmd_store_param(c), cmd_store_leaky(c) ? 32'd5 : 32'd3);
  endfunction

  // Program-order token counters over commands from..to-1 all zero (docs/commands.md).
  function integer po_quiet(input integer from, input integer to);
    integer j, l2c, c2l, c2s, s2c;
    reg [255:0] c;
    begin
      l2c = 0; c2l = 0; c2s = 0; s2c = 0;
      for (j = from; j < to; j = j + 1) begin
        c = prog[j];
        if (cmd_opcode(c) == OpLoad && !cmd_load_dest(c)) begin
          c2l = c2l - (cmd_pop_next(c) ? 1 : 0);
          l2c = l2c + (cmd_push_next(c) ? 1 : 0);
        end else if (cmd_opcode(c) == OpStore) begin
          c2s = c2s - (cmd_pop_prev(c) ? 1 : 0);
          s2c = s2c + (cmd_push_prev(c) ? 1 : 0);
        end else begin
          l2c = l2c - (cmd_pop_prev(c) ? 1 : 0);
          s2c = s2c - (cmd_pop_next(c) ? 1 : 0);
          c2l = c2l + (cmd_push_prev(c) ? 1 : 0);
          c2s = c2s + (cmd_push_next(c) ? 1 : 0);
        end
      end
      po_quiet = (l2c == 0 && c2l == 0 && c2s == 0 && s2c == 0) ? 1 : 0;
    end
  endfunction

  // Every command from..to-1 retired in a cycle before lim.
  function integer all_ret(input integer from, input integer to, input integer lim);
    integer j;
    begin
      all_ret = 1;
      for (j = from; j < to; j = j + 1) begin
        if (ix_ret_cyc[j] < 0 || ix_ret_cyc[j] >= lim) begin
          all_ret = 0;
        end
      end
    end
  endfunction

  // Serial command: no token bit and every program-order counter zero at its decode.
  function integer serial_cmd(input integer from, input integer i);
    serial_cmd = (!(cmd_pop_prev(prog[i]) || cmd_pop_next(prog[i]) || cmd_push_prev(prog[i]) ||
                    cmd_push_next(prog[i])) && po_quiet(from, i) != 0) ? 1 : 0;
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
      rd_rows = cmd_load_rows(cmd_rd_o);
      rd_cnt = k_rd_lat;
      rd_beats_left = (rd_rows > 16'd6) ? 6 : {16'h0, rd_rows};
      rd_err_pend = ((cmd_load_addr(cmd_rd_o) >> 24) == 32'he0);
      rd_err_addr_pend = cmd_load_addr(cmd_rd_o) + 32'h40;
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
      mm_feed = 1 + ({16'h0, cmd_matmul_m(cmd_o)} % 5) + (cmd_matmul_keep_weights(cmd_o) ? 0 : 3);
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

  integer sfu_cnt;
  always @(posedge clk) begin
    if (!rst_n) begin
      sfu_busy <= 1'b0;
    end else if (sfu_start_o && !sfu_busy) begin
      sfu_busy <= 1'b1;
      sfu_cnt = k_sfu_lat;
    end else if (unit_clr_o) begin
      sfu_busy <= 1'b0;
    end else if (sfu_busy) begin
      if (sfu_cnt <= 1) begin
        sfu_busy <= 1'b0;
      end
      sfu_cnt = sfu_cnt - 1;
    end
  end

  // Store unit and write engine. The store part: phase 0 idle, 1 parameters, 2 waiting for
  // the write engine, 3 streaming with it. The write engine: 0 idle, 2 streaming, 3 B wait,
  // 4 abort. The write engine reads ROWS, COLS, ADDR and the mode from cmd_st_o when it
  // starts, in the cycle it is free (after the previous STORE's wr_done edge).
  integer    ss_phase = 0, ss_cnt, ws_phase = 0, ws_cnt, ws_left;
  reg        ws_pe;
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
      ss_phase = 0;
      ws_phase = 0;
    end else begin
      if (wr_abort_o && (ws_phase == 2 || ws_phase == 3)) begin
        ws_phase = 4;
        ws_cnt = k_wr_drain;
      end
      case (ws_phase)
        2: begin
          if (ws_left > AxiBytes) begin
            wr_bytes <= AxiBytesW;
            ws_left = ws_left - AxiBytes;
          end else begin
            wr_bytes <= ws_left[WrBw-1:0];
            ws_left = 0;
            st_busy <= 1'b0;
            ss_phase = 0;
            ws_phase = 3;
            ws_cnt = k_wr_tail;
          end
        end
        3: begin
          if (ws_cnt > 0) begin
            ws_cnt = ws_cnt - 1;
          end else begin
            wr_done <= 1'b1;
            wr_err <= (ws_addr[31:24] == 8'he1);
            wr_err_addr <= (ws_addr[31:24] == 8'he1) ? ws_addr + 32'h80 : 32'hdeadbeef;
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
      if (unit_clr_o) begin
        st_busy <= 1'b0;                 // the store part stops at once
        ss_phase = 0;
      end
      case (ss_phase)
        0: begin
          if (st_start_o) begin
            st_busy <= 1'b1;
            ss_phase = 1;
            ss_cnt = k_st_param;
            ws_pe = cmd_store_requant(cmd_st_o) && cmd_store_per_channel(cmd_st_o) &&
                    cmd_store_mult(cmd_st_o) == 32'hbad00001;
          end
        end
        1: begin
          if (ss_cnt > 0) begin
            ss_cnt = ss_cnt - 1;
          end else if (ws_pe) begin
            st_param_err <= 1'b1;
            st_busy <= 1'b0;
            ss_phase = 0;
          end else begin
            ss_phase = 2;
          end
        end
        2: begin
          if (ws_phase == 0) begin       // the write engine is free: it takes the STORE
            wr_busy <= 1'b1;
            ws_phase = 2;
            ss_phase = 3;
            ws_rows = cmd_store_rows(cmd_st_o);
            ws_cols = cmd_store_cols(cmd_st_o);
            ws_addr = cmd_store_addr(cmd_st_o);
            ws_left = {16'h0, ws_rows} * ((cmd_store_requant(cmd_st_o) || cmd_store_spad(cmd_st_o)) ? {16'h0, ws_cols} :
                                          4 * {16'h0, ws_cols});
          end
        end
        default: ;
      endcase
    end
  end

  // -------------------------------------------------------------------------------------
  // Monitor: every per-cycle check and the mirrors (pre-edge values at each edge)
  // -------------------------------------------------------------------------------------
  reg [63:0] m_cycles = 64'h0, m_busy = 64'h0, m_macs = 64'h0, m_rd = 64'h0, m_wr = 64'h0;
  reg [63:0] m_macs_pend = 64'h0, m_macs_pend2 = 64'h0;   // a MATMUL's m*k*n reaches CNT_MACS
                                                          // two cycles after its start
  reg [63:0] m_cmds = 64'h0;
  reg [15:0] m_k = 16'h0, m_n = 16'h0;       // K and N of the weights in the array
  reg        abort_win = 1'b0;               // soft reset seen, irq_clear_o not yet
  integer    abort_start;
  reg        p_irq_done = 1'b0, p_irq_err = 1'b0, p_irq_fence = 1'b0, p_irq_clear = 1'b0;
  reg        p_error = 1'b0, p_mm_ready = 1'b1;
  reg        p_last_word = 1'b0;
  reg [7:0]  p_opcode = 8'h0;
  reg        p_rd_done = 1'b0, p_rd_err = 1'b0, p_mm_idle = 1'b1, p_sfu_busy = 1'b0;
  reg        p_sreset = 1'b0, p_cnt_clear = 1'b0;
  reg [31:0] p_cmd_idx = 32'h0;
  integer    p_base = 0, cur_base;
  integer    ready_rise = 0;
  // A MATMUL the front end moved past while it streamed (CMD_IDX moved on
  // without mm_ready_i): it retires, pushing its load-stage token, in the
  // first cycle with mm_ready_i (not in one that raises an error or soft-resets).
  integer    mx_fi = -1;
  integer    li, fi, ri;
  reg [255:0] fc;
  reg        any_busy;
  // Mirror of the engine: the stage queues (program indices; *_run: the head runs), the
  // real token counters, background pushes of the last two cycles, the units' jobs, the
  // banks of the MATMULs in flight, and a background job's error waiting to be raised.
  integer    lq_m [0:7];
  integer    sq_m [0:7];
  integer    lq_m_h = 0, lq_m_n = 0, sq_m_h = 0, sq_m_n = 0;
  reg        lq_m_run = 1'b0;
  integer    sq_m_runs = 0;      // store queue entries started, from the head (at most 2)
  integer    t_l2c = 0, t_c2l = 0, t_c2s = 0, t_s2c = 0;
  integer    h_l2c0 = 0, h_l2c1 = 0, h_s2c0 = 0, h_s2c1 = 0, n_l2c, n_s2c;
  integer    rd_job = -1, st_job = -1;
  reg        rd_job_on = 1'b0, rd_job_bg = 1'b0, st_job_on = 1'b0, st_job_spad = 1'b0;
  integer    wr_job = -1;        // the STORE before st_job, whose writer still runs (st_job_on: st_job
  reg        wr_job_on = 1'b0;   // is in the store unit or its writer)
  reg [1:0]  st_job_banks = 2'b00, mm_fl = 2'b00, mm_now;
  integer    pend_err = -1, p_pend_err = -1;
  localparam integer TL2C = 0, TC2L = 1, TC2S = 2, TS2C = 3;

  // A command pops a real counter; slack: pushes the mirror counted since the pop happened.
  task tok_pop(input integer which, input integer slack, input integer idx);
    integer v;
    begin
      case (which)
        TL2C:    v = t_l2c;
        TC2L:    v = t_c2l;
        TC2S:    v = t_c2s;
        default: v = t_s2c;
      endcase
      `CHECK(v - slack > 0, ("command %0d popped the empty %0s token counter (mirror %0d)", idx - base,
                             which == TL2C ? "load->compute" : which == TC2L ? "compute->load" :
                             which == TC2S ? "compute->store" : "store->compute", v - slack))
      case (which)
        TL2C:    t_l2c = t_l2c - 1;
        TC2L:    t_c2l = t_c2l - 1;
        TC2S:    t_c2s = t_c2s - 1;
        default: t_s2c = t_s2c - 1;
      endcase
    end
  endtask

  task note_start(input integer unit, input integer i);
    begin
      ix_starts[i] = ix_starts[i] + 1;
      if (ix_starts[i] == 1) begin
        ix_start_cyc[i] = cyc;
      end
      if (nlog < MaxLog) begin
        log_unit[nlog] = unit;
        log_idx[nlog] = i;
        log_idle[nlog] = mm_idle ? 1 : 0;
        log_age[nlog] = cyc - ready_rise;
        log_cyc[nlog] = cyc;
        nlog = nlog + 1;
      end
    end
  endtask

  // A token-free LOAD/STORE is queued without moving CMD_IDX: the front end stays on it
  // until it retires. Seen when its unit starts with the mirror queue empty.
  task serial_enq(input [7:0] op);
    integer i;
    begin
      i = base + cmd_idx_o;
      if ((op == OpLoad ? lq_m_n : sq_m_n) == 0 && i < nprog && ix_enq[i] == 0 &&
          cmd_opcode(prog[i]) == op && is_bg(prog[i]) != 0 && serial_cmd(base, i) != 0) begin
        `CHECK(opcode_o == op, ("token-free command %0d started while opcode_o was %0d", i - base, opcode_o))
        `CHECK(all_ret(base, i, cyc) != 0,
               ("token-free command %0d started before every earlier command retired", i - base))
        ix_enq[i] = 1;
        if (op == OpLoad) begin
          lq_m[lq_m_h] = i;
          lq_m_n = 1;
        end else begin
          sq_m[sq_m_h] = i;
          sq_m_n = 1;
        end
      end
    end
  endtask

  // A front-end start (MATMUL, accumulator LOAD, SFU): command CMD_IDX, compute stage.
  task fe_start(input integer unit, input [255:0] c);
    integer i;
    begin
      i = base + cmd_idx_o;
      `CHECK(i < nprog && c == prog[i] && c == cmd_o,
             ("unit %0d started with a command other than command %0d (CMD_IDX) on cmd_o", unit, cmd_idx_o))
      `CHECK(opcode_o == cmd_opcode(c) && unit_of(c) == unit,
             ("unit %0d started for opcode %0d, opcode_o %0d", unit, cmd_opcode(c), opcode_o))
      if (i < nprog) begin
        if (cmd_pop_prev(c)) begin
          tok_pop(TL2C, 0, i);
        end
        if (cmd_pop_next(c)) begin
          tok_pop(TS2C, 0, i);
        end
        if (serial_cmd(base, i) != 0) begin
          `CHECK(all_ret(base, i, cyc) != 0,
                 ("token-free command %0d started before every earlier command retired", i - base))
        end
        note_start(unit, i);
      end
    end
  endtask

  always @(posedge clk) begin
    if (rst_n) begin
      cyc = cyc + 1;
      cur_base = base;
      any_busy = rd_busy || wr_busy || st_busy || !mm_idle || !mm_ready || sfu_busy;
      if (mm_ready && !p_mm_ready) begin
        ready_rise = cyc;
      end
      // ---- CMD_IDX moved at the last edge: a command entered its queue or retired ----
      if (cmd_idx_o == p_cmd_idx + 32'd1) begin
        fi = p_base + p_cmd_idx;
        `CHECK(!abort_win || p_sreset, ("CMD_IDX moved during a soft reset"))
        `CHECK(fi < nprog, ("CMD_IDX moved past the last pushed command"))
        if (fi < nprog) begin
          fc = prog[fi];
          `CHECK(p_opcode == cmd_opcode(fc), ("CMD_IDX moved past command %0d (opcode %0d) while opcode_o was %0d",
                                       p_cmd_idx, cmd_opcode(fc), p_opcode))
          if (is_bg(fc) != 0 && ix_enq[fi] != 0) begin
            // A token-free LOAD/STORE: the front end waited for it to retire.
            `CHECK(ix_ret_cyc[fi] >= 0 && ix_ret_cyc[fi] < cyc - 1,
                   ("CMD_IDX moved past token-free command %0d before it retired", p_cmd_idx))
          end else if (is_bg(fc) != 0) begin
            `CHECK(serial_cmd(p_base, fi) == 0,
                   ("CMD_IDX moved past token-free command %0d before it ran and retired", p_cmd_idx))
            if (!p_sreset) begin             // a soft reset in that cycle dropped it
              ix_enq[fi] = 1;
              if (cmd_opcode(fc) == OpLoad) begin
                lq_m[(lq_m_h + lq_m_n) % 8] = fi;
                lq_m_n = lq_m_n + 1;
                `CHECK(lq_m_n <= LoadQ, ("%0d LOADs in the %0d-entry load queue", lq_m_n, LoadQ))
              end else begin
                sq_m[(sq_m_h + sq_m_n) % 8] = fi;
                sq_m_n = sq_m_n + 1;
                `CHECK(sq_m_n <= StoreQ, ("%0d STOREs in the %0d-entry store queue", sq_m_n, StoreQ))
              end
            end
          end else if (cmd_opcode(fc) == OpMatmul && !p_mm_ready) begin
            `CHECK(ix_starts[fi] == 1 && !cmd_push_next(fc) && serial_cmd(p_base, fi) == 0 && mx_fi < 0,
                   ("CMD_IDX moved past MATMUL %0d while it streams, but it has no start, pushes to the store stage, is token-free or another such MATMUL has not retired",
                    p_cmd_idx))
            if (!p_sreset) begin
              mx_fi = fi;
            end
          end else begin
            ix_ret_cyc[fi] = cyc - 1;
            n_retired = n_retired + 1;
            m_cmds = m_cmds + 64'h1;
            if (cmd_push_prev(fc)) begin
              t_c2l = t_c2l + 1;
            end
            if (cmd_push_next(fc)) begin
              t_c2s = t_c2s + 1;
            end
            case (cmd_opcode(fc))
              OpLoad:   `CHECK(p_rd_done && !p_rd_err && rd_job == fi,
                               ("accumulator LOAD %0d retired without its rd_done_i", p_cmd_idx))
              OpMatmul: begin
                `CHECK(p_mm_ready && ix_starts[fi] == 1,
                       ("MATMUL %0d retired before mm_ready_i (rows still being fed) or without a start", p_cmd_idx))
                if (cmd_push_next(fc)) begin
                  `CHECK(p_mm_idle, ("MATMUL %0d with PUSH_NEXT retired before mm_idle_i (results not written back)",
                                     p_cmd_idx))
                end
              end
              OpFence:  `CHECK(p_mm_idle && all_ret(p_base, fi, cyc - 1) != 0,
                               ("FENCE %0d retired before mm_idle_i or before every earlier command retired", p_cmd_idx))
              OpNop: begin
                if (cmd_pop_prev(fc)) begin
                  tok_pop(TL2C, h_l2c0 + h_l2c1, fi);
                end
                if (cmd_pop_next(fc)) begin
                  tok_pop(TS2C, h_s2c0 + h_s2c1, fi);
                end
                if (serial_cmd(p_base, fi) != 0) begin
                  `CHECK(all_ret(p_base, fi, cyc - 2) != 0,
                         ("token-free NOP %0d ran before every earlier command retired", p_cmd_idx))
                end
              end
              OpSfu:    `CHECK(!p_sfu_busy && ix_starts[fi] == 1,
                               ("SFU command %0d retired while sfu_busy_i or without a start", p_cmd_idx))
              default:  `CHECK(0, ("command with opcode %0d retired", cmd_opcode(fc)))
            endcase
          end
        end
      end else if (cmd_idx_o != p_cmd_idx) begin
        `CHECK(cmd_idx_o == 32'd0 && p_irq_clear, ("CMD_IDX jumped from %0d to %0d", p_cmd_idx, cmd_idx_o))
      end
      // ---- a MATMUL moved past retires when its stream ends ----
      if (mx_fi >= 0 && (p_sreset || abort_win)) begin
        mx_fi = -1;
      end else if (mx_fi >= 0 && p_mm_ready && !(error_o && !p_error)) begin
        ix_ret_cyc[mx_fi] = cyc - 1;
        n_retired = n_retired + 1;
        m_cmds = m_cmds + 64'h1;
        if (cmd_push_prev(prog[mx_fi])) begin
          t_c2l = t_c2l + 1;
        end
        mx_fi = -1;
      end
      if (p_cnt_clear) begin
        m_cmds = 64'h0;                // the clear wins over the retires of its cycle
      end
      `CHECK(cnt_cmds_o == m_cmds, ("CNT_CMDS=%0d, expected %0d (front-end and background retirements)",
                                    cnt_cmds_o, m_cmds))
      m_cmds = cnt_cmds_o;             // resynchronise after a reported mismatch
      // ---- error state ----
      if (error_o && !p_error) begin
        err_cyc = cyc;
        err_mm_busy = mm_idle ? 0 : 1;
        if (p_pend_err >= 0) begin
          `CHECK(err_cmd_idx_o == p_pend_err - base,
                 ("ERR_CMD_IDX %0d, expected %0d: the background LOAD/STORE that reported the error",
                  err_cmd_idx_o, p_pend_err - base))
        end else if (err_code_o != EOvf && exp_unit_err == 0) begin
          `CHECK(cmd_idx_o == err_cmd_idx_o && all_ret(base, base + err_cmd_idx_o, cyc - 1) != 0,
                 ("decode error of command %0d raised (CMD_IDX %0d) before every earlier command retired",
                  err_cmd_idx_o, cmd_idx_o))
        end
      end
      if (p_pend_err >= 0 && !p_error && !abort_win) begin
        `CHECK(error_o, ("background command %0d reported an error but STATUS.ERROR did not rise",
                         p_pend_err - base))
      end
      if (p_error && !abort_win) begin
        `CHECK(error_o, ("STATUS.ERROR fell without a soft reset"))
        `CHECK(cmd_idx_o == p_cmd_idx, ("CMD_IDX moved from %0d to %0d in the error state", p_cmd_idx, cmd_idx_o))
      end
      if (p_irq_err && !abort_win) begin
        `CHECK(error_o, ("irq_error_o pulsed but STATUS.ERROR did not follow"))
      end
      // ---- unit starts in this cycle ----
      `CHECK(!mm_pre_o, ("mm_pre_o (weight preload) without mm_pre_ready_i"))
      if (rd_start_o || mm_start_o || st_start_o || sfu_start_o) begin
        `CHECK(!error_o && !p_error, ("a unit started while STATUS.ERROR"))
        `CHECK(!abort_win, ("a unit started during a soft reset"))
        `CHECK(!sfu_busy, ("a unit started while the SFU runs"))
      end
      if (rd_start_o) begin
        `CHECK(!rd_busy, ("the read engine got a start while busy"))
        if (!cmd_load_dest(cmd_rd_o)) begin
          serial_enq(OpLoad);
          li = (lq_m_n > 0) ? lq_m[lq_m_h] : -1;
          `CHECK(li >= 0 && !lq_m_run && cmd_rd_o == prog[li],
                 ("the read engine started a scratchpad LOAD that is not the load queue's next (head %0d, running %b)",
                  li - base, lq_m_run))
          if (li >= 0 && !lq_m_run) begin
            lq_m_run = 1'b1;
            if (cmd_pop_next(cmd_rd_o)) begin
              tok_pop(TC2L, 0, li);
            end
            note_start(1, li);
          end
          rd_job_bg = 1'b1;
        end else begin
          fe_start(1, cmd_rd_o);
          li = base + cmd_idx_o;
          `CHECK(mm_idle && lq_m_n == 0,
                 ("accumulator LOAD started before mm_idle_i (%b) or with %0d scratchpad LOADs not retired",
                  mm_idle, lq_m_n))
          rd_job_bg = 1'b0;
        end
        rd_job = li;
        rd_job_on = 1'b1;
      end
      if (mm_start_o) begin
        fe_start(2, cmd_o);
        `CHECK(mm_ready, ("MATMUL started while the matmul unit is not ready"))
      end
      if (sfu_start_o) begin
        fe_start(4, cmd_o);
        `CHECK(mm_idle && lq_m_n == 0 && sq_m_n == 0 && !st_busy && !wr_busy,
               ("SFU started with mm_idle_i %b, %0d LOADs and %0d STOREs not retired, st_busy_i %b wr_busy_i %b",
                mm_idle, lq_m_n, sq_m_n, st_busy, wr_busy))
      end
      if (st_start_o) begin
        `CHECK(!st_busy && !wr_job_on,
               ("the store unit got a start while busy (st %b) or with two STOREs not retired", st_busy))
        serial_enq(OpStore);
        li = (sq_m_n > sq_m_runs) ? sq_m[(sq_m_h + sq_m_runs) % 8] : -1;
        `CHECK(li >= 0 && sq_m_runs < 2 && cmd_st_o == prog[li],
               ("the store unit started a STORE that is not the store queue's next (entry %0d, %0d running)",
                li - base, sq_m_runs))
        if (st_job_on) begin             // the STORE before still waits for its writer's responses
          wr_job = st_job;
          wr_job_on = 1'b1;
        end
        if (li >= 0 && sq_m_runs < 2) begin
          sq_m_runs = sq_m_runs + 1;
          if (cmd_pop_prev(cmd_st_o)) begin
            tok_pop(TC2S, 0, li);
          end
          note_start(3, li);
          if (serial_cmd(base, li) != 0) begin
            `CHECK(mm_idle && !mm_start_o, ("token-free STORE %0d started before the array drained", li - base))
          end
        end
        st_job = li;
        st_job_on = 1'b1;
        st_job_spad = cmd_store_spad(cmd_st_o);
        st_job_banks = st_banks(cmd_st_o);
      end
      // ---- shared resources: a STORE reading beside a MATMUL in flight ----
      mm_now = (mm_idle ? 2'b00 : mm_fl) | (mm_start_o ? mm_banks(cmd_o) : 2'b00);
      if ((st_start_o || st_busy) && (!mm_idle || mm_start_o)) begin
        `CHECK(!st_job_spad, ("SPAD STORE %0d reads the scratchpad while a MATMUL is in flight", st_job - base))
        `CHECK((st_job_banks & mm_now) == 2'b00,
               ("STORE %0d (banks %b) runs beside a MATMUL in flight in the same accumulator bank (%b)",
                st_job - base, st_job_banks, mm_now))
      end
      mm_fl = mm_now;
      if (st_job_on && st_job >= 0 && !st_start_o) begin
        `CHECK(cmd_st_o == prog[st_job], ("cmd_st_o changed while STORE %0d runs", st_job - base))
      end
      if (rd_busy && !mm_idle) begin
        ov_rd_mm = ov_rd_mm + 1;
      end
      if (st_busy && !mm_idle) begin
        ov_st_mm = ov_st_mm + 1;
      end
      if (rd_busy && (st_busy || wr_busy)) begin
        ov_rd_st = ov_rd_st + 1;
      end
      if (st_busy && wr_job_on) begin
        ov_st_wr = ov_st_wr + 1;
      end
      if (rd_busy && opcode_o == OpMatmul) begin
        dec_beside_rd = 1;
      end
      // ---- busy_o ----
      if (any_busy) begin
        `CHECK(busy_o, ("busy_o low while a unit is busy"))
      end
      if (!error_o && !abort_win && (cmdq_free_o != Q16 || lq_m_n != 0 || sq_m_n != 0)) begin
        `CHECK(busy_o, ("busy_o low with commands queued"))
      end
      if (error_o && !any_busy) begin
        `CHECK(!busy_o, ("busy_o high in the error state with every unit idle"))
      end
      // ---- background retires in this cycle ----
      n_l2c = 0;
      n_s2c = 0;
      pend_err = -1;
      if (rd_done && rd_job_on && rd_job_bg) begin
        if (rd_err) begin
          pend_err = rd_job;
        end else if (!error_o && !abort_win && !soft_reset) begin
          `CHECK(lq_m_n > 0 && lq_m[lq_m_h] == rd_job && lq_m_run, ("bench: LOAD %0d done but not the queue head", rd_job))
          ix_ret_cyc[rd_job] = cyc;
          n_retired = n_retired + 1;
          m_cmds = m_cmds + 64'h1;
          lq_m_h = (lq_m_h + 1) % 8;
          lq_m_n = lq_m_n - 1;
          lq_m_run = 1'b0;
          if (cmd_push_next(prog[rd_job])) begin
            t_l2c = t_l2c + 1;
            n_l2c = 1;
          end
        end
      end
      if (rd_done) begin
        rd_job_on = 1'b0;
      end
      // wr_done is the oldest running STORE's (wr_job if its writer still runs, else st_job);
      // st_param_err the store unit's (st_job). Nothing retires in a cycle with an error.
      li = wr_job_on ? wr_job : st_job;
      if ((wr_done && (wr_job_on || st_job_on)) || (st_param_err && st_job_on)) begin
        if (st_param_err || wr_err) begin
          ri = (wr_done && wr_err) ? li : st_job;
          if (pend_err < 0 || ri < pend_err) begin
            pend_err = ri;
          end
        end else if (!error_o && !abort_win && !soft_reset) begin
          `CHECK(sq_m_n > 0 && sq_m[sq_m_h] == li && sq_m_runs > 0, ("bench: STORE %0d done but not the queue head", li))
          ix_ret_cyc[li] = cyc;
          n_retired = n_retired + 1;
          m_cmds = m_cmds + 64'h1;
          sq_m_h = (sq_m_h + 1) % 8;
          sq_m_n = sq_m_n - 1;
          sq_m_runs = sq_m_runs - 1;
          if (cmd_push_prev(prog[li])) begin
            t_s2c = t_s2c + 1;
            n_s2c = 1;
          end
        end
        if (st_param_err || !wr_job_on) begin
          st_job_on = 1'b0;
        end
        if (wr_done) begin
          wr_job_on = 1'b0;
        end
      end
      h_l2c1 = h_l2c0; h_l2c0 = n_l2c;
      h_s2c1 = h_s2c0; h_s2c0 = n_s2c;
      // ---- pulses ----
      `CHECK(!(irq_done_o && p_irq_done), ("irq_done_o high two cycles in a row"))
      `CHECK(!(irq_error_o && p_irq_err), ("irq_error_o high two cycles in a row"))
      `CHECK(!(irq_fence_o && p_irq_fence), ("irq_fence_o high two cycles in a row"))
      `CHECK(!(irq_clear_o && p_irq_clear), ("irq_clear_o high two cycles in a row"))
      if (irq_done_o) begin
        n_irq_done = n_irq_done + 1;
        `CHECK(!any_busy && cmdq_free_o == Q16 && !error_o && lq_m_n == 0 && sq_m_n == 0,
               ("IRQ done with work left (units busy %b, free %0d, LOADs %0d STOREs %0d queued, error %b)",
                any_busy, cmdq_free_o, lq_m_n, sq_m_n, error_o))
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
        lq_m_n = 0; sq_m_n = 0; lq_m_run = 1'b0; sq_m_runs = 0;
        t_l2c = 0; t_c2l = 0; t_c2s = 0; t_s2c = 0;
        rd_job_on = 1'b0; st_job_on = 1'b0; wr_job_on = 1'b0; pend_err = -1;
        base = base_next;
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
      // A MATMUL's MACs are M*K*N over all its tiles; KEEP_WEIGHTS uses the
      // weights in the array: the last tile's, ((K - 1) mod N) + 1 rows.
      if (mm_start_o && !cmd_matmul_keep_weights(cmd_o)) begin
        m_k = cmd_matmul_k(cmd_o);
        m_n = cmd_matmul_n(cmd_o);
      end
      if (cnt_clear) begin
        m_cycles = 64'h0; m_busy = 64'h0; m_macs = 64'h0; m_rd = 64'h0; m_wr = 64'h0;
        m_macs_pend = 64'h0; m_macs_pend2 = 64'h0;
      end else begin
        m_cycles = m_cycles + 64'h1;
        m_busy = m_busy + (busy_o ? 64'h1 : 64'h0);
        m_macs = m_macs + m_macs_pend2;
        m_macs_pend2 = m_macs_pend;
        m_macs_pend = mm_start_o ? {48'h0, cmd_matmul_m(cmd_o)} * {48'h0, m_k} * {48'h0, m_n} : 64'h0;
        if (mm_start_o && !cmd_matmul_keep_weights(cmd_o)) begin
          m_k = ((m_k - 16'h1) % N16) + 16'h1;
        end
        m_rd = m_rd + (rd_beat ? AxiBytes64 : 64'h0);
        m_wr = m_wr + {{(64-WrBw){1'b0}}, wr_bytes};
      end
      p_irq_done = irq_done_o; p_irq_err = irq_error_o; p_irq_fence = irq_fence_o;
      p_irq_clear = irq_clear_o; p_error = error_o; p_cmd_idx = cmd_idx_o; p_mm_ready = mm_ready;
      p_last_word = cmd_we && cmdq_words_o == 3'd7;
      p_opcode = opcode_o; p_rd_done = rd_done; p_rd_err = rd_err; p_mm_idle = mm_idle;
      p_sfu_busy = sfu_busy; p_sreset = soft_reset; p_cnt_clear = cnt_clear; p_base = cur_base;
      p_pend_err = pend_err;
    end
  end

  // -------------------------------------------------------------------------------------
  // Scenarios
  // -------------------------------------------------------------------------------------
  localparam integer NumScen = 82;

  task setup(input integer s);
    integer i;
    begin
      nprog = 0; nsteps = 0; pushed = 0; wi = 0; base = 0; base_next = 0;
      exp_err = 0; exp_err_idx = 0; exp_err_addr = 32'h0; exp_unit_err = 0;
      exp_imprecise = 0; exp_cmd_idx = -1;
      for (i = 0; i < MaxProg; i = i + 1) begin
        ix_starts[i] = 0; ix_start_cyc[i] = -1; ix_ret_cyc[i] = -1; ix_enq[i] = 0;
      end
      ov_rd_mm = 0; ov_st_mm = 0; ov_rd_st = 0; err_cyc = -1; err_mm_busy = 0; dec_beside_rd = 0;
      k_sfu_lat = 6;
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
          add(ld(4'h0));                       // token-free: the front end waits for it
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
          // K = N+1 is two tiles of M A rows each: A_ADDR + 2M must fit.
          sc_name = "MATMUL K = N+1 ok (A_ADDR + 2M = SPAD_ROWS), one A row more: ERR_SPAD_RANGE";
          add(mm(4'h0, 16'd1, N16 + 16'd1, 16'd1));
          add(c_mm(4'h0, 1'b0, 1'b1, 24'd0, 24'd0, 24'd0, 16'd3, 16'd0, 16'd0));   // keeps the last tile: K 1
          add(c_mm(4'h0, 1'b0, 1'b0, Spad24 - 24'd12, 24'd0, 24'd0, 16'd6, N16 + 16'd1, 16'd8));
          bad(c_mm(4'h0, 1'b0, 1'b0, Spad24 - 24'd11, 24'd0, 24'd0, 16'd6, N16 + 16'd1, 16'd8), ESpad);
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
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd0, 16'd0, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EDim);
        end
        16: begin
          sc_name = "STORE COLS = 0: ERR_DIM";
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd0, 16'd1, 16'd0, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EDim);
        end
        17: begin
          sc_name = "STORE COLS = ARRAY_DIM ok, N+1: ERR_DIM";
          add(c_store(4'h0, 3'b000, 32'h0, 32'd0, 16'd1, N16, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0));
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd0, 16'd1, N16 + 16'd1, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EDim);
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
          add(c_store(4'h0, 3'b000, 32'h0, 32'd32, 16'd3, 16'd8, Acc24 - 24'd3, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0));
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd32, 16'd4, 16'd8, Acc24 - 24'd3, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EAcc);
        end
        27: begin
          sc_name = "STORE PARAM + 3 > ACC_ROWS without BIAS/REQUANT: ERR_ACC_RANGE (docs; RTL bug B2)";
          add(c_store(4'h0, 3'b000, 32'h0, 32'd32, 16'd1, 16'd8, 24'd0, Acc24 - 24'd3, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0));
          bad(c_store(4'h0, 3'b000, 32'h0, 32'd32, 16'd1, 16'd8, 24'd0, Acc24 - 24'd2, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EAcc);
        end
        28: begin
          sc_name = "STORE BIAS with PARAM + 3 > ACC_ROWS: ERR_ACC_RANGE (docs; RTL bug B2)";
          add(c_store(4'h0, FBias, 32'h0, 32'd32, 16'd1, 16'd8, 24'd0, Acc24 - 24'd3, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0));
          bad(c_store(4'h0, FBias, 32'h0, 32'd32, 16'd1, 16'd8, 24'd0, Acc24 - 24'd2, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EAcc);
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
          add(c_store(4'h0, 3'b000, 32'hffffffe0, 32'd0, 16'd1, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0));
          bad(c_store(4'h0, 3'b000, 32'hffffffe1, 32'd0, 16'd1, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EDram);
        end
        34: begin
          sc_name = "STORE int8 rows (COLS bytes) ending at 2^32 ok, one byte past: ERR_DRAM_RANGE";
          add(c_store(4'h0, FRq, 32'hfffffff0, 32'd8, 16'd2, 16'd8, 24'd0, 24'd0, 32'h1,  8'h0, 8'h0, 8'h80, 8'h7f));
          bad(c_store(4'h0, FRq, 32'hfffffff1, 32'd8, 16'd2, 16'd8, 24'd0, 24'd0, 32'h1,  8'h0, 8'h0, 8'h80, 8'h7f), EDram);
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
                       8'h0, 8'h0, 8'h80, 8'h7f), EParam);
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
          bad(c_store(4'h0, 3'b000, 32'he1000100, 32'd32, 16'd2, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EBusWr);
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
          add(c_store(PopPrev, FRq, 32'h0, 32'd1, 16'd1, 16'd1, 24'd0, 24'd0, 32'h1,  8'h0, 8'h0, 8'h80, 8'h7f));
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
            add(c_store(PushPrev, FRq, 32'h0, 32'd1, 16'd1, 16'd1, 24'd0, 24'd0, 32'h1,  8'h0, 8'h0, 8'h80, 8'h7f));
          end
          bad(c_store(PushPrev, FRq, 32'h0, 32'd1, 16'd1, 16'd1, 24'd0, 24'd0, 32'h1,  8'h0, 8'h0, 8'h80, 8'h7f), EDep);
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
          add(c_store(4'h0, 3'b000, 32'h3000, 32'd32, 16'd20, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0));
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
          add(c_store(4'h0, 3'b000, 32'h1000, 32'd32, 16'd2, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0));
          add(c_store(4'h0, 3'b000, 32'hffffffe0, 32'd0, 16'd1, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0));
          bad(c_store(4'h0, 3'b000, 32'h0fff, 32'd32, 16'd1, 16'd8, 24'd0, 24'd0, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EWin);
          exp_err_addr = 32'h0fff;
          add(st(4'h0));
        end
        // ---------------- overlap (the stages run concurrently) ----------------
        69, 70: begin
          sc_name = (s == 69) ? "double-buffered pipeline: LOAD under MATMUL, STORE beside the MATMUL of the other bank"
                              : "the same pipeline in one bank: the MATMUL waits for the STORE reading its bank";
          k_rd_lat = 10;
          i = (s == 69) ? 64 : 16;                          // C of the second MATMUL
          add(ldx(PushNext, 32'h1000, 24'd0));
          add(ldx(PushNext, 32'h2000, 24'd64));
          add(mmc(PopPrev | PushNext | PushPrev, 24'd0, 24'd0));
          add(ldx(PopNext | PushNext, 32'h3000, 24'd0));
          add(stx(PopPrev | PushPrev, 24'd0, 24'd8, 16'd8));
          add(mmc(PopPrev | PushNext | PushPrev, 24'd64, i[23:0]));
          add(stx(PopPrev | PushPrev, i[23:0], i[23:0] + 24'd8, 16'd8));
          add(mmc(PopPrev | PopNext | PushNext, 24'd0, 24'd0));   // overwrites STORE 4's rows: pops its token
          add(stx(PopPrev | PushPrev, 24'd0, 24'd8, 16'd8));
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, (s == 69) ? 50 : 51);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        71, 72, 73: begin
          sc_name = (s == 71) ? "a STORE whose token comes early waits for the MATMUL draining into its bank" :
                    (s == 72) ? "the same STORE runs during the drain of a MATMUL in the other bank" :
                                "a SPAD STORE waits for the array to be idle, whatever the banks";
          k_mm_drain = 40;
          add(ldx(PushNext, 32'h1000, 24'd0));
          add(mmc(PopPrev, 24'd0, (s == 71) ? 24'd0 : 24'd64));  // no PUSH_NEXT: retires at mm_ready
          add(c_op(OpNop, PushNext, 16'h0));                       // token to the store stage at once
          if (s == 73) begin
            add(cmd_store_spad_put(c_store(PopPrev, 3'b000, 32'h3000, 32'd8, 16'd4, 16'd8, 24'd0, 24'd0,
                                           32'h0, 8'h0, 8'h0, 8'h0, 8'h0),
                                   1'b1));                         // SPAD: scratchpad rows 0..3
          end else begin
            add(stx(PopPrev, 24'd0, 24'd8, 16'd4));
          end
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, (s == 72) ? 53 : 52);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        // ---------------- errors with overlap ----------------
        74: begin
          sc_name = "a decode error behind a running background LOAD is raised after the LOAD retires";
          k_rd_lat = 60;
          add(ldx(PushNext, 32'h1000, 24'd0));
          bad(c_mm(PopPrev, 1'b0, 1'b0, 24'd0, 24'd8, 24'd0, 16'd0, 16'd8, 16'd8), EDim);
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 54);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        75: begin
          sc_name = "a background LOAD's bus error wins over the decode error waiting behind it";
          k_rd_lat = 40;
          bad(c_load(PushNext, 1'b0, 32'he0000100, 32'd16, 16'd4, 16'd8, 24'd0), EBusRd);
          exp_unit_err = 1; exp_err_addr = 32'he0000140; exp_cmd_idx = 1;
          add(c_mm(PopPrev, 1'b0, 1'b0, 24'd0, 24'd8, 24'd0, 16'd0, 16'd8, 16'd8));   // ERR_DIM, later
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 61);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        76: begin
          sc_name = "a background LOAD's bus error while the front end runs a MATMUL (imprecise)";
          k_rd_lat = 30; k_mm_drain = 60;
          add(ldx(PushNext, 32'h1000, 24'd0));
          bad(c_load(PushNext, 1'b0, 32'he0002000, 32'd16, 16'd8, 16'd8, 24'd64), EBusRd);
          exp_unit_err = 1; exp_err_addr = 32'he0002040; exp_imprecise = 1; exp_cmd_idx = 2;
          add(mmc(PopPrev | PushNext, 24'd0, 24'd0));   // in StExec until written back
          add(mmc(PopPrev, 24'd64, 24'd64));            // waits for the failing LOAD's token
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 55);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        77: begin
          sc_name = "a background STORE's bus error while a later LOAD retired and a MATMUL runs (imprecise)";
          k_wr_tail = 20; k_mm_drain = 60;
          add(mmc(PushNext, 24'd0, 24'd0));
          bad(c_store(PopPrev, 3'b000, 32'he1000100, 32'd32, 16'd8, 16'd8, 24'd0, 24'd8, 32'h0, 8'h0, 8'h0, 8'h0, 8'h0), EBusWr);
          exp_unit_err = 1; exp_err_addr = 32'he1000180; exp_imprecise = 1; exp_cmd_idx = 3;
          add(ldx(PushNext, 32'h1000, 24'd0));
          add(mmc(PopPrev | PushNext, 24'd0, 24'd64));   // the other bank: runs beside the STORE
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 56);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        // ---------------- token-free programs, SFU, soft reset of the queues ----------------
        78: begin
          sc_name = "token-free program: every command waits for the earlier ones (serial engine)";
          add(ld(4'h0));
          add(mm(4'h0, 16'd4, 16'd8, 16'd8));
          add(stx(4'h0, 24'd64, 24'd72, 16'd2));   // the other bank: still waits for the drain
          add(ldx(4'h0, 32'h1800, 24'd64));
          add(c_mm(4'h0, 1'b0, 1'b0, 24'd64, 24'd8, 24'd64, 16'd4, 16'd8, 16'd8));
          add(stx(4'h0, 24'd64, 24'd72, 16'd4));
          add(lda(4'h0));
          add(mm(4'h0, 16'd2, 16'd8, 16'd8));
          add(c_op(OpFence, 4'h0, 16'h1));
          add(c_op(OpNop, 4'h0, 16'h0));
          add(st(4'h0));
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 57);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        79: begin
          sc_name = "SFU waits for the STORE to retire and the array to drain; nothing starts while it runs";
          k_mm_drain = 30; k_wr_tail = 10;
          add(c_op(OpNop, PushNext, 16'h0));
          add(stx(PopPrev | PushPrev, 24'd0, 24'd8, 16'd8));
          add(mmc(4'h0, 24'd0, 24'd64));       // no token bit, but tokens pending: not serial
          add(c_sfu(4'h0, 24'd0));
          add(c_op(OpNop, PopNext, 16'h0));
          add(ld(4'h0));
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 58);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        80: begin
          sc_name = "soft reset empties the load and store queues: queued commands never start";
          k_mm_drain = 100; k_rd_lat = 200;
          add(mmc(4'h0, 24'd0, 24'd0));           // 0: drains 100 cycles into bank 0
          add(c_op(OpNop, PushNext, 16'h0));      // 1
          add(stx(PopPrev, 24'd0, 24'd8, 16'd4)); // 2: held back by the bank
          add(stx(PushPrev, 24'd16, 24'd8, 16'd4)); // 3: queued behind it
          add(ldx(PushNext, 32'h1000, 24'd0));    // 4: runs 200 cycles
          add(ldx(PushNext, 32'h1100, 24'd8));    // 5: queued (the load queue is full)
          add(ldx(PushNext, 32'h1200, 24'd16));   // 6: waits in decode for a free entry
          add(st(4'h0));                          // after the reset: command 0
          step(SPush, 7); step(SWaitStarts, 2); step(SWaitCyc, 8); step(SCheck, 59);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
          step(SKnob, KRdLat * 65536 + 2); step(SKnob, KMmDrain * 65536 + 12);
          step(SPush, 8); step(SWaitEnd, 0); step(SCheck, 41); step(SCheck, 60);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
        end
        81: begin
          sc_name = "an accumulator LOAD waits for the LOAD queued before it (one read engine); a FENCE for the STORE";
          k_rd_lat = 40; k_wr_tail = 30;
          add(ldx(PushNext, 32'h1000, 24'd0));     // background, 40 cycles
          add(lda(4'h0));                          // no token bit, tokens pending: not serial
          add(mmc(PopPrev, 24'd0, 24'd64));
          add(stx(PushPrev, 24'd64, 24'd72, 16'd8)); // background, no token to wait for
          add(c_op(OpFence, 4'h0, 16'h1));         // waits for the STORE
          add(c_op(OpNop, PopNext, 16'h0));
          step(SPush, nprog); step(SWaitEnd, 0); step(SGeneric, 0); step(SCheck, 62);
          step(SSreset, 0); step(SWaitAbort, 0); step(SClean, 0);
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
    integer e, i, fences, want;
    reg [63:0] e64;
    begin
      e = (exp_err != 0) ? exp_err_idx : pushed;
      fences = 0;
      for (i = 0; i < pushed; i = i + 1) begin
        want = (unit_of(prog[i]) != 0) ? 1 : 0;
        if (i < e) begin
          if (exp_imprecise == 0) begin
            `CHECK(ix_ret_cyc[i] >= 0 && ix_starts[i] == want,
                   ("command %0d: %0d unit starts (expected %0d), retired %0d (expected 1)", i, ix_starts[i],
                    want, ix_ret_cyc[i] >= 0))
          end
          if (cmd_opcode(prog[i]) == OpFence && cmd_fence_irq(prog[i])) begin
            fences = fences + 1;
          end
        end else if (i == e) begin
          `CHECK(ix_ret_cyc[i] < 0 && ix_starts[i] == exp_unit_err,
                 ("failing command %0d: %0d unit starts (expected %0d), retired %0d (expected 0)", i,
                  ix_starts[i], exp_unit_err, ix_ret_cyc[i] >= 0))
        end else if (exp_imprecise == 0) begin
          `CHECK(ix_ret_cyc[i] < 0 && ix_starts[i] == 0,
                 ("command %0d after the failing one: %0d unit starts, retired %0d", i, ix_starts[i],
                  ix_ret_cyc[i] >= 0))
        end
      end
      if (exp_imprecise == 0) begin
        `CHECK(n_retired == e, ("%0d commands retired, expected %0d", n_retired, e))
        `CHECK(n_irq_fence == fences, ("%0d FENCE interrupts, expected %0d", n_irq_fence, fences))
      end
      e64 = {32'h0, n_retired[31:0]};
      if (sc_cleared == 0) begin
        `CHECK(cnt_cmds_o - cmds_at_start == e64, ("CNT_CMDS grew by %0d, %0d commands retired",
                                                   cnt_cmds_o - cmds_at_start, n_retired))
      end
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
        `CHECK(lq_m_n == 0 && sq_m_n == 0, ("%0d LOADs and %0d STOREs left in the stage queues", lq_m_n, sq_m_n))
      end
      i = (exp_cmd_idx >= 0) ? exp_cmd_idx : e - base;
      `CHECK(cmd_idx_o == i, ("CMD_IDX %0d, expected %0d", cmd_idx_o, i))
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
    integer a, i;
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
          `CHECK(cmdq_free_o == Q16 - 16'd1 && cmdq_words_o == 3'd0 && cmd_idx_o == 32'd0 && busy_o,
                 ("one command queued behind a token-free LOAD: FREE %0d WORDS %0d CMD_IDX %0d busy %b, expected %0d 0 0 1",
                  cmdq_free_o, cmdq_words_o, cmd_idx_o, busy_o, QDepth - 1))
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
        50: begin
          `CHECK(ov_rd_mm > 0 && ov_st_mm > 0 && ix_start_cyc[5] < ix_ret_cyc[4] &&
                 ix_start_cyc[3] < ix_ret_cyc[5],
                 ("no overlap: %0d cycles LOAD beside MATMUL, %0d STORE beside MATMUL; MATMUL 5 started %0d, STORE 4 retired %0d; LOAD 3 started %0d, MATMUL 5 retired %0d",
                  ov_rd_mm, ov_st_mm, ix_start_cyc[5], ix_ret_cyc[4], ix_start_cyc[3], ix_ret_cyc[5]))
        end
        51: begin
          `CHECK(ov_rd_mm > 0 && ov_st_mm == 0 && ix_start_cyc[5] > ix_start_cyc[4] + k_st_param + 32,
                 ("one bank: %0d cycles LOAD beside MATMUL (expected > 0), %0d STORE beside MATMUL (expected 0); MATMUL 5 started %0d, STORE 4 at %0d",
                  ov_rd_mm, ov_st_mm, ix_start_cyc[5], ix_start_cyc[4]))
        end
        52: begin
          a = find_log(3);
          `CHECK(a >= 0 && log_idle[a] == 1 && log_age[a] >= k_mm_drain,
                 ("the STORE should wait for the MATMUL's drain (started with mm_idle %0d, %0d cycles after ready)",
                  a >= 0 ? log_idle[a] : -1, a >= 0 ? log_age[a] : -1))
        end
        53: begin
          a = find_log(3);
          `CHECK(a >= 0 && log_idle[a] == 0 && ov_st_mm > 0,
                 ("the STORE should run during the drain of the other bank (started with mm_idle %0d, %0d cycles beside)",
                  a >= 0 ? log_idle[a] : -1, ov_st_mm))
        end
        54: begin
          `CHECK(dec_beside_rd == 1 && ix_ret_cyc[0] >= 0 && err_cyc > ix_ret_cyc[0],
                 ("decode error behind a LOAD: decoded while it ran %0d, LOAD retired %0d, error raised %0d",
                  dec_beside_rd, ix_ret_cyc[0], err_cyc))
        end
        55: begin
          `CHECK(ix_ret_cyc[0] >= 0 && ix_starts[2] == 1 && ix_ret_cyc[2] < 0 && err_mm_busy == 1 &&
                 ix_starts[3] == 0 && n_retired == 1,
                 ("LOAD error beside a MATMUL: LOAD 0 retired %0d, MATMUL 2 starts %0d retired %0d, MATMUL in flight at the error %0d, MATMUL 3 starts %0d, %0d retired",
                  ix_ret_cyc[0], ix_starts[2], ix_ret_cyc[2], err_mm_busy, ix_starts[3], n_retired))
        end
        56: begin
          `CHECK(ix_ret_cyc[0] >= 0 && ix_ret_cyc[2] >= 0 && ix_ret_cyc[2] < err_cyc && ix_starts[3] == 1 &&
                 ix_ret_cyc[3] < 0 && err_mm_busy == 1 && n_retired == 2 && ov_st_mm > 0,
                 ("STORE error: MATMUL 0 retired %0d, LOAD 2 retired %0d (error at %0d), MATMUL 3 starts %0d retired %0d, in flight %0d, %0d retired, %0d cycles STORE beside MATMUL",
                  ix_ret_cyc[0], ix_ret_cyc[2], err_cyc, ix_starts[3], ix_ret_cyc[3], err_mm_busy, n_retired, ov_st_mm))
        end
        57: begin
          a = 1;
          for (i = 1; i < nprog; i = i + 1) begin
            if (ix_ret_cyc[i - 1] < 0 ||
                (unit_of(prog[i]) != 0 ? ix_start_cyc[i] : ix_ret_cyc[i]) <= ix_ret_cyc[i - 1]) begin
              a = 0;
            end
          end
          `CHECK(a == 1 && ov_st_mm == 0 && ov_rd_st == 0,
                 ("token-free program not serial: in order %0d, %0d cycles STORE beside MATMUL, %0d LOAD beside STORE",
                  a, ov_st_mm, ov_rd_st))
        end
        58: begin
          a = find_log(3);
          `CHECK(a >= 0 && log_unit[a] == 4 && log_idle[a] == 1 && ix_start_cyc[3] > ix_ret_cyc[1] &&
                 ix_start_cyc[2] < ix_ret_cyc[1] && ov_st_mm > 0,
                 ("SFU started %0d (mm_idle %0d) after STORE 1 retired %0d; MATMUL 2 started %0d beside it (%0d cycles)",
                  ix_start_cyc[3], a >= 0 ? log_idle[a] : -1, ix_ret_cyc[1], ix_start_cyc[2], ov_st_mm))
        end
        59: begin
          `CHECK(cmd_idx_o == 32'd6 && nlog == 2 && busy_o && !error_o && ix_starts[0] == 1 && ix_starts[4] == 1,
                 ("before the reset: CMD_IDX %0d (expected 6: LOAD 6 waits for the full load queue), %0d starts (expected 2: MATMUL 0, LOAD 4), busy %b error %b",
                  cmd_idx_o, nlog, busy_o, error_o))
        end
        60: begin
          `CHECK(ix_starts[2] == 0 && ix_starts[3] == 0 && ix_starts[5] == 0 && ix_starts[6] == 0 &&
                 ix_ret_cyc[4] < 0,
                 ("queued commands ran after the soft reset: STOREs %0d %0d, LOADs %0d %0d starts; LOAD 4 retired %0d",
                  ix_starts[2], ix_starts[3], ix_starts[5], ix_starts[6], ix_ret_cyc[4]))
        end
        61: begin
          `CHECK(dec_beside_rd == 1, ("the MATMUL was not decoded while the failing LOAD ran"))
        end
        62: begin
          `CHECK(ix_ret_cyc[0] >= 0 && ix_start_cyc[1] > ix_ret_cyc[0] && ix_ret_cyc[3] >= 0 &&
                 ix_ret_cyc[4] > ix_ret_cyc[3],
                 ("accumulator LOAD started %0d, scratchpad LOAD retired %0d; FENCE retired %0d, STORE %0d",
                  ix_start_cyc[1], ix_ret_cyc[0], ix_ret_cyc[4], ix_ret_cyc[3]))
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
    k_st_param = 2; k_sfu_lat = 6;
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
                  ((error_o && !rd_busy && !wr_busy && !st_busy && mm_idle && !sfu_busy) ||
                   (done_o && !busy_o))) begin
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
              base_next = pushed;
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
                KSfuLat:  k_sfu_lat = knob;
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
    if (only < 0) begin
      `CHECK(ov_st_wr > 0, ("no STORE ever started while the one before waited for its writer"))
    end
    if (n_fail != 0) begin
      $display("FAIL tsr_ctrl_tb: %0d of %0d checks failed", n_fail, n_checks);
      $fatal(1);
    end
    $display("PASS tsr_ctrl_tb: %0d scenarios, %0d checks, %0d cycles (%0d with a STORE in the store unit beside the one before in its writer)",
             only < 0 ? NumScen : 1, n_checks, cyc, ov_st_wr);
    $finish;
  end
endmodule

`default_nettype wire
