// Bodies given as convex hulls through the API (primitives.proto: convex_hulls, random_hull) in a
// rigid_lcp session: a container of five box pieces collides as their union (a cube dropped in it
// lands on its floor, not on the hull of the whole), a random hull comes to rest in it the same
// way in two sessions (the seed fixes the body), and every refusal names the field and leaves
// the session as it was.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

constexpr double kDt = 0.004;  // [s]

v1::CreateSessionRequest RigidLcpRequest() {
  v1::CreateSessionRequest request;
  request.set_pipeline("rigid_lcp");
  request.mutable_settings()->set_dt_s(kDt);
  request.mutable_settings()->mutable_rigid_lcp()->set_friction_coefficient(1.0);
  return request;
}

// The eight corners of the box [lo, hi] as one hull's points.
void AddBoxPiece(v1::ConvexHullsShape* shape, const std::array<double, 3>& lo,
                 const std::array<double, 3>& hi) {
  v1::ConvexHullPoints* piece = shape->add_pieces();
  for (int corner = 0; corner < 8; ++corner) {
    for (int axis = 0; axis < 3; ++axis) {
      piece->add_points_m((corner >> axis) & 1 ? hi[axis] : lo[axis]);
    }
  }
}

// Issue 18's container as one static body of five box pieces: floor top at z = 0, interior
// [-0.3, 0.3]^2 m, walls 0.5 m high, floor and walls 0.1 m thick (touching, not overlapping).
v1::BodySpec Container() {
  v1::BodySpec body;
  body.set_name("container");
  body.set_kind(v1::BODY_KIND_STATIC);
  v1::ConvexHullsShape* shape = body.mutable_primitive()->mutable_convex_hulls();
  AddBoxPiece(shape, {-0.4, -0.4, -0.1}, {0.4, 0.4, 0.0});  // floor
  AddBoxPiece(shape, {-0.4, -0.4, 0.0}, {-0.3, 0.4, 0.5});  // wall -x
  AddBoxPiece(shape, {0.3, -0.4, 0.0}, {0.4, 0.4, 0.5});    // wall +x
  AddBoxPiece(shape, {-0.3, -0.4, 0.0}, {0.3, -0.3, 0.5});  // wall -y
  AddBoxPiece(shape, {-0.3, 0.3, 0.0}, {0.3, 0.4, 0.5});    // wall +y
  return body;
}

v1::BodySpec Cube(double x_m, double z_m) {
  v1::BodySpec body;
  body.set_kind(v1::BODY_KIND_RIGID);
  body.mutable_primitive()->mutable_box()->mutable_half_extents_m()->set_x(0.05);
  body.mutable_primitive()->mutable_box()->mutable_half_extents_m()->set_y(0.05);
  body.mutable_primitive()->mutable_box()->mutable_half_extents_m()->set_z(0.05);
  body.mutable_rigid()->set_density_kg_per_m3(1000.0);
  body.mutable_pose()->mutable_position_m()->set_x(x_m);
  body.mutable_pose()->mutable_position_m()->set_z(z_m);
  return body;
}

// Issue 18's pouring body: the hull of 10 points 35-50 mm out.
v1::BodySpec RandomHull(uint64_t seed, double z_m) {
  v1::BodySpec body;
  body.set_kind(v1::BODY_KIND_RIGID);
  v1::RandomHullShape* hull = body.mutable_primitive()->mutable_random_hull();
  hull->set_points(10);
  hull->set_min_radius_m(0.035);
  hull->set_max_radius_m(0.05);
  hull->set_seed(seed);
  body.mutable_rigid()->set_density_kg_per_m3(400.0);
  body.mutable_pose()->mutable_position_m()->set_z(z_m);
  return body;
}

const v1::BodyState& StateOf(const v1::StepResponse& response, int32_t body_id) {
  for (const v1::BodyState& body : response.bodies()) {
    if (body.body_id() == body_id) return body;
  }
  ADD_FAILURE() << "no state for body " << body_id;
  return response.bodies(0);
}

