// Mass properties of uniform-density convex polytopes and of unions of them, exact: each face is
// fanned into triangles and integrated by mass_properties.h (signed tetrahedra, divergence
// theorem). For a union of disjoint pieces the pieces' moments add, the inertia moved to the
// common centre of mass by the parallel-axis theorem: I_c = sum_i [I_i + m_i (|r_i|^2 1 - r_i
// r_i^T)], r_i = c_i - c.
#pragma once

#include "absl/status/statusor.h"
#include "core/geometry/mass_properties.h"
#include "core/geometry/polytope.h"
#include "core/geometry/polytope_union.h"

namespace contactsim::core {

// InvalidArgument for density <= 0 or non-finite ("density_kg_per_m3: ...").
absl::StatusOr<MassProperties> ComputeMassProperties(const ConvexPolytope& polytope,
                                                     double density_kg_per_m3);
absl::StatusOr<MassProperties> ComputeMassProperties(const PolytopeUnion& body,
                                                     double density_kg_per_m3);

// The density that gives the body mass_kg (> 0, finite): mass_kg / volume.
absl::StatusOr<MassProperties> ComputeMassPropertiesForMass(const ConvexPolytope& polytope,
                                                            double mass_kg);
absl::StatusOr<MassProperties> ComputeMassPropertiesForMass(const PolytopeUnion& body,
                                                            double mass_kg);

}  // namespace contactsim::core
