// tsr_board_icebreaker: iCEBreaker (iCE40UP5K) board top: 12 MHz -> 24 MHz PLL, reset, FTDI UART, LEDs, tsr_uart_top.
`default_nettype none

// Pins: constraints/icebreaker.pcf (names as in the board's icebreaker.pcf).
//   CLK      12 MHz oscillator; SB_PLL40_PAD makes the 24 MHz core clock
//   BTN_N    user button (low when pressed): holds the chip in reset
//   RX, TX   FTDI channel B UART: RX is our receive, TX our transmit
//   LEDR_N   red LED (active low): tsr_top's interrupt
//   LEDG_N   green LED (active low): toggles on each good frame (evt_o[0])
// The UP5K's sizes: N = 4, 512 scratchpad and 256 accumulator rows, a 32-bit
// DMA bus, 4 queue entries and 8 KiB of on-chip memory for the DMA. This
// configuration does not fit the UP5K yet (docs/fpga.md, "iCE40UP5K").
module tsr_board_icebreaker #(
  parameter integer ArrayDim     = 4,
  parameter integer SpadRows     = 512,
  parameter integer AccRows      = 256,
  parameter integer AxiDataWidth = 32,
  parameter integer CmdQDepth    = 4,
  parameter integer EnableSfu    = 1,     // 0: no SFU (CONFIG.SFU = 0)
  parameter integer StoreLanes   = ArrayDim,   // output-stage lanes (tsr_top)
  parameter integer MemBytes     = 8192    // on-chip memory behind the DMA
) (
  input  wire CLK,
  input  wire BTN_N,
  input  wire RX,
  output wire TX,
  output wire LEDR_N,
  output wire LEDG_N
);
  localparam integer ClkHz = 24000000;
  localparam integer Baud  = 115200;

  wire       clk;
  wire       locked;
  wire       rst_n;
  wire       irq;
  wire [6:0] evt;
  wire       pll_core, pll_sdo;   // the PLL's fabric output and its config shift-out: unused

  // 12 MHz x 64 / 32 = 24 MHz (VCO 768 MHz, PFD 12 MHz), from icepll -i 12 -o 24.
  SB_PLL40_PAD #(
    .FEEDBACK_PATH ("SIMPLE"),
    .DIVR          (4'b0000),
    .DIVF          (7'b0111111),
    .DIVQ          (3'b101),
    .FILTER_RANGE  (3'b001)
  ) u_pll (
    .PACKAGEPIN   (CLK),
    .PLLOUTCORE   (pll_core),
    .PLLOUTGLOBAL (clk),
    .EXTFEEDBACK  (1'b0),
    .DYNAMICDELAY (8'h00),
    .LOCK         (locked),
    .BYPASS       (1'b0),
    .RESETB       (1'b1),
    .LATCHINPUTVALUE (1'b0),
    .SDO          (pll_sdo),
    .SDI          (1'b0),
    .SCLK         (1'b0)
  );

  tsr_rst_sync u_rst (
    .clk_i  (clk),
    .rst_ni (BTN_N & locked),
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
    .clk_i     (clk),
    .rst_ni    (rst_n),
    .uart_rx_i (RX),
    .uart_tx_o (TX),
    .irq_o     (irq),
    .evt_o     (evt)
  );

  wire good_frame;

  tsr_evt_leds #(
    .Width (1)
  ) u_leds (
    .clk_i  (clk),
    .rst_ni (rst_n),
    .evt_i  (evt[0]),
    .led_o  (good_frame)
  );

  assign LEDR_N = ~irq;
  assign LEDG_N = ~good_frame;

  // evt_o[6:1] have no LED on this board.
  wire unused_evt = ^evt[6:1];
  wire unused_pll = pll_core ^ pll_sdo;
endmodule
`default_nettype wire