class HullShapesServiceTest : public ServiceTest {
 protected:
  // AddBody that must fail: its code and message, and the session's bodies unchanged.
  grpc::Status AddBodyExpectingRefusal(const SessionHandle& session, const v1::BodySpec& body) {
    const int before = GetSession(session).body_ids_size();
    v1::AddBodyRequest request;
    request.set_session_id(session.id);
    *request.mutable_body() = body;
    v1::AddBodyResponse response;
    grpc::Status status = stub_->AddBody(Context(session.controller).get(), request, &response);
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(GetSession(session).body_ids_size(), before);
    return status;
  }
};

TEST_F(HullShapesServiceTest, AContainerOfBoxPiecesHoldsACubeOnItsFloor) {
  const SessionHandle session = CreateSession(RigidLcpRequest());
  AddBody(session, Container());
  // Inside the container's hull (a solid 0.8 x 0.8 x 0.6 m box) from the start: a hull would
  // refuse or eject it; the union lets it fall to the floor.
  const int32_t cube = AddBody(session, Cube(0.1, 0.3));
  v1::StepResponse response;
  grpc::Status status = Step(session, 250, &response);  // 1 s: falls 0.2 m and settles
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.bodies_size(), 2);  // the container and the cube
  const v1::BodyState& state = StateOf(response, cube);
  // Resting on the floor's top face (z = 0): the stabilized step closes the gap to round-off,
  // as for a cube on a ground plane (rigid_lcp_service_test).
  EXPECT_NEAR(state.p_wb_m().z(), 0.05, 1e-9);
  EXPECT_NEAR(state.p_wb_m().x(), 0.1, 1e-6);
  // Its last step's impulses carry its weight, m g h with m = 1 kg, to Lemke's round-off.
  double normal_z = 0.0;
  for (const v1::ContactRecord& record : response.contacts().contacts()) {
    normal_z += (record.body_a() == cube ? 1.0 : -1.0) * record.normal_impulse_ns().z();
  }
  EXPECT_NEAR(std::abs(normal_z), 9.81 * kDt, 1e-10 * 9.81 * kDt);
}

TEST_F(HullShapesServiceTest, ARandomHullRestsInTheContainerAlikeInTwoSessions) {
  std::array<double, 3> rest_m{};
  for (int run = 0; run < 2; ++run) {
    const SessionHandle session = CreateSession(RigidLcpRequest());
    AddBody(session, Container());
    const int32_t hull = AddBody(session, RandomHull(7, 0.3));
    v1::StepResponse response;
    grpc::Status status = Step(session, 500, &response);  // 2 s
    ASSERT_TRUE(status.ok()) << status.error_message();
    const v1::BodyState& body = StateOf(response, hull);
    // At rest on the floor (inside the container, not on its walls' tops at 0.5 m): the face it
    // rests on is no farther from its centre of mass than its farthest vertex, 50 mm from the
    // points' origin plus the centre's offset from it (under 10 mm for 10 points on a shell).
    EXPECT_GT(body.p_wb_m().z(), 0.0) << run;
    EXPECT_LE(body.p_wb_m().z(), 0.06) << run;
    EXPECT_LE(std::hypot(body.v_wb_m_per_s().x(), body.v_wb_m_per_s().y(), body.v_wb_m_per_s().z()),
              1e-6)
        << run;
    const std::array<double, 3> p = {body.p_wb_m().x(), body.p_wb_m().y(), body.p_wb_m().z()};
    if (run == 0) {
      rest_m = p;
    } else {
      EXPECT_EQ(p, rest_m);  // the same seed, the same body, the same steps: the same bits
    }
  }
}

