// tsr_uart_top: board-neutral top: tsr_top driven over a UART by tsr_uart_bridge, with on-chip memory behind the DMA.
`default_nettype none

// A board top instantiates this with its clock (after any PLL), a reset
// (synchronized, active low), the UART pins of its USB-serial bridge and,
// if it likes, LEDs on irq_o and evt_o. Nothing here is board specific.
//
//   uart_rx_i ─► tsr_uart_bridge ─ AXI4-Lite ─► tsr_top ─ AXI4 (DMA) ─► tsr_axi_ram
//   uart_tx_o ◄─        └──────────── byte port ──────────────────────────►┘
//
// The host (sw/hal/tsr_hal_uart.c) reads and writes registers through the
// bridge, and fills and reads the memory with MEM_WRITE / MEM_READ; the DMA
// sees the same memory at device addresses 0..MemBytes-1. The protocol is in
// docs/host-link.md; evt_o is the bridge's event vector.
module tsr_uart_top #(
  parameter integer ArrayDim      = 8,
  parameter integer SpadRows      = 4096,
  parameter integer AccRows       = 1024,
  parameter integer AxiDataWidth  = 64,
  parameter integer CmdQDepth     = 16,
  parameter integer EnableSfu     = 1,      // 0: tsr_top without the SFU (small FPGAs)
  parameter integer StoreLanes    = ArrayDim,   // output-stage lanes (tsr_top)
  parameter integer MemBytes      = 65536,  // on-chip memory, a power of two
  parameter integer ClkPerBit     = 868,    // clock / baud (868: 115200 baud at 100 MHz)
  parameter integer RxTimeoutBits = 1024,
  parameter integer MaxLen        = 256
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       uart_rx_i,
  output wire       uart_tx_o,
  output wire       irq_o,
  output wire [6:0] evt_o
);
  localparam integer AxiBytes = AxiDataWidth / 8;

  // Bridge to register slave (AXI4-Lite).
  wire        l_awvalid, l_awready, l_wvalid, l_wready, l_bvalid, l_bready;
  wire        l_arvalid, l_arready, l_rvalid, l_rready;
  wire [31:0] l_awaddr, l_wdata, l_araddr, l_rdata;
  wire [3:0]  l_wstrb;
  wire [1:0]  l_bresp, l_rresp;
  // Bridge to memory (byte port).
  wire        b_valid, b_ready, b_we, b_rvalid;
  wire [31:0] b_addr;
  wire [7:0]  b_wdata, b_rdata;
  // DMA to memory (AXI4).
  wire                    m_awvalid, m_awready, m_wvalid, m_wready, m_wlast, m_bvalid, m_bready;
  wire                    m_arvalid, m_arready, m_rvalid, m_rready, m_rlast;
  wire [31:0]             m_awaddr, m_araddr;
  wire [7:0]              m_awlen, m_arlen;
  wire [2:0]              m_awsize, m_arsize;
  wire [1:0]              m_awburst, m_arburst, m_bresp, m_rresp;
  wire [AxiDataWidth-1:0] m_wdata, m_rdata;
  wire [AxiBytes-1:0]     m_wstrb;

  tsr_uart_bridge #(
    .ClkPerBit     (ClkPerBit),
    .RxTimeoutBits (RxTimeoutBits),
    .MaxLen        (MaxLen),
    .MemBytes      (MemBytes)
  ) u_bridge (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .uart_rx_i      (uart_rx_i),
    .uart_tx_o      (uart_tx_o),
    .m_axil_awvalid (l_awvalid),
    .m_axil_awready (l_awready),
    .m_axil_awaddr  (l_awaddr),
    .m_axil_wvalid  (l_wvalid),
    .m_axil_wready  (l_wready),
    .m_axil_wdata   (l_wdata),
    .m_axil_wstrb   (l_wstrb),
    .m_axil_bvalid  (l_bvalid),
    .m_axil_bready  (l_bready),
    .m_axil_bresp   (l_bresp),
    .m_axil_arvalid (l_arvalid),
    .m_axil_arready (l_arready),
    .m_axil_araddr  (l_araddr),
    .m_axil_rvalid  (l_rvalid),
    .m_axil_rready  (l_rready),
    .m_axil_rdata   (l_rdata),
    .m_axil_rresp   (l_rresp),
    .mem_valid_o    (b_valid),
    .mem_ready_i    (b_ready),
    .mem_we_o       (b_we),
    .mem_addr_o     (b_addr),
    .mem_wdata_o    (b_wdata),
    .mem_rvalid_i   (b_rvalid),
    .mem_rdata_i    (b_rdata),
    .evt_o          (evt_o)
  );

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
    .s_axil_awvalid (l_awvalid),
    .s_axil_awready (l_awready),
    .s_axil_awaddr  (l_awaddr),
    .s_axil_wvalid  (l_wvalid),
    .s_axil_wready  (l_wready),
    .s_axil_wdata   (l_wdata),
    .s_axil_wstrb   (l_wstrb),
    .s_axil_bvalid  (l_bvalid),
    .s_axil_bready  (l_bready),
    .s_axil_bresp   (l_bresp),
    .s_axil_arvalid (l_arvalid),
    .s_axil_arready (l_arready),
    .s_axil_araddr  (l_araddr),
    .s_axil_rvalid  (l_rvalid),
    .s_axil_rready  (l_rready),
    .s_axil_rdata   (l_rdata),
    .s_axil_rresp   (l_rresp),
    .m_axi_awvalid  (m_awvalid),
    .m_axi_awready  (m_awready),
    .m_axi_awaddr   (m_awaddr),
    .m_axi_awlen    (m_awlen),
    .m_axi_awsize   (m_awsize),
    .m_axi_awburst  (m_awburst),
    .m_axi_wvalid   (m_wvalid),
    .m_axi_wready   (m_wready),
    .m_axi_wdata    (m_wdata),
    .m_axi_wstrb    (m_wstrb),
    .m_axi_wlast    (m_wlast),
    .m_axi_bvalid   (m_bvalid),
    .m_axi_bready   (m_bready),
    .m_axi_bresp    (m_bresp),
    .m_axi_arvalid  (m_arvalid),
    .m_axi_arready  (m_arready),
    .m_axi_araddr   (m_araddr),
    .m_axi_arlen    (m_arlen),
    .m_axi_arsize   (m_arsize),
    .m_axi_arburst  (m_arburst),
    .m_axi_rvalid   (m_rvalid),
    .m_axi_rready   (m_rready),
    .m_axi_rdata    (m_rdata),
    .m_axi_rresp    (m_rresp),
    .m_axi_rlast    (m_rlast),
    .irq_o          (irq_o)
  );

  tsr_axi_ram #(
    .DataWidth (AxiDataWidth),
    .MemBytes  (MemBytes)
  ) u_ram (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .s_axi_awvalid (m_awvalid),
    .s_axi_awready (m_awready),
    .s_axi_awaddr  (m_awaddr),
    .s_axi_awlen   (m_awlen),
    .s_axi_awsize  (m_awsize),
    .s_axi_awburst (m_awburst),
    .s_axi_wvalid  (m_wvalid),
    .s_axi_wready  (m_wready),
    .s_axi_wdata   (m_wdata),
    .s_axi_wstrb   (m_wstrb),
    .s_axi_wlast   (m_wlast),
    .s_axi_bvalid  (m_bvalid),
    .s_axi_bready  (m_bready),
    .s_axi_bresp   (m_bresp),
    .s_axi_arvalid (m_arvalid),
    .s_axi_arready (m_arready),
    .s_axi_araddr  (m_araddr),
    .s_axi_arlen   (m_arlen),
    .s_axi_arsize  (m_arsize),
    .s_axi_arburst (m_arburst),
    .s_axi_rvalid  (m_rvalid),
    .s_axi_rready  (m_rready),
    .s_axi_rdata   (m_rdata),
    .s_axi_rresp   (m_rresp),
    .s_axi_rlast   (m_rlast),
    .byte_valid_i  (b_valid),
    .byte_ready_o  (b_ready),
    .byte_we_i     (b_we),
    .byte_addr_i   (b_addr),
    .byte_wdata_i  (b_wdata),
    .byte_rvalid_o (b_rvalid),
    .byte_rdata_o  (b_rdata)
  );
endmodule

`default_nettype wire
