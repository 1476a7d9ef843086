// Mass properties of polytopes and unions, intersection volumes, penetration depths and 2D
// polygon overlaps, against closed forms.
#include <Eigen/Geometry>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/geometry/convex_polygon2d.h"
#include "core/geometry/polytope.h"
#include "core/geometry/polytope_intersection.h"
#include "core/geometry/polytope_mass_properties.h"
#include "core/geometry/polytope_primitives.h"
#include "core/geometry/polytope_union.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

constexpr double kPhi = std::numbers::phi;
constexpr double kDensity = 800.0;  // [kg/m^3]
// The integrals are exact for polyhedra; what remains is rounding of sums of a few hundred terms.
constexpr double kRelTol = 1e-12;

Mat3 Rotation(double angle, const Vec3& axis) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

ConvexPolytope Box(const Vec3& half, const Vec3& centre = Vec3::Zero(),
                   const Mat3& R = Mat3::Identity()) {
  auto box = MakeBoxPolytope(half);
  EXPECT_TRUE(box.ok()) << box.status();
  return box->Transformed(R, centre);
}

void ExpectIsotropic(const Mat3& inertia, double expected) {
  EXPECT_NEAR((inertia - expected * Mat3::Identity()).norm(), 0.0, kRelTol * expected);
}

TEST(PolytopeMassTest, BoxMatchesClosedForm) {
  const Vec3 h(0.1, 0.2, 0.3);
  const Mat3 R = Rotation(0.8, Vec3(1, -1, 2));
  const Vec3 c(1.0, 2.0, -3.0);
  auto props = ComputeMassProperties(Box(h, c, R), kDensity);
  ASSERT_TRUE(props.ok()) << props.status();
  const double mass = 8 * h.prod() * kDensity;
  EXPECT_NEAR(props->mass_kg, mass, kRelTol * mass);
  EXPECT_NEAR((props->center_of_mass_m - c).norm(), 0.0, 1e-14);
  const Mat3 body =
      Vec3(mass * (h.y() * h.y() + h.z() * h.z()) / 3, mass * (h.x() * h.x() + h.z() * h.z()) / 3,
           mass * (h.x() * h.x() + h.y() * h.y()) / 3)
          .asDiagonal();
  EXPECT_NEAR((props->inertia_about_com_kg_m2 - R * body * R.transpose()).norm(), 0.0,
              kRelTol * body.norm());
}

struct RegularCase {
  RegularPolyhedron kind;
  double edge_over_radius;  // a / R
  double volume_over_a3;    // V / a^3
  double inertia_over_ma2;  // I / (m a^2), isotropic for the regular solids
};

class RegularMassTest : public ::testing::TestWithParam<RegularCase> {};

// Closed forms (solid, uniform): tetrahedron V = a^3 / (6 sqrt 2), I = m a^2 / 20; cube V = a^3,
// I = m a^2 / 6; octahedron V = sqrt 2 a^3 / 3, I = m a^2 / 10; icosahedron V = 5 (3 + sqrt 5)
// a^3 / 12, I = phi^2 m a^2 / 10; dodecahedron V = (15 + 7 sqrt 5) a^3 / 4,
// I = (95 + 39 sqrt 5) m a^2 / 300.
TEST_P(RegularMassTest, VolumeAndInertiaMatchClosedForms) {
  const RegularCase c = GetParam();
  const double radius = 0.045;
  auto p = MakeRegularPolyhedron(c.kind, radius);
  ASSERT_TRUE(p.ok()) << p.status();
  auto props = ComputeMassProperties(*p, kDensity);
  ASSERT_TRUE(props.ok()) << props.status();
  const double a = c.edge_over_radius * radius;
  const double volume = c.volume_over_a3 * a * a * a;
  EXPECT_NEAR(props->volume_m3, volume, kRelTol * volume);
  EXPECT_NEAR(PolytopeVolume(*p), volume, kRelTol * volume);
  EXPECT_LT(props->center_of_mass_m.norm(), 1e-15);
  ExpectIsotropic(props->inertia_about_com_kg_m2, c.inertia_over_ma2 * props->mass_kg * a * a);
}

