// ccd_query: answers conservative CCD queries given as text, one per line, to check our
// vertex-face and edge-edge CCD (core/collision/ccd) against other implementations.
//
//   ccd_query queries.txt                    answers on stdout, one line per valid query
//   ccd_query < queries.txt                  (or "-") reads standard input
//   ccd_query --min-separation 1e-3 --time queries.txt
//   ccd_query --device cuda queries.txt      the same answers from the GPU batch CCD
//
// The line format is core/collision/ccd/query_text.h; docs/ccd_query.md has the full usage.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "contactsim/gpu/batch_ccd.h"
#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/query_text.h"
#include "core/collision/ccd/vertex_face.h"

namespace contactsim::bench {
namespace {

using core::CcdOptions;
using core::CcdQuery;
using core::CcdQueryKind;
using core::CcdResult;
using core::CcdStatus;

constexpr int kExitOk = 0;
constexpr int kExitUsage = 1;     // bad flags, unreadable input
constexpr int kExitBadLines = 2;  // at least one line was malformed or rejected

constexpr char kFooter[] =
    R"(Input: one query per line: 'vf' or 'ee', then 24 numbers: the four points at t0
(x y z each), then the same four points at t1. vf: the vertex, then the triangle's
three vertices; ee: edge a's two vertices, then edge b's. Blank lines and lines
starting with '#' are skipped.

Output: one line per valid query, in input order: '1 t' with the earliest contact
time t in [0, 1] (conservative: no contact before t; printed with %.17g), or '0'
for no contact. A malformed line (unknown kind, not 24 numbers, a token that is
not a finite number) is reported on stderr with its line number and prints nothing
on stdout, so stdout lines correspond to the valid queries only.

Exit codes: 0 all lines valid; 1 bad flags or unreadable input; 2 at least one
malformed line (the other lines are still answered).)";

CcdResult RunQuery(const CcdQuery& query, const CcdOptions& options) {
  return query.kind == CcdQueryKind::kVertexFace ? core::VertexFaceCcd(query.trajectory, options)
                                                 : core::EdgeEdgeCcd(query.trajectory, options);
}

// Keeps the timed calls observable so the compiler cannot drop them.
volatile double timing_sink = 0.0;

double TimeBatchNs(const CcdQuery& query, const CcdOptions& options, int64_t repetitions) {
  double sum = 0.0;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < repetitions; ++i) sum += RunQuery(query, options).toi;
  const auto stop = std::chrono::steady_clock::now();
  timing_sink = timing_sink + sum;
  return std::chrono::duration<double, std::nano>(stop - start).count();
}

// Nanoseconds per CCD call for one query. The repetition count doubles until a batch takes at
// least 10 us (clock resolution and overhead ~20-30 ns, so well under 1% of the batch); then the
// fastest of three batches, the one least disturbed by interrupts and other processes.
double MeasureNsPerCall(const CcdQuery& query, const CcdOptions& options) {
  constexpr double kMinBatchNs = 10'000.0;
  constexpr int64_t kMaxRepetitions = int64_t{1} << 24;
  constexpr int kBatches = 3;
  int64_t repetitions = 1;
  double batch_ns = TimeBatchNs(query, options, repetitions);
  while (batch_ns < kMinBatchNs && repetitions < kMaxRepetitions) {
    repetitions *= 2;
    batch_ns = TimeBatchNs(query, options, repetitions);
  }
  for (int i = 1; i < kBatches; ++i) {
    batch_ns = std::min(batch_ns, TimeBatchNs(query, options, repetitions));
  }
  return batch_ns / static_cast<double>(repetitions);
}

struct Totals {
  int64_t queries = 0;
  int64_t hits = 0;
  int64_t bad_lines = 0;
  int64_t max_iterations_reached = 0;
  double timed_ns = 0.0;
};

