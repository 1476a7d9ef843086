// The World side of the local_global pipeline's contact (local_global_pipeline.h): the obstacles
// of one step in the solver's terms, and the contacts of a solve as ContactReport records (with
// the reactions on the obstacle bodies).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/status.h"
#include "core/contact/contact_report.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/sim/pipeline.h"
#include "core/sim/step_diagnostics.h"

namespace contactsim::core {

// The obstacles of one step and what each one is in the World.
struct LocalGlobalObstacles {
  std::vector<HalfSpaceObstacle> half_spaces;
  std::vector<int32_t> plane_ids;  // per half-space
  std::vector<TriangleMeshObstacle> meshes;
  std::vector<SimBody*> mesh_bodies;  // per mesh obstacle
};

// Static and kinematic rigid bodies: the local_global pipeline's obstacles.
bool IsStaticOrKinematic(const Body& body);

// Every ground plane {n . x >= h} as a half-space and every colliding static or kinematic body as
// a triangle mesh at its current pose, moving at its velocities v_WB and w_WB (about p_WB) over
// the step, all with the Coulomb coefficient mu.
LocalGlobalObstacles CollectObstacles(const StepInput& input, double friction_coefficient);

// Edge and triangle ids of a surface by their vertices, for the report's feature ids (-1 when
// there is no such edge or face).
class SurfaceIndex {
 public:
  explicit SurfaceIndex(const TriangleMesh& surface);
  int32_t Edge(int32_t a, int32_t b) const;
  int32_t Face(std::array<int32_t, 3> v) const;

 private:
  std::map<int64_t, int32_t> edges_;
  std::map<std::array<int32_t, 3>, int32_t> faces_;
};

// The hyperelastic bodies of one solver (one body, or a contact group) in its vertex numbering:
// member b owns the vertices [offsets[b], offsets[b + 1]).
struct SolverMembers {
  std::vector<int32_t> ids;
  std::vector<SurfaceIndex> surfaces;
  std::vector<int32_t> offsets = {0};
  Points3 x_end_m;  // all members' positions at the step end

  void Add(int32_t id, const HyperelasticBody& body) {
    ids.push_back(id);
    surfaces.emplace_back(body.surface());
    offsets.push_back(offsets.back() + body.num_vertices());
    Points3 x(x_end_m.rows() + body.num_vertices(), 3);
    x << x_end_m, body.positions_t0();
    x_end_m = std::move(x);
  }
  int MemberOf(int32_t v) const {
    return static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), v) - offsets.begin()) -
           1;
  }
  int32_t Local(int32_t v) const { return v - offsets[MemberOf(v)]; }
  std::array<int32_t, 3> LocalFace(int32_t a, int32_t b, int32_t c) const {
    return {Local(a), Local(b), Local(c)};
  }
};

// Appends the contacts of one solve (stats, in the members' vertex numbering) with a positive
// normal force to the report: impulses dt lambda on body A, feature ids in each body's own
// numbering, depth and point at the step end, stick or slip; counts them in the diagnostics and
// gives the reactions to the obstacle bodies (split equally over the obstacle feature's vertices).
absl::Status ReportContacts(const LocalGlobalStepStats& stats, const SolverMembers& members,
                            const LocalGlobalObstacles& obstacles, double dt,
                            StepDiagnostics* diagnostics, ContactReport* report);

}  // namespace contactsim::core
