// Prints every field of the CCD's answer (through the header implementations and
// FeaturePairCcdWith, as the CUDA batch runs it) for queries from stdin (the benchmark's or
// ccd_query's line format; anything after the 24 numbers is ignored) or generated ones.
// Built twice, with and without EIGEN_DONT_VECTORIZE (tests/core/collision/CMakeLists.txt):
// nvcc's device code does not vectorize Eigen, so the unvectorized build does the device's
// arithmetic in the host's IEEE doubles (with -fmad=false, the device contracts nothing, as the
// host). ccd_answers_compare.cmake requires the two outputs to be identical: an Eigen reduction
// whose order depends on vectorization (vec3_sums.h) would make them differ.
//
//   ccd_answers D < queries.txt        ccd_answers D --generate N SEED
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "core/collision/ccd/feature_pair_ccd.h"
#include "core/collision/ccd/inclusion_root_finder_impl.h"

namespace contactsim::core {
namespace {

using internal::inclusion_root_finder_impl::Box;

struct VectorStorage {
  std::vector<Box> boxes;
  Box* data() { return boxes.data(); }
  int size() const { return static_cast<int>(boxes.size()); }
  void set_size(int n) { boxes.resize(n); }
  bool Reserve(int n) {
    if (static_cast<size_t>(n) > boxes.size()) boxes.resize(n);
    return true;
  }
};

template <typename Features>
CcdResult Answer(const PairTrajectory& trajectory, const CcdOptions& options,
                 VectorStorage* storage) {
  return internal::FeaturePairCcdWith<Features>(trajectory, options, nullptr, [&] {
    CcdResult result;
    internal::inclusion_root_finder_impl::Solve<Features::kInclusionKind>(trajectory, options,
                                                                          storage, &result);
    return result;
  });
}

void Print(bool vertex_face, const double x[24], const CcdOptions& options,
           VectorStorage* storage) {
  PairTrajectory trajectory;
  for (int i = 0; i < 4; ++i) {
    trajectory.x_t0[i] = Vec3(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    trajectory.x_t1[i] = Vec3(x[12 + 3 * i], x[13 + 3 * i], x[14 + 3 * i]);
  }
  const CcdResult r = vertex_face
                          ? Answer<internal::VertexFaceFeatures>(trajectory, options, storage)
                          : Answer<internal::EdgeEdgeFeatures>(trajectory, options, storage);
  std::printf("%d %a %a %a %a %d %d\n", r.collides ? 1 : 0, r.toi, r.weights[0], r.weights[1],
              r.weights[2], static_cast<int>(r.status), r.iterations);
}

// Generated families (plain doubles from the generator, no Eigen arithmetic): generic motion in
// the unit cube, coplanar motion, no motion, millimetre scale, and a point landing on the other
// feature at t = 1.
void Generate(int64_t count, uint64_t seed, const CcdOptions& options, VectorStorage* storage) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int64_t n = 0; n < count; ++n) {
    double x[24];
    for (int i = 0; i < 12; ++i) x[i] = unit(rng);
    for (int i = 0; i < 12; ++i) x[12 + i] = x[i] + (unit(rng) - 0.5);
    switch (n % 5) {
      case 1:
        for (int p = 0; p < 8; ++p) x[3 * p + 2] = 0.0;
        break;
      case 2:
        for (int i = 0; i < 12; ++i) x[12 + i] = x[i];
        break;
      case 3:
        for (double& value : x) value *= 1e-3;
        break;
      case 4:
        // Point 0 at t = 1 onto the segment of points 2 and 3 (on the triangle's edge for VF).
        for (int k = 0; k < 3; ++k) x[12 + k] = 0.5 * x[18 + k] + 0.5 * x[21 + k];
        break;
      default:
        break;
    }
    Print(n % 2 == 0, x, options, storage);
  }
}

int Main(int argc, char** argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: %s D [--generate N SEED] (< queries)\n", argv[0]);
    return 2;
  }
  CcdOptions options;
  options.min_separation_m = std::atof(argv[1]);
  VectorStorage storage;
  if (argc == 5) {
    Generate(std::atoll(argv[3]), std::strtoull(argv[4], nullptr, 10), options, &storage);
    return 0;
  }
  char line[4096];
  while (std::fgets(line, sizeof(line), stdin) != nullptr) {
    if (std::strncmp(line, "vf", 2) != 0 && std::strncmp(line, "ee", 2) != 0) continue;
    char* cursor = line + 2;
    double x[24];
    for (double& value : x) value = std::strtod(cursor, &cursor);
    Print(line[0] == 'v', x, options, &storage);
  }
  return 0;
}

}  // namespace
}  // namespace contactsim::core

int main(int argc, char** argv) { return contactsim::core::Main(argc, argv); }
