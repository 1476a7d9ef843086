// Generators: watertight and outward (closed ones), counts, Euler characteristic, and enclosed
// volume against the exact volume of each polyhedron (or a rigorous bound where none is simple).
#include "core/geometry/generators.h"

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr double kPi = std::numbers::pi;

// Signed enclosed volume by the divergence theorem, written out here independently of
// mass_properties.cc: V = sum_f x0 . (x1 x x2) / 6.
double EnclosedVolume(const TriangleMesh& mesh) {
  double v = 0.0;
  for (int f = 0; f < mesh.num_faces(); ++f) {
    const Vec3 x0 = mesh.vertices().row(mesh.faces()(f, 0));
    const Vec3 x1 = mesh.vertices().row(mesh.faces()(f, 1));
    const Vec3 x2 = mesh.vertices().row(mesh.faces()(f, 2));
    v += x0.dot(x1.cross(x2)) / 6.0;
  }
  return v;
}

int EulerCharacteristic(const TriangleMesh& mesh) {
  // Count only referenced vertices (a TetMesh surface keeps interior ones unreferenced).
  int used = 0;
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    used += mesh.vertex_faces_begin(v) != mesh.vertex_faces_end(v);
  }
  return used - mesh.num_edges() + mesh.num_faces();
}

// For shapes star-shaped about the z axis segment [-h, h]: each face normal points away from the
// closest point of that segment to the face centroid.
void ExpectOutwardFromAxis(const TriangleMesh& mesh, double h) {
  for (int f = 0; f < mesh.num_faces(); ++f) {
    const Vec3 c =
        (mesh.vertices().row(mesh.faces()(f, 0)) + mesh.vertices().row(mesh.faces()(f, 1)) +
         mesh.vertices().row(mesh.faces()(f, 2)))
            .transpose() /
        3.0;
    const Vec3 axis_point(0, 0, std::clamp(c.z(), -h, h));
    ASSERT_GT(mesh.FaceNormal(f).dot(c - axis_point), 0.0) << "face " << f;
  }
}

void ExpectClosedSurface(const TriangleMesh& mesh, int euler) {
  EXPECT_TRUE(mesh.is_closed());
  EXPECT_EQ(EulerCharacteristic(mesh), euler);
  EXPECT_GT(EnclosedVolume(mesh), 0.0);
}

TEST(GeneratorsTest, Box) {
  auto box = MakeBox(Vec3(0.5, 1.0, 1.5));
  ASSERT_TRUE(box.ok()) << box.status();
  EXPECT_EQ(box->num_vertices(), 8);
  EXPECT_EQ(box->num_faces(), 12);
  ExpectClosedSurface(*box, 2);
  ExpectOutwardFromAxis(*box, 0.0);
  EXPECT_NEAR(EnclosedVolume(*box), 1.0 * 2.0 * 3.0, 1e-14);  // exact up to rounding
}

TEST(GeneratorsTest, IcosphereCountsAndInscribedVolume) {
  const double r = 0.7;
  for (int s = 0; s <= 4; ++s) {
    auto sphere = MakeSphere(r, s);
    ASSERT_TRUE(sphere.ok()) << sphere.status();
    const int p = 1 << (2 * s);  // 4^s
    EXPECT_EQ(sphere->num_faces(), 20 * p);
    EXPECT_EQ(sphere->num_vertices(), 10 * p + 2);
    ExpectClosedSurface(*sphere, 2);
    ExpectOutwardFromAxis(*sphere, 0.0);
    double r_in = r;  // smallest distance from the centre to a face plane
    for (int f = 0; f < sphere->num_faces(); ++f) {
      const Vec3 x0 = sphere->vertices().row(sphere->faces()(f, 0));
      r_in = std::min(r_in, sphere->FaceNormal(f).dot(x0));
    }
    for (int v = 0; v < sphere->num_vertices(); ++v) {
      EXPECT_NEAR(sphere->vertices().row(v).norm(), r, 1e-15);
    }
    // A convex polyhedron with its vertices on the sphere lies between the ball of radius r_in
    // and the ball of radius r.
    const double volume = EnclosedVolume(*sphere);
    EXPECT_GT(volume, 4.0 / 3.0 * kPi * std::pow(r_in, 3));
    EXPECT_LT(volume, 4.0 / 3.0 * kPi * std::pow(r, 3));
  }
}

