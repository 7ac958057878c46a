// tsr_uart_bridge_tb: self-checking test of the UART host bridge: frames in on the line, bus accesses and replies out.
`timescale 1ns/1ps
`default_nettype none

// The bench is the host and both slaves of tsr_uart_bridge (ClkPerBit 8,
// RxTimeoutBits 40, MaxLen 16, MemBytes 256):
//   - a UART serializer drives uart_rx_i with request frames, optionally with
//     one byte flipped or one byte left out; a deserializer decodes uart_tx_o
//     into replies, whose SYNC, SEQ, LEN and CRC are checked;
//   - an AXI4-Lite register slave (64 registers at 0x00..0xFC; 0xF0 answers
//     DECERR, anything from 0x100 up SLVERR) with random ready and response
//     delays, logging every write that reaches it;
//   - a byte memory of 256 bytes with random ready, logging every byte write.
// The CRC here is computed bit by bit (the RTL works a byte at a time), and
// checked against the CRC-16/CCITT-FALSE check value first.
//
// Directed cases: INFO, register and memory accesses, every error status,
// a bad CRC byte, a flipped payload byte, a dropped byte, LEN above MaxLen,
// noise before SYNC, a framing error, a repeated write (REPLAY, not executed
// again), a repeated read (executed again), and a write after a read reusing
// the SEQ of an earlier write (executed). Then random traffic: good frames of
// every kind checked against a model, with a quarter of them corrupted (one
// byte flipped, one dropped, or the CRC damaged) and then retried as the host
// does. After every frame the register file, the memory and the bus-write
// logs must equal the model: no corrupted frame may ever write.
// Plusargs: +seed=<n> (default 1), +frames=<n> random frames (default 400),
//           +trace=<file.vcd>.

module tsr_uart_bridge_tb;
  localparam integer ClkPerBit = 8;
  localparam integer RxTimeoutBits = 40;
  localparam integer MaxLen = 16;
  localparam integer MemBytes = 256;

  reg clk = 1'b0;
  always #5 clk = ~clk;
  reg rst_n = 1'b0;

  // ---------------------------------------------------------------- random
