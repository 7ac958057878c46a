// tsr_stage_fifo: a few-entry first-in first-out queue in registers, for the commands of one stage.
`default_nettype none

// The head is visible on head_o while valid_o, the entry after it on second_o
// while two_o. push_i is honoured only while
// !full_o (the caller checks); pop_i removes the head. A push and a pop may
// come in the same cycle. clr_i empties the queue. Entries shift towards the
// head on a pop, so the head is a plain register (no read multiplexer).
module tsr_stage_fifo #(
  parameter integer Width = 32,
  parameter integer Depth = 2,
  localparam integer CntW = $clog2(Depth + 1)
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  input  wire             clr_i,
  input  wire             push_i,
  input  wire [Width-1:0] data_i,
  input  wire             pop_i,
  output wire             valid_o,
  output wire             full_o,
  output wire [Width-1:0] head_o,
  output wire             two_o,
  output wire [Width-1:0] second_o
);
  reg  [Width*Depth-1:0] data_q;
  reg  [CntW-1:0]        count_q;
  // Slot the pushed entry lands in: after the pop's shift, the first free one.
  wire [CntW-1:0]        slot = count_q - {{(CntW-1){1'b0}}, pop_i};

  genvar g;
  generate
    for (g = 0; g < Depth; g = g + 1) begin : gen_slot
      localparam [CntW-1:0] Idx = g;
      always @(posedge clk_i) begin
        if (push_i && slot == Idx) begin
          data_q[Width*g +: Width] <= data_i;
        end else if (pop_i && g + 1 < Depth) begin
          data_q[Width*g +: Width] <= data_q[Width*((g + 1) % Depth) +: Width];
        end
      end
    end
  endgenerate

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q <= {CntW{1'b0}};
    end else if (clr_i) begin
      count_q <= {CntW{1'b0}};
    end else begin
      count_q <= slot + {{(CntW-1){1'b0}}, push_i};
    end
  end

  assign valid_o = (count_q != {CntW{1'b0}});
  assign full_o  = (count_q == Depth[CntW-1:0]);
  assign head_o  = data_q[Width-1:0];
  assign two_o   = (count_q > {{(CntW-1){1'b0}}, 1'b1});
  assign second_o = data_q[Width*(1 % Depth) +: Width];
endmodule

`default_nettype wire
