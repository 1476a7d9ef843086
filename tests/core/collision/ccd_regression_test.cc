// Named regression cases from the development of the inclusion root finder (d = 5e-3 m). Each
// once exhausted the 100,000-box budget (so toi came back early with kMaxIterationsReached): a
// Euclidean exclusion test needed ~d / tolerance boxes around the apex of the contact cone, a
// breadth-first spread of (u, v) cells each bisected t on its own, or a coarse cell's spurious
// entry time was bisected to full resolution over and over. Each must now finish (kOk), never
// miss the dense reference, and report a toi no later than the reference's first hit with the
// features within 1.24 d + 2 tolerance at toi (inclusion_root_finder.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using testing::DenseReference;
using testing::MakeTrajectory;
using testing::RefDistance;

constexpr double kMinSeparation = 5e-3;  // [m]

struct RegressionCase {
  std::string name;
  PairTrajectory trajectory;
};

std::vector<RegressionCase> Cases() {
  return {
      {"VertexThroughTiltedTriangleInterior",
       MakeTrajectory({Vec3(0.14243990980519411, 0.39355786102845058, 0.23963731229937954),
                       Vec3(0.17646810885089975, 0.10572475273173669, 0.2595030230763235),
                       Vec3(0.92150673928084548, 0.61952213210317442, 0.55169754253883996),
                       Vec3(0.44836880848699723, 0.13852814951630815, 0.82419112394773364)},
                      {Vec3(1.1016677782920408, -0.072366536477845633, 0.55615926785904368),
                       Vec3(0.47731145468184605, -0.28081342034397244, 0.21954218488606508),
                       Vec3(1.2051613786116397, 0.4906798099380722, 0.59104192326120986),
                       Vec3(0.15824073647027914, -0.090773446630551424, 0.93596695745286029)})},
      {"VertexOntoCollinearTriangleAtUndyadicTime",
       MakeTrajectory(
           {Vec3(1.5, 0.0, 0.8), Vec3(0.0, 0.0, 0.0), Vec3(1.0, 0.0, 0.0), Vec3(2.0, 0.0, 0.0)},
           {Vec3(1.5, 0.0, -1.2), Vec3(0.0, 0.0, 0.0), Vec3(1.0, 0.0, 0.0), Vec3(2.0, 0.0, 0.0)})},
      {"VertexOntoEdgeOfDeformingTriangle",
       MakeTrajectory({Vec3(0.67306834770725743, 1.0082995159143255, 0.069189018948074332),
                       Vec3(0.006123661033155983, 0.23758417463798601, 0.093235239614199938),
                       Vec3(0.8770681899003302, 0.70813593762705118, 0.19983555425398744),
                       Vec3(0.41961479640221611, 0.88346169411374498, 0.051896200929701271)},
                      {Vec3(0.17813927482069897, 0.80415474749824911, -0.080453468002135653),
                       Vec3(0.40844060594399056, 0.36068647136214627, 0.52299093172993572),
                       Vec3(1.2071597634565667, 0.36390345147253356, 0.48895422180314485),
                       Vec3(0.82065154302450394, 1.3039046425032836, -0.1249325870573903)})},
      {"VertexGrazingEdgeFromOutside",
       MakeTrajectory({Vec3(0.56934590765939563, 1.0723465189366774, 0.44041344028737439),
                       Vec3(0.45500840461189479, 0.85956651070741086, 0.36603782221886377),
                       Vec3(0.31381916113533381, 0.8824828342475608, 0.097548930532015132),
                       Vec3(0.14570467536260617, 0.6510831017459584, 0.81920628510586213)},
                      {Vec3(-0.035342963238291725, 0.36480285067225815, 1.4341893348298398),
                       Vec3(0.35399856758985021, 0.97796769115744997, 0.081004392538406134),
                       Vec3(0.71271430985944628, 0.91846258012729642, -0.32305284480259877),
                       Vec3(0.64033805790951792, 1.0273593589992687, 1.2319366554006295)})},
      {"VertexOntoSliverTriangle",
       MakeTrajectory({Vec3(0.20581380451527903, -0.26767396891009843, 1.4612549462740354),
                       Vec3(0.4990464987200906, 0.16841576961180305, 0.71521050274530884),
                       Vec3(0.020196442537645284, 0.78657424674507637, 0.32820619916549959),
                       Vec3(0.86418888081642353, -0.30295487315550429, 1.0103168131153977)},
                      {Vec3(-0.00082066881593450408, 0.64294353173791063, 0.5412117598969447),
                       Vec3(0.37169729557032871, -0.18809012790091284, 1.1486748445732744),
                       Vec3(-0.16829508316984226, 0.97441386674483821, 0.31181521224891789),
                       Vec3(0.63783605237164476, -0.76103778446367798, 1.5611265588151937)})},
  };
}

TEST(CcdRegressionTest, FormerIterationCapCasesFinishAndAgreeWithTheReference) {
  CcdOptions options;
  options.min_separation_m = kMinSeparation;
  for (const RegressionCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    const CcdResult result = VertexFaceCcd(c.trajectory, options);
    const testing::ReferenceResult reference =
        DenseReference(/*vertex_face=*/true, c.trajectory, kMinSeparation, 1024);
    ASSERT_TRUE(reference.hit);  // every case is a genuine contact
    ASSERT_TRUE(result.collides);
    EXPECT_EQ(result.status, CcdStatus::kOk) << "boxes " << result.iterations;
    EXPECT_LE(result.toi, reference.earliest_hit_t);
    EXPECT_LE(RefDistance(true, c.trajectory, result.toi),
              1.2395 * kMinSeparation + 2.0 * options.tolerance_m + 1e-9);
  }
}

}  // namespace
}  // namespace contactsim::core
