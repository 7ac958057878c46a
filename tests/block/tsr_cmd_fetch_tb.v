// tsr_cmd_fetch_tb: self-checking test of tsr_cmd_fetch against a behavioural AXI4 read slave and queue.
`timescale 1ns/1ps
`default_nettype none

// The slave answers every address with a hash of the address (no storage), stalls AR and R
// at random, adds a random latency, and answers SLVERR for beats inside a per-job error range.
// The queue model takes whole commands with a random ready and pops at random. Each job
// picks a ring (base and size, now and then misaligned), a DMA window (now and then cutting
// the ring), an error range (now and then inside the ring), and then advances the tail by
// random steps while the fetcher runs, now and then to an illegal value or with a soft
// reset or ENABLE = 0 in the middle. Checks:
//   - every command queued is the one at base + head (its 32 bytes and push_addr_o), in
//     ring order, head_o follows; nothing is queued that software did not publish;
//   - AR: INCR, arsize = bus width, whole commands (1..FetchBurst), 32-byte aligned, no
//     4 KiB crossing, inside the ring and the DMA window, stable until ARREADY, one burst
//     in flight; no AR after an error or while disabled;
//   - the queue never overflows: a burst is issued only with a free slot per command;
//   - errors: RING_ALIGN, RING_TAIL, RING_WINDOW and FETCH_BUS exactly when the job's
//     set-up or memory calls for them, with the address the register map documents;
//     a valid job ends with every published command queued and busy_o low;
//   - soft reset: the burst in flight is drained, nothing is queued after it, head = tail.
// Plusargs: +seed=<n> (default 1), +jobs=<n> (default 2000), +trace=<file.vcd>.

module tsr_cmd_fetch_tb #(
  parameter integer AxiDataWidth = 64,
  parameter integer FetchBurst   = 4
);
  localparam integer B      = AxiDataWidth / 8;
  localparam integer Bpc    = 32 / B;
  localparam integer QDepth = 16;
  localparam integer Timeout = 20000;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  integer seed;
  integer job;
  integer cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;
