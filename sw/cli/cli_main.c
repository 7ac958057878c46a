/* cli_main.c: the tessera command line: commands, options, parsing, usage, and the entry point. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

FILE *g_cli_out = NULL;
FILE *g_cli_err = NULL;
static const char *g_prog = "tessera";
const char *g_ctx = NULL;

/* Print "tessera: <message>" as one line. */
void die_line(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* Keep it one line whatever the message holds. */
  for (char *p = msg; *p != '\0'; p++) {
    if (*p == '\n' || *p == '\r') {
      *p = ' ';
    }
  }
  FILE *f = g_cli_err != NULL ? g_cli_err : stderr;
  if (g_ctx != NULL) {
    fprintf(f, "%s: %s: %s\n", g_prog, g_ctx, msg);
  } else {
    fprintf(f, "%s: %s\n", g_prog, msg);
  }
}

static void usage(FILE *f) {
  fprintf(f,
          "usage:\n"
          "  tessera gemm --a A.npy --b B.npy [--bias BIAS.npy] [--a-zp Z]\n"
          "               [--mult M | --mult-npy F] [--shift S | --shift-npy F]\n"
          "               [--a-scale S (--w-scale S | --w-scale-npy F) --out-scale S]\n"
          "               [--out-zp Z] [--act-min LO --act-max HI]\n"
          "               [--act NAME --out-scale S [--act-out-scale S --act-out-zp Z]\n"
          "                | --act-lut T.npy] [--leaky ALPHA]\n"
          "               [--out C.npy] [--check] [--plan] [common options]\n"
          "  tessera gemm --m M --k K --n N [--seed S] [--raw] [--out C.npy] [--plan] [common options]\n"
          "  tessera sfu --op NAME --in X.npy --in-scale S [--in-zp Z] --out-scale S [--out-zp Z]\n"
          "              [--out Y.npy] [--check] [common options]\n"
          "  tessera sfu --op lut --lut T.npy --in X.npy [--out Y.npy] [--check] [common options]\n"
          "  tessera softmax --in X.npy --in-scale S [--in-zp Z] [--beta B] [--out Y.npy] [--check]\n"
          "              [common options]\n"
          "  tessera layernorm --in X.npy --in-scale S --gamma G.npy --gamma-scale S\n"
          "              [--gamma-zp Z] --beta B.npy [--eps E] --out-scale S [--out-zp Z]\n"
          "              [--out Y.npy] [--check] [common options]\n"
          "  tessera add --a A.npy --a-scale S [--a-zp Z] --b B.npy --b-scale S [--b-zp Z]\n"
          "              --out-scale S [--out-zp Z] [--act-min LO --act-max HI] [--out Y.npy]\n"
          "              [--check] [common options]\n"
          "  tessera mul (the options of add)\n"
          "  tessera reduce --in X.npy [--out Y.npy] [--check] [common options]\n"
          "  tessera info [common options]\n"
          "  tessera bench [--dim N] [--out DIR] [--quick] [--json]\n"
          "  tessera compile MODEL.tflite -o MODEL.tsr [--dim N] [--allow-host] [--no-fuse]\n"
          "  tessera run MODEL.tflite|MODEL.tsr --input X.npy [--out Y.npy] [--check] [--layers]\n"
          "              [--dump-layers DIR] [--allow-host] [--no-fuse] [common options]\n"
          "\n"
          "gemm: A is int8 (M,K), B int8 (K,N), BIAS int32 (N,), per-channel multipliers and\n"
          "shifts int32 (N,). Without --mult the output is int32 (acc + bias); with it, int8\n"
          "through TFLite requantization (--mult without --shift means shift 0; QuantizeMultiplier\n"
          "gives 0 or 2^30..2^31-1, but any int32 works), or with the real scales of A, B (per\n"
          "tensor, or float32 (N,) per channel) and C, as TFLite derives it (float32 scales,\n"
          "QuantizeMultiplier). --a-zp is A's zero point, folded into the bias exactly. --m/--k/--n\n"
          "makes random operands and requantization parameters from --seed and always compares\n"
          "with the golden model (--raw: int32 output instead). Fused in the output stage (needs\n"
          "--mult): --act NAME tabulates NAME for the int8 output of real scale --out-scale and\n"
          "zero point --out-zp (the table's output has the same scale and zero point unless\n"
          "--act-out-scale/--act-out-zp say otherwise); --act-lut takes an int8 (256,) table\n"
          "indexed by the output byte; --leaky ALPHA (0..1) requantizes negative values with\n"
          "ALPHA times the multiplier. --plan prints the tiling, loop order, DMA bytes and\n"
          "predicted cycles (docs/performance.md) and exits without running.\n"
          "\n"
          "Special functions (SFU, docs/sfu.md): X is int8, 1-D (len,) or 2-D (rows, len),\n"
          "len <= 65535; the function works on each row. NAME is one of sigmoid, tanh, gelu,\n"
          "gelu-tanh, silu, exp, hardswish (a 256-entry table built as TFLite's LUTPopulate);\n"
          "--op lut maps through an int8 (256,) table: y = T[x mod 256]. softmax: TFLite int8\n"
          "softmax (default beta 1), output scale 1/256, zero point -128. layernorm: G int8\n"
          "(len,), B float32 (quantized to gamma-scale * 2^-12) or int32 (len,), default eps\n"
          "1e-5. add, mul: TFLite int8 ADD and MUL of equal shapes. reduce: int32 (rows, 3)\n"
          "per row: max, sum, sum of squares. Zero points default to 0. --check compares with\n"
          "the golden model; --json reports op, rows, len, cycles, cycles_per_element,\n"
          "bus_read_bytes, bus_write_bytes and the plan.\n"
          "\n"
          "bench: the GEMM sweep of docs/performance.md (square 16^3..1024^3, M = 1..256 at\n"
          "K = N = 1024, ResNet-50 and BERT-base GEMMs, 1..16 bytes per cycle at 256^3), each\n"
          "point a random 'gemm --seed 1' checked against the golden model (exit 1 on a\n"
          "mismatch), on the simulator with the default memory model. Writes DIR/bench.json,\n"
          "bench.csv, roofline.dat and roofline.gp (default DIR build/bench) and, with gnuplot\n"
          "on the PATH, roofline.png and roofline.svg. --quick: 12 of the 23 points (a smoke\n"
          "test); --json: print bench.json on stdout instead of a line per point.\n"
          "\n"
          "compile/run (docs/networks.md): int8 TFLite MLPs: FULLY_CONNECTED, RESHAPE, SOFTMAX,\n"
          "QUANTIZE/DEQUANTIZE at the edges (on the host). compile writes the program (layers,\n"
          "weights in the chip's layout, memory plan); run takes it or a .tflite, X.npy of the\n"
          "model input's type and element count; --layers: cycles and commands per layer;\n"
          "--check: each chip layer against the golden model (bit-exact: yes/NO, exit 1 on NO);\n"
          "--dump-layers DIR: each chip layer's output as DIR/op<operator index>.npy (a layer\n"
          "at a time, as --layers).\n"
          "--allow-host: MUL and MAX_POOL_2D run on the host (golden model), marked host.\n"
          "--no-fuse: a LOGISTIC, TANH, HARD_SWISH, RELU or RELU6 after a FULLY_CONNECTED or\n"
          "CONV_2D stays a layer of its own (an SFU pass) instead of going into its STOREs.\n"
          "\n"
          "common options:\n"
          "  --dim N              array size of the simulator build (default 8)\n"
          "  --json               one JSON object on stdout instead of the summary\n"
          "  --trace F.fst        write a waveform\n"
          "  --mem-latency L      memory read/write latency in cycles (default 10)\n"
          "  --mem-bw B           memory bandwidth cap in bytes per cycle (0: bus width)\n"
          "  --stall-pct P        0..100: chance the memory withholds ready/valid each cycle\n"
          "  --seed S             seed of random operands and memory stalls (default 1)\n"
          "  --max-mt R --max-kc K  cap the tiler's tile rows / K chunk (experiments)\n"
          "  --hal SPEC           backend: sim (default), uart:PATH[,BAUD] (a board running\n"
          "                       fpga/tsr_uart_top.v, default 115200 baud) or uart-sim (that\n"
          "                       board simulated; make uart-sim) or soc (the firmware\n"
          "                       image on the co-simulation SoC's RISC-V core runs the job;\n"
          "                       make soc-sim fw-elf; docs/soc.md); may also come before the\n"
          "                       command: tessera --hal uart:/dev/ttyUSB1 gemm ...\n"
          "  --submit stream|regs how commands reach the chip: a command ring in device memory\n"
          "                       that the chip fetches (default), or register writes each;\n"
          "                       --json reports submit and host_reg_accesses\n"
          "  --device SPEC        real hardware: uio:/dev/uioN or devmem:BASE[,SIZE]\n"
          "  --dma SPEC           with --device: external memory devmem:BASE,SIZE\n"
          "\n"
          "exit status: 0 ok, 1 result differs from the golden model, 2 error\n");
}

