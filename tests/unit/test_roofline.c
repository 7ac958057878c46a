/* test_roofline.c: cmocka suite for the roofline plot that `tessera bench` writes (roofline.gp). */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tessera.h"

/*
 * Each case feeds the sweep's figures (the committed docs/performance.md for N = 8 and 16, the
 * quick dozen of each, and a made-up crowd) to tessera_bench_write, reads back roofline.gp and
 * roofline.dat, and checks the plot as gnuplot will draw it on the 1200x800 canvas of
 * tessera_bench_plot:
 *   - the points are drawn at their own coordinates, from roofline.dat;
 *   - every point has its label; no label overlaps another label or any marker, and each
 *     lies inside the plot area;
 *   - a label is next to its point (and nearer to it than to any other point), or a leader
 *     runs from the point itself to the label, past no other label and over no marker that
 *     does not touch the point's own;
 *   - the y axis starts below the lowest point, by less than a factor of 2;
 *   - points that coincide but belong to different groups (256^3 and 8 B/c at N = 8) have
 *     markers of different shapes.
 * The boxes come from this file's own model of the label font: the advance widths of DejaVu
 * Sans as pngcairo draws them (1.25 px per point; measured on gnuplot 5.4), which are wider
 * than the SVG's Arial. A marker of size ps covers a square of half side 4 ps px.
 */

#define CANVAS_W 1200.0
#define CANVAS_H 800.0
#define NEAR_PX 16.0 /* a label without a leader is at most this far from its point */
#define SAME_PX 3.0  /* points this close count as one spot */
#define MAX_PTS TESSERA_BENCH_MAX_POINTS

/* Bytes moved and cycles of each point of the full sweep, in tessera_bench_points order. */
typedef struct {
  uint64_t dram, cycles;
} figures_t;

static const figures_t k_d8[23] = {
    {960, 625},           {3456, 1489},         {21248, 5800},        {131584, 35525},
    {923648, 274351},     {9443328, 2147648},   {73461760, 17107584}, {1084416, 598524},
    {1249280, 598782},    {1617920, 602086},    {13639680, 4285639},  {7908608, 1841386},
    {7917568, 1839814},   {7868416, 1840054},   {5999104, 1889981},   {3843072, 1213435},
    {15347712, 4829851},  {15043584, 4820347},  {474112, 477530},     {533504, 326700},
    {795648, 279715},     {923648, 274351},     {923648, 274351}};

static const figures_t k_d16[23] = {
    {960, 414},           {3456, 952},          {13056, 2820},        {82944, 11022},
    {533504, 74559},      {3680256, 547139},    {27373568, 4339011},  {1073152, 157947},
    {1159168, 158252},    {1355776, 178082},    {7614464, 1089051},   {2972160, 469643},
    {2942464, 468105},    {3042304, 469592},    {3289600, 480460},    {2270208, 309192},
    {9056256, 1215960},   {8752128, 1209480},   {268288, 335608},     {336896, 171924},
    {336896, 94377},      {405504, 80820},      {533504, 74559}};

typedef struct {
  double x0, y0, x1, y1; /* pixels, y up */
} box_t;

/* What roofline.gp and roofline.dat say. */
typedef struct {
  char dir[32];                   /* where the files are (left there when a check fails) */
  double xr[2], yr[2], margin[4]; /* ranges; left, right, bottom, top margins (screen) */
  int nmargin;
  size_t n;                       /* points in roofline.dat */
  double x[MAX_PTS], y[MAX_PTS];  /* their coordinates */
  char text[MAX_PTS][32];
  int group[MAX_PTS];
  int pt[5];                      /* marker type and size of each group's points */
  double ps[5];
  size_t nlabel;                  /* `set label`s: text, anchor (screen), justification, font */
  char ltext[MAX_PTS][32];
  double lx[MAX_PTS], ly[MAX_PTS], lfont[MAX_PTS];
  int lright[MAX_PTS];
  int arrow[MAX_PTS];             /* leader of label i: from (ax0, ay0) first to (ax1, ay1) screen */
  double ax0[MAX_PTS], ay0[MAX_PTS], ax1[MAX_PTS], ay1[MAX_PTS];
} plot_t;

/* ---- Writing and reading the plot -------------------------------------------------------- */

