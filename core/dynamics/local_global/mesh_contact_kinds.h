// The narrow phase of MeshContactDetector::Detect, one function per contact kind of
// mesh_contact.h (vertex-triangle, edge-edge, triangle-vertex with the cloth's vertex-edge), all
// against one obstacle posed at the step start (PoseObstacle). Each appends its contacts to
// *found in the order it finds them; Detect sorts them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/common/eigen_types.h"
#include "core/dynamics/local_global/contact_frame.h"
#include "core/dynamics/local_global/mesh_contact_body.h"
#include "core/dynamics/local_global/mesh_contact_features.h"

namespace contactsim::core::mesh_contact {

// Closest-point parameters this close to an endpoint belong to the vertex kinds.
inline constexpr double kEndpointParameter = 1e-9;
// Below this distance [m] the side of a point relative to a plane or feature is not decided by
// its sign (two-sided obstacles, open bodies): the closed-surface orientation is kept.
inline constexpr double kSideDistance = 1e-12;

// Obstacle k at the step start and what all its contacts of the step share.
struct PosedObstacle {
  const ObstacleFeatures* features = nullptr;
  int32_t index = 0;           // k, VertexContact::obstacle
  Points3 y;                   // vertices at the step start [m]
  Vec3 centre = Vec3::Zero();  // rotation centre at the step start [m]
  double time_step_s = 0.0;
  Vec3 step_motion = Vec3::Zero();  // h v [m]
  double reach_m = 0.0;             // proximity + half thickness: distances below it are pairs
};

// Poses obstacle k at elapsed_s (turning a rotating one's normals) and refits its trees when it
// moved since they were built.
PosedObstacle PoseObstacle(int32_t k, double elapsed_s, double time_step_s, double proximity_m,
                           ObstacleFeatures* o);

// Fills what every kind shares once the normal is set: obstacle, friction, tangents, the
// obstacle point's velocity and the offset of the non-penetration row at the step end.
void FinishContact(const PosedObstacle& posed, const Vec3& obstacle_point, VertexContact* c);

// Body surface vertices against obstacle triangles: per vertex the closest triangle per
// distinct normal.
void AppendVertexTriangleContacts(const BodySurfacePrimitives& body, const Points3& x_m,
                                  const std::vector<int32_t>& free_index,
                                  const PosedObstacle& posed, std::vector<VertexContact>* found);

// Body surface edges against the obstacle's feature edges.
void AppendEdgeEdgeContacts(const BodySurfacePrimitives& body, const Points3& x_m,
                            const std::vector<int32_t>& free_index, const PosedObstacle& posed,
                            std::vector<VertexContact>* found);

// Body surface triangles against the obstacle's feature vertices (and, for an open body, the
// vertex-edge contacts of an obstacle vertex closest to a body edge).
void AppendTriangleVertexContacts(const BodySurfacePrimitives& body, const Points3& x_m,
                                  const std::vector<int32_t>& free_index,
                                  const PosedObstacle& posed, std::vector<VertexContact>* found);

}  // namespace contactsim::core::mesh_contact
