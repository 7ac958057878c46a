// tsr_regs_tb: self-checking block test of the generated AXI4-Lite register block.
//
// Drives rtl/regs/tsr_regs.v through AXI4-Lite master tasks and checks: rw
// read-back, byte strobes, w1c set/clear priority and w1c_clear_i, wo pulses,
// SLVERR with no side effect (unmapped, misaligned, write to ro, wo with a
// partial strobe), upper address bits ignored, AW/W in either order,
// BREADY/RREADY held low for many cycles, back-to-back and concurrent
// transactions, then seeded random operations against a reference model.
//
// Structure: a directed prologue drives the bus by hand for exact-cycle
// checks (set-vs-clear priority, pulse timing, R one cycle after AR); then
// every other check is an entry in an operation list that run_list executes.
// A monitor checks the bus contract at every rising edge: VALID and its data
// held until READY, one write and one read in flight, B only after AW and W,
// R the cycle after AR, wo pulses one cycle wide and 0 in between, no X.
//
// Run: make test-block-regs [BLOCK_SIM=iverilog] [BLOCK_ARGS='+seed=N +trace=f.vcd']
// Prints PASS, or FAIL lines and the error count, and exits non-zero ($fatal).
//
// Timing discipline: the test drives inputs and reads outputs at falling
// edges; the monitor samples at rising edges, before the DUT's flops update,
// i.e. exactly what the DUT sees.
`timescale 1ns / 1ps
`default_nettype none