// Reads every line of `input`, reporting malformed ones on stderr (counted in totals.bad_lines);
// each valid query is passed to on_query(query, line_number). Returns false on a read error.
template <typename OnQuery>
bool ForEachQuery(std::FILE* input, Totals& totals, OnQuery&& on_query) {
  char* buffer = nullptr;
  size_t capacity = 0;
  int64_t line_number = 0;
  ssize_t length = 0;
  while ((length = ::getline(&buffer, &capacity, input)) >= 0) {
    ++line_number;
    std::string_view line(buffer, static_cast<size_t>(length));
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    const absl::StatusOr<std::optional<CcdQuery>> parsed = core::ParseCcdQueryLine(line);
    if (!parsed.ok()) {
      std::fprintf(stderr, "ccd_query: line %lld: %s\n", static_cast<long long>(line_number),
                   std::string(parsed.status().message()).c_str());
      ++totals.bad_lines;
      continue;
    }
    if (parsed->has_value()) on_query(**parsed, line_number);
  }
  std::free(buffer);
  return !std::ferror(input);
}

void ReportRejected(int64_t line_number, Totals& totals) {
  // Parsed fine but outside what the CCD certifies (e.g. a coordinate beyond its range).
  std::fprintf(stderr, "ccd_query: line %lld: the CCD rejected the query as invalid input\n",
               static_cast<long long>(line_number));
  ++totals.bad_lines;
}

void PrintAnswer(const CcdResult& result, Totals& totals) {
  ++totals.queries;
  if (result.status == CcdStatus::kMaxIterationsReached) ++totals.max_iterations_reached;
  if (result.collides) {
    ++totals.hits;
    std::printf("1 %.17g\n", result.toi);
  } else {
    std::fputs("0\n", stdout);
  }
}

enum class DeviceRun { kOk, kReadError, kDeviceError };

// --device cuda: reads the whole input, then answers its valid queries in one GPU batch
// (contactsim/gpu/batch_ccd.h: the CPU's CCD compiled for the device, the same answers bit for
// bit). Rejected queries are reported as on the CPU path, by the batch's input check. With
// time_queries, the batch is run once more and timed as a whole (transfers included); its mean
// per query goes to totals.timed_ns.
DeviceRun ProcessInputOnDevice(std::FILE* input, const CcdOptions& options, bool time_queries,
                               Totals& totals) {
  std::vector<CcdQuery> queries;
  // Options the CCD does not certify (d or the tolerance >= 1e150) make the CPU path reject every
  // query; so here.
  const bool options_ok = gpu::ValidateCcdOptions(options).ok();
  const bool read_ok = ForEachQuery(input, totals, [&](const CcdQuery& query, int64_t line) {
    if (options_ok && gpu::ValidateCcdQuery(query, static_cast<int64_t>(queries.size())).ok()) {
      queries.push_back(query);
    } else {
      ReportRejected(line, totals);
    }
  });
  if (!read_ok) return DeviceRun::kReadError;
  absl::StatusOr<std::unique_ptr<gpu::BatchCcd>> batch = gpu::BatchCcd::Create(0);
  if (!batch.ok()) {
    std::fprintf(stderr, "ccd_query: --device cuda: %s\n",
                 std::string(batch.status().message()).c_str());
    return DeviceRun::kDeviceError;
  }
  absl::StatusOr<std::vector<CcdResult>> results = (*batch)->Run(queries, options);
  if (!results.ok()) {
    std::fprintf(stderr, "ccd_query: --device cuda: %s\n",
                 std::string(results.status().message()).c_str());
    return DeviceRun::kDeviceError;
  }
  for (const CcdResult& result : *results) PrintAnswer(result, totals);
  if (time_queries && !queries.empty()) {
    const auto start = std::chrono::steady_clock::now();
    if (!(*batch)->Run(queries, options).ok()) return DeviceRun::kDeviceError;
    const std::chrono::duration<double, std::nano> elapsed =
        std::chrono::steady_clock::now() - start;
    totals.timed_ns = elapsed.count();
  }
  return DeviceRun::kOk;
}