TEST_F(HullShapesServiceTest, RefusalsNameTheFieldAndKeepTheSession) {
  const SessionHandle session = CreateSession(RigidLcpRequest());
  AddBody(session, Container());
  const auto refused = [&](const v1::BodySpec& body, grpc::StatusCode code,
                           const std::string& field) {
    const grpc::Status status = AddBodyExpectingRefusal(session, body);
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_NE(status.error_message().find(field), std::string::npos) << status.error_message();
  };
  const std::string hulls = "body.primitive.convex_hulls";

  v1::BodySpec none = Cube(0, 0.3);
  none.mutable_primitive()->mutable_convex_hulls();
  refused(none, grpc::StatusCode::INVALID_ARGUMENT, hulls + ".pieces: must hold 1 to 64");

  v1::BodySpec ragged = Container();
  ragged.mutable_primitive()->mutable_convex_hulls()->mutable_pieces(2)->add_points_m(1.0);
  refused(ragged, grpc::StatusCode::INVALID_ARGUMENT, hulls + ".pieces[2].points_m: 25 numbers");

  v1::BodySpec flat = Cube(0, 0.3);
  AddBoxPiece(flat.mutable_primitive()->mutable_convex_hulls(), {0, 0, 0}, {0.1, 0.1, 0.0});
  refused(flat, grpc::StatusCode::INVALID_ARGUMENT, hulls + ".pieces[0].points_m");

  v1::BodySpec not_a_number = Cube(0, 0.3);
  AddBoxPiece(not_a_number.mutable_primitive()->mutable_convex_hulls(), {0, 0, 0},
              {0.1, 0.1, std::numeric_limits<double>::quiet_NaN()});
  refused(not_a_number, grpc::StatusCode::INVALID_ARGUMENT, hulls + ".pieces[0].points_m");

  v1::BodySpec overlapping = Cube(0, 0.3);
  AddBoxPiece(overlapping.mutable_primitive()->mutable_convex_hulls(), {0, 0, 0}, {0.1, 0.1, 0.1});
  AddBoxPiece(overlapping.mutable_primitive()->mutable_convex_hulls(), {0.05, 0, 0},
              {0.15, 0.1, 0.1});
  refused(overlapping, grpc::StatusCode::INVALID_ARGUMENT,
          hulls + ".pieces[0] and pieces[1] overlap");

  v1::BodySpec too_many = Cube(0, 0.3);
  for (int i = 0; i < 65; ++i) {
    AddBoxPiece(too_many.mutable_primitive()->mutable_convex_hulls(), {0.2 * i, 0, 0},
                {0.2 * i + 0.1, 0.1, 0.1});
  }
  refused(too_many, grpc::StatusCode::INVALID_ARGUMENT, hulls + ".pieces: must hold 1 to 64");

  v1::BodySpec few_points = RandomHull(1, 0.3);
  few_points.mutable_primitive()->mutable_random_hull()->set_points(3);
  refused(few_points, grpc::StatusCode::INVALID_ARGUMENT,
          "body.primitive.random_hull.points: must be in [4, 1000]");
  v1::BodySpec inverted = RandomHull(1, 0.3);
  inverted.mutable_primitive()->mutable_random_hull()->set_max_radius_m(0.01);
  refused(inverted, grpc::StatusCode::INVALID_ARGUMENT, "body.primitive.random_hull.max_radius_m");
  v1::BodySpec zero_radius = RandomHull(1, 0.3);
  zero_radius.mutable_primitive()->mutable_random_hull()->set_min_radius_m(0.0);
  refused(zero_radius, grpc::StatusCode::INVALID_ARGUMENT,
          "body.primitive.random_hull.min_radius_m");
}

// Counts are checked against the server's limits before Qhull runs.
TEST_F(HullShapesServiceTest, PointsBeyondTheVertexLimitAreRefusedBeforeHulling) {
  ServerLimits limits;
  limits.max_vertices_per_mesh = 100;
  StartServer(limits);
  const SessionHandle session = CreateSession(RigidLcpRequest());
  v1::BodySpec body = Cube(0, 0.3);
  v1::ConvexHullPoints* piece = body.mutable_primitive()->mutable_convex_hulls()->add_pieces();
  for (int i = 0; i < 101; ++i) {
    piece->add_points_m(std::cos(i));
    piece->add_points_m(std::sin(i));
    piece->add_points_m(0.01 * i);
  }
  const grpc::Status status = AddBodyExpectingRefusal(session, body);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_NE(status.error_message().find("101 points exceed the server's limit of 100"),
            std::string::npos)
      << status.error_message();
}

}  // namespace
}  // namespace contactsim::server::servertest