module tsr_regs_tb;

  localparam integer RandomTxns = 600;
  localparam integer Timeout    = 1000;  // cycles any single wait may take
  localparam [1:0]   Okay       = 2'b00;
  localparam [1:0]   SlvErr     = 2'b10;

  // Register offsets (rtl/regs/tessera_regs.toml).
  localparam [31:0] ID = 32'h000, CONFIG = 32'h004, SPAD_ROWS = 32'h008, ACC_ROWS = 32'h00c;
  localparam [31:0] CTRL = 32'h010, STATUS = 32'h014, IRQ_STATUS = 32'h018, IRQ_ENABLE = 32'h01c;
  localparam [31:0] ERR_CODE = 32'h020, ERR_CMD_IDX = 32'h024, ERR_ADDR = 32'h028;
  localparam [31:0] CMD_IDX = 32'h02c, CMDQ_PUSH = 32'h030, CMDQ_STATUS = 32'h034;
  localparam [31:0] OPCODE = 32'h038, CNT_FIRST = 32'h040, CNT_LAST = 32'h06c,
                    CNT2_FIRST = 32'h080, CNT2_LAST = 32'h0bc;
  localparam [31:0] DMA_WIN_BASE = 32'h070, DMA_WIN_LIMIT = 32'h074, DMA_WIN_CTRL = 32'h078;
  localparam [31:0] RING_BASE = 32'h0c0, RING_SIZE = 32'h0c4, RING_HEAD = 32'h0c8,
                    RING_TAIL = 32'h0cc, RING_CTRL = 32'h0d0;

  reg clk = 1'b0;
  always #5 clk = ~clk;
  reg rst_n = 1'b0;

  // ---- AXI4-Lite master side ----
  reg         awvalid = 1'b0;
  wire        awready;
  reg  [31:0] awaddr = 32'h0;
  reg         wvalid = 1'b0;
  wire        wready;
  reg  [31:0] wdata = 32'h0;
  reg  [3:0]  wstrb = 4'h0;
  wire        bvalid;
  reg         bready = 1'b0;
  wire [1:0]  bresp;
  reg         arvalid = 1'b0;
  wire        arready;
  reg  [31:0] araddr = 32'h0;
  wire        rvalid;
  reg         rready = 1'b0;
  wire [31:0] rdata;
  wire [1:0]  rresp;

  // ---- hardware side ----
  reg         w1c_clear = 1'b0;
  reg  [7:0]  id_minor, id_major, cfg_dim, cfg_axi_bytes, cfg_depth, err_code, opcode;
  reg         cfg_sfu;
  reg  [3:0]  cfg_lanes_log2;
  reg  [15:0] id_vendor, cmdq_free;
  reg  [2:0]  cmdq_words;
  reg  [31:0] spad_rows, acc_rows, err_cmd_idx, err_addr, cmd_idx;
  reg         st_busy, st_done, st_error;
  reg  [31:0] cnt [0:27];   // CNT_CYCLES_LO .. CNT_CMDS_HI, then CNT_ARRAY_LO .. CNT_WR_STALL_HI
  reg  [3:0]  irq_set = 4'b0000;  // {CMD, FENCE, ERROR, DONE}
  wire        ctrl_soft_reset, ctrl_counters_clear, ctrl_we;
  wire [3:0]  irq_status, irq_enable;
  reg  [31:0] ring_head = 32'h0;
  wire [31:0] ring_base, ring_size, ring_tail;
  wire        ring_enable;
  wire [31:0] cmdq_word;
  wire        cmdq_we;
  wire [31:0] win_base, win_limit;
  wire        win_lock;

  tsr_regs u_dut (
    .clk_i                  (clk),
    .rst_ni                 (rst_n),
    .s_axil_awvalid         (awvalid),
    .s_axil_awready         (awready),
    .s_axil_awaddr          (awaddr),
    .s_axil_wvalid          (wvalid),
    .s_axil_wready          (wready),
    .s_axil_wdata           (wdata),
    .s_axil_wstrb           (wstrb),
    .s_axil_bvalid          (bvalid),
    .s_axil_bready          (bready),
    .s_axil_bresp           (bresp),
    .s_axil_arvalid         (arvalid),
    .s_axil_arready         (arready),
    .s_axil_araddr          (araddr),
    .s_axil_rvalid          (rvalid),
    .s_axil_rready          (rready),
    .s_axil_rdata           (rdata),
    .s_axil_rresp           (rresp),
    .w1c_clear_i            (w1c_clear),
    .id_minor_i             (id_minor),
    .id_major_i             (id_major),
    .id_vendor_i            (id_vendor),
    .config_array_dim_i     (cfg_dim),
    .config_axi_bytes_i     (cfg_axi_bytes),
    .config_cmdq_depth_i    (cfg_depth),
    .config_sfu_i           (cfg_sfu),
    .config_lanes_log2_i    (cfg_lanes_log2),
    .spad_rows_rows_i       (spad_rows),
    .acc_rows_rows_i        (acc_rows),
    .ctrl_soft_reset_o      (ctrl_soft_reset),
    .ctrl_counters_clear_o  (ctrl_counters_clear),
    .ctrl_we_o              (ctrl_we),
    .status_busy_i          (st_busy),
    .status_done_i          (st_done),
    .status_error_i         (st_error),
    .irq_status_done_set_i  (irq_set[0]),
    .irq_status_done_o      (irq_status[0]),
    .irq_status_error_set_i (irq_set[1]),
    .irq_status_error_o     (irq_status[1]),
    .irq_status_fence_set_i (irq_set[2]),
    .irq_status_fence_o     (irq_status[2]),
    .irq_enable_done_o      (irq_enable[0]),
    .irq_enable_error_o     (irq_enable[1]),
    .irq_enable_fence_o     (irq_enable[2]),
    .irq_status_cmd_set_i   (irq_set[3]),
    .irq_status_cmd_o       (irq_status[3]),
    .irq_enable_cmd_o       (irq_enable[3]),
    .ring_base_addr_o       (ring_base),
    .ring_size_bytes_o      (ring_size),
    .ring_head_offset_i     (ring_head),
    .ring_tail_offset_o     (ring_tail),
    .ring_ctrl_enable_o     (ring_enable),
    .err_code_code_i        (err_code),
    .err_cmd_idx_idx_i      (err_cmd_idx),
    .err_addr_addr_i        (err_addr),
    .cmd_idx_idx_i          (cmd_idx),
    .cmdq_push_word_o       (cmdq_word),
    .cmdq_push_we_o         (cmdq_we),
    .cmdq_status_free_i     (cmdq_free),
    .cmdq_status_words_i    (cmdq_words),
    .opcode_op_i            (opcode),
    .cnt_cycles_lo_val_i    (cnt[0]),
    .cnt_cycles_hi_val_i    (cnt[1]),
    .cnt_busy_lo_val_i      (cnt[2]),
    .cnt_busy_hi_val_i      (cnt[3]),
    .cnt_macs_lo_val_i      (cnt[4]),
    .cnt_macs_hi_val_i      (cnt[5]),
    .cnt_dma_rd_lo_val_i    (cnt[6]),
    .cnt_dma_rd_hi_val_i    (cnt[7]),
    .cnt_dma_wr_lo_val_i    (cnt[8]),
    .cnt_dma_wr_hi_val_i    (cnt[9]),
    .dma_win_base_addr_o    (win_base),
    .dma_win_limit_addr_o   (win_limit),
    .dma_win_ctrl_lock_o    (win_lock),
    .cnt_cmds_lo_val_i      (cnt[10]),
    .cnt_cmds_hi_val_i      (cnt[11]),
    .cnt_array_lo_val_i       (cnt[12]),
    .cnt_array_hi_val_i       (cnt[13]),
    .cnt_fill_lo_val_i        (cnt[14]),
    .cnt_fill_hi_val_i        (cnt[15]),
    .cnt_load_wait_lo_val_i   (cnt[16]),
    .cnt_load_wait_hi_val_i   (cnt[17]),
    .cnt_store_lo_val_i       (cnt[18]),
    .cnt_store_hi_val_i       (cnt[19]),
    .cnt_sfu_lo_val_i         (cnt[20]),
    .cnt_sfu_hi_val_i         (cnt[21]),
    .cnt_ctrl_lo_val_i        (cnt[22]),
    .cnt_ctrl_hi_val_i        (cnt[23]),
    .cnt_rd_stall_lo_val_i    (cnt[24]),
    .cnt_rd_stall_hi_val_i    (cnt[25]),
    .cnt_wr_stall_lo_val_i    (cnt[26]),
    .cnt_wr_stall_hi_val_i    (cnt[27])
  );

  // From here on, check()/fail() take 32-bit values and the tasks take integers:
  // narrower arguments are zero-extended on purpose, and rand32() results are
  // truncated to the width of the input they drive on purpose. (The DUT port
  // connections above stay width-checked.)
  /* verilator lint_off WIDTH */

  // ---- error reporting ----
  integer errors = 0;
  integer seed;
  integer cur_op = -1;   // index of the list operation being run (-1: directed prologue)

  // xorshift32 PRNG: the same sequence on every simulator.
