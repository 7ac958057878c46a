// tsr_regs_tb: self-checking block test of the generated AXI4-Lite register block.
//
// Drives rtl/regs/tsr_regs.v through AXI4-Lite tasks and checks: rw read-back,
// byte strobes, w1c set/clear priority and w1c_clear_i, wo pulses, SLVERR cases
// (unmapped, misaligned, write to ro, partial-strobe wo) with no side effects,
// AW/W in either order, BREADY/RREADY held low, back-to-back and concurrent
// transactions, then a seeded random phase against a reference model.
// A monitor checks the bus contract every cycle (VALID/data held until READY,
// one write and one read in flight, B only after AW and W, R the cycle after
// AR, wo pulses one cycle wide and 0 otherwise).
//
// Run: make test-block-regs   (plusargs: +seed=N  +trace=file.vcd)
// Prints PASS, or FAIL with the count of errors and exits non-zero.
//
// Timing discipline: the test drives every input at the falling edge and
// reads DUT outputs there; the monitor samples at the rising edge, before
// the DUT's flops update, i.e. exactly what the DUT itself sees.
`timescale 1ns / 1ps
`default_nettype none

module tsr_regs_tb;

  localparam integer RandomTxns = 600;
  localparam integer Timeout    = 1000;  // cycles any single wait may take
  localparam [1:0]   Okay       = 2'b00;
  localparam [1:0]   SlvErr     = 2'b10;

  // Register offsets (rtl/regs/tessera_regs.toml).
  localparam [11:0] ID = 12'h000, CONFIG = 12'h004, SPAD_ROWS = 12'h008, ACC_ROWS = 12'h00c;
  localparam [11:0] CTRL = 12'h010, STATUS = 12'h014, IRQ_STATUS = 12'h018, IRQ_ENABLE = 12'h01c;
  localparam [11:0] ERR_CODE = 12'h020, ERR_CMD_IDX = 12'h024, ERR_ADDR = 12'h028;
  localparam [11:0] CMD_IDX = 12'h02c, CMDQ_PUSH = 12'h030, CMDQ_STATUS = 12'h034;
  localparam [11:0] OPCODE = 12'h038, CNT_FIRST = 12'h040, CNT_LAST = 12'h06c;

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
  reg  [15:0] id_vendor, cmdq_free;
  reg  [2:0]  cmdq_words;
  reg  [31:0] spad_rows, acc_rows, err_cmd_idx, err_addr, cmd_idx;
  reg         st_busy, st_done, st_error;
  reg  [31:0] cnt [0:11];   // CNT_CYCLES_LO .. CNT_CMDS_HI
  reg  [2:0]  irq_set = 3'b000;  // {FENCE, ERROR, DONE}
  wire        ctrl_soft_reset, ctrl_counters_clear, ctrl_we;
  wire [2:0]  irq_status, irq_enable;
  wire [31:0] cmdq_word;
  wire        cmdq_we;

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
    .cnt_cmds_lo_val_i      (cnt[10]),
    .cnt_cmds_hi_val_i      (cnt[11])
  );

  // ---- error reporting ----
  integer errors = 0;
  integer seed;

  task automatic fail(input [8*96-1:0] what, input [31:0] got, input [31:0] exp);
    begin
      errors = errors + 1;
      if (errors <= 20) begin
        $display("FAIL @%0t: %0s: got 0x%08x, expected 0x%08x", $time, what, got, exp);
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
  reg [2:0] m_enable = 3'b000;   // IRQ_ENABLE
  reg [2:0] m_status = 3'b000;   // IRQ_STATUS

  function automatic is_mapped(input [31:0] addr);
    begin
      is_mapped = (addr[1:0] == 2'b00) &&
                  (addr[11:0] <= OPCODE || (addr[11:0] >= CNT_FIRST && addr[11:0] <= CNT_LAST));
    end
  endfunction

  function automatic [31:0] exp_read(input [31:0] addr);
    reg [11:0] a;
    begin
      a = addr[11:0];
      exp_read = 32'h0;
      if (!is_mapped(addr)) begin
        exp_read = 32'h0;
      end else if (a >= CNT_FIRST) begin
        exp_read = cnt[(a - CNT_FIRST) >> 2];
      end else begin
        case (a)
          ID:          exp_read = {id_vendor, id_major, id_minor};
          CONFIG:      exp_read = {8'h0, cfg_depth, cfg_axi_bytes, cfg_dim};
          SPAD_ROWS:   exp_read = spad_rows;
          ACC_ROWS:    exp_read = acc_rows;
          CTRL:        exp_read = 32'h0;
          STATUS:      exp_read = {29'h0, st_error, st_done, st_busy};
          IRQ_STATUS:  exp_read = {29'h0, m_status};
          IRQ_ENABLE:  exp_read = {29'h0, m_enable};
          ERR_CODE:    exp_read = {24'h0, err_code};
          ERR_CMD_IDX: exp_read = err_cmd_idx;
          ERR_ADDR:    exp_read = err_addr;
          CMD_IDX:     exp_read = cmd_idx;
          CMDQ_PUSH:   exp_read = 32'h0;
          CMDQ_STATUS: exp_read = {13'h0, cmdq_words, cmdq_free};
          OPCODE:      exp_read = {24'h0, opcode};
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
      end else if (a == IRQ_STATUS || a == IRQ_ENABLE) begin
        exp_wresp = Okay;
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
        m_enable = (m_enable & ~mask[2:0]) | (data[2:0] & mask[2:0]);
      end
      if (eresp == Okay && addr[11:0] == IRQ_STATUS) begin
        m_status = m_status & ~(data[2:0] & mask[2:0]);
      end
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

  task automatic wr0(input [31:0] addr, input [31:0] data);
    begin
      wr(addr, data, 4'hf, 0, 0, 0);
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
      {id_vendor, id_major, id_minor} = $random(seed);
      {cfg_depth, cfg_axi_bytes, cfg_dim} = $random(seed);
      spad_rows   = $random(seed);
      acc_rows    = $random(seed);
      {st_error, st_done, st_busy} = $random(seed);
      err_code    = $random(seed);
      err_cmd_idx = $random(seed);
      err_addr    = $random(seed);
      cmd_idx     = $random(seed);
      {cmdq_words, cmdq_free} = $random(seed);
      opcode      = $random(seed);
      for (i = 0; i < 12; i = i + 1) begin
        cnt[i] = $random(seed);
      end
    end
  endtask

  // ---- test sequence ----
  integer    i, k, n_before;
  reg [31:0] a, d, a2, tmp;
  reg [3:0]  s;
  reg [1:0]  resp;
  reg [8*256-1:0] trace_file;

  initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
      seed = 1;
    end
    if ($value$plusargs("trace=%s", trace_file)) begin
      $dumpfile(trace_file);
      $dumpvars(0, tsr_regs_tb);
    end
    $display("tsr_regs_tb: seed %0d", seed);

    // Distinct values on every ro input, so that a swapped mux arm shows.
    {id_vendor, id_major, id_minor} = 32'h5453_0100;
    {cfg_depth, cfg_axi_bytes, cfg_dim} = 24'h10_08_08;
    spad_rows = 32'h0000_1000;  acc_rows = 32'h0000_0400;
    {st_error, st_done, st_busy} = 3'b101;
    err_code = 8'h2a;  err_cmd_idx = 32'hc0de_0024;  err_addr = 32'hc0de_0028;
    cmd_idx = 32'hc0de_002c;  cmdq_free = 16'h0010;  cmdq_words = 3'h5;  opcode = 8'h77;
    for (i = 0; i < 12; i = i + 1) begin
      cnt[i] = 32'hc0de_0040 + 4 * i;
    end

    repeat (5) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // 1. Reset values on the ports, then every register reads as expected.
    check("bvalid/rvalid after reset", {bvalid, rvalid}, 0);
    check("irq_enable after reset", irq_enable, 0);
    check("irq_status after reset", irq_status, 0);
    for (a = 0; a <= CNT_LAST; a = a + 4) begin
      rd(a, 0);
    end
    randomize_ro;
    for (a = 0; a <= CNT_LAST; a = a + 4) begin
      rd(a, 0);
    end

    // 2. rw: write, read back; unused bits read 0.
    wr0(IRQ_ENABLE, 32'h5);
    rd(IRQ_ENABLE, 0);
    wr0(IRQ_ENABLE, 32'hffff_ffff);
    rd(IRQ_ENABLE, 0);
    wr0(IRQ_ENABLE, 32'h2);
    rd(IRQ_ENABLE, 0);

    // 3. Strobes: a lane with strobe 0 keeps its value; strobe 0 is an OKAY no-op.
    wr(IRQ_ENABLE, 32'h0000_0007, 4'b1110, 0, 0, 0);
    check("IRQ_ENABLE unchanged by unstrobed lane", irq_enable, 3'b010);
    wr(IRQ_ENABLE, 32'hffff_ff05, 4'b0001, 0, 0, 0);
    check("IRQ_ENABLE lane 0 written", irq_enable, 3'b101);
    wr(IRQ_ENABLE, 32'h0, 4'b0000, 0, 0, 0);
    rd(IRQ_ENABLE, 0);

    // 4. w1c: hardware sets, software clears only the bits written as 1.
    hw_set(3'b101);
    rd(IRQ_STATUS, 0);
    wr0(IRQ_STATUS, 32'h1);
    rd(IRQ_STATUS, 0);
    check("IRQ_STATUS after W1C of DONE", irq_status, 3'b100);
    wr0(IRQ_STATUS, 32'h2);   // clearing a clear bit: no change
    wr(IRQ_STATUS, 32'h4, 4'b1110, 0, 0, 0);  // strobe off: no clear
    check("IRQ_STATUS unstrobed clear", irq_status, 3'b100);
    wr0(IRQ_STATUS, 32'hffff_ffff);
    rd(IRQ_STATUS, 0);
    check("IRQ_STATUS all cleared", irq_status, 3'b000);

    // 5. w1c priority: a set in the very cycle the clear takes effect wins.
    //    AW+W are sent together at a falling edge (idle, so both taken at the
    //    next rising edge); the write takes effect in the following cycle.
    hw_set(3'b001);
    awvalid = 1'b1; awaddr = {20'h0, IRQ_STATUS}; wvalid = 1'b1; wdata = 32'h1; wstrb = 4'hf;
    check("idle AWREADY/WREADY", {awready, wready}, 2'b11);
    @(negedge clk);            // both taken
    awvalid = 1'b0; wvalid = 1'b0;
    irq_set = 3'b001;          // high during the cycle the clear takes effect
    @(negedge clk);
    irq_set = 3'b000;
    check("BVALID the cycle after the clear took effect", bvalid, 1'b1);
    check("set wins over a same-cycle W1C", irq_status, 3'b001);
    bready = 1'b1; @(negedge clk); bready = 1'b0;
    //    Control: the same set one cycle earlier is cleared by the write.
    awvalid = 1'b1; awaddr = {20'h0, IRQ_STATUS}; wvalid = 1'b1; wdata = 32'h1; wstrb = 4'hf;
    irq_set = 3'b001;
    @(negedge clk);
    awvalid = 1'b0; wvalid = 1'b0; irq_set = 3'b000;
    @(negedge clk);
    check("set one cycle before the W1C is cleared", irq_status, 3'b000);
    bready = 1'b1; @(negedge clk); bready = 1'b0;
    m_status = 3'b000;

    // 6. w1c_clear_i clears every w1c field; a same-cycle set still wins.
    hw_set(3'b111);
    w1c_clear = 1'b1;
    @(negedge clk);
    w1c_clear = 1'b0;
    check("w1c_clear_i clears all", irq_status, 3'b000);
    m_status = 3'b000;
    hw_set(3'b011);
    w1c_clear = 1'b1; irq_set = 3'b100;
    @(negedge clk);
    w1c_clear = 1'b0; irq_set = 3'b000;
    check("set wins over w1c_clear_i", irq_status, 3'b100);
    m_status = 3'b100;
    rd(IRQ_STATUS, 0);
    check("rw not touched by w1c_clear_i", irq_enable, m_enable);

    // 7. wo: one pulse per write with the written bits; reads return 0.
    wr0(CTRL, 32'h1);
    wr0(CTRL, 32'h2);
    wr0(CTRL, 32'hffff_fff3);
    wr0(CTRL, 32'h0);
    rd(CTRL, 0);
    for (i = 0; i < 8; i = i + 1) begin  // a whole command, back to back
      wr0(CMDQ_PUSH, 32'h1000_0000 * i + 32'h0012_3456 + i);
    end
    rd(CMDQ_PUSH, 0);
    n_before = ctrl_pulses;
    for (i = 0; i < 15; i = i + 1) begin  // partial strobes: SLVERR, no pulse
      wr(CTRL, 32'h1, i[3:0], 0, 0, 0);
      wr(CMDQ_PUSH, 32'hdead_beef, i[3:0], 0, 0, 0);
    end
    check("no CTRL pulse on partial strobes", ctrl_pulses, n_before);

    // 8. Unmapped, write to ro, misaligned: SLVERR, no side effect.
    wr0(IRQ_ENABLE, 32'h6);
    hw_set(3'b010);
    for (i = 0; i < 12; i = i + 1) begin
      case (i)
        0: a = 32'h03c;  1: a = 32'h070;  2: a = 32'h800;  3: a = 32'hffc;
        4: a = 32'h000;  5: a = 32'h014;  6: a = 32'h040;  7: a = 32'h06c;
        8: a = 32'h01d;  9: a = 32'h01e;  10: a = 32'h011; 11: a = 32'h033;
        default: a = 32'h0;
      endcase
      wr0(a, 32'hffff_ffff);   // wr checks: SLVERR, rw/w1c unchanged, no pulse
      rd(a, 0);                // rd checks: response and data (0 if unmapped)
    end
    rd(IRQ_ENABLE, 0);
    rd(IRQ_STATUS, 0);

    // 9. Only addr[11:0] is decoded.
    wr0(32'hdead_f01c, 32'h1);
    rd(32'h1234_501c, 0);
    rd(32'hffff_f000, 0);
    rd(32'h8000_0ffc, 0);

    // 10. AW before W, W before AW, by several cycles (monitor: no early B).
    wr(IRQ_ENABLE, 32'h3, 4'hf, 0, 6, 0);
    rd(IRQ_ENABLE, 0);
    wr(IRQ_ENABLE, 32'h4, 4'hf, 6, 0, 0);
    rd(IRQ_ENABLE, 0);
    wr(CMDQ_PUSH, 32'hcafe_0001, 4'hf, 1, 9, 0);
    wr(CMDQ_PUSH, 32'hcafe_0002, 4'hf, 9, 1, 0);

    // 11. BREADY / RREADY held low for a long time, then released.
    wr(IRQ_ENABLE, 32'h7, 4'hf, 0, 0, 60);
    wr(CTRL, 32'h2, 4'hf, 3, 0, 45);
    rd(IRQ_ENABLE, 70);
    rd(32'h03c, 50);
    //    A read completes while a B response is held back, and the reverse.
    fork
      wr(IRQ_ENABLE, 32'h1, 4'hf, 0, 0, 40);
      begin
        @(negedge clk);
        @(negedge clk);
        rd(ID, 0);
        rd(CNT_FIRST, 3);
      end
    join
    fork
      rd(SPAD_ROWS, 40);
      begin
        @(negedge clk);
        wr0(IRQ_ENABLE, 32'h2);
        wr0(CMDQ_PUSH, 32'h5555_aaaa);
      end
    join

    // 12. Back to back: the next transaction starts in the cycle the last ends.
    for (i = 0; i < 16; i = i + 1) begin
      wr0(CMDQ_PUSH, 32'hb2b0_0000 + i);
    end
    for (i = 0; i < 16; i = i + 1) begin
      rd(CNT_FIRST + 4 * (i % 12), 0);
    end
    fork
      for (k = 0; k < 10; k = k + 1) begin
        wr0(IRQ_ENABLE, k);
      end
      for (i = 0; i < 20; i = i + 1) begin
        rd(ACC_ROWS, 0);
      end
    join
    rd(IRQ_ENABLE, 0);

    // 13. Random transactions against the model.
    for (i = 0; i < RandomTxns; i = i + 1) begin
      tmp = $random(seed);
      case (tmp[3:0])
        0, 1, 2:  a = {20'h0, IRQ_ENABLE};
        3, 4:     a = {20'h0, IRQ_STATUS};
        5:        a = {20'h0, CTRL};
        6:        a = {20'h0, CMDQ_PUSH};
        7, 8, 9:  a = {20'h0, 4'h0, tmp[11:6], 2'b00};           // anything in 0x000-0x0fc
        10:       a = {20'h0, tmp[15:6], 2'b00};                 // anywhere
        11:       a = {20'h0, tmp[15:4], tmp[5:4]} & 32'h0000_007f;  // maybe misaligned
        default:  a = {20'h0, 4'h0, tmp[11:6], 2'b00};
      endcase
      if (tmp[16]) begin
        a[31:12] = tmp[31:12];   // upper bits must be ignored
      end
      d = $random(seed);
      tmp = $random(seed);
      s = tmp[2] ? 4'hf : tmp[6:3];
      if (tmp[7]) begin
        hw_set(tmp[10:8]);
      end
      if (tmp[11]) begin
        randomize_ro;
      end
      if (tmp[12]) begin
        rd(a, tmp[13] ? tmp[17:14] : 0);
      end else if (tmp[18] && tmp[19]) begin
        // Concurrent write and read of different registers.
        a2 = $random(seed);
        a2 = {20'h0, 4'h0, a2[11:6], 2'b00};
        if (a2[11:2] == a[11:2]) begin
          a2 = {20'h0, ID};
        end
        fork
          wr(a, d, s, tmp[21:20], tmp[23:22], tmp[25:24]);
          rd(a2, tmp[27:26]);
        join
      end else begin
        wr(a, d, s, tmp[21:20], tmp[23:22], tmp[26] ? tmp[31:28] : 0);
      end
    end
    for (a = 0; a <= CNT_LAST; a = a + 4) begin
      rd(a, 0);
    end

    // Let the monitor see the last edge, then report.
    repeat (3) @(negedge clk);
    $display("tsr_regs_tb: %0d writes, %0d reads, %0d CTRL pulses, %0d CMDQ_PUSH pulses",
             b_n, r_n, ctrl_pulses, cmdq_pulses);
    if (errors != 0) begin
      $display("FAIL: tsr_regs_tb: %0d errors (replay with +seed=%0d)", errors, seed);
      $fatal(1, "FAIL");
    end
    $display("PASS: tsr_regs_tb");
    $finish;
  end

endmodule

`default_nettype wire
