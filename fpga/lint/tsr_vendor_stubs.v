// tsr_vendor_stubs: port-only models of the FPGA primitives the board tops use, for Verilator lint.
`default_nettype none

// Not for synthesis (Yosys has the real cells) and not for simulation (the
// clock just passes through and LOCK is always high). They let `make
// board-check` lint each board top with Verilator -Wall, checking every
// port name, width and connection against the vendor's port list. The
// parameters carry the vendor's names; the stubs ignore their values.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off DECLFILENAME */
module EHXPLLL #(
  parameter PLLRST_ENA      = "DISABLED",
  parameter INTFB_WAKE      = "DISABLED",
  parameter STDBY_ENABLE    = "DISABLED",
  parameter DPHASE_SOURCE   = "DISABLED",
  parameter OUTDIVIDER_MUXA = "DIVA",
  parameter OUTDIVIDER_MUXB = "DIVB",
  parameter OUTDIVIDER_MUXC = "DIVC",
  parameter OUTDIVIDER_MUXD = "DIVD",
  parameter integer CLKI_DIV     = 1,
  parameter CLKOP_ENABLE    = "ENABLED",
  parameter integer CLKOP_DIV    = 8,
  parameter integer CLKOP_CPHASE = 0,
  parameter integer CLKOP_FPHASE = 0,
  parameter FEEDBK_PATH     = "CLKOP",
  parameter integer CLKFB_DIV    = 1
) (
  input  wire RST,
  input  wire STDBY,
  input  wire CLKI,
  output wire CLKOP,
  input  wire CLKFB,
  output wire CLKINTFB,
  input  wire PHASESEL0,
  input  wire PHASESEL1,
  input  wire PHASEDIR,
  input  wire PHASESTEP,
  input  wire PHASELOADREG,
  input  wire PLLWAKESYNC,
  input  wire ENCLKOP,
  output wire LOCK
);
  assign CLKOP    = CLKI;
  assign CLKINTFB = 1'b0;
  assign LOCK     = 1'b1;
endmodule

module SB_PLL40_PAD #(
  parameter FEEDBACK_PATH = "SIMPLE",
  parameter [3:0] DIVR = 4'b0000,
  parameter [6:0] DIVF = 7'b0000000,
  parameter [2:0] DIVQ = 3'b000,
  parameter [2:0] FILTER_RANGE = 3'b000
) (
  input  wire       PACKAGEPIN,
  output wire       PLLOUTCORE,
  output wire       PLLOUTGLOBAL,
  input  wire       EXTFEEDBACK,
  input  wire [7:0] DYNAMICDELAY,
  output wire       LOCK,
  input  wire       BYPASS,
  input  wire       RESETB,
  input  wire       LATCHINPUTVALUE,
  output wire       SDO,
  input  wire       SDI,
  input  wire       SCLK
);
  assign PLLOUTCORE   = PACKAGEPIN;
  assign PLLOUTGLOBAL = PACKAGEPIN;
  assign LOCK         = 1'b1;
  assign SDO          = 1'b0;
endmodule
/* verilator lint_on DECLFILENAME */
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
`default_nettype wire
