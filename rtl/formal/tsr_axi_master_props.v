// tsr_axi_master_props: formal properties of one AXI4 master address channel (AR or AW) and its bursts.
`default_nettype none

// Bound (instantiated under `ifdef FORMAL) by both DMA masters, rtl/tsr_dma_rd.v on AR and
// rtl/tsr_dma_wr.v on AW; `make formal` proves them (mk/formal.mk, docs/formal.md). Not
// synthesizable RTL: it is read only by the formal flow, which is why it lives in
// rtl/formal/ and not in rtl/ (RTL_SRCS).
//
// Asserted, in every cycle out of reset:
//   - every burst is INCR with AxSIZE = the bus width;
//   - while VALID: the address is beat-aligned, the burst has 1..MaxBurstBeats beats, does
//     not cross a 4 KiB boundary, and lies inside region_lo_i .. region_hi_i (beat
//     addresses of the first and the last beat the master may touch);
//   - VALID, address and length hold until READY;
//   - at most MaxOutstanding bursts are accepted and not yet answered.
// The bookkeeping is an output: outstanding_o counts bursts accepted (VALID and READY) and
// not yet answered (answer_i: the master's RLAST or B handshake), so the master's own
// inductive invariants can tie its state to it.
module tsr_axi_master_props #(
  parameter integer AxiDataWidth   = 64,
  parameter integer MaxBurstBeats  = 16,
  parameter integer MaxOutstanding = 4,
  localparam integer OffW = $clog2(AxiDataWidth / 8),
  localparam integer OutW = $clog2(MaxOutstanding + 1)
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  input  wire          valid_i,
  input  wire          ready_i,
  input  wire [31:0]   addr_i,
  input  wire [7:0]    len_i,
  input  wire [2:0]    size_i,
  input  wire [1:0]    burst_i,
  input  wire [31:0]   region_lo_i,   // first beat of the job's region
  input  wire [31:0]   region_hi_i,   // last beat of the job's region
  input  wire          answer_i,      // one accepted burst is fully answered this cycle
  output reg  [OutW:0] outstanding_o  // bursts accepted, not yet answered
);
  localparam integer MaxLenI = MaxBurstBeats - 1;
  localparam [31:0]  MaxLenM1 = MaxLenI;
  localparam [2:0]   AxSize   = OffW[2:0];

  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;

  wire hs = valid_i & ready_i;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) outstanding_o <= {(OutW + 1){1'b0}};
    else         outstanding_o <= outstanding_o + {{OutW{1'b0}}, hs} - {{OutW{1'b0}}, answer_i};
  end

  always @(*) begin
    if (rst_ni) begin
      // INCR bursts of full-width beats, aligned, 1..MaxBurstBeats beats, no 4 KiB crossing.
      assert (burst_i == 2'b01 && size_i == AxSize);
      if (valid_i) begin
        assert (addr_i[OffW-1:0] == {OffW{1'b0}});
        assert ({24'h0, len_i} <= MaxLenM1);
        assert ({20'h0, addr_i[11:0]} + (({24'h0, len_i} + 32'd1) << OffW) <= 32'h1000);
        // Inside the job's region (the beats holding its bytes).
        assert (addr_i >= region_lo_i);
        assert (addr_i + ({24'h0, len_i} << OffW) <= region_hi_i);
      end
      // At most MaxOutstanding bursts accepted and not answered.
      assert (outstanding_o <= MaxOutstanding);
    end
  end

  // VALID and payload hold until READY.
  always @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni && $past(valid_i && !ready_i))
      assert (valid_i && addr_i == $past(addr_i) && len_i == $past(len_i));
  end
endmodule

`default_nettype wire
