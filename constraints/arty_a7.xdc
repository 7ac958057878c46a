## Arty A7-100T (xc7a100tcsg324-1): pins of fpga/boards/tsr_board_arty.v, for Vivado.
## Sites and names from Digilent's Arty-A7-100-Master.xdc. Not used by any flow
## here (no open place-and-route for the 7 series): untested on a board.

## 100 MHz oscillator: the core clock.
set_property -dict { PACKAGE_PIN E3  IOSTANDARD LVCMOS33 } [get_ports { CLK100MHZ }];
create_clock -add -name sys_clk_pin -period 10.00 -waveform {0 5} [get_ports { CLK100MHZ }];

## RESET button (ck_rst), low when pressed.
set_property -dict { PACKAGE_PIN C2  IOSTANDARD LVCMOS33 } [get_ports { ck_rst }];
set_false_path -from [get_ports { ck_rst }]

## FT2232 USB UART (115200 8N1): uart_txd_in into the FPGA, uart_rxd_out out of it.
set_property -dict { PACKAGE_PIN A9  IOSTANDARD LVCMOS33 } [get_ports { uart_txd_in }];
set_property -dict { PACKAGE_PIN D10 IOSTANDARD LVCMOS33 } [get_ports { uart_rxd_out }];
set_false_path -from [get_ports { uart_txd_in }]
set_false_path -to   [get_ports { uart_rxd_out }]

## Green LEDs LD4..LD7: led[0] interrupt, led[3:1] toggle on bridge events.
set_property -dict { PACKAGE_PIN H5  IOSTANDARD LVCMOS33 } [get_ports { led[0] }];
set_property -dict { PACKAGE_PIN J5  IOSTANDARD LVCMOS33 } [get_ports { led[1] }];
set_property -dict { PACKAGE_PIN T9  IOSTANDARD LVCMOS33 } [get_ports { led[2] }];
set_property -dict { PACKAGE_PIN T10 IOSTANDARD LVCMOS33 } [get_ports { led[3] }];
set_false_path -to [get_ports { led[*] }]

## Configuration bank voltage (avoids Vivado's CFGBVS DRC warning).
set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
