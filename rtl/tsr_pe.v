// tsr_pe: one weight-stationary processing element, int8 x int8 into int32, two weight banks.
`default_nettype none

// Activations move right (a_i -> a_o) and partial sums move down
// (psum_i -> psum_o), one register each. The PE multiplies by the weight in
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
  reg [31:0] psum_q;

  // All operands signed and 32 bits wide, so the product is sign-extended
  // before the add; two's-complement wrap is the defined overflow behaviour.
  // One expression and no named intermediate wires: Verilator then keeps a
  // PE to a handful of loads and stores per cycle.
  always @(posedge clk_i) begin
    a_q    <= {a_sel_i, a_i};
    psum_q <= $signed(psum_i) + $signed(a_i) * $signed(a_sel_i ? w1_q : w0_q);
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
