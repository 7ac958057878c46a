#!/usr/bin/env python3
"""covreport.py: summarize Verilator coverage of rtl/ and check it against a target.

Reads one or more Verilator coverage files (SystemC::Coverage-3 format, as
written by a --coverage build or merged by verilator_coverage --write) and
prints, per RTL file:
  - line coverage: Verilator's line and branch points (blocks of statements and
    each arm of if/case) hit at least once;
  - toggle coverage: signal bits that rose and fell.
Points with the same file, line, kind and signal from several instances count
once, and are covered if any instance covered them.

It lists every uncovered line point (file:line and the code on it) so the
report can say why each one is not reached, and exits 1 if total line coverage
is below --min-line (percent).

usage: covreport.py [--min-line 90] [--min-toggle 0] [--out report.md] FILE.dat...
"""

import argparse
import os
import sys
from collections import defaultdict


def parse(path, points):
    """Add the points of one coverage file to points[(file, line, kind, name)]."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            if not raw.startswith("C '"):
                continue
            end = raw.rindex("'")
            count = int(raw[end + 1:].strip() or 0)
            fields = {}
            for item in raw[3:end].split("\x01"):
                if "\x02" in item:
                    k, v = item.split("\x02", 1)
                    fields[k] = v
            src = fields.get("f", "")
            if not src.startswith("rtl/"):
                continue
            kind = fields.get("page", "").split("/")[0]  # v_line, v_branch, v_toggle
            key = (src, int(fields.get("l", 0)), kind, fields.get("o", ""))
            points[key] = max(points.get(key, 0), count)


def pct(hit, total):
    return 100.0 * hit / total if total else 100.0


def source_line(path, line, cache={}):
    if path not in cache:
        try:
            with open(path, encoding="utf-8") as f:
                cache[path] = f.read().splitlines()
        except OSError:
            cache[path] = []
    lines = cache[path]
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-line", type=float, default=0.0)
    ap.add_argument("--min-toggle", type=float, default=0.0)
    ap.add_argument("--out", help="also write the report (Markdown) here")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    # An unmatched shell glob arrives as itself (build/coverage/dat/*.dat): no suite wrote counts.
    missing = [path for path in args.files if not os.path.isfile(path)]
    if missing:
        print("covreport: no coverage file " + " ".join(missing) +
              " (did any simulation run with TSR_SIM_COVERAGE_DIR set?)")
        return 1

    points = {}
    for path in args.files:
        parse(path, points)
    if not points:
        print("covreport: no rtl/ coverage points in " + " ".join(args.files))
        return 1

    per_file = defaultdict(lambda: {"line": [0, 0], "toggle": [0, 0]})
    uncovered = []
    for (src, line, kind, name), count in sorted(points.items()):
        group = "toggle" if kind == "v_toggle" else "line"
        per_file[src][group][1] += 1
        if count > 0:
            per_file[src][group][0] += 1
        elif group == "line":
            uncovered.append((src, line, kind[2:]))

    out = ["| RTL file | line + branch points | line % | toggle bits | toggle % |",
           "|---|---:|---:|---:|---:|"]
    tot = {"line": [0, 0], "toggle": [0, 0]}
    for src in sorted(per_file):
        d = per_file[src]
        for g in tot:
            tot[g][0] += d[g][0]
            tot[g][1] += d[g][1]
        out.append(f"| {src} | {d['line'][0]}/{d['line'][1]} | {pct(*d['line']):.1f} | "
                   f"{d['toggle'][0]}/{d['toggle'][1]} | {pct(*d['toggle']):.1f} |")
    line_pct, toggle_pct = pct(*tot["line"]), pct(*tot["toggle"])
    out.append(f"| **total** | {tot['line'][0]}/{tot['line'][1]} | **{line_pct:.1f}** | "
               f"{tot['toggle'][0]}/{tot['toggle'][1]} | **{toggle_pct:.1f}** |")
    out.append("")
    out.append(f"Uncovered line and branch points ({len(uncovered)}):")
    out.append("")
    seen = set()
    for src, line, kind in uncovered:
        if (src, line) in seen:
            continue
        seen.add((src, line))
        out.append(f"- `{src}:{line}` ({kind}) `{source_line(src, line)}`")
    text = "\n".join(out)
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")

    ok = True
    if line_pct < args.min_line:
        print(f"covreport: RTL line coverage {line_pct:.1f} % is below the target {args.min_line} %")
        ok = False
    if toggle_pct < args.min_toggle:
        print(f"covreport: RTL toggle coverage {toggle_pct:.1f} % is below the target "
              f"{args.min_toggle} %")
        ok = False
    print(f"covreport: RTL line {line_pct:.1f} %, toggle {toggle_pct:.1f} % "
          f"({len(args.files)} coverage files)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
