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
  // Every PE's inputs and outputs are wires of its own generate scope
  // (gen_row[i].gen_col[j]), joined to its neighbours' by plain assigns, so
  // the Verilated model reads a neighbour's register directly. A row-wide
  // packed bus or an unpacked array in between costs a copy per PE per
  // cycle (the array alone simulates 1.8x slower at N = 16).
  genvar i, j;
  generate
    for (i = 0; i < N; i = i + 1) begin : gen_row
      wire [7:0] a_first;   // what enters PE[i][0], after i cycles of skew
      wire       s_first;
      if (i == 0) begin : gen_direct
        assign a_first = in_row_i[7:0];
        assign s_first = in_sel_i;
      end else begin : gen_delay
        // i cycles of skew for element i and its bank select.
        wire [8:0] skewed;
        tsr_delay #(.Width(9), .Depth(i)) u_skew (
          .clk_i (clk_i),
          .d_i   ({in_sel_i, in_row_i[8*i +: 8]}),
          .q_o   (skewed)
        );
        assign a_first = skewed[7:0];
        assign s_first = skewed[8];
      end
      wire row_we = w_we_i && (w_row_i == i[RowIdxWidth-1:0]);

      for (j = 0; j < N; j = j + 1) begin : gen_col
        wire [7:0]  a_in, a_out;
        wire        s_in, s_out;
        wire [31:0] p_in, p_out;
        if (j == 0) begin : gen_left
          assign a_in = a_first;
          assign s_in = s_first;
        end else begin : gen_inner
          assign a_in = gen_col[j-1].a_out;
          assign s_in = gen_col[j-1].s_out;
        end
        if (i == 0) begin : gen_top
          assign p_in = 32'h0;
        end else begin : gen_below
          assign p_in = gen_row[i-1].gen_col[j].p_out;
        end
        tsr_pe u_pe (
          .clk_i    (clk_i),
          .a_i      (a_in),
          .a_sel_i  (s_in),
          .psum_i   (p_in),
          .w_we_i   (row_we),
          .w_bank_i (w_bank_i),
          .w_i      (w_data_i[8*j +: 8]),
          .a_o      (a_out),
          .a_sel_o  (s_out),
          .psum_o   (p_out)
        );
      end

      // The activations leaving the right edge are not needed.
      /* verilator tracing_off */  // an unused signal the model need not compute
      wire unused_edge = ^{gen_col[N-1].a_out, gen_col[N-1].s_out};
      /* verilator tracing_on */
    end

    for (j = 0; j < N; j = j + 1) begin : gen_deskew
      if (j == N - 1) begin : gen_direct
        assign out_row_o[32*j +: 32] = gen_row[N-1].gen_col[j].p_out;
      end else begin : gen_delay
        // N-1-j cycles of delay for column j.
        tsr_delay #(.Width(32), .Depth(N - 1 - j)) u_deskew (
          .clk_i (clk_i),
          .d_i   (gen_row[N-1].gen_col[j].p_out),
          .q_o   (out_row_o[32*j +: 32])
        );
      end
    end
  endgenerate

  // Valid and tag ride a delay line as long as the array.
  reg [Latency-1:0] valid_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= {Latency{1'b0}};
    end else begin
      valid_q <= {valid_q[Latency-2:0], in_valid_i};
    end
  end
  tsr_delay #(.Width(TagWidth), .Depth(Latency)) u_tag (
    .clk_i (clk_i),
    .d_i   (in_tag_i),
    .q_o   (out_tag_o)
  );

  assign out_valid_o = valid_q[Latency-1];
  assign busy_o      = |valid_q;
endmodule

`default_nettype wire