/* Rows of the sweep (quick or full) with the figures of `fig` on an N = dim chip with a
 * 64-bit bus; a point's figures are those of the full sweep's point with its label. */
static size_t make_rows(unsigned dim, bool quick, const figures_t *fig, tessera_bench_meta_t *meta,
                        tessera_bench_row_t *rows) {
  tessera_bench_point_t all[MAX_PTS], pts[MAX_PTS];
  const size_t nall = tessera_bench_points(false, all);
  const size_t n = tessera_bench_points(quick, pts);
  memset(meta, 0, sizeof *meta);
  meta->dim = dim;
  meta->axi_bytes = 8;
  meta->peak = dim * dim;
  for (size_t i = 0; i < n; i++) {
    size_t j = 0;
    while (j < nall && strcmp(all[j].label, pts[i].label) != 0) {
      j++;
    }
    assert_true(j < nall);
    tessera_bench_row_t *r = &rows[i];
    memset(r, 0, sizeof *r);
    r->pt = pts[i];
    r->bw_asked = pts[i].bw != 0 ? pts[i].bw : 8;
    r->bw_eff = r->bw_asked < 8 ? r->bw_asked : 8;
    r->macs = (uint64_t)pts[i].m * pts[i].k * pts[i].n;
    r->moved = fig[j].dram;
    r->cycles = fig[j].cycles;
    r->pred = r->cycles;
    r->intensity = (double)r->macs / (double)r->moved;
    r->attained = (double)r->macs / (double)r->cycles;
    r->util = r->attained / meta->peak;
    r->roof = fmin((double)meta->peak, r->bw_eff * r->intensity);
  }
  return n;
}

static void parse_gp(const char *path, plot_t *p) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[1024];
  while (fgets(line, sizeof line, f) != NULL) {
    char side[16], text[32];
    size_t idx = 0;
    int g = 0, pt = 0;
    double a = 0, b = 0, c = 0, d = 0;
    if (sscanf(line, "set xrange [%lf:%lf]", &a, &b) == 2) {
      p->xr[0] = a, p->xr[1] = b;
    } else if (sscanf(line, "set yrange [%lf:%lf]", &a, &b) == 2) {
      p->yr[0] = a, p->yr[1] = b;
    } else if (strncmp(line, "set ", 4) == 0 && strstr(line, "margin at screen ") != NULL) {
      const char *sides = "lrbt";
      const char *at = strchr(sides, line[4]);
      assert_non_null(at);
      p->margin[at - sides] = strtod(strstr(line, "screen ") + 7, NULL);
      p->nmargin++;
    } else if (sscanf(line, "set label %zu \"%31[^\"]\" at screen %lf,%lf %15s font \",%lf\"", &idx,
                      text, &a, &b, side, &c) == 6) {
      assert_true(idx == p->nlabel + 1 && idx <= MAX_PTS);
      strcpy(p->ltext[p->nlabel], text);
      p->lx[p->nlabel] = a * CANVAS_W;
      p->ly[p->nlabel] = b * CANVAS_H;
      p->lright[p->nlabel] = strcmp(side, "right") == 0;
      p->lfont[p->nlabel++] = c;
    } else if (sscanf(line, "set arrow %zu from first %lf,%lf to screen %lf,%lf", &idx, &a, &b, &c,
                      &d) == 5) {
      assert_true(idx >= 1 && idx <= MAX_PTS);
      p->arrow[idx - 1] = 1;
      p->ax0[idx - 1] = a, p->ay0[idx - 1] = b;
      p->ax1[idx - 1] = c * CANVAS_W, p->ay1[idx - 1] = d * CANVAS_H;
    } else if (strstr(line, "\"roofline.dat\" index ") != NULL &&
               sscanf(strstr(line, "index "), "index %d using 1:2 with points pt %d ps %lf", &g,
                      &pt, &a) == 3) {
      assert_true(g >= 0 && g < 5);
      p->pt[g] = pt;
      p->ps[g] = a;
    }
  }
  fclose(f);
}

static void parse_dat(const char *path, plot_t *p) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[256];
  int group = -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (line[0] == '#') {
      group++;
    } else if (line[0] != '\n') {
      assert_true(p->n < MAX_PTS);
      assert_int_equal(sscanf(line, "%lf %lf \"%31[^\"]\"", &p->x[p->n], &p->y[p->n], p->text[p->n]), 3);
      p->group[p->n++] = group;
    }
  }
  fclose(f);
}

