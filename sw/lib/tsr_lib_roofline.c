/* tsr_lib_roofline.c: libtessera's roofline plot of the bench sweep: roofline.gp with its labels placed, and gnuplot run on it. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tsr_lib_internal.h"

/* ---- The roofline plot: roofline.gp and where its labels go ------------------------------------ */

/*
 * gnuplot draws roofline.gp on a 1200x800 canvas (tessera_bench_plot: the PNG, and the SVG
 * that docs/performance.md shows) with the plot area pinned by the margins, so the pixel of
 * a point follows from its coordinates alone, and the labels are placed here, not by gnuplot.
 * A label's box comes from the advance widths of DejaVu Sans as pngcairo draws the label font
 * (the SVG's Arial is narrower, so its text fits in the same boxes). Points that share a spot
 * (within RF_SAME px) share one stack of labels. Then, the most crowded spot first, each
 * stack takes the cheapest place that lies in the plot and clears every marker, every other
 * label, the key, the bus's roof and the other leader lines (rf_cost). A place costs its
 * distance, sideways counting 1.5 times, plus a charge for each roof line or leader it
 * crosses. A label away from its point is joined to it by a thin line in its group's colour.
 * The y axis starts just below the lowest point; the points stay at their measured
 * coordinates. tests/unit/test_roofline.c checks the layout with its own copy of the font model.
 */
#define RF_W 1200.0
#define RF_H 800.0
static const double k_rf_margin[4] = {0.08, 0.97, 0.09, 0.92}; /* left, right, bottom, top */
#define RF_FONT 10.0   /* points; the labels' font is ",10" */
#define RF_PADX 4.0    /* px kept clear left and right of a label */
#define RF_PADY 1.5    /* and above and below a stack */
#define RF_LINE 0.5    /* px between the lines of a stack */
#define RF_SAME 3.0    /* px: points this close share a stack of labels */
#define RF_NEAR 15.0   /* px from a point to its label beyond which a leader is drawn */
#define RF_STEP 3      /* px between the places tried */
#define RF_REACH 120   /* steps: the farthest a label goes from its point */
#define RF_CROSS 60.0  /* cost, in px, of a label across a roof line */
#define RF_TANGLE 40.0 /* cost of a leader across another leader or over another marker */

/* The marker of each group (tsr_lib_bench_groups order): gnuplot's point type and size (drawn about 4 ps
 * px from its centre each way) and the half side of the square that labels keep clear of. */
static const struct {
  const char *title, *color;
  int pt;
  double ps, half;
} k_rf_style[5] = {
    {"square (M = K = N)", "#1f77b4", 7, 1.2, 6.0},
    {"batch (K = N = 1024)", "#e6700a", 9, 1.5, 7.0},
    {"ResNet-50 layers", "#2a9d2a", 13, 1.5, 7.0},
    {"BERT-base layers", "#d62728", 5, 1.1, 6.0},
    {"256^3 at a bandwidth (ring)", "#8c4fbf", 6, 2.4, 10.0},
};

typedef struct {
  double x0, y0, x1, y1; /* pixels, y up */
} rf_box_t;

/* A point, its marker, its label's text around the anchor and, once placed, the anchor and
 * the leader's end (lx, ly) if it has one. */
typedef struct {
  double px, py, half, vis, w, up, down; /* vis: the half side the marker is drawn with */
  size_t stack;
  double ax, ay, lx, ly;
  bool leader;
} rf_point_t;

/* The labels of the points at one spot, one above the other: pt[mem[0..count)]. */
typedef struct {
  size_t mem[TESSERA_BENCH_MAX_POINTS], count;
  double w, h;
  bool right, placed;
  rf_box_t box;
} rf_stack_t;

typedef struct {
  int16_t gap, dy; /* px from the point to the stack's near side; the stack's centre above it */
  int16_t left;    /* the stack lies left of the point (its labels right-justified) */
  float cost;
} rf_cand_t;

