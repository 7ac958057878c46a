// tsr_ctrl: command processor: command queue, validation, dependency tokens, dispatch, errors, counters.
`default_nettype none

// Commands (docs/commands.md) arrive as 8 words through CMDQ_PUSH and wait in
// a queue held in block RAM. A front end takes them one at a time, in program
// order: StIdle -> StFetch (queue read) -> StCheck (every check of the
// command's own fields: dimensions, ranges, parameters; registered for
// timing) -> StDecode (NO_WEIGHTS and the token rule) and then
//   - a scratchpad LOAD goes to the load stage's queue and a STORE to the
//     store stage's queue (two and four entries); the front end moves on at once;
//   - a compute-stage command (MATMUL, accumulator LOAD, SFU, NOP) and a FENCE
//     run in the front end itself: StExec starts the unit and waits for it.
// The load and store stages run their queue heads in the background, each one
// command at a time, while the front end computes: that is the overlap of
// DMA and compute. Only dependency tokens order the stages (VTA's rule), so
// the real token counters are popped when a command starts and pushed when it
// retires, and a command whose pop finds a zero counter waits. The token rule
// (serial program order never pops an empty counter) is checked at decode on
// a second set of counters kept in program order.
// A command with no token bit, issued while every program-order counter is
// zero, starts only after every earlier command has retired, so a program
// without tokens runs exactly as on a serial engine.
// Resources the stages share are interlocked here:
//   - the DMA read engine: an accumulator LOAD waits for the load queue to empty;
//   - the accumulator's two banks (lower and upper half): a STORE and a
//     MATMUL run together only if they touch different banks (the MATMUL's
//     result rows; the STORE's source and parameter rows);
//   - the scratchpad read port: a STORE with SPAD runs with the array idle;
//   - the SFU runs alone (it writes both memories and the table).
// A MATMUL retires once its last A row has entered the array, or, when it
// pushes a token to the store stage, once its results are written back.
//
// Errors stop the engine in StError with ERR_CODE, ERR_CMD_IDX and ERR_ADDR
// set and IRQ_STATUS.ERROR raised. A decode error is precise: it is raised
// once every earlier LOAD and STORE has retired (an error of theirs, being
// earlier, wins). A bus or parameter error of a background LOAD or STORE may
// be raised after later commands of other stages started or retired.
// Units are never left mid-burst: checks happen before a unit starts, and the
// DMA engines drain their own bursts before they report a bus error.
// CTRL.SOFT_RESET, from any state, goes through StAbort: the DMA engines
// finish the bursts in flight, the other units are held clear, then queues,
// tokens and error state are reset.
module tsr_ctrl #(
  parameter integer ArrayDim     = 8,
  parameter integer SpadRows     = 4096,
  parameter integer AccRows      = 1024,
  parameter integer AxiDataWidth = 64,
  parameter integer CmdQDepth    = 16,
  parameter integer EnableSfu    = 1,     // 0: no SFU; its commands stop with ErrNoUnit
  localparam integer N = ArrayDim,
  localparam integer QAw = $clog2(CmdQDepth),
  localparam integer AxiBytes = AxiDataWidth / 8,
  localparam integer WrBytesWidth = $clog2(AxiBytes + 1)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // register interface
  input  wire        cmd_we_i,
  input  wire [31:0] cmd_word_i,
  // command ring fetcher (tsr_cmd_fetch): whole commands into the same queue
  input  wire        ring_push_i,      // a whole command; taken when ring_ready_o
  output wire        ring_ready_o,
  input  wire [255:0] ring_cmd_i,
  input  wire [31:0] ring_addr_i,      // its byte address (ERR_ADDR of its decode errors)
  input  wire [15:0] ring_rsv_i,       // queue slots reserved for commands in flight
  input  wire        ring_busy_i,      // the ring has commands to fetch, in flight or an error
  input  wire        ring_idle_i,      // no fetch burst in flight
  input  wire        ring_err_i,       // a fetch error waits to be reported
  input  wire [7:0]  ring_err_code_i,
  input  wire [31:0] ring_err_addr_i,
  output wire        halt_o,           // the engine is stopped or aborting: fetch nothing new
  input  wire        soft_reset_i,
  input  wire        cnt_clear_i,
  input  wire [31:0] win_base_i,     // DMA window: lowest allowed external byte address
  input  wire [31:0] win_limit_i,    // DMA window: highest allowed external byte address
  output wire        busy_o,
  output wire        done_o,
  output wire        error_o,
  output wire [7:0]  err_code_o,
  output wire [31:0] err_cmd_idx_o,
  output wire [31:0] err_addr_o,
  output wire [31:0] cmd_idx_o,
  output wire [7:0]  opcode_o,
  output wire [15:0] cmdq_free_o,
  output wire [2:0]  cmdq_words_o,
  output wire        irq_done_o,       // one-cycle set pulses for IRQ_STATUS
  output wire        irq_error_o,
  output wire        irq_fence_o,
  output wire        irq_cmd_o,        // a command with IRQ_CMD retired
  output wire        irq_clear_o,      // soft reset clears IRQ_STATUS
  output wire [63:0] cnt_cycles_o,
  output wire [63:0] cnt_busy_o,
  output wire [63:0] cnt_macs_o,
  output wire [63:0] cnt_dma_rd_o,
  output wire [63:0] cnt_dma_wr_o,
  output wire [63:0] cnt_cmds_o,
  // the commands whose fields the units read: the front end's (MATMUL, SFU),
  // the one starting the DMA read engine, and the store queue's head
  output wire [255:0] cmd_o,
  output wire [255:0] cmd_rd_o,
  output wire [255:0] cmd_st_o,
  output wire        unit_clr_o,
  // DMA read engine (LOAD)
  output wire        rd_start_o,
  output wire        rd_abort_o,
  input  wire        rd_busy_i,
  input  wire        rd_done_i,
  input  wire        rd_err_i,
  input  wire [31:0] rd_err_addr_i,
  input  wire        rd_beat_i,
  // DMA write engine (STORE)
  output wire        wr_abort_o,
  input  wire        wr_busy_i,
  input  wire        wr_done_i,
  input  wire        wr_err_i,
  input  wire [31:0] wr_err_addr_i,
  input  wire [WrBytesWidth-1:0] wr_bytes_i,
  // matmul unit
  output wire        mm_start_o,
  output wire        mm_pre_o,         // preload the weights of cmd_pre_o, the next MATMUL
  output wire        mm_sep_o,         // cmd_o's weight and A rows lie in different scratchpad banks
  input  wire        mm_pre_ready_i,
  output wire [255:0] cmd_pre_o,
  input  wire        mm_ready_i,
  input  wire        mm_idle_i,
  // store unit
  output wire        st_start_o,
  input  wire        st_busy_i,
  input  wire        st_param_err_i,
  // special-function unit (SFU)
  output wire        sfu_start_o,
  input  wire        sfu_busy_i,
  input  wire        sfu_param_err_i
);
  // Opcodes (Op*), SFU functions (Fn*), error codes (Err*) and the command's
  // fields (cmd_*() functions): generated from rtl/regs/tessera_cmds.toml
  // (docs/commands.md, docs/sfu.md).
`include "rtl/regs/tsr_cmd_fields.vh"
  // Rows of the table (256 / N) and of the 3-, 8-, 11- and 7-word parameter blocks.
  localparam [31:0] LutRows32 = 256 / N;
  localparam [31:0] PRows3_32 = (3 + N - 1) / N;
  localparam [31:0] PRows8_32 = (8 + N - 1) / N;
  localparam [31:0] PRows11_32 = (11 + N - 1) / N;
  localparam [31:0] PRows7_32 = (7 + N - 1) / N;

  localparam [2:0] StIdle = 3'd0, StFetch = 3'd1, StDecode = 3'd2, StExec = 3'd3,
                   StError = 3'd4, StAbort = 3'd5, StCheck = 3'd6;

  localparam [31:0] SpadRows32  = SpadRows;
  localparam [31:0] AccRows32   = AccRows;
  localparam [31:0] N32         = N;
  localparam [31:0] AccChunk32  = 4 * N;
  localparam [31:0] AxiBytes32  = AxiBytes;
  wire       [32:0] spad_cap  = {1'b0, SpadRows32};
  wire       [32:0] acc_cap   = {1'b0, AccRows32};
  localparam [48:0] DramCap  = 49'h1_0000_0000;
  localparam [15:0] DimMax   = N32[15:0];
  localparam integer SpadChunkLog2 = $clog2(N);
  localparam integer AccChunkLog2  = $clog2(4 * N);
  localparam [63:0] AxiBytes64 = {32'h0, AxiBytes32[31:0]};

  // ---------------------------------------------------------------- queue
  reg [2:0]    words_q, words_d;            // words of the command being written
  reg [223:0]  stage_q, stage_d;            // words 0..6
  reg [QAw:0]  count_q, count_d;
  reg [QAw-1:0] wr_ptr_q, wr_ptr_d, rd_ptr_q, rd_ptr_d;
  reg [31:0]   push_idx_q, push_idx_d;      // index the next pushed command gets
  reg          ovf_q, ovf_d;                // an overflow waits to be reported
  reg [31:0]   ovf_idx_q, ovf_idx_d;
  // Slots the ring fetcher reserved count as used for the register path.
  wire [16:0]  q_used  = {{(16-QAw){1'b0}}, count_q} + {1'b0, ring_rsv_i};
  wire         q_full  = (q_used >= {1'b0, CmdQDepth[15:0]});
  wire         push    = cmd_we_i && (words_q == 3'd7) && !q_full;
  // A ring command enters when the register path does not push in the same cycle.
  wire         ring_ready = !(cmd_we_i && words_q == 3'd7) && (count_q != CmdQDepth[QAw:0]);
  wire         ring_push  = ring_push_i && ring_ready;
  reg          q_re;                        // fetch: read the head and pop it
  reg          q_peek;                      // read a queued command without popping it
  reg  [1:0]   peek_off_q;                  // ... this many entries behind the head
  wire [QAw+1:0] peek_ptr = {2'b00, rd_ptr_q} + {{QAw{1'b0}}, peek_off_q};
  // An entry is {source address, command}: the ring address of a fetched
  // command, 0 for one pushed through CMDQ_PUSH.
  wire [287:0] q_rdata_w;
  wire [255:0] q_rdata = q_rdata_w[255:0];
  wire [31:0]  q_rsrc  = q_rdata_w[287:256];

  tsr_sram #(
    .Width (288),
    .Depth (CmdQDepth)
  ) u_queue (
    .clk_i   (clk_i),
    .we_i    (push || ring_push),
    .waddr_i (wr_ptr_q),
    .wdata_i (ring_push ? {ring_addr_i, ring_cmd_i} : {32'h0, cmd_word_i, stage_q}),
    .re_i    (q_re || q_peek),
    .raddr_i (q_re ? rd_ptr_q : peek_ptr[QAw-1:0]),
    .rdata_o (q_rdata_w)
  );

  // ---------------------------------------------------------------- decode
  reg  [255:0] cmd_q, cmd_d;
  reg  [31:0]  cmd_src_q, cmd_src_d;        // cmd_q's ring address (0: pushed by register)
  wire [7:0]   opcode    = cmd_q[CmdOpcodeLsb +: CmdOpcodeWidth];
  wire         pop_prev  = cmd_q[CmdPopPrevLsb +: CmdPopPrevWidth];
  wire         pop_next  = cmd_q[CmdPopNextLsb +: CmdPopNextWidth];
  wire         push_prev = cmd_q[CmdPushPrevLsb +: CmdPushPrevWidth];
  wire         push_next = cmd_q[CmdPushNextLsb +: CmdPushNextWidth];
  // Word-0 flags; each is read only under its opcode.
  wire         ld_to_acc = cmd_q[CmdLoadDestLsb +: CmdLoadDestWidth];
  wire         mm_keep   = cmd_q[CmdMatmulKeepWeightsLsb +: CmdMatmulKeepWeightsWidth];
  wire         st_bias   = cmd_q[CmdStoreBiasLsb +: CmdStoreBiasWidth];
  wire         st_requant = cmd_q[CmdStoreRequantLsb +: CmdStoreRequantWidth];
  wire         st_per_ch = cmd_q[CmdStorePerChannelLsb +: CmdStorePerChannelWidth];
  wire         st_spad   = cmd_q[CmdStoreSpadLsb +: CmdStoreSpadWidth];
  wire         st_lut    = cmd_q[CmdStoreLutLsb +: CmdStoreLutWidth];
  wire         st_leaky  = cmd_q[CmdStoreLeakyLsb +: CmdStoreLeakyWidth];
  wire         fence_irq = cmd_q[CmdFenceIrqLsb +: CmdFenceIrqWidth];
  wire [3:0]   func      = cmd_q[CmdSfuFuncLsb +: CmdSfuFuncWidth];

  // Dependency tokens: load->compute, compute->load, compute->store, store->compute.
  // The *_q counters are the real ones (popped at start, pushed at retire; one
  // bit wider, because a stage queue may hold pops the program order already
  // made); the *_v counters follow program order, for the token rule.
  reg [8:0] l2c_q, l2c_d, c2l_q, c2l_d, c2s_q, c2s_d, s2c_q, s2c_d;
  reg [7:0] l2c_v_q, l2c_v_d, c2l_v_q, c2l_v_d, c2s_v_q, c2s_v_d, s2c_v_q, s2c_v_d;
  reg       weights_valid_q, weights_valid_d;

  localparam [1:0] StageLoad = 2'd0, StageCompute = 2'd1, StageStore = 2'd2, StageNone = 2'd3;
  reg [1:0] stage;
  always @(*) begin
    case (opcode)
      OpLoad:   stage = ld_to_acc ? StageCompute : StageLoad;
      OpMatmul: stage = StageCompute;
      OpNop:    stage = StageCompute;
      OpSfu:    stage = StageCompute;
      OpStore:  stage = StageStore;
      default:  stage = StageNone;
    endcase
  end

  // Checks run in three steps, for timing: the products they need are taken
  // from the queue's output as a command is fetched (StFetch), every check
  // but the token rule and NO_WEIGHTS is decided from them and cmd_q in
  // StCheck (static_err_q), and StDecode adds those two. A MATMUL read ahead
  // skips StFetch and StCheck: its checks need no product, and are decided
  // from peek_q as it is taken (see static_err_q).
  //   dram:  (ROWS-1) * STRIDE         (LOAD, STORE)
  //   local: ceil(COLS / chunk) * ROWS (LOAD)
  //   sfu:   ceil(LEN / N) * ROWS      (SFU)
  // ROWS, COLS (LEN) and STRIDE sit in the same place in LOAD, STORE and SFU
  // (docs/commands.md), so one function reads them for all three.
  /* verilator lint_off UNUSEDSIGNAL */  // each function reads a few fields of a command
  function automatic [47:0] dram_prod(input [255:0] c);
    dram_prod = {32'h0, c[CmdLoadRowsLsb +: CmdLoadRowsWidth] - 16'h1} * {16'h0, c[CmdLoadStrideLsb +: CmdLoadStrideWidth]};
  endfunction
  function automatic [32:0] local_prod(input [255:0] c);
    reg [16:0] ch;
    begin
      ch = c[CmdLoadDestLsb +: CmdLoadDestWidth] ? (({1'b0, c[CmdLoadColsLsb +: CmdLoadColsWidth]} + AccChunk32[16:0] - 17'd1) >> AccChunkLog2)
                            : (({1'b0, c[CmdLoadColsLsb +: CmdLoadColsWidth]} + N32[16:0] - 17'd1) >> SpadChunkLog2);
      local_prod = {16'h0, ch} * {17'h0, c[CmdLoadRowsLsb +: CmdLoadRowsWidth]};
    end
  endfunction
  function automatic [32:0] sfu_prod(input [255:0] c);
    reg [16:0] ch;
    begin
      ch = ({1'b0, c[CmdSfuLenLsb +: CmdSfuLenWidth]} + N32[16:0] - 17'd1) >> SpadChunkLog2;
      sfu_prod = {16'h0, ch} * {17'h0, c[CmdSfuRowsLsb +: CmdSfuRowsWidth]};
    end
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  reg [47:0] dram_prod_q;
  reg [32:0] local_prod_q, sfu_prod_q;
  reg [32:0] mm_span_q, peek_span_q;

  // External region end: ADDR + (ROWS-1)*STRIDE + bytes per row.
  // (LOAD and STORE: ROWS, COLS and ADDR sit in the same place; SFU ROWS too.)
  wire [15:0] rows      = cmd_q[CmdLoadRowsLsb +: CmdLoadRowsWidth];
  wire [15:0] cols      = cmd_q[CmdLoadColsLsb +: CmdLoadColsWidth];
  wire [31:0] ext_addr  = cmd_q[CmdLoadAddrLsb +: CmdLoadAddrWidth];
  wire [15:0] st_bytes  = st_requant ? cols : {cols[13:0], 2'b00};
  wire [15:0] row_bytes = (opcode == OpStore) ? st_bytes : cols;
  wire [48:0] dram_end  = {17'h0, ext_addr} + {1'b0, dram_prod_q} + {33'h0, row_bytes};
  // The region [ADDR, dram_end) must lie inside [win_base_i, win_limit_i].
  wire        outside_window = (ext_addr < win_base_i) || (dram_end > {17'h0, win_limit_i} + 49'h1);
  // LOAD: local rows used = ceil(COLS / chunk) * ROWS.
  wire [32:0] ld_end    = {9'h0, cmd_q[CmdLoadLocalLsb +: CmdLoadLocalWidth]} + local_prod_q;
  // MATMUL fields, and its checks but NO_WEIGHTS (a function: they run on
  // cmd_q and on a MATMUL read ahead, peek_q).
  wire [15:0] mm_m      = cmd_q[CmdMatmulMLsb +: CmdMatmulMWidth];
  wire [15:0] mm_k      = cmd_q[CmdMatmulKLsb +: CmdMatmulKWidth];
  wire [15:0] mm_n      = cmd_q[CmdMatmulNLsb +: CmdMatmulNWidth];
  // A K-row MATMUL is T = ceil(K / N) weight tiles, each with its own M A
  // rows: it reads A rows A_ADDR .. A_ADDR + T*M (the span; M with
  // KEEP_WEIGHTS). The span is a product, so it is registered like the
  // others: from the queue's output in StFetch (mm_span_q), and for a MATMUL
  // read ahead as peek_q is filled (peek_span_q).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic [32:0] mm_span(input [255:0] c);
    reg [16:0] t;
    begin
      t = c[CmdMatmulKeepWeightsLsb +: CmdMatmulKeepWeightsWidth] ? 17'h1 :
          (({1'b0, c[CmdMatmulKLsb +: CmdMatmulKWidth]} + N32[16:0] - 17'd1) >> SpadChunkLog2);
      mm_span = {16'h0, t} * {17'h0, c[CmdMatmulMLsb +: CmdMatmulMWidth]};
    end
  endfunction
  function automatic [7:0] mm_err(input [255:0] c, input [32:0] span);
    reg [15:0] m, k, n;
    reg        keep;
    begin
      m    = c[CmdMatmulMLsb +: CmdMatmulMWidth];
      k    = c[CmdMatmulKLsb +: CmdMatmulKWidth];
      n    = c[CmdMatmulNLsb +: CmdMatmulNWidth];
      keep = c[CmdMatmulKeepWeightsLsb +: CmdMatmulKeepWeightsWidth];
      if (m == 16'h0 || (!keep && (k == 16'h0 || n == 16'h0 || n > DimMax))) begin
        mm_err = ErrDim;
      end else if ({9'h0, c[CmdMatmulAAddrLsb +: CmdMatmulAAddrWidth]} + span > spad_cap ||
                   (!keep && {9'h0, c[CmdMatmulWAddrLsb +: CmdMatmulWAddrWidth]} + {17'h0, k} > spad_cap)) begin
        mm_err = ErrSpadRange;
      end else if ({9'h0, c[CmdMatmulCAddrLsb +: CmdMatmulCAddrWidth]} + {17'h0, m} > acc_cap) begin
        mm_err = ErrAccRange;
      end else begin
        mm_err = ErrNone;
      end
    end
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  // STORE fields.
  wire [32:0] st_src_end   = {9'h0, cmd_q[CmdStoreSrcLsb +: CmdStoreSrcWidth]} + {17'h0, rows};
  // PARAM..PARAM+2 are checked always, PARAM+3..+4 too with LEAKY.
  wire [32:0] st_param_end = {9'h0, cmd_q[CmdStoreParamLsb +: CmdStoreParamWidth]} + (st_leaky ? 33'd5 : 33'd3);
  wire [7:0]  st_shift     = cmd_q[CmdStoreShiftLsb +: CmdStoreShiftWidth];
  wire [7:0]  st_min       = cmd_q[CmdStoreActMinLsb +: CmdStoreActMinWidth];
  wire [7:0]  st_max       = cmd_q[CmdStoreActMaxLsb +: CmdStoreActMaxWidth];
  // SFU fields: a ROWS x LEN tensor spans C * ROWS rows, C = ceil(LEN / N).
  wire [15:0] sfu_len      = cmd_q[CmdSfuLenLsb +: CmdSfuLenWidth];
  wire [16:0] sfu_c        = ({1'b0, sfu_len} + N32[16:0] - 17'd1) >> SpadChunkLog2;
  wire [32:0] sfu_span     = sfu_prod_q;
  wire [32:0] sfu_a_end    = {9'h0, cmd_q[CmdSfuSrcLsb +: CmdSfuSrcWidth]} + sfu_span;
  wire [32:0] sfu_dst_end  = {9'h0, cmd_q[CmdSfuDstLsb +: CmdSfuDstWidth]} + ((func == FnReduce) ? {17'h0, rows} : sfu_span);
  wire        sfu_two_in   = (func == FnAdd) || (func == FnMul);  // B is a tensor like A
  wire [32:0] sfu_b_end    = {9'h0, cmd_q[CmdSfuSrc2Lsb +: CmdSfuSrc2Width]} + (sfu_two_in ? sfu_span : {16'h0, sfu_c});
  wire [32:0] sfu_aux_end  = {9'h0, cmd_q[CmdSfuAuxLsb +: CmdSfuAuxWidth]} + {16'h0, sfu_c};
  wire [32:0] sfu_lut_end  = {9'h0, cmd_q[CmdSfuSrcLsb +: CmdSfuSrcWidth]} + {1'b0, LutRows32};
  reg  [32:0] sfu_prows;        // parameter block rows: ceil(P / N)
  always @(*) begin
    case (func)
      FnSoftmax:   sfu_prows = {1'b0, PRows3_32};
      FnLayernorm: sfu_prows = {1'b0, PRows8_32};
      FnMul:       sfu_prows = {1'b0, PRows7_32};
      default:     sfu_prows = {1'b0, PRows11_32};
    endcase
  end
  wire [32:0] sfu_param_end = {9'h0, cmd_q[CmdSfuParamLsb +: CmdSfuParamWidth]} + sfu_prows;
  wire        sfu_has_params = (func == FnSoftmax) || (func == FnLayernorm) || sfu_two_in;
  wire        sfu_spad_bad  = (sfu_a_end > spad_cap) ||
                              (func != FnReduce && sfu_dst_end > spad_cap) ||
                              ((sfu_two_in || func == FnLayernorm) && sfu_b_end > spad_cap);
  wire        sfu_acc_bad   = (func == FnReduce && sfu_dst_end > acc_cap) ||
                              (func == FnLayernorm && sfu_aux_end > acc_cap) ||
                              (sfu_has_params && sfu_param_end > acc_cap);

  reg [7:0] static_err;    // every check of cmd_q but NO_WEIGHTS and the token rule
  always @(*) begin
    static_err = ErrNone;
    case (opcode)
      OpNop: ;
      OpFence: ;
      OpLoad: begin
        if (rows == 16'h0 || cols == 16'h0) begin
          static_err = ErrDim;
        end else if (!ld_to_acc && ld_end > spad_cap) begin
          static_err = ErrSpadRange;
        end else if (ld_to_acc && ld_end > acc_cap) begin
          static_err = ErrAccRange;
        end else if (dram_end > DramCap) begin
          static_err = ErrDramRange;
        end else if (outside_window) begin
          static_err = ErrDmaWindow;
        end
      end
      OpMatmul: static_err = mm_err(cmd_q, mm_span_q);
      OpStore: begin
        if (EnableSfu == 0 && st_lut) begin
          static_err = ErrNoUnit;    // the activation table is loaded by the SFU
        end else if (rows == 16'h0 || cols == 16'h0 || cols > DimMax) begin
          static_err = ErrDim;
        end else if (st_spad && st_src_end > spad_cap) begin
          static_err = ErrSpadRange;
        end else if ((!st_spad && st_src_end > acc_cap) || st_param_end > acc_cap) begin
          static_err = ErrAccRange;
        end else if ((st_requant && ($signed(st_shift) < -8'sd31 || $signed(st_shift) > 8'sd30 ||
                                     $signed(st_min) > $signed(st_max))) ||
                     ((st_lut || st_leaky) && !st_requant) ||
                     (st_spad && (st_bias || st_requant || st_per_ch || st_lut || st_leaky))) begin
          static_err = ErrParam;
        end else if (dram_end > DramCap) begin
          static_err = ErrDramRange;
        end else if (outside_window) begin
          static_err = ErrDmaWindow;
        end
      end
      OpSfu: begin
        if (EnableSfu == 0) begin
          static_err = ErrNoUnit;
        end else if (func > FnMul) begin
          static_err = ErrOpcode;
        end else if (func == FnLutLoad) begin
          if (sfu_lut_end > spad_cap) begin
            static_err = ErrSpadRange;
          end
        end else if (rows == 16'h0 || sfu_len == 16'h0) begin
          static_err = ErrDim;
        end else if (sfu_spad_bad) begin
          static_err = ErrSpadRange;
        end else if (sfu_acc_bad) begin
          static_err = ErrAccRange;
        end
      end
      default: static_err = ErrOpcode;
    endcase
  end

  reg  [7:0] static_err_q;
  reg        peek_take;      // the front end takes the MATMUL read ahead (cmd_d = peek_q)
  reg  [7:0] check_err;
  always @(*) begin
    check_err = static_err_q;
    if (check_err == ErrNone && opcode == OpMatmul && mm_keep && !weights_valid_q) begin
      check_err = ErrNoWeights;
    end
    // Token rule: serial program order must never pop an empty counter.
    if (check_err == ErrNone) begin
      case (stage)
        StageLoad: begin
          if (pop_prev || push_prev || (pop_next && c2l_v_q == 8'd0) || (push_next && l2c_v_q == 8'hff)) begin
            check_err = ErrDepToken;
          end
        end
        StageCompute: begin
          if ((pop_prev && l2c_v_q == 8'd0) || (pop_next && s2c_v_q == 8'd0) ||
              (push_prev && c2l_v_q == 8'hff) || (push_next && c2s_v_q == 8'hff)) begin
            check_err = ErrDepToken;
          end
        end
        StageStore: begin
          if (pop_next || push_next || (pop_prev && c2s_v_q == 8'd0) || (push_prev && s2c_v_q == 8'hff)) begin
            check_err = ErrDepToken;
          end
        end
        default: begin
          if (pop_prev || pop_next || push_prev || push_next) begin
            check_err = ErrDepToken;
          end
        end
      endcase
    end
  end

  // Datapath registers of the checks (no reset: each is written before it is read).
  always @(posedge clk_i) begin
    if (state_q == StFetch) begin
      dram_prod_q  <= dram_prod(q_rdata);
      local_prod_q <= local_prod(q_rdata);
      sfu_prod_q   <= sfu_prod(q_rdata);
    end
    if (peek_take) begin
      mm_span_q <= peek_span_q;
    end else if (state_q == StFetch) begin
      mm_span_q <= mm_span(q_rdata);
    end
    static_err_q <= peek_take ? mm_err(peek_q, peek_span_q) : static_err;
  end

  // ---------------------------------------------------------------- control
  reg [2:0]  state_q, state_d;
  reg        started_q, started_d;      // the unit of the current command was started
  reg [31:0] cmd_idx_q, cmd_idx_d;
  reg [7:0]  err_code_q, err_code_d;
  reg [31:0] err_idx_q, err_idx_d;
  reg [31:0] err_addr_q, err_addr_d;
  reg        done_q, done_d;
  reg        ran_q, ran_d;              // something ran since the engine was last idle
  reg        irq_done, irq_error, irq_fence;
  reg        rd_start, mm_start, st_start, sfu_start, retire, unit_clr, aborting;
  // A streaming MATMUL the front end has moved past (see "Back-to-back
  // MATMULs" below): it retires, pushing its token, when its stream ends.
  reg        mm_early;                  // the front end moves past the current MATMUL now
  reg        mmx_v_q, mmx_v_d;          // such a MATMUL streams
  reg        mmx_push_q, mmx_push_d;    // ... and pushes a token to the load stage
  reg        mmx_irq_q, mmx_irq_d;      // ... and has IRQ_CMD
  reg  [1:0] mmx_abank_q, mmx_abank_d;  // ... and reads its A rows from this scratchpad bank
  wire       mmx_fire;                  // it retires this cycle
  reg        fail;
  reg [7:0]  fail_code;
  reg [31:0] fail_addr;
  reg [19:0] macs_add_kn;
  // Background stages.
  reg        lq_run_q, lq_run_d, sq_run_q, sq_run_d;   // the head's unit runs
  reg        sq_nx_q, sq_nx_d;       // the STORE after the head runs in the store unit
  reg        sq2_start;              // ... and starts now
  reg        st_start_q;             // a STORE started in the cycle before (st_busy_i from now)
  reg [255:0] st_cmd_q;              // the STORE the store unit (and then its writer) runs
  reg        lq_start, lq_retire, sq_retire;
  reg        bg_fail;
  reg [7:0]  bg_code;
  reg [31:0] bg_idx, bg_addr;

  // ---------------------------------------------------------------- stages
  // Stage queues: {command index, command}. The load queue takes scratchpad
  // LOADs, the store queue STOREs; their heads run in the background.
  // Two LOADs (a group's A and W) and four STOREs (a tile's N-column blocks).
  localparam integer LoadQDepth = 2;
  localparam integer StoreQDepth = 4;
  localparam integer EntryW = 288;
  wire               lq_v, lq_full, sq_v, sq_full;
  wire [EntryW-1:0]  lq_head;
  wire [EntryW+1:0]  sq_head;   // {accumulator banks, index, command}
  reg                lq_push, sq_push, lq_pop, sq_pop;
  wire               stage_clr = soft_reset_i || (state_q == StAbort);
  wire [255:0]       lq_cmd = lq_head[255:0];
  wire [31:0]        lq_idx = lq_head[287:256];
  wire [255:0]       sq_cmd = sq_head[255:0];
  wire [31:0]        sq_idx = sq_head[287:256];
  // The STORE after the head may start in the store unit while the head's writer
  // waits for its last write responses (sq_nx_q); its writer starts when the head's is done.
  wire               sq_two;
  wire [EntryW+1:0]  sq_second;
  wire [255:0]       sq2_cmd = sq_second[255:0];
  wire [31:0]        sq2_idx = sq_second[287:256];
  /* verilator lint_off UNUSEDSIGNAL */
  wire               lq_two_unused;
  wire [EntryW-1:0]  lq_second_unused;
  /* verilator lint_on UNUSEDSIGNAL */

  tsr_stage_fifo #(.Width(EntryW), .Depth(LoadQDepth)) u_load_q (
    .clk_i (clk_i), .rst_ni (rst_ni), .clr_i (stage_clr),
    .push_i (lq_push), .data_i ({cmd_idx_q, cmd_q}), .pop_i (lq_pop),
    .valid_o (lq_v), .full_o (lq_full), .head_o (lq_head),
    .two_o (lq_two_unused), .second_o (lq_second_unused)
  );
  tsr_stage_fifo #(.Width(EntryW + 2), .Depth(StoreQDepth)) u_store_q (
    .clk_i (clk_i), .rst_ni (rst_ni), .clr_i (stage_clr),
    .push_i (sq_push), .data_i ({st_banks_of(cmd_q), cmd_idx_q, cmd_q}), .pop_i (sq_pop),
    .valid_o (sq_v), .full_o (sq_full), .head_o (sq_head),
    .two_o (sq_two), .second_o (sq_second)
  );

  // Accumulator banks a row range touches: bit 0 the lower half, bit 1 the upper.
  localparam integer AccAw = $clog2(AccRows);
  localparam [32:0] AccHalf = 33'h1 << (AccAw - 1);
  function automatic [1:0] acc_banks(input [23:0] base, input [32:0] len);
    acc_banks = {({9'h0, base} + len > AccHalf), ({9'h0, base} < AccHalf)};
  endfunction
  /* verilator lint_off UNUSEDSIGNAL */  // each function reads a few fields of a command
  // A MATMUL writes (and with ACCUMULATE reads) C_ADDR..+M.
  function automatic [1:0] mm_banks_of(input [255:0] c);
    mm_banks_of = acc_banks(c[CmdMatmulCAddrLsb +: CmdMatmulCAddrWidth], {17'h0, c[CmdMatmulMLsb +: CmdMatmulMWidth]});
  endfunction
  // A STORE reads SRC..+ROWS (not with SPAD) and its parameter rows.
  function automatic [1:0] st_banks_of(input [255:0] c);
    st_banks_of = (c[CmdStoreSpadLsb +: CmdStoreSpadWidth] ? 2'b00 : acc_banks(c[CmdStoreSrcLsb +: CmdStoreSrcWidth], {17'h0, c[CmdStoreRowsLsb +: CmdStoreRowsWidth]})) |
                  acc_banks(c[CmdStoreParamLsb +: CmdStoreParamWidth], c[CmdStoreLeakyLsb +: CmdStoreLeakyWidth] ? 33'd5 : 33'd3);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  // The banks are registered, so no start waits for their adders (FPGA
  // timing): the front end's MATMUL's a cycle after cmd_q (it starts in
  // StDecode, after StCheck or the cycle peek_q is taken, as static_err_q),
  // and a STORE's with it in the store queue.
  reg  [1:0]  mm_banks_new;
  always @(posedge clk_i) begin
    mm_banks_new <= mm_banks_of(peek_take ? peek_q : cmd_q);
  end
  wire        sq_spad  = sq_cmd[CmdStoreSpadLsb +: CmdStoreSpadWidth];
  wire [1:0]  sq_banks = sq_head[EntryW+1:EntryW];
  wire        sq2_spad  = sq2_cmd[CmdStoreSpadLsb +: CmdStoreSpadWidth];
  wire [1:0]  sq2_banks = sq_second[EntryW+1:EntryW];
  reg  [1:0]  mm_banks_q;       // banks of the MATMULs in flight (until mm_idle_i)
  reg  [1:0]  st_banks_q;       // banks of the running STORE (while st_busy_i)
  reg         st_spad_q;        // the running STORE reads the scratchpad

  // What a command waits for before it starts (the front end) or is queued.
  wire tokenless = !(pop_prev || pop_next || push_prev || push_next);
  wire drained   = !lq_v && !sq_v && !mmx_v_q;   // every earlier LOAD, STORE and MATMUL retired
  wire toks_in   = (!pop_prev || l2c_q != 9'd0) && (!pop_next || s2c_q != 9'd0);
  // Token protocol idle: every program-order counter is zero. A tokenless
  // command issued then is untokened (serial) code: it runs after all earlier ones.
  wire quiet     = (l2c_v_q | c2l_v_q | c2s_v_q | s2c_v_q) == 8'd0;
  wire serial    = tokenless && quiet;
  wire ordered   = !serial || drained;
  wire mm_free   = !(st_busy_i && (st_spad_q || (st_banks_q & mm_banks_new) != 2'b00));
  reg  can_start;
  always @(*) begin
    case (opcode)
      OpLoad:   can_start = ld_to_acc ? (mm_idle_i && !lq_v && toks_in && ordered)
                                      : (!lq_full && ordered);
      OpMatmul: can_start = mm_ready_i && mm_free && toks_in && ordered;
      OpStore:  can_start = !sq_full && (!serial || (drained && mm_idle_i));
      OpSfu:    can_start = mm_idle_i && drained && !st_busy_i && !wr_busy_i && toks_in;
      OpFence:  can_start = mm_idle_i && drained;
      default:  can_start = toks_in && ordered;
    endcase
  end

  wire units_idle = !rd_busy_i && !wr_busy_i && mm_idle_i && !st_busy_i && !sfu_busy_i && ring_idle_i;
  wire bg_go      = (state_q != StError) && (state_q != StAbort) && !soft_reset_i;

  always @(*) begin
    state_d   = state_q;
    started_d = started_q;
    cmd_d     = cmd_q;
    cmd_src_d = cmd_src_q;
    cmd_idx_d = cmd_idx_q;
    err_code_d = err_code_q;
    err_idx_d  = err_idx_q;
    err_addr_d = err_addr_q;
    done_d    = done_q;
    ran_d     = ran_q;
    rd_ptr_d  = rd_ptr_q;
    l2c_v_d = l2c_v_q; c2l_v_d = c2l_v_q; c2s_v_d = c2s_v_q; s2c_v_d = s2c_v_q;
    weights_valid_d = weights_valid_q;
    q_re      = 1'b0;
    peek_take = 1'b0;
    irq_done  = 1'b0;
    irq_error = 1'b0;
    irq_fence = 1'b0;
    rd_start  = 1'b0;
    mm_start  = 1'b0;
    sfu_start = 1'b0;
    retire    = 1'b0;
    mm_early  = 1'b0;
    unit_clr  = 1'b0;
    aborting  = 1'b0;
    lq_push   = 1'b0;
    sq_push   = 1'b0;
    fail      = 1'b0;
    fail_code = ErrNone;
    fail_addr = 32'h0;

    case (state_q)
      StIdle: begin
        if (ovf_q) begin
          // Reported after the LOADs and STOREs already queued have retired.
          if (drained) begin
            fail      = 1'b1;
            fail_code = ErrCmdqOverflow;
          end
        end else if (count_q != {(QAw+1){1'b0}}) begin
          q_re      = 1'b1;
          rd_ptr_d  = rd_ptr_q + {{(QAw-1){1'b0}}, 1'b1};
          ran_d     = 1'b1;
          state_d   = StFetch;
        end else if (ring_err_i) begin
          // A fetch error, reported after every command fetched before it ran.
          if (drained) begin
            fail      = 1'b1;
            fail_code = ring_err_code_i;
            fail_addr = ring_err_addr_i;
          end
        end else if (ran_q && units_idle && drained && !ring_busy_i) begin
          ran_d    = 1'b0;
          done_d   = 1'b1;
          irq_done = 1'b1;
        end
      end
      StFetch: begin
        cmd_d     = q_rdata;
        cmd_src_d = q_rsrc;
        state_d = StCheck;
      end
      StCheck: state_d = StDecode;
      StDecode: begin
        if (check_err != ErrNone) begin
          // Precise: earlier LOADs and STOREs finish first (and fail first).
          if (drained) begin
            fail      = 1'b1;
            fail_code = check_err;
            fail_addr = (check_err == ErrDmaWindow) ? ext_addr : cmd_src_q;
          end
        end else if (can_start) begin
          // Program-order counters: every pop and push of this command, now.
          case (stage)
            StageLoad: begin
              if (pop_next)  c2l_v_d = c2l_v_q - 8'd1;
              if (push_next) l2c_v_d = l2c_v_q + 8'd1;
            end
            StageCompute: begin
              if (pop_prev)  l2c_v_d = l2c_v_q - 8'd1;
              if (pop_next)  s2c_v_d = s2c_v_q - 8'd1;
              if (push_prev) c2l_v_d = c2l_v_q + 8'd1;
              if (push_next) c2s_v_d = c2s_v_q + 8'd1;
            end
            StageStore: begin
              if (pop_prev)  c2s_v_d = c2s_v_q - 8'd1;
              if (push_prev) s2c_v_d = s2c_v_q + 8'd1;
            end
            default: ;
          endcase
          case (stage)
            StageLoad: lq_push = 1'b1;
            StageStore: sq_push = 1'b1;
            default: ;
          endcase
          if ((stage == StageLoad || stage == StageStore) && !serial) begin
            cmd_idx_d = cmd_idx_q + 32'd1;
            state_d   = StIdle;
          end else begin
            case (opcode)
              OpLoad:   rd_start = ld_to_acc;
              OpMatmul: begin
                mm_start = 1'b1;
                if (!mm_keep) begin
                  weights_valid_d = 1'b1;
                end
              end
              OpSfu:    sfu_start = 1'b1;
              default: ;
            endcase
            started_d = 1'b0;
            state_d   = StExec;
          end
        end
      end
      StExec: begin
        started_d = 1'b1;   // units see their start one cycle before this state
        case (opcode)
          // Untokened code: the front end waits for its queued LOAD or STORE,
          // which retires in its stage.
          OpLoad: if (!ld_to_acc) begin
            if (drained) begin
              cmd_idx_d = cmd_idx_q + 32'd1;
              state_d   = StIdle;
            end
          end else begin
            if (rd_done_i) begin
              if (rd_err_i) begin
                fail      = 1'b1;
                fail_code = ErrBusRead;
                fail_addr = rd_err_addr_i;
              end else begin
                retire = 1'b1;
              end
            end
          end
          OpStore: begin
            if (drained) begin
              cmd_idx_d = cmd_idx_q + 32'd1;
              state_d   = StIdle;
            end
          end
          // A token to the store stage waits for the write-back.
          OpMatmul: begin
            if (started_q && (push_next ? mm_idle_i : mm_ready_i)) begin
              retire = 1'b1;
            end else if (started_q && !push_next && !serial && !mmx_v_q) begin
              mm_early = 1'b1;
            end
          end
          OpSfu: begin
            if (sfu_param_err_i) begin
              fail      = 1'b1;
              fail_code = ErrParam;
              fail_addr = cmd_src_q;
            end else if (started_q && !sfu_busy_i) begin
              retire = 1'b1;
            end
          end
          OpFence: begin
            retire    = 1'b1;
            irq_fence = fence_irq;
          end
          default: retire = 1'b1;
        endcase
        if (mm_early) begin
          cmd_idx_d = cmd_idx_q + 32'd1;
          state_d   = StIdle;
        end
        if (retire) begin
          cmd_idx_d = cmd_idx_q + 32'd1;
          state_d   = StIdle;
          // Back-to-back MATMULs: the next one was already read (peeked), so
          // pop it now and decode it next cycle.
          if (peek_v_q && peek_off_q == 2'd0 && !ovf_q) begin
            q_re      = 1'b1;
            rd_ptr_d  = rd_ptr_q + {{(QAw-1){1'b0}}, 1'b1};
            cmd_d     = peek_q;
            cmd_src_d = peek_src_q;
            peek_take = 1'b1;
            state_d   = StDecode;
          end
        end
      end
      StError: ;
      StAbort: begin
        aborting = 1'b1;
        unit_clr = 1'b1;
        if (units_idle) begin
          cmd_idx_d  = 32'h0;
          err_code_d = ErrNone;
          err_idx_d  = 32'h0;
          err_addr_d = 32'h0;
          done_d     = 1'b0;
          ran_d      = 1'b0;
          l2c_v_d = 8'd0; c2l_v_d = 8'd0; c2s_v_d = 8'd0; s2c_v_d = 8'd0;
          weights_valid_d = 1'b0;
          state_d    = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase

    // In the cycle of a background error or a soft reset nothing starts,
    // retires, is queued or is fetched.
    if (bg_fail || soft_reset_i) begin
      retire    = 1'b0;
      mm_early  = 1'b0;
      lq_push   = 1'b0;
      sq_push   = 1'b0;
      rd_start  = 1'b0;
      mm_start  = 1'b0;
      sfu_start = 1'b0;
      cmd_idx_d = cmd_idx_q;
      q_re      = 1'b0;
      rd_ptr_d  = rd_ptr_q;
      cmd_d     = cmd_q;
      cmd_src_d = cmd_src_q;
      peek_take = 1'b0;
    end
    // An error of an earlier (background) command wins over the front end's.
    if (bg_fail) begin
      fail      = 1'b1;
      fail_code = bg_code;
      fail_addr = bg_addr;
    end
    if (fail && state_q != StError && state_q != StAbort) begin
      err_code_d = fail_code;
      err_idx_d  = bg_fail ? bg_idx : (fail_code == ErrCmdqOverflow) ? ovf_idx_q : cmd_idx_q;
      err_addr_d = fail_addr;
      irq_error  = 1'b1;
      state_d    = StError;
    end
    if ((cmd_we_i && words_q == 3'd7) || ring_push || ring_busy_i) begin
      done_d = 1'b0;       // a new command: no longer done
    end
    if (soft_reset_i) begin
      state_d  = StAbort;
      rd_ptr_d = {QAw{1'b0}};
    end
  end

  // Weight preload. While a MATMUL streams, the front end reads the queued
  // commands after it without popping them, looking for the next MATMUL past
  // at most two tokened LOADs or STOREs (other stages: with correct tokens
  // they cannot touch the weight rows that MATMUL will read). If its weight
  // rows are ready (its load token is there, or it has none inside a tokened
  // region) and sit in the other scratchpad bank than the streaming A rows,
  // the MATMUL unit loads them into the idle weight bank meanwhile, and that
  // MATMUL starts without its N-cycle weight load.
  reg          peek_v_q, peek_rd_q, peek_end_q, pre_sent_q;
  reg  [255:0] peek_q;
  reg  [31:0]  peek_src_q;
  localparam integer SpadAw = $clog2(SpadRows);
  localparam [32:0]  SpadHalf = 33'h1 << (SpadAw - 1);
  // [base, base + len) lies in one scratchpad bank: 1 upper, 0 lower, else none.
  function automatic [1:0] spad_bank(input [23:0] base, input [32:0] len);
    if ({9'h0, base} + len <= SpadHalf) spad_bank = 2'b01;
    else if ({9'h0, base} >= SpadHalf) spad_bank = 2'b10;
    else spad_bank = 2'b00;
  endfunction
  // Only the first weight tile (min(K, N) rows) is preloaded; the rest load
  // while the MATMUL itself streams, when mm_sep_o says its own weight and A
  // rows lie in different banks (decided over whole ranges here, at decode).
  wire [15:0] pk_k      = peek_q[CmdMatmulKLsb +: CmdMatmulKWidth];
  wire [15:0] pk_n      = peek_q[CmdMatmulNLsb +: CmdMatmulNWidth];
  wire [15:0] pk_k0     = (pk_k < DimMax) ? pk_k : DimMax;
  wire [1:0]  pk_wbank  = spad_bank(peek_q[CmdMatmulWAddrLsb +: CmdMatmulWAddrWidth], {17'h0, pk_k0});
  wire [1:0]  cur_abank = spad_bank(cmd_q[CmdMatmulAAddrLsb +: CmdMatmulAAddrWidth], mm_span_q);
  wire [1:0]  cur_wbank = spad_bank(cmd_q[CmdMatmulWAddrLsb +: CmdMatmulWAddrWidth], {17'h0, mm_k});
  assign      mm_sep_o  = cur_wbank != 2'b00 && cur_abank != 2'b00 && cur_wbank != cur_abank;
  wire        pk_tokenless = !(peek_q[CmdPopPrevLsb +: CmdPopPrevWidth] || peek_q[CmdPopNextLsb +: CmdPopNextWidth] ||
                               peek_q[CmdPushPrevLsb +: CmdPushPrevWidth] || peek_q[CmdPushNextLsb +: CmdPushNextWidth]);
  wire        pk_ready  = peek_v_q && peek_q[CmdOpcodeLsb +: CmdOpcodeWidth] == OpMatmul && !peek_q[CmdMatmulKeepWeightsLsb +: CmdMatmulKeepWeightsWidth] &&
                          pk_k != 16'h0 && pk_n != 16'h0 && pk_n <= DimMax &&
                          {9'h0, peek_q[CmdMatmulWAddrLsb +: CmdMatmulWAddrWidth]} + {17'h0, pk_k} <= spad_cap &&
                          pk_wbank != 2'b00 && cur_abank != 2'b00 && pk_wbank != cur_abank &&
                          (!peek_q[CmdPopPrevLsb +: CmdPopPrevWidth] || l2c_q != 9'd0) && (!(pk_tokenless && quiet) || drained);
  wire        in_matmul = (state_q == StExec) && (opcode == OpMatmul) && started_q;
  wire        pre_peek  = in_matmul && pk_ready && !pre_sent_q && mm_pre_ready_i;
  // The MATMUL waiting in StDecode behind one the front end moved past
  // (mmx_v_q): its own checks passed and its weight rows are ready.
  wire [15:0] dec_k0    = (mm_k < DimMax) ? mm_k : DimMax;
  wire [1:0]  dec_wbank = spad_bank(cmd_q[CmdMatmulWAddrLsb +: CmdMatmulWAddrWidth], {17'h0, dec_k0});
  wire        pre_dec   = (state_q == StDecode) && (opcode == OpMatmul) && mmx_v_q && !mm_keep &&
                          check_err == ErrNone && toks_in && ordered && dec_wbank != 2'b00 &&
                          mmx_abank_q != 2'b00 && dec_wbank != mmx_abank_q && !pre_sent_q && mm_pre_ready_i;
  wire        mm_pre    = pre_peek || pre_dec;
  wire [7:0]  q_op      = q_rdata[CmdOpcodeLsb +: CmdOpcodeWidth];
  wire        q_skip    = ((q_op == OpLoad && !q_rdata[CmdLoadDestLsb +: CmdLoadDestWidth]) || q_op == OpStore) &&
                          (q_rdata[CmdPopPrevLsb +: CmdPopPrevWidth] || q_rdata[CmdPopNextLsb +: CmdPopNextWidth] ||
                           q_rdata[CmdPushPrevLsb +: CmdPushPrevWidth] || q_rdata[CmdPushNextLsb +: CmdPushNextWidth]);
  always @(*) begin
    q_peek = in_matmul && !peek_v_q && !peek_end_q && !peek_rd_q && !ovf_q &&
             {{(QAw-1){1'b0}}, peek_off_q} < count_q;
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      peek_v_q   <= 1'b0;
      peek_rd_q  <= 1'b0;
      peek_end_q <= 1'b0;
      peek_off_q <= 2'd0;
      pre_sent_q <= 1'b0;
    end else if (q_re || stage_clr) begin   // a fetch pops the head: look again
      peek_v_q   <= 1'b0;
      peek_rd_q  <= 1'b0;
      peek_end_q <= 1'b0;
      peek_off_q <= 2'd0;
      pre_sent_q <= 1'b0;
    end else begin
      peek_rd_q <= q_peek;
      if (peek_rd_q) begin
        if (q_op == OpMatmul) begin
          peek_v_q <= 1'b1;
        end else if (q_skip && peek_off_q != 2'd2) begin
          peek_off_q <= peek_off_q + 2'd1;
        end else begin
          peek_end_q <= 1'b1;
        end
      end
      if (mm_pre) begin
        pre_sent_q <= 1'b1;
      end else if (mm_start) begin
        pre_sent_q <= 1'b0;   // the preload went to this MATMUL: the next may have one
      end
    end
  end
  always @(posedge clk_i) begin
    if (peek_rd_q && q_op == OpMatmul) begin
      peek_q      <= q_rdata;
      peek_src_q  <= q_rsrc;
      peek_span_q <= mm_span(q_rdata);
    end
  end

  // Back-to-back MATMULs. A MATMUL that pushes no token to the store stage
  // and runs in a tokened region need not hold the front end while it streams:
  // once its unit has started, the front end moves past it (mm_early) and
  // decodes what follows (LOADs into the load queue, and the next MATMUL,
  // which waits in StDecode for the unit, preloading its weights meanwhile).
  // The MATMUL retires when its last A row has been read (mm_ready_i), and
  // only then pushes its token to the load stage, so no LOAD overwrites rows
  // it still reads. drained counts it, so untokened code and precise errors
  // still wait for it. One such MATMUL at a time: the next one starts only
  // with mm_ready_i, the cycle this one retires.
  assign mmx_fire = mmx_v_q && mm_ready_i && !bg_fail && !soft_reset_i;
  always @(*) begin
    mmx_v_d     = mmx_v_q && !mmx_fire;
    mmx_push_d  = mmx_push_q;
    mmx_irq_d   = mmx_irq_q;
    mmx_abank_d = mmx_abank_q;
    if (mm_early) begin
      mmx_v_d     = 1'b1;
      mmx_push_d  = push_prev;
      mmx_irq_d   = cmd_q[CmdIrqCmdLsb +: CmdIrqCmdWidth];
      mmx_abank_d = cur_abank;
    end
    if (stage_clr) begin
      mmx_v_d = 1'b0;
    end
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mmx_v_q     <= 1'b0;
      mmx_push_q  <= 1'b0;
      mmx_irq_q   <= 1'b0;
      mmx_abank_q <= 2'b00;
    end else begin
      mmx_v_q     <= mmx_v_d;
      mmx_push_q  <= mmx_push_d;
      mmx_irq_q   <= mmx_irq_d;
      mmx_abank_q <= mmx_abank_d;
    end
  end

  // Background load and store stages: start the head when its tokens and its
  // unit are there, retire it (push its tokens) when the unit is done.
  wire        lq_pop_next  = lq_cmd[CmdPopNextLsb +: CmdPopNextWidth];
  wire        lq_push_next = lq_cmd[CmdPushNextLsb +: CmdPushNextWidth];
  wire        sq_pop_prev  = sq_cmd[CmdPopPrevLsb +: CmdPopPrevWidth];
  wire        sq_push_prev = sq_cmd[CmdPushPrevLsb +: CmdPushPrevWidth];
  wire        sq2_pop_prev = sq2_cmd[CmdPopPrevLsb +: CmdPopPrevWidth];
  wire        st_pop_prev  = sq2_start ? sq2_pop_prev : sq_pop_prev;   // of the STORE starting
  wire [1:0]  mm_banks_live = (mm_idle_i ? 2'b00 : mm_banks_q) | (mm_start ? mm_banks_new : 2'b00);
  // Done and failure of the running heads (registers and unit outputs only).
  always @(*) begin
    lq_retire = 1'b0;
    sq_retire = 1'b0;
    lq_pop    = 1'b0;
    sq_pop    = 1'b0;
    bg_fail   = 1'b0;
    bg_code   = ErrNone;
    bg_idx    = 32'h0;
    bg_addr   = 32'h0;
    if (bg_go && lq_run_q && rd_done_i) begin
      if (rd_err_i) begin
        bg_fail = 1'b1;
        bg_code = ErrBusRead;
        bg_idx  = lq_idx;
        bg_addr = rd_err_addr_i;
      end else begin
        lq_retire = 1'b1;
        lq_pop    = 1'b1;
      end
    end
    if (bg_go && sq_run_q && (st_param_err_i || wr_done_i)) begin
      if ((wr_done_i && wr_err_i) || st_param_err_i) begin
        // Both heads precede the front end's command; the older one reports. A
        // parameter error is the store unit's STORE's: the head, or the one after it
        // (sq_nx_q), which is younger than the head's write error.
        if (!bg_fail || sq_idx < lq_idx) begin
          bg_fail = 1'b1;
          bg_code = (wr_done_i && wr_err_i) ? ErrBusWrite : ErrParam;
          bg_idx  = (wr_done_i && wr_err_i) || !sq_nx_q ? sq_idx : sq2_idx;
          bg_addr = (wr_done_i && wr_err_i) ? wr_err_addr_i : 32'h0;
        end
      end else if (!bg_fail) begin   // nothing retires in the cycle an error is raised
        sq_retire = 1'b1;
        sq_pop    = 1'b1;
      end
    end
    if (bg_fail) begin
      lq_retire = 1'b0;
      lq_pop    = 1'b0;
    end
  end

  // Starts: the head's tokens are there and its unit and resources are free.
  always @(*) begin
    lq_run_d = lq_run_q && !(lq_run_q && rd_done_i);
    // The head retires when its writer is done; the STORE after it, already in the
    // store unit, is then the running head.
    sq_run_d = sq_run_q && (wr_done_i ? sq_nx_q : !st_param_err_i);
    sq_nx_d  = sq_nx_q && !wr_done_i && !st_param_err_i;
    lq_start = 1'b0;
    sq2_start = 1'b0;
    st_start = 1'b0;
    if (bg_go && !bg_fail) begin
      if (lq_v && !lq_run_q && !rd_busy_i && (!lq_pop_next || c2l_q != 9'd0)) begin
        lq_start = 1'b1;
        lq_run_d = 1'b1;
      end
      if (sq_v && !sq_run_q && (!sq_pop_prev || c2s_q != 9'd0) &&
          (sq_spad ? (mm_idle_i && !mm_start) : (sq_banks & mm_banks_live) == 2'b00)) begin
        st_start = 1'b1;
        sq_run_d = 1'b1;
      end else if (sq_two && sq_run_q && !sq_nx_q && !st_busy_i && !st_start_q && !wr_done_i &&
                   (!sq2_pop_prev || c2s_q != 9'd0) &&
                   (sq2_spad ? (mm_idle_i && !mm_start) : (sq2_banks & mm_banks_live) == 2'b00)) begin
        // The head's rows are all out, its writer waits for responses: the next STORE
        // reads its parameters and fills the output stage meanwhile (tsr_store).
        sq2_start = 1'b1;
        st_start  = 1'b1;
        sq_nx_d   = 1'b1;
      end
    end
    if (stage_clr) begin
      lq_run_d = 1'b0;
      sq_run_d = 1'b0;
      sq_nx_d  = 1'b0;
    end
  end

  // Real token counters: each has one pushing and one popping stage.
  wire front_start = (state_q == StDecode) && (state_d == StExec);
  always @(*) begin
    l2c_d = l2c_q + {8'h0, lq_retire && lq_push_next} -
            {8'h0, front_start && stage == StageCompute && pop_prev};
    s2c_d = s2c_q + {8'h0, sq_retire && sq_push_prev} -
            {8'h0, front_start && stage == StageCompute && pop_next};
    c2l_d = c2l_q + {8'h0, retire && stage == StageCompute && push_prev} + {8'h0, mmx_fire && mmx_push_q} -
            {8'h0, lq_start && lq_pop_next};
    c2s_d = c2s_q + {8'h0, retire && stage == StageCompute && push_next} -
            {8'h0, st_start && st_pop_prev};
    if (stage_clr) begin
      l2c_d = 9'd0; c2l_d = 9'd0; c2s_d = 9'd0; s2c_d = 9'd0;
    end
  end

  // Bank footprints for the interlock.
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mm_banks_q <= 2'b00;
      st_banks_q <= 2'b00;
      st_spad_q  <= 1'b0;
    end else begin
      mm_banks_q <= mm_banks_live;
      if (st_start) begin
        st_banks_q <= sq2_start ? sq2_banks : sq_banks;
        st_spad_q  <= sq2_start ? sq2_spad : sq_spad;
      end
    end
  end

  // Queue bookkeeping: pushes from the bus, pops by the controller.
  always @(*) begin
    words_d    = words_q;
    stage_d    = stage_q;
    wr_ptr_d   = wr_ptr_q;
    push_idx_d = push_idx_q;
    ovf_d      = ovf_q;
    ovf_idx_d  = ovf_idx_q;
    count_d    = count_q;
    if (cmd_we_i) begin
      words_d = words_q + 3'd1;
      stage_d[32*words_q +: 32] = cmd_word_i;
      if (words_q == 3'd7) begin
        if (q_full) begin
          if (!ovf_q) begin
            ovf_d     = 1'b1;
            ovf_idx_d = push_idx_q;
          end
        end else begin
          wr_ptr_d   = wr_ptr_q + {{(QAw-1){1'b0}}, 1'b1};
          push_idx_d = push_idx_q + 32'd1;
        end
      end
    end
    if (ring_push) begin
      wr_ptr_d   = wr_ptr_q + {{(QAw-1){1'b0}}, 1'b1};
      push_idx_d = push_idx_q + 32'd1;
    end
    count_d = count_q + {{QAw{1'b0}}, push || ring_push} - {{QAw{1'b0}}, q_re};
    if (soft_reset_i) begin
      words_d    = 3'd0;
      wr_ptr_d   = {QAw{1'b0}};
      push_idx_d = 32'h0;
      ovf_d      = 1'b0;
      ovf_idx_d  = 32'h0;
      count_d    = {(QAw+1){1'b0}};
    end
  end

  // MACs of a MATMUL: M * K * N (N at most ArrayDim, K up to 65535). A
  // KEEP_WEIGHTS MATMUL ignores its K and N fields and uses those of the
  // weights in the array: the last tile of the MATMUL that loaded them,
  // ((K - 1) mod N) + 1 rows.
  reg  [8:0]  wt_k_q, wt_n_q;
  wire [8:0]  mm_k_last = {4'h0, (mm_k[4:0] - 5'h1) & (DimMax[4:0] - 5'h1)} + 9'h1;
  always @(*) begin
    macs_add_kn = mm_keep ? {11'h0, wt_k_q * wt_n_q} : {4'h0, mm_k} * {15'h0, mm_n[4:0]};
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wt_k_q <= 9'h0;
      wt_n_q <= 9'h0;
    end else if (mm_start && !mm_keep) begin
      wt_k_q <= mm_k_last;
      wt_n_q <= mm_n[8:0];
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StIdle;
      started_q  <= 1'b0;
      cmd_q      <= 256'h0;
      cmd_src_q  <= 32'h0;
      cmd_idx_q  <= 32'h0;
      err_code_q <= ErrNone;
      err_idx_q  <= 32'h0;
      err_addr_q <= 32'h0;
      done_q     <= 1'b0;
      ran_q      <= 1'b0;
      rd_ptr_q   <= {QAw{1'b0}};
      wr_ptr_q   <= {QAw{1'b0}};
      count_q    <= {(QAw+1){1'b0}};
      words_q    <= 3'd0;
      stage_q    <= 224'h0;
      push_idx_q <= 32'h0;
      ovf_q      <= 1'b0;
      ovf_idx_q  <= 32'h0;
      l2c_q <= 9'd0; c2l_q <= 9'd0; c2s_q <= 9'd0; s2c_q <= 9'd0;
      l2c_v_q <= 8'd0; c2l_v_q <= 8'd0; c2s_v_q <= 8'd0; s2c_v_q <= 8'd0;
      lq_run_q <= 1'b0;
      sq_run_q <= 1'b0;
      sq_nx_q  <= 1'b0;
      st_start_q <= 1'b0;
      weights_valid_q <= 1'b0;
    end else begin
      state_q    <= state_d;
      started_q  <= started_d;
      cmd_q      <= cmd_d;
      cmd_src_q  <= cmd_src_d;
      cmd_idx_q  <= cmd_idx_d;
      err_code_q <= err_code_d;
      err_idx_q  <= err_idx_d;
      err_addr_q <= err_addr_d;
      done_q     <= done_d;
      ran_q      <= ran_d;
      rd_ptr_q   <= rd_ptr_d;
      wr_ptr_q   <= wr_ptr_d;
      count_q    <= count_d;
      words_q    <= words_d;
      stage_q    <= stage_d;
      push_idx_q <= push_idx_d;
      ovf_q      <= ovf_d;
      ovf_idx_q  <= ovf_idx_d;
      l2c_q <= l2c_d; c2l_q <= c2l_d; c2s_q <= c2s_d; s2c_q <= s2c_d;
      l2c_v_q <= l2c_v_d; c2l_v_q <= c2l_v_d; c2s_v_q <= c2s_v_d; s2c_v_q <= s2c_v_d;
      lq_run_q <= lq_run_d;
      sq_run_q <= sq_run_d;
      sq_nx_q  <= sq_nx_d;
      st_start_q <= st_start;
      weights_valid_q <= weights_valid_d;
    end
  end

  // Not reset: read only after a start has written it.
  always @(posedge clk_i) begin
    if (st_start) begin
      st_cmd_q <= cmd_st_o;
    end
  end

  // ---------------------------------------------------------------- counters
  // Busy until DONE rises (ran_q), so STATUS never reads 0 between the two.
  wire engine_busy = ((state_q != StIdle) && (state_q != StError)) || (state_q == StIdle && ran_q) ||
                     ((count_q != {(QAw+1){1'b0}} || lq_v || sq_v) && state_q != StError) ||
                     !units_idle || (ring_busy_i && state_q != StError);
  reg [63:0] cnt_cycles_q, cnt_busy_q, cnt_macs_q, cnt_rd_q, cnt_wr_q, cnt_cmds_q;
  // A MATMUL's m*k*n reaches CNT_MACS two cycles after its start (timing):
  // its M and K*N are registered at the start, their product a cycle later,
  // and a clear drops what is in flight with the count.
  reg        macs_v_q;
  reg [15:0] macs_m_q;
  reg [19:0] macs_kn_q;
  reg [35:0] macs_inc_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_cycles_q <= 64'h0;
      cnt_busy_q   <= 64'h0;
      cnt_macs_q   <= 64'h0;
      macs_v_q     <= 1'b0;
      macs_inc_q   <= 36'h0;
      cnt_rd_q     <= 64'h0;
      cnt_wr_q     <= 64'h0;
      cnt_cmds_q   <= 64'h0;
    end else if (cnt_clear_i) begin
      cnt_cycles_q <= 64'h0;
      cnt_busy_q   <= 64'h0;
      cnt_macs_q   <= 64'h0;
      macs_v_q     <= 1'b0;
      macs_inc_q   <= 36'h0;
      cnt_rd_q     <= 64'h0;
      cnt_wr_q     <= 64'h0;
      cnt_cmds_q   <= 64'h0;
    end else begin
      cnt_cycles_q <= cnt_cycles_q + 64'h1;
      cnt_busy_q   <= cnt_busy_q + {63'h0, engine_busy};
      macs_v_q     <= mm_start;
      macs_inc_q   <= macs_v_q ? {20'h0, macs_m_q} * {16'h0, macs_kn_q} : 36'h0;
      cnt_macs_q   <= cnt_macs_q + {28'h0, macs_inc_q};
      cnt_rd_q     <= cnt_rd_q + (rd_beat_i ? AxiBytes64 : 64'h0);
      cnt_wr_q     <= cnt_wr_q + {{(64-WrBytesWidth){1'b0}}, wr_bytes_i};
      cnt_cmds_q   <= cnt_cmds_q + {63'h0, retire} + {63'h0, lq_retire} + {63'h0, sq_retire} +
                      {63'h0, mmx_fire};
    end
  end

  always @(posedge clk_i) begin
    if (mm_start) begin
      macs_m_q  <= mm_m;
      macs_kn_q <= macs_add_kn;
    end
  end

  assign busy_o        = engine_busy;
  assign done_o        = done_q && !ring_busy_i;
  assign error_o       = (state_q == StError);
  assign err_code_o    = err_code_q;
  assign err_cmd_idx_o = err_idx_q;
  assign err_addr_o    = err_addr_q;
  assign cmd_idx_o     = cmd_idx_q;
  assign opcode_o      = (state_q == StDecode || state_q == StExec) ? opcode : 8'h0;
  assign cmdq_free_o   = CmdQDepth[15:0] - {{(15-QAw){1'b0}}, count_q};
  assign cmdq_words_o  = words_q;
  assign irq_done_o    = irq_done;
  assign irq_error_o   = irq_error;
  assign irq_fence_o   = irq_fence;
  // Every command retires once: in the front end, or in the load or store stage.
  assign irq_cmd_o     = !bg_fail && !soft_reset_i &&
                         ((retire && cmd_q[CmdIrqCmdLsb +: CmdIrqCmdWidth]) || (lq_retire && lq_cmd[CmdIrqCmdLsb +: CmdIrqCmdWidth]) ||
                          (sq_retire && sq_cmd[CmdIrqCmdLsb +: CmdIrqCmdWidth]) || (mmx_fire && mmx_irq_q));
  assign ring_ready_o  = ring_ready;
  assign halt_o        = (state_q == StError) || (state_q == StAbort);
  assign irq_clear_o   = (state_q == StAbort) && (state_d == StIdle);
  assign cnt_cycles_o  = cnt_cycles_q;
  assign cnt_busy_o    = cnt_busy_q;
  assign cnt_macs_o    = cnt_macs_q;
  assign cnt_dma_rd_o  = cnt_rd_q;
  assign cnt_dma_wr_o  = cnt_wr_q;
  assign cnt_cmds_o    = cnt_cmds_q;
  assign cmd_o         = cmd_q;
  assign cmd_rd_o      = lq_start ? lq_cmd : cmd_q;
  // The store unit copies the command in its start cycle, its writer when it starts.
  assign cmd_st_o      = !st_start ? st_cmd_q : sq2_start ? sq2_cmd : sq_cmd;
  assign unit_clr_o    = unit_clr;
  assign rd_start_o    = rd_start || lq_start;
  assign rd_abort_o    = aborting;
  assign wr_abort_o    = aborting;
  assign mm_start_o    = mm_start;
  assign mm_pre_o      = mm_pre;
  assign cmd_pre_o     = pre_dec ? cmd_q : peek_q;
  assign st_start_o    = st_start;
  assign sfu_start_o   = sfu_start;

  /* verilator tracing_off */  // an unused signal the model need not compute
  wire unused_bits = ^{peek_ptr[QAw+1:QAw], mm_k[15:9], mm_n[15:9]};
  /* verilator tracing_on */
`ifdef FORMAL
  // ---- Formal properties of the command queue: `make formal` proves them by k-induction
  // (docs/formal.md). The rest of the controller runs free: every input (bus words, soft
  // reset, unit busy/done/error) is unconstrained. Pointer-level "two tokens": two pushes
  // A then B are picked at random and followed by their queue slot; the RAM itself
  // (tsr_sram: a slot returns what was last written to it) is its own contract.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);

  wire [QAw-1:0] f_used = wr_ptr_q - rd_ptr_q;          // occupancy modulo the depth
  // No overflow, no underflow, occupancy = write pointer - read pointer, with full (count =
  // depth, pointers equal) told apart from empty (count = 0, pointers equal).
  always @(*) begin
    if (rst_ni) begin
      assert (count_q <= CmdQDepth[QAw:0]);
      assert (f_used == count_q[QAw-1:0]);
      if (push || ring_push) assert (count_q < CmdQDepth[QAw:0]);
      if (push && ring_push) assert (1'b0);   // one write port: never both
      if (q_re) assert (count_q != {(QAw+1){1'b0}});
      if (cmd_we_i && words_q == 3'd7 && q_full) assert (!push);
      // A command read ahead (peeked) is still in the queue: only a fetch,
      // which forgets the peek, pops one.
      if (peek_v_q || peek_rd_q) assert ({{(QAw-1){1'b0}}, peek_off_q} < count_q);
    end
  end

  // Two tokens: A is a push picked at random, B a later push picked while A is queued.
  wire           f_pick_a = $anyseq;
  wire           f_pick_b = $anyseq;
  reg            f_a_v, f_b_v;                          // token pushed and not yet popped
  reg  [QAw-1:0] f_a_slot, f_b_slot;
  wire [QAw-1:0] f_a_dist = f_a_slot - rd_ptr_q;        // pops still ahead of A
  wire [QAw-1:0] f_b_dist = f_b_slot - rd_ptr_q;
  wire           f_a_pop  = f_a_v && q_re && (rd_ptr_q == f_a_slot);
  wire           f_b_pop  = f_b_v && q_re && (rd_ptr_q == f_b_slot);
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_a_v <= 1'b0; f_b_v <= 1'b0; f_a_slot <= {QAw{1'b0}}; f_b_slot <= {QAw{1'b0}};
    end else if (soft_reset_i) begin
      f_a_v <= 1'b0; f_b_v <= 1'b0;                     // soft reset empties the queue
    end else begin
      if (f_a_pop) f_a_v <= 1'b0;
      if (f_b_pop) f_b_v <= 1'b0;
      if ((push || ring_push) && f_pick_a && !f_a_v && !f_b_v) begin
        f_a_v <= 1'b1; f_a_slot <= wr_ptr_q;
      end
      if ((push || ring_push) && f_pick_b && f_a_v && !f_b_v) begin
        f_b_v <= 1'b1; f_b_slot <= wr_ptr_q;
      end
    end
  end
  always @(*) begin
    if (rst_ni) begin
      // A queued entry's slot is never overwritten before it is popped ...
      if (f_a_v) assert (!((push || ring_push) && wr_ptr_q == f_a_slot));
      if (f_b_v) assert (!((push || ring_push) && wr_ptr_q == f_b_slot));
      // ... and entries leave in push order: B is never popped while A is still queued.
      if (f_b_pop) assert (!f_a_v);
      // Inductive invariants: a queued token lies between the read and write pointers,
      // A ahead of B; a B token exists only while A is queued or after A left.
      if (f_a_v) assert ({1'b0, f_a_dist} < count_q);
      if (f_b_v) assert ({1'b0, f_b_dist} < count_q);
      if (f_a_v && f_b_v) assert (f_a_dist < f_b_dist);
    end
  end

  // The registered MATMUL banks are cmd_q's wherever a MATMUL may start (StDecode).
  always @(*) begin
    if (rst_ni && state_q == StDecode) assert (mm_banks_new == mm_banks_of(cmd_q));
  end
`endif
endmodule

`default_nettype wire
