// tsr_store: the STORE command's local side: read parameters and accumulator rows, run the output stage.
`default_nettype none

// start_i latches a STORE. The unit first reads the three parameter rows
// (bias at PARAM, per-channel multipliers at PARAM+1, shifts at PARAM+2),
// checks every per-channel shift the store uses (-31..30), and then either
// pulses param_err_o and stops, or pulses dma_start_o (the writer may start)
// and streams ROWS accumulator rows through N tsr_requant lanes.
//
// Output stream contract: row_valid_o / row_ready_i, a row moves when both are
// high; valid and data hold until ready. Backpressure stalls the whole
// pipeline (reads stop, lanes hold). The store is finished (busy_o low) when
// the last row has been taken.
module tsr_store #(
  parameter integer ArrayDim = 8,
  parameter integer AccRows  = 1024,
  localparam integer N = ArrayDim,
  localparam integer AccAw = $clog2(AccRows)
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
  output wire             busy_o,
  output wire             param_err_o,  // one-cycle pulse: a per-channel shift is out of range
  output wire             dma_start_o,  // one-cycle pulse: parameters are good, rows follow
  output wire             acc_re_o,
  output wire [AccAw-1:0] acc_raddr_o,
  input  wire [32*N-1:0]  acc_rdata_i,
  output wire             row_valid_o,
  input  wire             row_ready_i,
  output wire [32*N-1:0]  row_data_o
);
  localparam [2:0] StIdle = 3'd0, StParam = 3'd1, StCheck = 3'd2, StStream = 3'd3;

  reg [2:0]   state_q, state_d;
  reg [1:0]   pcnt_q, pcnt_d;        // parameter row being read
  reg [15:0]  issued_q, issued_d;    // rows read so far
  reg [15:0]  taken_q, taken_d;      // rows handed to the writer
  reg         bias_en_q, bias_en_d;
  reg         requant_q, requant_d;
  reg         per_ch_q, per_ch_d;
  reg [23:0]  src_q, src_d;
  reg [23:0]  param_q, param_d;
  reg [15:0]  rows_q, rows_d;
  reg [15:0]  cols_q, cols_d;
  reg [31:0]  mult_q, mult_d;
  reg [5:0]   shift_q, shift_d;
  reg [7:0]   zp_q, zp_d;
  reg [7:0]   min_q, min_d;
  reg [7:0]   max_q, max_d;
  reg         rd_v_q, rd_v_d;        // acc_rdata_i holds a row read last cycle
  reg [32*N-1:0] bias_row_q, mult_row_q, shift_row_q;

  reg             acc_re;
  reg [23:0]      acc_raddr;
  reg             param_err, dma_start;
  reg             cap_bias, cap_mult, cap_shift;

  wire            out_valid;
  wire            adv = !out_valid || row_ready_i;

  // A per-channel shift is usable when it is in -31..30 as an int32.
  reg shifts_ok;
  integer j;
  always @(*) begin
    shifts_ok = 1'b1;
    for (j = 0; j < N; j = j + 1) begin
      if ((j < cols_q) &&
          ($signed(shift_row_q[32*j +: 32]) < -32'sd31 || $signed(shift_row_q[32*j +: 32]) > 32'sd30)) begin
        shifts_ok = 1'b0;
      end
    end
  end

  always @(*) begin
    state_d   = state_q;
    pcnt_d    = pcnt_q;
    issued_d  = issued_q;
    taken_d   = taken_q;
    bias_en_d = bias_en_q;
    requant_d = requant_q;
    per_ch_d  = per_ch_q;
    src_d     = src_q;
    param_d   = param_q;
    rows_d    = rows_q;
    cols_d    = cols_q;
    mult_d    = mult_q;
    shift_d   = shift_q;
    zp_d      = zp_q;
    min_d     = min_q;
    max_d     = max_q;
    rd_v_d    = rd_v_q;
    acc_re    = 1'b0;
    acc_raddr = 24'h0;
    param_err = 1'b0;
    dma_start = 1'b0;
    cap_bias  = 1'b0;
    cap_mult  = 1'b0;
    cap_shift = 1'b0;
    case (state_q)
      StIdle: begin
        if (start_i) begin
          bias_en_d = bias_en_i;
          requant_d = requant_i;
          per_ch_d  = per_channel_i;
          src_d     = src_i;
          param_d   = param_i;
          rows_d    = rows_i;
          cols_d    = cols_i;
          mult_d    = mult_i;
          shift_d   = shift_i[5:0];
          zp_d      = zp_i;
          min_d     = act_min_i;
          max_d     = act_max_i;
          pcnt_d    = 2'd0;
          issued_d  = 16'h0;
          taken_d   = 16'h0;
          state_d   = StParam;
        end
      end
      StParam: begin
        // Read PARAM, PARAM+1, PARAM+2 on cycles 0..2; capture one cycle later.
        acc_re    = (pcnt_q != 2'd3);
        acc_raddr = param_q + {22'h0, pcnt_q};
        cap_bias  = (pcnt_q == 2'd1);
        cap_mult  = (pcnt_q == 2'd2);
        cap_shift = (pcnt_q == 2'd3);
        pcnt_d    = pcnt_q + 2'd1;
        if (pcnt_q == 2'd3) begin
          state_d = StCheck;
        end
      end
      StCheck: begin
        if (requant_q && per_ch_q && !shifts_ok) begin
          param_err = 1'b1;
          state_d   = StIdle;
        end else begin
          dma_start = 1'b1;
          rd_v_d    = 1'b0;
          state_d   = StStream;
        end
      end
      StStream: begin
        if (adv) begin
          rd_v_d = 1'b0;
          if (issued_q != rows_q) begin
            acc_re    = 1'b1;
            acc_raddr = src_q + {8'h0, issued_q};
            rd_v_d    = 1'b1;
            issued_d  = issued_q + 16'h1;
          end
        end
        if (out_valid && row_ready_i) begin
          taken_d = taken_q + 16'h1;
          if (taken_q + 16'h1 == rows_q) begin
            state_d = StIdle;
          end
        end
      end
      default: state_d = StIdle;
    endcase
    if (clr_i) begin
      state_d = StIdle;
      rd_v_d  = 1'b0;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= StIdle;
      pcnt_q    <= 2'd0;
      issued_q  <= 16'h0;
      taken_q   <= 16'h0;
      bias_en_q <= 1'b0;
      requant_q <= 1'b0;
      per_ch_q  <= 1'b0;
      src_q     <= 24'h0;
      param_q   <= 24'h0;
      rows_q    <= 16'h0;
      cols_q    <= 16'h0;
      mult_q    <= 32'h0;
      shift_q   <= 6'h0;
      zp_q      <= 8'h0;
      min_q     <= 8'h0;
      max_q     <= 8'h0;
      rd_v_q    <= 1'b0;
    end else begin
      state_q   <= state_d;
      pcnt_q    <= pcnt_d;
      issued_q  <= issued_d;
      taken_q   <= taken_d;
      bias_en_q <= bias_en_d;
      requant_q <= requant_d;
      per_ch_q  <= per_ch_d;
      src_q     <= src_d;
      param_q   <= param_d;
      rows_q    <= rows_d;
      cols_q    <= cols_d;
      mult_q    <= mult_d;
      shift_q   <= shift_d;
      zp_q      <= zp_d;
      min_q     <= min_d;
      max_q     <= max_d;
      rd_v_q    <= rd_v_d;
    end
  end

  // Parameter rows: datapath registers, only used after StParam filled them.
  always @(posedge clk_i) begin
    if (cap_bias) begin
      bias_row_q <= acc_rdata_i;
    end
    if (cap_mult) begin
      mult_row_q <= acc_rdata_i;
    end
    if (cap_shift) begin
      shift_row_q <= acc_rdata_i;
    end
  end

  wire [N-1:0]    lane_valid;
  wire [32*N-1:0] lane_out;
  genvar g;
  generate
    for (g = 0; g < N; g = g + 1) begin : gen_lane
      tsr_requant u_requant (
        .clk_i     (clk_i),
        .rst_ni    (rst_ni),
        .clr_i     (clr_i),
        .en_i      (adv),
        .valid_i   (rd_v_q && (state_q == StStream)),
        .acc_i     (acc_rdata_i[32*g +: 32]),
        .bias_en_i (bias_en_q),
        .bias_i    (bias_row_q[32*g +: 32]),
        .requant_i (requant_q),
        .mult_i    (per_ch_q ? mult_row_q[32*g +: 32] : mult_q),
        .shift_i   (per_ch_q ? shift_row_q[32*g +: 6] : shift_q),
        .zp_i      (zp_q),
        .act_min_i (min_q),
        .act_max_i (max_q),
        .valid_o   (lane_valid[g]),
        .out_o     (lane_out[32*g +: 32])
      );
    end
  endgenerate

  // int8 results pack one byte per column; raw int32 results four.
  reg [32*N-1:0] packed_row;
  integer b;
  always @(*) begin
    packed_row = {(32*N){1'b0}};
    if (requant_q) begin
      for (b = 0; b < N; b = b + 1) begin
        packed_row[8*b +: 8] = lane_out[32*b +: 8];
      end
    end else begin
      packed_row = lane_out;
    end
  end

  assign out_valid   = lane_valid[0];
  assign busy_o      = (state_q != StIdle);
  assign param_err_o = param_err;
  assign dma_start_o = dma_start;
  assign acc_re_o    = acc_re;
  assign acc_raddr_o = acc_raddr[AccAw-1:0];
  assign row_valid_o = out_valid && (state_q == StStream);
  assign row_data_o  = packed_row;

  // Lanes 1.. run in lockstep with lane 0; the upper address bits were range-checked.
  wire unused_bits = ^{lane_valid[N-1:1], acc_raddr[23:AccAw], shift_i[7:6]};
endmodule

`default_nettype wire