`include "tsr_tb_prng.vh"   // rng, rand32(), urand(), xorshift32()

  task automatic fail(input [8*96-1:0] what, input [31:0] got, input [31:0] exp);
    begin
      errors = errors + 1;
      if (errors <= 20) begin
        $display("FAIL @%0t op #%0d: %0s: got 0x%08x, expected 0x%08x",
                 $time, cur_op, what, got, exp);
      end
    end
  endtask

  task automatic check(input [8*96-1:0] what, input [31:0] got, input [31:0] exp);
    begin
      if (got !== exp) begin
        fail(what, got, exp);
      end
    end
  endtask

  // ---- monitor: bus contract, sampled at the rising edge ----
  integer aw_n = 0, w_n = 0, b_n = 0, ar_n = 0, r_n = 0;  // handshakes so far
  reg        b_wait = 1'b0, r_wait = 1'b0;  // VALID was up without READY last edge
  reg [1:0]  b_resp_prev = 2'b00;
  reg [1:0]  r_resp_prev = 2'b00;
  reg [31:0] r_data_prev = 32'h0;
  reg        ar_prev = 1'b0;
  reg        ctrl_we_prev = 1'b0, cmdq_we_prev = 1'b0;
  integer    ctrl_pulses = 0, cmdq_pulses = 0;
  reg [1:0]  ctrl_last = 2'b00;   // {COUNTERS_CLEAR, SOFT_RESET} of the last pulse
  reg [31:0] cmdq_log [0:63];     // CMDQ_PUSH words, indexed by pulse count mod 64

  always @(posedge clk) begin
    if (rst_n) begin
      if ((^{awready, wready, bvalid, bresp, arready, rvalid, rresp, ctrl_we, cmdq_we,
             irq_status, irq_enable}) === 1'bx) begin
        fail("X on a DUT output", 32'h0, 32'h0);
      end
      if (bvalid && !(aw_n > b_n && w_n > b_n)) begin
        fail("BVALID before both AW and W were taken", aw_n, b_n);
      end
      if (awready && aw_n > b_n) begin
        fail("AWREADY with a write already in flight", aw_n, b_n);
      end
      if (wready && w_n > b_n) begin
        fail("WREADY with a write already in flight", w_n, b_n);
      end
      if (arready && ar_n > r_n) begin
        fail("ARREADY with a read already in flight", ar_n, r_n);
      end
      if (b_wait && !(bvalid && bresp == b_resp_prev)) begin
        fail("BVALID/BRESP not held until BREADY", {bvalid, bresp}, {1'b1, b_resp_prev});
      end
      if (r_wait && !(rvalid && rresp == r_resp_prev && rdata == r_data_prev)) begin
        fail("RVALID/RDATA/RRESP not held until RREADY", rdata, r_data_prev);
      end
      if (ar_prev && !rvalid) begin
        fail("RVALID not the cycle after AR", 32'h0, 32'h1);
      end
      // wo pulses: one cycle wide, and the data outputs are 0 between pulses.
      if (ctrl_we && ctrl_we_prev) begin
        fail("ctrl_we_o high for two cycles", 32'h1, 32'h0);
      end
      if (cmdq_we && cmdq_we_prev) begin
        fail("cmdq_push_we_o high for two cycles", 32'h1, 32'h0);
      end
      if (!ctrl_we && {ctrl_counters_clear, ctrl_soft_reset} != 2'b00) begin
        fail("CTRL outputs nonzero without ctrl_we_o", {ctrl_counters_clear, ctrl_soft_reset}, 0);
      end
      if (!cmdq_we && cmdq_word != 32'h0) begin
        fail("cmdq_push_word_o nonzero without cmdq_push_we_o", cmdq_word, 32'h0);
      end
      if (ctrl_we) begin
        ctrl_last   = {ctrl_counters_clear, ctrl_soft_reset};
        ctrl_pulses = ctrl_pulses + 1;
      end
      if (cmdq_we) begin
        cmdq_log[cmdq_pulses % 64] = cmdq_word;
        cmdq_pulses = cmdq_pulses + 1;
      end
      ctrl_we_prev = ctrl_we;
      cmdq_we_prev = cmdq_we;
      b_wait       = bvalid && !bready;
      b_resp_prev  = bresp;
      r_wait       = rvalid && !rready;
      r_resp_prev  = rresp;
      r_data_prev  = rdata;
      ar_prev      = arvalid && arready;
      if (awvalid && awready) aw_n = aw_n + 1;
      if (wvalid && wready)   w_n  = w_n + 1;
      if (bvalid && bready)   b_n  = b_n + 1;
      if (arvalid && arready) ar_n = ar_n + 1;
      if (rvalid && rready)   r_n  = r_n + 1;
    end
  end

  // ---- AXI4-Lite master tasks (called at a falling edge, return at one) ----

  // Wait until a DUT output is 1, at falling edges, with a timeout.
  task automatic wait_high(input integer which, input [8*32-1:0] name);
    integer n;
    reg     sig;
    begin
      n = 0;
      sig = (which == 0) ? awready : (which == 1) ? wready : (which == 2) ? bvalid :
            (which == 3) ? arready : rvalid;
      while (!sig) begin
        @(negedge clk);
        n = n + 1;
        if (n > Timeout) begin
          $display("FAIL @%0t: timeout waiting for %0s (DUT locked up)", $time, name);
          $fatal(1, "FAIL");
        end
        sig = (which == 0) ? awready : (which == 1) ? wready : (which == 2) ? bvalid :
              (which == 3) ? arready : rvalid;
      end
    end
  endtask

  // One write. aw_dly/w_dly: cycles before AWVALID/WVALID rise (either order);
  // b_dly: cycles BREADY stays low after both beats were sent.
  task automatic axi_write(input [31:0] addr, input [31:0] data, input [3:0] strb,
                           input integer aw_dly, input integer w_dly, input integer b_dly,
                           output [1:0] resp);
    begin
      fork
        begin
          repeat (aw_dly) @(negedge clk);
          awvalid = 1'b1;
          awaddr  = addr;
          wait_high(0, "AWREADY");
          @(negedge clk);
          awvalid = 1'b0;
          awaddr  = 32'hxxxx_xxxx;
        end
        begin
          repeat (w_dly) @(negedge clk);
          wvalid = 1'b1;
          wdata  = data;
          wstrb  = strb;
          wait_high(1, "WREADY");
          @(negedge clk);
          wvalid = 1'b0;
          wdata  = 32'hxxxx_xxxx;
          wstrb  = 4'hx;
        end
      join
      repeat (b_dly) @(negedge clk);
      bready = 1'b1;
      wait_high(2, "BVALID");
      resp = bresp;
      @(negedge clk);
      bready = 1'b0;
    end
  endtask

  // One read; r_dly: cycles RREADY stays low after AR was taken.
  task automatic axi_read(input [31:0] addr, input integer r_dly,
                          output [31:0] data, output [1:0] resp);
    begin
      arvalid = 1'b1;
      araddr  = addr;
      wait_high(3, "ARREADY");
      @(negedge clk);
      arvalid = 1'b0;
      araddr  = 32'hxxxx_xxxx;
      repeat (r_dly) @(negedge clk);
      rready = 1'b1;
      wait_high(4, "RVALID");
      data = rdata;
      resp = rresp;
      @(negedge clk);
      rready = 1'b0;
    end
  endtask

  // ---- reference model ----
  reg [3:0] m_enable = 4'b0000;  // IRQ_ENABLE
  reg [3:0] m_status = 4'b0000;  // IRQ_STATUS
  reg [31:0] m_rbase = 32'h0, m_rsize = 32'h0, m_rtail = 32'h0;   // RING_BASE, _SIZE, _TAIL
  reg        m_ren   = 1'b0;                                     // RING_CTRL.ENABLE
  reg [31:0] m_wbase  = 32'h0;            // DMA_WIN_BASE
  reg [31:0] m_wlimit = 32'hffff_ffff;    // DMA_WIN_LIMIT
  reg        m_lock   = 1'b0;             // DMA_WIN_CTRL.LOCK: refuses writes to all three

  function automatic is_mapped(input [31:0] addr);
    begin
      is_mapped = (addr[1:0] == 2'b00) &&
                  (addr[11:0] <= OPCODE || (addr[11:0] >= CNT_FIRST && addr[11:0] <= CNT_LAST) ||
                   (addr[11:0] >= CNT2_FIRST && addr[11:0] <= CNT2_LAST) ||
                   (addr[11:0] >= DMA_WIN_BASE && addr[11:0] <= DMA_WIN_CTRL) ||
                   (addr[11:0] >= RING_BASE && addr[11:0] <= RING_CTRL));
    end
  endfunction

  function automatic [31:0] exp_read(input [31:0] addr);
    reg [11:0] a;
    begin
      a = addr[11:0];
      exp_read = 32'h0;
      if (!is_mapped(addr)) begin
        exp_read = 32'h0;
      end else if (a >= CNT_FIRST && a <= CNT_LAST) begin
        exp_read = cnt[(a - CNT_FIRST) >> 2];
      end else if (a >= CNT2_FIRST && a <= CNT2_LAST) begin
        exp_read = cnt[12 + ((a - CNT2_FIRST) >> 2)];
      end else begin
        case (a)
          ID:          exp_read = {id_vendor, id_major, id_minor};
          CONFIG:      exp_read = {3'h0, cfg_lanes_log2, cfg_sfu, cfg_depth, cfg_axi_bytes, cfg_dim};
          SPAD_ROWS:   exp_read = spad_rows;
          ACC_ROWS:    exp_read = acc_rows;
          CTRL:        exp_read = 32'h0;
          STATUS:      exp_read = {29'h0, st_error, st_done, st_busy};
          IRQ_STATUS:  exp_read = {28'h0, m_status};
          IRQ_ENABLE:  exp_read = {28'h0, m_enable};
          ERR_CODE:    exp_read = {24'h0, err_code};
          ERR_CMD_IDX: exp_read = err_cmd_idx;
          ERR_ADDR:    exp_read = err_addr;
          CMD_IDX:     exp_read = cmd_idx;
          CMDQ_PUSH:   exp_read = 32'h0;
          CMDQ_STATUS: exp_read = {13'h0, cmdq_words, cmdq_free};
          OPCODE:      exp_read = {24'h0, opcode};
          DMA_WIN_BASE:  exp_read = m_wbase;
          DMA_WIN_LIMIT: exp_read = m_wlimit;
          DMA_WIN_CTRL:  exp_read = {31'h0, m_lock};
          RING_BASE:   exp_read = m_rbase;
          RING_SIZE:   exp_read = m_rsize;
          RING_HEAD:   exp_read = ring_head;
          RING_TAIL:   exp_read = m_rtail;
          RING_CTRL:   exp_read = {31'h0, m_ren};
          default:     exp_read = 32'h0;
        endcase
      end
    end
  endfunction

  function automatic [1:0] exp_wresp(input [31:0] addr, input [3:0] strb);
    reg [11:0] a;
    begin
      a = addr[11:0];
      if (!is_mapped(addr)) begin
        exp_wresp = SlvErr;
      end else if (a == IRQ_STATUS || a == IRQ_ENABLE || a == RING_BASE || a == RING_SIZE ||
                   a == RING_TAIL || a == RING_CTRL) begin
        exp_wresp = Okay;
      end else if (a == DMA_WIN_BASE || a == DMA_WIN_LIMIT || a == DMA_WIN_CTRL) begin
        exp_wresp = m_lock ? SlvErr : Okay;
      end else if (a == CTRL || a == CMDQ_PUSH) begin
        exp_wresp = (strb == 4'hf) ? Okay : SlvErr;
      end else begin
        exp_wresp = SlvErr;  // only ro fields
      end
    end
  endfunction

  // Write, check the response, the side effects (model, ports, wo pulses).
  task automatic wr(input [31:0] addr, input [31:0] data, input [3:0] strb,
                    input integer aw_dly, input integer w_dly, input integer b_dly);
    reg [1:0]  resp, eresp;
    reg [31:0] mask;
    integer    ctrl0, cmdq0;
    begin
      ctrl0 = ctrl_pulses;
      cmdq0 = cmdq_pulses;
      eresp = exp_wresp(addr, strb);
      axi_write(addr, data, strb, aw_dly, w_dly, b_dly, resp);
      check("BRESP", resp, eresp);
      mask = {{8{strb[3]}}, {8{strb[2]}}, {8{strb[1]}}, {8{strb[0]}}};
      if (eresp == Okay && addr[11:0] == IRQ_ENABLE) begin
        m_enable = (m_enable & ~mask[3:0]) | (data[3:0] & mask[3:0]);
      end
      if (eresp == Okay && addr[11:0] == IRQ_STATUS) begin
        m_status = m_status & ~(data[3:0] & mask[3:0]);
      end
      if (eresp == Okay && addr[11:0] == DMA_WIN_BASE) begin
        m_wbase = (m_wbase & ~mask) | (data & mask);
      end
      if (eresp == Okay && addr[11:0] == DMA_WIN_LIMIT) begin
        m_wlimit = (m_wlimit & ~mask) | (data & mask);
      end
      if (eresp == Okay && addr[11:0] == DMA_WIN_CTRL) begin
        m_lock = (m_lock & ~mask[0]) | (data[0] & mask[0]);
      end
      if (eresp == Okay && addr[11:0] == RING_BASE) m_rbase = (m_rbase & ~mask) | (data & mask);
      if (eresp == Okay && addr[11:0] == RING_SIZE) m_rsize = (m_rsize & ~mask) | (data & mask);
      if (eresp == Okay && addr[11:0] == RING_TAIL) m_rtail = (m_rtail & ~mask) | (data & mask);
      if (eresp == Okay && addr[11:0] == RING_CTRL) m_ren = (m_ren & ~mask[0]) | (data[0] & mask[0]);
      check("ctrl_we_o pulses", ctrl_pulses - ctrl0,
            (eresp == Okay && addr[11:0] == CTRL) ? 1 : 0);
      if (eresp == Okay && addr[11:0] == CTRL) begin
        check("CTRL pulse data", ctrl_last, data[1:0]);
      end
      check("cmdq_push_we_o pulses", cmdq_pulses - cmdq0,
            (eresp == Okay && addr[11:0] == CMDQ_PUSH) ? 1 : 0);
      if (eresp == Okay && addr[11:0] == CMDQ_PUSH) begin
        check("CMDQ_PUSH pulse data", cmdq_log[cmdq0 % 64], data);
      end
      check("irq_enable_*_o", irq_enable, m_enable);
      check("irq_status_*_o", irq_status, m_status);
      check("dma_win_base_addr_o", win_base, m_wbase);
      check("dma_win_limit_addr_o", win_limit, m_wlimit);
      check("dma_win_ctrl_lock_o", win_lock, m_lock);
      check("ring_base_addr_o", ring_base, m_rbase);
      check("ring_size_bytes_o", ring_size, m_rsize);
      check("ring_tail_offset_o", ring_tail, m_rtail);
      check("ring_ctrl_enable_o", ring_enable, m_ren);
    end
  endtask

  // Read and compare with the model.
  task automatic rd(input [31:0] addr, input integer r_dly);
    reg [31:0] data, edata;
    reg [1:0]  resp;
    begin
      edata = exp_read(addr);
      axi_read(addr, r_dly, data, resp);
      check("RRESP", resp, is_mapped(addr) ? Okay : SlvErr);
      check("RDATA", data, edata);
    end
  endtask

  // Pulse hardware set inputs for one cycle (no write in flight).
  task automatic hw_set(input [2:0] bits);
    begin
      irq_set = bits;
      @(negedge clk);
      irq_set = 3'b000;
      m_status = m_status | bits;
    end
  endtask

  task automatic randomize_ro;
    integer i;
    begin
      {id_vendor, id_major, id_minor} = rand32(0);
      {cfg_lanes_log2, cfg_sfu, cfg_depth, cfg_axi_bytes, cfg_dim} = rand32(0);
      spad_rows   = rand32(0);
      acc_rows    = rand32(0);
      {st_error, st_done, st_busy} = rand32(0);
      err_code    = rand32(0);
      err_cmd_idx = rand32(0);
      err_addr    = rand32(0);
      cmd_idx     = rand32(0);
      {cmdq_words, cmdq_free} = rand32(0);
      opcode      = rand32(0);
      for (i = 0; i < 28; i = i + 1) begin
        cnt[i] = rand32(0);
      end
    end
  endtask

  // ---- operation list ----
  // The directed and the random tests are one list of operations that
  // run_list executes. Each bus task then has a single call site: Verilator
  // inlines every call of a task, and ~100 direct call sites made a 13 MB
  // model that took ten minutes to compile.
  localparam [2:0] OpWr     = 3'd0;  // write, check response and side effects
  localparam [2:0] OpRd     = 3'd1;  // read, check response and data
  localparam [2:0] OpPar    = 3'd2;  // a write and a read of another register at once
  localparam [2:0] OpHwSet  = 3'd3;  // pulse the w1c set inputs for one cycle
  localparam [2:0] OpW1cClr = 3'd4;  // pulse w1c_clear_i, with the set inputs = data
  localparam [2:0] OpRandRo = 3'd5;  // new random values on every ro input
  localparam [2:0] OpExpect = 3'd6;  // literal check: irq_enable = data[2:0], irq_status = data[5:3]
  localparam integer ListMax = 4096;

  reg [2:0]  l_op    [0:ListMax-1];
  reg [31:0] l_addr  [0:ListMax-1];
  reg [31:0] l_data  [0:ListMax-1];
  reg [3:0]  l_strb  [0:ListMax-1];
  reg [31:0] l_raddr [0:ListMax-1];
  reg [7:0]  l_awd   [0:ListMax-1];  // cycles before AWVALID
  reg [7:0]  l_wd    [0:ListMax-1];  // cycles before WVALID
  reg [7:0]  l_bd    [0:ListMax-1];  // cycles BREADY stays low
  reg [7:0]  l_rd    [0:ListMax-1];  // cycles RREADY stays low
  integer    l_n = 0;

  task automatic push(input [2:0] op, input [31:0] addr, input [31:0] data, input [3:0] strb,
                      input [7:0] awd, input [7:0] wd, input [7:0] bd,
                      input [31:0] raddr, input [7:0] rdl);
    begin
      if (l_n >= ListMax) begin
        $fatal(1, "FAIL: operation list full (ListMax = %0d)", ListMax);
      end
      l_op[l_n] = op;     l_addr[l_n] = addr;  l_data[l_n] = data;  l_strb[l_n] = strb;
      l_awd[l_n] = awd;   l_wd[l_n] = wd;      l_bd[l_n] = bd;
      l_raddr[l_n] = raddr;  l_rd[l_n] = rdl;
      l_n = l_n + 1;
    end
  endtask

  task automatic pw(input [31:0] addr, input [31:0] data);
    push(OpWr, addr, data, 4'hf, 0, 0, 0, 0, 0);
  endtask
  task automatic pws(input [31:0] addr, input [31:0] data, input [3:0] strb);
    push(OpWr, addr, data, strb, 0, 0, 0, 0, 0);
  endtask
  task automatic pwd(input [31:0] addr, input [31:0] data, input [7:0] awd, input [7:0] wd,
                     input [7:0] bd);
    push(OpWr, addr, data, 4'hf, awd, wd, bd, 0, 0);
  endtask
  task automatic pr(input [31:0] addr);
    push(OpRd, addr, 0, 0, 0, 0, 0, 0, 0);
  endtask
  task automatic prd(input [31:0] addr, input [7:0] rdl);
    push(OpRd, addr, 0, 0, 0, 0, 0, 0, rdl);
  endtask
  task automatic ppar(input [31:0] addr, input [31:0] data, input [7:0] bd,
                      input [31:0] raddr, input [7:0] rdl);
    push(OpPar, addr, data, 4'hf, 0, 0, bd, raddr, rdl);
  endtask
  task automatic phw(input [2:0] bits);
    push(OpHwSet, 0, bits, 0, 0, 0, 0, 0, 0);
  endtask
  task automatic pclr(input [2:0] set_bits);
    push(OpW1cClr, 0, set_bits, 0, 0, 0, 0, 0, 0);
  endtask
  task automatic pexp(input [3:0] enable, input [3:0] status);
    push(OpExpect, 0, {status, enable}, 0, 0, 0, 0, 0, 0);
  endtask
  task automatic pread_all;
    integer j;
    for (j = 0; j <= RING_CTRL + 4; j = j + 4) begin
      pr(j);
    end
  endtask

  task automatic run_list;
    integer j;
    begin
      for (j = 0; j < l_n; j = j + 1) begin
        cur_op = j;
        case (l_op[j])
          OpWr: begin
            wr(l_addr[j], l_data[j], l_strb[j], l_awd[j], l_wd[j], l_bd[j]);
          end
          OpRd: begin
            rd(l_addr[j], l_rd[j]);
          end
          OpPar: begin
            // (each branch in begin/end: Verilator 5.006 does not wait for a
            // fork branch that is a bare task call)
            fork
              begin
                wr(l_addr[j], l_data[j], l_strb[j], l_awd[j], l_wd[j], l_bd[j]);
              end
              begin
                rd(l_raddr[j], l_rd[j]);
              end
            join
          end
          OpHwSet: begin
            hw_set(l_data[j][2:0]);
          end
          OpW1cClr: begin
            w1c_clear = 1'b1;
            irq_set   = l_data[j][2:0];
            @(negedge clk);
            w1c_clear = 1'b0;
            irq_set   = 3'b000;
            m_status  = l_data[j][2:0];
            check("irq_status after w1c_clear_i", irq_status, m_status);
          end
          OpRandRo: begin
            randomize_ro;
          end
          OpExpect: begin
            check("irq_enable_*_o (directed)", irq_enable, l_data[j][3:0]);
            check("irq_status_*_o (directed)", irq_status, l_data[j][7:4]);
            check("model IRQ_ENABLE (directed)", m_enable, l_data[j][3:0]);
            check("model IRQ_STATUS (directed)", m_status, l_data[j][7:4]);
          end
          default: begin
            fail("unknown list operation", l_op[j], 0);
          end
        endcase
      end
      cur_op = -1;
    end
  endtask

  // Random operations: any address (mapped, unmapped, misaligned, upper bits
  // set), random data and strobes, random AW/W order and READY delays.
  task automatic push_random(input integer count);
    integer    j;
    reg [31:0] a, a2, d, r1, r2;
    reg [3:0]  s;
    begin
      for (j = 0; j < count; j = j + 1) begin
        r1 = rand32(0);
        r2 = rand32(0);
        d  = rand32(0);
        case (r1[3:0])
          0, 1, 2: a = IRQ_ENABLE;
          3, 4:    a = IRQ_STATUS;
          5:       a = CTRL;
          6:       a = CMDQ_PUSH;
          7:       a = r1[5] ? DMA_WIN_BASE : DMA_WIN_LIMIT;
          10:      a = {20'h0, r1[15:6], 2'b00};   // anywhere in the 4 KiB
          11:      a = {25'h0, r1[10:4]};          // low offsets, maybe misaligned
          default: a = {24'h0, r1[11:6], 2'b00};   // 0x000-0x0fc
        endcase
        if (r1[16]) begin
          a[31:12] = r1[31:12];   // must be ignored
        end
        s = r2[2] ? 4'hf : r2[6:3];
        if (r2[7]) begin
          phw(r2[10:8]);
        end
        if (r2[11]) begin
          push(OpRandRo, 0, 0, 0, 0, 0, 0, 0, 0);
        end
        if (r2[12]) begin
          push(OpRd, a, 0, 0, 0, 0, 0, 0, r2[13] ? r2[17:14] : 4'd0);
        end else if (r2[18] && r2[19]) begin
          a2 = rand32(0);
          a2 = {24'h0, a2[11:6], 2'b00};
          if (a2[11:2] == a[11:2]) begin
            a2 = ID;    // never read the register being written
          end
          push(OpPar, a, d, s, r2[21:20], r2[23:22], r2[25:24], a2, r2[27:26]);
        end else begin
          push(OpWr, a, d, s, r2[21:20], r2[23:22], r2[26] ? r2[31:28] : 4'd0, 0, 0);
        end
      end
    end
  endtask

  // ---- test ----
  integer         i;
  reg [31:0]      a_tmp;
  reg [8*256-1:0] trace_file;

  initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
      seed = 1;
    end
    if ($value$plusargs("trace=%s", trace_file)) begin
      $dumpfile(trace_file);
      $dumpvars(0, tsr_regs_tb);
    end
    rng = seed ^ 32'h9e37_79b9;
    if (rng == 32'h0) begin
      rng = 32'h1;
    end
    $display("tsr_regs_tb: seed %0d", seed);

    // Distinct values on every ro input, so that a swapped mux arm shows.
    {id_vendor, id_major, id_minor} = 32'h5453_0100;
    {cfg_lanes_log2, cfg_sfu, cfg_depth, cfg_axi_bytes, cfg_dim} = 29'h07_10_08_08;   // N = 8: 8 lanes, SFU
    spad_rows = 32'h0000_1000;  acc_rows = 32'h0000_0400;
    {st_error, st_done, st_busy} = 3'b101;
    err_code = 8'h2a;  err_cmd_idx = 32'hc0de_0024;  err_addr = 32'hc0de_0028;
    cmd_idx = 32'hc0de_002c;  cmdq_free = 16'h0010;  cmdq_words = 3'h5;  opcode = 8'h77;
    for (i = 0; i < 28; i = i + 1) begin
      cnt[i] = 32'hc0de_0040 + 4 * i;
    end

    repeat (5) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // ---- Directed prologue: exact-cycle checks, driving the bus by hand ----
    check("bvalid/rvalid after reset", {bvalid, rvalid}, 0);
    check("awready/wready/arready after reset", {awready, wready, arready}, 3'b111);
    check("irq_enable after reset", irq_enable, 0);
    check("irq_status after reset", irq_status, 0);

    // w1c priority: a hardware set in the very cycle a W1C takes effect wins.
    // AW and W go out together at a falling edge while idle, so both are
    // taken at the next rising edge and the write takes effect one cycle later.
    hw_set(3'b001);
    awvalid = 1'b1; awaddr = IRQ_STATUS; wvalid = 1'b1; wdata = 32'h1; wstrb = 4'hf;
    @(negedge clk);            // AW and W taken
    awvalid = 1'b0; wvalid = 1'b0;
    irq_set = 3'b001;          // high in the cycle the clear takes effect
    @(negedge clk);
    irq_set = 3'b000;
    check("BVALID in the cycle after the write took effect", bvalid, 1'b1);
    check("BRESP of W1C", bresp, Okay);
    check("set wins over a same-cycle W1C", irq_status, 3'b001);
    bready = 1'b1; @(negedge clk); bready = 1'b0;
    // Control: the same set one cycle earlier is cleared by the write.
    awvalid = 1'b1; awaddr = IRQ_STATUS; wvalid = 1'b1; wdata = 32'h1; wstrb = 4'hf;
    irq_set = 3'b001;
    @(negedge clk);
    awvalid = 1'b0; wvalid = 1'b0; irq_set = 3'b000;
    check("set is visible the cycle after set_i", irq_status, 3'b001);
    @(negedge clk);
    check("set one cycle before the W1C is cleared", irq_status, 3'b000);
    bready = 1'b1; @(negedge clk); bready = 1'b0;
    m_status = 3'b000;
    // wo timing: the pulse comes in the cycle BVALID rises, for one cycle.
    awvalid = 1'b1; awaddr = CTRL; wvalid = 1'b1; wdata = 32'h3; wstrb = 4'hf;
    @(negedge clk);
    awvalid = 1'b0; wvalid = 1'b0;
    check("no pulse before the write takes effect", {ctrl_we, ctrl_soft_reset}, 0);
    @(negedge clk);
    check("CTRL pulse with BVALID", {bvalid, ctrl_we, ctrl_counters_clear, ctrl_soft_reset}, 4'hf);
    @(negedge clk);
    check("CTRL pulse is one cycle", {bvalid, ctrl_we, ctrl_counters_clear, ctrl_soft_reset}, 4'h8);
    bready = 1'b1; @(negedge clk); bready = 1'b0;
    // Read timing: R the cycle after AR; RDATA registered at AR.
    arvalid = 1'b1; araddr = ERR_CODE;
    @(negedge clk);
    arvalid = 1'b0;
    err_code = 8'h99;          // changes after AR was taken: must not show
    check("RVALID the cycle after AR", rvalid, 1'b1);
    check("RDATA sampled when AR was taken", rdata, 32'h2a);
    rready = 1'b1; @(negedge clk); rready = 1'b0;
    err_code = 8'h2a;

    // ---- Directed list ----
    // Every register after reset, then with new ro values.
    pread_all;
    push(OpRandRo, 0, 0, 0, 0, 0, 0, 0, 0);
    pread_all;
    // rw: write, read back; unused bits read 0.
    pw(IRQ_ENABLE, 32'h5);          pr(IRQ_ENABLE);  pexp(3'h5, 3'h0);
    pw(IRQ_ENABLE, 32'hffff_ffff);  pr(IRQ_ENABLE);  pexp(4'hf, 3'h0);
    pw(IRQ_ENABLE, 32'h2);          pr(IRQ_ENABLE);  pexp(3'h2, 3'h0);
    // Strobes: an unstrobed lane keeps its value; no strobe at all is an OKAY no-op.
    pws(IRQ_ENABLE, 32'h0000_0007, 4'b1110);  pexp(3'h2, 3'h0);
    pws(IRQ_ENABLE, 32'hffff_ff05, 4'b0001);  pexp(3'h5, 3'h0);
    pws(IRQ_ENABLE, 32'h0, 4'b0000);  pr(IRQ_ENABLE);  pexp(3'h5, 3'h0);
    // w1c: hardware sets; software clears exactly the strobed 1 bits.
    phw(3'b101);                    pr(IRQ_STATUS);  pexp(3'h5, 3'h5);
    pw(IRQ_STATUS, 32'h1);          pr(IRQ_STATUS);  pexp(3'h5, 3'h4);
    pw(IRQ_STATUS, 32'h2);                           pexp(3'h5, 3'h4);
    pws(IRQ_STATUS, 32'h4, 4'b1110);                 pexp(3'h5, 3'h4);
    pw(IRQ_STATUS, 32'hffff_ffff);  pr(IRQ_STATUS);  pexp(3'h5, 3'h0);
    // w1c_clear_i clears every w1c field, a same-cycle set still wins; rw untouched.
    phw(3'b111);  pclr(3'b000);     pexp(3'h5, 3'h0);
    phw(3'b011);  pclr(3'b100);     pexp(3'h5, 3'h4);  pr(IRQ_STATUS);
    // wo: one pulse per write carrying the written bits; reads return 0.
    pw(CTRL, 32'h1);  pw(CTRL, 32'h2);  pw(CTRL, 32'hffff_fff3);  pw(CTRL, 32'h0);
    pr(CTRL);
    for (i = 0; i < 8; i = i + 1) begin
      pw(CMDQ_PUSH, 32'h1000_0000 * i + 32'h0012_3456 + i);
    end
    pr(CMDQ_PUSH);
    for (i = 0; i < 15; i = i + 1) begin   // partial strobes: SLVERR, no pulse
      pws(CTRL, 32'h1, i);
      pws(CMDQ_PUSH, 32'hdead_beef, i);
    end
    // SLVERR, no side effect: unmapped, ro-only registers, misaligned.
    pw(IRQ_ENABLE, 32'h6);  phw(3'b010);  pexp(3'h6, 3'h6);
    for (i = 0; i < 13; i = i + 1) begin
      case (i)
        0: a_tmp = 32'h03c;  1: a_tmp = 32'h07c;  2: a_tmp = 32'h800;  3: a_tmp = 32'hffc;
        4: a_tmp = ID;       5: a_tmp = STATUS;   6: a_tmp = CNT_FIRST; 7: a_tmp = CNT_LAST;
        8: a_tmp = 32'h01d;  9: a_tmp = 32'h01e;  10: a_tmp = 32'h011; 11: a_tmp = 32'h033;
        default: a_tmp = 32'h01b;
      endcase
      pw(a_tmp, 32'hffff_ffff);
      pr(a_tmp);
    end
    pr(IRQ_ENABLE);  pr(IRQ_STATUS);  pexp(3'h6, 3'h6);
    // Only addr[11:0] is decoded.
    pw(32'hdead_f01c, 32'h1);  pr(32'h1234_501c);  pr(32'hffff_f000);  pr(32'h8000_0ffc);
    pexp(3'h1, 3'h6);
    // AW before W and W before AW, several cycles apart (monitor: no early B).
    pwd(IRQ_ENABLE, 32'h3, 0, 6, 0);  pr(IRQ_ENABLE);
    pwd(IRQ_ENABLE, 32'h4, 6, 0, 0);  pr(IRQ_ENABLE);
    pwd(CMDQ_PUSH, 32'hcafe_0001, 1, 9, 0);
    pwd(CMDQ_PUSH, 32'hcafe_0002, 9, 1, 0);
    pexp(3'h4, 3'h6);
    // BREADY / RREADY held low for many cycles, then released.
    pwd(IRQ_ENABLE, 32'h7, 0, 0, 60);
    pwd(CTRL, 32'h2, 3, 0, 45);
    prd(IRQ_ENABLE, 70);
    prd(32'h03c, 50);
    // Reads complete while B is held back, and a write while R is held back.
    ppar(IRQ_ENABLE, 32'h1, 40, ID, 0);
    ppar(IRQ_ENABLE, 32'h2, 0, SPAD_ROWS, 40);
    ppar(CMDQ_PUSH, 32'h5555_aaaa, 0, CNT_FIRST, 30);
    // Back to back: each transaction starts in the cycle the previous one ends.
    for (i = 0; i < 16; i = i + 1) begin
      pw(CMDQ_PUSH, 32'hb2b0_0000 + i);
    end
    for (i = 0; i < 16; i = i + 1) begin
      pr(CNT_FIRST + 4 * (i % 12));
    end
    for (i = 0; i < 16; i = i + 1) begin
      pr(CNT2_FIRST + 4 * i);
    end
    for (i = 0; i < 10; i = i + 1) begin
      ppar(IRQ_ENABLE, i, 0, ACC_ROWS, 0);
    end
    pr(IRQ_ENABLE);  pexp(4'h9, 3'h6);   // the last write, 9 (four enable bits)
    // Command ring: rw words, RING_HEAD read-only (SLVERR, no effect), one ENABLE bit.
    pw(RING_BASE, 32'h1234_5660);  pw(RING_SIZE, 32'h0000_4000);  pw(RING_TAIL, 32'h0000_01e0);
    pw(RING_HEAD, 32'hffff_ffff);  pw(RING_CTRL, 32'hffff_ffff);
    pr(RING_BASE);  pr(RING_SIZE);  pr(RING_HEAD);  pr(RING_TAIL);  pr(RING_CTRL);
    pws(RING_TAIL, 32'hffff_ff00, 4'b0010);  pr(RING_TAIL);  pw(RING_CTRL, 32'h0);  pr(RING_CTRL);
    // DMA window: rw with a non-zero reset value and strobes, unlocked.
    pr(DMA_WIN_BASE);  pr(DMA_WIN_LIMIT);  pr(DMA_WIN_CTRL);
    pw(DMA_WIN_BASE, 32'h1234_5678);  pws(DMA_WIN_LIMIT, 32'h00ab_0000, 4'b0100);
    pw(DMA_WIN_CTRL, 32'hffff_fffe);  pr(DMA_WIN_BASE);  pr(DMA_WIN_LIMIT);  pr(DMA_WIN_CTRL);
    // Random operations against the model (they may set the lock), every
    // register once more, then lock: the three registers refuse writes.
    push_random(RandomTxns);
    pread_all;
    pw(DMA_WIN_CTRL, 32'h1);
    pw(DMA_WIN_BASE, 32'h0);  pw(DMA_WIN_LIMIT, 32'hffff_ffff);  pw(DMA_WIN_CTRL, 32'h0);
    pr(DMA_WIN_BASE);  pr(DMA_WIN_LIMIT);  pr(DMA_WIN_CTRL);

    run_list;

    // Let the monitor see the last edge, then report.
    repeat (3) @(negedge clk);
    $display("tsr_regs_tb: %0d list ops, %0d writes, %0d reads, %0d CTRL pulses, %0d CMDQ_PUSH pulses",
             l_n, b_n, r_n, ctrl_pulses, cmdq_pulses);
    if (errors != 0) begin
      $display("FAIL: tsr_regs_tb: %0d errors (replay with +seed=%0d)", errors, seed);
      $fatal(1, "FAIL");
    end
    $display("PASS: tsr_regs_tb");
    $finish;
  end

  /* verilator lint_on WIDTH */

endmodule

`default_nettype wire
