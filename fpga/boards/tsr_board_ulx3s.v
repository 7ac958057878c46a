// tsr_board_ulx3s: ULX3S (ECP5-85F) board top: 25 MHz -> 100 MHz PLL, reset, USB UART, LEDs, tsr_uart_top.
`default_nettype none

// Pins: constraints/ulx3s.lpf (names as in the board's ulx3s_v20.lpf).
//   clk_25mhz    25 MHz oscillator; EHXPLLL makes the 100 MHz core clock
//   btn[0]       PWR button (low when pressed): holds the chip in reset
//   ftdi_txd     FT231X transmit = our receive; ftdi_rxd our transmit
//   led[0]       tsr_top's interrupt; led[7:1] toggle on the bridge's events
//                (evt_o: led[1] a good frame, led[2] a bad CRC, ..., docs/fpga.md)
//   wifi_gpio0   held high so the ESP32 on the board does not reset the FPGA
// The DMA's memory is 64 KiB on chip (tsr_axi_ram); the host fills it over
// the UART (tessera --hal uart:/dev/ttyUSB0,115200 ...).
module tsr_board_ulx3s #(
  parameter integer ArrayDim     = 8,
  parameter integer SpadRows     = 4096,
  parameter integer AccRows      = 1024,
  parameter integer AxiDataWidth = 64,
  parameter integer CmdQDepth    = 16,
  parameter integer EnableSfu    = 1,     // 0: no SFU (CONFIG.SFU = 0)
  parameter integer StoreLanes   = ArrayDim,   // output-stage lanes (tsr_top)
  parameter integer MemBytes     = 65536    // on-chip memory behind the DMA
) (
  input  wire       clk_25mhz,
  input  wire [0:0] btn,
  input  wire       ftdi_txd,
  output wire       ftdi_rxd,
  output wire [7:0] led,
  output wire       wifi_gpio0
);
  localparam integer ClkHz = 100000000;
  localparam integer Baud  = 115200;

  wire       clk;
  wire       locked;
  wire       rst_n;
  wire [6:0] evt;
  wire       pll_intfb;   // internal feedback output: unused (FEEDBK_PATH is CLKOP)

  // 25 MHz x 4 / 1 = 100 MHz (VCO 600 MHz: CLKOP_DIV 6), from ecppll -i 25 -o 100.
  (* FREQUENCY_PIN_CLKI = "25" *)
  (* FREQUENCY_PIN_CLKOP = "100" *)
  (* ICP_CURRENT = "12" *) (* LPF_RESISTOR = "8" *)
  (* MFG_ENABLE_FILTEROPAMP = "1" *) (* MFG_GMCREF_SEL = "2" *)
  EHXPLLL #(
    .PLLRST_ENA      ("DISABLED"),
    .INTFB_WAKE      ("DISABLED"),
    .STDBY_ENABLE    ("DISABLED"),
    .DPHASE_SOURCE   ("DISABLED"),
    .OUTDIVIDER_MUXA ("DIVA"),
    .OUTDIVIDER_MUXB ("DIVB"),
    .OUTDIVIDER_MUXC ("DIVC"),
    .OUTDIVIDER_MUXD ("DIVD"),
    .CLKI_DIV        (1),
    .CLKOP_ENABLE    ("ENABLED"),
    .CLKOP_DIV       (6),
    .CLKOP_CPHASE    (2),
    .CLKOP_FPHASE    (0),
    .FEEDBK_PATH     ("CLKOP"),
    .CLKFB_DIV       (4)
  ) u_pll (
    .RST          (1'b0),
    .STDBY        (1'b0),
    .CLKI         (clk_25mhz),
    .CLKOP        (clk),
    .CLKFB        (clk),
    .CLKINTFB     (pll_intfb),
    .PHASESEL0    (1'b0),
    .PHASESEL1    (1'b0),
    .PHASEDIR     (1'b1),
    .PHASESTEP    (1'b1),
    .PHASELOADREG (1'b1),
    .PLLWAKESYNC  (1'b0),
    .ENCLKOP      (1'b0),
    .LOCK         (locked)
  );

  tsr_rst_sync u_rst (
    .clk_i  (clk),
    .rst_ni (btn[0] & locked),
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
    .uart_rx_i (ftdi_txd),
    .uart_tx_o (ftdi_rxd),
    .irq_o     (led[0]),
    .evt_o     (evt)
  );

  tsr_evt_leds u_leds (
    .clk_i  (clk),
    .rst_ni (rst_n),
    .evt_i  (evt),
    .led_o  (led[7:1])
  );

  assign wifi_gpio0 = 1'b1;

  wire unused_pll = pll_intfb;
endmodule
`default_nettype wire
