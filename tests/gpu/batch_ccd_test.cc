// The GPU batch CCD (gpu/include/contactsim/gpu/batch_ccd.h) against the CPU CCD
// (core/collision/ccd): the same code compiled for the device, so every answer must be the CPU's
// bit for bit (hit flag, time of impact, weights, status, iterations): no tolerance is needed
// and none is allowed. Inputs: the public benchmark (38,090 labelled queries, also checked for 0
// false negatives against its exact labels), 1,000,000 random and degenerate queries
// (scenes/testbeds/ccd_query_families.h), and the CPU's random property test
// (tests/core/collision/ccd_random_property_test.cc: same generator, seeds and counts) with the
// GPU's answers checked against the dense reference.
//
// The input checks run everywhere; the device tests skip, saying why, without a CUDA build or a
// CUDA device.
#include "contactsim/gpu/batch_ccd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"
#include "core/common/parallel_for.h"
#include "oneapi/tbb/blocked_range.h"
#include "scenes/testbeds/ccd_benchmark_data.h"
#include "scenes/testbeds/ccd_query_families.h"
#include "scenes/testbeds/ccd_random_generators.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::gpu {
namespace {

using core::CcdOptions;
using core::CcdQuery;
using core::CcdQueryKind;
using core::CcdResult;

CcdQuery UnitQuery(CcdQueryKind kind) {
  // A vertex falling through the triangle z = 0 (or an edge onto a crossing edge).
  CcdQuery query;
  query.kind = kind;
  query.trajectory.x_t0 = {core::Vec3(0.25, 0.25, 1), core::Vec3(0, 0, 0), core::Vec3(1, 0, 0),
                           core::Vec3(0, 1, 0)};
  query.trajectory.x_t1 = query.trajectory.x_t0;
  query.trajectory.x_t1[0].z() = -1.0;
  return query;
}

// ---- Input checks (no device needed) ----

TEST(BatchCcdValidation, AcceptsWhatTheCpuAccepts) {
  const std::vector<CcdQuery> queries = {UnitQuery(CcdQueryKind::kVertexFace),
                                         UnitQuery(CcdQueryKind::kEdgeEdge)};
  EXPECT_TRUE(ValidateCcdBatch(queries, CcdOptions{}).ok());
  CcdQuery big = UnitQuery(CcdQueryKind::kVertexFace);
  big.trajectory.x_t0[1].x() = 1e150;  // the CPU's limit is inclusive
  EXPECT_TRUE(ValidateCcdQuery(big, 0).ok());
}

TEST(BatchCcdValidation, NamesTheOptionField) {
  CcdOptions options;
  options.min_separation_m = -1.0;
  absl::Status status = ValidateCcdBatch({}, options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("options.min_separation_m"), std::string::npos) << status;
  options = CcdOptions{};
  options.tolerance_m = std::numeric_limits<double>::quiet_NaN();
  status = ValidateCcdBatch({}, options);
  EXPECT_NE(status.message().find("options.tolerance_m"), std::string::npos) << status;
}

TEST(BatchCcdValidation, NamesTheQueryIndexAndCoordinate) {
  std::vector<CcdQuery> queries(3, UnitQuery(CcdQueryKind::kEdgeEdge));
  queries[2].trajectory.x_t1[3][2] = std::numeric_limits<double>::quiet_NaN();
  absl::Status status = ValidateCcdBatch(queries, CcdOptions{});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("query 2: trajectory.x_t1[3][2]"), std::string::npos) << status;
  queries[2] = UnitQuery(CcdQueryKind::kEdgeEdge);
  queries[1].trajectory.x_t0[0][1] = 2e150;
  status = ValidateCcdBatch(queries, CcdOptions{});
  EXPECT_NE(status.message().find("query 1: trajectory.x_t0[0][1]"), std::string::npos) << status;
  queries[1] = UnitQuery(CcdQueryKind::kEdgeEdge);
  queries[0].kind = static_cast<CcdQueryKind>(7);
  status = ValidateCcdBatch(queries, CcdOptions{});
  EXPECT_NE(status.message().find("query 0: kind 7"), std::string::npos) << status;
}