/* Write the rows' files into a fresh directory and read them back. */
static void write_and_read(const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows,
                           size_t n, plot_t *p) {
  char path[64], err[TESSERA_ERRLEN];
  memset(p, 0, sizeof *p);
  strcpy(p->dir, "/tmp/test_roofline.XXXXXX");
  assert_non_null(mkdtemp(p->dir));
  assert_int_equal(tessera_bench_write(p->dir, meta, rows, n, err, sizeof err), TSR_OK);
  snprintf(path, sizeof path, "%s/roofline.gp", p->dir);
  parse_gp(path, p);
  snprintf(path, sizeof path, "%s/roofline.dat", p->dir);
  parse_dat(path, p);
}

/* A check failed: say what, and where the files are (gnuplot can draw them there). */
#define FAIL(p, ...)                                                                               \
  do {                                                                                             \
    print_error("roofline.gp in %s: ", (p)->dir);                                                  \
    fail_msg(__VA_ARGS__);                                                                         \
  } while (0)

static void remove_files(const plot_t *p) {
  const char *files[] = {"bench.json", "bench.csv", "roofline.dat", "roofline.gp"};
  char path[64];
  for (size_t i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/%s", p->dir, files[i]);
    unlink(path);
  }
  rmdir(p->dir);
}

/* ---- The geometry -------------------------------------------------------------------------- */

static box_t area(const plot_t *p) {
  return (box_t){p->margin[0] * CANVAS_W, p->margin[2] * CANVAS_H, p->margin[1] * CANVAS_W,
                 p->margin[3] * CANVAS_H};
}

static void to_px(const plot_t *p, double x, double y, double *px, double *py) {
  const box_t a = area(p);
  *px = a.x0 + log10(x / p->xr[0]) / log10(p->xr[1] / p->xr[0]) * (a.x1 - a.x0);
  *py = a.y0 + log10(y / p->yr[0]) / log10(p->yr[1] / p->yr[0]) * (a.y1 - a.y0);
}

/* px per point of font size (DejaVu Sans in pngcairo, measured at 10 pt). */
static double char_w(char c) {
  if (c >= '0' && c <= '9') {
    return 0.80;
  }
  const char *known = "xM=B/c ";
  const double w[] = {0.80, 1.20, 1.10, 0.90, 0.45, 0.70, 0.40};
  const char *at = strchr(known, c);
  return at != NULL && c != '\0' ? w[at - known] : 1.20;
}

/* The box of label i's text: gnuplot centres it vertically on its anchor; "^d" is a
 * superscript (0.8 wide, raised). */
static box_t label_box(const plot_t *p, size_t i) {
  const double s = p->lfont[i];
  double w = 0.0, up = 0.6 * s;
  for (const char *c = p->ltext[i]; *c != '\0'; c++) {
    if (*c == '^' && c[1] != '\0') {
      w += 0.8 * char_w(*++c) * s;
      up = 0.9 * s;
    } else {
      w += char_w(*c) * s;
    }
  }
  const double x0 = p->lright[i] ? p->lx[i] - w : p->lx[i];
  return (box_t){x0, p->ly[i] - 0.65 * s, x0 + w, p->ly[i] + up};
}

static box_t marker_box(const plot_t *p, size_t i) {
  double x, y;
  to_px(p, p->x[i], p->y[i], &x, &y);
  const double h = 4.0 * p->ps[p->group[i]];
  return (box_t){x - h, y - h, x + h, y + h};
}