typedef struct {
  double lx0, lx1, ly0, ly1; /* log10 of the axis ranges */
  rf_box_t area, key;        /* the plot area and the key inside it */
  double roof[8][6];         /* each roof: three points */
  size_t nroof, n, nstack;
  rf_point_t pt[TESSERA_BENCH_MAX_POINTS];
  rf_stack_t st[TESSERA_BENCH_MAX_POINTS];
} rf_plot_t;

static double rf_px(const rf_plot_t *p, double x) {
  return p->area.x0 + (log10(x) - p->lx0) / (p->lx1 - p->lx0) * (p->area.x1 - p->area.x0);
}

static double rf_py(const rf_plot_t *p, double y) {
  return p->area.y0 + (log10(y) - p->ly0) / (p->ly1 - p->ly0) * (p->area.y1 - p->area.y0);
}

/* Advance width of a character of DejaVu Sans in px per point of font size, as pngcairo draws it. */
static double rf_char_w(char c) {
  static const char k_chars[] = "0123456789xM=B/c ";
  static const double k_w[] = {0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8,
                               0.8, 0.8, 1.2, 1.1, 0.9, 0.45, 0.7, 0.4};
  const char *at = c != '\0' ? strchr(k_chars, c) : NULL;
  return at != NULL ? k_w[at - k_chars] : 1.2;
}

/* The text's extent around its anchor in px (gnuplot centres it vertically on the anchor);
 * "^d" is an enhanced-text superscript: 0.8 wide, raised. */
static void rf_text_size(const char *s, double *w, double *up, double *down) {
  double width = 0.0;
  bool sup = false;
  for (; *s != '\0'; s++) {
    if (*s == '^' && s[1] != '\0') {
      sup = true;
      width += 0.8 * rf_char_w(*++s);
    } else {
      width += rf_char_w(*s);
    }
  }
  *w = width * RF_FONT;
  *up = (sup ? 0.9 : 0.6) * RF_FONT;
  *down = 0.65 * RF_FONT;
}

