// tsr_uart_tx: UART transmitter, 8N1, LSB first.
`default_nettype none

// ClkPerBit is the baud divisor: clock cycles per bit (clock / baud), >= 4.
// Byte stream in: a byte moves when valid_i and ready_o are both high. ready_o is high only while the transmitter is idle, so the caller
// holds valid_i and data_i until then (valid never waits on ready). A byte
// takes 10 bit times on the line: start (0), data bits 0..7, stop (1). tx_o
// comes from a flip-flop and is high (idle) during and after reset.
module tsr_uart_tx #(
  parameter integer ClkPerBit = 868
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       valid_i,
  output wire       ready_o,
  input  wire [7:0] data_i,
  output wire       tx_o
);
  localparam integer CntW = $clog2(ClkPerBit);
  localparam [31:0]     FullBit32 = ClkPerBit - 1;
  localparam [CntW-1:0] FullBit = FullBit32[CntW-1:0];

  reg            busy_q, busy_d;
  reg [CntW-1:0] cnt_q, cnt_d;
  reg [3:0]      bits_q, bits_d;    // bits still to send after the current one
  reg [8:0]      shift_q, shift_d;  // data bits 7..0 and the stop bit, LSB next
  reg            tx_q, tx_d;

  always @(*) begin
    busy_d  = busy_q;
    cnt_d   = cnt_q;
    bits_d  = bits_q;
    shift_d = shift_q;
    tx_d    = tx_q;
    if (!busy_q) begin
      if (valid_i) begin
        busy_d  = 1'b1;
        tx_d    = 1'b0;               // start bit
        shift_d = {1'b1, data_i};
        bits_d  = 4'd9;
        cnt_d   = FullBit;
      end
    end else if (cnt_q != {CntW{1'b0}}) begin
      cnt_d = cnt_q - 1'b1;
    end else if (bits_q != 4'd0) begin
      tx_d    = shift_q[0];
      shift_d = {1'b1, shift_q[8:1]};
      bits_d  = bits_q - 1'b1;
      cnt_d   = FullBit;
    end else begin
      busy_d = 1'b0;                  // the stop bit has lasted a full bit time
      tx_d   = 1'b1;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q  <= 1'b0;
      cnt_q   <= {CntW{1'b0}};
      bits_q  <= 4'd0;
      shift_q <= 9'h1ff;
      tx_q    <= 1'b1;
    end else begin
      busy_q  <= busy_d;
      cnt_q   <= cnt_d;
      bits_q  <= bits_d;
      shift_q <= shift_d;
      tx_q    <= tx_d;
    end
  end

  assign ready_o = !busy_q;
  assign tx_o    = tx_q;
endmodule

`default_nettype wire
