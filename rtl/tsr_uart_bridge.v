// tsr_uart_bridge: UART host link: CRC-checked frames to AXI4-Lite register accesses and byte memory accesses.
`default_nettype none

// The protocol is specified in docs/host-link.md. In short: a request
// is SYNC 0xA5, CMD, SEQ, ADDR (4, LE), LEN (2, LE), PAYLOAD (LEN bytes when
// CMD bit 7 is set), CRC-16/CCITT-FALSE of CMD..PAYLOAD (high byte first);
// the reply is SYNC 0x5A, STATUS, SEQ, LEN (2, LE), DATA, CRC of STATUS..DATA.
//
// Safety rules the structure enforces:
//   - The whole request, payload included, is received and its CRC checked
//     (ST_CHECK) before any bus access. The payload waits in a MaxLen-byte
//     buffer (tsr_sram), so a frame with a bad CRC can never write.
//   - A write (WRITE32, MEM_WRITE) whose SEQ equals the SEQ of the last
//     executed request, when that request was a write, is not executed again:
//     the reply repeats the remembered status with the REPLAY bit.
//   - Inside a frame, RxTimeoutBits bit times without a byte abandon the
//     frame (a dropped byte); so does LEN > MaxLen on a request with payload.
//     Neither is answered. Bytes received while executing or replying are
//     dropped (the host waits for each reply).
//
// Ports:
//   AXI4-Lite master (32-bit) to the register slave: one access at a time,
//   AW and W raised together, WSTRB 4'hF. The bridge waits for the response
//   (tsr_regs always answers).
//   Byte memory port (requester): a request moves when mem_valid_o and
//   mem_ready_i are both high; mem_valid_o, mem_we_o, mem_addr_o and
//   mem_wdata_o hold until then, and valid never waits on ready. A read's
//   byte arrives with a one-cycle mem_rvalid_i pulse in a later cycle than
//   its handshake. Addresses are byte addresses below MemBytes (checked here
//   against the whole range of the request before the first access).
//   evt_o: one-cycle pulses for counters and LEDs:
//     [0] a request with a good CRC arrived      [1] a request with a bad CRC (answered with STATUS CRC)
//     [2] a frame was abandoned (timeout, LEN)  [3] a UART framing error (stop bit 0)
//     [4] a repeated write was answered from the remembered status (REPLAY)
//     [5] a register write was issued (AW handshake)   [6] a memory byte was written
module tsr_uart_bridge #(
  parameter integer ClkPerBit     = 868,     // baud divisor: clock / baud, >= 4
  parameter integer RxTimeoutBits = 1024,    // inter-byte timeout inside a frame, in bit times (< 65536)
  parameter integer MaxLen        = 256,     // largest MEM_READ / MEM_WRITE, bytes (4..65535)
  parameter integer MemBytes      = 65536    // bytes behind the memory port (1..2^31-1)
) (
  input  wire        clk_i,
  input  wire        rst_ni,

  input  wire        uart_rx_i,
  output wire        uart_tx_o,

  // AXI4-Lite master to the register slave.
  output wire        m_axil_awvalid,
  input  wire        m_axil_awready,
  output wire [31:0] m_axil_awaddr,
  output wire        m_axil_wvalid,
  input  wire        m_axil_wready,
  output wire [31:0] m_axil_wdata,
  output wire [3:0]  m_axil_wstrb,
  input  wire        m_axil_bvalid,
  output wire        m_axil_bready,
  input  wire [1:0]  m_axil_bresp,
  output wire        m_axil_arvalid,
  input  wire        m_axil_arready,
  output wire [31:0] m_axil_araddr,
  input  wire        m_axil_rvalid,
  output wire        m_axil_rready,
  input  wire [31:0] m_axil_rdata,
  input  wire [1:0]  m_axil_rresp,

  // Byte memory port.
  output wire        mem_valid_o,
  input  wire        mem_ready_i,
  output wire        mem_we_o,
  output wire [31:0] mem_addr_o,
  output wire [7:0]  mem_wdata_o,
  input  wire        mem_rvalid_i,
  input  wire [7:0]  mem_rdata_i,

  output wire [6:0]  evt_o
);
  localparam integer BufAw   = (MaxLen > 1) ? $clog2(MaxLen) : 1;
  localparam integer TmoCycles = RxTimeoutBits * ClkPerBit;
  localparam integer TmoW    = $clog2(TmoCycles + 1);
  localparam [31:0]  TmoLast32 = TmoCycles - 1;
  localparam [TmoW-1:0] TmoLast = TmoLast32[TmoW-1:0];
  localparam [31:0]  MaxLen32  = MaxLen;
  localparam [31:0]  MemBytes32 = MemBytes;
  localparam [31:0]  InfoClk   = ClkPerBit;
  localparam [31:0]  InfoTo    = RxTimeoutBits;

  localparam [7:0] SyncReq = 8'hA5;
  localparam [7:0] SyncRsp = 8'h5A;

  localparam [7:0] CmdInfo     = 8'h00;
  localparam [7:0] CmdRead32   = 8'h01;
  localparam [7:0] CmdMemRead  = 8'h02;
  localparam [7:0] CmdWrite32  = 8'h81;
  localparam [7:0] CmdMemWrite = 8'h82;

  localparam [6:0] StsOk     = 7'h00;
  localparam [6:0] StsCrc    = 7'h01;
  localparam [6:0] StsCmd    = 7'h02;
  localparam [6:0] StsArg    = 7'h03;
  localparam [6:0] StsSlvErr = 7'h04;
  localparam [6:0] StsDecErr = 7'h05;

  localparam [3:0] StHunt  = 4'd0;   // waiting for SYNC
  localparam [3:0] StHdr   = 4'd1;   // CMD, SEQ, ADDR, LEN
  localparam [3:0] StPay   = 4'd2;   // payload into the buffer
  localparam [3:0] StCrc   = 4'd3;   // two CRC bytes
  localparam [3:0] StCheck = 4'd4;   // CRC, command, arguments, repeat: decide
  localparam [3:0] StWr32  = 4'd5;   // AXI4-Lite write
  localparam [3:0] StRd32  = 4'd6;   // AXI4-Lite read
  localparam [3:0] StMwRd  = 4'd7;   // MEM_WRITE: read a payload byte from the buffer
  localparam [3:0] StMwReq = 4'd8;   // MEM_WRITE: write it to memory
  localparam [3:0] StReply = 4'd9;   // send the reply, byte by byte
  localparam [3:0] StMrReq = 4'd10;  // MEM_READ: request the next data byte
  localparam [3:0] StMrWait = 4'd11; // MEM_READ: wait for it

  // Reply phases.
  localparam [2:0] PhSync = 3'd0;
  localparam [2:0] PhSts  = 3'd1;
  localparam [2:0] PhSeq  = 3'd2;
  localparam [2:0] PhLen0 = 3'd3;
  localparam [2:0] PhLen1 = 3'd4;
  localparam [2:0] PhData = 3'd5;
  localparam [2:0] PhCrcH = 3'd6;
  localparam [2:0] PhCrcL = 3'd7;

  // CRC-16/CCITT-FALSE, one byte: polynomial 0x1021, MSB first.
  function automatic [15:0] crc16_byte(input [15:0] crc, input [7:0] data);
    integer i;
    reg [15:0] x;
    begin
      x = crc ^ {data, 8'h00};
      for (i = 0; i < 8; i = i + 1) begin
        x = x[15] ? ((x << 1) ^ 16'h1021) : (x << 1);
      end
      crc16_byte = x;
    end
  endfunction

  // AXI response to reply status: OKAY is OK, DECERR is DECERR, the rest SLVERR.
  function automatic [6:0] resp_status(input [1:0] resp);
    begin
      case (resp)
        2'b00:   resp_status = StsOk;
        2'b11:   resp_status = StsDecErr;
        default: resp_status = StsSlvErr;
      endcase
    end
  endfunction

  // ------------------------------------------------------------ UART
  wire [7:0] rx_data;
  wire       rx_valid, rx_ferr;
  reg        tx_valid;
  reg  [7:0] tx_data;
  wire       tx_ready;

  tsr_uart_rx #(
    .ClkPerBit (ClkPerBit)
  ) u_rx (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .rx_i        (uart_rx_i),
    .data_o      (rx_data),
    .valid_o     (rx_valid),
    .frame_err_o (rx_ferr)
  );

  tsr_uart_tx #(
    .ClkPerBit (ClkPerBit)
  ) u_tx (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (tx_valid),
    .ready_o (tx_ready),
    .data_i  (tx_data),
    .tx_o    (uart_tx_o)
  );

  // ------------------------------------------------------------ state
  reg [3:0]      state_q, state_d;
  reg [2:0]      hidx_q, hidx_d;       // header byte index
  reg [7:0]      cmd_q, cmd_d;
  reg [7:0]      seq_q, seq_d;
  reg [31:0]     addr_q, addr_d;
  reg [15:0]     len_q, len_d;
  reg [15:0]     cnt_q, cnt_d;         // payload byte / MEM_WRITE byte / CRC byte index
  reg [15:0]     crc_q, crc_d;         // CRC of the request so far
  reg [7:0]      crc_hi_q, crc_hi_d;   // first CRC byte received
  reg            crc_ok_q, crc_ok_d;
  reg [31:0]     wdata_q, wdata_d;     // WRITE32 payload, little-endian
  reg [TmoW-1:0] tmo_q, tmo_d;
  reg            aw_done_q, aw_done_d, w_done_q, w_done_d, ar_done_q, ar_done_d;
  reg [31:0]     rdata_q, rdata_d;
  reg [7:0]      status_q, status_d;
  reg [15:0]     rlen_q, rlen_d;       // reply data bytes
  reg [2:0]      ph_q, ph_d;
  reg [15:0]     didx_q, didx_d;       // reply data byte index
  reg [15:0]     tcrc_q, tcrc_d;       // CRC of the reply so far
  reg [7:0]      mbyte_q, mbyte_d;     // MEM_READ byte being sent
  reg [7:0]      last_seq_q, last_seq_d;
  reg            last_wr_q, last_wr_d; // the last executed request was a write
  reg [6:0]      last_sts_q, last_sts_d;
  reg [6:0]      evt_q, evt_d;

  // Payload buffer: written while receiving, read back only after the CRC passed.
  wire             buf_we = (state_q == StPay) && rx_valid;
  wire             buf_re = (state_q == StMwRd);
  wire [7:0]       buf_rdata;

  tsr_sram #(
    .Width (8),
    .Depth (MaxLen)
  ) u_buf (
    .clk_i   (clk_i),
    .we_i    (buf_we),
    .waddr_i (cnt_q[BufAw-1:0]),
    .wdata_i (rx_data),
    .re_i    (buf_re),
    .raddr_i (cnt_q[BufAw-1:0]),
    .rdata_o (buf_rdata)
  );

  // ------------------------------------------------------------ request checks (valid in StCheck)
  wire        is_write   = cmd_q[7];
  wire        cmd_known  = (cmd_q == CmdInfo) || (cmd_q == CmdRead32) || (cmd_q == CmdMemRead) ||
                           (cmd_q == CmdWrite32) || (cmd_q == CmdMemWrite);
  wire [32:0] mem_end    = {1'b0, addr_q} + {17'h0, len_q};
  wire        mem_ok     = (len_q != 16'h0) && ({16'h0, len_q} <= MaxLen32) &&
                           (mem_end <= {1'b0, MemBytes32});
  wire        reg_ok     = (len_q == 16'd4) && (addr_q[1:0] == 2'b00);
  wire        args_ok    = (cmd_q == CmdInfo)  ? (len_q == 16'h0) :
                           ((cmd_q == CmdRead32) || (cmd_q == CmdWrite32)) ? reg_ok : mem_ok;
  wire        is_repeat  = is_write && last_wr_q && (seq_q == last_seq_q);
  // The byte memory port's address is a register, set with the state that
  // requests (FPGA timing: its adder fed the board memory's write enables).
  reg  [31:0] maddr_q;

  // INFO reply data, byte 0 first (docs/host-link.md): 'T', 'U', version 1, 0, MaxLen (16),
  // RxTimeoutBits (16), MemBytes (32), ClkPerBit (32). (Wires, not a localparam: Verilator
  // 5.006 takes a parameter-derived localparam inside a concatenation for an unsized one.)
  wire [31:0]  info_clk   = InfoClk;
  wire [31:0]  info_mem   = MemBytes32;
  wire [15:0]  info_to    = InfoTo[15:0];
  wire [15:0]  info_len   = MaxLen32[15:0];
  wire [127:0] info_data  = {info_clk, info_mem, info_to, info_len, 32'h0001_5554};

  // Byte of the reply's DATA field (INFO, READ32, MEM_READ).
  wire [7:0]  info_byte  = info_data[{didx_q[3:0], 3'b000} +: 8];
  wire [7:0]  rd32_byte  = rdata_q[{didx_q[1:0], 3'b000} +: 8];
  wire [7:0]  data_byte  = (cmd_q == CmdInfo) ? info_byte :
                           (cmd_q == CmdRead32) ? rd32_byte : mbyte_q;

  always @(*) begin
    state_d    = state_q;
    hidx_d     = hidx_q;
    cmd_d      = cmd_q;
    seq_d      = seq_q;
    addr_d     = addr_q;
    len_d      = len_q;
    cnt_d      = cnt_q;
    crc_d      = crc_q;
    crc_hi_d   = crc_hi_q;
    crc_ok_d   = crc_ok_q;
    wdata_d    = wdata_q;
    tmo_d      = {TmoW{1'b0}};
    aw_done_d  = aw_done_q;
    w_done_d   = w_done_q;
    ar_done_d  = ar_done_q;
    rdata_d    = rdata_q;
    status_d   = status_q;
    rlen_d     = rlen_q;
    ph_d       = ph_q;
    didx_d     = didx_q;
    tcrc_d     = tcrc_q;
    mbyte_d    = mbyte_q;
    last_seq_d = last_seq_q;
    last_wr_d  = last_wr_q;
    last_sts_d = last_sts_q;
    evt_d      = 7'h0;
    evt_d[3]   = rx_ferr;
    tx_valid   = 1'b0;
    tx_data    = 8'h00;

    case (state_q)
      StHunt: begin
        if (rx_valid && rx_data == SyncReq) begin
          state_d = StHdr;
          hidx_d  = 3'd0;
          crc_d   = 16'hFFFF;
        end
      end

      StHdr, StPay, StCrc: begin
        if (!rx_valid) begin
          // Inter-byte timeout: a byte went missing; give the frame up.
          tmo_d = tmo_q + 1'b1;
          if (tmo_q == TmoLast) begin
            state_d  = StHunt;
            evt_d[2] = 1'b1;
          end
        end else if (state_q == StHdr) begin
          crc_d  = crc16_byte(crc_q, rx_data);
          hidx_d = hidx_q + 1'b1;
          case (hidx_q)
            3'd0: cmd_d = rx_data;
            3'd1: seq_d = rx_data;
            3'd2: addr_d[7:0]   = rx_data;
            3'd3: addr_d[15:8]  = rx_data;
            3'd4: addr_d[23:16] = rx_data;
            3'd5: addr_d[31:24] = rx_data;
            3'd6: len_d[7:0]    = rx_data;
            default: begin
              len_d[15:8] = rx_data;
              cnt_d       = 16'h0;
              if (cmd_q[7] && ({16'h0, rx_data, len_q[7:0]} > MaxLen32)) begin
                state_d  = StHunt;   // cannot be a valid frame: the payload would not fit
                evt_d[2] = 1'b1;
              end else if (cmd_q[7] && {rx_data, len_q[7:0]} != 16'h0) begin
                state_d = StPay;
              end else begin
                state_d = StCrc;
              end
            end
          endcase
        end else if (state_q == StPay) begin
          crc_d   = crc16_byte(crc_q, rx_data);
          wdata_d = {rx_data, wdata_q[31:8]};
          cnt_d   = cnt_q + 1'b1;
          if (cnt_q == len_q - 1'b1) begin
            state_d = StCrc;
            cnt_d   = 16'h0;
          end
        end else begin
          if (cnt_q == 16'h0) begin
            crc_hi_d = rx_data;
            cnt_d    = 16'h1;
          end else begin
            crc_ok_d = ({crc_hi_q, rx_data} == crc_q);
            state_d  = StCheck;
          end
        end
      end

      StCheck: begin
        // Common reply set-up; the branches below fill status and length.
        state_d = StReply;
        ph_d    = PhSync;
        tcrc_d  = 16'hFFFF;
        didx_d  = 16'h0;
        rlen_d  = 16'h0;
        cnt_d   = 16'h0;
        if (!crc_ok_q) begin
          status_d = {1'b0, StsCrc};
          evt_d[1] = 1'b1;
        end else begin
          evt_d[0] = 1'b1;
          if (!cmd_known) begin
            status_d   = {1'b0, StsCmd};
            last_seq_d = seq_q;
            last_wr_d  = 1'b0;
          end else if (!args_ok) begin
            status_d   = {1'b0, StsArg};
            last_seq_d = seq_q;
            last_wr_d  = 1'b0;
          end else if (is_repeat) begin
            status_d = {1'b1, last_sts_q};
            evt_d[4] = 1'b1;
          end else begin
            last_seq_d = seq_q;
            last_wr_d  = is_write;
            status_d   = {1'b0, StsOk};
            case (cmd_q)
              CmdInfo:    rlen_d = 16'd16;
              CmdMemRead: rlen_d = len_q;
              CmdRead32: begin
                state_d   = StRd32;
                ar_done_d = 1'b0;
              end
              CmdWrite32: begin
                state_d   = StWr32;
                aw_done_d = 1'b0;
                w_done_d  = 1'b0;
              end
              default: state_d = StMwRd;   // CmdMemWrite
            endcase
          end
        end
      end

      StWr32: begin
        if (m_axil_awready) begin
          aw_done_d = 1'b1;
        end
        if (m_axil_wready) begin
          w_done_d = 1'b1;
        end
        if (m_axil_awvalid && m_axil_awready) begin
          evt_d[5] = 1'b1;
        end
        if (m_axil_bvalid) begin
          status_d   = {1'b0, resp_status(m_axil_bresp)};
          last_sts_d = resp_status(m_axil_bresp);
          state_d    = StReply;
        end
      end

      StRd32: begin
        if (m_axil_arready) begin
          ar_done_d = 1'b1;
        end
        if (m_axil_rvalid) begin
          rdata_d  = m_axil_rdata;
          status_d = {1'b0, resp_status(m_axil_rresp)};
          rlen_d   = (m_axil_rresp == 2'b00) ? 16'd4 : 16'd0;
          state_d  = StReply;
        end
      end

      StMwRd: begin
        state_d = StMwReq;   // buf_re: the byte is in buf_rdata next cycle
      end

      StMwReq: begin
        if (mem_ready_i) begin
          evt_d[6] = 1'b1;
          cnt_d    = cnt_q + 1'b1;
          if (cnt_q == len_q - 1'b1) begin
            last_sts_d = StsOk;
            state_d    = StReply;
          end else begin
            state_d = StMwRd;
          end
        end
      end

      StMrReq: begin
        if (mem_ready_i) begin
          state_d = StMrWait;
        end
      end

      StMrWait: begin
        if (mem_rvalid_i) begin
          mbyte_d = mem_rdata_i;
          state_d = StReply;
        end
      end

      StReply: begin
        tx_valid = 1'b1;
        case (ph_q)
          PhSync: tx_data = SyncRsp;
          PhSts:  tx_data = status_q;
          PhSeq:  tx_data = seq_q;
          PhLen0: tx_data = rlen_q[7:0];
          PhLen1: tx_data = rlen_q[15:8];
          PhData: tx_data = data_byte;
          PhCrcH: tx_data = tcrc_q[15:8];
          default: tx_data = tcrc_q[7:0];
        endcase
        if (tx_ready) begin
          if (ph_q != PhSync && ph_q != PhCrcH && ph_q != PhCrcL) begin
            tcrc_d = crc16_byte(tcrc_q, tx_data);
          end
          case (ph_q)
            PhLen1: begin
              if (rlen_q == 16'h0) begin
                ph_d = PhCrcH;
              end else begin
                ph_d = PhData;
                if (cmd_q == CmdMemRead) begin
                  state_d = StMrReq;
                end
              end
            end
            PhData: begin
              didx_d = didx_q + 1'b1;
              if (didx_q == rlen_q - 1'b1) begin
                ph_d = PhCrcH;
              end else if (cmd_q == CmdMemRead) begin
                state_d = StMrReq;
              end
            end
            PhCrcL: begin
              state_d = StHunt;
            end
            default: ph_d = ph_q + 1'b1;
          endcase
        end
      end

      default: state_d = StHunt;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StHunt;
      hidx_q     <= 3'd0;
      cmd_q      <= 8'h00;
      seq_q      <= 8'h00;
      addr_q     <= 32'h0;
      len_q      <= 16'h0;
      cnt_q      <= 16'h0;
      crc_q      <= 16'hFFFF;
      crc_hi_q   <= 8'h00;
      crc_ok_q   <= 1'b0;
      wdata_q    <= 32'h0;
      tmo_q      <= {TmoW{1'b0}};
      aw_done_q  <= 1'b0;
      w_done_q   <= 1'b0;
      ar_done_q  <= 1'b0;
      rdata_q    <= 32'h0;
      status_q   <= 8'h00;
      rlen_q     <= 16'h0;
      ph_q       <= PhSync;
      didx_q     <= 16'h0;
      tcrc_q     <= 16'hFFFF;
      mbyte_q    <= 8'h00;
      last_seq_q <= 8'h00;
      last_wr_q  <= 1'b0;
      last_sts_q <= 7'h00;
      evt_q      <= 7'h0;
      maddr_q    <= 32'h0;
    end else begin
      state_q    <= state_d;
      hidx_q     <= hidx_d;
      cmd_q      <= cmd_d;
      seq_q      <= seq_d;
      addr_q     <= addr_d;
      len_q      <= len_d;
      cnt_q      <= cnt_d;
      crc_q      <= crc_d;
      crc_hi_q   <= crc_hi_d;
      crc_ok_q   <= crc_ok_d;
      wdata_q    <= wdata_d;
      tmo_q      <= tmo_d;
      aw_done_q  <= aw_done_d;
      w_done_q   <= w_done_d;
      ar_done_q  <= ar_done_d;
      rdata_q    <= rdata_d;
      status_q   <= status_d;
      rlen_q     <= rlen_d;
      ph_q       <= ph_d;
      didx_q     <= didx_d;
      tcrc_q     <= tcrc_d;
      mbyte_q    <= mbyte_d;
      last_seq_q <= last_seq_d;
      last_wr_q  <= last_wr_d;
      last_sts_q <= last_sts_d;
      evt_q      <= evt_d;
      maddr_q    <= addr_d + {16'h0, (state_d == StMwReq) ? cnt_d : didx_d};
    end
  end

  // ------------------------------------------------------------ outputs
  assign m_axil_awvalid = (state_q == StWr32) && !aw_done_q;
  assign m_axil_awaddr  = addr_q;
  assign m_axil_wvalid  = (state_q == StWr32) && !w_done_q;
  assign m_axil_wdata   = wdata_q;
  assign m_axil_wstrb   = 4'hF;
  assign m_axil_bready  = (state_q == StWr32);
  assign m_axil_arvalid = (state_q == StRd32) && !ar_done_q;
  assign m_axil_araddr  = addr_q;
  assign m_axil_rready  = (state_q == StRd32);

  assign mem_valid_o = (state_q == StMwReq) || (state_q == StMrReq);
  assign mem_we_o    = (state_q == StMwReq);
  assign mem_addr_o  = maddr_q;
  assign mem_wdata_o = buf_rdata;

  assign evt_o = evt_q;
endmodule

`default_nettype wire
