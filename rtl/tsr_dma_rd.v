// tsr_dma_rd: AXI4 read DMA for LOAD: external rows -> zero-padded chunks in local memory.
`default_nettype none

// What it does (docs/commands.md, LOAD):
//   chunk = to_acc ? 4N : N bytes. External row r holds the bytes
//   addr + r*stride .. addr + r*stride + cols - 1. It is cut into C = ceil(cols/chunk)
//   chunks; chunk c of row r is written to local row local + c*rows + r, and the tail of
//   the last chunk is zero-filled. Any address, cols and stride work (byte granular).
//
// How (three decoupled parts, all in order):
//   1. AR issue. One row at a time, bus-aligned INCR bursts that cover exactly the beats
//      holding the row's bytes: each burst is at most MaxBurstBeats long and never crosses a
//      4 KiB boundary. Up to MaxOutstanding bursts are in flight; each one pushes a small
//      descriptor (address, first/last-of-row flags, first/last byte lane) into a FIFO.
//   2. R capture. Responses come back in order (single ID), so the FIFO head describes the
//      incoming beat. The beat's useful bytes are masked and shifted down to lane 0 into a
//      one-beat register together with their count and an end-of-row flag.
//   3. Pack and write. The captured bytes are appended to a staging buffer at its fill
//      level; whenever a whole chunk is present (or the row ended) the low chunk is written
//      to local memory (registered outputs) and the rest moves down. With chunk >= beat
//      this keeps one beat per cycle, plus one extra cycle at the end of a row only when
//      the row's last beat straddles a chunk boundary; when a beat holds more than a chunk
//      (e.g. N = 4 on a 128-bit bus) R is throttled to one chunk per cycle.
//
// Errors and abort: a SLVERR/DECERR beat or abort_i stops new bursts (an AR already
// presented stays until accepted), discards all data from that cycle on (no local write
// happens after the cycle the error beat is accepted or abort_i is seen), accepts and drops
// the remaining beats of every burst already issued, then pulses done_o. err_o (valid
// with done_o, held until the next start) says an error beat was received during the job,
// even while draining after an abort; err_addr_o is the araddr of the first burst that
// answered with an error.
//
// Job interface: start_i is a one-cycle pulse accepted only while busy_o is low. done_o is
// a one-cycle pulse; busy_o is low from that cycle on, and start_i may come in the same
// cycle as done_o. The last local write of a job is presented in the cycle of done_o.
// The local write port has no backpressure: wr_valid_o is a one-cycle command.

module tsr_dma_rd #(
  parameter integer ArrayDim       = 8,   // N
  parameter integer AxiDataWidth   = 64,  // 32, 64 or 128
  parameter integer MaxBurstBeats  = 16,  // longest AXI burst issued (1..256)
  parameter integer MaxOutstanding = 4    // bursts in flight (issued, not fully answered)
) (
  input  wire                      clk_i,
  input  wire                      rst_ni,

  // Job.
  input  wire                      start_i,
  input  wire                      to_acc_i,      // 0: chunk = N bytes; 1: chunk = 4N bytes
  input  wire [31:0]               addr_i,        // byte address of row 0, any alignment
  input  wire [31:0]               stride_i,      // bytes between row starts
  input  wire [15:0]               rows_i,        // >= 1
  input  wire [15:0]               cols_i,        // bytes per row, >= 1
  input  wire [23:0]               local_i,       // first local row
  input  wire                      abort_i,       // stop issuing, drain, then done
  output wire                      busy_o,
  output wire                      done_o,
  output wire                      err_o,
  output wire [31:0]               err_addr_o,

  // Local memory write port (always accepted).
  output wire                      wr_valid_o,
  output wire                      wr_acc_o,
  output wire [23:0]               wr_addr_o,
  output wire [32*ArrayDim-1:0]    wr_data_o,     // byte 0 in bits 7:0; spad uses 8N bits
  output wire                      rd_beat_o,     // one per R handshake

  // AXI4 master read channels.
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

  // ---------------------------------------------------------------------------------------
  // Derived sizes
  // ---------------------------------------------------------------------------------------
  localparam integer BeatBytes  = AxiDataWidth / 8;
  localparam integer OffW       = $clog2(BeatBytes);           // byte lane index width
  localparam integer SpadBytes  = ArrayDim;                    // scratchpad chunk
  localparam integer AccBytes   = 4 * ArrayDim;                // accumulator chunk
  // Staging holds < one chunk after a write, or < one beat while a wide beat is split.
  localparam integer StageBytes = (AccBytes > BeatBytes) ? AccBytes : BeatBytes;
  // Staging plus one appended beat (appending only happens below one chunk).
  localparam integer CombBytes  = AccBytes + BeatBytes - 1;
  localparam integer FillW      = $clog2(CombBytes + 1);
  localparam integer CntW       = $clog2(BeatBytes + 1);       // bytes in one beat
  localparam integer FifoDepth  = MaxOutstanding;
  localparam integer PtrW       = (FifoDepth > 1) ? $clog2(FifoDepth) : 1;
  localparam integer OutW       = $clog2(FifoDepth + 1);
  // Descriptor: {addr[31:0], first_of_row, last_of_row, lo_lane, hi_lane}.
  localparam integer DescW      = 32 + 2 + 2 * OffW;

  localparam integer LaneMaxI   = BeatBytes - 1;
  localparam integer PtrLastI   = FifoDepth - 1;
  localparam integer MaxLenI    = MaxBurstBeats - 1;

  localparam [31:0]      MaxLenM1 = MaxLenI;
  localparam [2:0]       AxSize   = OffW[2:0];
  localparam [OffW-1:0]  LaneMax  = LaneMaxI[OffW-1:0];
  localparam [FillW-1:0] SpadFill = SpadBytes[FillW-1:0];
  localparam [FillW-1:0] AccFill  = AccBytes[FillW-1:0];
  localparam [PtrW-1:0]  PtrLast  = PtrLastI[PtrW-1:0];
  localparam [OutW-1:0]  OutMax   = FifoDepth[OutW-1:0];

  // ---------------------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------------------
  // Job control.
  reg         busy_q, busy_d;
  reg         stop_q, stop_d;           // error or abort seen: issue nothing, drop all data
  reg         err_q, err_d;
  reg  [31:0] err_addr_q, err_addr_d;
  reg         done_q, done_d;
  reg         to_acc_q, to_acc_d;
  reg  [31:0] stride_q, stride_d;
  reg  [15:0] cols_m1_q, cols_m1_d;
  reg  [15:0] rows_q, rows_d;

  // AR side: rows still to set up, the current row's beat window and the AR register.
  reg  [15:0] ar_rows_q, ar_rows_d;     // rows not yet set up
  reg  [31:0] row_addr_q, row_addr_d;   // start byte of the next row to set up
  reg         row_v_q, row_v_d;         // a row is set up and has beats left to request
  reg         row_first_q, row_first_d; // the next burst is the row's first
  reg  [31:0] cur_q, cur_d;             // next beat address of the current row
  reg  [31:0] last_q, last_d;           // last beat address of the current row
  reg  [OffW-1:0] lo_q, lo_d;           // first byte lane of the current row
  reg  [OffW-1:0] hi_q, hi_d;           // last byte lane of the current row
  reg         arvalid_q, arvalid_d;
  reg  [31:0] araddr_q, araddr_d;
  reg  [7:0]  arlen_q, arlen_d;

  // Burst descriptor FIFO (entries = bursts presented or in flight).
  reg  [DescW-1:0] fifo_q [0:FifoDepth-1];
  reg  [PtrW-1:0]  wptr_q, wptr_d;
  reg  [PtrW-1:0]  rptr_q, rptr_d;
  reg  [OutW-1:0]  cnt_q, cnt_d;
  reg              rfirst_q, rfirst_d;  // next R beat is the first of its burst

  // Captured beat (bytes right-aligned, count, end of row).
  reg                      beat_v_q, beat_v_d;
  reg  [8*BeatBytes-1:0]   beat_data_q;
  reg  [CntW-1:0]          beat_n_q, beat_n_d;
  reg                      beat_end_q, beat_end_d;

  // Staging buffer (bytes at index >= fill are always zero).
  reg  [8*StageBytes-1:0]  stage_q;
  reg  [FillW-1:0]         fill_q, fill_d;
  reg                      tail_q, tail_d;   // the row has ended; flush what is staged

  // Local addresses and output register.
  reg  [15:0] out_rows_q, out_rows_d;   // rows not yet completely written
  reg  [23:0] out_base_q, out_base_d;   // local + r for the row being written
  reg  [23:0] out_addr_q, out_addr_d;   // local + c*rows + r for the next chunk
  reg                     wr_valid_q, wr_valid_d;
  reg  [23:0]             wr_addr_q, wr_addr_d;
  reg  [32*ArrayDim-1:0]  wr_data_q;

  // ---------------------------------------------------------------------------------------
  // AR burst calculation for the current row (from registers only)
  // ---------------------------------------------------------------------------------------
  wire [31:0] span_m1 = (last_q - cur_q) >> OffW;                    // beats left - 1
  wire [31:0] to4k_m1 = {20'h0, ~cur_q[11:0]} >> OffW;               // beats to 4 KiB - 1
  wire [31:0] lim_m1  = (to4k_m1 <= MaxLenM1) ? to4k_m1 : MaxLenM1;
  wire        ar_row_last = (span_m1 <= lim_m1);
  wire [31:0] len_m1  = ar_row_last ? span_m1 : lim_m1;
  wire [31:0] cur_next = cur_q + ((len_m1 + 32'd1) << OffW);

  // Row set-up values from the next row's start address.
  wire [31:0] row_end_addr = row_addr_q + {16'h0, cols_m1_q};

  // ---------------------------------------------------------------------------------------
  // R side decode (FIFO head describes the incoming beat)
  // ---------------------------------------------------------------------------------------
  wire [DescW-1:0] head       = fifo_q[rptr_q];
  wire [31:0]      head_addr  = head[DescW-1 -: 32];
  wire             head_first = head[2*OffW+1];
  wire             head_last  = head[2*OffW];
  wire [OffW-1:0]  head_lo    = head[2*OffW-1 -: OffW];
  wire [OffW-1:0]  head_hi    = head[OffW-1:0];

  wire        r_hs    = m_axi_rvalid & m_axi_rready;
  wire        r_err   = m_axi_rresp[1];                 // SLVERR or DECERR
  wire        r_end   = head_last & m_axi_rlast;        // last beat of the row
  wire [OffW-1:0] r_lo = (head_first & rfirst_q) ? head_lo : {OffW{1'b0}};
  wire [OffW-1:0] r_hi = r_end ? head_hi : LaneMax;

  // Keep lanes lo..hi of an R beat, move lane lo to lane 0.
  function automatic [8*BeatBytes-1:0] align_beat(input [8*BeatBytes-1:0] data,
                                                  input [OffW-1:0] lo, input [OffW-1:0] hi);
    reg [8*BeatBytes-1:0] masked;
    integer k;
    begin
      for (k = 0; k < BeatBytes; k = k + 1) begin
        masked[8*k +: 8] = (k[OffW:0] <= {1'b0, hi}) ? data[8*k +: 8] : 8'h00;
      end
      align_beat = masked >> {lo, 3'b000};
    end
  endfunction
  wire [CntW-1:0]        r_count   = {1'b0, r_hi} - {1'b0, r_lo} + 1'b1;

  // Stop now: the error beat or abort_i of this cycle already blocks issue and writes.
  wire stop_now = stop_q | (busy_q & (abort_i | (r_hs & r_err)));

  // ---------------------------------------------------------------------------------------
  // Pack stage (from registers only)
  // ---------------------------------------------------------------------------------------
  // Both outcomes are computed at once, the captured beat appended (_a) or
  // not (_n), each against the two chunk sizes as constants, and accept picks
  // at the end (FPGA timing: the fill's add and compares no longer wait for
  // accept's compare). Accepting implies no tail, so the row ends with the beat.
  function automatic fill_ge(input [FillW-1:0] f, input acc);   // f >= chunk
    fill_ge = acc ? (f >= AccFill) : (f >= SpadFill);
  endfunction
  function automatic fill_le(input [FillW-1:0] f, input acc);   // f <= chunk
    fill_le = acc ? (f <= AccFill) : (f <= SpadFill);
  endfunction
  function automatic [FillW-1:0] fill_left(input [FillW-1:0] f, input acc);   // f - chunk
    fill_left = acc ? f - AccFill : f - SpadFill;
  endfunction
  wire [FillW-1:0]       fill_a    = fill_q + {{(FillW-CntW){1'b0}}, beat_n_q};
  wire                   accept    = beat_v_q & ~tail_q & ~fill_ge(fill_q, to_acc_q);
  wire                   emit_a    = fill_ge(fill_a, to_acc_q) | (beat_end_q & (fill_a != 0));
  wire                   emit_n    = fill_ge(fill_q, to_acc_q) | (tail_q & (fill_q != 0));
  wire                   done_a    = emit_a & beat_end_q & fill_le(fill_a, to_acc_q);
  wire                   done_n    = emit_n & tail_q & fill_le(fill_q, to_acc_q);
  wire [FillW-1:0]       next_a    = emit_a ? fill_left(fill_a, to_acc_q) : fill_a;
  wire [FillW-1:0]       next_n    = emit_n ? fill_left(fill_q, to_acc_q) : fill_q;
  wire                   row_end   = accept ? beat_end_q : tail_q;
  wire                   emit      = accept ? emit_a : emit_n;
  wire                   row_done  = accept ? done_a : done_n;

  // The wide datapath, as functions: the Verilated model evaluates them only in
  // a cycle that loads stage_q or wr_data_q (same logic in hardware).
  // comb: the staged bytes with the captured beat appended when it is accepted.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic [8*CombBytes-1:0] combine(input [8*StageBytes-1:0] stage,
                                               input [8*BeatBytes-1:0] beat,
                                               input [FillW-1:0] fill, input append);
    reg [8*CombBytes-1:0] stage_ext, beat_ext;
    begin
      stage_ext = {{(8*(CombBytes-StageBytes)){1'b0}}, stage};
      beat_ext  = {{(8*(CombBytes-BeatBytes)){1'b0}}, beat};
      combine   = append ? (stage_ext | (beat_ext << {fill, 3'b000})) : stage_ext;
    end
  endfunction
  // The bytes staged for the next cycle: all of c, or what is left after a
  // chunk leaves (bytes above StageBytes are zero by construction: a beat is
  // only appended below one chunk).
  function automatic [8*StageBytes-1:0] staged(input [8*CombBytes-1:0] c, input leave, input acc);
    reg [8*CombBytes-1:0] r;
    begin
      r      = !leave ? c : acc ? (c >> (8 * AccBytes)) : (c >> (8 * SpadBytes));
      staged = r[8*StageBytes-1:0];
    end
  endfunction
  // A chunk as written: scratchpad chunks use the low 8N bits, the rest is zero.
  function automatic [32*ArrayDim-1:0] chunk_of(input [8*CombBytes-1:0] c, input acc);
    chunk_of = acc ? c[32*ArrayDim-1:0] : {{(24*ArrayDim){1'b0}}, c[8*ArrayDim-1:0]};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ---------------------------------------------------------------------------------------
  // Next state
  // ---------------------------------------------------------------------------------------
  reg ar_load;
  reg beat_load, wr_load, stage_clr, stage_load;   // datapath register loads

  always @(*) begin
    busy_d      = busy_q;
    stop_d      = stop_q;
    err_d       = err_q;
    err_addr_d  = err_addr_q;
    done_d      = 1'b0;
    to_acc_d    = to_acc_q;
    stride_d    = stride_q;
    cols_m1_d   = cols_m1_q;
    rows_d      = rows_q;
    ar_rows_d   = ar_rows_q;
    row_addr_d  = row_addr_q;
    row_v_d     = row_v_q;
    row_first_d = row_first_q;
    cur_d       = cur_q;
    last_d      = last_q;
    lo_d        = lo_q;
    hi_d        = hi_q;
    arvalid_d   = arvalid_q;
    araddr_d    = araddr_q;
    arlen_d     = arlen_q;
    wptr_d      = wptr_q;
    rptr_d      = rptr_q;
    cnt_d       = cnt_q;
    rfirst_d    = rfirst_q;
    beat_v_d    = beat_v_q;
    beat_n_d    = beat_n_q;
    beat_end_d  = beat_end_q;
    fill_d      = fill_q;
    tail_d      = tail_q;
    out_rows_d  = out_rows_q;
    out_base_d  = out_base_q;
    out_addr_d  = out_addr_q;
    wr_valid_d  = 1'b0;
    wr_addr_d   = wr_addr_q;
    ar_load     = 1'b0;
    beat_load   = 1'b0;
    wr_load     = 1'b0;
    stage_clr   = 1'b0;
    stage_load  = 1'b0;

    if (!busy_q) begin
      if (start_i) begin
        busy_d      = 1'b1;
        stop_d      = 1'b0;
        err_d       = 1'b0;
        err_addr_d  = 32'h0;
        to_acc_d    = to_acc_i;
        stride_d    = stride_i;
        cols_m1_d   = cols_i - 16'd1;
        rows_d      = rows_i;
        ar_rows_d   = rows_i;
        row_addr_d  = addr_i;
        row_v_d     = 1'b0;
        rfirst_d    = 1'b1;
        beat_v_d    = 1'b0;
        fill_d      = {FillW{1'b0}};   // the staging buffer is empty (zero) when idle
        tail_d      = 1'b0;
        out_rows_d  = rows_i;
        out_base_d  = local_i;
        out_addr_d  = local_i;
      end
    end else begin
      // ---- AR issue ---------------------------------------------------------------------
      if (arvalid_q && m_axi_arready) begin
        arvalid_d = 1'b0;
      end
      if (!stop_now && row_v_q && (!arvalid_q || m_axi_arready) && (cnt_q != OutMax)) begin
        ar_load   = 1'b1;
        arvalid_d = 1'b1;
        araddr_d  = cur_q;
        arlen_d   = len_m1[7:0];
        cur_d     = cur_next;
        row_first_d = 1'b0;
        if (ar_row_last) begin
          row_v_d = 1'b0;
        end
      end
      // Set up the next row when none is active or the active one just issued its last.
      if (!stop_now && (ar_rows_q != 16'd0) && (!row_v_q || (ar_load && ar_row_last))) begin
        row_v_d     = 1'b1;
        row_first_d = 1'b1;
        cur_d       = {row_addr_q[31:OffW], {OffW{1'b0}}};
        last_d      = {row_end_addr[31:OffW], {OffW{1'b0}}};
        lo_d        = row_addr_q[OffW-1:0];
        hi_d        = row_end_addr[OffW-1:0];
        row_addr_d  = row_addr_q + stride_q;
        ar_rows_d   = ar_rows_q - 16'd1;
      end

      // ---- Descriptor FIFO push (with the AR) and pop (with RLAST) ------------------------
      if (ar_load) begin
        wptr_d = (wptr_q == PtrLast) ? {PtrW{1'b0}} : wptr_q + 1'b1;
      end
      if (r_hs) begin
        rfirst_d = m_axi_rlast;
        if (m_axi_rlast) begin
          rptr_d = (rptr_q == PtrLast) ? {PtrW{1'b0}} : rptr_q + 1'b1;
        end
      end
      cnt_d = cnt_q + {{(OutW-1){1'b0}}, ar_load}
                    - {{(OutW-1){1'b0}}, (r_hs & m_axi_rlast)};

      // ---- R capture ------------------------------------------------------------------
      if (accept) begin
        beat_v_d = 1'b0;
      end
      if (r_hs) begin
        if (r_err && !err_q) begin
          err_d      = 1'b1;
          err_addr_d = head_addr;
        end
        if (!stop_now) begin
          beat_v_d    = 1'b1;
          beat_load   = 1'b1;
          beat_n_d    = r_count;
          beat_end_d  = r_end;
        end
      end

      // ---- Pack and write ---------------------------------------------------------------
      if (emit && !stop_now) begin
        wr_valid_d = 1'b1;
        wr_addr_d  = out_addr_q;
        wr_load    = 1'b1;
      end
      stage_load = accept || emit;   // otherwise the staged bytes stay as they are
      fill_d  = row_done ? {FillW{1'b0}} : (accept ? next_a : next_n);
      tail_d  = row_end & ~row_done;
      if (emit) begin
        if (row_done) begin
          out_rows_d = out_rows_q - 16'd1;
          out_base_d = out_base_q + 24'd1;
          out_addr_d = out_base_q + 24'd1;
        end else begin
          out_addr_d = out_addr_q + {8'h0, rows_q};
        end
      end

      // ---- Stop, drain and finish -------------------------------------------------------
      if (stop_now) begin
        stop_d   = 1'b1;
        beat_v_d = 1'b0;
        fill_d   = {FillW{1'b0}};
        tail_d   = 1'b0;
      end
      if (stop_q) begin
        // Drop the staged bytes. Cleared from the register, not from this
        // cycle's abort or error, and never by a start: a job ends with the
        // buffer empty (FPGA timing: the controller's start decision reached
        // the clear of every staging bit).
        stage_clr = 1'b1;
        if (cnt_q == {OutW{1'b0}}) begin
          busy_d = 1'b0;
          done_d = 1'b1;
        end
      end else if (!stop_now && row_done && (out_rows_q == 16'd1)) begin
        busy_d = 1'b0;
        done_d = 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------------------
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q      <= 1'b0;
      stop_q      <= 1'b0;
      err_q       <= 1'b0;
      err_addr_q  <= 32'h0;
      done_q      <= 1'b0;
      to_acc_q    <= 1'b0;
      stride_q    <= 32'h0;
      cols_m1_q   <= 16'h0;
      rows_q      <= 16'h0;
      ar_rows_q   <= 16'h0;
      row_addr_q  <= 32'h0;
      row_v_q     <= 1'b0;
      row_first_q <= 1'b0;
      cur_q       <= 32'h0;
      last_q      <= 32'h0;
      lo_q        <= {OffW{1'b0}};
      hi_q        <= {OffW{1'b0}};
      arvalid_q   <= 1'b0;
      araddr_q    <= 32'h0;
      arlen_q     <= 8'h0;
      wptr_q      <= {PtrW{1'b0}};
      rptr_q      <= {PtrW{1'b0}};
      cnt_q       <= {OutW{1'b0}};
      rfirst_q    <= 1'b1;
      beat_v_q    <= 1'b0;
      beat_n_q    <= {CntW{1'b0}};
      beat_end_q  <= 1'b0;
      stage_q     <= {(8*StageBytes){1'b0}};
      fill_q      <= {FillW{1'b0}};
      tail_q      <= 1'b0;
      out_rows_q  <= 16'h0;
      out_base_q  <= 24'h0;
      out_addr_q  <= 24'h0;
      wr_valid_q  <= 1'b0;
      wr_addr_q   <= 24'h0;
    end else begin
      busy_q      <= busy_d;
      stop_q      <= stop_d;
      err_q       <= err_d;
      err_addr_q  <= err_addr_d;
      done_q      <= done_d;
      to_acc_q    <= to_acc_d;
      stride_q    <= stride_d;
      cols_m1_q   <= cols_m1_d;
      rows_q      <= rows_d;
      ar_rows_q   <= ar_rows_d;
      row_addr_q  <= row_addr_d;
      row_v_q     <= row_v_d;
      row_first_q <= row_first_d;
      cur_q       <= cur_d;
      last_q      <= last_d;
      lo_q        <= lo_d;
      hi_q        <= hi_d;
      arvalid_q   <= arvalid_d;
      araddr_q    <= araddr_d;
      arlen_q     <= arlen_d;
      wptr_q      <= wptr_d;
      rptr_q      <= rptr_d;
      cnt_q       <= cnt_d;
      rfirst_q    <= rfirst_d;
      beat_v_q    <= beat_v_d;
      beat_n_q    <= beat_n_d;
      beat_end_q  <= beat_end_d;
      if (stage_clr) begin
        stage_q <= {(8*StageBytes){1'b0}};
      end else if (stage_load) begin
        stage_q <= staged(combine(stage_q, beat_data_q, fill_q, accept), emit, to_acc_q);
      end
      fill_q      <= fill_d;
      tail_q      <= tail_d;
      out_rows_q  <= out_rows_d;
      out_base_q  <= out_base_d;
      out_addr_q  <= out_addr_d;
      wr_valid_q  <= wr_valid_d;
      wr_addr_q   <= wr_addr_d;
    end
  end

  // Datapath registers qualified by beat_v_q / wr_valid_q: no reset.
  always @(posedge clk_i) begin
    if (beat_load) begin
      beat_data_q <= align_beat(m_axi_rdata, r_lo, r_hi);
    end
    if (wr_load) begin
      wr_data_q <= chunk_of(combine(stage_q, beat_data_q, fill_q, accept), to_acc_q);
    end
  end

  // Descriptor FIFO storage: written with the AR, read at the R side.
  always @(posedge clk_i) begin
    if (ar_load) begin
      fifo_q[wptr_q] <= {cur_q, row_first_q, ar_row_last, lo_q, hi_q};
    end
  end

  // ---------------------------------------------------------------------------------------
  // Outputs
  // ---------------------------------------------------------------------------------------
  assign busy_o        = busy_q;
  assign done_o        = done_q;
  assign err_o         = err_q;
  assign err_addr_o    = err_addr_q;
  assign wr_valid_o    = wr_valid_q;
  assign wr_acc_o      = to_acc_q;
  assign wr_addr_o     = wr_addr_q;
  assign wr_data_o     = wr_data_q;
  assign rd_beat_o     = r_hs;
  assign m_axi_arvalid = arvalid_q;
  assign m_axi_araddr  = araddr_q;
  assign m_axi_arlen   = arlen_q;
  assign m_axi_arsize  = AxSize;
  assign m_axi_arburst = 2'b01;                       // INCR
  // Beats are always taken while draining or idle; otherwise when the capture slot frees.
  assign m_axi_rready  = stop_q | ~busy_q | ~beat_v_q | accept;

  // rresp[0] only separates EXOKAY from OKAY (both success) and DECERR from SLVERR (both
  // errors).
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_rresp0 = m_axi_rresp[0];
  /* verilator lint_on UNUSEDSIGNAL */

`ifdef FORMAL
  // ---- Formal properties: `make formal` proves them by k-induction (docs/formal.md).
  // Assumptions (assume): a well-behaved job source and AXI4 slave; small jobs
  // (at most FMaxRows rows) whose region does not wrap past 2^32, as tsr_ctrl's range and
  // window checks guarantee. Assertions (assert): the AXI4 master rules for AR and that
  // every burst stays inside the job's region (so the DMA window check is sufficient).
  localparam integer FMaxRows = 3;
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);

  // Job source: start only while idle, 1..FMaxRows rows of >= 1 byte, no wrap.
  wire [34:0] f_mul_i = (rows_i == 16'd3) ? {3'b0, stride_i} + {3'b0, stride_i} :
                        (rows_i == 16'd2) ? {3'b0, stride_i} : 35'h0;
  always @(*) begin
    if (start_i) begin
      assume (!busy_q);
      assume (rows_i != 16'd0 && rows_i <= FMaxRows);
      assume (cols_i != 16'd0);
      assume ({3'b0, addr_i} + f_mul_i + {19'h0, cols_i} - 35'd1 < 35'h1_0000_0000);
    end
  end

  // Job region, captured at start: bytes f_start .. f_end.
  reg  [31:0] f_start, f_end;
  always @(posedge clk_i) begin
    if (!busy_q && start_i) begin
      f_start <= addr_i;
      f_end   <= addr_i + f_mul_i[31:0] + {16'h0, cols_i} - 32'd1;
    end
  end
  wire [31:0] f_lo = {f_start[31:OffW], {OffW{1'b0}}};    // first beat of the region
  wire [31:0] f_hi = {f_end[31:OffW], {OffW{1'b0}}};      // last beat of the region

  // Slave model: R beats only for an accepted AR, in order, RLAST on its last beat;
  // RVALID and the beat hold until RREADY.
  wire f_ar_hs = m_axi_arvalid & m_axi_arready;
  wire f_r_hs  = m_axi_rvalid & m_axi_rready;
  wire [OutW:0]   f_ar_out;                               // ARs accepted, RLAST not seen
  reg  [7:0]      f_len [0:FifoDepth-1];
  reg  [PtrW-1:0] f_wp, f_rp;
  reg  [7:0]      f_rbeat;                                // beats of the head burst seen
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_wp <= 0; f_rp <= 0; f_rbeat <= 8'd0;
    end else begin
      if (f_ar_hs) f_wp <= (f_wp == PtrLast) ? {PtrW{1'b0}} : f_wp + 1'b1;
      if (f_r_hs && m_axi_rlast) f_rp <= (f_rp == PtrLast) ? {PtrW{1'b0}} : f_rp + 1'b1;
      if (f_r_hs) f_rbeat <= m_axi_rlast ? 8'd0 : f_rbeat + 8'd1;
    end
  end
  always @(posedge clk_i) if (rst_ni && f_ar_hs) f_len[f_wp] <= m_axi_arlen;
  always @(*) begin
    if (!rst_ni) assume (!m_axi_rvalid);
    if (m_axi_rvalid) begin
      assume (f_ar_out != 0);
      assume (m_axi_rlast == (f_rbeat == f_len[f_rp]));
    end
  end
  always @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni && $past(m_axi_rvalid && !m_axi_rready))
      assume (m_axi_rvalid && m_axi_rlast == $past(m_axi_rlast) &&
              m_axi_rresp == $past(m_axi_rresp) && m_axi_rdata == $past(m_axi_rdata));
  end

  // ---- Assertions ------------------------------------------------------------------------
  // The AXI4 master rules for AR (shared with tsr_dma_wr's AW): INCR bursts of full-width
  // beats, aligned, 1..MaxBurstBeats beats, no 4 KiB crossing, inside the job's region,
  // VALID and payload held until READY, at most MaxOutstanding bursts unanswered.
  tsr_axi_master_props #(
    .AxiDataWidth   (AxiDataWidth),
    .MaxBurstBeats  (MaxBurstBeats),
    .MaxOutstanding (MaxOutstanding)
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

  // ---- Inductive invariants ----------------------------------------------------------------
  wire [15:0] f_done_rows = rows_q - ar_rows_q;           // rows already set up
  wire [31:0] f_row_off   = (f_done_rows == 16'd3) ? stride_q + stride_q + stride_q :
                            (f_done_rows == 16'd2) ? stride_q + stride_q :
                            (f_done_rows == 16'd1) ? stride_q : 32'h0;
  wire [31:0] f_mul_rows  = (rows_q == 16'd3) ? stride_q + stride_q :
                            (rows_q == 16'd2) ? stride_q : 32'h0;
  wire [34:0] f_mul_rows35 = (rows_q == 16'd3) ? {3'b0, stride_q} + {3'b0, stride_q} :
                             (rows_q == 16'd2) ? {3'b0, stride_q} : 35'h0;
  // Descriptors queued (bursts presented or in flight) that end a row.
  wire [FifoDepth-1:0] f_qlast;
  reg  [7:0]           f_nlast;
  integer              f_i;
  always @(*) begin
    f_nlast = 8'd0;
    for (f_i = 0; f_i < FifoDepth; f_i = f_i + 1) f_nlast = f_nlast + {7'b0, f_qlast[f_i]};
  end
  wire [PtrW-1:0] f_young = (wptr_q == {PtrW{1'b0}}) ? PtrLast : wptr_q - 1'b1;
  wire [DescW-1:0] f_ydesc = fifo_q[f_young];                // newest descriptor
  genvar fj;
  generate
    for (fj = 0; fj < FifoDepth; fj = fj + 1) begin : gen_f_desc
      wire [PtrW-1:0] f_dist = fj - rptr_q;                // slot's place in the queue
      assign f_qlast[fj] = ({1'b0, f_dist} < cnt_q) & fifo_q[fj][2*OffW];
    end
  endgenerate
  // Rows not yet completely written, while no error/abort: rows not set up, the row whose
  // bursts are being issued, row-ending bursts queued, a captured row-ending beat, a row
  // end being flushed from the staging buffer.
  integer fk;
  wire [15:0] f_pending = ar_rows_q + {15'h0, row_v_q} + {8'h0, f_nlast} +
                          {15'h0, beat_v_q & beat_end_q} + {15'h0, tail_q};
  always @(*) begin
    if (rst_ni) begin
      assert (cnt_q == f_ar_out + arvalid_q);
      assert (cnt_q <= OutMax);
      assert ((wptr_q - rptr_q) == cnt_q[PtrW-1:0]);
      assert (f_rp == rptr_q);
      // Idle: no burst outstanding.
      if (!busy_q) assert (cnt_q == {OutW{1'b0}});
      // Bursts are issued row by row: unless a row is still being issued, the newest
      // queued burst ends its row.
      if (busy_q && cnt_q != {OutW{1'b0}} && !row_v_q) assert (f_ydesc[2*OffW]);
      // The staging buffer: zero from byte fill_q up unless stopped (a stop
      // clears it), and empty when idle (a start does not clear it); a
      // captured beat is zero from its count up.
      if (!busy_q) assert (fill_q == {FillW{1'b0}} && stage_q == {(8*StageBytes){1'b0}});
      if (stop_q) assert (fill_q == {FillW{1'b0}} && !beat_v_q && !tail_q);
      for (fk = 0; fk < StageBytes; fk = fk + 1)
        if (!stop_q && fk >= fill_q) assert (stage_q[8*fk +: 8] == 8'h00);
      if (beat_v_q)
        for (fk = 0; fk < BeatBytes; fk = fk + 1)
          if (fk >= beat_n_q) assert (beat_data_q[8*fk +: 8] == 8'h00);
      if (busy_q && !stop_q) begin
        assert (out_rows_q == f_pending);
      end
      if (!busy_q) assert (!arvalid_q);
      if (busy_q) begin
        assert (rows_q != 16'd0 && rows_q <= FMaxRows);
        assert (ar_rows_q <= rows_q);
        // The whole region does not wrap (start_i's assumption, kept while busy).
        assert ({3'b0, f_start} + f_mul_rows35 + {19'h0, cols_m1_q} < 35'h1_0000_0000);
        assert (f_end == f_start + f_mul_rows + {16'h0, cols_m1_q});
        assert (row_addr_q == f_start + f_row_off);
        if (ar_rows_q != 16'd0)
          assert ({1'b0, f_start} + {1'b0, f_row_off} + {17'h0, cols_m1_q} <= {1'b0, f_end});
        if (row_v_q)
          assert (cur_q[OffW-1:0] == {OffW{1'b0}} && last_q[OffW-1:0] == {OffW{1'b0}} &&
                  f_lo <= cur_q && cur_q <= last_q && last_q <= f_hi);
      end
    end
  end
`endif
endmodule

`default_nettype wire
