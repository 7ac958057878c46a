// tsr_evt_leds: one LED per event line, toggled by each one-cycle pulse so that activity stays visible.
`default_nettype none

// tsr_uart_bridge's evt_o bits are one-cycle pulses, far too short to see on
// an LED. Each pulse flips its LED instead: a steady LED means no events, a
// flickering one means traffic.
module tsr_evt_leds #(
  parameter integer Width = 7
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  input  wire [Width-1:0] evt_i,
  output wire [Width-1:0] led_o
);
  reg [Width-1:0] led_q;
  wire [Width-1:0] led_d = led_q ^ evt_i;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      led_q <= {Width{1'b0}};
    end else begin
      led_q <= led_d;
    end
  end

  assign led_o = led_q;
endmodule
`default_nettype wire
