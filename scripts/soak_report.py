#!/usr/bin/env python3
"""The soak's table and chart (scripts/soak.sh): per minute, what the writer wrote against the set rate and what
VictoriaMetrics spent (CPU, RSS, new series, slow inserts), for the steady and the churn run. Standard library only:
the chart is a hand-made SVG. Usage: soak_report.py OUT_DIR RATE_SAMPLES_PER_S"""
import csv
import json
import os
import sys

out, rate = sys.argv[1], float(sys.argv[2])
runs = {}
for name in ("steady", "churn"):
    path = os.path.join(out, "vm-%s.csv" % name)
    if not os.path.exists(path):
        continue
    rows = [r for r in csv.reader(open(path)) if len(r) == 7]
    runs[name] = rows

table = os.path.join(out, "soak.csv")
with open(table, "w") as f:
    f.write("run,minute,written_per_s,of_rate,vm_cpu_s_per_min,vm_rss_mib,vm_new_series_per_s,vm_slow_inserts_per_s\n")
    per_run = {}
    for name, rows in runs.items():
        pts = []
        for prev, cur in zip(rows, rows[1:]):
            minute = int(cur[1])
            written = float(cur[6] or 0)
            cpu = float(cur[2]) - float(prev[2])
            new = (float(cur[4]) - float(prev[4])) / 60
            slow = (float(cur[5]) - float(prev[5])) / 60
            rss = float(cur[3]) / 2**20
            f.write("%s,%d,%.0f,%.4f,%.1f,%.0f,%.0f,%.0f\n" % (name, minute, written, written / rate, cpu, rss, new, slow))
            pts.append((minute, written / rate, cpu, rss, new, slow))
        per_run[name] = pts

print("run     minutes  written/set rate (mean, min)  VM CPU-s/min  VM RSS MiB (last)  new series/s  slow inserts/s")
for name, pts in per_run.items():
    body = pts[1:] if len(pts) > 1 else pts  # the first minute holds the start
    if not body:
        continue
    n = len(body)
    mean = lambda i: sum(p[i] for p in body) / n
    s = {}
    try:
        s = json.load(open(os.path.join(out, "summary-%s.json" % name)))
    except (OSError, ValueError):
        pass
    print("%-7s %7d  %8.1f %% %8.1f %%          %8.1f      %10.0f      %10.0f    %10.0f   (writer: %s samples written, "
          "%s series created, exit %s)" % (name, n, 100 * mean(1), 100 * min(p[1] for p in body), mean(2), body[-1][3],
                                          mean(4), mean(5), s.get("samples_written"), s.get("series_created"), s.get("exit_code")))

# the chart: written / set rate per minute, one line per run
W, H, L, B = 720, 360, 60, 40
xmax = max([p[0] for pts in per_run.values() for p in pts] + [1])
def x(m): return L + (W - L - 20) * m / xmax
def y(v): return H - B - (H - B - 20) * min(max(v, 0.0), 1.2) / 1.2
svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="%d" y="14">written / set rate per minute (rate %.0f samples/s)</text>' % (L, rate)]
for v in (0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2):
    svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (L, W - 20, y(v), y(v)))
    svg.append('<text x="%d" y="%.1f" text-anchor="end">%d%%</text>' % (L - 6, y(v) + 4, v * 100))
for m in range(0, xmax + 1, 5):
    svg.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(m), H - B + 16, m))
svg.append('<text x="%d" y="%d" text-anchor="middle">minute</text>' % ((W + L) // 2, H - 6))
colors = {"steady": "#1f77b4", "churn": "#d62728"}
for i, (name, pts) in enumerate(per_run.items()):
    if pts:
        svg.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (
            colors.get(name, "black"), " ".join("%.1f,%.1f" % (x(p[0]), y(p[1])) for p in pts)))
        svg.append('<text x="%d" y="%d" fill="%s">%s</text>' % (W - 140, 34 + 16 * i, colors.get(name, "black"), name))
svg.append("</svg>")
open(os.path.join(out, "soak.svg"), "w").write("\n".join(svg))
print("csv:   %s\nchart: %s" % (table, os.path.join(out, "soak.svg")))