static bool overlap(const box_t *a, const box_t *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static double dist(const box_t *b, double x, double y) {
  return hypot(x < b->x0 ? b->x0 - x : x > b->x1 ? x - b->x1 : 0.0,
               y < b->y0 ? b->y0 - y : y > b->y1 ? y - b->y1 : 0.0);
}

/* Whether the segment (x0,y0)-(x1,y1) passes through the inside of the box (sampled every
 * 0.25 px: a leader that only touches an edge does not count). */
static bool seg_through(double x0, double y0, double x1, double y1, const box_t *b) {
  const box_t in = {b->x0 + 0.5, b->y0 + 0.5, b->x1 - 0.5, b->y1 - 0.5};
  const int steps = 1 + (int)(4.0 * hypot(x1 - x0, y1 - y0));
  for (int k = 0; k <= steps; k++) {
    const double t = (double)k / steps, x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
    if (x > in.x0 && x < in.x1 && y > in.y0 && y < in.y1) {
      return true;
    }
  }
  return false;
}

/* ---- The checks ---------------------------------------------------------------------------- */

static void check_plot(const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows, size_t n) {
  plot_t *p = calloc(1, sizeof *p);
  assert_non_null(p);
  write_and_read(meta, rows, n, p);

  /* The points are where their figures put them, each in its group. */
  assert_int_equal(p->n, n);
  double ymin = 0.0;
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(p->text[i], rows[i].pt.label);
    if (fabs(p->x[i] - rows[i].intensity) > 1e-4 * rows[i].intensity ||
        fabs(p->y[i] - rows[i].attained) > 1e-4 * rows[i].attained) {
      FAIL(p, "%s is drawn at (%g, %g), its figures say (%g, %g)", p->text[i], p->x[i], p->y[i],
               rows[i].intensity, rows[i].attained);
    }
    ymin = i == 0 || p->y[i] < ymin ? p->y[i] : ymin;
  }

  /* The y axis starts below the lowest point, by less than a factor of 2. */
  if (!(p->yr[0] > 0.0 && p->yr[0] <= ymin && ymin / p->yr[0] <= 2.0)) {
    FAIL(p, "the y axis starts at %g; the lowest point is at %g", p->yr[0], ymin);
  }

  /* One label per point, with its text, inside the plot, clear of other labels and markers. */
  if (p->nmargin != 4) {
    FAIL(p, "roofline.gp pins %d of the 4 margins: the pixel of a point is not known", p->nmargin);
  }
  const box_t a = area(p);
  if (p->nlabel != n) {
    FAIL(p, "roofline.gp sets %zu labels for %zu points", p->nlabel, n);
  }
  box_t lb[MAX_PTS];
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(p->ltext[i], p->text[i]);
    lb[i] = label_box(p, i);
    if (lb[i].x0 < a.x0 || lb[i].x1 > a.x1 || lb[i].y0 < a.y0 || lb[i].y1 > a.y1) {
      FAIL(p, "label %s [%.0f..%.0f]x[%.0f..%.0f] leaves the plot area", p->ltext[i], lb[i].x0,
               lb[i].x1, lb[i].y0, lb[i].y1);
    }
    for (size_t j = 0; j < i; j++) {
      if (overlap(&lb[i], &lb[j])) {
        FAIL(p, "labels %s and %s overlap", p->ltext[i], p->ltext[j]);
      }
    }
  }
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) {
      const box_t m = marker_box(p, j);
      if (overlap(&lb[i], &m)) {
        FAIL(p, "label %s covers the marker of %s", p->ltext[i], p->text[j]);
      }
    }
  }

  /* Each label is next to its point, or a leader joins them. */
  for (size_t i = 0; i < n; i++) {
    double px, py;
    to_px(p, p->x[i], p->y[i], &px, &py);
    const box_t own_m = marker_box(p, i);
    const double own = dist(&lb[i], px, py);
    if (!p->arrow[i]) {
      if (own > NEAR_PX) {
        FAIL(p, "label %s is %.1f px from its point and has no leader", p->ltext[i], own);
      }
      for (size_t j = 0; j < n; j++) {
        double qx, qy;
        to_px(p, p->x[j], p->y[j], &qx, &qy);
        const box_t m = marker_box(p, j);
        if (hypot(qx - px, qy - py) > SAME_PX &&
            dist(&lb[i], qx, qy) - (m.x1 - qx) <= own - (own_m.x1 - px)) {
          FAIL(p, "label %s, with no leader, is nearer to %s than to its own point", p->ltext[i],
                   p->text[j]);
        }
      }
      continue;
    }
    if (p->ax0[i] != p->x[i] || p->ay0[i] != p->y[i]) {
      FAIL(p, "the leader of %s starts at (%g, %g), the point is at (%g, %g)", p->ltext[i],
               p->ax0[i], p->ay0[i], p->x[i], p->y[i]);
    }
    if (dist(&lb[i], p->ax1[i], p->ay1[i]) > 2.0) {
      FAIL(p, "the leader of %s ends %.1f px from its label", p->ltext[i],
               dist(&lb[i], p->ax1[i], p->ay1[i]));
    }
    for (size_t j = 0; j < n; j++) {
      double qx, qy;
      to_px(p, p->x[j], p->y[j], &qx, &qy);
      const box_t m = marker_box(p, j);
      if (j != i && seg_through(px, py, p->ax1[i], p->ay1[i], &lb[j])) {
        FAIL(p, "the leader of %s runs through the label %s", p->ltext[i], p->ltext[j]);
      }
      const bool touches = fabs(qx - px) < (m.x1 - qx) + (own_m.x1 - px) &&
                           fabs(qy - py) < (m.y1 - qy) + (own_m.y1 - py);
      if (!touches && seg_through(px, py, p->ax1[i], p->ay1[i], &m)) {
        FAIL(p, "the leader of %s runs over the marker of %s", p->ltext[i], p->text[j]);
      }
    }
  }

  /* Coinciding points of different groups have markers of different shapes. */
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < i; j++) {
      double xi, yi, xj, yj;
      to_px(p, p->x[i], p->y[i], &xi, &yi);
      to_px(p, p->x[j], p->y[j], &xj, &yj);
      if (hypot(xi - xj, yi - yj) < SAME_PX && p->group[i] != p->group[j] &&
          p->pt[p->group[i]] == p->pt[p->group[j]]) {
        FAIL(p, "%s and %s are drawn on one spot with the same marker (pt %d)", p->text[i],
                 p->text[j], p->pt[p->group[i]]);
      }
    }
  }
  remove_files(p);
  free(p);
}

