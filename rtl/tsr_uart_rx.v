// tsr_uart_rx: UART receiver, 8N1, LSB first, one sample per bit in its middle.
`default_nettype none

// ClkPerBit is the baud divisor: clock cycles per bit (clock / baud), >= 4.
// rx_i passes a two-flop synchronizer. A falling edge starts a byte; the
// start bit is sampled again half a bit later (a shorter low pulse is a
// glitch and is ignored), then the 8 data bits and the stop bit one bit time
// apart. A byte with a good stop bit leaves as a one-cycle valid_o pulse
// with data_o (no backpressure: the consumer must take it in that cycle). A
// stop bit read as 0 pulses frame_err_o instead, drops the byte, and the
// receiver waits for the line to go high again before it looks for the
// next start bit (a line held low, a "break", gives one error, not a
// stream of zero bytes).
module tsr_uart_rx #(
  parameter integer ClkPerBit = 868
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       rx_i,
  output wire [7:0] data_o,
  output wire       valid_o,
  output wire       frame_err_o
);
  localparam integer CntW = $clog2(ClkPerBit);
  localparam [31:0]     FullBit32 = ClkPerBit - 1;
  localparam [CntW-1:0] FullBit = FullBit32[CntW-1:0];
  localparam [31:0]     HalfBit32 = ClkPerBit / 2 - 1;
  localparam [CntW-1:0] HalfBit = HalfBit32[CntW-1:0];

  localparam [2:0] StIdle  = 3'd0;
  localparam [2:0] StStart = 3'd1;
  localparam [2:0] StData  = 3'd2;
  localparam [2:0] StStop  = 3'd3;
  localparam [2:0] StBreak = 3'd4;

  reg [1:0]      sync_q;
  reg [2:0]      state_q, state_d;
  reg [CntW-1:0] cnt_q, cnt_d;
  reg [2:0]      bit_q, bit_d;
  reg [7:0]      shift_q, shift_d;
  reg            valid_q, valid_d;
  reg            ferr_q, ferr_d;

  wire rx = sync_q[1];

  always @(*) begin
    state_d = state_q;
    cnt_d   = cnt_q;
    bit_d   = bit_q;
    shift_d = shift_q;
    valid_d = 1'b0;
    ferr_d  = 1'b0;
    case (state_q)
      StIdle: begin
        if (!rx) begin
          state_d = StStart;
          cnt_d   = HalfBit;
        end
      end
      StStart: begin
        if (cnt_q != {CntW{1'b0}}) begin
          cnt_d = cnt_q - 1'b1;
        end else if (!rx) begin
          state_d = StData;
          cnt_d   = FullBit;
          bit_d   = 3'd0;
        end else begin
          state_d = StIdle;
        end
      end
      StData: begin
        if (cnt_q != {CntW{1'b0}}) begin
          cnt_d = cnt_q - 1'b1;
        end else begin
          shift_d = {rx, shift_q[7:1]};
          cnt_d   = FullBit;
          bit_d   = bit_q + 1'b1;
          if (bit_q == 3'd7) begin
            state_d = StStop;
          end
        end
      end
      StStop: begin
        if (cnt_q != {CntW{1'b0}}) begin
          cnt_d = cnt_q - 1'b1;
        end else if (rx) begin
          valid_d = 1'b1;
          state_d = StIdle;
        end else begin
          ferr_d  = 1'b1;
          state_d = StBreak;
        end
      end
      StBreak: begin
        if (rx) begin
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sync_q  <= 2'b11;
      state_q <= StIdle;
      cnt_q   <= {CntW{1'b0}};
      bit_q   <= 3'd0;
      shift_q <= 8'h00;
      valid_q <= 1'b0;
      ferr_q  <= 1'b0;
    end else begin
      sync_q  <= {sync_q[0], rx_i};
      state_q <= state_d;
      cnt_q   <= cnt_d;
      bit_q   <= bit_d;
      shift_q <= shift_d;
      valid_q <= valid_d;
      ferr_q  <= ferr_d;
    end
  end

  assign data_o      = shift_q;
  assign valid_o     = valid_q;
  assign frame_err_o = ferr_q;
endmodule

`default_nettype wire
