// tsr_sfu: special-function unit: the lookup table and a microcoded fixed-point ALU (docs/sfu.md).
`default_nettype none

// One SFU command at a time (start_i latches the fields). LUT_LOAD is a fixed
// sequence that copies 256/N scratchpad rows into the table. Every other
// function is a microprogram (rtl/sfu/tsr_sfu.ucode, assembled into
// tsr_sfu_rom) run on one datapath:
//
//   16 registers of 64 bits, 11 parameter words read from the accumulator
//   at the start, the current element X (tensor A), X2 (tensor B or gamma)
//   and BETA (an accumulator lane), one 32x32 signed multiplier (MUL and the
//   gemmlowp srdhm), one 64-bit shifter (shifts and the rounding divide by a
//   power of two), one 64-bit adder, compare/select and count-leading-zeros;
//   beside the ALU, TFLite's int8 requantization as two fused stages (an
//   output stage for RQOUTNEXT, and ADD's input stage with two 12x32
//   multipliers), which ADDNEXT runs as a pipeline of one element a cycle.
//
// One microinstruction executes per cycle. FIRST/NEXT walk the elements of
// the current row (FIRST's fetch costs two or three cycles of memory reads;
// NEXT takes the word's other N-1 elements from the words it kept, and the
// next words from the prefetch, below, except for LAYERNORM, which fetches
// every element: its BETA comes from the accumulator), NEXTROW the rows; OUT writes a result byte, completed result rows are
// written to the scratchpad as they fill. ERRLT/ERRGT check parameters and
// stop the command with param_err_o before anything is written.
//
// The exp cache: 256 words of 32 bits and a valid bit each, all invalid at
// every start. SOFTMAX's exponential depends only on the command's
// parameters and on max - x, 0..255, so each value is computed once a
// command: ECSUB reads the entry at that index (a block RAM read; the entry
// and its valid bit are there the next cycle), ECALL takes it or calls the
// routine that computes it, and ECPUT stores what the routine computed.
//
// Microinstruction (64 bits): [63:58] op, [57:54] d, [53:49] a, [48:44] b,
// [43:39] c, [31:0] imm. Operand sources (5 bits): 0-15 r0-r15, 16-26 p0-p10,
// 27 X, 28 X2, 29 BETA, 30 LEN, 31 zero. tools/sfuasm.py reads the opcode
// list below (the lines "localparam [5:0] U<Name> = 6'd<n>;").
module tsr_sfu #(
  parameter integer ArrayDim = 8,
  parameter integer SpadRows = 4096,
  parameter integer AccRows  = 1024,
  localparam integer N = ArrayDim,
  localparam integer SpadAw = $clog2(SpadRows),
  localparam integer AccAw  = $clog2(AccRows),
  localparam integer LaneW  = $clog2(N),
  localparam integer LutAw  = $clog2(256 / N)
) (
  input  wire              clk_i,
  input  wire              rst_ni,
  input  wire              clr_i,       // soft reset: stop, and clear the table
  input  wire              start_i,
  input  wire [3:0]        func_i,
  input  wire [23:0]       src_i,
  input  wire [23:0]       dst_i,
  input  wire [15:0]       rows_i,
  input  wire [15:0]       len_i,
  input  wire [23:0]       src2_i,
  input  wire [23:0]       param_i,
  input  wire [23:0]       aux_i,
  output wire              busy_o,
  output wire              param_err_o,  // one-cycle pulse: a parameter is out of range
  output wire              spad_re_o,
  output wire [SpadAw-1:0] spad_raddr_o,
  input  wire [8*N-1:0]    spad_rdata_i,
  output wire              spad_we_o,
  output wire [SpadAw-1:0] spad_waddr_o,
  output wire [8*N-1:0]    spad_wdata_o,
  output wire              acc_re_o,
  output wire [AccAw-1:0]  acc_raddr_o,
  input  wire [32*N-1:0]   acc_rdata_i,
  output wire              acc_we_o,
  output wire [AccAw-1:0]  acc_waddr_o,
  output wire [32*N-1:0]   acc_wdata_o,
  output wire              lut_we_o,     // table writes, mirrored by every store lane's copy
  output wire [LutAw-1:0]  lut_waddr_o,
  output wire [8*N-1:0]    lut_wdata_o
);
  // Functions (Fn*, docs/sfu.md): generated from rtl/regs/tessera_cmds.toml.
  // (MAP and REDUCE need no special handling here.)
`include "rtl/regs/tsr_cmd_fields.vh"

  // Microinstruction opcodes.
  localparam [5:0] UAdd     = 6'd0;   // d = a + b                     (64 bits)
  localparam [5:0] USub     = 6'd1;   // d = a - b                     (64 bits)
  localparam [5:0] UAdd32   = 6'd2;   // d = int32(a + b)              (wraps)
  localparam [5:0] UAddi32  = 6'd3;   // d = int32(a + imm)
  localparam [5:0] URsubi32 = 6'd4;   // d = int32(imm - a)
  localparam [5:0] UMul     = 6'd5;   // d = int32(a) * int32(b)       (64-bit product)
  localparam [5:0] USrdhm   = 6'd6;   // d = srdhm(int32(a), int32(b))
  localparam [5:0] USrdhmi  = 6'd7;   // d = srdhm(int32(a), imm)
  localparam [5:0] USrdhmif = 6'd8;   // d = bit b of c ? srdhm(int32(a), imm) : a   (b is a bit index)
  localparam [5:0] UShl     = 6'd9;   // d = b >= 0 ? a << b : a >>> -b   (64 bits)
  localparam [5:0] UShli    = 6'd10;  // d = the same by imm
  localparam [5:0] UShl32   = 6'd11;  // d = int32(a << b)             (b in 0..31, wraps)
  localparam [5:0] USshli   = 6'd12;  // d = gemmlowp saturating int32(a) * 2^imm, imm 1..31
  localparam [5:0] URdiv    = 6'd13;  // d = rdbpot64(a, b)            (b in 0..63)
  localparam [5:0] URdivi   = 6'd14;  // d = rdbpot64(a, imm)
  localparam [5:0] UAndi    = 6'd15;  // d = a & imm                   (imm sign-extended)
  localparam [5:0] UMax     = 6'd16;  // d = max(a, b)                 (signed 64)
  localparam [5:0] UMin     = 6'd17;  // d = min(a, b)
  localparam [5:0] UMaxi    = 6'd18;  // d = max(a, imm)
  localparam [5:0] UMini    = 6'd19;  // d = min(a, imm)
  localparam [5:0] UClz32   = 6'd20;  // d = leading zeros of a[31:0]  (32 for 0)
  localparam [5:0] UClz64   = 6'd21;  // d = leading zeros of a        (64 for 0)
  localparam [5:0] UHalfsum = 6'd22;  // d = gemmlowp RoundingHalfSum(int32(a), int32(b))
  localparam [5:0] USelneg  = 6'd23;  // d = c < 0 ? a : b
  localparam [5:0] USelz    = 6'd24;  // d = c == 0 ? a : b
  localparam [5:0] UZext32  = 6'd25;  // d = a[31:0] zero-extended
  localparam [5:0] UEcsub   = 6'd26;  // d = a - b, and read the exp cache at (b - a) mod 256
  localparam [5:0] UFirst   = 6'd32;  // go to element 0 of the row and fetch it
  localparam [5:0] UNext    = 6'd33;  // if another element follows: fetch it, jump to imm
  localparam [5:0] UNextrow = 6'd34;  // if another row follows: jump to imm
  localparam [5:0] UCall    = 6'd35;  // jump to imm, return to the next instruction
  localparam [5:0] URet     = 6'd36;
  localparam [5:0] UOut     = 6'd37;  // result byte a[7:0] for the current element
  localparam [5:0] UOutlut  = 6'd38;  // result byte LUT[a[7:0]]
  localparam [5:0] UOutacc  = 6'd39;  // accumulator row DST + row = {0, .., c, b, a}
  localparam [5:0] UErrlt   = 6'd40;  // ERR_PARAM if a < imm
  localparam [5:0] UErrgt   = 6'd41;  // ERR_PARAM if a > imm
  localparam [5:0] UDone    = 6'd42;
  localparam [5:0] UOutnext = 6'd43;  // OUT a, then NEXT imm (one cycle)
  localparam [5:0] UOutlutnext = 6'd44;  // OUTLUT a, then NEXT imm (one cycle)
  localparam [5:0] URqoutnext  = 6'd45;  // OUT requant(a, p<b>..p<b+4>), then NEXT imm
  localparam [5:0] UAddnext    = 6'd46;  // ADD: OUT the pending element, this one's input stage, NEXT imm
  localparam [5:0] UAddflush   = 6'd47;  // ADD: OUT the pending element
  localparam [5:0] UEcall      = 6'd48;  // cache entry ECSUB read valid: d = it; else CALL imm
  localparam [5:0] UEcput      = 6'd49;  // the cache entry ECSUB read = a[31:0], now valid

  localparam [4:0] SrcX = 5'd27, SrcX2 = 5'd28, SrcBeta = 5'd29, SrcLen = 5'd30;

  localparam [2:0] StIdle = 3'd0, StLut = 3'd1, StParam = 3'd2, StRun = 3'd3,
                   StFetchA = 3'd4, StFetchB = 3'd5, StFetchC = 3'd6;

  localparam integer NParams = 11;
  localparam [31:0] LutRows32 = 256 / N;
  localparam [31:0] LaneLast32 = N - 1;
  // Parameter block rows: ceil(P / N) for P = 3, 8, 11 and 7 words.
  localparam [31:0] PRowsSoftmax32   = (3 + N - 1) / N;
  localparam [31:0] PRowsLayernorm32 = (8 + N - 1) / N;
  localparam [31:0] PRowsAdd32       = (11 + N - 1) / N;
  localparam [31:0] PRowsMul32       = (7 + N - 1) / N;
  wire [8:0]        LutRows        = LutRows32[8:0];
  wire [LaneW-1:0]  LaneLast       = LaneLast32[LaneW-1:0];
  wire [8:0]        PRowsSoftmax   = PRowsSoftmax32[8:0];
  wire [8:0]        PRowsLayernorm = PRowsLayernorm32[8:0];
  wire [8:0]        PRowsAdd       = PRowsAdd32[8:0];
  wire [8:0]        PRowsMul       = PRowsMul32[8:0];

  // ---------------------------------------------------------------- state
  reg [2:0]   state_q, state_d;
  reg [3:0]   func_q, func_d;
  reg [23:0]  src_q, src_d, dst_q, dst_d, src2_q, src2_d, param_q, param_d, aux_q, aux_d;
  reg [15:0]  rows_q, rows_d, len_q, len_d;
  reg [7:0]   pc_q, pc_d, ret_q, ret_d;
  reg [8:0]   cnt_q, cnt_d;          // LUT_LOAD / parameter read counter
  reg [15:0]  row_q, row_d;          // current row
  reg [15:0]  el_q, el_d;            // current element j
  reg [LaneW-1:0] lane_q, lane_d;    // j mod N
  reg [23:0]  coff_q, coff_d;        // (j div N) * ROWS: chunk offset in a ROWS-row tensor
  reg [23:0]  cidx_q, cidx_d;        // j div N: chunk offset in a one-row tensor
  reg [7:0]   x_q, x2_q;
  reg [8*N-1:0] xw_q, x2w_q;         // the scratchpad words x and x2 came from
  reg [31:0]  beta_q;
  reg [8*N-1:0] obuf_q, obuf_d;      // result row being filled
  // r0..r15: a RAM with one write and three asynchronous read ports, so
  // the ECP5 keeps it in LUT RAM (three copies of 16 TRELLIS_DPR16X4, one
  // per read port) instead of 1,024 flip-flops behind three 16-way 64-bit
  // multiplexers. No reset: a microprogram writes a register before it
  // reads it.
  reg [63:0] rf_q [0:15];
  reg [NParams*32-1:0] p_q;          // p0..p10
  // The exp cache (above): a RAM of 256 words, read synchronously, and the
  // valid bits in flip-flops (cleared at every start).
  reg [31:0]  ec_mem [0:255];
  reg [31:0]  ec_q;                  // the entry ECSUB read
  reg         ec_hit_q;              // ... and whether it was valid
  reg [7:0]   ec_idx_q;              // ... and its index, which ECPUT writes
  reg [255:0] ec_valid_q;

  // The microcode ROM is read one cycle ahead: the next PC (pc_d, below)
  // addresses it at the edge that loads pc_q, so ins_q always holds the
  // microinstruction at pc_q and no cycle is added. Read synchronously, the
  // ROM is a block RAM (two DP16KD on the ECP5) instead of logic, and the
  // path from the PC through the ROM's logic to the operand multiplexers is
  // gone: an instruction starts at a register. pc_d equals pc_q in every
  // state but StRun and StParam, so reading in every cycle keeps ins_q right
  // in idle and fetch cycles too; before the first microinstruction, StParam
  // loads pc_d = entry.
  wire [63:0] rom_data;
  wire [7:0]  entry;
  reg  [63:0] ins_q;
  tsr_sfu_rom u_rom (
    .addr_i  (pc_d),
    .func_i  (func_q[2:0]),
    .data_o  (rom_data),
    .entry_o (entry)
  );
  always @(posedge clk_i) begin
    ins_q <= rom_data;
  end
  wire [63:0] ins = ins_q;

  wire [5:0]  op  = ins[63:58];
  wire [3:0]  rd  = ins[57:54];
  wire [4:0]  sa  = ins[53:49];
  wire [4:0]  sb  = ins[48:44];
  wire [4:0]  sc  = ins[43:39];
  wire [31:0] imm = ins[31:0];
  wire [63:0] imm64 = {{32{imm[31]}}, imm};

  // ---------------------------------------------------------------- operands
  // int32 view of a 64-bit value: the upper half is dropped by definition.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic [63:0] sext32(input [63:0] v);
    sext32 = {{32{v[31]}}, v[31:0]};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Operand source s: the register file's read port (rf) for 0-15, else one
  // of the 15 other sources (compared one by one, not a variable
  // part-select, so synthesis builds a multiplexer, not a wide shifter).
  function automatic [63:0] operand(input [4:0] sel, input [63:0] rf,
                                    input [NParams*32-1:0] p, input [7:0] x, input [7:0] x2,
                                    input [31:0] beta, input [15:0] len);
    integer k;
    operand = 64'h0;
    if (!sel[4]) begin
      operand = rf;                 // r<sel>, read from the register file
    end
    for (k = 0; k < NParams; k = k + 1) begin
      if (sel == 5'd16 + k[4:0]) begin
        operand = {{32{p[32*k+31]}}, p[32*k +: 32]};
      end
    end
    case (sel)
      SrcX:    operand = {{56{x[7]}}, x};
      SrcX2:   operand = {{56{x2[7]}}, x2};
      SrcBeta: operand = {{32{beta[31]}}, beta};
      SrcLen:  operand = {48'h0, len};
      default: ;
    endcase
  endfunction
  // Operands are only used while a microinstruction executes (StRun) and
  // read as zero otherwise. The gate costs hardware nothing and lets the
  // Verilated model skip the three 32-way multiplexers in every other cycle.
  reg [63:0] va, vb, vc;
  always @(*) begin
    va = 64'h0;
    vb = 64'h0;
    vc = 64'h0;
    if (state_q == StRun) begin
      va = operand(sa, rf_q[sa[3:0]], p_q, x_q, x2_q, beta_q, len_q);
      vb = operand(sb, rf_q[sb[3:0]], p_q, x_q, x2_q, beta_q, len_q);
      vc = operand(sc, rf_q[sc[3:0]], p_q, x_q, x2_q, beta_q, len_q);
    end
  end

  // ---------------------------------------------------------------- datapath
  // The table entry OUTLUT reads (from the SFU's tsr_lut copy, instantiated
  // below); LUT_LOAD writes row cnt-1 in the cycle it captures it.
  wire [7:0]       lut_entry;
  wire [LutAw-1:0] lut_waddr = cnt_q[LutAw-1:0] - {{(LutAw-1){1'b0}}, 1'b1};
  // Leading zeros of a 64-bit value (64 for 0), by halving: six steps of a
  // compare and a shift, so about six multiplexers deep. (Counting bit by bit
  // in a loop made 64 chained 64-bit adders: on ECP5 a 290 ns path, carry
  // chains being opaque to the logic optimizer.)
  function automatic [63:0] clz(input [63:0] v);
    reg [63:0] x;
    reg [6:0]  n;
    begin
      x = v;
      n = 7'd0;
      if (x[63:32] == 32'h0) begin n = n + 7'd32; x = x << 32; end
      if (x[63:48] == 16'h0) begin n = n + 7'd16; x = x << 16; end
      if (x[63:56] == 8'h0)  begin n = n + 7'd8;  x = x << 8;  end
      if (x[63:60] == 4'h0)  begin n = n + 7'd4;  x = x << 4;  end
      if (x[63:62] == 2'h0)  begin n = n + 7'd2;  x = x << 2;  end
      if (!x[63])            begin n = n + 7'd1;  x = x << 1;  end
      if (!x[63])            begin n = n + 7'd1;               end
      clz = {57'h0, n};
    end
  endfunction

  // The ALU: the result of register-writing microinstruction op. One
  // function, so that the model evaluates it only in a cycle that writes a
  // register (alu below); in hardware this is the same combinational logic.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic [63:0] alu_f(input [5:0] uop, input [4:0] bsel, input [31:0] uimm,
                                  input [63:0] a, input [63:0] b, input [63:0] c);
    reg [63:0]        uimm64;
    reg [31:0]        mul_b;
    reg signed [63:0] prod;
    reg [63:0]        nudged, biased, srd;
    reg [63:0]        sh_amt, sh_neg, shl_v, sra_v, shift_v;
    reg [6:0]         sh_l, sh_r;
    reg [5:0]         rd_e;
    reg [63:0]        rd_mask, rd_rem, rd_thr, rdiv_v;
    reg [4:0]         ss_e;
    reg [63:0]        ss_thr, va32, sshl_v;
    reg [63:0]        hs_sum, hs_t, halfsum_v;
    begin
      uimm64 = {{32{uimm[31]}}, uimm};
      // The multiplier: MUL takes b, the srdhm forms b or the immediate.
      mul_b = (uop == UMul || uop == USrdhm) ? b[31:0] : uimm;
      prod  = $signed(a[31:0]) * $signed(mul_b);
      // srdhm: round(a * b / 2^31), ties up (gemmlowp nudge), saturating INT32_MIN^2.
      nudged = prod + (prod[63] ? 64'hffff_ffff_c000_0001 : 64'h0000_0000_4000_0000);
      biased = nudged[63] ? nudged + 64'h0000_0000_7fff_ffff : nudged;
      srd    = ((a[31:0] == 32'h8000_0000) && (mul_b == 32'h8000_0000)) ?
               64'h0000_0000_7fff_ffff : sext32({32'h0, biased[62:31]});
      // The shifter: signed amount for SHL/SHLI, 0..63 for SHL32/RDIV.
      sh_amt  = (uop == UShli || uop == URdivi || uop == USshli) ? uimm64 : b;
      sh_neg  = 64'h0 - sh_amt;
      sh_l    = (sh_amt > 64'd63) ? 7'd64 : sh_amt[6:0];
      sh_r    = (sh_neg > 64'd63) ? 7'd64 : sh_neg[6:0];
      shl_v   = (sh_l[6]) ? 64'h0 : (a << sh_l[5:0]);
      sra_v   = (sh_r[6]) ? {64{a[63]}} : $unsigned($signed(a) >>> sh_r[5:0]);
      shift_v = sh_amt[63] ? sra_v : shl_v;
      // rdbpot64(a, e): a / 2^e rounded to nearest, ties away from zero.
      rd_e    = sh_amt[5:0];
      rd_mask = (64'h1 << rd_e) - 64'h1;
      rd_rem  = a & rd_mask;
      rd_thr  = (rd_mask >> 1) + {63'h0, a[63]};
      rdiv_v  = $unsigned($signed(a) >>> rd_e) + {63'h0, (rd_rem > rd_thr)};
      // gemmlowp SaturatingRoundingMultiplyByPOT<e> for e in 1..31.
      ss_e    = uimm[4:0];
      ss_thr  = (64'h1 << (6'd31 - {1'b0, ss_e})) - 64'h1;
      va32    = sext32(a);
      sshl_v  = ($signed(va32) > $signed(ss_thr)) ? 64'h0000_0000_7fff_ffff :
                ($signed(va32) < -$signed(ss_thr)) ? 64'hffff_ffff_8000_0000 :
                sext32(va32 << ss_e);
      // RoundingHalfSum: (a + b + sign) / 2, the division truncating toward zero.
      hs_sum    = sext32(a) + sext32(b);
      hs_t      = hs_sum + (hs_sum[63] ? 64'hffff_ffff_ffff_ffff : 64'h1);
      halfsum_v = $unsigned($signed(hs_t + {63'h0, hs_t[63]}) >>> 1);
      case (uop)
        UAdd:     alu_f = a + b;
        USub, UEcsub: alu_f = a - b;
        UAdd32:   alu_f = sext32(a + b);
        UAddi32:  alu_f = sext32(a + uimm64);
        URsubi32: alu_f = sext32(uimm64 - a);
        UMul:     alu_f = prod;
        USrdhm, USrdhmi: alu_f = srd;
        USrdhmif: alu_f = c[{1'b0, bsel}] ? srd : a;
        UShl, UShli: alu_f = shift_v;
        UShl32:   alu_f = sext32(a << b[4:0]);
        USshli:   alu_f = sshl_v;
        URdiv, URdivi: alu_f = rdiv_v;
        UAndi:    alu_f = a & uimm64;
        UMax:     alu_f = ($signed(a) > $signed(b)) ? a : b;
        UMin:     alu_f = ($signed(a) < $signed(b)) ? a : b;
        UMaxi:    alu_f = ($signed(a) > $signed(uimm64)) ? a : uimm64;
        UMini:    alu_f = ($signed(a) < $signed(uimm64)) ? a : uimm64;
        UClz32:   alu_f = clz({a[31:0], 32'hffff_ffff});
        UClz64:   alu_f = clz(a);
        UHalfsum: alu_f = halfsum_v;
        USelneg:  alu_f = c[63] ? a : b;
        USelz:    alu_f = (c == 64'h0) ? a : b;
        UZext32:  alu_f = {32'h0, a[31:0]};
        default:  alu_f = 64'h0;
      endcase
    end
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // The element-wise stages: TFLite's int8 requantization, each step as the
  // microinstruction of the same name does it (srdhm, shl32, rdiv), fused so
  // that ADD takes one cycle an element and MUL four (docs/sfu.md).
  // mbqm_round: the rest of TFLite's MultiplyByQuantizedMultiplier once the
  // product p = int32(v << max(s, 0)) * m is known: srdhm's round(p / 2^31),
  // ties up (sat: both factors INT32_MIN, which saturates), then rounded right
  // by max(-s, 0). s is -31..30 (the microprogram checked it), so the shifts
  // fit 5 bits. (The product's outer bits and the shift's sign-extension bits
  // are unused.)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic [31:0] mbqm_round(input [63:0] p, input sat, input [31:0] s);
    reg [63:0] nudged, biased;
    reg [4:0]  rsh;
    reg [31:0] t, mask, rem, thr;
    begin
      nudged = p + (p[63] ? 64'hffff_ffff_c000_0001 : 64'h0000_0000_4000_0000);
      biased = nudged[63] ? nudged + 64'h0000_0000_7fff_ffff : nudged;
      t      = sat ? 32'h7fff_ffff : biased[62:31];
      rsh    = s[31] ? 5'd0 - s[4:0] : 5'd0;
      mask   = (32'h1 << rsh) - 32'h1;
      rem    = t & mask;
      thr    = (mask >> 1) + {31'h0, t[31]};
      mbqm_round = $unsigned($signed(t) >>> rsh) + {31'h0, (rem > thr)};
    end
  endfunction
  // mbqm32: MultiplyByQuantizedMultiplier(v, m, s) with a 32x32 product.
  function automatic [31:0] mbqm32(input [31:0] v, input [31:0] m, input [31:0] s);
    reg [31:0] a;
    begin
      a = v << (s[31] ? 5'd0 : s[4:0]);
      mbqm32 = mbqm_round($signed(a) * $signed(m), (a == 32'h8000_0000) && (m == 32'h8000_0000), s);
    end
  endfunction
  // rescale20: ADD's input rescaling, MultiplyByQuantizedMultiplier(int32(v
  // << 20), m, s) with s <= 0. int32(v << 20) is v's low 12 bits times 2^20,
  // so the product is a 12x32 one, shifted.
  function automatic [31:0] rescale20(input [31:0] v, input [31:0] m, input [31:0] s);
    reg signed [63:0] p;
    begin
      p = $signed(v[11:0]) * $signed(m);
      rescale20 = mbqm_round(p <<< 20, (v[11:0] == 12'h800) && (m == 32'h8000_0000), s);
    end
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  // Parameter word k of the block (k = 0..10), compared one by one.
  function automatic [31:0] pword(input [NParams*32-1:0] p, input [3:0] k);
    integer j;
    pword = 32'h0;
    for (j = 0; j < NParams; j = j + 1) begin
      if (k == j[3:0]) begin
        pword = p[32*j +: 32];
      end
    end
  endfunction
  // The output stage: clamp(mbqm(v, m, s) + offset, min, max), the five words
  // m, s, offset, min, max from parameter k on. RQOUTNEXT requantizes operand
  // a with k = b (ADD p6, MUL p2, LAYERNORM p3); ADDNEXT and ADDFLUSH the
  // pending ADD sum with k = 6.
  // ADD is a two-stage pipeline: ADDNEXT computes the input stage of the
  // current element, mbqm((x + p0) << 20, p1, p2) + mbqm((x2 + p3) << 20, p4,
  // p5), into add_sum_q (it is pending), and in the same cycle puts the
  // previous pending element through the output stage into its byte of the
  // result row (add_lane_q; the row is written to add_waddr_q when that was
  // its last lane). ADDFLUSH puts the last one through. So one element takes
  // one cycle, and each cycle has one multiplier in its path.
  wire        add_op   = (op == UAddnext) || (op == UAddflush);
  reg  [31:0] add_sum_q, add_sum_d, addin_v, rq_in, rq_v;
  reg  [3:0]  rq_k;
  reg         add_pend_q, add_pend_d, add_last_q, add_last_d;
  reg  [LaneW-1:0] add_lane_q, add_lane_d;
  reg  [23:0] add_waddr_q, add_waddr_d;
  wire [LaneW-1:0] res_lane = add_op ? add_lane_q : lane_q;  // the lane a result byte goes to
  always @(*) begin
    addin_v = 32'h0;
    rq_v    = 32'h0;
    rq_in   = add_op ? add_sum_q : va[31:0];
    rq_k    = add_op ? 4'd6 : sb[3:0];
    if (state_q == StRun && op == UAddnext) begin
      addin_v = rescale20({{24{x_q[7]}}, x_q} + p_q[0 +: 32], p_q[32 +: 32], p_q[64 +: 32])
              + rescale20({{24{x2_q[7]}}, x2_q} + p_q[96 +: 32], p_q[128 +: 32], p_q[160 +: 32]);
    end
    if (state_q == StRun && (op == URqoutnext || add_op)) begin
      rq_v = mbqm32(rq_in, pword(p_q, rq_k), pword(p_q, rq_k + 4'd1)) + pword(p_q, rq_k + 4'd2);
      if ($signed(rq_v) < $signed(pword(p_q, rq_k + 4'd3))) rq_v = pword(p_q, rq_k + 4'd3);
      if ($signed(rq_v) > $signed(pword(p_q, rq_k + 4'd4))) rq_v = pword(p_q, rq_k + 4'd4);
    end
  end

  wire ec_hit    = (op == UEcall) && ec_hit_q;
  wire writes_rd = !op[5] || ec_hit;   // opcodes 0-31 write d; ECALL when the entry was valid
  wire ec_re     = (state_q == StRun) && (op == UEcsub);
  wire ec_we     = (state_q == StRun) && (op == UEcput);
  wire [7:0] ec_idx = vb[7:0] - va[7:0];   // max - x for ECSUB x, max
  wire is_out    = (op == UOut) || (op == UOutlut) || (op == UOutnext) || (op == UOutlutnext) ||
                   (op == URqoutnext);
  wire out_lut   = (op == UOutlut) || (op == UOutlutnext);
  wire is_next   = (op == UNext) || (op == UOutnext) || (op == UOutlutnext) || (op == URqoutnext) ||
                   (op == UAddnext);

  // ---------------------------------------------------------------- addresses
  wire [23:0] a_addr    = src_q + coff_q + {8'h0, row_q};
  wire [23:0] out_addr  = dst_q + coff_q + {8'h0, row_q};
  wire        two_in    = (func_q == FnAdd) || (func_q == FnMul);  // B is a tensor like A
  wire [23:0] x2_addr   = two_in ? src2_q + coff_q + {8'h0, row_q} : src2_q + cidx_q;
  wire [23:0] beta_addr = aux_q + cidx_q;
  wire        need_x2   = two_in || (func_q == FnLayernorm);
  wire        need_beta = (func_q == FnLayernorm);
  wire        last_el   = (el_q + 16'h1 == len_q);
  wire        last_row  = (row_q + 16'h1 == rows_q);
  wire        lane_last = (lane_q == LaneLast) || last_el;
  wire [8:0]  n_param_rows = (func_q == FnSoftmax) ? PRowsSoftmax :
                             (func_q == FnLayernorm) ? PRowsLayernorm :
                             (func_q == FnMul) ? PRowsMul : PRowsAdd;
  wire        uses_params = (func_q == FnSoftmax) || (func_q == FnLayernorm) || two_in;

  reg              spad_re, spad_we, acc_re, acc_we, param_err, cap_lut, cap_param, rf_we;
  reg [63:0]       alu;
  always @(*) begin
    alu = 64'h0;
    if (rf_we) begin
      alu = ec_hit ? sext32({32'h0, ec_q}) : alu_f(op, sb, imm, va, vb, vc);
    end
  end
  reg [23:0]       spad_raddr, spad_waddr, acc_raddr, acc_waddr;
  reg [8*N-1:0]    spad_wdata;
  reg [32*N-1:0]   acc_wdata;
  reg              cap_x, cap_x2, cap_next;
  // The next word's prefetch: while a microprogram works on the elements of
  // one scratchpad word (and of B's), the SFU reads the row's next words
  // into pfw_q / pfw2_q through the read port it leaves unused in StRun, so
  // NEXT past the word's last lane takes them without a fetch. pf_q: PfIdle,
  // PfA (A's word read, captured next cycle; B's read then), PfB (B's
  // captured next cycle), PfReady. Any fetch cancels it. Not for LAYERNORM,
  // which fetches every element (beta).
  localparam [1:0] PfIdle = 2'd0, PfA = 2'd1, PfB = 2'd2, PfReady = 2'd3;
  reg  [1:0]       pf_q, pf_d;
  reg              cap_pf, cap_pf2, cap_pfnext;
  reg  [8*N-1:0]   pfw_q, pfw2_q;
  wire [31:0]      next_chunk_el = ({8'h0, cidx_q} + 32'd1) << LaneW;
  wire             pf_more = !need_beta && (next_chunk_el < {16'h0, len_q});

  always @(*) begin
    state_d  = state_q;
    func_d   = func_q;
    src_d    = src_q;
    dst_d    = dst_q;
    src2_d   = src2_q;
    param_d  = param_q;
    aux_d    = aux_q;
    rows_d   = rows_q;
    len_d    = len_q;
    pc_d     = pc_q;
    ret_d    = ret_q;
    cnt_d    = cnt_q;
    row_d    = row_q;
    el_d     = el_q;
    lane_d   = lane_q;
    coff_d   = coff_q;
    cidx_d   = cidx_q;
    obuf_d   = obuf_q;
    add_sum_d   = add_sum_q;
    add_pend_d  = add_pend_q;
    add_lane_d  = add_lane_q;
    add_last_d  = add_last_q;
    add_waddr_d = add_waddr_q;
    spad_re  = 1'b0;
    spad_we  = 1'b0;
    acc_re   = 1'b0;
    acc_we   = 1'b0;
    spad_raddr = 24'h0;
    spad_waddr = 24'h0;
    spad_wdata = {(8*N){1'b0}};
    acc_raddr  = 24'h0;
    acc_waddr  = 24'h0;
    acc_wdata  = {(32*N){1'b0}};
    param_err  = 1'b0;
    cap_lut    = 1'b0;
    cap_param  = 1'b0;
    cap_x      = 1'b0;
    cap_x2     = 1'b0;
    cap_next   = 1'b0;
    cap_pf     = 1'b0;
    cap_pf2    = 1'b0;
    cap_pfnext = 1'b0;
    pf_d       = pf_q;
    rf_we      = 1'b0;

    case (state_q)
      StIdle: begin
        if (start_i) begin
          func_d  = func_i;
          src_d   = src_i;
          dst_d   = dst_i;
          src2_d  = src2_i;
          param_d = param_i;
          aux_d   = aux_i;
          rows_d  = rows_i;
          len_d   = len_i;
          cnt_d   = 9'h0;
          row_d   = 16'h0;
          obuf_d  = {(8*N){1'b0}};
          add_pend_d = 1'b0;
          ret_d   = 8'h0;
          state_d = (func_i == FnLutLoad) ? StLut : StParam;
        end
      end
      // Read table rows SRC..SRC+256/N-1; row k is captured in cycle k+1.
      StLut: begin
        spad_re    = (cnt_q < LutRows);
        spad_raddr = src_q + {15'h0, cnt_q};
        cap_lut    = (cnt_q != 9'h0);
        cnt_d      = cnt_q + 9'h1;
        if (cnt_q == LutRows) begin
          state_d = StIdle;
        end
      end
      // Read the parameter block (if the function has one), then run.
      StParam: begin
        acc_re    = uses_params && (cnt_q < n_param_rows);
        acc_raddr = param_q + {15'h0, cnt_q};
        cap_param = (cnt_q != 9'h0);
        cnt_d     = cnt_q + 9'h1;
        if (!uses_params || cnt_q == n_param_rows) begin
          pc_d    = entry;
          state_d = StRun;
        end
      end
      StFetchA: begin
        spad_re    = 1'b1;
        spad_raddr = a_addr;
        acc_re     = need_beta;
        acc_raddr  = beta_addr;
        state_d    = StFetchB;
      end
      StFetchB: begin
        cap_x = 1'b1;
        if (need_x2) begin
          spad_re    = 1'b1;
          spad_raddr = x2_addr;
          state_d    = StFetchC;
        end else begin
          state_d = StRun;
        end
      end
      StFetchC: begin
        cap_x2  = 1'b1;
        state_d = StRun;
      end
      StRun: begin
        pc_d  = pc_q + 8'h1;
        rf_we = writes_rd;
        // The prefetch (a fetch below overrides pf_d and ignores what it read).
        case (pf_q)
          PfIdle: begin
            if (pf_more) begin
              spad_re    = 1'b1;
              spad_raddr = a_addr + {8'h0, rows_q};
              pf_d       = PfA;
            end
          end
          PfA: begin
            cap_pf = 1'b1;
            pf_d   = PfReady;
            if (need_x2) begin
              spad_re    = 1'b1;
              spad_raddr = x2_addr + {8'h0, rows_q};
              pf_d       = PfB;
            end
          end
          PfB: begin
            cap_pf2 = 1'b1;
            pf_d    = PfReady;
          end
          default: ;
        endcase
        case (op)
          UFirst: begin
            el_d    = 16'h0;
            lane_d  = {LaneW{1'b0}};
            coff_d  = 24'h0;
            cidx_d  = 24'h0;
            pf_d    = PfIdle;
            state_d = StFetchA;
          end
          UNextrow: begin
            pf_d = PfIdle;                // (a new row starts with FIRST anyway)
            if (!last_row) begin
              row_d = row_q + 16'h1;
              pc_d  = imm[7:0];
            end
          end
          UCall: begin
            ret_d = pc_q + 8'h1;
            pc_d  = imm[7:0];
          end
          UEcall: begin
            if (!ec_hit_q) begin
              ret_d = pc_q + 8'h1;
              pc_d  = imm[7:0];
            end
          end
          URet: pc_d = ret_q;
          UOutacc: begin
            acc_we    = 1'b1;
            acc_waddr = dst_q + {8'h0, row_q};
            acc_wdata[95:0] = {vc[31:0], vb[31:0], va[31:0]};
          end
          UErrlt, UErrgt: begin
            if ((op == UErrlt) ? ($signed(va) < $signed(imm64)) : ($signed(va) > $signed(imm64))) begin
              param_err = 1'b1;
              state_d   = StIdle;
            end
          end
          UDone: state_d = StIdle;
          default: ;
        endcase
        // A result byte: this element's, or ADD's pending one (its lane and row).
        if (is_out || (add_op && add_pend_q)) begin
          obuf_d[8*res_lane +: 8] =
              out_lut ? lut_entry : (op == URqoutnext || add_op) ? rq_v[7:0] : va[7:0];
          if (add_op ? add_last_q : lane_last) begin
            spad_we    = 1'b1;
            spad_waddr = add_op ? add_waddr_q : out_addr;
            spad_wdata = obuf_d;
            obuf_d     = {(8*N){1'b0}};
          end
        end
        if (add_op) begin
          add_pend_d = (op == UAddnext);
          add_sum_d  = addin_v;
          add_lane_d = lane_q;
          add_last_d = lane_last;
          add_waddr_d = out_addr;
        end
        if (is_next && !last_el) begin
          el_d    = el_q + 16'h1;
          lane_d  = lane_q + {{(LaneW-1){1'b0}}, 1'b1};
          pc_d    = imm[7:0];
          if (lane_q == LaneLast || need_beta) begin
            if (lane_q == LaneLast) begin
              coff_d = coff_q + {8'h0, rows_q};
              cidx_d = cidx_q + 24'h1;
            end
            pf_d = PfIdle;
            if (lane_q == LaneLast && pf_q == PfReady) begin
              cap_pfnext = 1'b1;          // the next words are prefetched
            end else begin
              state_d = StFetchA;
            end
          end else begin
            // The next element is in the words already read: no fetch. (Nothing
            // writes them meanwhile: the output word of a chunk is written at its
            // last lane.) LAYERNORM's beta comes from the accumulator, not cached.
            cap_next = 1'b1;
          end
        end
      end
      default: state_d = StIdle;
    endcase
    if (clr_i) begin
      state_d = StIdle;
      pf_d    = PfIdle;
    end
  end

  // ---------------------------------------------------------------- registers
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      func_q  <= 4'h0;
      src_q   <= 24'h0;
      dst_q   <= 24'h0;
      src2_q  <= 24'h0;
      param_q <= 24'h0;
      aux_q   <= 24'h0;
      rows_q  <= 16'h0;
      len_q   <= 16'h0;
      pc_q    <= 8'h0;
      ret_q   <= 8'h0;
      cnt_q   <= 9'h0;
      row_q   <= 16'h0;
      el_q    <= 16'h0;
      lane_q  <= {LaneW{1'b0}};
      coff_q  <= 24'h0;
      cidx_q  <= 24'h0;
      obuf_q  <= {(8*N){1'b0}};
      add_pend_q <= 1'b0;
      pf_q    <= PfIdle;
    end else if (state_q != StIdle || start_i) begin   // idle without a start: nothing changes
      state_q <= state_d;
      func_q  <= func_d;
      src_q   <= src_d;
      dst_q   <= dst_d;
      src2_q  <= src2_d;
      param_q <= param_d;
      aux_q   <= aux_d;
      rows_q  <= rows_d;
      len_q   <= len_d;
      pc_q    <= pc_d;
      ret_q   <= ret_d;
      cnt_q   <= cnt_d;
      row_q   <= row_d;
      el_q    <= el_d;
      lane_q  <= lane_d;
      coff_q  <= coff_d;
      cidx_q  <= cidx_d;
      obuf_q  <= obuf_d;
      add_pend_q <= add_pend_d;
      pf_q    <= (state_q == StIdle) ? PfIdle : pf_d;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ec_valid_q <= 256'h0;
    end else if (clr_i || (state_q == StIdle && start_i)) begin
      ec_valid_q <= 256'h0;
    end else if (ec_we) begin
      ec_valid_q[ec_idx_q] <= 1'b1;
    end
  end

  // Datapath registers: only read after a microprogram or fetch wrote them
  // (the pending ADD element's only while add_pend_q says there is one; the
  // exp cache's entries only once valid).
  integer i;
  always @(posedge clk_i) begin
    if (ec_re) begin
      ec_q     <= ec_mem[ec_idx];
      ec_hit_q <= ec_valid_q[ec_idx];
      ec_idx_q <= ec_idx;
    end
    if (ec_we) begin
      ec_mem[ec_idx_q] <= va[31:0];
    end
    if (add_op && state_q == StRun) begin
      add_sum_q   <= add_sum_d;
      add_lane_q  <= add_lane_d;
      add_last_q  <= add_last_d;
      add_waddr_q <= add_waddr_d;
    end
    if (rf_we) begin
      rf_q[rd] <= alu;
    end
    if (cap_x) begin
      x_q    <= spad_rdata_i[8*lane_q +: 8];
      xw_q   <= spad_rdata_i;
      beta_q <= acc_rdata_i[32*lane_q +: 32];
    end
    if (cap_x2) begin
      x2_q  <= spad_rdata_i[8*lane_q +: 8];
      x2w_q <= spad_rdata_i;
    end
    if (cap_next) begin
      x_q <= xw_q[8*lane_d +: 8];
    end
    if (cap_pf) begin
      pfw_q <= spad_rdata_i;
    end
    if (cap_pf2) begin
      pfw2_q <= spad_rdata_i;
    end
    if (cap_pfnext) begin
      x_q   <= pfw_q[7:0];
      xw_q  <= pfw_q;
      x2_q  <= pfw2_q[7:0];
      x2w_q <= pfw2_q;
    end
    if (cap_next && need_x2) begin
      x2_q <= x2w_q[8*lane_d +: 8];
    end
    if (cap_param) begin
      for (i = 0; i < NParams; i = i + 1) begin
        if (i / N == {23'h0, cnt_q} - 1) begin
          p_q[32*i +: 32] <= acc_rdata_i[32*(i % N) +: 32];
        end
      end
    end
  end

  // The SFU's copy of the table (lut_entry is declared with the datapath).
  tsr_lut #(.N(N), .SyncRead(0)) u_lut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .clr_i   (clr_i),
    .we_i    (cap_lut),
    .waddr_i (lut_waddr),
    .wdata_i (spad_rdata_i),
    .re_i    (1'b1),
    .idx_i   (va[7:0]),
    .entry_o (lut_entry)
  );

  assign busy_o       = (state_q != StIdle);
  assign param_err_o  = param_err;
  assign spad_re_o    = spad_re;
  assign spad_raddr_o = spad_raddr[SpadAw-1:0];
  assign spad_we_o    = spad_we;
  assign spad_waddr_o = spad_waddr[SpadAw-1:0];
  assign spad_wdata_o = spad_wdata;
  assign acc_re_o     = acc_re;
  assign acc_raddr_o  = acc_raddr[AccAw-1:0];
  assign acc_we_o     = acc_we;
  assign acc_waddr_o  = acc_waddr[AccAw-1:0];
  assign acc_wdata_o  = acc_wdata;
  assign lut_we_o     = cap_lut;
  assign lut_waddr_o  = lut_waddr;
  assign lut_wdata_o  = spad_rdata_i;

  // Upper address bits were range-checked by the controller; the immediate's
  // middle bits and the upper function bit are unused by design.
  /* verilator tracing_off */  // an unused signal the model need not compute
  wire unused_bits = ^{spad_raddr[23:SpadAw], spad_waddr[23:SpadAw], acc_raddr[23:AccAw],
                       acc_waddr[23:AccAw], ins[38:32], func_q[3]};
  /* verilator tracing_on */
endmodule

`default_nettype wire