// Answers every query of `input`; returns false on a read error.
bool ProcessInput(std::FILE* input, const CcdOptions& options, bool time_queries, Totals& totals) {
  return ForEachQuery(input, totals, [&](const CcdQuery& query, int64_t line_number) {
    const CcdResult result = RunQuery(query, options);
    if (result.status == CcdStatus::kInvalidInput) {
      ReportRejected(line_number, totals);
      return;
    }
    PrintAnswer(result, totals);
    if (time_queries) {
      const double ns = MeasureNsPerCall(query, options);
      totals.timed_ns += ns;
      std::fprintf(stderr, "ccd_query: line %lld: %.1f ns\n", static_cast<long long>(line_number),
                   ns);
    }
  });
}

int Main(int argc, char** argv) {
  CLI::App app{
      "Answers conservative vertex-face (vf) and edge-edge (ee) CCD queries read as text."};
  app.footer(kFooter);
  std::string input_path = "-";
  CcdOptions options;
  bool time_queries = false;
  const auto finite_non_negative = CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0.0;
        if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value) || value < 0.0) {
          return "must be a finite number >= 0, got " + text;
        }
        return {};
      },
      "NONNEGATIVE");
  app.add_option("input", input_path, "query file; '-' or none reads standard input");
  app.add_option("--min-separation", options.min_separation_m,
                 "thickness d [m]: contact when the features come within d")
      ->default_val(options.min_separation_m)
      ->check(finite_non_negative);
  app.add_option("--tolerance", options.tolerance_m,
                 "length tolerance [m] of the certified root finder (CcdOptions::tolerance_m)")
      ->default_val(options.tolerance_m)
      ->check(finite_non_negative);
  app.add_option("--max-iterations", options.max_iterations,
                 "box evaluations before the root finder stops, conservatively")
      ->default_val(options.max_iterations)
      ->check(CLI::PositiveNumber);
  std::string device = "cpu";
  app.add_option("--device", device,
                 "cpu: one query at a time on this thread; cuda: all queries in one GPU batch "
                 "(the same answers)")
      ->default_val(device)
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_flag("--time", time_queries,
               "print ns per query (CCD calls only, repeated for a stable figure) and a summary "
               "on stderr");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 reports through exceptions; map them onto the documented exit codes.
    return app.exit(error) == 0 ? kExitOk : kExitUsage;
  }

  std::FILE* input = stdin;
  if (input_path != "-") {
    input = std::fopen(input_path.c_str(), "rb");
    if (input == nullptr) {
      std::fprintf(stderr, "ccd_query: cannot open '%s': %s\n", input_path.c_str(),
                   std::strerror(errno));
      return kExitUsage;
    }
  }
  Totals totals;
  bool read_ok = true;
  if (device == "cuda") {
    const DeviceRun run = ProcessInputOnDevice(input, options, time_queries, totals);
    if (run == DeviceRun::kDeviceError) {
      if (input != stdin) std::fclose(input);
      return kExitUsage;
    }
    read_ok = run == DeviceRun::kOk;
  } else {
    read_ok = ProcessInput(input, options, time_queries, totals);
  }
  if (input != stdin) std::fclose(input);
  std::fflush(stdout);

  if (!read_ok) {
    std::fprintf(stderr, "ccd_query: error reading '%s'\n", input_path.c_str());
    return kExitUsage;
  }
  if (time_queries) {
    const double mean_ns =
        totals.queries > 0 ? totals.timed_ns / static_cast<double>(totals.queries) : 0.0;
    std::fprintf(
        stderr, "ccd_query: %lld queries, %lld hits, mean %.1f ns/query%s\n",
        static_cast<long long>(totals.queries), static_cast<long long>(totals.hits), mean_ns,
        device == "cuda" ? " (--device cuda: one batch timed whole, transfers included)" : "");
  }
  if (totals.max_iterations_reached > 0) {
    std::fprintf(stderr,
                 "ccd_query: %lld queries reached --max-iterations (their answers are "
                 "conservative, possibly false positives)\n",
                 static_cast<long long>(totals.max_iterations_reached));
  }
  if (totals.bad_lines > 0) {
    std::fprintf(stderr, "ccd_query: %lld malformed lines\n",
                 static_cast<long long>(totals.bad_lines));
    return kExitBadLines;
  }
  return kExitOk;
}

}  // namespace
}  // namespace contactsim::bench

int main(int argc, char** argv) { return contactsim::bench::Main(argc, argv); }
