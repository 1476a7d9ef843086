// A small, dependency-free SVG line plot: one or more (x, y) series on shared linear axes with
// "nice" ticks (1, 2 or 5 times a power of ten), axis labels, a title and a legend. Enough to look
// at a time series in a browser without gnuplot; not a plotting library.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace contactsim::client::demo {

struct PlotSeries {
  std::string label;
  std::vector<double> x;
  std::vector<double> y;  // same length as x; non-finite points are skipped
};

struct PlotLabels {
  std::string title;
  std::string x_label;
  std::string y_label;
};

// The SVG document (starts with "<svg", ends with "</svg>\n"). Series without finite points are
// listed in the legend only; with no finite point at all the axes span [0, 1].
std::string SvgLinePlot(const PlotLabels& labels, const std::vector<PlotSeries>& series,
                        int width_px = 900, int height_px = 500);

// Writes SvgLinePlot to `path`; Internal naming the path when it cannot be written.
absl::Status WriteSvgLinePlot(const std::string& path, const PlotLabels& labels,
                              const std::vector<PlotSeries>& series);

// Tick positions covering [lo, hi] with about `target_count` ticks at a 1-2-5 spacing (exposed for
// tests). Returns the ticks in ascending order; lo < hi is required.
std::vector<double> NiceTicks(double lo, double hi, int target_count);

}  // namespace contactsim::client::demo
