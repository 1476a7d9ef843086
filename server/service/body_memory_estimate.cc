#include "server/service/body_memory_estimate.h"

#include <optional>

#include "core/dynamics/body.h"
#include "server/convert/primitive_convert.h"
#include "server/session/session_memory.h"

namespace contactsim::server {
namespace {

std::optional<core::BodyType> TypeOf(v1::BodyKind kind) {
  switch (kind) {
    case v1::BODY_KIND_RIGID:
    case v1::BODY_KIND_STATIC:
    case v1::BODY_KIND_KINEMATIC:
      return core::BodyType::kRigid;
    case v1::BODY_KIND_CLOTH:
      return core::BodyType::kMassSpringCloth;
    case v1::BODY_KIND_FEM:
      return core::BodyType::kCorotationalFem;
    case v1::BODY_KIND_HYPERELASTIC:
      return core::BodyType::kHyperelastic;
    default:
      return std::nullopt;
  }
}

}  // namespace

int64_t EstimateBodyBytes(const v1::BodySpec& spec, const ServerLimits& limits) {
  const std::optional<core::BodyType> type = TypeOf(spec.kind());
  if (!type) return 0;
  double vertices = 0.0;
  double faces = 0.0;
  double tets = 0.0;
  switch (spec.mesh_case()) {
    case v1::BodySpec::kTriangleMesh:
      vertices = spec.triangle_mesh().vertices_m_size() / 3;
      faces = spec.triangle_mesh().triangles_size() / 3;
      break;
    case v1::BodySpec::kTetMesh:
      vertices = spec.tet_mesh().vertices_m_size() / 3;
      tets = spec.tet_mesh().tetrahedra_size() / 4;
      break;
    case v1::BodySpec::kPrimitive: {
      const std::optional<PrimitiveCounts> counts = CountPrimitive(spec.primitive());
      if (!counts) return 0;
      vertices = counts->vertices;
      (counts->tetrahedral ? tets : faces) = counts->elements;
      break;
    }
    default:
      return 0;
  }
  if (vertices > static_cast<double>(limits.max_vertices_per_mesh) ||
      faces + tets > static_cast<double>(limits.max_elements_per_mesh)) {
    return 0;
  }
  const double ring_frames = limits.stream_ring_frames;
  // In floating point first: a primitive's counts may be far beyond int64 before the limits
  // refuse them; the estimate then saturates (and is refused by any budget).
  const double bytes = static_cast<double>(BodyBytesPerVertex(*type)) * vertices +
                       static_cast<double>(kBytesPerFace) * faces +
                       static_cast<double>(BodyBytesPerTet(*type)) * tets +
                       static_cast<double>(CollisionBytesFor(1, 0)) * vertices +
                       static_cast<double>(CollisionBytesFor(0, 1)) * faces +
                       ring_frames * (static_cast<double>(kFrameBytesPerVertex) * vertices +
                                      static_cast<double>(kFrameBytesPerBody));
  constexpr double kCap = 9.0e18;
  return bytes >= kCap ? static_cast<int64_t>(kCap) : static_cast<int64_t>(bytes);
}

}  // namespace contactsim::server
