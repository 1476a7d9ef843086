// A small metrics registry that writes the Prometheus text exposition format (version 0.0.4).
//
// Counters, gauges and histograms are updated with relaxed atomics only: no lock on the hot path.
// A labelled family creates its children under the family's mutex, so callers look a child up
// once (at setup, or once per new label combination) and keep the reference, which stays valid
// for the registry's lifetime. Writing the exposition (a scrape) takes the registry's and the
// families' mutexes, never the hot path's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace contactsim::server::metrics {

class Counter {
 public:
  void Increment(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void Add(int64_t n) { value_.fetch_add(n, std::memory_order_relaxed); }
  void Set(int64_t n) { value_.store(n, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// Fixed buckets given by ascending finite upper bounds (the +Inf bucket is implicit). Observe
// adds to one bucket; the exposition makes them cumulative and derives _count from the buckets,
// so the +Inf bucket always equals _count.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);

  void Observe(double value);

  struct Totals {
    std::vector<uint64_t> cumulative;  // per upper bound, then +Inf
    double sum = 0.0;
    uint64_t count = 0;
  };
  Totals Read() const;
  const std::vector<double>& upper_bounds() const { return upper_bounds_; }

 private:
  const std::vector<double> upper_bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // upper_bounds_.size() + 1
  std::atomic<double> sum_{0.0};
};

// 1-2-5 bounds from `lowest` up to and including `highest` (e.g. 1e-5 ... 10 s).
std::vector<double> OneTwoFiveBounds(double lowest, double highest);

using LabelValues = std::vector<std::string>;

// One metric name with its HELP, TYPE and label names. Children by label values.
class Family {
 public:
  enum class Type { kCounter, kGauge, kHistogram };
  Family(std::string name, std::string help, Type type, std::vector<std::string> label_names)
      : name_(std::move(name)),
        help_(std::move(help)),
        type_(type),
        label_names_(std::move(label_names)) {}
  virtual ~Family() = default;

  const std::string& name() const { return name_; }
  void Write(std::string* out) const;

 protected:
  virtual void WriteSamples(std::string* out) const = 0;
  // `name{labels} value` (extra_label, e.g. le="0.1", goes last).
  void WriteSample(std::string* out, const std::string& suffix, const LabelValues& values,
                   const std::string& extra_label, const std::string& value) const;

  const std::string name_;
  const std::string help_;
  const Type type_;
  const std::vector<std::string> label_names_;
};

// A family whose children are created on first use.
template <typename Metric>
class ChildFamily : public Family {
 public:
  using Factory = std::function<std::unique_ptr<Metric>()>;
  ChildFamily(std::string name, std::string help, Type type, std::vector<std::string> label_names,
              Factory factory)
      : Family(std::move(name), std::move(help), type, std::move(label_names)),
        factory_(std::move(factory)) {}

  // Takes the family's mutex: look children up once, not per event. `values` must have one
  // entry per label name.
  Metric& With(const LabelValues& values) {
    std::lock_guard lock(mu_);
    std::unique_ptr<Metric>& child = children_[values];
    if (child == nullptr) child = factory_();
    return *child;
  }

 protected:
  void WriteSamples(std::string* out) const override;

 private:
  const Factory factory_;
  mutable std::mutex mu_;
  std::map<LabelValues, std::unique_ptr<Metric>> children_;  // sorted: stable output
};

template <>
void ChildFamily<Counter>::WriteSamples(std::string* out) const;
template <>
void ChildFamily<Gauge>::WriteSamples(std::string* out) const;
template <>
void ChildFamily<Histogram>::WriteSamples(std::string* out) const;

using CounterFamily = ChildFamily<Counter>;
using GaugeFamily = ChildFamily<Gauge>;
using HistogramFamily = ChildFamily<Histogram>;

// A gauge (or a counter kept elsewhere, e.g. the kernel's CPU time) whose samples are computed
// at scrape time (e.g. sessions by state).
class CallbackGaugeFamily : public Family {
 public:
  using Sample = std::pair<LabelValues, double>;
  CallbackGaugeFamily(std::string name, std::string help, std::vector<std::string> label_names,
                      std::function<std::vector<Sample>()> collect, Type type = Type::kGauge)
      : Family(std::move(name), std::move(help), type, std::move(label_names)),
        collect_(std::move(collect)) {}

 protected:
  void WriteSamples(std::string* out) const override;

 private:
  const std::function<std::vector<Sample>()> collect_;
};

class Registry {
 public:
  // Names must be unique (a repeated name aborts: it is a programming error).
  CounterFamily& AddCounterFamily(std::string name, std::string help,
                                  std::vector<std::string> label_names);
  GaugeFamily& AddGaugeFamily(std::string name, std::string help,
                              std::vector<std::string> label_names);
  HistogramFamily& AddHistogramFamily(std::string name, std::string help,
                                      std::vector<std::string> label_names,
                                      std::vector<double> upper_bounds);
  void AddCallbackGauge(std::string name, std::string help, std::vector<std::string> label_names,
                        std::function<std::vector<CallbackGaugeFamily::Sample>()> collect);
  // A counter read at scrape time from a source that only grows (e.g. getrusage's CPU time).
  void AddCallbackCounter(std::string name, std::string help, std::vector<std::string> label_names,
                          std::function<std::vector<CallbackGaugeFamily::Sample>()> collect);

  // Unlabelled shorthands.
  Counter& AddCounter(std::string name, std::string help) {
    return AddCounterFamily(std::move(name), std::move(help), {}).With({});
  }
  Gauge& AddGauge(std::string name, std::string help) {
    return AddGaugeFamily(std::move(name), std::move(help), {}).With({});
  }
  Histogram& AddHistogram(std::string name, std::string help, std::vector<double> upper_bounds) {
    return AddHistogramFamily(std::move(name), std::move(help), {}, std::move(upper_bounds))
        .With({});
  }

  // Every family in registration order, as Prometheus text format 0.0.4.
  std::string Exposition() const;

 private:
  template <typename F>
  F& Add(std::unique_ptr<F> family);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Family>> families_;
};

// The Content-Type of Registry::Exposition.
inline constexpr char kExpositionContentType[] = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace contactsim::server::metrics
