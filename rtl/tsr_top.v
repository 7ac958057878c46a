// tsr_top: Tessera int8 systolic GEMM accelerator, top level (body in progress).
`default_nettype none

module tsr_top #(
  parameter integer ArrayDim     = 8,     // N of the N x N array
  parameter integer SpadRows     = 4096,  // scratchpad rows of N int8
  parameter integer AccRows      = 1024,  // accumulator rows of N int32
  parameter integer AxiDataWidth = 64,    // AXI4 master data width: 32, 64 or 128
  parameter integer CmdQDepth    = 16     // command queue depth in commands
) (
  input  wire                      clk_i,
  input  wire                      rst_ni,

  // AXI4-Lite register slave, 32-bit. Only araddr/awaddr[11:0] are decoded.
  input  wire                      s_axil_awvalid,
  output wire                      s_axil_awready,
  input  wire [31:0]               s_axil_awaddr,
  input  wire                      s_axil_wvalid,
  output wire                      s_axil_wready,
  input  wire [31:0]               s_axil_wdata,
  input  wire [3:0]                s_axil_wstrb,
  output wire                      s_axil_bvalid,
  input  wire                      s_axil_bready,
  output wire [1:0]                s_axil_bresp,
  input  wire                      s_axil_arvalid,
  output wire                      s_axil_arready,
  input  wire [31:0]               s_axil_araddr,
  output wire                      s_axil_rvalid,
  input  wire                      s_axil_rready,
  output wire [31:0]               s_axil_rdata,
  output wire [1:0]                s_axil_rresp,

  // AXI4 master for the DMA: INCR bursts, no IDs (all transactions use ID 0).
  output wire                      m_axi_awvalid,
  input  wire                      m_axi_awready,
  output wire [31:0]               m_axi_awaddr,
  output wire [7:0]                m_axi_awlen,
  output wire [2:0]                m_axi_awsize,
  output wire [1:0]                m_axi_awburst,
  output wire                      m_axi_wvalid,
  input  wire                      m_axi_wready,
  output wire [AxiDataWidth-1:0]   m_axi_wdata,
  output wire [AxiDataWidth/8-1:0] m_axi_wstrb,
  output wire                      m_axi_wlast,
  input  wire                      m_axi_bvalid,
  output wire                      m_axi_bready,
  input  wire [1:0]                m_axi_bresp,
  output wire                      m_axi_arvalid,
  input  wire                      m_axi_arready,
  output wire [31:0]               m_axi_araddr,
  output wire [7:0]                m_axi_arlen,
  output wire [2:0]                m_axi_arsize,
  output wire [1:0]                m_axi_arburst,
  input  wire                      m_axi_rvalid,
  output wire                      m_axi_rready,
  input  wire [AxiDataWidth-1:0]   m_axi_rdata,
  input  wire [1:0]                m_axi_rresp,
  input  wire                      m_axi_rlast,

  output wire                      irq_o
);
endmodule

`default_nettype wire