// Exactly the inputs the CPU answers with kInvalidInput are rejected, on the random and
// degenerate families plus NaN/inf/out-of-range mutations of them.
TEST(BatchCcdValidation, RejectsExactlyWhatTheCpuCallsInvalid) {
  std::vector<CcdQuery> queries = core::testing::RandomAndDegenerateCcdQueries(2'000, 17);
  const double bad[] = {std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity(), -1.5e150, 1e150};
  for (size_t i = 0; i < queries.size(); i += 7) {
    queries[i].trajectory.x_t1[i % 4][i % 3] = bad[(i / 7) % 4];
  }
  int rejected = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    const CcdQuery& query = queries[i];
    const CcdResult cpu = query.kind == CcdQueryKind::kVertexFace
                              ? core::VertexFaceCcd(query.trajectory)
                              : core::EdgeEdgeCcd(query.trajectory);
    const bool valid = ValidateCcdQuery(query, static_cast<int64_t>(i)).ok();
    EXPECT_EQ(valid, cpu.status != core::CcdStatus::kInvalidInput) << "query " << i;
    rejected += !valid;
  }
  EXPECT_GT(rejected, 200);  // the mutations did produce invalid queries
}

// ---- The test inputs (no device needed) ----

TEST(BatchCcdInputs, BenchmarkLoadsWithItsPublishedCounts) {
  const std::string dir = core::testing::CcdBenchmarkDir(CONTACTSIM_CCD_BENCHMARK_DIR);
  absl::StatusOr<std::vector<core::testing::LabeledCcdQuery>> labelled =
      core::testing::LoadCcdBenchmark(dir);
  ASSERT_TRUE(labelled.ok()) << labelled.status();
  int64_t vf = 0, positives = 0;
  for (const auto& q : *labelled) {
    vf += q.query.kind == CcdQueryKind::kVertexFace;
    positives += q.collides;
  }
  // ../shared/ccd-benchmark/README.md: 18,090 vf and 20,000 ee; 15,149 + 15,636 positives.
  EXPECT_EQ(static_cast<int>(labelled->size()), core::testing::kCcdBenchmarkQueryCount);
  EXPECT_EQ(vf, 18'090);
  EXPECT_EQ(positives, 15'149 + 15'636);
}

// The families give both answers and reach the paths they are meant for (on the CPU, which the
// GPU must match bit for bit).
TEST(BatchCcdInputs, FamiliesExerciseHitsMissesAndBothKinds) {
  constexpr int kFamilies = static_cast<int>(core::testing::CcdQueryFamily::kCount);
  const std::vector<CcdQuery> queries =
      core::testing::RandomAndDegenerateCcdQueries(20 * kFamilies * 10, 3);
  int hits[kFamilies][2] = {}, misses[kFamilies][2] = {};
  for (size_t i = 0; i < queries.size(); ++i) {
    const CcdResult result = queries[i].kind == CcdQueryKind::kVertexFace
                                 ? core::VertexFaceCcd(queries[i].trajectory)
                                 : core::EdgeEdgeCcd(queries[i].trajectory);
    EXPECT_NE(result.status, core::CcdStatus::kInvalidInput) << i;
    const int kind = queries[i].kind == CcdQueryKind::kVertexFace ? 0 : 1;
    (result.collides ? hits : misses)[i % kFamilies][kind]++;
  }
  for (int family = 0; family < kFamilies; ++family) {
    for (int kind = 0; kind < 2; ++kind) {
      EXPECT_GT(hits[family][kind] + misses[family][kind], 0) << family << " " << kind;
    }
  }
  // Touching at an end always collides; every family other than the generic ones hits sometimes.
  const int touching = static_cast<int>(core::testing::CcdQueryFamily::kTouchingAtAnEnd);
  EXPECT_EQ(misses[touching][0] + misses[touching][1], 0);
  for (int family = 1; family < kFamilies; ++family) {
    EXPECT_GT(hits[family][0] + hits[family][1], 0) << "family " << family;
  }
}

// ---- Device ----

// Without a device the tests skip; a CUDA build on a machine with a device must create one.
std::unique_ptr<BatchCcd> CreateOrExplain(std::string* why) {
  absl::StatusOr<std::unique_ptr<BatchCcd>> batch = BatchCcd::Create(0);
  if (batch.ok()) return *std::move(batch);
  *why = std::string(batch.status().message());
  const absl::StatusCode code = batch.status().code();
  // Unimplemented: a build without CUDA; FailedPrecondition: no device. Anything else is a bug.
  EXPECT_TRUE(code == absl::StatusCode::kUnimplemented ||
              code == absl::StatusCode::kFailedPrecondition)
      << batch.status();
  return nullptr;
}

#define DEVICE_OR_SKIP(batch)                                        \
  std::string why_no_device;                                         \
  std::unique_ptr<BatchCcd> batch = CreateOrExplain(&why_no_device); \
  if (batch == nullptr) GTEST_SKIP() << "no CUDA device: " << why_no_device

TEST(BatchCcd, UnavailableSaysWhy) {
  std::string why;
  std::unique_ptr<BatchCcd> batch = CreateOrExplain(&why);
  if (batch == nullptr) {
    EXPECT_FALSE(why.empty());
    const std::vector<CcdQuery> one = {UnitQuery(CcdQueryKind::kVertexFace)};
    EXPECT_FALSE(BatchCcdOnDevice(one, CcdOptions{}).ok());
  }
}

TEST(BatchCcd, RejectsInvalidInputBeforeDeviceWork) {
  DEVICE_OR_SKIP(batch);
  std::vector<CcdQuery> queries(2, UnitQuery(CcdQueryKind::kVertexFace));
  queries[1].trajectory.x_t0[2][0] = std::numeric_limits<double>::infinity();
  const absl::StatusOr<std::vector<CcdResult>> results = batch->Run(queries, CcdOptions{});
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(results.status().message().find("query 1"), std::string::npos) << results.status();
}

TEST(BatchCcd, EmptyBatchAndKnownAnswers) {
  DEVICE_OR_SKIP(batch);
  absl::StatusOr<std::vector<CcdResult>> empty = batch->Run({}, CcdOptions{});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->empty());
  const std::vector<CcdQuery> queries = {UnitQuery(CcdQueryKind::kVertexFace)};
  absl::StatusOr<std::vector<CcdResult>> results = batch->Run(queries, CcdOptions{});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_TRUE((*results)[0].collides);
  // docs/ccd_query.md's example: the fall through z = 0 at t = 0.5, reported just before.
  EXPECT_LE((*results)[0].toi, 0.5);
  EXPECT_GT((*results)[0].toi, 0.5 - 1e-5);
}