/* ---- Options ---------------------------------------------------------------------------- */

static const struct {
  const char *name;
  unsigned bit;
} k_cmds[] = {{"gemm", C_GEMM},       {"info", C_INFO},           {"sfu", C_SFU},
              {"softmax", C_SOFTMAX}, {"layernorm", C_LAYERNORM}, {"add", C_ADD},
              {"mul", C_MUL},         {"reduce", C_REDUCE},       {"bench", C_BENCH},
              {"compile", C_COMPILE}, {"run", C_RUN}};

unsigned cmd_bit(const char *name) {
  for (size_t i = 0; i < sizeof k_cmds / sizeof k_cmds[0]; i++) {
    if (strcmp(k_cmds[i].name, name) == 0) {
      return k_cmds[i].bit;
    }
  }
  return 0u;
}

typedef struct opt_def {
  const char *name;
  bool has_value;
  unsigned cmds; /* the commands that take it */
} opt_def_t;

static const opt_def_t k_opts[O_COUNT] = {
    [O_A] = {"a", true, C_GEMM | C_TWO},
    [O_B] = {"b", true, C_GEMM | C_TWO},
    [O_BIAS] = {"bias", true, C_GEMM},
    [O_MULT] = {"mult", true, C_GEMM},
    [O_MULT_NPY] = {"mult-npy", true, C_GEMM},
    [O_SHIFT] = {"shift", true, C_GEMM},
    [O_SHIFT_NPY] = {"shift-npy", true, C_GEMM},
    [O_OUT_ZP] = {"out-zp", true, C_GEMM | C_SFU | C_LAYERNORM | C_TWO},
    [O_ACT_MIN] = {"act-min", true, C_GEMM | C_TWO},
    [O_ACT_MAX] = {"act-max", true, C_GEMM | C_TWO},
    [O_OUT] = {"out", true, C_GEMM | C_SFUS | C_BENCH | C_COMPILE | C_RUN},
    [O_M] = {"m", true, C_GEMM},
    [O_K] = {"k", true, C_GEMM},
    [O_N] = {"n", true, C_GEMM},
    [O_SEED] = {"seed", true, C_ALL},
    [O_CHECK] = {"check", false, C_GEMM | C_SFUS | C_RUN},
    [O_RAW] = {"raw", false, C_GEMM},
    [O_DIM] = {"dim", true, C_ALL | C_BENCH | C_COMPILE},
    [O_JSON] = {"json", false, C_ALL | C_BENCH},
    [O_TRACE] = {"trace", true, C_ALL},
    [O_MEM_LATENCY] = {"mem-latency", true, C_ALL},
    [O_MEM_BW] = {"mem-bw", true, C_ALL},
    [O_STALL_PCT] = {"stall-pct", true, C_ALL},
    [O_MAX_MT] = {"max-mt", true, C_GEMM},
    [O_MAX_KC] = {"max-kc", true, C_GEMM},
    [O_DEVICE] = {"device", true, C_ALL},
    [O_DMA] = {"dma", true, C_ALL},
    [O_HAL] = {"hal", true, C_ALL},
    [O_SUBMIT] = {"submit", true, C_ALL},
    [O_OP] = {"op", true, C_SFU},
    [O_IN] = {"in", true, C_SFU | C_SOFTMAX | C_LAYERNORM | C_REDUCE},
    [O_IN_SCALE] = {"in-scale", true, C_SFU | C_SOFTMAX | C_LAYERNORM},
    [O_IN_ZP] = {"in-zp", true, C_SFU | C_SOFTMAX},
    [O_OUT_SCALE] = {"out-scale", true, C_GEMM | C_SFU | C_LAYERNORM | C_TWO},
    [O_LUT] = {"lut", true, C_SFU},
    [O_BETA] = {"beta", true, C_SOFTMAX | C_LAYERNORM},
    [O_GAMMA] = {"gamma", true, C_LAYERNORM},
    [O_GAMMA_SCALE] = {"gamma-scale", true, C_LAYERNORM},
    [O_GAMMA_ZP] = {"gamma-zp", true, C_LAYERNORM},
    [O_EPS] = {"eps", true, C_LAYERNORM},
    [O_A_SCALE] = {"a-scale", true, C_GEMM | C_TWO},
    [O_A_ZP] = {"a-zp", true, C_GEMM | C_TWO},
    [O_B_SCALE] = {"b-scale", true, C_TWO},
    [O_B_ZP] = {"b-zp", true, C_TWO},
    [O_W_SCALE] = {"w-scale", true, C_GEMM},
    [O_W_SCALE_NPY] = {"w-scale-npy", true, C_GEMM},
    [O_ACT] = {"act", true, C_GEMM},
    [O_ACT_LUT] = {"act-lut", true, C_GEMM},
    [O_ACT_OUT_SCALE] = {"act-out-scale", true, C_GEMM},
    [O_ACT_OUT_ZP] = {"act-out-zp", true, C_GEMM},
    [O_LEAKY] = {"leaky", true, C_GEMM},
    [O_PLAN] = {"plan", false, C_GEMM},
    [O_QUICK] = {"quick", false, C_BENCH},
    [O_INPUT] = {"input", true, C_RUN},
    [O_LAYERS] = {"layers", false, C_RUN},
    [O_DUMP_LAYERS] = {"dump-layers", true, C_RUN},
    [O_ALLOW_HOST] = {"allow-host", false, C_RUN | C_COMPILE},
    [O_NO_FUSE] = {"no-fuse", false, C_RUN | C_COMPILE},
};

