#!/usr/bin/env python3
"""Draws the paper's Fig. 21 for the 2D polygon pouring from bench/peg_pour2d's summary CSV.

Overlap area against the step h for each model: the median over all steps of the ten sets (line),
the authors' Q3 (bar above it) and the maximum (x), on a log scale; zero is drawn at the plot's
floor. The authors' own medians (their stored runs, shared/papers/peg-formulation-notes.md §6)
are drawn in grey for reference. Plain SVG (no matplotlib needed).

    python3 bench/plot_peg_pour2d.py pour2d_summary.csv pour2d_fig21.svg
"""
import csv
import math
import sys

# The authors' stored runs (notes §6): h -> (PEG median, Corrective median) [m^2].
AUTHORS = {
    0.001: (1.6e-12, 4.9e-10), 0.002: (1.4e-11, 5.0e-08), 0.003: (1.2e-10, 1.0e-06),
    0.004: (3.2e-10, 2.2e-06), 0.005: (2.9e-10, 1.0e-05), 0.006: (1.0e-09, 2.2e-05),
    0.007: (2.7e-09, 5.4e-05), 0.008: (6.0e-09, 5.1e-05), 0.009: (1.1e-08, 1.0e-04),
    0.010: (2.3e-08, 1.7e-04), 0.011: (1.2e-08, 3.2e-04), 0.012: (8.2e-09, 3.6e-04),
    0.013: (1.1e-07, 3.5e-04), 0.014: (6.1e-09, 6.0e-04), 0.015: (2.7e-08, 6.0e-04),
    0.016: (9.5e-08, 7.2e-04),
}
COLORS = {"peg": "#1f77b4", "standard": "#d62728", "peg_projected": "#2ca02c",
          "standard_projected": "#ff7f0e"}
FLOOR, TOP = 1e-20, 1.0
W, H, L, R, T, B = 760, 520, 80, 210, 30, 60


def x_of(h):
    return L + (h - 0.0005) / (0.0165 - 0.0005) * (W - L - R)


def y_of(v):
    v = min(max(v, FLOOR), TOP)
    return T + (math.log10(TOP) - math.log10(v)) / (math.log10(TOP) - math.log10(FLOOR)) * (H - T - B)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = {}
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["model"], []).append(
                (float(r["h"]), float(r["median_m2"]), float(r["q3_m2"]), float(r["max_m2"])))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    for e in range(-20, 1, 2):
        y = y_of(10.0 ** e)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">1e{e}</text>')
    for k in range(1, 17):
        x = x_of(k / 1000)
        out.append(f'<text x="{x:.1f}" y="{H - B + 18}" text-anchor="middle">{k}</text>')
    out.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" '
               'stroke="black"/>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 15}" text-anchor="middle">time step h [ms]'
               '</text>')
    out.append(f'<text transform="translate(20,{(T + H - B) / 2}) rotate(-90)" '
               'text-anchor="middle">overlap area per step [m²] (0 drawn at 1e-20)</text>')
    for i, (label, style) in enumerate([("authors' PEG median", "4,3"),
                                        ("authors' Corrective median", "1,3")]):
        pts = " ".join(f"{x_of(h):.1f},{y_of(v[i]):.1f}" for h, v in sorted(AUTHORS.items()))
        out.append(f'<polyline points="{pts}" fill="none" stroke="#888" stroke-width="1.5" '
                   f'stroke-dasharray="{style}"/>')
    legend_y = T + 10
    for model, data in sorted(rows.items()):
        color = COLORS.get(model, "black")
        data.sort()
        pts = " ".join(f"{x_of(h):.1f},{y_of(m):.1f}" for h, m, _, _ in data)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2"/>')
        for h, m, q3, mx in data:
            x = x_of(h) + (list(COLORS).index(model) - 1.5) * 3 if model in COLORS else x_of(h)
            out.append(f'<line x1="{x:.1f}" y1="{y_of(m):.1f}" x2="{x:.1f}" y2="{y_of(q3):.1f}" '
                       f'stroke="{color}" stroke-width="1.5"/>')
            out.append(f'<circle cx="{x_of(h):.1f}" cy="{y_of(m):.1f}" r="3" fill="{color}"/>')
            out.append(f'<text x="{x:.1f}" y="{y_of(mx) + 4:.1f}" fill="{color}" '
                       'text-anchor="middle">×</text>')
        out.append(f'<line x1="{W - R + 12}" y1="{legend_y}" x2="{W - R + 32}" y2="{legend_y}" '
                   f'stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{W - R + 36}" y="{legend_y + 4}">{model}</text>')
        legend_y += 18
    for label, style in [("authors' PEG", "4,3"), ("authors' Corrective", "1,3")]:
        out.append(f'<line x1="{W - R + 12}" y1="{legend_y}" x2="{W - R + 32}" y2="{legend_y}" '
                   f'stroke="#888" stroke-width="1.5" stroke-dasharray="{style}"/>')
        out.append(f'<text x="{W - R + 36}" y="{legend_y + 4}">{label} (median)</text>')
        legend_y += 18
    out.append(f'<text x="{W - R + 12}" y="{legend_y + 10}">line, dot: median</text>')
    out.append(f'<text x="{W - R + 12}" y="{legend_y + 26}">bar: up to Q3</text>')
    out.append(f'<text x="{W - R + 12}" y="{legend_y + 42}">×: maximum</text>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