static void check_sweep(unsigned dim, bool quick, const figures_t *fig) {
  tessera_bench_meta_t meta;
  tessera_bench_row_t rows[MAX_PTS];
  const size_t n = make_rows(dim, quick, fig, &meta, rows);
  check_plot(&meta, rows, n);
}

static void n8_sweep_every_label_readable(void **state) {
  (void)state;
  check_sweep(8, false, k_d8);
}

static void n8_quick_sweep_every_label_readable(void **state) {
  (void)state;
  check_sweep(8, true, k_d8);
}

static void n16_sweep_every_label_readable(void **state) {
  (void)state;
  check_sweep(16, false, k_d16);
}

static void n16_quick_sweep_every_label_readable(void **state) {
  (void)state;
  check_sweep(16, true, k_d16);
}

/* 256^3 and its 8 B/cycle twin at N = 8: one spot, two groups, two shapes, two labels. */
static void n8_256_cubed_and_8_bytes_are_told_apart(void **state) {
  (void)state;
  tessera_bench_meta_t meta;
  tessera_bench_row_t rows[MAX_PTS];
  const size_t n = make_rows(8, false, k_d8, &meta, rows);
  assert_int_equal(n, 23);
  assert_string_equal(rows[4].pt.label, "256^3");
  assert_string_equal(rows[21].pt.label, "8 B/c");
  assert_true(rows[4].intensity == rows[21].intensity && rows[4].attained == rows[21].attained);
  check_plot(&meta, rows, n);
}

/* Every point of the sweep on one spot, and one far below it: one stack of 22 labels. */
static void a_crowd_on_one_spot_every_label_readable(void **state) {
  (void)state;
  tessera_bench_meta_t meta;
  tessera_bench_row_t rows[MAX_PTS];
  const size_t n = make_rows(8, false, k_d8, &meta, rows);
  for (size_t i = 0; i < n; i++) {
    rows[i].intensity = 20.0;
    rows[i].attained = i == 0 ? 1.1 : 60.0;
  }
  check_plot(&meta, rows, n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(n8_sweep_every_label_readable),
      cmocka_unit_test(n8_quick_sweep_every_label_readable),
      cmocka_unit_test(n16_sweep_every_label_readable),
      cmocka_unit_test(n16_quick_sweep_every_label_readable),
      cmocka_unit_test(n8_256_cubed_and_8_bytes_are_told_apart),
      cmocka_unit_test(a_crowd_on_one_spot_every_label_readable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
