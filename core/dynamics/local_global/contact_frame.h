// Contact detection for one local-global time step (Zeng et al. 2024, Sec. 5, Alg. 4 "perform
// collision detection"): vertices of a tet mesh against static half-spaces.
//
// A half-space obstacle is { p : n . p <= offset_m } with unit outward normal n pointing into the
// free space; the signed gap of a point is delta_n(p) = n . p - offset_m [m] (> 0 separated). A
// free vertex whose gap at the START of the step is below `proximity_m` gets one contact (the
// paper's proximity rule: the contact set and its frame are fixed for the whole step, and
// contacts that open again are released by the complementarity conditions, not by detection).
// A vertex near several obstacles gets one contact per obstacle.
//
// Each contact j has three rows in the Jacobian H (acting on the free-vertex dofs 3 f + d):
//   row 3j:     n^T            (normal:  delta_n = H_n q - offset_m)
//   row 3j + 1: t1^T, row 3j + 2: t2^T   (two signed tangents: slip velocity H_f v [m/s])
// with (n, t1, t2) a right-handed orthonormal frame. Pinned vertices get no contacts (they do not
// move), which keeps H in the free index space of the factored system matrix.
// Errors: InvalidArgument naming the obstacle field (non-unit or non-finite normal, negative
// friction coefficient) or a bad proximity.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/linalg/backend.h"

namespace contactsim::core {

struct HalfSpaceObstacle {
  Vec3 normal = Vec3::UnitZ();        // unit, pointing into the free space
  double offset_m = 0.0;              // the plane is n . p = offset_m
  double friction_coefficient = 0.0;  // Coulomb mu >= 0, isotropic
};

// What a contact is between (mesh_contact.h has the triangle-mesh kinds, body_contact.h the
// kinds between two deformable bodies of one solver).
enum class ContactKind : uint8_t {
  kHalfSpace = 0,           // body vertex / half-space obstacle
  kVertexTriangle = 1,      // body vertex / obstacle triangle
  kEdgeEdge = 2,            // body edge / obstacle edge
  kTriangleVertex = 3,      // body triangle / obstacle vertex
  kBodyVertexTriangle = 4,  // vertex of one body / triangle of another (4 vertices)
  kBodyEdgeEdge = 5,        // edge of one body / edge of another (4 vertices)
};

// Vertices besides `vertex` a contact point can combine (VertexContact::extra_*).
inline constexpr int kMaxExtraContactVertices = 3;

struct VertexContact {
  int32_t vertex = -1;       // mesh vertex index
  int32_t free_vertex = -1;  // index among the free (unpinned) vertices
  int32_t obstacle = -1;     // index into the obstacle list (of its kind)
  Vec3 normal = Vec3::Zero();
  Vec3 tangent1 = Vec3::Zero();
  Vec3 tangent2 = Vec3::Zero();
  double offset_m = 0.0;              // delta_n = normal . x - offset_m
  double friction_coefficient = 0.0;  // mu
  // Mesh contacts act at a weighted point of up to three body vertices, body-body contacts
  // (body_contact.h) at a weighted difference of four (weights of the second body negative,
  // all weights summing to 0, so the contact force acts on both bodies with zero net force),
  //   x = weight x[vertex] + sum_k extra_weights[k] x[extra_vertices[k]],
  // and H spreads each row over them with the same weights. Unused slots: vertex -1 (a slot with
  // weight 0 is skipped too, so `extra_vertices = {v, -1}` leaves slot 2 harmless). Half-space
  // contacts: weight 1.
  ContactKind kind = ContactKind::kHalfSpace;
  double weight = 1.0;
  std::array<int32_t, kMaxExtraContactVertices> extra_vertices = {-1, -1, -1};
  std::array<int32_t, kMaxExtraContactVertices> extra_free_vertices = {-1, -1, -1};
  std::array<double, kMaxExtraContactVertices> extra_weights = {0.0, 0.0, 0.0};
  // Mesh contacts: obstacle triangle, edge or vertex id; body-body contacts: the surface
  // triangle or the second body's edge (and `obstacle` is the second body's id).
  int32_t feature = -1;
  // Velocity of a kinematic obstacle [m/s]: the slip is measured relative to it (static: 0).
  Vec3 obstacle_velocity_mps = Vec3::Zero();
};

struct ContactSet {
  std::vector<VertexContact> contacts;
  CsrMatrix h;  // 3 c x 3 n_free, rows as above (3 nonzeros per row and contact vertex)
  int32_t num_contacts() const { return static_cast<int32_t>(contacts.size()); }
};

// Two unit tangents completing n to a right-handed orthonormal frame (n, t1, t2).
void TangentBasis(const Vec3& normal, Vec3* tangent1, Vec3* tangent2);

// The contact point of c in the positions x_m (n x 3): the weighted sum above [m].
Vec3 ContactPoint(const VertexContact& c, const Points3& x_m);

// H (3 rows per contact, columns 3 f + d over num_free free vertices) of a contact list: each
// row is the frame axis times the contact's vertex weights (zero weights are left out).
CsrMatrix BuildContactJacobian(const std::vector<VertexContact>& contacts, int32_t num_free);

absl::Status ValidateObstacles(const std::vector<HalfSpaceObstacle>& obstacles);

// x_m: all vertices (n x 3). free_index[v]: index among free vertices, or < 0 for pinned ones.
// num_free: number of free vertices. Contacts come out sorted by (vertex, obstacle).
absl::StatusOr<ContactSet> DetectHalfSpaceContacts(const Points3& x_m,
                                                   const std::vector<int32_t>& free_index,
                                                   int32_t num_free,
                                                   const std::vector<HalfSpaceObstacle>& obstacles,
                                                   double proximity_m);

}  // namespace contactsim::core