INSTANTIATE_TEST_SUITE_P(
    Regular, RegularMassTest,
    ::testing::Values(
        RegularCase{RegularPolyhedron::kTetrahedron, std::sqrt(8.0 / 3.0),
                    1.0 / (6.0 * std::sqrt(2.0)), 1.0 / 20.0},
        RegularCase{RegularPolyhedron::kCube, 2.0 / std::sqrt(3.0), 1.0, 1.0 / 6.0},
        RegularCase{RegularPolyhedron::kOctahedron, std::sqrt(2.0), std::sqrt(2.0) / 3.0, 0.1},
        RegularCase{RegularPolyhedron::kIcosahedron, 2.0 / std::sqrt(1.0 + kPhi * kPhi),
                    5.0 * (3.0 + std::sqrt(5.0)) / 12.0, kPhi* kPhi / 10.0},
        RegularCase{RegularPolyhedron::kDodecahedron, 2.0 / (kPhi * std::sqrt(3.0)),
                    (15.0 + 7.0 * std::sqrt(5.0)) / 4.0, (95.0 + 39.0 * std::sqrt(5.0)) / 300.0}));

TEST(PolytopeMassTest, ForMassScalesTheDensity) {
  auto p = MakeRegularPolyhedron(RegularPolyhedron::kIcosahedron, 0.04);
  ASSERT_TRUE(p.ok());
  auto props = ComputeMassPropertiesForMass(*p, 0.1);
  ASSERT_TRUE(props.ok()) << props.status();
  EXPECT_NEAR(props->mass_kg, 0.1, 1e-15);
  EXPECT_THAT(ComputeMassPropertiesForMass(*p, 0.0).status().message(), HasSubstr("mass_kg"));
  EXPECT_THAT(ComputeMassProperties(*p, -1.0).status().message(), HasSubstr("density_kg_per_m3"));
}

TEST(PolytopeUnionTest, TwoStackedCubesAreOneTallBox) {
  auto body = PolytopeUnion::Create(
      {Box(Vec3(0.5, 0.5, 0.5), Vec3(0, 0, 0.5)), Box(Vec3(0.5, 0.5, 0.5), Vec3(0, 0, 1.5))});
  ASSERT_TRUE(body.ok()) << body.status();
  auto props = ComputeMassProperties(*body, kDensity);
  ASSERT_TRUE(props.ok());
  auto tall = ComputeMassProperties(Box(Vec3(0.5, 0.5, 1.0), Vec3(0, 0, 1.0)), kDensity);
  ASSERT_TRUE(tall.ok());
  // m = 2 rho, I_xx = m (1 + 4) / 12 (closed form of the 1 x 1 x 2 box).
  const double m = 2 * kDensity;
  EXPECT_NEAR(props->mass_kg, m, kRelTol * m);
  EXPECT_NEAR((props->center_of_mass_m - Vec3(0, 0, 1)).norm(), 0.0, 1e-14);
  const Mat3 expected = Vec3(m * 5 / 12, m * 5 / 12, m * 2 / 12).asDiagonal();
  EXPECT_NEAR((props->inertia_about_com_kg_m2 - expected).norm(), 0.0, kRelTol * m);
  EXPECT_NEAR((tall->inertia_about_com_kg_m2 - expected).norm(), 0.0, kRelTol * m);
}