const char *opt_name(opt_id_t id) { return k_opts[id].name; }

int parse_args(int argc, char **argv, args_t *a) {
  memset(a, 0, sizeof *a);
  a->cmd = argv[1];
  const unsigned cmd = cmd_bit(a->cmd);
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
      die_line("%s: unexpected argument '%s' (options start with --; see 'tessera --help')",
               a->cmd, arg);
      return -1;
    }
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    int id = -1;
    for (int o = 0; o < O_COUNT; o++) {
      if (strlen(k_opts[o].name) == len && strncmp(k_opts[o].name, name, len) == 0) {
        id = o;
        break;
      }
    }
    if (id < 0 || (k_opts[id].cmds & cmd) == 0u) {
      die_line("%s: unknown option '%.*s' (see 'tessera --help')", a->cmd, (int)(len + 2), arg);
      return -1;
    }
    if (a->set[id]) {
      die_line("%s: option '--%s' given twice", a->cmd, k_opts[id].name);
      return -1;
    }
    const char *value = NULL;
    if (k_opts[id].has_value) {
      if (eq != NULL) {
        value = eq + 1;
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        die_line("%s: option '--%s' needs a value", a->cmd, k_opts[id].name);
        return -1;
      }
      if (value[0] == '\0') {
        die_line("%s: option '--%s' needs a value", a->cmd, k_opts[id].name);
        return -1;
      }
    } else if (eq != NULL) {
      die_line("%s: option '--%s' takes no value", a->cmd, k_opts[id].name);
      return -1;
    }
    a->set[id] = true;
    a->val[id] = value;
  }
  return 0;
}