TEST(GeneratorsTest, TorusHasEulerZeroAndExactPolyhedralVolume) {
  const double big_r = 1.0, r = 0.3;
  const int m = 24, n = 12;
  auto torus = MakeTorus(big_r, r, m, n);
  ASSERT_TRUE(torus.ok()) << torus.status();
  EXPECT_EQ(torus->num_faces(), 2 * m * n);
  EXPECT_EQ(torus->num_vertices(), m * n);
  ExpectClosedSurface(*torus, 0);
  // Outward: away from the tube's centre circle.
  for (int f = 0; f < torus->num_faces(); ++f) {
    Vec3 c = Vec3::Zero();
    for (int k = 0; k < 3; ++k) c += torus->vertices().row(torus->faces()(f, k)).transpose() / 3;
    const Vec3 ring = big_r * Vec3(c.x(), c.y(), 0).normalized();
    ASSERT_GT(torus->FaceNormal(f).dot(c - ring), 0.0) << "face " << f;
  }
  // Each of the m segments sweeps the regular n-gon cross-section (area n/2 r^2 sin(2pi/n),
  // centroid at radius R) linearly between two planes 2pi/m apart; the sweep's Jacobian is
  // rho sin(2pi/m), so V = m sin(2pi/m) R (n/2) r^2 sin(2pi/n) exactly.
  const double exact = m * std::sin(2 * kPi / m) * big_r * 0.5 * n * r * r * std::sin(2 * kPi / n);
  EXPECT_NEAR(EnclosedVolume(*torus), exact, 1e-13 * exact);
}

TEST(GeneratorsTest, CylinderIsAnExactPrism) {
  const double r = 0.2, h = 1.5;
  const int s = 17;
  auto cylinder = MakeCylinder(r, h, s);
  ASSERT_TRUE(cylinder.ok()) << cylinder.status();
  EXPECT_EQ(cylinder->num_faces(), 4 * s);
  ExpectClosedSurface(*cylinder, 2);
  ExpectOutwardFromAxis(*cylinder, 0.0);
  const double exact = 0.5 * s * r * r * std::sin(2 * kPi / s) * h;  // polygon area * height
  EXPECT_NEAR(EnclosedVolume(*cylinder), exact, 1e-14 * exact);
}

TEST(GeneratorsTest, CapsuleConvergesToAnalyticVolume) {
  const double r = 0.1, half_length = 0.3;
  const double exact = kPi * r * r * 2 * half_length + 4.0 / 3.0 * kPi * r * r * r;
  double previous_error = 0.0;
  for (int level = 0; level < 3; ++level) {
    const int segments = 16 << level, rings = 4 << level;
    auto capsule = MakeCapsule(r, half_length, segments, rings);
    ASSERT_TRUE(capsule.ok()) << capsule.status();
    EXPECT_EQ(capsule->num_faces(), 2 * segments * 2 * rings);
    ExpectClosedSurface(*capsule, 2);
    ExpectOutwardFromAxis(*capsule, half_length);
    // Inscribed in the convex capsule, so below it; the chordal error is O(h^2), so halving the
    // mesh size must cut the error by about 4 (accept 3.5 to 4.5).
    const double error = exact - EnclosedVolume(*capsule);
    EXPECT_GT(error, 0.0);
    if (level > 0) {
      EXPECT_GT(previous_error / error, 3.5);
      EXPECT_LT(previous_error / error, 4.5);
    }
    previous_error = error;
  }
}

TEST(GeneratorsTest, CapsuleWithZeroLengthIsASphere) {
  auto capsule = MakeCapsule(0.5, 0.0, 12, 4);
  ASSERT_TRUE(capsule.ok()) << capsule.status();
  EXPECT_EQ(capsule->num_vertices(), 12 * 7 + 2);  // 7 rings: the equator once
  ExpectClosedSurface(*capsule, 2);
  ExpectOutwardFromAxis(*capsule, 0.0);
  for (int v = 0; v < capsule->num_vertices(); ++v) {
    EXPECT_NEAR(capsule->vertices().row(v).norm(), 0.5, 1e-15);
  }
}

