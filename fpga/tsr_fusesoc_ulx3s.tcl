# tsr_fusesoc_ulx3s.tcl: Yosys reads the ULX3S top as the FuseSoC core's ulx3s target set it up.
#
# Run by `make fusesoc-check` in the target's work directory, after `fusesoc run --setup
# --target=ulx3s`: it sources the procedures edalize generated there (the fileset, its
# include path, the parameters), reads them as edalize's own synthesis script does, and
# elaborates tsr_board_ulx3s against the ECP5 cell library (the PLL). A file missing from
# the core, or an include the path does not reach, fails here in about a second instead
# of minutes into synth_ecp5. No synthesis, no place and route.
yosys -import
source edalize_yosys_procs.tcl
yosys -import

verilog_defaults -push
verilog_defaults -add -defer
set_defines
set_incdirs
read_files
set_params
verilog_defaults -pop

read_verilog -lib +/ecp5/cells_bb.v
hierarchy -check -top tsr_board_ulx3s
