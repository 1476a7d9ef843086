#include "scenes/testbeds/ccd_query_families.h"

#include "scenes/testbeds/ccd_random_generators.h"

namespace contactsim::core::testing {
namespace {

constexpr double kNearMiss = 5e-3;  // [m], as in the CPU property test

PairTrajectory Scaled(const PairTrajectory& trajectory, double scale) {
  PairTrajectory scaled = trajectory;
  for (int i = 0; i < 4; ++i) {
    scaled.x_t0[i] *= scale;
    scaled.x_t1[i] *= scale;
  }
  return scaled;
}

PairTrajectory Make(CcdQueryFamily family, bool vertex_face, TrajectoryGenerator& random) {
  switch (family) {
    case CcdQueryFamily::kGeneric:
      return random.Generic();
    case CcdQueryFamily::kNearContact:
      return random.NearContact(vertex_face, kNearMiss);
    case CcdQueryFamily::kNearlyDegenerate:
      return random.NearlyDegenerate(vertex_face, kNearMiss);
    case CcdQueryFamily::kTouchingAtAnEnd:
      return random.Touching(vertex_face);
    case CcdQueryFamily::kCoplanarMotion: {
      PairTrajectory trajectory = random.Generic();
      for (int i = 0; i < 4; ++i) trajectory.x_t0[i].z() = trajectory.x_t1[i].z() = 0.0;
      return trajectory;
    }
    case CcdQueryFamily::kParallelEdges: {
      PairTrajectory trajectory = random.Generic();
      // Point 3 - point 2 parallel to point 1 - point 0 at both ends (EE: parallel edges; VF: a
      // triangle edge parallel to the vertex's path when the vertex moves along it).
      for (auto* x : {&trajectory.x_t0, &trajectory.x_t1}) {
        (*x)[3] = (*x)[2] + random.Uniform(-2.0, 2.0) * ((*x)[1] - (*x)[0]);
      }
      if (vertex_face)
        trajectory.x_t1[0] = trajectory.x_t0[0] + (trajectory.x_t0[3] - trajectory.x_t0[2]);
      return trajectory;
    }
    case CcdQueryFamily::kZeroMotion: {
      PairTrajectory trajectory =
          random.Index(2) == 0 ? random.Touching(vertex_face) : random.Generic();
      trajectory.x_t1 = trajectory.x_t0;
      return trajectory;
    }
    case CcdQueryFamily::kHugeCoordinates:
      return Scaled(random.Mixed(vertex_face, kNearMiss), random.Index(10) == 0 ? 0.5e149 : 1e100);
    case CcdQueryFamily::kTinyCoordinates:
      return Scaled(random.Mixed(vertex_face, kNearMiss), 1e-100);
    case CcdQueryFamily::kCollapsedFeature: {
      PairTrajectory trajectory = random.Mixed(vertex_face, kNearMiss);
      // VF: b = a (a triangle with two equal vertices); EE: d = c (edge 1 a point).
      const int from = vertex_face ? 1 : 2;
      const int to = vertex_face ? 2 : 3;
      trajectory.x_t0[to] = trajectory.x_t0[from];
      trajectory.x_t1[to] = trajectory.x_t1[from];
      return trajectory;
    }
    case CcdQueryFamily::kCount:
      break;
  }
  return random.Generic();
}

}  // namespace

std::vector<CcdQuery> RandomAndDegenerateCcdQueries(int64_t count, uint64_t seed) {
  TrajectoryGenerator random(seed);
  std::vector<CcdQuery> queries(static_cast<size_t>(count));
  constexpr int kFamilies = static_cast<int>(CcdQueryFamily::kCount);
  for (int64_t i = 0; i < count; ++i) {
    const bool vertex_face = (i / kFamilies) % 2 == 0;
    CcdQuery& query = queries[static_cast<size_t>(i)];
    query.kind = vertex_face ? CcdQueryKind::kVertexFace : CcdQueryKind::kEdgeEdge;
    query.trajectory = Make(static_cast<CcdQueryFamily>(i % kFamilies), vertex_face, random);
  }
  return queries;
}

}  // namespace contactsim::core::testing