CcdResult CpuCcd(const CcdQuery& query, const CcdOptions& options) {
  return query.kind == CcdQueryKind::kVertexFace ? core::VertexFaceCcd(query.trajectory, options)
                                                 : core::EdgeEdgeCcd(query.trajectory, options);
}

std::vector<CcdResult> CpuAnswers(const std::vector<CcdQuery>& queries, const CcdOptions& options) {
  std::vector<CcdResult> results(queries.size());
  core::ParallelFor(tbb::blocked_range<size_t>(0, queries.size()),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t i = range.begin(); i != range.end(); ++i) {
                        results[i] = CpuCcd(queries[i], options);
                      }
                    });
  return results;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

bool SameAnswer(const CcdResult& a, const CcdResult& b) {
  return a.collides == b.collides && SameBits(a.toi, b.toi) &&
         SameBits(a.weights.x(), b.weights.x()) && SameBits(a.weights.y(), b.weights.y()) &&
         SameBits(a.weights.z(), b.weights.z()) && a.status == b.status &&
         a.iterations == b.iterations;
}

// Runs `queries` on the device and the CPU; every answer must match bit for bit.
std::vector<CcdResult> ExpectGpuEqualsCpu(BatchCcd& batch, const std::vector<CcdQuery>& queries,
                                          const CcdOptions& options, const char* what) {
  absl::StatusOr<std::vector<CcdResult>> gpu = batch.Run(queries, options);
  EXPECT_TRUE(gpu.ok()) << gpu.status();
  if (!gpu.ok()) return {};
  EXPECT_EQ(gpu->size(), queries.size());
  const std::vector<CcdResult> cpu = CpuAnswers(queries, options);
  int64_t mismatches = 0, hits = 0;
  for (size_t i = 0; i < queries.size() && i < gpu->size(); ++i) {
    hits += cpu[i].collides;
    if (SameAnswer(cpu[i], (*gpu)[i])) continue;
    if (++mismatches <= 5) {
      ADD_FAILURE() << what << ": query " << i << " differs: CPU " << cpu[i].collides << " "
                    << cpu[i].toi << " (" << cpu[i].iterations << " boxes), GPU "
                    << (*gpu)[i].collides << " " << (*gpu)[i].toi << " (" << (*gpu)[i].iterations
                    << " boxes)\n"
                    << core::FormatCcdQuery(queries[i]);
    }
  }
  const BatchCcdStats& stats = batch.last_stats();
  std::printf("%s (d = %g): %zu queries, %" PRId64 " hits, %" PRId64 " mismatches; %" PRId64
              " answered on the device, %" PRId64 " handed to the host\n",
              what, options.min_separation_m, queries.size(), hits, mismatches,
              stats.device_answered, stats.host_answered);
  EXPECT_EQ(mismatches, 0) << what;
  // The fallback is for rare deep searches; most of the batch must run on the device.
  EXPECT_GT(stats.device_answered, stats.queries * 9 / 10) << what;
  return *std::move(gpu);
}