`include "tsr_tb_prng.vh"
`define TB_WHERE ("tsr_cmd_fetch_tb W=%0d seed=%0d job=%0d cycle=%0d", AxiDataWidth, seed, job, cyc)
`include "tsr_tb_check.vh"
`include "rtl/regs/tsr_cmd_fields.vh"

  // ---------------------------------------------------------------- DUT
  reg         enable = 1'b0;
  reg  [31:0] base = 32'h0, size = 32'h0, tail = 32'h0;
  reg  [31:0] win_base = 32'h0, win_limit = 32'hffff_ffff;
  reg         soft_reset = 1'b0;
  reg         halt = 1'b0;
  wire [31:0] head;
  wire        busy, idle, err;
  wire [7:0]  err_code;
  wire [31:0] err_addr;
  reg  [15:0] q_free;
  wire [15:0] rsv;
  wire        push_valid;
  reg         push_ready = 1'b0;
  wire [255:0] push_cmd;
  wire [31:0] push_addr;
  wire        arvalid;
  reg         arready = 1'b0;
  wire [31:0] araddr;
  wire [7:0]  arlen;
  wire [2:0]  arsize;
  wire [1:0]  arburst;
  reg         rvalid = 1'b0;
  wire        rready;
  reg  [AxiDataWidth-1:0] rdata;
  reg  [1:0]  rresp;
  reg         rlast;

  tsr_cmd_fetch #(
    .AxiDataWidth (AxiDataWidth),
    .FetchBurst   (FetchBurst)
  ) u_dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .enable_i      (enable),
    .base_i        (base),
    .size_i        (size),
    .tail_i        (tail),
    .win_base_i    (win_base),
    .win_limit_i   (win_limit),
    .soft_reset_i  (soft_reset),
    .halt_i        (halt),
    .head_o        (head),
    .busy_o        (busy),
    .idle_o        (idle),
    .err_o         (err),
    .err_code_o    (err_code),
    .err_addr_o    (err_addr),
    .q_free_i      (q_free),
    .rsv_o         (rsv),
    .push_valid_o  (push_valid),
    .push_ready_i  (push_ready),
    .push_cmd_o    (push_cmd),
    .push_addr_o   (push_addr),
    .m_axi_arvalid (arvalid),
    .m_axi_arready (arready),
    .m_axi_araddr  (araddr),
    .m_axi_arlen   (arlen),
    .m_axi_arsize  (arsize),
    .m_axi_arburst (arburst),
    .m_axi_rvalid  (rvalid),
    .m_axi_rready  (rready),
    .m_axi_rdata   (rdata),
    .m_axi_rresp   (rresp),
    .m_axi_rlast   (rlast)
  );

  // The memory: byte address -> a 32-bit hash per word.
  function automatic [31:0] mem_word(input [31:0] a);
    mem_word = xorshift32(xorshift32(a ^ 32'h9e37_79b9) + 32'h1234_5677);
  endfunction
  function automatic [255:0] mem_cmd(input [31:0] a);
    integer w;
    begin
      for (w = 0; w < 8; w = w + 1) mem_cmd[32*w +: 32] = mem_word(a + 4 * w);
    end
  endfunction

  // ---------------------------------------------------------------- AXI slave
  reg  [31:0] err_lo = 32'h0, err_hi = 32'h0;   // SLVERR for beats with err_lo <= addr < err_hi
  reg         b_v = 1'b0;                        // a burst accepted, beats to send
  reg  [31:0] b_addr;
  integer     b_left, b_wait;
  wire [31:0] ar_beats = {24'h0, arlen} + 32'd1;
  reg         ar_wait = 1'b0;
  reg         en_prev = 1'b0, err_prev = 1'b0;                    // AR shown last cycle without ARREADY
  reg  [31:0] ar_held_addr;
  reg  [7:0]  ar_held_len;
  integer     stall_pct = 0;
  integer     w;

  always @(posedge clk) begin
    if (!rst_n) begin
      b_v <= 1'b0; rvalid <= 1'b0; arready <= 1'b0; ar_wait <= 1'b0;
    end else begin
      // AR checks.
      if (ar_wait) begin
        `CHECK(arvalid && araddr == ar_held_addr && arlen == ar_held_len, ("AR changed before ARREADY"))
      end
      if (arvalid && !ar_wait) begin   // a new AR: never after an error or while disabled
        `CHECK(!err_prev && en_prev, ("AR after an error or while disabled"))
        `CHECK(araddr == base + exp_head, ("AR at 0x%08x, the head is 0x%08x (base 0x%08x size %0d tail 0x%08x mode %0d head_o 0x%08x)", araddr, base + exp_head, base, size, tail, mode, head))
      end
      ar_wait <= arvalid && !arready;
      en_prev <= enable;               // the AR was decided at the last edge
      err_prev <= err_seen || err;
      ar_held_addr <= araddr;
      ar_held_len  <= arlen;
      if (arvalid && arready) begin
        `CHECK(!b_v, ("a second burst while one is in flight"))
        `CHECK(arburst == 2'b01 && {29'h0, arsize} == $clog2(B), ("AR burst %0d size %0d", arburst, arsize))
        `CHECK(araddr[4:0] == 5'd0, ("AR address 0x%08x not 32-byte aligned", araddr))
        `CHECK(ar_beats % Bpc == 0 && ar_beats / Bpc >= 1 && ar_beats / Bpc <= FetchBurst,
               ("ARLEN %0d is not 1..%0d whole commands", arlen, FetchBurst))
        `CHECK((araddr >> 12) == ((araddr + ar_beats * B - 1) >> 12), ("AR 0x%08x len %0d crosses 4 KiB", araddr, arlen))
        `CHECK({1'b0, araddr} >= {1'b0, base} && {1'b0, araddr} + {1'b0, ar_beats * B} <= {1'b0, base} + {1'b0, size},
               ("AR 0x%08x len %0d outside the ring 0x%08x + %0d", araddr, arlen, base, size))
        `CHECK(araddr >= win_base && {1'b0, araddr} + {1'b0, ar_beats * B} - 1 <= {1'b0, win_limit},
               ("AR 0x%08x len %0d outside the window", araddr, arlen))
        `CHECK(q_count + ar_beats / Bpc <= QDepth, ("burst of %0d with %0d queued", ar_beats / Bpc, q_count))
        b_v <= 1'b1; b_addr <= araddr; b_left <= ar_beats; b_wait <= urand(6);
      end
      arready <= (urand(100) >= stall_pct);
      // R beats.
      if (rvalid && rready) begin
        rvalid <= 1'b0;
      end
      if (b_v && (!rvalid || rready)) begin
        if (b_wait > 0) begin
          b_wait <= b_wait - 1;
          if (rvalid && rready) rvalid <= 1'b0;
        end else if (urand(100) >= stall_pct) begin
          rvalid <= 1'b1;
          for (w = 0; w < B / 4; w = w + 1) rdata[32*w +: 32] <= mem_word(b_addr + 4 * w);
          rresp  <= (b_addr >= err_lo && b_addr < err_hi) ? 2'b10 : 2'b00;
          rlast  <= (b_left == 1);
          b_addr <= b_addr + B;
          b_left <= b_left - 1;
          if (b_left == 1) b_v <= 1'b0;
        end
      end
    end
  end

  // ---------------------------------------------------------------- queue model and checks
  integer     q_count = 0;
  integer     pushed = 0;
  reg  [31:0] exp_head = 32'h0;
  reg         err_seen = 1'b0;
  integer     pop_pct = 30;
  always @(*) q_free = QDepth[15:0] - q_count[15:0];
  always @(posedge clk) begin
    if (rst_n) begin
      if (!soft_reset && enable) begin
        `CHECK(head == exp_head || err_seen, ("head_o 0x%08x, expected 0x%08x", head, exp_head))
      end
      if (push_valid && push_ready) begin
        `CHECK(q_count < QDepth, ("push into a full queue"))
        `CHECK(push_addr == base + exp_head, ("queued the command at 0x%08x, expected 0x%08x", push_addr, base + exp_head))
        `CHECK(push_cmd == mem_cmd(base + exp_head), ("command at 0x%08x: wrong bytes", base + exp_head))
        `CHECK(exp_head != tail, ("queued a command past the tail"))
        exp_head = (exp_head + 32 >= size) ? 32'h0 : exp_head + 32;
        pushed = pushed + 1;
      end
      if (q_count > 0 && urand(100) < pop_pct) q_count = q_count - 1;
      if (push_valid && push_ready) q_count = q_count + 1;
      push_ready <= urand(100) < 80;
      if (err) err_seen = 1'b1;
    end
  end

  // ---------------------------------------------------------------- jobs
  integer jobs, n, k, t, slots, room, mode, n_err, n_ok, n_reset;
  reg [7:0]  exp_code;
  reg [31:0] exp_addr, a, tail_bad;
  reg        in_win;

  task automatic step;
    begin
      @(posedge clk);
      #1;
    end
  endtask

  task automatic do_soft_reset;
    begin
      soft_reset = 1'b1;
      step;
      soft_reset = 1'b0;
      exp_head = enable ? tail : 32'h0;
      err_seen = 1'b0;
      // The burst in flight drains; nothing is queued meanwhile.
      t = 0;
      while (!idle && t < Timeout) begin
        `CHECK(!push_valid, ("a command queued after the soft reset"))
        step; t = t + 1;
      end
      `CHECK(idle, ("no idle after a soft reset"))
      `CHECK(head == exp_head && !err, ("after the soft reset: head 0x%08x err %0d", head, err))
    end
  endtask

  // Expected error for the command at offset `off` (window, memory), 0: none.
  task automatic cmd_error(input [31:0] off, output [7:0] code);
    begin
      a = base + off;
      in_win = (a >= win_base) && ({1'b0, a} + 33'd31 <= {1'b0, win_limit});
      if (!in_win) code = ErrRingWindow;
      else if (a + 32 > err_lo && a < err_hi) code = ErrFetchBus;
      else code = ErrNone;
    end
  endtask

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("jobs=%d", jobs)) jobs = 2000;
    begin : trace
      reg [1023:0] tf;
      if ($value$plusargs("trace=%s", tf)) begin
        $dumpfile(tf);
        $dumpvars(0, tsr_cmd_fetch_tb);
      end
    end
    rng_seed(32'h5eed_f00d ^ seed);
    n_err = 0; n_ok = 0; n_reset = 0;
    repeat (4) step;
    rst_n = 1'b1;
    step;
    for (job = 0; job < jobs; job = job + 1) begin
      // Set-up: ring disabled, then base, size, window, errors.
      enable = 1'b0;
      step;
      do_soft_reset;
      mode = urand(20);   // 0: illegal tail at some point, 1: soft reset mid-run, 2: ENABLE = 0 mid-run
      stall_pct = (urand(2) == 0) ? 0 : urand(60);
      pop_pct = 5 + urand(60);
      slots = 2 + urand(40);
      size = 32 * slots;
      base = 32'h1000_0000 + 32 * urand(4096) + (urand(8) == 0 ? 32'hffff_0000 : 32'h0);
      if (urand(25) == 0) base = base + 4 * (1 + urand(7));
      if (urand(25) == 0) size = size + 4 * (1 + urand(7));
      if (urand(50) == 0) size = 32'h0;
      win_base = 32'h0; win_limit = 32'hffff_ffff;
      if (mode != 0 && urand(6) == 0) begin   // the window cuts the ring
        if (urand(2) == 0) win_limit = base + 32 * urand(slots) + urand(32) - 1;
        else win_base = base + 32 * urand(slots) + urand(32);
      end
      err_lo = 32'h0; err_hi = 32'h0;
      if (mode != 0 && urand(6) == 0) begin
        err_lo = base + B * urand(slots * Bpc);
        err_hi = err_lo + B * (1 + urand(4));
      end
      exp_head = 32'h0;
      tail = 32'h0;
      err_seen = 1'b0;
      step;
      enable = 1'b1;
      // Expected outcome for the set-up.
      exp_code = ErrNone;
      if (base[4:0] != 0 || size[4:0] != 0 || size == 0) begin
        exp_code = ErrRingAlign; exp_addr = base;
      end
      n = 1 + urand(3 * slots + 8);
      k = 0;
      t = 0;
      // Software: publish commands in random steps, never filling the ring.
      while (k < n && !err_seen && t < Timeout) begin
        room = (size == 0 || exp_code != ErrNone) ? 1 :
               slots - 1 - ((tail >= head) ? (tail - head) / 32 : (size - head + tail) / 32);
        if (room > 0 && urand(3) == 0) begin
          room = 1 + urand(room);
          if (room > n - k) room = n - k;
          if (mode == 0 && urand(4) == 0) begin
            tail_bad = (urand(2) == 0) ? size + 32 * urand(4) : tail + 8 + 32 * urand(2);
            if (exp_code == ErrNone) begin exp_code = ErrRingTail; exp_addr = base + tail_bad; end
            tail = tail_bad;
            k = n;
          end else begin
            // A bad base or size is reported once there is a command to fetch.
            tail = (exp_code == ErrRingAlign) ? 32'd32 : (tail + 32 * room) % size;
            k = k + room;
          end
        end
        if (mode == 1 && urand(200) == 0) begin
          do_soft_reset; n_reset = n_reset + 1; k = n;
        end
        step; t = t + 1;
      end
      if (mode == 2 && urand(2) == 0) begin
        enable = 1'b0;
        step;
        t = 0;
        while (!idle && t < Timeout) begin
          `CHECK(!push_valid, ("a command queued with ENABLE = 0"))
          step; t = t + 1;
        end
        `CHECK(head == 32'h0, ("head 0x%08x with ENABLE = 0", head))
        exp_head = 32'h0;
        n_reset = n_reset + 1;
      end else begin
        // Run to the end: everything published is queued, or an error.
        t = 0;
        while (busy && !err && t < Timeout) begin step; t = t + 1; end
        // While idle with an error: the error must be the one the set-up and memory call for.
        if (exp_code == ErrNone) begin
          // The first command (from the head the fetcher stopped at) with a window or bus error.
          cmd_error(exp_head, exp_code);
          exp_addr = base + exp_head;
        end
        if (exp_code == ErrRingAlign && tail == head && !err) exp_code = ErrNone;   // nothing was to fetch
        if (exp_code == ErrNone || (exp_head == tail && exp_code != ErrRingAlign && exp_code != ErrRingTail &&
                                    exp_addr == base + exp_head)) begin
          `CHECK(!err && !busy && exp_head == tail, ("job should pass: err %0d code %0d busy %0d head 0x%08x tail 0x%08x",
                                                    err, err_code, busy, exp_head, tail))
          n_ok = n_ok + 1;
        end else begin
          `CHECK(err && err_code == exp_code && err_addr == exp_addr,
                 ("error %0d code %0d addr 0x%08x, expected code %0d addr 0x%08x", err, err_code, err_addr,
                  exp_code, exp_addr))
          // Nothing more is read after an error.
          repeat (20) begin
            `CHECK(!arvalid && !push_valid, ("activity after the error"))
            step;
          end
          n_err = n_err + 1;
        end
      end
      while (q_count > 0) step;
    end
    `CHECK(n_ok > jobs / 3 && n_err > jobs / 20, ("too few passing (%0d) or failing (%0d) jobs", n_ok, n_err))
    $display("PASS tsr_cmd_fetch_tb: %0d jobs (%0d complete, %0d errors, %0d resets), %0d commands, %0d checks, %0d cycles",
             jobs, n_ok, n_err, n_reset, pushed, n_checks, cyc);
    $finish;
  end
endmodule

`default_nettype wire
