// tsr_array: N x N weight-stationary systolic array with input skew, output deskew and a tag line.
`default_nettype none

// Dataflow. PE[k][j] holds weight W[k][j]. Element k of an input row enters
// PE row k after k cycles of skew and moves right; column j sums down the
// rows, so its bottom output is sum_k a[k] * W[k][j]. Column j is then delayed
// by N-1-j cycles so that a whole output row leaves at once, Latency cycles
// after the input row entered.
//
// Stream contract: in_valid_i marks an input row; there is no backpressure
// (the array never stalls), so out_valid_o follows in_valid_i exactly Latency
// cycles later, carrying in_tag_i along unchanged.
//
// Weights: w_we_i writes w_data_i into row w_row_i of bank w_bank_i. An input
// row uses the bank named by in_sel_i, so one bank can be loaded while the
// other computes.
module tsr_array #(
  parameter integer ArrayDim = 8,
  parameter integer TagWidth = 1,
  localparam integer N = ArrayDim,
  localparam integer RowIdxWidth = (N > 1) ? $clog2(N) : 1,
  localparam integer Latency = 2 * N - 1
) (
  input  wire                   clk_i,
  input  wire                   rst_ni,
  input  wire                   in_valid_i,
  input  wire [8*N-1:0]         in_row_i,
  input  wire                   in_sel_i,
  input  wire [TagWidth-1:0]    in_tag_i,
  input  wire                   w_we_i,
  input  wire [RowIdxWidth-1:0] w_row_i,
  input  wire                   w_bank_i,
  input  wire [8*N-1:0]         w_data_i,
  output wire                   out_valid_o,
  output wire [32*N-1:0]        out_row_o,
  output wire [TagWidth-1:0]    out_tag_o,
  output wire                   busy_o       // some input row is still inside
);
  // Each PE row keeps its own buses (activation chain left to right, partial
  // sums out of the bottom); one flat N x N bus costs Verilator dearly at N = 16.
  genvar i, j;
  generate
    for (i = 0; i < N; i = i + 1) begin : gen_row
      wire [8*(N+1)-1:0] a_chain;    // a_chain[8*j +: 8] enters PE[i][j]
      wire [N:0]         s_chain;
      wire [32*N-1:0]    psum_in;
      wire [32*N-1:0]    psum_out;

      if (i == 0) begin : gen_direct
        assign a_chain[7:0] = in_row_i[7:0];
        assign s_chain[0]   = in_sel_i;
        assign psum_in      = {(32*N){1'b0}};
      end else begin : gen_delay
        // i cycles of skew for element i (and its bank select), as one shift
        // register; 9 spare bits on the shift-in side keep it legal for i = 1.
        reg  [9*i-1:0] skew_q;
        wire [9*i+8:0] skew_d = {skew_q, in_sel_i, in_row_i[8*i +: 8]};
        always @(posedge clk_i) begin
          skew_q <= skew_d[9*i-1:0];
        end
        wire unused_skew = ^skew_d[9*i+8:9*i];   // the element leaving the register
        assign a_chain[7:0] = skew_q[9*i-9 +: 8];
        assign s_chain[0]   = skew_q[9*i-1];
        assign psum_in      = gen_row[i-1].psum_out;
      end

      for (j = 0; j < N; j = j + 1) begin : gen_col
        tsr_pe u_pe (
          .clk_i    (clk_i),
          .a_i      (a_chain[8*j +: 8]),
          .a_sel_i  (s_chain[j]),
          .psum_i   (psum_in[32*j +: 32]),
          .w_we_i   (w_we_i && (w_row_i == i[RowIdxWidth-1:0])),
          .w_bank_i (w_bank_i),
          .w_i      (w_data_i[8*j +: 8]),
          .a_o      (a_chain[8*(j+1) +: 8]),
          .a_sel_o  (s_chain[j+1]),
          .psum_o   (psum_out[32*j +: 32])
        );
      end

      // The activations leaving the right edge are not needed.
      wire unused_edge = ^{a_chain[8*N +: 8], s_chain[N]};
    end

    for (j = 0; j < N; j = j + 1) begin : gen_deskew
      if (j == N - 1) begin : gen_direct
        assign out_row_o[32*j +: 32] = gen_row[N-1].psum_out[32*j +: 32];
      end else begin : gen_delay
        // N-1-j cycles of delay for column j, as one shift register.
        localparam integer Depth = N - 1 - j;
        reg  [32*Depth-1:0]  deskew_q;
        wire [32*Depth+31:0] deskew_d = {deskew_q, gen_row[N-1].psum_out[32*j +: 32]};
        always @(posedge clk_i) begin
          deskew_q <= deskew_d[32*Depth-1:0];
        end
        wire unused_deskew = ^deskew_d[32*Depth+31:32*Depth];
        assign out_row_o[32*j +: 32] = deskew_q[32*Depth-32 +: 32];
      end
    end
  endgenerate

  // Valid and tag ride a delay line as long as the array.
  reg [Latency-1:0]  valid_q;
  reg [TagWidth*Latency-1:0] tag_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= {Latency{1'b0}};
    end else begin
      valid_q <= {valid_q[Latency-2:0], in_valid_i};
    end
  end
  always @(posedge clk_i) begin
    tag_q <= {tag_q[TagWidth*(Latency-1)-1:0], in_tag_i};
  end

  assign out_valid_o = valid_q[Latency-1];
  assign out_tag_o   = tag_q[TagWidth*(Latency-1) +: TagWidth];
  assign busy_o      = |valid_q;
endmodule

`default_nettype wire
