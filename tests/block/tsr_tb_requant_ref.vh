// tsr_tb_requant_ref.vh: a plain Verilog model of one output-stage lane, for the benches (include inside the module).
//
// The spec of docs/commands.md (STORE) and sw/golden/tsr_golden.c, written out in 64-bit
// arithmetic: TFLite's MultiplyByQuantizedMultiplier (srdhm, then a rounding right shift,
// ties away from zero), zero point, clamp, table. The benches check the RTL against the
// golden C model through DPI-C under Verilator and against this model everywhere (it is
// the only reference under Icarus, which has no DPI).
//   lut_ref[256]            the table as the bench wrote it (the bench keeps it)
//   sx6(s)                  a 6-bit signed shift as an integer
//   ref_mbqm(x, m, shift)   mbqm, shift -31..30
//   ref_out(...)            {value before the clamp, lane output}

  reg [7:0] lut_ref [0:255];   // the table as written (all 0 after reset or a clear)

  function automatic integer sx6(input [5:0] v);   // a 6-bit signed shift as an integer
    sx6 = {{26{v[5]}}, v};
  endfunction

  function automatic [31:0] ref_mbqm(input [31:0] x, input [31:0] m, input integer sh);
    reg signed [63:0] ab, sum, q;
    reg [31:0] xl, s, mask, rem, thr;
    integer left, right;
    begin
      left  = (sh > 0) ? sh : 0;
      right = (sh > 0) ? 0 : -sh;
      xl    = x << left;                                   // wraps, as TFLite
      if (xl == 32'h8000_0000 && m == 32'h8000_0000) begin
        s = 32'h7fff_ffff;                                    // the one saturating product
      end else begin
        ab  = $signed({{32{xl[31]}}, xl}) * $signed({{32{m[31]}}, m});
        sum = ab + ((ab >= 0) ? 64'sd1073741824 : -64'sd1073741823);
        q   = (sum >= 0) ? (sum >>> 31) : -((-sum) >>> 31); // toward zero
        s   = q[31:0];
      end
      mask = (32'd1 << right) - 32'd1;                     // rounding divide by 2^right,
      rem  = s & mask;                                     // ties away from zero
      thr  = (mask >> 1) + {31'd0, s[31]};
      ref_mbqm = $unsigned($signed(s) >>> right) + ((rem > thr) ? 32'd1 : 32'd0);
    end
  endfunction

  // Returns {y before the clamp (requant), output}.
  function automatic [63:0] ref_out(input [31:0] a, input be, input [31:0] b, input rq,
                                    input [31:0] m, input [5:0] sh, input [7:0] z,
                                    input [7:0] lo, input [7:0] hi, input lk,
                                    input [31:0] mn, input [5:0] shn, input le);
    reg [31:0] x, y, o;
    begin
      x = a + (be ? b : 32'd0);
      if (lk && x[31]) y = ref_mbqm(x, mn, sx6(shn)) + {{24{z[7]}}, z};
      else             y = ref_mbqm(x, m, sx6(sh)) + {{24{z[7]}}, z};
      if (!rq)                                           o = x;
      else if ($signed(y) < $signed({{24{lo[7]}}, lo}))  o = {{24{lo[7]}}, lo};
      else if ($signed(y) > $signed({{24{hi[7]}}, hi}))  o = {{24{hi[7]}}, hi};
      else                                               o = y;
      if (rq && le) o = {{24{lut_ref[o[7:0]][7]}}, lut_ref[o[7:0]]};
      ref_out = {y, o};
    end
  endfunction