static bool rf_overlap(const rf_box_t *a, const rf_box_t *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Whether the segment s (x0, y0, x1, y1) meets the box (Liang-Barsky). */
static bool rf_seg_hits(const double s[4], const rf_box_t *r) {
  const double dx = s[2] - s[0], dy = s[3] - s[1];
  const double pp[4] = {-dx, dx, -dy, dy};
  const double q[4] = {s[0] - r->x0, r->x1 - s[0], s[1] - r->y0, r->y1 - s[1]};
  double t0 = 0.0, t1 = 1.0;
  for (int i = 0; i < 4; i++) {
    if (pp[i] == 0.0 && q[i] < 0.0) {
      return false;
    }
    if (pp[i] != 0.0) {
      const double t = q[i] / pp[i];
      t0 = pp[i] < 0.0 && t > t0 ? t : t0;
      t1 = pp[i] > 0.0 && t < t1 ? t : t1;
    }
  }
  return t0 < t1;
}

static double rf_orient(const double s[4], double x, double y) {
  return (s[2] - s[0]) * (y - s[1]) - (s[3] - s[1]) * (x - s[0]);
}

/* Whether two segments cross (touching does not count). */
static bool rf_segs_cross(const double a[4], const double b[4]) {
  return rf_orient(b, a[0], a[1]) * rf_orient(b, a[2], a[3]) < 0.0 &&
         rf_orient(a, b[0], b[1]) * rf_orient(a, b[2], b[3]) < 0.0;
}

/* The box of point q's label text. */
static rf_box_t rf_text_box(const rf_point_t *q, bool right) {
  const double x0 = right ? q->ax - q->w : q->ax;
  return (rf_box_t){x0, q->ay - q->down, x0 + q->w, q->ay + q->up};
}

/* How far a point is from a box. */
static double rf_dist(const rf_box_t *b, double x, double y) {
  const double dx = x < b->x0 ? b->x0 - x : x > b->x1 ? x - b->x1 : 0.0;
  const double dy = y < b->y0 ? b->y0 - y : y > b->y1 ? y - b->y1 : 0.0;
  return hypot(dx, dy);
}

/* Stack s at candidate c: its box, each label's anchor and leader. */
static void rf_put(rf_plot_t *p, rf_stack_t *s, const rf_cand_t *c) {
  const rf_point_t *first = &p->pt[s->mem[0]];
  s->right = c->left != 0;
  s->box.x0 = s->right ? first->px - c->gap - s->w : first->px + c->gap;
  s->box.x1 = s->box.x0 + s->w;
  s->box.y1 = first->py + c->dy + s->h / 2.0;
  s->box.y0 = s->box.y1 - s->h;
  double y = s->box.y1 - RF_PADY;
  for (size_t m = 0; m < s->count; m++) {
    rf_point_t *q = &p->pt[s->mem[m]];
    q->ax = s->right ? s->box.x1 - RF_PADX : s->box.x0 + RF_PADX;
    q->ay = y - q->up;
    y -= q->up + q->down + RF_LINE;
    /* The leader ends at the near side of the label, half way up; none if the label is near. */
    q->lx = s->right ? q->ax + 1.0 : q->ax - 1.0;
    q->ly = q->ay;
    const rf_box_t tb = rf_text_box(q, s->right);
    q->leader = rf_dist(&tb, q->px, q->py) > RF_NEAR;
  }
}

/*
 * The cost of stack si at candidate c, or -1 if the place is not free: in the plot, clear of
 * the key, the bus's roof, every marker and every label placed; no leader through a label or
 * over a marker that does not touch its own; a label without a leader nearer its own point
 * than any other.
 */
static double rf_cost(rf_plot_t *p, size_t si, const rf_cand_t *c) {
  rf_stack_t *s = &p->st[si];
  rf_put(p, s, c);
  const rf_box_t *b = &s->box;
  if (b->x0 < p->area.x0 + 2.0 || b->x1 > p->area.x1 - 2.0 || b->y0 < p->area.y0 + 2.0 ||
      b->y1 > p->area.y1 - 2.0 || rf_overlap(b, &p->key)) {
    return -1.0;
  }
  for (size_t j = 0; j < p->nstack; j++) {
    if (j != si && p->st[j].placed && rf_overlap(b, &p->st[j].box)) {
      return -1.0;
    }
  }
  double cost = c->cost;
  for (size_t m = 0; m < s->count; m++) {
    const rf_point_t *q = &p->pt[s->mem[m]];
    const double seg[4] = {q->px, q->py, q->lx, q->ly};
    const rf_box_t tb = rf_text_box(q, s->right);
    const double own = rf_dist(&tb, q->px, q->py) - q->half;
    for (size_t j = 0; j < p->n; j++) {
      const rf_point_t *o = &p->pt[j];
      const rf_box_t mk = {o->px - o->half, o->py - o->half, o->px + o->half, o->py + o->half};
      if (rf_overlap(b, &mk)) {
        return -1.0;
      }
      if (o->stack == si) {
        continue;
      }
      const bool touch = fabs(o->px - q->px) < o->vis + q->vis && fabs(o->py - q->py) < o->vis + q->vis;
      if (q->leader ? !touch && rf_seg_hits(seg, &mk) : rf_dist(&tb, o->px, o->py) - o->half <= own + 3.0) {
        return -1.0;
      }
      if (!p->st[o->stack].placed) {
        continue;
      }
      const double oseg[4] = {o->px, o->py, o->lx, o->ly};
      if ((q->leader && rf_seg_hits(seg, &p->st[o->stack].box)) || (o->leader && rf_seg_hits(oseg, b))) {
        return -1.0;
      }
      cost += q->leader && o->leader && rf_segs_cross(seg, oseg) ? RF_TANGLE : 0.0;
    }
    for (size_t r = 0; r < p->nroof; r++) {
      const double r0[4] = {p->roof[r][0], p->roof[r][1], p->roof[r][2], p->roof[r][3]};
      const double r1[4] = {p->roof[r][2], p->roof[r][3], p->roof[r][4], p->roof[r][5]};
      cost += q->leader && (rf_segs_cross(seg, r0) || rf_segs_cross(seg, r1)) ? RF_CROSS / 4.0 : 0.0;
      if (m == 0 && (rf_seg_hits(r0, b) || rf_seg_hits(r1, b))) {
        if (r == 0) {
          return -1.0; /* the bus's roof, drawn thick */
        }
        cost += RF_CROSS;
      }
    }
  }
  return cost;
}

/* The cheapest free place of stack si, into *at; -1 if there is none. */
static double rf_best(rf_plot_t *p, size_t si, const rf_cand_t *cand, size_t ncand, size_t *at) {
  double best = -1.0;
  for (size_t c = 0; c < ncand && (best < 0.0 || cand[c].cost < best); c++) {
    const double cost = rf_cost(p, si, &cand[c]);
    if (cost >= 0.0 && (best < 0.0 || cost < best)) {
      best = cost;
      *at = c;
    }
  }
  return best;
}

static int rf_cand_cmp(const void *a, const void *b) {
  const rf_cand_t *x = a, *y = b;
  if (x->cost != y->cost) {
    return x->cost < y->cost ? -1 : 1;
  }
  return x->left != y->left ? x->left - y->left : x->gap != y->gap ? x->gap - y->gap : x->dy - y->dy;
}

/* Place the stacks one by one, each at its cheapest free place, the most crowded spots first
 * (they need the way out); the stacks that found no free place move to the front and the
 * layout starts again. If that does not help, they stay right of their points. */
static void rf_layout(rf_plot_t *p) {
  const size_t ncand = 2u * (RF_REACH + 1u) * (2u * RF_REACH + 1u);
  rf_cand_t *cand = malloc(ncand * sizeof *cand);
  size_t order[TESSERA_BENCH_MAX_POINTS], crowd[TESSERA_BENCH_MAX_POINTS];
  for (size_t i = 0; i < p->nstack; i++) {
    const rf_point_t *a = &p->pt[p->st[i].mem[0]];
    crowd[i] = 0;
    for (size_t j = 0; j < p->n; j++) {
      crowd[i] += hypot(a->px - p->pt[j].px, a->py - p->pt[j].py) < 50.0;
    }
    size_t k = i;
    for (; k > 0 && crowd[order[k - 1]] < crowd[i]; k--) {
      order[k] = order[k - 1];
    }
    order[k] = i;
  }
  size_t k = 0;
  for (int left = 0; cand != NULL && left < 2; left++) {
    for (int g = 0; g <= RF_REACH; g++) {
      for (int d = -RF_REACH; d <= RF_REACH; d++) {
        cand[k++] = (rf_cand_t){(int16_t)(g * RF_STEP), (int16_t)(d * RF_STEP), (int16_t)left,
                                (float)(hypot(1.5 * g * RF_STEP, d * RF_STEP) + left)};
      }
    }
  }
  if (cand != NULL) {
    qsort(cand, ncand, sizeof *cand, rf_cand_cmp);
  }
  for (size_t round = 0; round <= 2u * p->nstack; round++) {
    size_t next[TESSERA_BENCH_MAX_POINTS], nstuck = 0;
    for (size_t i = 0; i < p->nstack; i++) {
      p->st[i].placed = false;
    }
    for (size_t o = 0; o < p->nstack; o++) {
      rf_stack_t *s = &p->st[order[o]];
      size_t at = 0;
      if (cand != NULL && rf_best(p, order[o], cand, ncand, &at) >= 0.0) {
        rf_put(p, s, &cand[at]);
      } else {
        rf_put(p, s, &(rf_cand_t){(int16_t)(p->pt[s->mem[0]].half + 1.0), 0, 0, 0.0f});
        next[nstuck++] = order[o];
      }
      s->placed = true;
    }
    if (nstuck == 0 || cand == NULL) {
      break;
    }
    for (size_t o = 0, at = nstuck; o < p->nstack; o++) {
      bool stuck = false;
      for (size_t j = 0; j < nstuck; j++) {
        stuck = stuck || next[j] == order[o];
      }
      if (!stuck) {
        next[at++] = order[o];
      }
    }
    memcpy(order, next, p->nstack * sizeof order[0]);
  }
  free(cand);
}

/* The largest of 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is <= v. */
static double rf_nice_floor(double v) {
  static const double k_mant[] = {8.0, 6.0, 5.0, 4.0, 3.0, 2.5, 2.0, 1.5, 1.25, 1.0};
  const double dec = pow(10.0, floor(log10(v)));
  size_t i = 0;
  while (i + 1 < sizeof k_mant / sizeof k_mant[0] && k_mant[i] * dec > v * (1.0 + 1e-9)) {
    i++;
  }
  return k_mant[i] * dec;
}

/* "set Xtics (...)": the 1-2-5 values in [lo, hi]. */
static void rf_tics(FILE *f, char axis, double lo, double hi) {
  char b[40];
  const char *sep = "";
  fprintf(f, "set %ctics (", axis);
  for (double dec = pow(10.0, floor(log10(lo))); dec <= hi; dec *= 10.0) {
    for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
      if (dec * m >= lo * (1.0 - 1e-9) && dec * m <= hi * (1.0 + 1e-9)) {
        fprintf(f, "%s%s", sep, tsr_lib_fmt_round(b, dec * m, 6));
        sep = ", ";
      }
    }
  }
  fprintf(f, ")\n");
}

