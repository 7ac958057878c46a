// tsr_soc_srcq: in-order queue of one-bit owners, which master each outstanding AXI burst belongs to.
`default_nettype none

// The arbiter (tsr_soc_axi_arb) pushes the owner of every burst it hands to the
// memory, in the order the memory will answer, and pops it when the answer is
// done (the last R beat, the last W beat, the B). Entry 0 is the oldest.
// Entries at and above the count are kept 0, so a push is an OR at the count
// (no loop, no variable-index write). Pushing into a full queue or popping an
// empty one is the caller's error: it checks full_o and empty_o first.
// Reset: the count and the entries (small; the entries' zero is the invariant).
module tsr_soc_srcq #(
  parameter integer Depth = 16,
  localparam integer CntWidth = $clog2(Depth + 1)
) (
  input  wire clk_i,
  input  wire rst_ni,
  input  wire push_i,
  input  wire owner_i,
  input  wire pop_i,
  output wire head_o,    // owner of the oldest entry (0 when empty)
  output wire empty_o,
  output wire full_o
);
  reg [Depth-1:0]    q_q, q_d;
  reg [CntWidth-1:0] cnt_q, cnt_d;
  reg [CntWidth-1:0] cnt_mid;

  always @(*) begin
    q_d     = pop_i ? (q_q >> 1) : q_q;
    cnt_mid = cnt_q - {{(CntWidth-1){1'b0}}, pop_i};
    if (push_i && owner_i) begin
      q_d = q_d | ({{(Depth-1){1'b0}}, 1'b1} << cnt_mid);
    end
    cnt_d = cnt_mid + {{(CntWidth-1){1'b0}}, push_i};
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      q_q   <= {Depth{1'b0}};
      cnt_q <= {CntWidth{1'b0}};
    end else begin
      q_q   <= q_d;
      cnt_q <= cnt_d;
    end
  end

  assign head_o  = q_q[0];
  assign empty_o = (cnt_q == {CntWidth{1'b0}});
  assign full_o  = (cnt_q == Depth[CntWidth-1:0]);
endmodule

`default_nettype wire
