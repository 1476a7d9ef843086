#include "clients/cpp/demo/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace contactsim::client::demo {
namespace {

// Distinguishable on white, colour-blind friendly (Okabe-Ito).
constexpr const char* kColors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                   "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Shortest of %g with up to 6 significant digits; "-0" printed as "0".
std::string TickLabel(double value, double step) {
  if (std::abs(value) < 1e-9 * step) value = 0.0;
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  // A finite, non-empty range: [0, 1] when nothing was added, widened around a single value.
  void Settle() {
    if (!(lo <= hi)) {
      lo = 0.0;
      hi = 1.0;
    } else if (lo == hi) {
      const double pad = lo == 0.0 ? 1.0 : 0.5 * std::abs(lo);
      lo -= pad;
      hi += pad;
    }
  }
};

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int target_count) {
  const double raw = (hi - lo) / std::max(1, target_count);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double t = first; t <= hi + 1e-9 * step; t += step) ticks.push_back(t);
  return ticks;
}

std::string SvgLinePlot(const PlotLabels& labels, const std::vector<PlotSeries>& series,
                        int width_px, int height_px) {
  Range xr, yr;
  for (const PlotSeries& s : series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    for (size_t i = 0; i < n; ++i) {
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
        xr.Add(s.x[i]);
        yr.Add(s.y[i]);
      }
    }
  }
  xr.Settle();
  yr.Settle();
  // Extend the y range to whole ticks so that the curves never touch the frame's edge.
  const std::vector<double> y_guess = NiceTicks(yr.lo, yr.hi, 6);
  const double y_step = y_guess.size() > 1 ? y_guess[1] - y_guess[0] : (yr.hi - yr.lo);
  yr.lo = std::floor(yr.lo / y_step + 1e-9) * y_step;
  yr.hi = std::ceil(yr.hi / y_step - 1e-9) * y_step;
  if (yr.lo == yr.hi) yr.hi = yr.lo + y_step;

  // Plot area inside margins for the labels.
  const double left = 80, right = width_px - 20.0, top = 40, bottom = height_px - 60.0;
  auto px = [&](double x) { return left + (x - xr.lo) / (xr.hi - xr.lo) * (right - left); };
  auto py = [&](double y) { return bottom - (y - yr.lo) / (yr.hi - yr.lo) * (bottom - top); };

  std::ostringstream svg;
  svg.precision(6);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width_px << "\" height=\""
      << height_px << "\" viewBox=\"0 0 " << width_px << " " << height_px
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << width_px / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">"
      << Escape(labels.title) << "</text>\n";

  // Grid, ticks and tick labels.
  const std::vector<double> x_ticks = NiceTicks(xr.lo, xr.hi, 8);
  const double x_step = x_ticks.size() > 1 ? x_ticks[1] - x_ticks[0] : (xr.hi - xr.lo);
  for (double t : x_ticks) {
    svg << "<line x1=\"" << px(t) << "\" y1=\"" << top << "\" x2=\"" << px(t) << "\" y2=\""
        << bottom + 5 << "\" stroke=\"#ddd\"/>\n";
    svg << "<text x=\"" << px(t) << "\" y=\"" << bottom + 20 << "\" text-anchor=\"middle\">"
        << TickLabel(t, x_step) << "</text>\n";
  }
  for (double t : NiceTicks(yr.lo, yr.hi, 6)) {
    svg << "<line x1=\"" << left - 5 << "\" y1=\"" << py(t) << "\" x2=\"" << right << "\" y2=\""
        << py(t) << "\" stroke=\"#ddd\"/>\n";
    svg << "<text x=\"" << left - 8 << "\" y=\"" << py(t) + 4 << "\" text-anchor=\"end\">"
        << TickLabel(t, y_step) << "</text>\n";
  }
  svg << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << right - left << "\" height=\""
      << bottom - top << "\" fill=\"none\" stroke=\"black\"/>\n";
  svg << "<text x=\"" << (left + right) / 2 << "\" y=\"" << height_px - 15
      << "\" text-anchor=\"middle\">" << Escape(labels.x_label) << "</text>\n";
  svg << "<text x=\"18\" y=\"" << (top + bottom) / 2 << "\" text-anchor=\"middle\" "
      << "transform=\"rotate(-90 18 " << (top + bottom) / 2 << ")\">" << Escape(labels.y_label)
      << "</text>\n";

  // Curves: a polyline per run of finite points.
  for (size_t k = 0; k < series.size(); ++k) {
    const PlotSeries& s = series[k];
    const char* color = kColors[k % std::size(kColors)];
    const size_t n = std::min(s.x.size(), s.y.size());
    std::ostringstream points;
    points.precision(6);
    int count = 0;
    auto flush = [&] {
      if (count > 0) {
        svg << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\" points=\""
            << points.str() << "\"/>\n";
      }
      points.str("");
      count = 0;
    };
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) {
        flush();
        continue;
      }
      points << (count > 0 ? " " : "") << px(s.x[i]) << "," << py(s.y[i]);
      ++count;
    }
    flush();
  }

  // Legend, top right inside the plot area.
  const double legend_w = 220, row_h = 18;
  const double lx = right - legend_w - 10, ly = top + 10;
  svg << "<rect x=\"" << lx << "\" y=\"" << ly << "\" width=\"" << legend_w << "\" height=\""
      << row_h * series.size() + 8 << "\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999\"/>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const double y = ly + 4 + row_h * (k + 0.5);
    svg << "<line x1=\"" << lx + 8 << "\" y1=\"" << y << "\" x2=\"" << lx + 32 << "\" y2=\"" << y
        << "\" stroke=\"" << kColors[k % std::size(kColors)] << "\" stroke-width=\"2\"/>\n";
    svg << "<text x=\"" << lx + 40 << "\" y=\"" << y + 4 << "\">" << Escape(series[k].label)
        << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

absl::Status WriteSvgLinePlot(const std::string& path, const PlotLabels& labels,
                              const std::vector<PlotSeries>& series) {
  std::ofstream file(path);
  file << SvgLinePlot(labels, series);
  file.close();
  if (!file) return absl::InternalError("cannot write " + path);
  return absl::OkStatus();
}

}  // namespace contactsim::client::demo