static size_t rf_group(const char *group) {
  size_t g = 0;
  while (g < 4 && strcmp(group, tsr_lib_bench_groups[g]) != 0) {
    g++;
  }
  return g;
}

/* The axes, roofs, key and points of the plot in pixels, and the labels placed. */
static void rf_plan(rf_plot_t *p, const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows,
                    const double *xs, const double *ys, const uint32_t *bws, size_t nbw,
                    const double range[4]) {
  p->lx0 = log10(range[0]);
  p->lx1 = log10(range[1]);
  p->ly0 = log10(range[2]);
  p->ly1 = log10(range[3]);
  p->area = (rf_box_t){k_rf_margin[0] * RF_W, k_rf_margin[2] * RF_H, k_rf_margin[1] * RF_W,
                       k_rf_margin[3] * RF_H};
  for (size_t r = 0; r < nbw; r++) {
    const double knee = (double)meta->peak / bws[r] < range[1] ? (double)meta->peak / bws[r] : range[1];
    const double xy[6] = {range[0], range[0] * bws[r], knee, knee * bws[r], range[1], knee * bws[r]};
    for (int j = 0; j < 6; j++) {
      p->roof[r][j] = j % 2 == 0 ? rf_px(p, xy[j]) : rf_py(p, xy[j]);
    }
  }
  p->nroof = nbw;
  /* The key, top left: a line per roof and per group in the terminal's 12 pt font. */
  p->key = (rf_box_t){p->area.x0, p->area.y1 - (double)(nbw + 5u) * 19.0 - 14.0,
                      p->area.x0 + 480.0, p->area.y1};
  for (size_t i = 0; i < p->n; i++) {
    rf_point_t *q = &p->pt[i];
    q->px = rf_px(p, xs[i]);
    q->py = rf_py(p, ys[i]);
    q->half = k_rf_style[rf_group(rows[i].pt.group)].half;
    q->vis = 4.0 * k_rf_style[rf_group(rows[i].pt.group)].ps;
    rf_text_size(rows[i].pt.label, &q->w, &q->up, &q->down);
    size_t s = 0;
    while (s < p->nstack && hypot(p->pt[p->st[s].mem[0]].px - q->px, p->pt[p->st[s].mem[0]].py - q->py) > RF_SAME) {
      s++;
    }
    rf_stack_t *st = &p->st[s];
    p->nstack += s == p->nstack;
    st->mem[st->count++] = i;
    q->stack = s;
    st->w = q->w + 2.0 * RF_PADX > st->w ? q->w + 2.0 * RF_PADX : st->w;
    st->h += q->up + q->down + (st->count == 1 ? 2.0 * RF_PADY : RF_LINE);
  }
  rf_layout(p);
}

