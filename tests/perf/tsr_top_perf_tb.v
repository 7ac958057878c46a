// tsr_top_perf_tb: a small, simulator-neutral bench of the whole chip, for simulation speed.
`timescale 1ns / 1ps
`default_nettype none

// The same Verilog runs under Verilator (--binary --timing) and Icarus, so
// `make bench-sim` can report their speed ratio on identical RTL and work.
// Each repetition pushes, through AXI4-Lite, the commands of one GEMM tile:
//   LOAD A (128 x 4N bytes), LOAD W (4N x N), 4 MATMULs (accumulating over
//   the four N-deep K blocks), STORE raw int32 (128 x N),
// waits for STATUS.DONE, and checks that STATUS.ERROR stayed low and that
// CNT_MACS grew by 128 * 4N * N. External memory is a behavioural AXI4
// slave (INCR bursts, up to 8 reads queued, one write burst at a time).
//
// plusargs: +reps=R (default 10). Prints the simulated cycles; the caller
// times the run.
module tsr_top_perf_tb;
  parameter integer ArrayDim = 8;
  localparam integer N = ArrayDim;
  localparam integer Bytes = 8;           // tsr_top's default AxiDataWidth / 8
  localparam integer MemBytes = 1 << 20;
  localparam integer M = 128, K = 4 * N;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  // AXI4-Lite master signals
  reg         awvalid = 0, wvalid = 0, bready = 0, arvalid = 0, rready = 0;
  reg  [31:0] awaddr = 0, wdata = 0, araddr = 0;
  wire        awready, wready, bvalid, arready, rvalid;
  wire [1:0]  bresp, rresp;
  wire [31:0] rdata;
  // AXI4 slave (memory) signals
  wire        m_awvalid, m_wvalid, m_wlast, m_bready, m_arvalid, m_rready;
  wire [31:0] m_awaddr, m_araddr;
  wire [7:0]  m_awlen, m_arlen;
  wire [2:0]  m_awsize, m_arsize;
  wire [1:0]  m_awburst, m_arburst;
  wire [63:0] m_wdata;
  wire [7:0]  m_wstrb;
  reg         m_awready, m_wready, m_bvalid, m_arready, m_rvalid, m_rlast;
  reg  [63:0] m_rdata;
  wire        irq;

  tsr_top #(.ArrayDim(N)) dut (
    .clk_i (clk), .rst_ni (rst_n),
    .s_axil_awvalid (awvalid), .s_axil_awready (awready), .s_axil_awaddr (awaddr),
    .s_axil_wvalid (wvalid), .s_axil_wready (wready), .s_axil_wdata (wdata),
    .s_axil_wstrb (4'hf), .s_axil_bvalid (bvalid), .s_axil_bready (bready),
    .s_axil_bresp (bresp), .s_axil_arvalid (arvalid), .s_axil_arready (arready),
    .s_axil_araddr (araddr), .s_axil_rvalid (rvalid), .s_axil_rready (rready),
    .s_axil_rdata (rdata), .s_axil_rresp (rresp),
    .m_axi_awvalid (m_awvalid), .m_axi_awready (m_awready), .m_axi_awaddr (m_awaddr),
    .m_axi_awlen (m_awlen), .m_axi_awsize (m_awsize), .m_axi_awburst (m_awburst),
    .m_axi_wvalid (m_wvalid), .m_axi_wready (m_wready), .m_axi_wdata (m_wdata),
    .m_axi_wstrb (m_wstrb), .m_axi_wlast (m_wlast), .m_axi_bvalid (m_bvalid),
    .m_axi_bready (m_bready), .m_axi_bresp (2'b00), .m_axi_arvalid (m_arvalid),
    .m_axi_arready (m_arready), .m_axi_araddr (m_araddr), .m_axi_arlen (m_arlen),
    .m_axi_arsize (m_arsize), .m_axi_arburst (m_arburst), .m_axi_rvalid (m_rvalid),
    .m_axi_rready (m_rready), .m_axi_rdata (m_rdata), .m_axi_rresp (2'b00),
    .m_axi_rlast (m_rlast), .irq_o (irq)
  );

  // ------------------------------------------------------------ memory slave
  reg [7:0]  mem [0:MemBytes-1];
  reg [31:0] arq_addr [0:7];
  reg [7:0]  arq_len [0:7];
  reg [2:0]  arq_wp = 0, arq_rp = 0;
  reg [3:0]  arq_n = 0;
  reg        r_act = 0;
  reg [31:0] r_addr;
  reg [7:0]  r_left;
  reg        w_act = 0;
  reg [31:0] w_addr;
  integer    j;

  always @(*) begin
    m_arready = (arq_n < 4'd8);
    m_rvalid  = r_act;
    m_rlast   = r_act && (r_left == 8'd0);
    m_awready = !w_act && !m_bvalid;
    m_wready  = w_act;
  end

  // The data of the beat at `a` (read in the clocked block: no sensitivity to the whole memory).
  function automatic [63:0] beat_at(input [31:0] a);
    integer t;
    begin
      beat_at = 64'h0;
      for (t = 0; t < Bytes; t = t + 1) beat_at[8*t +: 8] = mem[(a + t) % MemBytes];
    end
  endfunction

  always @(posedge clk) begin
    if (!rst_n) begin
      arq_wp <= 0; arq_rp <= 0; arq_n <= 0; r_act <= 0; w_act <= 0; m_bvalid <= 0;
    end else begin
      // Reads: queue AR, serve the bursts in order, one beat per cycle.
      if (m_arvalid && m_arready) begin
        arq_addr[arq_wp] <= m_araddr;
        arq_len[arq_wp]  <= m_arlen;
        arq_wp <= arq_wp + 3'd1;
      end
      if (!r_act && arq_n != 0) begin
        r_act   <= 1'b1;
        r_addr  <= arq_addr[arq_rp];
        m_rdata <= beat_at(arq_addr[arq_rp]);
        r_left  <= arq_len[arq_rp];
        arq_rp  <= arq_rp + 3'd1;
      end else if (r_act && m_rready) begin
        r_addr  <= r_addr + Bytes;
        m_rdata <= beat_at(r_addr + Bytes);
        r_left  <= r_left - 8'd1;
        if (r_left == 8'd0) r_act <= 1'b0;
      end
      arq_n <= arq_n + {3'd0, m_arvalid && m_arready} - {3'd0, !r_act && arq_n != 0};
      // Writes: one burst at a time, strobed bytes, then B.
      if (m_awvalid && m_awready) begin
        w_act  <= 1'b1;
        w_addr <= m_awaddr;
      end
      if (m_wvalid && m_wready) begin
        for (j = 0; j < Bytes; j = j + 1)
          if (m_wstrb[j]) mem[(w_addr + j) % MemBytes] <= m_wdata[8*j +: 8];
        w_addr <= w_addr + Bytes;
        if (m_wlast) begin
          w_act    <= 1'b0;
          m_bvalid <= 1'b1;
        end
      end
      if (m_bvalid && m_bready) m_bvalid <= 1'b0;
    end
  end

  // ------------------------------------------------------------ register access
  // Handshakes are decided at the falling edge, where every signal is stable,
  // and complete on the rising edge that follows (no race with the DUT's flops).
  task automatic reg_write(input [31:0] addr, input [31:0] data);
    reg aw_hs, w_hs;
    begin
      @(negedge clk);
      awvalid = 1; awaddr = addr; wvalid = 1; wdata = data; bready = 1;
      while (awvalid || wvalid) begin
        aw_hs = awvalid && awready;
        w_hs  = wvalid && wready;
        @(negedge clk);
        if (aw_hs) awvalid = 0;
        if (w_hs) wvalid = 0;
      end
      while (!bvalid) @(negedge clk);
      @(negedge clk);
      bready = 0;
    end
  endtask

  task automatic reg_read(input [31:0] addr, output [31:0] data);
    reg ar_hs;
    begin
      @(negedge clk);
      arvalid = 1; araddr = addr; rready = 1;
      while (arvalid) begin
        ar_hs = arready;
        @(negedge clk);
        if (ar_hs) arvalid = 0;
      end
      while (!rvalid) @(negedge clk);
      data = rdata;
      @(negedge clk);
      rready = 0;
    end
  endtask

  localparam [31:0] Status = 32'h014, CmdqPush = 32'h030, CntCyclesLo = 32'h040,
                    CntMacsLo = 32'h050;

  task automatic push(input [31:0] w0, input [31:0] w1, input [31:0] w2, input [31:0] w3,
                      input [31:0] w4, input [31:0] w5);
    begin
      reg_write(CmdqPush, w0); reg_write(CmdqPush, w1); reg_write(CmdqPush, w2);
      reg_write(CmdqPush, w3); reg_write(CmdqPush, w4); reg_write(CmdqPush, w5);
      reg_write(CmdqPush, 32'h0); reg_write(CmdqPush, 32'h0);
    end
  endtask

  integer reps, r, b, k;
  reg [31:0] st, macs0, macs1, cyc;
  initial begin
    if (!$value$plusargs("reps=%d", reps)) reps = 10;
    for (k = 0; k < MemBytes; k = k + 1) mem[k] = k[7:0] ^ k[15:8];
    repeat (4) @(posedge clk);
    rst_n = 1'b1;
    reg_read(CntMacsLo, macs0);
    for (r = 0; r < reps; r = r + 1) begin
      push(32'h1, 32'h0, K, M | (K << 16), 32'h0, 32'h0);                  // LOAD A
      push(32'h1, 32'h10000, N, K | (N << 16), 4 * M, 32'h0);              // LOAD W
      for (b = 0; b < 4; b = b + 1)                                        // MATMUL x 4
        push((b != 0) ? 32'h1_0002 : 32'h2, b * M, 4 * M + b * N, 32'h0, M | (N << 16), N);
      push(32'h3, 32'h20000, 4 * N, M | (N << 16), 32'h0, 32'd900);        // STORE int32
      st = 0;
      while (!st[1]) reg_read(Status, st);
      if (st[2]) begin
        $display("tsr_top_perf_tb: FAIL: STATUS.ERROR in repetition %0d", r);
        $fatal(1);
      end
    end
    reg_read(CntMacsLo, macs1);
    reg_read(CntCyclesLo, cyc);
    if (macs1 - macs0 != reps * M * K * N) begin
      $display("tsr_top_perf_tb: FAIL: CNT_MACS grew by %0d, expected %0d", macs1 - macs0,
               reps * M * K * N);
      $fatal(1);
    end
    $display("tsr_top_perf_tb: N=%0d reps=%0d cycles=%0d", N, reps, cyc);
    $finish;
  end
endmodule

`default_nettype wire
