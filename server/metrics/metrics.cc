#include "server/metrics/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace contactsim::server::metrics {
namespace {

// Shortest text that reads back as the same double; Prometheus spells the specials +Inf, -Inf,
// NaN.
std::string FormatDouble(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// HELP text escapes backslash and newline; label values also escape the double quote.
std::string Escape(const std::string& text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

const char* TypeName(Family::Type type) {
  switch (type) {
    case Family::Type::kCounter:
      return "counter";
    case Family::Type::kGauge:
      return "gauge";
    case Family::Type::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)),
      buckets_(new std::atomic<uint64_t>[upper_bounds_.size() + 1]) {
  for (size_t i = 0; i <= upper_bounds_.size(); ++i) buckets_[i].store(0);
}

void Histogram::Observe(double value) {
  // Bucket i counts upper_bounds[i-1] < value <= upper_bounds[i] (le is inclusive).
  const size_t i =
      std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value) - upper_bounds_.begin();
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Totals Histogram::Read() const {
  Totals totals;
  totals.cumulative.reserve(upper_bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= upper_bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    totals.cumulative.push_back(running);
  }
  totals.count = running;
  totals.sum = sum_.load(std::memory_order_relaxed);
  return totals;
}

std::vector<double> OneTwoFiveBounds(double lowest, double highest) {
  std::vector<double> bounds;
  const double mantissas[] = {1.0, 2.0, 5.0};
  for (int exponent = static_cast<int>(std::floor(std::log10(lowest)));; ++exponent) {
    for (double mantissa : mantissas) {
      // Parse the decimal text so bounds print exactly (1e-05, not 1.0000000000000001e-05).
      char text[32];
      std::snprintf(text, sizeof(text), "%ge%d", mantissa, exponent);
      const double bound = std::strtod(text, nullptr);
      if (bound < lowest * (1.0 - 1e-9)) continue;
      if (bound > highest * (1.0 + 1e-9)) return bounds;
      bounds.push_back(bound);
    }
  }
}

void Family::Write(std::string* out) const {
  *out += "# HELP " + name_ + " " + Escape(help_, /*quote=*/false) + "\n";
  *out += "# TYPE " + name_ + " " + TypeName(type_) + "\n";
  WriteSamples(out);
}

void Family::WriteSample(std::string* out, const std::string& suffix, const LabelValues& values,
                         const std::string& extra_label, const std::string& value) const {
  *out += name_ + suffix;
  if (!label_names_.empty() || !extra_label.empty()) {
    *out += "{";
    bool first = true;
    for (size_t i = 0; i < label_names_.size() && i < values.size(); ++i) {
      if (!first) *out += ",";
      first = false;
      *out += label_names_[i] + "=\"" + Escape(values[i], /*quote=*/true) + "\"";
    }
    if (!extra_label.empty()) {
      if (!first) *out += ",";
      *out += extra_label;
    }
    *out += "}";
  }
  *out += " " + value + "\n";
}

template <>
void ChildFamily<Counter>::WriteSamples(std::string* out) const {
  std::lock_guard lock(mu_);
  for (const auto& [values, counter] : children_) {
    WriteSample(out, "", values, "", std::to_string(counter->value()));
  }
}

template <>
void ChildFamily<Gauge>::WriteSamples(std::string* out) const {
  std::lock_guard lock(mu_);
  for (const auto& [values, gauge] : children_) {
    WriteSample(out, "", values, "", std::to_string(gauge->value()));
  }
}

template <>
void ChildFamily<Histogram>::WriteSamples(std::string* out) const {
  std::lock_guard lock(mu_);
  for (const auto& [values, histogram] : children_) {
    const Histogram::Totals totals = histogram->Read();
    const std::vector<double>& bounds = histogram->upper_bounds();
    for (size_t i = 0; i <= bounds.size(); ++i) {
      const std::string le = i < bounds.size() ? FormatDouble(bounds[i]) : FormatDouble(INFINITY);
      WriteSample(out, "_bucket", values, "le=\"" + le + "\"",
                  std::to_string(totals.cumulative[i]));
    }
    WriteSample(out, "_sum", values, "", FormatDouble(totals.sum));
    WriteSample(out, "_count", values, "", std::to_string(totals.count));
  }
}

void CallbackGaugeFamily::WriteSamples(std::string* out) const {
  for (const auto& [values, value] : collect_())
    WriteSample(out, "", values, "", FormatDouble(value));
}

template <typename F>
F& Registry::Add(std::unique_ptr<F> family) {
  std::lock_guard lock(mu_);
  for (const auto& existing : families_) {
    if (existing->name() == family->name()) {
      std::fprintf(stderr, "metrics: '%s' registered twice\n", family->name().c_str());
      std::abort();
    }
  }
  F& added = *family;
  families_.push_back(std::move(family));
  return added;
}

CounterFamily& Registry::AddCounterFamily(std::string name, std::string help,
                                          std::vector<std::string> label_names) {
  return Add(std::make_unique<CounterFamily>(std::move(name), std::move(help),
                                             Family::Type::kCounter, std::move(label_names),
                                             [] { return std::make_unique<Counter>(); }));
}

GaugeFamily& Registry::AddGaugeFamily(std::string name, std::string help,
                                      std::vector<std::string> label_names) {
  return Add(std::make_unique<GaugeFamily>(std::move(name), std::move(help), Family::Type::kGauge,
                                           std::move(label_names),
                                           [] { return std::make_unique<Gauge>(); }));
}

HistogramFamily& Registry::AddHistogramFamily(std::string name, std::string help,
                                              std::vector<std::string> label_names,
                                              std::vector<double> upper_bounds) {
  return Add(std::make_unique<HistogramFamily>(
      std::move(name), std::move(help), Family::Type::kHistogram, std::move(label_names),
      [upper_bounds] { return std::make_unique<Histogram>(upper_bounds); }));
}

void Registry::AddCallbackGauge(std::string name, std::string help,
                                std::vector<std::string> label_names,
                                std::function<std::vector<CallbackGaugeFamily::Sample>()> collect) {
  Add(std::make_unique<CallbackGaugeFamily>(std::move(name), std::move(help),
                                            std::move(label_names), std::move(collect)));
}

void Registry::AddCallbackCounter(
    std::string name, std::string help, std::vector<std::string> label_names,
    std::function<std::vector<CallbackGaugeFamily::Sample>()> collect) {
  Add(std::make_unique<CallbackGaugeFamily>(std::move(name), std::move(help),
                                            std::move(label_names), std::move(collect),
                                            Family::Type::kCounter));
}

std::string Registry::Exposition() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& family : families_) family->Write(&out);
  return out;
}

}  // namespace contactsim::server::metrics