TEST(BatchCcd, BenchmarkMatchesCpuBitForBitWithNoFalseNegative) {
  DEVICE_OR_SKIP(batch);
  const std::string dir = core::testing::CcdBenchmarkDir(CONTACTSIM_CCD_BENCHMARK_DIR);
  absl::StatusOr<std::vector<core::testing::LabeledCcdQuery>> labelled =
      core::testing::LoadCcdBenchmark(dir);
  ASSERT_TRUE(labelled.ok()) << labelled.status();
  ASSERT_EQ(static_cast<int>(labelled->size()), core::testing::kCcdBenchmarkQueryCount);
  std::vector<CcdQuery> queries;
  for (const auto& q : *labelled) queries.push_back(q.query);

  // The labels are for exact contact (d = 0).
  const std::vector<CcdResult> gpu = ExpectGpuEqualsCpu(*batch, queries, CcdOptions{}, "benchmark");
  ASSERT_EQ(gpu.size(), queries.size());
  int64_t false_negatives = 0, false_positives = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    if ((*labelled)[i].collides && !gpu[i].collides) {
      if (++false_negatives <= 5) {
        ADD_FAILURE() << "false negative, query " << i << ": " << core::FormatCcdQuery(queries[i]);
      }
    }
    false_positives += !(*labelled)[i].collides && gpu[i].collides;
  }
  std::printf("benchmark on the GPU: %" PRId64 " false negatives, %" PRId64 " false positives\n",
              false_negatives, false_positives);
  EXPECT_EQ(false_negatives, 0);
  // With a thickness: a different path (separation fast path) through the same code.
  CcdOptions thick;
  thick.min_separation_m = 1e-3;
  ExpectGpuEqualsCpu(*batch, queries, thick, "benchmark");
}