`include "tsr_tb_prng.vh"   // rng, rand32(), urand(), xorshift32()
  function [7:0] rand8(input integer unused);
    reg [31:0] r;
    begin
      r = rand32(0);
      rand8 = r[7:0];
    end
  endfunction
  // 1..MaxLen
  function [15:0] rand_len(input integer unused);
    reg [31:0] r;
    begin
      r = 32'd1 + rand32(0) % MaxLen;
      rand_len = r[15:0];
    end
  endfunction
  reg [31:0] srng = 32'h2;   // the slaves' own stream, so the host's choices do not depend on timing
  function [31:0] srand32(input integer unused);
    begin
      srng = xorshift32(srng);
      srand32 = srng;
    end
  endfunction

  // ---------------------------------------------------------------- DUT
  reg         host_tx = 1'b1;
  wire        dev_tx;
  wire        awvalid, wvalid, bready, arvalid, rready;
  reg         awready = 1'b0, wready = 1'b0, bvalid = 1'b0, arready = 1'b0, rvalid = 1'b0;
  wire [31:0] awaddr, wdata, araddr;
  wire [3:0]  wstrb;
  reg  [1:0]  bresp = 2'b00, rresp = 2'b00;
  reg  [31:0] rdata = 32'h0;
  wire        mvalid, mwe;
  reg         mready = 1'b0, mrvalid = 1'b0;
  wire [31:0] maddr;
  wire [7:0]  mwdata;
  reg  [7:0]  mrdata = 8'h0;
  wire [6:0]  evt;

  tsr_uart_bridge #(
    .ClkPerBit     (ClkPerBit),
    .RxTimeoutBits (RxTimeoutBits),
    .MaxLen        (MaxLen),
    .MemBytes      (MemBytes)
  ) u_dut (
    .clk_i          (clk),
    .rst_ni         (rst_n),
    .uart_rx_i      (host_tx),
    .uart_tx_o      (dev_tx),
    .m_axil_awvalid (awvalid),
    .m_axil_awready (awready),
    .m_axil_awaddr  (awaddr),
    .m_axil_wvalid  (wvalid),
    .m_axil_wready  (wready),
    .m_axil_wdata   (wdata),
    .m_axil_wstrb   (wstrb),
    .m_axil_bvalid  (bvalid),
    .m_axil_bready  (bready),
    .m_axil_bresp   (bresp),
    .m_axil_arvalid (arvalid),
    .m_axil_arready (arready),
    .m_axil_araddr  (araddr),
    .m_axil_rvalid  (rvalid),
    .m_axil_rready  (rready),
    .m_axil_rdata   (rdata),
    .m_axil_rresp   (rresp),
    .mem_valid_o    (mvalid),
    .mem_ready_i    (mready),
    .mem_we_o       (mwe),
    .mem_addr_o     (maddr),
    .mem_wdata_o    (mwdata),
    .mem_rvalid_i   (mrvalid),
    .mem_rdata_i    (mrdata),
    .evt_o          (evt)
  );

  integer seed, nframes;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
      seed = 1;
    end
    if (!$value$plusargs("frames=%d", nframes)) begin
      nframes = 400;
    end
    begin : trace
      reg [8*256-1:0] tfile;
      if ($value$plusargs("trace=%s", tfile)) begin
        $dumpfile(tfile);
        $dumpvars(0, tsr_uart_bridge_tb);
      end
    end
  end

  task automatic fail(input [8*160-1:0] msg);
      begin
      $display("FAIL tsr_uart_bridge_tb seed=%0d: %0s", seed, msg);
      $fatal(1);
    end
  endtask

  // ---------------------------------------------------------------- register slave
  reg [31:0] regs [0:63];
  reg [31:0] model_regs [0:63];
  integer    bus_writes = 0;        // writes that reached the slave (any response)
  reg        aw_got = 1'b0, w_got = 1'b0;
  reg [31:0] aw_a = 32'h0, w_d = 32'h0;
  integer    bdelay = 0, rdelay = 0;
  reg        ar_got = 1'b0;
  reg [31:0] ar_a = 32'h0;

  function [1:0] decode(input [31:0] a);
    begin
      if (a[31:8] != 24'h0) begin
        decode = 2'b10;
      end else if (a[7:0] == 8'hF0) begin
        decode = 2'b11;
      end else begin
        decode = 2'b00;
      end
    end
  endfunction

  always @(posedge clk) begin
    // AW and W may be accepted in any order and cycle.
    if (awvalid && awready) begin
      aw_got <= 1'b1;
      aw_a   <= awaddr;
    end
    if (wvalid && wready) begin
      w_got <= 1'b1;
      w_d   <= wdata;
      if (wstrb != 4'hF) begin
        fail("WSTRB is not 4'hF");
      end
    end
    awready <= !aw_got && !(awvalid && awready) && srand32(0) % 3 != 0;
    wready  <= !w_got && !(wvalid && wready) && srand32(0) % 3 != 0;
    if (aw_got && w_got && !bvalid) begin
      if (bdelay == 0) begin
        bvalid <= 1'b1;
        bresp  <= decode(aw_a);
        bus_writes <= bus_writes + 1;
        if (decode(aw_a) == 2'b00) begin
          regs[aw_a[7:2]] <= w_d;
        end
        bdelay <= srand32(0) % 4;
      end else begin
        bdelay <= bdelay - 1;
      end
    end
    if (bvalid && bready) begin
      bvalid <= 1'b0;
      aw_got <= 1'b0;
      w_got  <= 1'b0;
    end
    // Reads.
    if (arvalid && arready) begin
      ar_got <= 1'b1;
      ar_a   <= araddr;
    end
    arready <= !ar_got && !(arvalid && arready) && srand32(0) % 3 != 0;
    if (ar_got && !rvalid) begin
      if (rdelay == 0) begin
        rvalid <= 1'b1;
        rresp  <= decode(ar_a);
        rdata  <= decode(ar_a) == 2'b00 ? regs[ar_a[7:2]] : 32'hDEAD_BEEF;
        rdelay <= srand32(0) % 4;
      end else begin
        rdelay <= rdelay - 1;
      end
    end
    if (rvalid && rready) begin
      rvalid <= 1'b0;
      ar_got <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- memory
  reg [7:0] mem [0:MemBytes-1];
  reg [7:0] model_mem [0:MemBytes-1];
  integer   mem_writes = 0;
  always @(posedge clk) begin
    mrvalid <= 1'b0;
    if (mvalid && mready) begin
      if (maddr >= MemBytes) begin
        fail("memory access outside MemBytes");
      end
      if (mwe) begin
        mem[maddr[7:0]] <= mwdata;
        mem_writes <= mem_writes + 1;
      end else begin
        mrvalid <= 1'b1;
        mrdata  <= mem[maddr[7:0]];
      end
    end
    mready <= srand32(0) % 4 != 0;
  end

  // ---------------------------------------------------------------- events
  integer ev [0:6];
  integer ei;
  initial begin
    for (ei = 0; ei < 7; ei = ei + 1) begin
      ev[ei] = 0;
    end
  end
  always @(posedge clk) begin
    for (ei = 0; ei < 7; ei = ei + 1) begin
      if (evt[ei]) begin
        ev[ei] = ev[ei] + 1;
      end
    end
  end

  // ---------------------------------------------------------------- CRC (bit by bit)
  function [15:0] crc_bit(input [15:0] c, input [7:0] d);
    integer i;
    reg fb;
    begin
      crc_bit = c;
      for (i = 7; i >= 0; i = i - 1) begin
        fb = crc_bit[15] ^ d[i];
        crc_bit = {crc_bit[14:0], 1'b0};
        if (fb) begin
          crc_bit = crc_bit ^ 16'h1021;
        end
      end
    end
  endfunction

  // ---------------------------------------------------------------- host side: line
  // The host's bytes wait in a queue; this serializer sends each as start bit, 8 data
  // bits, stop bit and one idle bit. (A queue and an always block rather than timed
  // tasks: Verilator inlines every task call, and timed loops in dozens of inlined
  // copies take the C++ compiler many minutes.)
  reg [7:0]  txq [0:4095];
  reg        txq_stop [0:4095];
  integer    txq_wr = 0, txq_rd = 0;
  reg [10:0] tsh = 11'h7ff;
  integer    tleft = 0, tcnt = 0;
  always @(posedge clk) begin
    if (tcnt > 0) begin
      tcnt = tcnt - 1;
    end
    if (tcnt == 0) begin
      if (tleft > 0) begin
        host_tx <= tsh[0];
        tsh = {1'b1, tsh[10:1]};
        tleft = tleft - 1;
        tcnt = ClkPerBit;
      end else if (txq_rd != txq_wr) begin
        tsh = {1'b1, txq_stop[txq_rd % 4096], txq[txq_rd % 4096], 1'b0};
        txq_rd = txq_rd + 1;
        host_tx <= 1'b0;
        tsh = {1'b1, tsh[10:1]};
        tleft = 10;
        tcnt = ClkPerBit;
      end
    end
  end

  // Queue one character; stop_ok = 0 sends a 0 stop bit (a framing error).
  task automatic send_byte(input [7:0] b, input stop_ok);
    begin
      txq[txq_wr % 4096] = b;
      txq_stop[txq_wr % 4096] = stop_ok;
      txq_wr = txq_wr + 1;
    end
  endtask

  // Wait until every queued character has left.
  task automatic wait_sent;
    begin
      while (txq_rd != txq_wr || tleft != 0 || tcnt != 0) begin
        @(posedge clk);
      end
    end
  endtask

  // The request frame being built.
  reg [7:0] fr [0:299];
  integer   fr_len;
  reg [7:0] pay [0:299];

  task automatic build(input [7:0] cmd, input [7:0] seq, input [31:0] addr, input [15:0] len);
      integer i, n;
    reg [15:0] c;
    begin
      fr[0] = 8'hA5; fr[1] = cmd; fr[2] = seq;
      fr[3] = addr[7:0]; fr[4] = addr[15:8]; fr[5] = addr[23:16]; fr[6] = addr[31:24];
      fr[7] = len[7:0]; fr[8] = len[15:8];
      n = 9;
      if (cmd[7]) begin
        for (i = 0; i < len; i = i + 1) begin
          fr[n] = pay[i];
          n = n + 1;
        end
      end
      c = 16'hFFFF;
      for (i = 1; i < n; i = i + 1) begin
        c = crc_bit(c, fr[i]);
      end
      fr[n] = c[15:8];
      fr[n + 1] = c[7:0];
      fr_len = n + 2;
    end
  endtask

  // Send the frame; flip_idx >= 0 XORs that byte with flip_mask, drop_idx >= 0 leaves it out.
  task automatic send_frame(input integer flip_idx, input [7:0] flip_mask, input integer drop_idx);
      integer i;
    begin
      for (i = 0; i < fr_len; i = i + 1) begin
        if (i != drop_idx) begin
          send_byte(i == flip_idx ? fr[i] ^ flip_mask : fr[i], 1'b1);
        end
      end
      wait_sent;
    end
  endtask

  // ---------------------------------------------------------------- host side: replies
  reg [7:0] rxq [0:65535];
  integer   rxq_wr = 0, rxq_rd = 0;
  initial begin : deserializer
    integer i;
    reg [7:0] b;
    forever begin
      @(posedge clk);
      if (rst_n && !dev_tx) begin
        repeat (ClkPerBit / 2) @(posedge clk);
        if (dev_tx) begin
          fail("glitch on uart_tx_o (start bit shorter than half a bit)");
        end
        for (i = 0; i < 8; i = i + 1) begin
          repeat (ClkPerBit) @(posedge clk);
          b[i] = dev_tx;
        end
        repeat (ClkPerBit) @(posedge clk);
        if (!dev_tx) begin
          fail("framing error on uart_tx_o");
        end
        rxq[rxq_wr % 65536] = b;
        rxq_wr = rxq_wr + 1;
      end
    end
  end

  reg [7:0]  r_status, r_seq;
  reg [15:0] r_len;
  reg [7:0]  r_data [0:299];
  localparam integer ReplyWait = 60 * 10 * ClkPerBit;  // long enough for any reply to start

  // The reply parser runs as its own process; get_reply asks it for one reply and waits.
  // (One copy of the parsing loop instead of one inlined into every caller, see above.)
  integer reply_asked = 0, reply_got = 0;
  initial begin : reply_parser
    integer k, total, t;
    reg [7:0] b;
    reg [15:0] c;
    forever begin
      @(posedge clk);
      if (reply_asked != reply_got) begin
        k = 0;
        total = 7;
        c = 16'hFFFF;
        while (k < total) begin
          t = 0;
          while (rxq_rd == rxq_wr && t < (k == 0 ? ReplyWait : 40 * ClkPerBit)) begin
            @(posedge clk);
            t = t + 1;
          end
          if (rxq_rd == rxq_wr) begin
            fail(k == 0 ? "no reply" : "reply cut short");
          end
          b = rxq[rxq_rd % 65536];
          rxq_rd = rxq_rd + 1;
          if (k == 0) begin
            if (b != 8'h5A) begin
              fail("reply does not start with 0x5A");
            end
          end else if (k < total - 2) begin
            c = crc_bit(c, b);
            if (k == 1) begin
              r_status = b;
            end else if (k == 2) begin
              r_seq = b;
            end else if (k == 3) begin
              r_len[7:0] = b;
            end else if (k == 4) begin
              r_len[15:8] = b;
              if (r_len > 300) begin
                fail("reply LEN too large");
              end
              total = 7 + {16'h0, r_len};
            end else begin
              r_data[k - 5] = b;
            end
          end else if (k == total - 2) begin
            if (b != c[15:8]) begin
              fail("reply CRC high byte wrong");
            end
          end else if (b != c[7:0]) begin
            fail("reply CRC low byte wrong");
          end
          k = k + 1;
        end
        reply_got = reply_got + 1;
      end
    end
  end

  // Wait for a whole reply, its framing and CRC checked.
  task automatic get_reply;
    begin
      reply_asked = reply_asked + 1;
      while (reply_got != reply_asked) begin
        @(posedge clk);
      end
    end
  endtask

  task automatic expect_reply(input [7:0] status, input [7:0] seq, input [15:0] len);
      begin
      get_reply;
      if (r_status != status || r_seq != seq || r_len != len) begin
        $display("  got status %02h seq %02h len %0d, expected status %02h seq %02h len %0d",
                 r_status, r_seq, r_len, status, seq, len);
        fail("unexpected reply");
      end
    end
  endtask

  // No reply at all within the inter-byte timeout plus a reply's length.
  task automatic expect_silence;
      integer t;
    begin
      for (t = 0; t < (RxTimeoutBits + 200) * ClkPerBit; t = t + 1) begin
        @(posedge clk);
      end
      if (rxq_wr != rxq_rd) begin
        fail("a reply came to a frame that must be dropped silently");
      end
    end
  endtask

  // ---------------------------------------------------------------- checks against the model
  integer exp_bus_writes = 0, exp_mem_writes = 0;
  task automatic check_state(input [8*40-1:0] where);
      integer i;
    begin
      repeat (4) @(posedge clk);
      if (bus_writes != exp_bus_writes) begin
        $display("  %0s: %0d register writes reached the bus, expected %0d", where, bus_writes, exp_bus_writes);
        fail("register write count");
      end
      if (mem_writes != exp_mem_writes) begin
        $display("  %0s: %0d memory byte writes, expected %0d", where, mem_writes, exp_mem_writes);
        fail("memory write count");
      end
      for (i = 0; i < 64; i = i + 1) begin
        if (regs[i] !== model_regs[i]) begin
          $display("  %0s: register 0x%02h = %08h, expected %08h", where, 4 * i, regs[i], model_regs[i]);
          fail("register contents");
        end
      end
      for (i = 0; i < MemBytes; i = i + 1) begin
        if (mem[i] !== model_mem[i]) begin
          $display("  %0s: memory[0x%02h] = %02h, expected %02h", where, i, mem[i], model_mem[i]);
          fail("memory contents");
        end
      end
    end
  endtask

  // ---------------------------------------------------------------- operations (good frames)
  reg [7:0] seqn = 8'h10;

  task automatic op_write32(input [31:0] a, input [31:0] d, input [7:0] want);
      begin
      pay[0] = d[7:0]; pay[1] = d[15:8]; pay[2] = d[23:16]; pay[3] = d[31:24];
      build(8'h81, seqn, a, 16'd4);
      send_frame(-1, 8'h0, -1);
      expect_reply(want, seqn, 16'd0);
      if (want == 8'h00 || want == 8'h04 || want == 8'h05) begin   // executed: it reached the bus
        exp_bus_writes = exp_bus_writes + 1;
        if (want == 8'h00) begin
          model_regs[a[7:2]] = d;
        end
      end
      seqn = seqn + 1;
    end
  endtask

  task automatic op_read32(input [31:0] a, input [7:0] want);
      reg [31:0] got;
    begin
      build(8'h01, seqn, a, 16'd4);
      send_frame(-1, 8'h0, -1);
      expect_reply(want, seqn, want == 8'h00 ? 16'd4 : 16'd0);
      if (want == 8'h00) begin
        got = {r_data[3], r_data[2], r_data[1], r_data[0]};
        if (got !== model_regs[a[7:2]]) begin
          $display("  READ32 0x%08h = %08h, expected %08h", a, got, model_regs[a[7:2]]);
          fail("READ32 data");
        end
      end
      seqn = seqn + 1;
    end
  endtask

  task automatic op_memwrite(input [31:0] a, input [15:0] n, input [7:0] want);
      integer i;
    begin
      for (i = 0; i < n; i = i + 1) begin
        pay[i] = rand8(0);
      end
      build(8'h82, seqn, a, n);
      send_frame(-1, 8'h0, -1);
      expect_reply(want, seqn, 16'd0);
      if (want == 8'h00) begin
        for (i = 0; i < n; i = i + 1) begin
          model_mem[a + i] = pay[i];
        end
        exp_mem_writes = exp_mem_writes + {16'h0, n};
      end
      seqn = seqn + 1;
    end
  endtask

  task automatic op_memread(input [31:0] a, input [15:0] n, input [7:0] want);
      integer i;
    begin
      build(8'h02, seqn, a, n);
      send_frame(-1, 8'h0, -1);
      expect_reply(want, seqn, want == 8'h00 ? n : 16'd0);
      if (want == 8'h00) begin
        for (i = 0; i < n; i = i + 1) begin
          if (r_data[i] !== model_mem[a + i]) begin
            $display("  MEM_READ 0x%02h+%0d = %02h, expected %02h", a, i, r_data[i], model_mem[a + i]);
            fail("MEM_READ data");
          end
        end
      end
      seqn = seqn + 1;
    end
  endtask

  // ---------------------------------------------------------------- the test
  integer i, f, kind, nbad_crc, ndrop, nflip, nreplay, nretry;
  reg [31:0] a, d;
  reg [15:0] n;
  reg [7:0]  s, fmask;
  integer    idx;

  initial begin
    for (i = 0; i < 64; i = i + 1) begin
      regs[i] = 32'h0;
      model_regs[i] = 32'h0;
    end
    for (i = 0; i < MemBytes; i = i + 1) begin
      mem[i] = 8'h0;
      model_mem[i] = 8'h0;
    end
    #1;
    rng = 32'h9e3779b9 ^ seed;
    srng = 32'h7f4a7c15 ^ (seed * 3);
    if (rng == 0) rng = 1;
    if (srng == 0) srng = 1;
    if (crc_bit(crc_bit(crc_bit(crc_bit(crc_bit(crc_bit(crc_bit(crc_bit(crc_bit(16'hFFFF,
        8'h31), 8'h32), 8'h33), 8'h34), 8'h35), 8'h36), 8'h37), 8'h38), 8'h39) != 16'h29B1) begin
      fail("the bench's CRC does not give the CRC-16/CCITT-FALSE check value 0x29B1");
    end
    repeat (5) @(posedge clk);
    rst_n = 1'b1;
    repeat (5) @(posedge clk);

    // INFO.
    build(8'h00, seqn, 32'h0, 16'd0);
    send_frame(-1, 8'h0, -1);
    expect_reply(8'h00, seqn, 16'd16);
    if (r_data[0] != 8'h54 || r_data[1] != 8'h55 || r_data[2] != 8'h01 ||
        {16'h0, r_data[5], r_data[4]} != MaxLen || {16'h0, r_data[7], r_data[6]} != RxTimeoutBits ||
        {r_data[11], r_data[10], r_data[9], r_data[8]} != MemBytes ||
        {r_data[15], r_data[14], r_data[13], r_data[12]} != ClkPerBit) begin
      fail("INFO data");
    end
    seqn = seqn + 1;

    // Good register and memory accesses.
    op_write32(32'h04, 32'hCAFE_0001, 8'h00);
    op_write32(32'hFC, 32'h1234_5678, 8'h00);
    op_read32(32'h04, 8'h00);
    op_read32(32'hFC, 8'h00);
    op_memwrite(32'h20, 16'd16, 8'h00);
    op_memwrite(32'hFF, 16'd1, 8'h00);
    op_memread(32'h20, 16'd16, 8'h00);
    op_memread(32'hF0, 16'd16, 8'h00);
    check_state("good frames");

    // Bus errors are reported (and a SLVERR write did reach the bus).
    op_write32(32'h100, 32'h1, 8'h04);
    op_write32(32'hF0, 32'h1, 8'h05);
    op_read32(32'h104, 8'h04);
    op_read32(32'hF0, 8'h05);
    // Command and argument errors: nothing happens.
    build(8'h07, seqn, 32'h0, 16'd0); send_frame(-1, 8'h0, -1); expect_reply(8'h02, seqn, 0); seqn = seqn + 1;
    build(8'h83, seqn, 32'h0, 16'd2); send_frame(-1, 8'h0, -1); expect_reply(8'h02, seqn, 0); seqn = seqn + 1;
    build(8'h01, seqn, 32'h0, 16'd2); send_frame(-1, 8'h0, -1); expect_reply(8'h03, seqn, 0); seqn = seqn + 1;
    op_write32(32'h06, 32'h1, 8'h03);    // unaligned
    pay[0] = 1; pay[1] = 2;
    build(8'h81, seqn, 32'h8, 16'd2); send_frame(-1, 8'h0, -1); expect_reply(8'h03, seqn, 0); seqn = seqn + 1;
    op_memwrite(32'hF8, 16'd9, 8'h03);   // one byte past the end
    op_memread(32'h100, 16'd1, 8'h03);
    build(8'h02, seqn, 32'h0, 16'd17); send_frame(-1, 8'h0, -1); expect_reply(8'h03, seqn, 0); seqn = seqn + 1;
    build(8'h82, seqn, 32'h0, 16'd0);  send_frame(-1, 8'h0, -1); expect_reply(8'h03, seqn, 0); seqn = seqn + 1;
    build(8'h00, seqn, 32'h0, 16'd1);  send_frame(-1, 8'h0, -1); expect_reply(8'h03, seqn, 0); seqn = seqn + 1;
    check_state("error statuses");

    // A bad CRC byte: STATUS CRC, and no write.
    pay[0] = 8'h11; pay[1] = 8'h22; pay[2] = 8'h33; pay[3] = 8'h44;
    build(8'h81, seqn, 32'h08, 16'd4);
    send_frame(fr_len - 1, 8'h01, -1);
    expect_reply(8'h01, seqn, 0);
    check_state("bad CRC byte");
    // A flipped payload byte of a register write and of a memory write.
    send_frame(11, 8'h80, -1);
    expect_reply(8'h01, seqn, 0);
    for (i = 0; i < 8; i = i + 1) pay[i] = 8'hEE;
    build(8'h82, seqn, 32'h40, 16'd8);
    send_frame(13, 8'h04, -1);
    expect_reply(8'h01, seqn, 0);
    check_state("flipped payload byte");
    // A flipped address byte: STATUS CRC, the SEQ echoed.
    build(8'h01, seqn, 32'h04, 16'd4);
    send_frame(3, 8'h10, -1);
    expect_reply(8'h01, seqn, 0);
    // A dropped byte: the frame times out silently, then the link works again.
    pay[0] = 8'h55; pay[1] = 8'h66; pay[2] = 8'h77; pay[3] = 8'h88;
    build(8'h81, seqn, 32'h0C, 16'd4);
    send_frame(-1, 8'h0, 10);
    expect_silence;
    check_state("dropped byte");
    if (ev[2] != 1) begin
      fail("the dropped byte did not count one abandoned frame");
    end
    op_write32(32'h0C, 32'h5566_7788, 8'h00);
    // LEN above MaxLen on a write: dropped at once, no reply, no write.
    for (i = 0; i < 4; i = i + 1) pay[i] = 8'h00;
    build(8'h82, seqn, 32'h0, 16'd4);
    fr[8] = 8'h01;           // LEN = 0x0104
    send_frame(-1, 8'h0, -1);
    if (ev[2] != 2) begin    // abandoned at the LEN byte, not by the timeout after the frame
      fail("a frame with LEN above MaxLen was not abandoned at once");
    end
    expect_silence;
    check_state("LEN above MaxLen");
    // Noise and a framing error before a frame are ignored.
    send_byte(8'h13, 1'b1);
    send_byte(8'h5A, 1'b1);
    send_byte(8'h00, 1'b0);
    op_read32(32'h0C, 8'h00);
    if (ev[3] != 1) begin
      fail("the framing error was not counted");
    end

    // Exactly once: a repeated write is answered from memory, not executed.
    op_write32(32'h10, 32'hAAAA_0001, 8'h00);
    seqn = seqn - 1;
    model_regs[4] = 32'hAAAA_0001;
    pay[0] = 8'h02; pay[1] = 8'h00; pay[2] = 8'hAA; pay[3] = 8'hAA;   // even with other data
    build(8'h81, seqn, 32'h10, 16'd4);
    send_frame(-1, 8'h0, -1);
    expect_reply(8'h80, seqn, 0);
    send_frame(-1, 8'h0, -1);
    expect_reply(8'h80, seqn, 0);
    check_state("repeated write");
    seqn = seqn + 1;
    // ... also a memory write, and a write that failed on the bus.
    op_memwrite(32'h80, 16'd4, 8'h00);
    seqn = seqn - 1;
    send_frame(-1, 8'h0, -1);
    expect_reply(8'h80, seqn, 0);
    seqn = seqn + 1;
    op_write32(32'h200, 32'h1, 8'h04);
    seqn = seqn - 1;
    send_frame(-1, 8'h0, -1);
    expect_reply(8'h84, seqn, 0);
    seqn = seqn + 1;
    check_state("repeated memory and failed writes");
    // A repeated read is executed again; a write after a read may reuse an old SEQ.
    op_write32(32'h14, 32'h0000_0014, 8'h00);
    s = seqn - 1;
    op_read32(32'h14, 8'h00);
    seqn = seqn - 1;
    op_read32(32'h14, 8'h00);
    seqn = s;
    op_write32(32'h14, 32'h0000_0015, 8'h00);
    check_state("reads and reused SEQ");
    if (ev[4] != 4) begin
      fail("REPLAY events: expected 4");
    end

    // ------------------------------------------------------------ random traffic
    nbad_crc = 0; ndrop = 0; nflip = 0; nreplay = 0; nretry = 0;
    for (f = 0; f < nframes; f = f + 1) begin
      kind = rand32(0) % 4;
      case (kind)
        0: begin   // WRITE32 to a mapped register (a few to error addresses)
          a = (rand32(0) % 64) * 4;
          if (a == 32'hF0) a = 32'h0;
          d = rand32(0);
          pay[0] = d[7:0]; pay[1] = d[15:8]; pay[2] = d[23:16]; pay[3] = d[31:24];
          build(8'h81, seqn, a, 16'd4);
        end
        1: begin
          a = (rand32(0) % 64) * 4;
          if (a == 32'hF0) a = 32'h0;
          build(8'h01, seqn, a, 16'd4);
        end
        2: begin
          n = rand_len(0);
          a = rand32(0) % (MemBytes - {16'h0, n} + 1);
          for (i = 0; i < n; i = i + 1) pay[i] = rand8(0);
          build(8'h82, seqn, a, n);
        end
        default: begin
          n = rand_len(0);
          a = rand32(0) % (MemBytes - {16'h0, n} + 1);
          build(8'h02, seqn, a, n);
        end
      endcase
      // A quarter of the frames are damaged first, then sent again as the host would.
      if (rand32(0) % 4 == 0) begin
        idx = 1 + rand32(0) % (fr_len - 1);
        case (rand32(0) % 3)
          0: begin
            fmask = 8'h01 << (rand32(0) % 8);
            send_frame(idx, fmask, -1);   // one bit of one byte
            nflip = nflip + 1;
            get_or_silence(idx, idx == 2 ? fr[2] ^ fmask : fr[2]);
          end
          1: begin
            send_frame(-1, 8'h0, idx);
            ndrop = ndrop + 1;
            if (idx <= 8) begin
              get_or_silence(1, fr[2]);   // a header byte: the frame's length may change
            end else begin
              expect_silence;             // one byte short: the inter-byte timeout ends it
            end
          end
          default: begin
            send_frame(fr_len - 1 - rand32(0) % 2, 8'hFF, -1);
            nbad_crc = nbad_crc + 1;
            expect_reply(8'h01, fr[2], 0);
          end
        endcase
        check_state("after a damaged frame");
        nretry = nretry + 1;
      end
      send_frame(-1, 8'h0, -1);
      case (kind)
        0: begin
          expect_reply(8'h00, seqn, 0);
          exp_bus_writes = exp_bus_writes + 1;
          model_regs[a[7:2]] = d;
        end
        1: begin
          expect_reply(8'h00, seqn, 4);
          if ({r_data[3], r_data[2], r_data[1], r_data[0]} !== model_regs[a[7:2]]) begin
            fail("random READ32 data");
          end
        end
        2: begin
          expect_reply(8'h00, seqn, 0);
          for (i = 0; i < n; i = i + 1) model_mem[a + i] = pay[i];
          exp_mem_writes = exp_mem_writes + {16'h0, n};
        end
        default: begin
          expect_reply(8'h00, seqn, n);
          for (i = 0; i < n; i = i + 1) begin
            if (r_data[i] !== model_mem[a + i]) fail("random MEM_READ data");
          end
        end
      endcase
      // Sometimes the reply is "lost" and the host repeats the frame: a write must not run again.
      if (rand32(0) % 8 == 0) begin
        send_frame(-1, 8'h0, -1);
        if (kind == 0 || kind == 2) begin
          expect_reply(8'h80, seqn, 0);
          nreplay = nreplay + 1;
        end else begin
          expect_reply(8'h00, seqn, kind == 1 ? 16'd4 : n);
        end
      end
      check_state("random traffic");
      seqn = seqn + 1;
    end
    $display("tsr_uart_bridge_tb: %0d random frames: %0d retried after damage (%0d flipped bit, %0d dropped byte, %0d bad CRC), %0d repeated writes replayed",
             nframes, nretry, nflip, ndrop, nbad_crc, nreplay);
    $display("tsr_uart_bridge_tb: events: %0d good frames, %0d bad CRC, %0d abandoned, %0d framing errors, %0d replays, %0d register writes, %0d memory byte writes",
             ev[0], ev[1], ev[2], ev[3], ev[4], ev[5], ev[6]);
    if (ev[5] != exp_bus_writes || ev[6] != exp_mem_writes) begin
      fail("evt_o register/memory write pulses differ from the bus");
    end
    $display("PASS tsr_uart_bridge_tb seed=%0d: %0d register writes and %0d memory bytes, all from good frames; no damaged frame wrote",
             seed, bus_writes, mem_writes);
    $finish;
  end

  // After a damaged frame: a CRC reply, or, when the damage is in CMD or LEN (the frame's
  // length may change), any number of CRC replies or silence.
  task automatic get_or_silence(input integer flipped, input [7:0] seq);
      integer t;
    begin
      if (flipped == 1 || flipped == 7 || flipped == 8) begin
        // CMD bit 7 or LEN: the frame may now be longer (timeout) or shorter (CRC reply
        // from the bytes that follow); either way nothing may execute. Drain everything.
        for (t = 0; t < (RxTimeoutBits + 400) * ClkPerBit; t = t + 1) begin
          @(posedge clk);
        end
        while (rxq_rd != rxq_wr) begin
          get_reply;
          if (r_status != 8'h01) begin
            fail("a damaged header got a reply other than STATUS CRC");
          end
        end
      end else begin
        expect_reply(8'h01, seq, 0);
      end
    end
  endtask
endmodule

`default_nettype wire
