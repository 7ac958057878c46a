// tsr_gate_cone_tb: checks that the simulator computes tsr_gate_cone (a netlist cut) as ah * bh.
`default_nettype none

// 2,000 operand pairs, half with a zero multiplier (the failing case of
// test_sys_gemm seed 3914115480): d_o must equal the 32-bit product of the
// sign-extended upper halves. Prints one summary line; $stop on a mismatch.
module tsr_gate_cone_tb;
  reg  [31:0] xl, m;
  wire [31:0] d;
  tsr_gate_cone u_cone (
    .ah_i (xl[31:16]),
    .bh_i (m[31:16]),
    .d_o  (d)
  );
  reg  signed [31:0] ah, bh, want;
  integer i, bad;
  initial begin
    bad = 0;
    for (i = 0; i < 2000; i = i + 1) begin
      xl = (i == 0) ? 32'h0 : $urandom;
      m  = (i < 1000) ? 32'h0 : $urandom;
      #1;
      ah   = {{16{xl[31]}}, xl[31:16]};
      bh   = {{16{m[31]}}, m[31:16]};
      want = ah * bh;
      if (d !== want) begin
        if (bad < 3) begin
          $display("tsr_gate_cone_tb: xl %h m %h: d %h, expected %h", xl, m, d, want);
        end
        bad = bad + 1;
      end
    end
    if (bad != 0) begin
      $display("tsr_gate_cone_tb: FAIL: %0d of 2000 products wrong", bad);
      $stop;
    end
    $display("tsr_gate_cone_tb: all 2000 products right");
    $finish;
  end
endmodule

`default_nettype wire