/* roofline.gp, which reads roofline.dat from its own directory. */
void tsr_lib_roofline_gp(FILE *f, const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows,
                         size_t n) {
  char b[4][40];
  rf_plot_t *p = calloc(1, sizeof *p);
  if (p == NULL) {
    fprintf(f, "# out of memory\n");
    return;
  }
  p->n = n < TESSERA_BENCH_MAX_POINTS ? n : TESSERA_BENCH_MAX_POINTS;
  const unsigned peak = meta->peak, bus = meta->axi_bytes;
  /* The coordinates as roofline.dat has them; the y axis starts a little below the lowest. */
  double xs[TESSERA_BENCH_MAX_POINTS], ys[TESSERA_BENCH_MAX_POINTS];
  double range[4] = {1.0, 1.0, peak, 2.0 * peak};
  for (size_t i = 0; i < p->n; i++) {
    xs[i] = strtod(tsr_lib_fmt_round(b[0], rows[i].intensity, 4), NULL);
    ys[i] = strtod(tsr_lib_fmt_round(b[0], rows[i].attained, 4), NULL);
    range[0] = i == 0 || xs[i] < range[0] ? xs[i] : range[0];
    range[1] = i == 0 || xs[i] > range[1] ? xs[i] : range[1];
    range[2] = ys[i] > 0.0 && ys[i] < range[2] ? ys[i] : range[2];
  }
  range[0] = range[0] / 2 > 0.1 ? range[0] / 2 : 0.1;
  range[1] *= 2;
  range[2] = rf_nice_floor(0.75 * range[2]);
  /* The roofs: the bus's, then the lower ones of the bandwidth sweep. */
  uint32_t bws[8] = {bus};
  size_t nbw = 1;
  for (uint32_t bw = 1; bw < bus && nbw < 8; bw++) {
    bool used = false;
    for (size_t i = 0; i < p->n; i++) {
      used = used || rows[i].bw_eff == bw;
    }
    bws[nbw] = bw;
    nbw += used;
  }
  rf_plan(p, meta, rows, xs, ys, bws, nbw, range);

  fprintf(f,
          "# Roofline of the Tessera bench: `tessera bench` writes this file and roofline.dat.\n"
          "# Redraw from this directory: gnuplot -e \"set terminal svg size 1200,800; "
          "set output 'roofline.svg'\" roofline.gp\n"
          "# The labels are placed for that canvas (sw/lib/tsr_lib_bench.c, rf_layout).\n"
          "set logscale xy\n"
          "set xrange [%s:%s]\n"
          "set yrange [%s:%s]\n"
          "set lmargin at screen %g\nset rmargin at screen %g\n"
          "set bmargin at screen %g\nset tmargin at screen %g\n",
          tsr_lib_fmt_round(b[0], range[0], 6), tsr_lib_fmt_round(b[1], range[1], 6), tsr_lib_fmt_round(b[2], range[2], 6),
          tsr_lib_fmt_round(b[3], range[3], 6), k_rf_margin[0], k_rf_margin[1], k_rf_margin[2],
          k_rf_margin[3]);
  rf_tics(f, 'x', range[0], range[1]);
  rf_tics(f, 'y', range[2], range[3]);
  fprintf(f,
          "set xlabel \"arithmetic intensity (MACs per DRAM byte moved)\"\n"
          "set ylabel \"MACs per cycle\"\n"
          "set title \"Tessera N=%u roofline: compute roof %u MACs/cycle, memory roof %u B/cycle\"\n"
          "set key left top\n"
          "set grid\n"
          "roof(x, b) = (x * b < %u) ? x * b : %u\n",
          meta->dim, peak, bus, peak, peak);
  /* Each label at its place; a leader from the point's own coordinates when it is away. */
  for (size_t i = 0; i < p->n; i++) {
    const rf_point_t *q = &p->pt[i];
    const char *color = k_rf_style[rf_group(rows[i].pt.group)].color;
    fprintf(f, "set label %zu \"%s\" at screen %.5f,%.5f %s font \",%g\" tc rgb \"%s\" front\n",
            i + 1, rows[i].pt.label, q->ax / RF_W, q->ay / RF_H,
            p->st[q->stack].right ? "right" : "left", RF_FONT, color);
    if (q->leader) {
      fprintf(f, "set arrow %zu from first %s,%s to screen %.5f,%.5f nohead lw 0.8 lc rgb \"%s\" back\n",
              i + 1, tsr_lib_fmt_round(b[0], xs[i], 4), tsr_lib_fmt_round(b[1], ys[i], 4), q->lx / RF_W,
              q->ly / RF_H, color);
    }
  }
  fprintf(f, "plot roof(x, %u) title \"roof: min(N^2, %u B/cycle x intensity)\" with lines lw 2 "
             "lc rgb \"black\", \\\n", bus, bus);
  for (size_t r = 1; r < nbw; r++) {
    fprintf(f, "  roof(x, %u) title \"memory roof at %u B/cycle\" with lines dt 2 lc rgb \"gray\", \\\n",
            bws[r], bws[r]);
  }
  for (size_t g = 0; g < 5; g++) {
    fprintf(f, "  \"roofline.dat\" index %zu using 1:2 with points pt %d ps %g lc rgb \"%s\" title \"%s\"%s\n",
            g, k_rf_style[g].pt, k_rf_style[g].ps, k_rf_style[g].color, k_rf_style[g].title,
            g < 4 ? ", \\" : "");
  }
  free(p);
}

