// tsr_axi_ram: on-chip memory standing in for DRAM: an AXI4 slave for tsr_top's DMA plus a byte port for the host bridge.
`default_nettype none

// MemBytes bytes at address 0, as DataWidth/8 byte lanes, each a tsr_sram of
// MemBytes/(DataWidth/8) rows (so every byte strobe is a lane write enable
// and Yosys infers block RAM per lane). One transaction at a time:
//   - AXI4 read: AR, then one beat per cycle while RREADY (INCR bursts of
//     full-width beats, the only kind tsr_top's DMA issues; ARSIZE and
//     ARBURST are not decoded). Beats at or above MemBytes answer SLVERR
//     with zero data.
//   - AXI4 write: AW, then W beats with strobes until WLAST, then B. Beats at
//     or above MemBytes write nothing and make BRESP SLVERR.
//   - Byte port (tsr_uart_bridge's memory port, same contract): a request
//     moves when byte_valid_i and byte_ready_o are high; a read's byte comes
//     with byte_rvalid_o in the next cycle. The requester checks the range.
// In the idle state the byte port goes first, then AR, then AW: the host's
// accesses are rare and short, so the DMA is never held for long, and a
// stream of DMA bursts cannot starve the host because every transaction ends
// in the idle state.
module tsr_axi_ram #(
  parameter integer DataWidth = 64,     // 32, 64 or 128, like tsr_top's AxiDataWidth
  parameter integer MemBytes  = 65536,  // a power of two, at least 2 * DataWidth / 8
  localparam integer Bytes    = DataWidth / 8
) (
  input  wire                  clk_i,
  input  wire                  rst_ni,

  input  wire                  s_axi_awvalid,
  output wire                  s_axi_awready,
  input  wire [31:0]           s_axi_awaddr,
  input  wire [7:0]            s_axi_awlen,
  input  wire [2:0]            s_axi_awsize,
  input  wire [1:0]            s_axi_awburst,
  input  wire                  s_axi_wvalid,
  output wire                  s_axi_wready,
  input  wire [DataWidth-1:0]  s_axi_wdata,
  input  wire [Bytes-1:0]      s_axi_wstrb,
  input  wire                  s_axi_wlast,
  output wire                  s_axi_bvalid,
  input  wire                  s_axi_bready,
  output wire [1:0]            s_axi_bresp,
  input  wire                  s_axi_arvalid,
  output wire                  s_axi_arready,
  input  wire [31:0]           s_axi_araddr,
  input  wire [7:0]            s_axi_arlen,
  input  wire [2:0]            s_axi_arsize,
  input  wire [1:0]            s_axi_arburst,
  output wire                  s_axi_rvalid,
  input  wire                  s_axi_rready,
  output wire [DataWidth-1:0]  s_axi_rdata,
  output wire [1:0]            s_axi_rresp,
  output wire                  s_axi_rlast,

  input  wire                  byte_valid_i,
  output wire                  byte_ready_o,
  input  wire                  byte_we_i,
  input  wire [31:0]           byte_addr_i,
  input  wire [7:0]            byte_wdata_i,
  output wire                  byte_rvalid_o,
  output wire [7:0]            byte_rdata_o
);
  localparam integer Rows   = MemBytes / Bytes;
  localparam integer RowAw  = $clog2(Rows);
  localparam integer LaneAw = $clog2(Bytes);
  localparam [31:0]  MemBytes32 = MemBytes;

  localparam [2:0] StIdle   = 3'd0;
  localparam [2:0] StRdData = 3'd1;  // a read beat is on R
  localparam [2:0] StWr     = 3'd2;  // accepting W beats
  localparam [2:0] StWrResp = 3'd3;  // B
  localparam [2:0] StByteRd = 3'd4;  // the byte port's read data is out

  reg [2:0]        state_q, state_d;
  reg [31:0]       addr_q, addr_d;   // byte address of the current beat, lane bits zero
  reg [7:0]        len_q, len_d;     // beats after the current one
  reg              rin_q, rin_d;     // the beat on R is inside the memory
  reg              werr_q, werr_d;   // a W beat of this burst was outside the memory
  reg [LaneAw-1:0] lane_q, lane_d;   // lane of the byte port's read

  // Lane memories, one shared read port and one shared write port per lane.
  reg              mem_re;
  reg [RowAw-1:0]  mem_raddr;
  reg [Bytes-1:0]  mem_we;
  reg [RowAw-1:0]  mem_waddr;
  reg [DataWidth-1:0] mem_wdata;
  wire [DataWidth-1:0] mem_rdata;

  genvar gi;
  generate
    for (gi = 0; gi < Bytes; gi = gi + 1) begin : gen_lane
      tsr_sram #(
        .Width (8),
        .Depth (Rows)
      ) u_lane (
        .clk_i   (clk_i),
        .we_i    (mem_we[gi]),
        .waddr_i (mem_waddr),
        .wdata_i (mem_wdata[8*gi +: 8]),
        .re_i    (mem_re),
        .raddr_i (mem_raddr),
        .rdata_o (mem_rdata[8*gi +: 8])
      );
    end
  endgenerate

  wire [31:0] next_addr = addr_q + Bytes;
  wire [31:0] ar_beat   = {s_axi_araddr[31:LaneAw], {LaneAw{1'b0}}};
  wire [31:0] aw_beat   = {s_axi_awaddr[31:LaneAw], {LaneAw{1'b0}}};
  // (A wire, not a localparam, in the concatenations: Verilator 5.006 takes a
  // parameter-derived localparam there for an unsized number.)
  wire [31:0] mem_bytes = MemBytes32;
  wire        in_mem_q  = {1'b0, addr_q} < {1'b0, mem_bytes};
  wire        in_mem_nx = {1'b0, next_addr} < {1'b0, mem_bytes};
  wire        in_mem_ar = {1'b0, ar_beat} < {1'b0, mem_bytes};

  always @(*) begin
    state_d   = state_q;
    addr_d    = addr_q;
    len_d     = len_q;
    rin_d     = rin_q;
    werr_d    = werr_q;
    lane_d    = lane_q;
    mem_re    = 1'b0;
    mem_raddr = addr_q[LaneAw +: RowAw];
    mem_we    = {Bytes{1'b0}};
    mem_waddr = addr_q[LaneAw +: RowAw];
    mem_wdata = s_axi_wdata;
    case (state_q)
      StIdle: begin
        if (byte_valid_i) begin
          mem_raddr = byte_addr_i[LaneAw +: RowAw];
          mem_waddr = byte_addr_i[LaneAw +: RowAw];
          mem_wdata = {Bytes{byte_wdata_i}};
          lane_d    = byte_addr_i[LaneAw-1:0];
          if (byte_we_i) begin
            mem_we[byte_addr_i[LaneAw-1:0]] = 1'b1;
          end else begin
            mem_re  = 1'b1;
            state_d = StByteRd;
          end
        end else if (s_axi_arvalid) begin
          addr_d    = ar_beat;
          len_d     = s_axi_arlen;
          mem_re    = 1'b1;
          mem_raddr = ar_beat[LaneAw +: RowAw];
          rin_d     = in_mem_ar;
          state_d   = StRdData;
        end else if (s_axi_awvalid) begin
          addr_d  = aw_beat;
          werr_d  = 1'b0;
          state_d = StWr;
        end
      end
      StRdData: begin
        if (s_axi_rready) begin
          if (len_q == 8'd0) begin
            state_d = StIdle;
          end else begin
            // Read the next beat now: its data is out in the next cycle.
            addr_d    = next_addr;
            len_d     = len_q - 1'b1;
            mem_re    = 1'b1;
            mem_raddr = next_addr[LaneAw +: RowAw];
            rin_d     = in_mem_nx;
          end
        end
      end
      StWr: begin
        if (s_axi_wvalid) begin
          if (in_mem_q) begin
            mem_we = s_axi_wstrb;
          end else begin
            werr_d = 1'b1;
          end
          addr_d = next_addr;
          if (s_axi_wlast) begin
            state_d = StWrResp;
          end
        end
      end
      StWrResp: begin
        if (s_axi_bready) begin
          state_d = StIdle;
        end
      end
      StByteRd: begin
        state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      addr_q  <= 32'h0;
      len_q   <= 8'h0;
      rin_q   <= 1'b0;
      werr_q  <= 1'b0;
      lane_q  <= {LaneAw{1'b0}};
    end else begin
      state_q <= state_d;
      addr_q  <= addr_d;
      len_q   <= len_d;
      rin_q   <= rin_d;
      werr_q  <= werr_d;
      lane_q  <= lane_d;
    end
  end

  wire idle = (state_q == StIdle);
  assign byte_ready_o  = idle;
  assign byte_rvalid_o = (state_q == StByteRd);
  assign byte_rdata_o  = mem_rdata[{lane_q, 3'b000} +: 8];
  assign s_axi_arready = idle && !byte_valid_i;
  assign s_axi_awready = idle && !byte_valid_i && !s_axi_arvalid;
  assign s_axi_rvalid  = (state_q == StRdData);
  assign s_axi_rdata   = rin_q ? mem_rdata : {DataWidth{1'b0}};
  assign s_axi_rresp   = rin_q ? 2'b00 : 2'b10;
  assign s_axi_rlast   = (state_q == StRdData) && (len_q == 8'd0);
  assign s_axi_wready  = (state_q == StWr);
  assign s_axi_bvalid  = (state_q == StWrResp);
  assign s_axi_bresp   = werr_q ? 2'b10 : 2'b00;

  // Only full-width INCR bursts arrive (tsr_top's DMA), so size and burst
  // type need no decoding; AWLEN is implied by WLAST.
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_axi = ^{s_axi_awsize, s_axi_awburst, s_axi_arsize, s_axi_arburst, s_axi_awlen,
                      s_axi_araddr[LaneAw-1:0], s_axi_awaddr[LaneAw-1:0], byte_addr_i[31:LaneAw+RowAw]};
  /* verilator lint_on UNUSEDSIGNAL */
endmodule

`default_nettype wire
