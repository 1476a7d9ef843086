#include "core/geometry/bowl_generator.h"

#include <cmath>
#include <numbers>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

absl::StatusOr<TriangleMesh> MakeBowl(double inner_radius_m, double thickness_m, int segments,
                                      int rings) {
  if (!(std::isfinite(inner_radius_m) && inner_radius_m > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("inner_radius_m: must be finite and > 0, got %g", inner_radius_m));
  }
  if (!(std::isfinite(thickness_m) && thickness_m > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("thickness_m: must be finite and > 0, got %g", thickness_m));
  }
  if (segments < 3) {
    return absl::InvalidArgumentError(absl::StrFormat("segments: must be >= 3, got %d", segments));
  }
  if (rings < 2) {
    return absl::InvalidArgumentError(absl::StrFormat("rings: must be >= 2, got %d", rings));
  }
  // Per hemisphere: the pole, then rings 1..rings of `segments` vertices (ring `rings` at z = 0).
  const int per_surface = 1 + rings * segments;
  Points3 vertices(2 * per_surface, 3);
  const double radii[2] = {inner_radius_m, inner_radius_m + thickness_m};
  for (int s = 0; s < 2; ++s) {
    const int base = s * per_surface;
    vertices.row(base) = Vec3(0.0, 0.0, -radii[s]).transpose();
    for (int i = 1; i <= rings; ++i) {
      const double polar = 0.5 * std::numbers::pi * i / rings;  // from the bottom pole
      for (int j = 0; j < segments; ++j) {
        const double azimuth = 2.0 * std::numbers::pi * j / segments;
        const double r = radii[s] * std::sin(polar);
        const double z = i == rings ? 0.0 : -radii[s] * std::cos(polar);
        vertices.row(base + 1 + (i - 1) * segments + j) =
            Vec3(r * std::cos(azimuth), r * std::sin(azimuth), z).transpose();
      }
    }
  }
  const auto ring_vertex = [&](int surface, int ring, int j) {
    return surface * per_surface + 1 + (ring - 1) * segments + (j % segments);
  };
  IndexTriples faces(4 * segments * rings, 3);
  int f = 0;
  // Outer surface (s = 1) faces away from the centre; the inner one (s = 0) towards it, i.e. the
  // same triangles with the opposite winding.
  const auto add = [&](bool outward, int a, int b, int c) {
    if (outward) {
      faces.row(f++) << a, b, c;
    } else {
      faces.row(f++) << a, c, b;
    }
  };
  for (int s = 0; s < 2; ++s) {
    const bool outward = s == 1;
    const int pole = s * per_surface;
    for (int j = 0; j < segments; ++j) {
      // Seen from below (outside), the azimuth runs clockwise: pole, j + 1, j is outward.
      add(outward, pole, ring_vertex(s, 1, j + 1), ring_vertex(s, 1, j));
    }
    for (int i = 1; i < rings; ++i) {
      for (int j = 0; j < segments; ++j) {
        const int a = ring_vertex(s, i, j);
        const int b = ring_vertex(s, i, j + 1);
        const int c = ring_vertex(s, i + 1, j + 1);
        const int d = ring_vertex(s, i + 1, j);
        add(outward, a, b, c);
        add(outward, a, c, d);
      }
    }
  }
  // The rim at z = 0, facing +z: inner ring to outer ring.
  for (int j = 0; j < segments; ++j) {
    const int a = ring_vertex(0, rings, j);
    const int b = ring_vertex(0, rings, j + 1);
    const int c = ring_vertex(1, rings, j + 1);
    const int d = ring_vertex(1, rings, j);
    faces.row(f++) << a, d, c;
    faces.row(f++) << a, c, b;
  }
  MeshOptions options;
  options.require_closed = true;
  return TriangleMesh::Create(std::move(vertices), std::move(faces), options);
}

}  // namespace contactsim::core
