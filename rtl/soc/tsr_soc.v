// tsr_soc: co-simulation SoC: a picorv32 RV32IM core running the firmware, on-chip RAM, tsr_top on its bus.
`default_nettype none

// Theory of operation
//   The core (picorv32 from the pinned pythondata-cpu-picorv32 package, native
//   memory interface) runs the firmware from on-chip RAM. Its one memory port
//   is decoded by address (docs/soc.md has the map):
//     0x0000_0000  RAM, RamBytes: code, data, stack (reset vector 0x0, IRQ 0x10)
//     0x4000_0000  tsr_top's AXI4-Lite registers (4 KiB), through picorv32_axi_adapter
//     0x5000_0000  SoC I/O: +0x0 CONSOLE (write: the low byte goes to the bench's
//                  stdout), +0x4 EXIT (write: ends the simulation with that code)
//     0x8000_0000  a 2 GiB window onto the external memory: CPU address
//                  0x8000_0000 + a is device address a, the address tsr_top's DMA
//                  uses. Through a second picorv32_axi_adapter and the arbiter
//                  tsr_soc_axi_arb, which shares the m_axi port with tsr_top's DMA.
//   Anything else answers (reads give 0) and raises fault_o with the address:
//   the bench ends the run on it. So does an error response (SLVERR, DECERR) to
//   the core on either AXI window: picorv32 has no bus-error input, so the SoC
//   records it (fault_resp_o: 0 no device, 2 SLVERR, 3 DECERR) instead.
//   tsr_top's irq_o is the core's IRQ 3 (level, not latched); IRQ 1 (illegal
//   instruction, EBREAK, ECALL) and IRQ 2 (misaligned access) are the core's own.
//
//   The bench side: load_* writes RAM words (a back door, used while rst_ni is
//   low, before the core runs); console_valid_o pulses for one cycle per byte;
//   exit_valid_o rises and stays high with exit_code_o after the first EXIT
//   write; trap_o is the core halted (an illegal instruction or misaligned
//   access with its IRQ masked, or one inside the IRQ handler); pc_o is the
//   address of the last instruction fetched.
// Reset: everything but the RAM array and the payload of the bench outputs
// (qualified by their valid bits). Local accesses (RAM, I/O, no device) take
// two cycles: the access, then mem_ready with the data.
module tsr_soc #(
  parameter integer ArrayDim     = 8,       // tsr_top's N
  parameter integer AxiDataWidth = 64,      // the external memory bus: 32, 64 or 128
  parameter integer RamBytes     = 65536,   // on-chip RAM, a power of two
  localparam integer RamWords    = RamBytes / 4,
  localparam integer RamAw       = $clog2(RamWords)
) (
  input  wire                      clk_i,
  input  wire                      rst_ni,

  // back door into the RAM (the bench's loader)
  input  wire                      load_we_i,
  input  wire [31:0]               load_addr_i,    // byte address, word aligned
  input  wire [31:0]               load_wdata_i,

  // what the firmware tells the bench
  output wire                      console_valid_o,
  output wire [7:0]                console_data_o,
  output wire                      exit_valid_o,
  output wire [31:0]               exit_code_o,
  output wire                      trap_o,
  output wire [31:0]               pc_o,
  output wire                      fault_o,
  output wire [31:0]               fault_addr_o,
  output wire [1:0]                fault_resp_o,
  output wire                      irq_o,          // tsr_top's interrupt, as the core sees it

  // the external memory, shared by tsr_top's DMA and the core
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
  input  wire                      m_axi_rlast
);
  localparam [31:0] ExtBase = 32'h8000_0000;

  // ---- the core --------------------------------------------------------------------
  wire        mem_valid, mem_instr, mem_ready;
  wire [31:0] mem_addr, mem_wdata, mem_rdata;
  wire [3:0]  mem_wstrb;
  wire        core_trap;
  wire [31:0] core_irq;
  wire        top_irq;

  // Unused core outputs: the look-ahead interface, PCPI (off), end-of-interrupt and trace.
  wire        la_read, la_write, pcpi_valid;
  wire [31:0] la_addr, la_wdata, pcpi_insn, pcpi_rs1, pcpi_rs2, eoi;
  wire [3:0]  la_wstrb;
  wire        trace_valid;
  wire [35:0] trace_data;

  assign core_irq = {28'h0, top_irq, 3'b000};

  picorv32 #(
    .ENABLE_COUNTERS     (1),
    .ENABLE_COUNTERS64   (1),
    .ENABLE_REGS_16_31   (1),
    .ENABLE_REGS_DUALPORT(1),
    .BARREL_SHIFTER      (1),
    .COMPRESSED_ISA      (0),
    .CATCH_MISALIGN      (1),
    .CATCH_ILLINSN       (1),
    .ENABLE_PCPI         (0),
    .ENABLE_MUL          (0),
    .ENABLE_FAST_MUL     (1),
    .ENABLE_DIV          (1),
    .ENABLE_IRQ          (1),
    .ENABLE_IRQ_QREGS    (1),
    .ENABLE_IRQ_TIMER    (1),
    .ENABLE_TRACE        (0),
    .MASKED_IRQ          (32'h0000_0000),
    .LATCHED_IRQ         (32'hffff_fff7),
    .PROGADDR_RESET      (32'h0000_0000),
    .PROGADDR_IRQ        (32'h0000_0010),
    .STACKADDR           (RamBytes)
  ) u_core (
    .clk         (clk_i),
    .resetn      (rst_ni),
    .trap        (core_trap),
    .mem_valid   (mem_valid),
    .mem_instr   (mem_instr),
    .mem_ready   (mem_ready),
    .mem_addr    (mem_addr),
    .mem_wdata   (mem_wdata),
    .mem_wstrb   (mem_wstrb),
    .mem_rdata   (mem_rdata),
    .mem_la_read (la_read),
    .mem_la_write(la_write),
    .mem_la_addr (la_addr),
    .mem_la_wdata(la_wdata),
    .mem_la_wstrb(la_wstrb),
    .pcpi_valid  (pcpi_valid),
    .pcpi_insn   (pcpi_insn),
    .pcpi_rs1    (pcpi_rs1),
    .pcpi_rs2    (pcpi_rs2),
    .pcpi_wr     (1'b0),
    .pcpi_rd     (32'h0),
    .pcpi_wait   (1'b0),
    .pcpi_ready  (1'b0),
    .irq         (core_irq),
    .eoi         (eoi),
    .trace_valid (trace_valid),
    .trace_data  (trace_data)
  );

  // ---- address decoder ---------------------------------------------------------------
  wire sel_ram  = (mem_addr[31:RamAw+2] == {(30-RamAw){1'b0}});
  wire sel_reg  = (mem_addr[31:12] == 20'h4_0000);
  wire sel_io   = (mem_addr[31:4] == 28'h500_0000);
  wire sel_ext  = mem_addr[31];
  wire sel_none = !(sel_ram || sel_reg || sel_io || sel_ext);
  wire sel_loc  = sel_ram || sel_io || sel_none;   // answered here, in two cycles

  reg  ack_q, ack_d;                               // second cycle of a local access
  wire loc_go = mem_valid && sel_loc && !ack_q;    // first cycle of a local access
  wire is_wr  = (mem_wstrb != 4'h0);

  // ---- RAM ---------------------------------------------------------------------------
  wire        ram_go = mem_valid && sel_ram && !ack_q;
  wire [31:0] ram_rdata;
  tsr_soc_ram #(.Words(RamWords)) u_ram (
    .clk_i  (clk_i),
    .en_i   (load_we_i || ram_go),
    .we_i   (load_we_i ? 4'hf : (ram_go ? mem_wstrb : 4'h0)),
    .addr_i (load_we_i ? load_addr_i[RamAw+1:2] : mem_addr[RamAw+1:2]),
    .wdata_i(load_we_i ? load_wdata_i : mem_wdata),
    .rdata_o(ram_rdata)
  );

  // ---- tsr_top's registers, through AXI4-Lite -------------------------------------------
  wire        reg_awvalid, reg_awready, reg_wvalid, reg_wready, reg_bvalid, reg_bready;
  wire        reg_arvalid, reg_arready, reg_rvalid, reg_rready, reg_ready;
  wire [31:0] reg_awaddr, reg_wdata, reg_araddr, reg_rdata, reg_mem_rdata;
  wire [3:0]  reg_wstrb;
  wire [2:0]  reg_awprot, reg_arprot;
  wire [1:0]  reg_bresp, reg_rresp;

  picorv32_axi_adapter u_reg_axi (
    .clk            (clk_i),
    .resetn         (rst_ni),
    .mem_axi_awvalid(reg_awvalid),
    .mem_axi_awready(reg_awready),
    .mem_axi_awaddr (reg_awaddr),
    .mem_axi_awprot (reg_awprot),
    .mem_axi_wvalid (reg_wvalid),
    .mem_axi_wready (reg_wready),
    .mem_axi_wdata  (reg_wdata),
    .mem_axi_wstrb  (reg_wstrb),
    .mem_axi_bvalid (reg_bvalid),
    .mem_axi_bready (reg_bready),
    .mem_axi_arvalid(reg_arvalid),
    .mem_axi_arready(reg_arready),
    .mem_axi_araddr (reg_araddr),
    .mem_axi_arprot (reg_arprot),
    .mem_axi_rvalid (reg_rvalid),
    .mem_axi_rready (reg_rready),
    .mem_axi_rdata  (reg_rdata),
    .mem_valid      (mem_valid && sel_reg),
    .mem_instr      (mem_instr),
    .mem_ready      (reg_ready),
    .mem_addr       (mem_addr),
    .mem_wdata      (mem_wdata),
    .mem_wstrb      (mem_wstrb),
    .mem_rdata      (reg_mem_rdata)
  );

  // ---- the window onto external memory -------------------------------------------------
  wire        ext_awvalid, ext_awready, ext_wvalid, ext_wready, ext_bvalid, ext_bready;
  wire        ext_arvalid, ext_arready, ext_rvalid, ext_rready, ext_ready;
  wire [31:0] ext_awaddr, ext_wdata, ext_araddr, ext_rdata, ext_mem_rdata;
  wire [3:0]  ext_wstrb;
  wire [2:0]  ext_awprot, ext_arprot;
  wire [1:0]  ext_bresp, ext_rresp;

  picorv32_axi_adapter u_ext_axi (
    .clk            (clk_i),
    .resetn         (rst_ni),
    .mem_axi_awvalid(ext_awvalid),
    .mem_axi_awready(ext_awready),
    .mem_axi_awaddr (ext_awaddr),
    .mem_axi_awprot (ext_awprot),
    .mem_axi_wvalid (ext_wvalid),
    .mem_axi_wready (ext_wready),
    .mem_axi_wdata  (ext_wdata),
    .mem_axi_wstrb  (ext_wstrb),
    .mem_axi_bvalid (ext_bvalid),
    .mem_axi_bready (ext_bready),
    .mem_axi_arvalid(ext_arvalid),
    .mem_axi_arready(ext_arready),
    .mem_axi_araddr (ext_araddr),
    .mem_axi_arprot (ext_arprot),
    .mem_axi_rvalid (ext_rvalid),
    .mem_axi_rready (ext_rready),
    .mem_axi_rdata  (ext_rdata),
    .mem_valid      (mem_valid && sel_ext),
    .mem_instr      (mem_instr),
    .mem_ready      (ext_ready),
    .mem_addr       (mem_addr - ExtBase),
    .mem_wdata      (mem_wdata),
    .mem_wstrb      (mem_wstrb),
    .mem_rdata      (ext_mem_rdata)
  );

  // tsr_top's AXI4 master, into the arbiter
  wire                      top_awvalid, top_awready, top_wvalid, top_wready, top_wlast;
  wire                      top_bvalid, top_bready, top_arvalid, top_arready;
  wire                      top_rvalid, top_rready, top_rlast;
  wire [31:0]               top_awaddr, top_araddr;
  wire [7:0]                top_awlen, top_arlen;
  wire [2:0]                top_awsize, top_arsize;
  wire [1:0]                top_awburst, top_arburst, top_bresp, top_rresp;
  wire [AxiDataWidth-1:0]   top_wdata, top_rdata;
  wire [AxiDataWidth/8-1:0] top_wstrb;

  tsr_soc_axi_arb #(.DataWidth(AxiDataWidth)) u_arb (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .m0_awvalid(top_awvalid), .m0_awready(top_awready), .m0_awaddr(top_awaddr),
    .m0_awlen  (top_awlen),   .m0_awsize (top_awsize),  .m0_awburst(top_awburst),
    .m0_wvalid (top_wvalid),  .m0_wready (top_wready),  .m0_wdata(top_wdata),
    .m0_wstrb  (top_wstrb),   .m0_wlast  (top_wlast),
    .m0_bvalid (top_bvalid),  .m0_bready (top_bready),  .m0_bresp(top_bresp),
    .m0_arvalid(top_arvalid), .m0_arready(top_arready), .m0_araddr(top_araddr),
    .m0_arlen  (top_arlen),   .m0_arsize (top_arsize),  .m0_arburst(top_arburst),
    .m0_rvalid (top_rvalid),  .m0_rready (top_rready),  .m0_rdata(top_rdata),
    .m0_rresp  (top_rresp),   .m0_rlast  (top_rlast),
    .m1_awvalid(ext_awvalid), .m1_awready(ext_awready), .m1_awaddr(ext_awaddr),
    .m1_wvalid (ext_wvalid),  .m1_wready (ext_wready),  .m1_wdata(ext_wdata),
    .m1_wstrb  (ext_wstrb),
    .m1_bvalid (ext_bvalid),  .m1_bready (ext_bready),  .m1_bresp(ext_bresp),
    .m1_arvalid(ext_arvalid), .m1_arready(ext_arready), .m1_araddr(ext_araddr),
    .m1_rvalid (ext_rvalid),  .m1_rready (ext_rready),  .m1_rdata(ext_rdata),
    .m1_rresp  (ext_rresp),
    .s_awvalid (m_axi_awvalid), .s_awready(m_axi_awready), .s_awaddr(m_axi_awaddr),
    .s_awlen   (m_axi_awlen),   .s_awsize (m_axi_awsize),  .s_awburst(m_axi_awburst),
    .s_wvalid  (m_axi_wvalid),  .s_wready (m_axi_wready),  .s_wdata(m_axi_wdata),
    .s_wstrb   (m_axi_wstrb),   .s_wlast  (m_axi_wlast),
    .s_bvalid  (m_axi_bvalid),  .s_bready (m_axi_bready),  .s_bresp(m_axi_bresp),
    .s_arvalid (m_axi_arvalid), .s_arready(m_axi_arready), .s_araddr(m_axi_araddr),
    .s_arlen   (m_axi_arlen),   .s_arsize (m_axi_arsize),  .s_arburst(m_axi_arburst),
    .s_rvalid  (m_axi_rvalid),  .s_rready (m_axi_rready),  .s_rdata(m_axi_rdata),
    .s_rresp   (m_axi_rresp),   .s_rlast  (m_axi_rlast)
  );

  // ---- the accelerator ---------------------------------------------------------------
  tsr_top #(
    .ArrayDim    (ArrayDim),
    .AxiDataWidth(AxiDataWidth)
  ) u_top (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .s_axil_awvalid(reg_awvalid),
    .s_axil_awready(reg_awready),
    .s_axil_awaddr (reg_awaddr),
    .s_axil_wvalid (reg_wvalid),
    .s_axil_wready (reg_wready),
    .s_axil_wdata  (reg_wdata),
    .s_axil_wstrb  (reg_wstrb),
    .s_axil_bvalid (reg_bvalid),
    .s_axil_bready (reg_bready),
    .s_axil_bresp  (reg_bresp),
    .s_axil_arvalid(reg_arvalid),
    .s_axil_arready(reg_arready),
    .s_axil_araddr (reg_araddr),
    .s_axil_rvalid (reg_rvalid),
    .s_axil_rready (reg_rready),
    .s_axil_rdata  (reg_rdata),
    .s_axil_rresp  (reg_rresp),
    .m_axi_awvalid (top_awvalid),
    .m_axi_awready (top_awready),
    .m_axi_awaddr  (top_awaddr),
    .m_axi_awlen   (top_awlen),
    .m_axi_awsize  (top_awsize),
    .m_axi_awburst (top_awburst),
    .m_axi_wvalid  (top_wvalid),
    .m_axi_wready  (top_wready),
    .m_axi_wdata   (top_wdata),
    .m_axi_wstrb   (top_wstrb),
    .m_axi_wlast   (top_wlast),
    .m_axi_bvalid  (top_bvalid),
    .m_axi_bready  (top_bready),
    .m_axi_bresp   (top_bresp),
    .m_axi_arvalid (top_arvalid),
    .m_axi_arready (top_arready),
    .m_axi_araddr  (top_araddr),
    .m_axi_arlen   (top_arlen),
    .m_axi_arsize  (top_arsize),
    .m_axi_arburst (top_arburst),
    .m_axi_rvalid  (top_rvalid),
    .m_axi_rready  (top_rready),
    .m_axi_rdata   (top_rdata),
    .m_axi_rresp   (top_rresp),
    .m_axi_rlast   (top_rlast),
    .irq_o         (top_irq)
  );

  // ---- local accesses: I/O, no device, the bench outputs -----------------------------------
  reg        console_valid_q, console_valid_d;
  reg [7:0]  console_data_q, console_data_d;
  reg        exit_valid_q, exit_valid_d;
  reg [31:0] exit_code_q, exit_code_d;
  reg        fault_q, fault_d;
  reg [31:0] fault_addr_q, fault_addr_d;
  reg [1:0]  fault_resp_q, fault_resp_d;
  // An error answer to the core on a window (the adapters take R and B in the cycle they come).
  wire       win_err  = (reg_rvalid && reg_rready && reg_rresp[1]) || (reg_bvalid && reg_bready && reg_bresp[1]) ||
                        (ext_rvalid && ext_rready && ext_rresp[1]) || (ext_bvalid && ext_bready && ext_bresp[1]);
  wire [1:0] win_resp = (reg_rvalid && reg_rready) ? reg_rresp :
                        (reg_bvalid && reg_bready) ? reg_bresp :
                        (ext_rvalid && ext_rready) ? ext_rresp : ext_bresp;
  reg [31:0] pc_q, pc_d;

  always @(*) begin
    console_valid_d = 1'b0;
    console_data_d  = console_data_q;
    exit_valid_d    = exit_valid_q;
    exit_code_d     = exit_code_q;
    fault_d         = fault_q;
    fault_addr_d    = fault_addr_q;
    fault_resp_d    = fault_resp_q;
    pc_d            = pc_q;
    ack_d           = loc_go;
    if (loc_go && sel_io && is_wr) begin
      case (mem_addr[3:2])
        2'd0: begin
          console_valid_d = 1'b1;
          console_data_d  = mem_wdata[7:0];
        end
        2'd1: begin
          if (!exit_valid_q) begin
            exit_valid_d = 1'b1;
            exit_code_d  = mem_wdata;
          end
        end
        default: begin
        end
      endcase
    end
    if (loc_go && sel_none && !fault_q) begin
      fault_d      = 1'b1;
      fault_addr_d = mem_addr;
      fault_resp_d = 2'b00;
    end
    if (win_err && !fault_q) begin
      fault_d      = 1'b1;
      fault_addr_d = mem_addr;
      fault_resp_d = win_resp;
    end
    if (mem_valid && mem_instr && mem_ready) begin
      pc_d = mem_addr;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ack_q           <= 1'b0;
      console_valid_q <= 1'b0;
      exit_valid_q    <= 1'b0;
      fault_q         <= 1'b0;
      pc_q            <= 32'h0;
    end else begin
      ack_q           <= ack_d;
      console_valid_q <= console_valid_d;
      exit_valid_q    <= exit_valid_d;
      fault_q         <= fault_d;
      pc_q            <= pc_d;
    end
  end

  // Payload of the bench outputs: no reset, qualified by their valid bits.
  always @(posedge clk_i) begin
    console_data_q <= console_data_d;
    exit_code_q    <= exit_code_d;
    fault_addr_q   <= fault_addr_d;
    fault_resp_q   <= fault_resp_d;
  end

  assign mem_ready = ack_q || reg_ready || ext_ready;
  assign mem_rdata = sel_ram ? ram_rdata :
                     sel_reg ? reg_mem_rdata :
                     sel_ext ? ext_mem_rdata : 32'h0;

  assign console_valid_o = console_valid_q;
  assign console_data_o  = console_data_q;
  assign exit_valid_o    = exit_valid_q;
  assign exit_code_o     = exit_code_q;
  assign trap_o          = core_trap;
  assign pc_o            = pc_q;
  assign fault_o         = fault_q;
  assign fault_addr_o    = fault_addr_q;
  assign fault_resp_o    = fault_resp_q;
  assign irq_o           = top_irq;

  // Deliberately unused: the core's look-ahead, PCPI, EOI and trace outputs; the AXI
  // protection bits of both windows.
  wire unused_core = ^{la_read, la_write, la_addr, la_wdata, la_wstrb, pcpi_valid, pcpi_insn,
                       pcpi_rs1, pcpi_rs2, eoi, trace_valid, trace_data};
  // The load port addresses words of the RAM: its high and byte bits are ignored.
  wire unused_load = ^{load_addr_i[31:RamAw+2], load_addr_i[1:0]};
  wire unused_axi  = ^{reg_awprot, reg_arprot, ext_awprot, ext_arprot};
endmodule

`default_nettype wire