/* ---- The plot ------------------------------------------------------------------------------ */

bool tessera_bench_can_plot(void) {
  const char *path = getenv("PATH");
  if (path == NULL) {
    return false;
  }
  while (*path != '\0') {
    size_t len = strcspn(path, ":");
    char full[4096];
    if (len + strlen("gnuplot") + 2 <= sizeof full) {
      snprintf(full, sizeof full, "%.*s/gnuplot", len != 0 ? (int)len : 1, len != 0 ? path : ".");
      if (access(full, X_OK) == 0) {
        return true;
      }
    }
    path += len + (path[len] == ':' ? 1u : 0u);
  }
  return false;
}

/* gnuplot -e "set terminal TERM; set output 'roofline.EXT'" roofline.gp, run in dir (its
 * output goes to stderr, so that stdout stays free for the caller's JSON). */
static tsr_status_t run_gnuplot(const char *dir, const char *term, const char *ext, char *err,
                                size_t errlen) {
  char setup[256];
  snprintf(setup, sizeof setup, "set terminal %s; set output 'roofline.%s'", term, ext);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    tsr_lib_err(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    return TSR_IO;
  }
  if (pid == 0) {
    if (chdir(dir) != 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      _exit(126);
    }
    execlp("gnuplot", "gnuplot", "-e", setup, "roofline.gp", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      tsr_lib_err(err, errlen, "waiting for gnuplot: %s", strerror(errno));
      return TSR_IO;
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    tsr_lib_err(err, errlen, "gnuplot failed on %s/roofline.gp (%s %d) while drawing roofline.%s",
                dir, WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), ext);
    return TSR_IO;
  }
  return TSR_OK;
}

tsr_status_t tessera_bench_plot(const char *dir, char *err, size_t errlen) {
  tsr_status_t st = run_gnuplot(dir, "pngcairo size 1200,800", "png", err, errlen);
  if (st == TSR_OK) {
    st = run_gnuplot(dir, "svg size 1200,800", "svg", err, errlen);
  }
  return st;
}
