// tsr_synth_shell: tsr_top behind serial shift chains, so place-and-route fits a small package.
`default_nettype none

// Not a board top. tsr_top has about 300 (AXI 32) to 500 (AXI 128) port bits,
// more than any FPGA package offers (UP5K sg48: 39 I/O, ECP5 CABGA381: 197).
// `make synth` places and routes this shell instead, on five pins:
//   - every tsr_top input comes from a shift chain fed by sin_i;
//   - every tsr_top output is captured into a second chain when load_i is high,
//     and shifted out on sout_o otherwise.
// All inputs therefore stay independent and all outputs observed, so Yosys
// can remove nothing of tsr_top, and every I/O path of tsr_top becomes a
// register-to-register path inside the clock domain that nextpnr times. The
// shell costs InBits + OutBits flip-flops and about OutBits LUTs (tools/synth.py
// reports the figures). A board top (issue #5, item 3) replaces this file.
module tsr_synth_shell #(
  parameter integer ArrayDim     = 8,
  parameter integer SpadRows     = 4096,
  parameter integer AccRows      = 1024,
  parameter integer AxiDataWidth = 64,
  parameter integer CmdQDepth    = 16,
  parameter integer EnableSfu    = 1,
  parameter integer StoreLanes   = ArrayDim,
  localparam integer W       = AxiDataWidth,
  localparam integer InBits  = 115 + W,
  localparam integer OutBits = 138 + W + W / 8
) (
  input  wire clk_i,
  input  wire rst_ni,
  input  wire sin_i,    // serial data into the input chain
  input  wire load_i,   // 1: capture tsr_top outputs; 0: shift the output chain
  output wire sout_o    // serial data out of the output chain
);
  reg  [InBits-1:0]  in_q;
  reg  [OutBits-1:0] out_q;
  wire [InBits-1:0]  in_d  = {in_q[InBits-2:0], sin_i};
  wire [OutBits-1:0] outs;
  wire [OutBits-1:0] out_d = load_i ? outs : {out_q[OutBits-2:0], 1'b0};

  // Shift chains: datapath registers, no reset.
  always @(posedge clk_i) begin
    in_q  <= in_d;
    out_q <= out_d;
  end

  assign sout_o = out_q[OutBits-1];

  // Input bit positions in in_q (W = AxiDataWidth).
  localparam integer IAxilAw = 0;           // awvalid, awaddr[31:0]
  localparam integer IAxilW  = 33;          // wvalid, wdata[31:0], wstrb[3:0]
  localparam integer IAxilB  = 70;          // bready
  localparam integer IAxilAr = 71;          // arvalid, araddr[31:0]
  localparam integer IAxilR  = 104;         // rready
  localparam integer IAxiAw  = 105;         // awready
  localparam integer IAxiW   = 106;         // wready
  localparam integer IAxiB   = 107;         // bvalid, bresp[1:0]
  localparam integer IAxiAr  = 110;         // arready
  localparam integer IAxiR   = 111;         // rvalid, rdata[W-1:0], rresp[1:0], rlast

  tsr_top #(
    .ArrayDim     (ArrayDim),
    .SpadRows     (SpadRows),
    .AccRows      (AccRows),
    .AxiDataWidth (AxiDataWidth),
    .CmdQDepth    (CmdQDepth),
    .EnableSfu    (EnableSfu),
    .StoreLanes   (StoreLanes)
  ) u_top (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .s_axil_awvalid (in_q[IAxilAw]),
    .s_axil_awready (outs[0]),
    .s_axil_awaddr  (in_q[IAxilAw + 1 +: 32]),
    .s_axil_wvalid  (in_q[IAxilW]),
    .s_axil_wready  (outs[1]),
    .s_axil_wdata   (in_q[IAxilW + 1 +: 32]),
    .s_axil_wstrb   (in_q[IAxilW + 33 +: 4]),
    .s_axil_bvalid  (outs[2]),
    .s_axil_bready  (in_q[IAxilB]),
    .s_axil_bresp   (outs[3 +: 2]),
    .s_axil_arvalid (in_q[IAxilAr]),
    .s_axil_arready (outs[5]),
    .s_axil_araddr  (in_q[IAxilAr + 1 +: 32]),
    .s_axil_rvalid  (outs[6]),
    .s_axil_rready  (in_q[IAxilR]),
    .s_axil_rdata   (outs[7 +: 32]),
    .s_axil_rresp   (outs[39 +: 2]),
    .m_axi_awvalid  (outs[41]),
    .m_axi_awready  (in_q[IAxiAw]),
    .m_axi_awaddr   (outs[42 +: 32]),
    .m_axi_awlen    (outs[74 +: 8]),
    .m_axi_awsize   (outs[82 +: 3]),
    .m_axi_awburst  (outs[85 +: 2]),
    .m_axi_wvalid   (outs[87]),
    .m_axi_wready   (in_q[IAxiW]),
    .m_axi_wdata    (outs[88 +: W]),
    .m_axi_wstrb    (outs[88 + W +: W / 8]),
    .m_axi_wlast    (outs[88 + W + W / 8]),
    .m_axi_bvalid   (in_q[IAxiB]),
    .m_axi_bready   (outs[89 + W + W / 8]),
    .m_axi_bresp    (in_q[IAxiB + 1 +: 2]),
    .m_axi_arvalid  (outs[90 + W + W / 8]),
    .m_axi_arready  (in_q[IAxiAr]),
    .m_axi_araddr   (outs[91 + W + W / 8 +: 32]),
    .m_axi_arlen    (outs[123 + W + W / 8 +: 8]),
    .m_axi_arsize   (outs[131 + W + W / 8 +: 3]),
    .m_axi_arburst  (outs[134 + W + W / 8 +: 2]),
    .m_axi_rvalid   (in_q[IAxiR]),
    .m_axi_rready   (outs[136 + W + W / 8]),
    .m_axi_rdata    (in_q[IAxiR + 1 +: W]),
    .m_axi_rresp    (in_q[IAxiR + 1 + W +: 2]),
    .m_axi_rlast    (in_q[IAxiR + 3 + W]),
    .irq_o          (outs[137 + W + W / 8])
  );
endmodule

`default_nettype wire