TEST(GeneratorsTest, ClothGridIsOpenFlatDisk) {
  const int nx = 6, ny = 4;
  auto cloth = MakeClothGrid(2.0, 1.0, nx, ny);
  ASSERT_TRUE(cloth.ok()) << cloth.status();
  EXPECT_EQ(cloth->num_vertices(), (nx + 1) * (ny + 1));
  EXPECT_EQ(cloth->num_faces(), 2 * nx * ny);
  EXPECT_FALSE(cloth->is_closed());
  EXPECT_EQ(EulerCharacteristic(*cloth), 1);  // a disk
  int boundary = 0;
  for (int e = 0; e < cloth->num_edges(); ++e) boundary += cloth->edge_face_count(e) == 1;
  EXPECT_EQ(boundary, 2 * (nx + ny));
  double area = 0.0;
  for (int f = 0; f < cloth->num_faces(); ++f) {
    EXPECT_TRUE(cloth->FaceNormal(f).isApprox(Vec3::UnitZ())) << "face " << f;
    const Vec3 x0 = cloth->vertices().row(cloth->faces()(f, 0));
    const Vec3 x1 = cloth->vertices().row(cloth->faces()(f, 1));
    const Vec3 x2 = cloth->vertices().row(cloth->faces()(f, 2));
    area += 0.5 * (x1 - x0).cross(x2 - x0).norm();
  }
  EXPECT_NEAR(area, 2.0, 1e-14);
  EXPECT_NEAR(cloth->vertices().col(0).minCoeff(), -1.0, 1e-15);
  EXPECT_NEAR(cloth->vertices().col(1).maxCoeff(), 0.5, 1e-15);
  // Neighbouring cells use different diagonals: cell (0, 0) has 0-8, cell (1, 0) has 2-7.
  auto has_edge = [&](int a, int b) {
    for (int e = 0; e < cloth->num_edges(); ++e) {
      if (cloth->edges()(e, 0) == std::min(a, b) && cloth->edges()(e, 1) == std::max(a, b)) {
        return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(has_edge(0, nx + 2));
  EXPECT_TRUE(has_edge(2, nx + 2));
  EXPECT_FALSE(has_edge(1, nx + 1 + 2));
}

TEST(GeneratorsTest, TetBoxVolumeAndSurface) {
  const Vec3 h(0.5, 0.25, 1.0);
  const int nx = 3, ny = 2, nz = 4;
  auto box = MakeTetBox(h, nx, ny, nz);
  ASSERT_TRUE(box.ok()) << box.status();  // Create() rejects inverted or degenerate tets
  EXPECT_EQ(box->num_tets(), 6 * nx * ny * nz);
  EXPECT_EQ(box->num_vertices(), (nx + 1) * (ny + 1) * (nz + 1));
  EXPECT_NEAR(box->TotalVolume(), 8 * h.prod(), 1e-14);
  const double cell = 8 * h.prod() / (nx * ny * nz);
  for (int t = 0; t < box->num_tets(); ++t) EXPECT_NEAR(box->TetVolume(t), cell / 6, 1e-15);
  const TriangleMesh& s = box->surface();
  EXPECT_EQ(s.num_faces(), 4 * (nx * ny + ny * nz + nz * nx));
  ExpectClosedSurface(s, 2);
  EXPECT_NEAR(EnclosedVolume(s), 8 * h.prod(), 1e-14);
  EXPECT_EQ(s.vertices().colwise().maxCoeff(), h.transpose());
}

TEST(GeneratorsTest, TetSphereHasNoInvertedTetsAndConverges) {
  const double r = 0.5;
  const double ball = 4.0 / 3.0 * kPi * r * r * r;
  for (int n = 1; n <= 16; ++n) {
    auto sphere = MakeTetSphere(r, n);
    ASSERT_TRUE(sphere.ok()) << "resolution " << n << ": " << sphere.status();
    EXPECT_EQ(sphere->num_tets(), 6 * n * n * n);
    double min_volume = sphere->TetVolume(0);
    for (int t = 0; t < sphere->num_tets(); ++t) {
      min_volume = std::min(min_volume, sphere->TetVolume(t));
    }
    // The map's Jacobian determinant (|p|_inf / |p|_2)^3 lies in [3^-1.5, 1] and averages
    // (4 pi / 3) / 8 = pi / 6 over the cube, so tets shrink at worst to 3^-1.5 / (pi / 6) = 0.367
    // of the mean (measured: 0.368 at odd resolutions up to 40). A piecewise-linear image that
    // bent toward inversion would fall well below; accept 0.3.
    const double mean_volume = sphere->TotalVolume() / sphere->num_tets();
    EXPECT_GT(min_volume, 0.3 * mean_volume) << "resolution " << n;
    const TriangleMesh& s = sphere->surface();
    ExpectClosedSurface(s, 2);
    for (int f = 0; f < s.num_faces(); ++f) {
      for (int k = 0; k < 3; ++k) {
        ASSERT_NEAR(s.vertices().row(s.faces()(f, k)).norm(), r, 1e-15);
      }
    }
    // The boundary is a polyhedron inscribed in the sphere, so its volume is below the ball's.
    EXPECT_LT(sphere->TotalVolume(), ball);
    EXPECT_NEAR(EnclosedVolume(s), sphere->TotalVolume(), 1e-14);
  }
  // Inscribed polyhedra converge as O(h^2): at 16 cells across the chords are ~0.1 r and the
  // volume deficit is ~0.5% (measured 0.45%); at 8 cells it is about 4 times larger.
  auto coarse = MakeTetSphere(r, 8);
  auto fine = MakeTetSphere(r, 16);
  ASSERT_TRUE(coarse.ok() && fine.ok());
  EXPECT_NEAR(fine->TotalVolume(), ball, 0.01 * ball);
  const double ratio = (ball - coarse->TotalVolume()) / (ball - fine->TotalVolume());
  EXPECT_GT(ratio, 3.5);
  EXPECT_LT(ratio, 4.5);
}

TEST(GeneratorsTest, TranslatedAndTransformed) {
  Points3 p(2, 3);
  p << 1, 0, 0, 0, 2, 0;
  const Points3 t = Translated(p, Vec3(1, 2, 3));
  EXPECT_EQ(t.row(0), Eigen::RowVector3d(2, 2, 3));
  EXPECT_EQ(t.row(1), Eigen::RowVector3d(1, 4, 3));
  // 90 degrees about z: x -> y, y -> -x.
  Mat3 rz;
  rz << 0, -1, 0, 1, 0, 0, 0, 0, 1;
  const Points3 q = Transformed(p, rz, Vec3(0, 0, 1));
  EXPECT_TRUE(q.row(0).isApprox(Eigen::RowVector3d(0, 1, 1)));
  EXPECT_TRUE(q.row(1).isApprox(Eigen::RowVector3d(-2, 0, 1)));
}

TEST(GeneratorsTest, BadParametersNameTheParameter) {
  auto expect = [](const absl::Status& status, const std::string& prefix) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(std::string(status.message()), StartsWith(prefix));
  };
  expect(MakeBox(Vec3(1, -1, 1)).status(), "half_extents_m.y: must be positive");
  expect(MakeSphere(0.0, 1).status(), "radius_m: must be positive");
  expect(MakeSphere(1.0, 10).status(), "subdivisions: must be in [0, 9]");
  expect(MakeSphere(1.0, -1).status(), "subdivisions");
  expect(MakeTorus(1.0, 1.0, 8, 8).status(), "minor_radius_m: must be less than major_radius_m");
  expect(MakeTorus(1.0, 0.5, 2, 8).status(), "major_segments: must be at least 3");
  expect(MakeCylinder(1.0, std::nan(""), 8).status(), "height_m: must be positive and finite");
  expect(MakeCylinder(1.0, 1.0, 2).status(), "segments: must be at least 3");
  expect(MakeCapsule(1.0, -0.5, 8, 2).status(), "half_length_m");
  expect(MakeCapsule(1.0, 0.5, 8, 0).status(), "cap_rings: must be at least 1");
  expect(MakeClothGrid(1.0, 1.0, 0, 3).status(), "nx: must be at least 1");
  expect(MakeTetBox(Vec3::Ones(), 2, 2, 0).status(), "nz: must be at least 1");
  expect(MakeTetSphere(1.0, 0).status(), "resolution: must be at least 1");
  // Sizes are refused before anything is allocated.
  expect(MakeTetBox(Vec3::Ones(), 1000, 1000, 1000).status(), "nx * ny * nz: would give");
  expect(MakeClothGrid(1.0, 1.0, 100000, 100000).status(), "nx * ny: would give");
  expect(MakeTetSphere(1.0, 200).status(), "resolution^3: would give");
}

}  // namespace
}  // namespace contactsim::core
