// tsr_cmd_fetch: command ring fetcher: AXI4 read bursts from a ring in memory into the command queue.
`default_nettype none

// Theory of operation (docs/programming.md, "Command ring").
// The ring is RING_SIZE bytes at RING_BASE, one 32-byte command per slot.
// Software writes commands at RING_TAIL and then advances RING_TAIL; this
// block reads the commands from RING_HEAD up to RING_TAIL and hands each one,
// whole, to the controller's command queue (push_valid_o/push_ready_i), the
// same queue the CMDQ_PUSH register fills. RING_HEAD (head_o) advances as a
// command enters the queue, so software may overwrite every slot behind it.
//
// A burst is planned in StIdle from registers only: it starts at base+head
// and takes at most FetchBurst commands, and no more than are written (up to
// the tail or the ring's end), than fit before the next 4 KiB boundary (AXI)
// or than lie inside the DMA window. It is issued only when the queue has a
// free slot for every command of it (q_free_i), and those slots are reserved
// (rsv_o) until the commands arrive, so R beats are never held back waiting
// for room and the shared R channel stays free for the DMA.
//
// Checks, in this order, before any read: RING_BASE and RING_SIZE multiples
// of 32 and RING_SIZE non-zero (RING_ALIGN, address = RING_BASE); RING_TAIL a
// multiple of 32 below RING_SIZE and the head below RING_SIZE (RING_TAIL,
// address = base+tail); the next command inside the DMA window (RING_WINDOW,
// address = that command). An R beat with RRESP != OKAY gives FETCH_BUS at
// the address of the command it belongs to; the rest of that burst is read
// and dropped. After an error nothing more is read until a soft reset; err_o
// holds the error for the controller, which reports it once every command
// fetched before it has run (ERR_CODE, ERR_ADDR).
//
// Soft reset (soft_reset_i) and ENABLE = 0 drop what is fetched and not yet
// queued; a burst in flight is read to its end and dropped (AXI has no abort),
// idle_o is low until then. Soft reset sets the head to the tail (the ring is
// empty: nothing runs twice, and a bad tail is not reported again until
// software writes another), ENABLE = 0 holds it at 0.
//
// AXI4 read master: INCR bursts of whole commands (32 / AxiBytes beats each),
// one burst in flight, ARVALID and the address held until ARREADY.
module tsr_cmd_fetch #(
  parameter integer AxiDataWidth = 64,   // 32, 64 or 128
  parameter integer FetchBurst   = 4,    // commands per burst at most (1..CmdQDepth)
  localparam integer AxiBytes    = AxiDataWidth / 8,
  localparam integer BeatsPerCmd = 32 / AxiBytes,
  localparam integer BeatW       = $clog2(BeatsPerCmd)
) (
  input  wire                    clk_i,
  input  wire                    rst_ni,
  // registers
  input  wire                    enable_i,       // RING_CTRL.ENABLE
  input  wire [31:0]             base_i,         // RING_BASE
  input  wire [31:0]             size_i,         // RING_SIZE
  input  wire [31:0]             tail_i,         // RING_TAIL
  input  wire [31:0]             win_base_i,     // DMA window, inclusive
  input  wire [31:0]             win_limit_i,
  input  wire                    soft_reset_i,
  input  wire                    halt_i,         // the controller stopped: start no burst
  output wire [31:0]             head_o,         // RING_HEAD
  output wire                    busy_o,         // commands to fetch, fetched, or an error to report
  output wire                    idle_o,         // no burst in flight
  output wire                    err_o,
  output wire [7:0]              err_code_o,
  output wire [31:0]             err_addr_o,
  // command queue: one whole command per handshake
  input  wire [15:0]             q_free_i,       // free queue slots (not counting rsv_o)
  output wire [15:0]             rsv_o,          // slots reserved for commands in flight
  output wire                    push_valid_o,
  input  wire                    push_ready_i,
  output wire [255:0]            push_cmd_o,
  output wire [31:0]             push_addr_o,    // the command's byte address
  // AXI4 read master
  output wire                    m_axi_arvalid,
  input  wire                    m_axi_arready,
  output wire [31:0]             m_axi_araddr,
  output wire [7:0]              m_axi_arlen,
  output wire [2:0]              m_axi_arsize,
  output wire [1:0]              m_axi_arburst,
  input  wire                    m_axi_rvalid,
  output wire                    m_axi_rready,
  input  wire [AxiDataWidth-1:0] m_axi_rdata,
  input  wire [1:0]              m_axi_rresp,
  input  wire                    m_axi_rlast
);
`include "rtl/regs/tsr_cmd_fields.vh"

  localparam [1:0] StIdle = 2'd0, StAr = 2'd1, StData = 2'd2;
  localparam [7:0] Burst8 = FetchBurst[7:0];
  localparam [7:0] Bpc8   = BeatsPerCmd[7:0];
  localparam integer ArSizeI = $clog2(AxiBytes);
  localparam [31:0]  ArSize32 = ArSizeI;

  // Element widths must divide a command; FetchBurst * BeatsPerCmd <= 256 beats.
  generate
    if (AxiBytes < 4 || AxiBytes > 16 || FetchBurst < 1 || FetchBurst * BeatsPerCmd > 256) begin : gen_bad_params
      AxiDataWidth_32_64_128_and_FetchBurst_1_to_256_beats u_bad_params ();
    end
  endgenerate

  reg [1:0]        st_q, st_d;
  reg [31:0]       head_q, head_d;
  reg              err_q, err_d;
  reg [7:0]        code_q, code_d;
  reg [31:0]       eaddr_q, eaddr_d;
  reg              drop_q, drop_d;          // read the burst's remaining beats and drop them
  reg [31:0]       araddr_q, araddr_d;
  reg [7:0]        arlen_q, arlen_d;
  reg [7:0]        rsv_q, rsv_d;            // commands of the burst not yet queued
  reg [BeatW-1:0]  beat_q, beat_d;          // beat within the command being assembled
  reg              full_q, full_d;          // buf_q holds a whole command for the queue
  reg [255:0]      buf_q;

  // ---------------------------------------------------------------- planning
  // Computed only while a plan can be made (plan_ok): Verilator evaluates a
  // block's statements, not its untaken branches, so with the ring disabled
  // (the register path) the planning costs the model nothing per cycle.
  function automatic [7:0] cap(input [32:0] cmds);
    cap = (cmds >= {25'h0, Burst8}) ? Burst8 : cmds[7:0];
  endfunction
  wire        pending = enable_i && (head_q != tail_i);
  wire        plan_ok = (st_q == StIdle) && !full_q && !err_q && !halt_i && pending && !soft_reset_i;
  reg  [31:0] addr;          // the head's byte address
  reg         bad_align, bad_tail, outside;
  reg  [7:0]  want;          // commands in the burst, >= 1 when the checks pass
  reg         issue;
  reg  [32:0] addr33, win_bytes;
  reg  [33:0] cmd_last;      // last byte of the command
  reg  [31:0] lin_bytes;     // commands to the tail, or to the ring's end when the tail is behind
  reg  [12:0] to_4k;
  reg  [7:0]  n_ab;
  always @(*) begin
    addr      = 32'h0;
    bad_align = 1'b0;
    bad_tail  = 1'b0;
    outside   = 1'b0;
    want      = 8'h0;
    issue     = 1'b0;
    addr33    = 33'h0;
    win_bytes = 33'h0;
    cmd_last  = 34'h0;
    lin_bytes = 32'h0;
    to_4k     = 13'h0;
    n_ab      = 8'h0;
    if (plan_ok) begin
      addr33    = {1'b0, base_i} + {1'b0, head_q};
      addr      = addr33[31:0];
      cmd_last  = {1'b0, addr33} + 34'd31;
      bad_align = (base_i[4:0] != 5'd0) || (size_i[4:0] != 5'd0) || (size_i == 32'h0);
      // The head too: a soft reset sets it to whatever the tail was.
      bad_tail  = (tail_i[4:0] != 5'd0) || (tail_i >= size_i) ||
                  (head_q[4:0] != 5'd0) || (head_q >= size_i);
      outside   = (addr33 < {1'b0, win_base_i}) || (cmd_last > {2'b00, win_limit_i});
      lin_bytes = (tail_i > head_q) ? tail_i - head_q : size_i - head_q;
      to_4k     = 13'h1000 - {1'b0, addr[11:0]};
      win_bytes = {1'b0, win_limit_i} - addr33 + 33'd1;                // valid when !outside
      n_ab      = (cap({6'h0, lin_bytes[31:5]}) < cap({25'h0, to_4k[12:5]})) ?
                  cap({6'h0, lin_bytes[31:5]}) : cap({25'h0, to_4k[12:5]});
      want      = (n_ab < cap({5'h0, win_bytes[32:5]})) ? n_ab : cap({5'h0, win_bytes[32:5]});
      issue     = !bad_align && !bad_tail && !outside && ({8'h0, want} <= q_free_i);
    end
  end

  // ---------------------------------------------------------------- data path
  wire        r_hs     = m_axi_rvalid && m_axi_rready;
  wire        r_bad    = m_axi_rresp != 2'b00;
  wire        last_bpc = (beat_q == BeatsPerCmd[BeatW-1:0] - {{(BeatW-1){1'b0}}, 1'b1});
  wire        push     = full_q && push_ready_i;
  wire [31:0] head_inc = head_q + 32'd32;
  wire [31:0] head_nx  = (head_inc >= size_i) ? 32'h0 : head_inc;

  always @(*) begin
    st_d     = st_q;
    head_d   = head_q;
    err_d    = err_q;
    code_d   = code_q;
    eaddr_d  = eaddr_q;
    drop_d   = drop_q;
    araddr_d = araddr_q;
    arlen_d  = arlen_q;
    rsv_d    = rsv_q;
    beat_d   = beat_q;
    full_d   = full_q;
    if (push) begin
      full_d = 1'b0;
      head_d = head_nx;
      rsv_d  = rsv_q - 8'd1;
    end
    case (st_q)
      StIdle: begin
        if (bad_align) begin
          err_d   = 1'b1;
          code_d  = ErrRingAlign;
          eaddr_d = base_i;
        end else if (bad_tail) begin
          err_d   = 1'b1;
          code_d  = ErrRingTail;
          eaddr_d = base_i + tail_i;
        end else if (outside) begin
          err_d   = 1'b1;
          code_d  = ErrRingWindow;
          eaddr_d = addr;
        end else if (issue) begin
          araddr_d = addr;
          arlen_d  = want * Bpc8 - 8'd1;
          rsv_d    = want;
          beat_d   = {BeatW{1'b0}};
          drop_d   = 1'b0;
          st_d     = StAr;
        end
      end
      StAr: if (m_axi_arready) st_d = StData;
      StData: begin
        if (r_hs) begin
          if (!drop_q) begin
            if (r_bad) begin
              err_d   = 1'b1;
              code_d  = ErrFetchBus;
              eaddr_d = base_i + head_q;
              drop_d  = 1'b1;
              rsv_d   = 8'd0;
            end else begin
              beat_d = beat_q + {{(BeatW-1){1'b0}}, 1'b1};
              if (last_bpc) begin
                full_d = 1'b1;
                beat_d = {BeatW{1'b0}};
              end
            end
          end
          if (m_axi_rlast) st_d = StIdle;
        end
      end
      default: st_d = StIdle;
    endcase
    // Soft reset or ENABLE = 0: forget everything not queued yet.
    if (soft_reset_i || !enable_i) begin
      full_d  = 1'b0;
      rsv_d   = 8'd0;
      beat_d  = {BeatW{1'b0}};
      drop_d  = (st_q != StIdle) || (st_d != StIdle);
      head_d  = enable_i ? tail_i : 32'h0;
    end
    if (soft_reset_i) begin
      err_d   = 1'b0;
      code_d  = ErrNone;
      eaddr_d = 32'h0;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q     <= StIdle;
      head_q   <= 32'h0;
      err_q    <= 1'b0;
      code_q   <= ErrNone;
      eaddr_q  <= 32'h0;
      drop_q   <= 1'b0;
      araddr_q <= 32'h0;
      arlen_q  <= 8'h0;
      rsv_q    <= 8'h0;
      beat_q   <= {BeatW{1'b0}};
      full_q   <= 1'b0;
    end else begin
      st_q     <= st_d;
      head_q   <= head_d;
      err_q    <= err_d;
      code_q   <= code_d;
      eaddr_q  <= eaddr_d;
      drop_q   <= drop_d;
      araddr_q <= araddr_d;
      arlen_q  <= arlen_d;
      rsv_q    <= rsv_d;
      beat_q   <= beat_d;
      full_q   <= full_d;
    end
  end

  // The command being assembled (datapath: full_q qualifies it, no reset).
  always @(posedge clk_i) begin
    if (st_q == StData && r_hs && !drop_q) begin
      buf_q[beat_q * AxiDataWidth +: AxiDataWidth] <= m_axi_rdata;
    end
  end

  assign head_o        = head_q;
  assign busy_o        = pending || (st_q != StIdle) || full_q || err_q;
  assign idle_o        = (st_q == StIdle);
  assign err_o         = err_q;
  assign err_code_o    = code_q;
  assign err_addr_o    = eaddr_q;
  assign rsv_o         = issue ? {8'h0, want} : {8'h0, rsv_q};
  assign push_valid_o  = full_q;
  assign push_cmd_o    = buf_q;
  assign push_addr_o   = base_i + head_q;
  assign m_axi_arvalid = (st_q == StAr);
  assign m_axi_araddr  = araddr_q;
  assign m_axi_arlen   = arlen_q;
  assign m_axi_arsize  = ArSize32[2:0];
  assign m_axi_arburst = 2'b01;
  assign m_axi_rready  = (st_q == StData) && !full_q;

  // The cmd_*() functions of the include are not used here.
  /* verilator tracing_off */
  wire unused_bits = ^{cmd_last[33:32], to_4k[4:0], win_bytes[4:0], lin_bytes[4:0]};
  /* verilator tracing_on */

`ifdef FORMAL
  // ---- Formal properties: `make formal` proves them by k-induction (mk/formal.mk,
  // docs/formal.md). The ring and window registers hold still (software changes them
  // only with ENABLE = 0; a change under a running ring is not covered); the tail, ENABLE,
  // soft reset, halt, the queue and the memory's timing and responses are free.
  localparam integer OffW = $clog2(AxiBytes);
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  reg [127:0] f_regs;     // last cycle's ring and window registers
  always @(posedge clk_i) f_regs <= {base_i, size_i, win_base_i, win_limit_i};
  always @(*) if (f_past_valid) assume ({base_i, size_i, win_base_i, win_limit_i} == f_regs);
  // The controller takes a command only while it has reserved room for it: q_free_i
  // counts free slots not yet reserved, so it never drops below the reservation.
  always @(*) assume (q_free_i <= 16'd64);

  // Slave model: R beats only for an accepted AR, RLAST on the burst's last beat, RVALID
  // and the beat held until RREADY.
  wire       f_ar_hs = m_axi_arvalid & m_axi_arready;
  wire       f_r_hs  = m_axi_rvalid & m_axi_rready;
  wire [1:0] f_ar_out;
  reg  [7:0] f_len, f_rbeat;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_rbeat <= 8'd0;
      f_len   <= 8'd0;
    end else begin
      if (f_ar_hs) f_len <= m_axi_arlen;
      if (f_r_hs) f_rbeat <= m_axi_rlast ? 8'd0 : f_rbeat + 8'd1;
    end
  end
  always @(*) begin
    if (!rst_ni) assume (!m_axi_rvalid);
    if (m_axi_rvalid) begin
      assume (f_ar_out != 2'd0);
      assume (m_axi_rlast == (f_rbeat == f_len));
    end
  end
  always @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni && $past(m_axi_rvalid && !m_axi_rready))
      assume (m_axi_rvalid && m_axi_rlast == $past(m_axi_rlast) &&
              m_axi_rresp == $past(m_axi_rresp) && m_axi_rdata == $past(m_axi_rdata));
  end

  // The region a fetch may read: the ring, inside the DMA window (beat addresses).
  wire [32:0] f_ring_end = {1'b0, base_i} + {1'b0, size_i} - 33'd1;
  wire [32:0] f_hi33     = (f_ring_end < {1'b0, win_limit_i}) ? f_ring_end : {1'b0, win_limit_i};
  wire [31:0] f_lo       = (base_i > win_base_i) ? base_i : win_base_i;
  wire [31:0] f_hi       = {f_hi33[31:OffW], {OffW{1'b0}}};

  // The AXI4 master rules, shared with the DMA masters: INCR bursts of full-width beats,
  // aligned, 1..FetchBurst commands, no 4 KiB crossing, inside the ring and the window,
  // VALID and payload held until READY, one burst in flight.
  tsr_axi_master_props #(
    .AxiDataWidth   (AxiDataWidth),
    .MaxBurstBeats  (FetchBurst * BeatsPerCmd),
    .MaxOutstanding (1)
  ) u_f_ar (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .valid_i       (m_axi_arvalid),
    .ready_i       (m_axi_arready),
    .addr_i        (m_axi_araddr),
    .len_i         (m_axi_arlen),
    .size_i        (m_axi_arsize),
    .burst_i       (m_axi_arburst),
    .region_lo_i   (f_lo),
    .region_hi_i   (f_hi),
    .answer_i      (f_r_hs & m_axi_rlast),
    .outstanding_o (f_ar_out)
  );

  // Ring pointers. With a valid ring (base and size multiples of 32, size > 0):
  //   - while commands are reserved, the head is inside the ring, on a command boundary
  //     (between bursts it may equal a tail software set outside the ring by a soft
  //     reset; the next plan then stops with RING_TAIL before any read);
  //   - the head never passes the tail: the commands reserved for the burst in flight
  //     lie between the head and the tail the burst was planned with (f_tail), so every
  //     command queued was published;
  //   - a command is queued only from a planned burst, at the head's address.
  wire        f_ring_ok = (base_i[4:0] == 5'd0) && (size_i[4:0] == 5'd0) && (size_i != 32'h0);
  reg  [31:0] f_tail;
  always @(posedge clk_i) if (issue) f_tail <= tail_i;
  wire [31:0] f_dist = (f_tail >= head_q) ? f_tail - head_q : size_i - head_q + f_tail;
  always @(*) begin
    if (rst_ni) begin
      assert (f_ar_out == ((st_q == StData) ? 2'd1 : 2'd0));
      assert (rsv_q <= Burst8);
      // The slave model follows the burst in flight.
      if (st_q != StData) assert (f_rbeat == 8'd0);
      if (st_q == StData) assert (f_len == arlen_q && f_rbeat <= f_len);
      // Dropping: nothing reserved, nothing to queue.
      if (drop_q && st_q != StIdle) assert (rsv_q == 8'd0 && !full_q);
      if (full_q) assert (beat_q == {BeatW{1'b0}});
      if (f_ring_ok) begin
        if (rsv_q != 8'd0) begin
          assert (head_q[4:0] == 5'd0 && head_q < size_i);
          assert (f_tail[4:0] == 5'd0 && f_tail < size_i);
          assert ({19'h0, rsv_q, 5'd0} <= f_dist);
          assert (st_q != StIdle || full_q);
        end
      end
      if (full_q) assert (rsv_q != 8'd0);
      // Between bursts only the last command of one may wait for the queue.
      if (st_q == StIdle) assert (rsv_q == {7'h0, full_q});
      if (st_q == StAr) assert (!full_q && beat_q == {BeatW{1'b0}});
      if (st_q == StAr && !drop_q) begin
        assert (rsv_q != 8'd0 && araddr_q == base_i + head_q);
        assert (arlen_q == rsv_q * Bpc8 - 8'd1);
      end
      if (st_q == StData && !drop_q) begin
        // Beats left in the burst cover the reserved commands not yet assembled.
        assert ({8'h0, f_len} - {8'h0, f_rbeat} + 16'd1 ==
                ({8'h0, rsv_q} - {15'h0, full_q}) * {8'h0, Bpc8} - {{(16-BeatW){1'b0}}, beat_q});
      end
      if (push_valid_o) assert (rsv_q != 8'd0);
    end
  end
`endif
endmodule

`default_nettype wire
