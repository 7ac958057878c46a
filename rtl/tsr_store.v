// tsr_store: the STORE command's local side: read parameters and accumulator rows, run the output stage.
`default_nettype none

// start_i latches a STORE. The unit first reads the parameter rows (bias at
// PARAM, per-channel multipliers at PARAM+1, shifts at PARAM+2, and with
// LEAKY the negative-side multipliers and shifts at PARAM+3 and PARAM+4),
// checks every per-channel shift the store uses (-31..30), and then either
// pulses param_err_o and stops, or pulses dma_start_o (the writer may start)
// and streams ROWS accumulator rows through StoreLanes tsr_requant lanes.
// While the writer still finishes the STORE before (wr_busy_i: its last write
// responses), dma_start_o waits for it; the rows meanwhile fill the lanes and
// wait at the output, so the STORE's first row is there when its writer starts.
// With StoreLanes = N each row takes one cycle. With fewer lanes (a power of
// two dividing N) the unit reads each row N / StoreLanes times and passes one
// chunk of StoreLanes columns per read; the chunks are collected into the
// output row (small FPGAs: at N = 16 the 16 lanes were a fifth of the chip's
// logic without the SFU, docs/fpga.md).
//
// Output stream contract: row_valid_o / row_ready_i, a row moves when both are
// high; valid and data hold until ready. Backpressure stalls the whole
// pipeline (reads stop, lanes hold). The store is finished (busy_o low) when
// the last row has been taken.
//
// With spad_i (the SPAD flag) the rows come from the scratchpad instead: the
// top level routes this unit's reads there, and the bytes pass the lanes
// unchanged (raw mode, zero-extended) and are packed back to bytes.
module tsr_store #(
  parameter integer ArrayDim = 8,
  parameter integer AccRows  = 1024,
  parameter integer SpadRows = 4096,
  parameter integer StoreLanes = ArrayDim,   // requantization lanes: N, or a power of two below
  localparam integer N = ArrayDim,
  localparam integer L = StoreLanes,
  localparam integer Chunks = ArrayDim / StoreLanes,   // reads (cycles) per row
  localparam integer ChunkW = (Chunks > 1) ? $clog2(Chunks) : 1,
  localparam integer SpadAw = $clog2(SpadRows),
  localparam integer AccAw = $clog2(AccRows),
  localparam integer LutAw = $clog2(256 / ArrayDim)
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  input  wire             clr_i,
  input  wire             start_i,
  input  wire             bias_en_i,
  input  wire             requant_i,
  input  wire             per_channel_i,
  input  wire [23:0]      src_i,
  input  wire [23:0]      param_i,
  input  wire [15:0]      rows_i,
  input  wire [15:0]      cols_i,
  input  wire [31:0]      mult_i,
  input  wire [7:0]       shift_i,      // already checked to be -31..30
  input  wire [7:0]       zp_i,
  input  wire [7:0]       act_min_i,
  input  wire [7:0]       act_max_i,
  input  wire             spad_i,
  input  wire             leaky_i,
  input  wire             lut_en_i,
  input  wire             lut_we_i,     // table writes from the SFU (LUT_LOAD)
  input  wire [LutAw-1:0] lut_waddr_i,
  input  wire [8*N-1:0]   lut_wdata_i,
  output wire             busy_o,
  output wire             param_err_o,  // one-cycle pulse: a per-channel shift is out of range
  output wire             dma_start_o,  // one-cycle pulse: parameters are good, rows follow
  output wire             acc_re_o,
  output wire [AccAw-1:0] acc_raddr_o,
  output wire [SpadAw-1:0] spad_raddr_o,   // the same read, for SPAD mode
  input  wire [32*N-1:0]  acc_rdata_i,
  input  wire [8*N-1:0]   spad_rdata_i,
  output wire             row_valid_o,
  input  wire             row_ready_i,
  input  wire             wr_busy_i,    // the writer still runs the STORE before
  output wire [32*N-1:0]  row_data_o
);
  localparam [31:0] LastChunk32 = Chunks - 1;
  localparam [ChunkW-1:0] LastChunk = LastChunk32[ChunkW-1:0];
  localparam [2:0] StIdle = 3'd0, StParam = 3'd1, StCheck = 3'd2, StStream = 3'd3,
                   StFail = 3'd4;

  reg [2:0]   state_q, state_d;
  reg [2:0]   pcnt_q, pcnt_d;        // parameter row being read
  reg [15:0]  issued_q, issued_d;    // rows read so far
  reg [ChunkW-1:0] chunk_q, chunk_d; // chunk of the row read next
  reg [ChunkW-1:0] rd_chunk_q, rd_chunk_d;   // chunk of the row read last cycle
  reg [15:0]  taken_q, taken_d;      // rows handed to the writer
  // The STORE's settings (the command's fields), held while it runs.
  reg         bias_en_q, requant_q, per_ch_q, spad_q, leaky_q, lut_en_q;
  reg [23:0]  src_q, param_q;
  reg [15:0]  rows_q, cols_q;
  reg [31:0]  mult_q;
  reg [5:0]   shift_q;
  reg [7:0]   zp_q, min_q, max_q;
  reg [N-1:0] col_on_q;              // channel c < COLS: its shifts are checked
  reg         rd_v_q, rd_v_d;        // acc_rdata_i holds a row read last cycle
  reg [32*N-1:0] bias_row_q, mult_row_q, mneg_row_q;
  reg [6*N-1:0]  shift_row_q, sneg_row_q;   // bits 5:0 of each shift (checked to be -31..30)

  reg             acc_re;
  reg [23:0]      acc_raddr;
  reg             param_err, dma_start;
  reg             dma_wait_q, dma_wait_d;   // checked, streaming, the writer not started yet
  reg             cap_bias, cap_mult, cap_shift, cap_mneg, cap_sneg;

  wire            out_valid;
  wire            take = out_valid && row_ready_i && !dma_wait_q;   // a row leaves
  wire            adv = !out_valid || take;

  // A per-channel shift is usable when it is in -31..30 as an int32. Each
  // shift row is judged as it is captured (shift_bad_q, sneg_bad_q: one bit
  // per channel), and the channels in use are marked while the parameters
  // are read (col_on_q), so StCheck only masks and ORs registered bits
  // (timing).
  function automatic [N-1:0] shifts_bad(input [32*N-1:0] row);
    integer c;
    begin
      for (c = 0; c < N; c = c + 1) begin
        shifts_bad[c] = ($signed(row[32*c +: 32]) < -32'sd31) ||
                        ($signed(row[32*c +: 32]) > 32'sd30);
      end
    end
  endfunction
  // Bits 5:0 of each channel's shift: all a lane needs once the range is checked.
  function automatic [6*N-1:0] shifts_low(input [32*N-1:0] row);
    integer c;
    begin
      for (c = 0; c < N; c = c + 1) begin
        shifts_low[6*c +: 6] = row[32*c +: 6];
      end
    end
  endfunction
  reg [N-1:0] shift_bad_q, sneg_bad_q;
  reg         shifts_ok;
  integer j;
  always @(*) begin
    shifts_ok = 1'b1;
    // Only StCheck reads it (the guard also spares the model the loop).
    if (state_q == StCheck) begin
      for (j = 0; j < N; j = j + 1) begin
        if (col_on_q[j] && ((per_ch_q && shift_bad_q[j]) || (leaky_q && sneg_bad_q[j]))) begin
          shifts_ok = 1'b0;
        end
      end
    end
  end
  wire [2:0] last_prow = leaky_q ? 3'd5 : 3'd3;

  always @(*) begin
    state_d   = state_q;
    pcnt_d    = pcnt_q;
    issued_d  = issued_q;
    chunk_d   = chunk_q;
    rd_chunk_d = rd_chunk_q;
    taken_d   = taken_q;
    rd_v_d    = rd_v_q;
    acc_re    = 1'b0;
    acc_raddr = 24'h0;
    param_err = 1'b0;
    dma_start = 1'b0;
    dma_wait_d = dma_wait_q;
    cap_bias  = 1'b0;
    cap_mult  = 1'b0;
    cap_shift = 1'b0;
    cap_mneg  = 1'b0;
    cap_sneg  = 1'b0;
    case (state_q)
      StIdle: begin   // the settings registers copy the command meanwhile
        pcnt_d   = 3'd0;
        issued_d = 16'h0;
        chunk_d  = {ChunkW{1'b0}};
        taken_d  = 16'h0;
        if (start_i) begin
          state_d = StParam;
        end
      end
      StParam: begin
        // Read PARAM.. on cycles 0..last-1; capture one cycle later.
        acc_re    = (pcnt_q != last_prow);
        acc_raddr = param_q + {21'h0, pcnt_q};
        cap_bias  = (pcnt_q == 3'd1);
        cap_mult  = (pcnt_q == 3'd2);
        cap_shift = (pcnt_q == 3'd3);
        cap_mneg  = (pcnt_q == 3'd4);
        cap_sneg  = (pcnt_q == 3'd5);
        pcnt_d    = pcnt_q + 3'd1;
        if (pcnt_q == last_prow) begin
          state_d = StCheck;
        end
      end
      StCheck: begin
        if (requant_q && !shifts_ok) begin
          state_d   = StFail;
        end else begin
          dma_start  = !wr_busy_i;
          dma_wait_d = wr_busy_i;
          rd_v_d     = 1'b0;
          state_d    = StStream;
        end
      end
      StStream: begin
        if (dma_wait_q && !wr_busy_i) begin
          dma_start  = 1'b1;
          dma_wait_d = 1'b0;
        end
        if (adv) begin
          rd_v_d = 1'b0;
          if (issued_q != rows_q) begin
            acc_re     = 1'b1;
            acc_raddr  = src_q + {8'h0, issued_q};
            rd_v_d     = 1'b1;
            rd_chunk_d = chunk_q;
            if (chunk_q == LastChunk) begin
              chunk_d  = {ChunkW{1'b0}};
              issued_d = issued_q + 16'h1;
            end else begin
              chunk_d  = chunk_q + {{(ChunkW-1){1'b0}}, 1'b1};
            end
          end
        end
        if (take) begin
          taken_d = taken_q + 16'h1;
          if (taken_q + 16'h1 == rows_q) begin
            state_d = StIdle;
          end
        end
      end
      StFail: begin   // reported from a register (timing); the unit is still busy
        param_err = 1'b1;
        state_d   = StIdle;
      end
      default: state_d = StIdle;
    endcase
    if (clr_i) begin
      state_d    = StIdle;
      rd_v_d     = 1'b0;
      dma_wait_d = 1'b0;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= StIdle;
      pcnt_q    <= 3'd0;
      issued_q  <= 16'h0;
      chunk_q   <= {ChunkW{1'b0}};
      rd_chunk_q <= {ChunkW{1'b0}};
      taken_q   <= 16'h0;
      rd_v_q    <= 1'b0;
      dma_wait_q <= 1'b0;
    end else begin
      state_q   <= state_d;
      pcnt_q    <= pcnt_d;
      issued_q  <= issued_d;
      chunk_q   <= chunk_d;
      rd_chunk_q <= rd_chunk_d;
      taken_q   <= taken_d;
      rd_v_q    <= rd_v_d;
      dma_wait_q <= dma_wait_d;
    end
  end

  // The settings copy the command's fields in every idle cycle, so the copy
  // of the start cycle is the one that stays. Their enable is the idle
  // state alone: it does not wait for the controller's start decision
  // (FPGA timing: that enable fans out to every settings bit).
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bias_en_q <= 1'b0;
      requant_q <= 1'b0;
      per_ch_q  <= 1'b0;
      spad_q    <= 1'b0;
      leaky_q   <= 1'b0;
      lut_en_q  <= 1'b0;
      src_q     <= 24'h0;
      param_q   <= 24'h0;
      rows_q    <= 16'h0;
      cols_q    <= 16'h0;
      mult_q    <= 32'h0;
      shift_q   <= 6'h0;
      zp_q      <= 8'h0;
      min_q     <= 8'h0;
      max_q     <= 8'h0;
    end else if (state_q == StIdle) begin
      bias_en_q <= bias_en_i;
      requant_q <= requant_i;
      per_ch_q  <= per_channel_i;
      spad_q    <= spad_i;
      leaky_q   <= leaky_i;
      lut_en_q  <= lut_en_i;
      src_q     <= src_i;
      param_q   <= param_i;
      rows_q    <= rows_i;
      cols_q    <= cols_i;
      mult_q    <= mult_i;
      shift_q   <= shift_i[5:0];
      zp_q      <= zp_i;
      min_q     <= act_min_i;
      max_q     <= act_max_i;
    end
  end

  // Parameter rows: datapath registers, only used after StParam filled them.
  integer m;
  always @(posedge clk_i) begin
    if (state_q == StParam && pcnt_q == 3'd0) begin
      for (m = 0; m < N; m = m + 1) begin
        col_on_q[m] <= (m < cols_q);
      end
    end
    if (cap_bias) begin
      bias_row_q <= acc_rdata_i;
    end
    if (cap_mult) begin
      mult_row_q <= acc_rdata_i;
    end
    if (cap_shift) begin
      shift_row_q <= shifts_low(acc_rdata_i);
      shift_bad_q <= shifts_bad(acc_rdata_i);
    end
    if (cap_mneg) begin
      mneg_row_q <= acc_rdata_i;
    end
    if (cap_sneg) begin
      sneg_row_q <= shifts_low(acc_rdata_i);
      sneg_bad_q <= shifts_bad(acc_rdata_i);
    end
  end

  // The lanes run in lockstep: one valid bit per stage for all of them (and,
  // with Chunks > 1, the chunk each stage holds). A stage takes a chunk when
  // it is valid and the pipeline advances. Stage 0 is the chunk as read, in
  // in0_q: a block RAM's output goes straight to flip-flops (FPGA timing);
  // stages 1..Stages are tsr_requant's.
  localparam integer Stages = 9;   // tsr_requant's pipeline depth
  localparam integer Depth = Stages + 1;
  reg  [Depth-1:0] lv_q;
  wire             lane_in_v = rd_v_q && (state_q == StStream);
  wire [Depth-1:0] lane_load = adv ? {lv_q[Depth-2:0], lane_in_v} : {Depth{1'b0}};
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lv_q <= {Depth{1'b0}};
    end else if (clr_i) begin
      lv_q <= {Depth{1'b0}};
    end else if (adv) begin
      lv_q <= {lv_q[Depth-2:0], lane_in_v};
    end
  end

  // Stage 0 takes columns rd_chunk_q * L .. + L-1 of the row read last
  // cycle: accumulator values, or scratchpad bytes zero-extended.
  reg [32*L-1:0]   lane_in, in0_q;
  reg [ChunkW-1:0] in0_chunk_q;
  integer c, k;
  always @(*) begin
    lane_in = {(32*L){1'b0}};   // only read with a row (rd_v_q); zero spares the model a copy
    if (rd_v_q) begin
      for (c = 0; c < Chunks; c = c + 1) begin
        if (rd_chunk_q == c[ChunkW-1:0]) begin
          for (k = 0; k < L; k = k + 1) begin
            lane_in[32*k +: 32] = spad_q ? {24'h0, spad_rdata_i[8*(c*L+k) +: 8]}
                                         : acc_rdata_i[32*(c*L+k) +: 32];
          end
        end
      end
    end
  end
  always @(posedge clk_i) begin
    if (lane_load[0]) begin
      in0_q       <= lane_in;
      in0_chunk_q <= rd_chunk_q;
    end
  end

  // Lane g takes stage 0's column g with that column's parameters.
  reg [32*L-1:0] lane_bias, lane_mult, lane_mneg;
  reg [6*L-1:0]  lane_shift, lane_sneg;
  integer pc, pk;
  always @(*) begin
    lane_bias  = {(32*L){1'b0}};   // only read with a chunk in stage 0 (lv_q[0])
    lane_mult  = {(32*L){1'b0}};
    lane_mneg  = {(32*L){1'b0}};
    lane_shift = {(6*L){1'b0}};
    lane_sneg  = {(6*L){1'b0}};
    if (lv_q[0]) begin
      for (pc = 0; pc < Chunks; pc = pc + 1) begin
        if (in0_chunk_q == pc[ChunkW-1:0]) begin
          for (pk = 0; pk < L; pk = pk + 1) begin
            lane_bias[32*pk +: 32]  = bias_row_q[32*(pc*L+pk) +: 32];
            lane_mult[32*pk +: 32]  = per_ch_q ? mult_row_q[32*(pc*L+pk) +: 32] : mult_q;
            lane_shift[6*pk +: 6]   = per_ch_q ? shift_row_q[6*(pc*L+pk) +: 6] : shift_q;
            lane_mneg[32*pk +: 32]  = mneg_row_q[32*(pc*L+pk) +: 32];
            lane_sneg[6*pk +: 6]    = sneg_row_q[6*(pc*L+pk) +: 6];
          end
        end
      end
    end
  end

  wire [32*L-1:0] lane_out;
  genvar g;
  generate
    for (g = 0; g < L; g = g + 1) begin : gen_lane
      tsr_requant #(.ArrayDim(N)) u_requant (
        .clk_i     (clk_i),
        .rst_ni    (rst_ni),
        .clr_i     (clr_i),
        .load_i    (lane_load[Depth-1:1]),
        .acc_i     (in0_q[32*g +: 32]),
        .bias_en_i (bias_en_q),
        .bias_i    (lane_bias[32*g +: 32]),
        .requant_i (requant_q),
        .mult_i    (lane_mult[32*g +: 32]),
        .shift_i   (lane_shift[6*g +: 6]),
        .zp_i      (zp_q),
        .act_min_i (min_q),
        .act_max_i (max_q),
        .leaky_i     (leaky_q),
        .mult_neg_i  (lane_mneg[32*g +: 32]),
        .shift_neg_i (lane_sneg[6*g +: 6]),
        .lut_en_i    (lut_en_q),
        .lut_we_i    (lut_we_i),
        .lut_waddr_i (lut_waddr_i),
        .lut_wdata_i (lut_wdata_i),
        .out_o     (lane_out[32*g +: 32])
      );
    end
  endgenerate

  // The row leaves with its last chunk; the chunks before it wait in
  // early_q, each in its columns' place.
  wire            fin_v = lv_q[Depth-1];
  wire            fin_last;   // the last stage holds a row's last chunk
  wire [32*N-1:0] lane_row;
  generate
    if (Chunks > 1) begin : gen_collect
      reg [ChunkW-1:0] lchunk_q [0:Stages-1];
      integer s;
      always @(posedge clk_i) begin
        if (adv) begin
          lchunk_q[0] <= in0_chunk_q;
          for (s = 1; s < Stages; s = s + 1) begin
            lchunk_q[s] <= lchunk_q[s-1];
          end
        end
      end
      assign fin_last = (lchunk_q[Stages-1] == LastChunk);

      reg [32*(N-L)-1:0] early_q;
      integer e;
      always @(posedge clk_i) begin
        if (fin_v && !fin_last) begin   // adv is high: no row is waiting
          for (e = 0; e < Chunks - 1; e = e + 1) begin
            if (lchunk_q[Stages-1] == e[ChunkW-1:0]) begin
              early_q[32*L*e +: 32*L] <= lane_out;
            end
          end
        end
      end
      assign lane_row = {lane_out, early_q};
    end else begin : gen_direct   // every chunk is a whole row
      assign fin_last = 1'b1;
      assign lane_row = lane_out;
    end
  endgenerate

  // int8 results pack one byte per column; raw int32 results four.
  reg [32*N-1:0] packed_row;
  integer b;
  always @(*) begin
    packed_row = {(32*N){1'b0}};   // only read with out_valid
    if (out_valid && (requant_q || spad_q)) begin
      for (b = 0; b < N; b = b + 1) begin
        packed_row[8*b +: 8] = lane_row[32*b +: 8];
      end
    end else if (out_valid) begin
      packed_row = lane_row;
    end
  end

  assign out_valid   = fin_v && fin_last;
  assign busy_o      = (state_q != StIdle);
  assign param_err_o = param_err;
  assign dma_start_o = dma_start;
  assign acc_re_o    = acc_re;
  assign acc_raddr_o = acc_raddr[AccAw-1:0];
  assign spad_raddr_o = acc_raddr[SpadAw-1:0];
  assign row_valid_o = out_valid && (state_q == StStream) && !dma_wait_q;
  assign row_data_o  = packed_row;

  // Lanes 1.. run in lockstep with lane 0; the upper address bits were range-checked.
  /* verilator tracing_off */  // an unused signal the model need not compute
  wire unused_bits = ^{acc_raddr[23:AccAw], acc_raddr[23:SpadAw], shift_i[7:6]};
  /* verilator tracing_on */
endmodule

`default_nettype wire
