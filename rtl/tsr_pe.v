// tsr_pe: one weight-stationary processing element, int8 x int8 into int32, two weight banks.
`default_nettype none

// Activations move right (a_i -> a_o) and partial sums move down
// (psum_i -> psum_o), one register each. The product is registered too, so
// the multiplier and the 32-bit add are separate cycles (FPGA timing): the
// product of the activation entering now is added to the partial sum that
// enters one cycle later, which is when the PE above delivers it (its own
// product register delays it by the same cycle). The PE multiplies by the weight in
// bank a_sel_i, a bit that travels with the activation, so the other bank can
// be rewritten (w_we_i, w_bank_i) while older activations are still in flight.
// Datapath registers have no reset: the matmul unit only captures outputs
// that a reset valid bit qualifies.
module tsr_pe (
  input  wire        clk_i,
  input  wire [7:0]  a_i,
  input  wire        a_sel_i,
  input  wire [31:0] psum_i,
  input  wire        w_we_i,
  input  wire        w_bank_i,
  input  wire [7:0]  w_i,
  output wire [7:0]  a_o,
  output wire        a_sel_o,
  output wire [31:0] psum_o
);
  reg [7:0]  w0_q, w1_q;
  reg [8:0]  a_q;       // {bank select, activation}: they travel together
  reg [15:0] prod_q;
  reg [31:0] psum_q;

  // Signed operands; the 16-bit product is sign-extended before the add;
  // two's-complement wrap is the defined overflow behaviour. No named
  // intermediate wires: Verilator then keeps a PE to a handful of loads and
  // stores per cycle.
  always @(posedge clk_i) begin
    a_q    <= {a_sel_i, a_i};
    prod_q <= $signed(a_i) * $signed(a_sel_i ? w1_q : w0_q);
    psum_q <= psum_i + {{16{prod_q[15]}}, prod_q};
    if (w_we_i && !w_bank_i) begin
      w0_q <= w_i;
    end
    if (w_we_i && w_bank_i) begin
      w1_q <= w_i;
    end
  end

  assign a_o     = a_q[7:0];
  assign a_sel_o = a_q[8];
  assign psum_o  = psum_q;
endmodule

`default_nettype wire