TEST(PolytopeUnionTest, OverlappingPiecesAreRefused) {
  auto body =
      PolytopeUnion::Create({Box(Vec3(0.5, 0.5, 0.5)), Box(Vec3(0.5, 0.5, 0.5), Vec3(0.9, 0, 0))});
  EXPECT_EQ(body.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(body.status().message(), HasSubstr("pieces[0] and pieces[1] overlap by 0.1 m^3"));
  EXPECT_THAT(PolytopeUnion::Create({}).status().message(), HasSubstr("pieces: none given"));
}

TEST(PolytopeUnionTest, BodyGivenAsSeveralHulls) {
  // An L of two touching boxes given as corner point sets: [0, 2] x [0, 1] x [0, 1] and
  // [0, 1] x [1, 2] x [0, 1]. Volume 3, centre of mass (5/6, 5/6, 1/2): (2 (1, 1/2) + 1 (1/2, 3/2))
  // / 3.
  const auto corners = [](const Vec3& lo, const Vec3& hi) {
    Points3 p(8, 3);
    for (int i = 0; i < 8; ++i) {
      p.row(i) << (i & 1 ? hi : lo).x(), (i & 2 ? hi : lo).y(), (i & 4 ? hi : lo).z();
    }
    return p;
  };
  auto body = MakeUnionOfHulls(
      {corners(Vec3(0, 0, 0), Vec3(2, 1, 1)), corners(Vec3(0, 1, 0), Vec3(1, 2, 1))});
  ASSERT_TRUE(body.ok()) << body.status();
  auto props = ComputeMassProperties(*body, 1.0);
  ASSERT_TRUE(props.ok());
  EXPECT_NEAR(props->volume_m3, 3.0, 1e-14);
  EXPECT_TRUE(props->center_of_mass_m.isApprox(Vec3(5.0 / 6.0, 5.0 / 6.0, 0.5), 1e-14));
  Points3 flat = corners(Vec3(0, 0, 0), Vec3(1, 1, 1));
  flat.col(2).setZero();
  auto bad = MakeUnionOfHulls({corners(Vec3(0, 0, 0), Vec3(1, 1, 1)), flat});
  EXPECT_THAT(bad.status().message(), HasSubstr("hulls[1]: points: all 8 points lie in one plane"));
}

TEST(PolytopeUnionTest, OpenBoxContainerOfTheIssue) {
  // Floor top at z = 0, interior [-0.3, 0.3]^2, walls 0.5 m high, 0.1 m thick.
  auto container = MakeOpenBoxContainer(0.3, 0.5, 0.1);
  ASSERT_TRUE(container.ok()) << container.status();
  ASSERT_EQ(container->num_pieces(), 5);
  double volume = 0.0;
  for (const ConvexPolytope& piece : container->pieces()) volume += PolytopeVolume(piece);
  // Floor 0.8 x 0.8 x 0.1, two walls 0.1 x 0.8 x 0.5, two walls 0.6 x 0.1 x 0.5.
  const double expected = 0.8 * 0.8 * 0.1 + 2 * 0.1 * 0.8 * 0.5 + 2 * 0.6 * 0.1 * 0.5;
  EXPECT_NEAR(volume, expected, kRelTol);
  // The interior is free: a 0.6 x 0.6 x 0.5 box in it overlaps no piece; the floor's top is z = 0.
  const ConvexPolytope interior = Box(Vec3(0.3, 0.3, 0.25), Vec3(0, 0, 0.25));
  for (const ConvexPolytope& piece : container->pieces()) {
    EXPECT_NEAR(IntersectionVolume(interior, piece), 0.0, 1e-15);
  }
  EXPECT_NEAR(container->piece(0).vertices().col(2).maxCoeff(), 0.0, 1e-15);
}

TEST(IntersectionVolumeTest, ShiftedUnitCubesOverlapByTheShiftedSlab) {
  const ConvexPolytope a = Box(Vec3(0.5, 0.5, 0.5));
  for (double d : {0.0, 0.1, 0.5, 0.999, 1.0, 1.5}) {
    const double expected = std::max(0.0, 1.0 - d);
    EXPECT_NEAR(IntersectionVolume(a, Box(Vec3(0.5, 0.5, 0.5), Vec3(d, 0, 0))), expected, 1e-15)
        << d;
  }
  const Vec3 d(0.2, -0.3, 0.45);
  EXPECT_NEAR(IntersectionVolume(a, Box(Vec3(0.5, 0.5, 0.5), d)), 0.8 * 0.7 * 0.55, 1e-15);
}

TEST(IntersectionVolumeTest, RotatedCases) {
  const ConvexPolytope a = Box(Vec3(0.5, 0.5, 0.5));
  // The cube turned 45 degrees about z: a regular octagonal prism of apothem 1/2 and height 1,
  // area 8 r^2 tan(pi / 8) = 2 (sqrt 2 - 1).
  const ConvexPolytope turned =
      Box(Vec3(0.5, 0.5, 0.5), Vec3::Zero(), Rotation(0.25 * std::numbers::pi, Vec3::UnitZ()));
  EXPECT_NEAR(IntersectionVolume(a, turned), 2 * (std::sqrt(2.0) - 1), 1e-14);
  EXPECT_NEAR(IntersectionVolume(turned, a), 2 * (std::sqrt(2.0) - 1), 1e-14);
  // The octahedron |x| + |y| + |z| <= 1 against the box [0, 2]^3: one octant, 1/6.
  auto octahedron = MakeRegularPolyhedron(RegularPolyhedron::kOctahedron, 1.0);
  ASSERT_TRUE(octahedron.ok());
  EXPECT_NEAR(IntersectionVolume(*octahedron, Box(Vec3(1, 1, 1), Vec3(1, 1, 1))), 1.0 / 6.0, 1e-15);
  // Moved rigidly together, the measure does not change.
  const Mat3 R = Rotation(1.1, Vec3(0.3, 1, -0.2));
  const Vec3 p(3, -1, 2);
  EXPECT_NEAR(IntersectionVolume(octahedron->Transformed(R, p),
                                 Box(Vec3(1, 1, 1), Vec3(1, 1, 1)).Transformed(R, p)),
              1.0 / 6.0, 1e-14);
  // Contained: the smaller body's volume.
  EXPECT_NEAR(IntersectionVolume(a, Box(Vec3(0.1, 0.2, 0.3), Vec3(0.1, 0.1, 0.1), R)),
              8 * 0.1 * 0.2 * 0.3, 1e-15);
}

TEST(PenetrationDepthTest, DistanceToTheNearestFacePlane) {
  const ConvexPolytope cube = Box(Vec3(0.5, 0.5, 0.5));
  EXPECT_NEAR(PenetrationDepth(Vec3(0.3, 0.0, 0.1), cube), 0.2, 1e-15);
  EXPECT_NEAR(PenetrationDepth(Vec3(0.0, 0.0, 0.0), cube), 0.5, 1e-15);
  EXPECT_EQ(PenetrationDepth(Vec3(0.6, 0.0, 0.0), cube), 0.0);
  // A cube lowered 3 mm into the top of another: the deepest vertices are 3 mm in.
  const ConvexPolytope upper = Box(Vec3(0.2, 0.2, 0.2), Vec3(0.1, 0, 0.7 - 0.003));
  const DeepestVertex deepest = DeepestVertexPenetration(upper, cube);
  ASSERT_GE(deepest.vertex, 0);
  EXPECT_NEAR(deepest.depth_m, 0.003, 1e-15);
  EXPECT_NEAR(upper.vertex(deepest.vertex).z(), 0.5 - 0.003, 1e-15);
  EXPECT_EQ(
      DeepestVertexPenetration(cube.Transformed(Mat3::Identity(), Vec3(2, 0, 0)), cube).vertex, -1);
}

Points2 Square(double half, const Eigen::Vector2d& centre = Eigen::Vector2d::Zero(),
               double angle = 0.0) {
  Points2 p(4, 2);
  p << -half, -half, half, -half, half, half, -half, half;
  const Eigen::Matrix2d R = Eigen::Rotation2Dd(angle).toRotationMatrix();
  return (p * R.transpose()).rowwise() + centre.transpose();
}

TEST(ConvexPolygon2dTest, AreasAndOverlaps) {
  EXPECT_NEAR(SignedArea(Square(0.5)), 1.0, 1e-15);
  for (double d : {0.0, 0.25, 0.9, 1.2}) {
    EXPECT_NEAR(ConvexPolygonIntersectionArea(Square(0.5), Square(0.5, {d, 0})),
                std::max(0.0, 1.0 - d), 1e-15);
  }
  EXPECT_NEAR(ConvexPolygonIntersectionArea(Square(0.5, {0.3, 0.4}), Square(0.5)), 0.7 * 0.6,
              1e-15);
  EXPECT_NEAR(ConvexPolygonIntersectionArea(Square(0.5), Square(0.5, {0, 0}, std::numbers::pi / 4)),
              2 * (std::sqrt(2.0) - 1), 1e-15);
  // Triangle (0,0), (1,0), (0,1) against the square [0, 0.5]^2: the whole square.
  Points2 triangle(3, 2);
  triangle << 0, 0, 1, 0, 0, 1;
  EXPECT_NEAR(ConvexPolygonIntersectionArea(triangle, Square(0.25, {0.25, 0.25})), 0.25, 1e-15);
  // ... and against [0.25, 0.75]^2: the square minus the corner triangle above x + y = 1.
  EXPECT_NEAR(ConvexPolygonIntersectionArea(triangle, Square(0.25, {0.5, 0.5})),
              0.25 - 0.5 * 0.5 * 0.5, 1e-15);
  // Far from the origin, digits are kept.
  EXPECT_NEAR(ConvexPolygonIntersectionArea(Square(0.5, {1e4, 1e4}), Square(0.5, {1e4 + 0.5, 1e4})),
              0.5, 1e-11);
}

TEST(ConvexPolygon2dTest, DepthAndValidation) {
  EXPECT_NEAR(PolygonPenetrationDepth({0.4, 0.0}, Square(0.5)), 0.1, 1e-15);
  EXPECT_EQ(PolygonPenetrationDepth({0.6, 0.0}, Square(0.5)), 0.0);
  EXPECT_TRUE(ValidateConvexPolygon(Square(0.5)).ok());
  Points2 clockwise = Square(0.5).colwise().reverse();
  EXPECT_THAT(ValidateConvexPolygon(clockwise).message(), HasSubstr("turns clockwise"));
  EXPECT_THAT(ValidateConvexPolygon(Square(0.5).topRows(2)).message(), HasSubstr("at least 3"));
  Points2 nan_square = Square(0.5);
  nan_square(2, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(ValidateConvexPolygon(nan_square).message(), HasSubstr("polygon[2]: coordinate x"));
}

}  // namespace
}  // namespace contactsim::core
