// tsr_perf: the counters that explain where a job's time went.
`default_nettype none

// Every busy cycle is counted in exactly one class, the first that applies:
//   ARRAY      an A row enters the array (a MATMUL streams): compute;
//   FILL       the array loads weights or drains results;
//   LOAD_WAIT  the array is idle while a LOAD (DMA read) runs;
//   STORE      the array is idle, no LOAD runs, the output stage or the DMA
//              write runs;
//   SFU        only the SFU runs;
//   CTRL       no unit runs: command fetch, decode, token waits.
// So the six add up to CNT_BUSY. Two more counters, outside the partition,
// count memory stalls at the AXI4 master:
//   RD_STALL   an AR waits for ARREADY, or a read burst is outstanding and no
//              R beat is offered;
//   WR_STALL   an AW or W waits for its READY, or bursts wait only for their
//              B response.
// Cleared by reset and by CTRL.COUNTERS_CLEAR, like the other counters.
module tsr_perf (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        clear_i,
  input  wire        busy_i,        // STATUS.BUSY
  input  wire        mm_stream_i,   // the MATMUL unit feeds an A row this cycle
  input  wire        mm_idle_i,     // nothing in flight in the array
  input  wire        rd_busy_i,
  input  wire        st_busy_i,
  input  wire        wr_busy_i,
  input  wire        sfu_busy_i,
  // AXI4 master handshakes
  input  wire        arvalid_i,
  input  wire        arready_i,
  input  wire        rvalid_i,
  input  wire        rready_i,
  input  wire        rlast_i,
  input  wire        awvalid_i,
  input  wire        awready_i,
  input  wire        wvalid_i,
  input  wire        wready_i,
  input  wire        wlast_i,
  input  wire        bvalid_i,
  input  wire        bready_i,
  output wire [63:0] array_o,
  output wire [63:0] fill_o,
  output wire [63:0] load_wait_o,
  output wire [63:0] store_o,
  output wire [63:0] sfu_o,
  output wire [63:0] ctrl_o,
  output wire [63:0] rd_stall_o,
  output wire [63:0] wr_stall_o
);
  // Bursts outstanding: reads between AR and the last R beat, writes between
  // the last W beat and B. 8 bits hold more than either engine ever issues.
  reg [7:0] rd_out_q, wr_out_q;
  wire ar_hs = arvalid_i && arready_i;
  wire r_end = rvalid_i && rready_i && rlast_i;
  wire w_end = wvalid_i && wready_i && wlast_i;
  wire b_hs  = bvalid_i && bready_i;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_out_q <= 8'h0;
      wr_out_q <= 8'h0;
    end else begin
      rd_out_q <= rd_out_q + {7'h0, ar_hs} - {7'h0, r_end};
      wr_out_q <= wr_out_q + {7'h0, w_end} - {7'h0, b_hs};
    end
  end

  wire c_array = busy_i && mm_stream_i;
  wire c_fill  = busy_i && !mm_stream_i && !mm_idle_i;
  wire c_load  = busy_i && mm_idle_i && rd_busy_i;
  wire c_store = busy_i && mm_idle_i && !rd_busy_i && (st_busy_i || wr_busy_i);
  wire c_sfu   = busy_i && mm_idle_i && !rd_busy_i && !st_busy_i && !wr_busy_i && sfu_busy_i;
  wire c_ctrl  = busy_i && mm_idle_i && !rd_busy_i && !st_busy_i && !wr_busy_i && !sfu_busy_i;
  wire c_rd_stall = (arvalid_i && !arready_i) || (rd_out_q != 8'h0 && !rvalid_i);
  wire c_wr_stall = (awvalid_i && !awready_i) || (wvalid_i && !wready_i) ||
                    (wr_out_q != 8'h0 && !awvalid_i && !wvalid_i && !bvalid_i);

  // One 64-bit register per counter (a single 512-bit vector would make the
  // Verilated model copy all of it every cycle).
  localparam integer NCnt = 8;
  wire [NCnt-1:0]    inc = {c_wr_stall, c_rd_stall, c_ctrl, c_sfu, c_store, c_load, c_fill, c_array};
  genvar g;
  generate
    for (g = 0; g < NCnt; g = g + 1) begin : gen_cnt
      reg [63:0] cnt_q;
      always @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          cnt_q <= 64'h0;
        end else if (clear_i) begin
          cnt_q <= 64'h0;
        end else begin
          cnt_q <= cnt_q + {63'h0, inc[g]};
        end
      end
    end
  endgenerate

  assign array_o     = gen_cnt[0].cnt_q;
  assign fill_o      = gen_cnt[1].cnt_q;
  assign load_wait_o = gen_cnt[2].cnt_q;
  assign store_o     = gen_cnt[3].cnt_q;
  assign sfu_o       = gen_cnt[4].cnt_q;
  assign ctrl_o      = gen_cnt[5].cnt_q;
  assign rd_stall_o  = gen_cnt[6].cnt_q;
  assign wr_stall_o  = gen_cnt[7].cnt_q;
endmodule

`default_nettype wire
