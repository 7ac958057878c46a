// tsr_board_arty: Arty A7-100T board top for Vivado users: 100 MHz clock, reset, USB UART, LEDs, tsr_uart_top.
`default_nettype none

// Pins: constraints/arty_a7.xdc (names as in Digilent's Arty-A7-100-Master.xdc).
//   CLK100MHZ     100 MHz oscillator, used as it is (Vivado puts it on a BUFG;
//                 the clock period is in the .xdc)
//   ck_rst        RESET button (low when pressed): holds the chip in reset
//   uart_txd_in   FT2232 transmit = our receive; uart_rxd_out our transmit
//   led[0]        tsr_top's interrupt; led[3:1] toggle on the bridge's events
//                 "good frame", "bad CRC" and "frame abandoned" (evt_o[2:0])
// No open place-and-route exists for the 7 series, so this top is linted and
// synthesized here (make board-check) but never placed, routed or run.
module tsr_board_arty #(
  parameter integer ArrayDim     = 8,
  parameter integer SpadRows     = 4096,
  parameter integer AccRows      = 1024,
  parameter integer AxiDataWidth = 64,
  parameter integer CmdQDepth    = 16,
  parameter integer EnableSfu    = 1,     // 0: no SFU (CONFIG.SFU = 0)
  parameter integer StoreLanes   = ArrayDim,   // output-stage lanes (tsr_top)
  parameter integer MemBytes     = 65536    // on-chip memory behind the DMA
) (
  input  wire       CLK100MHZ,
  input  wire       ck_rst,
  input  wire       uart_txd_in,
  output wire       uart_rxd_out,
  output wire [3:0] led
);
  localparam integer ClkHz = 100000000;
  localparam integer Baud  = 115200;

  wire       rst_n;
  wire [6:0] evt;

  tsr_rst_sync u_rst (
    .clk_i  (CLK100MHZ),
    .rst_ni (ck_rst),
    .rst_no (rst_n)
  );

  tsr_uart_top #(
    .ArrayDim     (ArrayDim),
    .SpadRows     (SpadRows),
    .AccRows      (AccRows),
    .AxiDataWidth (AxiDataWidth),
    .CmdQDepth    (CmdQDepth),
    .EnableSfu    (EnableSfu),
    .StoreLanes   (StoreLanes),
    .MemBytes     (MemBytes),
    .ClkPerBit    ((ClkHz + Baud / 2) / Baud)
  ) u_chip (
    .clk_i     (CLK100MHZ),
    .rst_ni    (rst_n),
    .uart_rx_i (uart_txd_in),
    .uart_tx_o (uart_rxd_out),
    .irq_o     (led[0]),
    .evt_o     (evt)
  );

  tsr_evt_leds #(
    .Width (3)
  ) u_leds (
    .clk_i  (CLK100MHZ),
    .rst_ni (rst_n),
    .evt_i  (evt[2:0]),
    .led_o  (led[3:1])
  );

  // evt_o[6:3] have no LED on this board.
  wire unused_evt = ^evt[6:3];
endmodule
`default_nettype wire