int tessera_cli_main(int argc, char **argv) {
  if (g_cli_out == NULL) {
    g_cli_out = stdout;
  }
  if (g_cli_err == NULL) {
    g_cli_err = stderr;
  }
  /* `tessera --hal SPEC CMD ...` is `tessera CMD ... --hal SPEC`. */
  char *moved[4096];
  if (argc >= 2 && strncmp(argv[1], "--hal", 5) == 0 && (argv[1][5] == '\0' || argv[1][5] == '=') &&
      argc < (int)(sizeof moved / sizeof moved[0])) {
    const int take = argv[1][5] == '=' ? 1 : 2;
    if (argc < take + 2) {
      die_line("--hal needs a value and a command (tessera --hal SPEC gemm ...)");
      return EXIT_ERROR;
    }
    int n = 0;
    moved[n++] = argv[0];
    for (int i = 1 + take; i < argc; i++) {
      moved[n++] = argv[i];
    }
    for (int i = 1; i < 1 + take; i++) {
      moved[n++] = argv[i];
    }
    moved[n] = NULL;
    argv = moved;
  }
  if (argc < 2) {
    usage(g_cli_err);
    return EXIT_ERROR;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(g_cli_out);
    return 0;
  }
  if (cmd_bit(argv[1]) == 0u) {
    die_line("unknown command '%s' (commands: gemm, sfu, softmax, layernorm, add, mul, reduce,"
             " info,"
             " bench, compile, run; see 'tessera --help')",
             argv[1]);
    return EXIT_ERROR;
  }
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(g_cli_out);
      return 0;
    }
  }
  if (cmd_bit(argv[1]) & (C_COMPILE | C_RUN)) {
    return cmd_net(argc, argv);
  }
  args_t ar;
  if (parse_args(argc, argv, &ar) != 0) {
    return EXIT_ERROR;
  }
  switch (cmd_bit(ar.cmd)) {
    case C_GEMM:
      return cmd_gemm(&ar);
    case C_INFO:
      return cmd_info(&ar);
    case C_BENCH:
      return cmd_bench(&ar);
    default:
      return cmd_sfu_family(&ar);
  }
}
