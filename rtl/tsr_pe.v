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
  reg [7:0]  a_q;
  reg        sel_q;
  reg [31:0] psum_q;

  wire signed [7:0]  w_cur   = a_sel_i ? w1_q : w0_q;
  wire signed [15:0] product = $signed(a_i) * w_cur;
  // Two's-complement wrap is the defined overflow behaviour of the accumulation.
  wire [31:0]        psum_d  = psum_i + {{16{product[15]}}, product};

  always @(posedge clk_i) begin
    a_q    <= a_i;
    sel_q  <= a_sel_i;
    psum_q <= psum_d;
    if (w_we_i && !w_bank_i) begin
      w0_q <= w_i;
    end
    if (w_we_i && w_bank_i) begin
      w1_q <= w_i;
    end
  end

  assign a_o     = a_q;
  assign a_sel_o = sel_q;
  assign psum_o  = psum_q;
endmodule

`default_nettype wire