TEST(BatchCcd, MillionRandomAndDegenerateQueriesMatchCpuBitForBit) {
  DEVICE_OR_SKIP(batch);
  const std::vector<CcdQuery> queries =
      core::testing::RandomAndDegenerateCcdQueries(1'000'000, 0x6c0ffee);
  ExpectGpuEqualsCpu(*batch, queries, CcdOptions{}, "random and degenerate");
  // With a thickness (the separation fast path): the first 200,000, to bound the run time.
  CcdOptions thick;
  thick.min_separation_m = 5e-3;
  const std::vector<CcdQuery> first(queries.begin(), queries.begin() + 200'000);
  ExpectGpuEqualsCpu(*batch, first, thick, "random and degenerate");
}

// The CPU property test (tests/core/collision/ccd_random_property_test.cc) with the GPU's
// answers: no false negative against the dense reference, toi no later than its earliest hit,
// and at toi the features within 1.24 d + 2 (tolerance + 2 eps) (the CPU test's bound and its
// 1e-9 m for the 2 eps of these unit-scale inputs).
void RunPropertyOnDevice(BatchCcd& batch, bool vertex_face, uint64_t seed, double d,
                         int trajectories) {
  constexpr int kReferenceSamples = 512;
  constexpr double kMinSeparation = 5e-3;
  core::testing::TrajectoryGenerator generator(seed);
  std::vector<CcdQuery> queries(trajectories);
  for (CcdQuery& query : queries) {
    query.kind = vertex_face ? CcdQueryKind::kVertexFace : CcdQueryKind::kEdgeEdge;
    query.trajectory = generator.Mixed(vertex_face, kMinSeparation);
  }
  CcdOptions options;
  options.min_separation_m = d;
  const absl::StatusOr<std::vector<CcdResult>> gpu = batch.Run(queries, options);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  const double tightness = 1.2395 * d + 2.0 * options.tolerance_m + 1e-9;
  std::atomic<int64_t> misses{0}, late{0}, loose{0}, reference_hits{0};
  core::ParallelFor(
      tbb::blocked_range<size_t>(0, queries.size()), [&](const tbb::blocked_range<size_t>& range) {
        for (size_t i = range.begin(); i != range.end(); ++i) {
          const core::PairTrajectory& x = queries[i].trajectory;
          const CcdResult& result = (*gpu)[i];
          const core::testing::ReferenceResult reference =
              core::testing::DenseReference(vertex_face, x, d, kReferenceSamples);
          reference_hits += reference.hit;
          if (reference.hit && !result.collides) ++misses;
          if (reference.hit && result.collides && result.toi > reference.earliest_hit_t) {
            ++late;
          }
          if (result.collides && result.status == core::CcdStatus::kOk &&
              core::testing::RefDistance(vertex_face, x, result.toi) > tightness) {
            ++loose;
          }
        }
      });
  std::printf("%s d = %g on the GPU: %d trajectories, %" PRId64 " reference hits, %" PRId64
              " misses, %" PRId64 " late, %" PRId64 " loose\n",
              vertex_face ? "vf" : "ee", d, trajectories, reference_hits.load(), misses.load(),
              late.load(), loose.load());
  EXPECT_EQ(misses.load(), 0);
  EXPECT_EQ(late.load(), 0);
  EXPECT_EQ(loose.load(), 0);
  // As in the CPU test: the mix must exercise both outcomes in quantity.
  EXPECT_GT(reference_hits.load(), trajectories / 20);
  EXPECT_LT(reference_hits.load(), trajectories - trajectories / 20);
}

TEST(BatchCcd, CpuPropertyTestThroughTheGpu) {
  DEVICE_OR_SKIP(batch);
  // The CPU test's seeds and counts.
  RunPropertyOnDevice(*batch, true, 0x5eed0001, 5e-3, 500'000);
  RunPropertyOnDevice(*batch, false, 0x5eed0002, 5e-3, 500'000);
  RunPropertyOnDevice(*batch, true, 0x5eed0003, 0.0, 250'000);
  RunPropertyOnDevice(*batch, false, 0x5eed0004, 0.0, 250'000);
}

}  // namespace
}  // namespace contactsim::gpu
