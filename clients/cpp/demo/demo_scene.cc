#include "clients/cpp/demo/demo_scene.h"

#include <cmath>

#include "clients/cpp/box_mesh.h"

namespace contactsim::client::demo {
namespace {

v1::BodySpec Box(const std::string& name, double x_m, double y_m) {
  v1::BodySpec body;
  body.set_name(name);
  body.set_kind(v1::BODY_KIND_RIGID);
  *body.mutable_triangle_mesh() = BoxMesh(kBoxHalfSize_m, kBoxHalfSize_m, kBoxHalfSize_m);
  body.mutable_rigid()->set_density_kg_per_m3(kBoxDensity_kg_per_m3);
  v1::Vec3* p = body.mutable_pose()->mutable_position_m();
  p->set_x(x_m);
  p->set_y(y_m);
  p->set_z(kBoxHalfSize_m + kDropHeight_m);
  return body;
}

}  // namespace

v1::CreateSessionRequest DemoSessionRequest() {
  v1::CreateSessionRequest request;
  request.set_pipeline("penalty");
  request.set_name("contactsim-demo");
  v1::WorldSettings* settings = request.mutable_settings();
  settings->set_dt_s(kDemoDt_s);
  settings->set_stiffness_n_per_m(kDemoStiffness_n_per_m);
  settings->set_contact_model(v1::CONTACT_MODEL_CPF);
  // Static friction springs of 4 corners on 1 kg: 4 k_FP dt^2 / m = 0.04 and 4 k_FD dt / m = 0.2,
  // well inside explicit stability.
  v1::FrictionSettings* friction = settings->mutable_friction();
  friction->set_model(v1::FRICTION_MODEL_YAMANE_NAKAMURA);
  friction->set_spring_n_per_m(1e4);
  friction->set_damping_ns_per_m(50.0);
  friction->set_mu_static(0.5);
  friction->set_mu_dynamic(0.4);
  v1::GroundPlane* plane = request.add_ground_planes();
  plane->mutable_normal()->set_z(1.0);
  plane->set_offset_m(0.0);
  return request;
}

std::vector<DemoBody> DemoBodies() {
  return {{"pushed_box", Box("pushed_box", 0.0, 0.0)},
          {"resting_box_a", Box("resting_box_a", 0.3, 0.45)},
          {"resting_box_b", Box("resting_box_b", 0.3, -0.45)}};
}

v1::Vec3 PdForce(double target_x_m, double target_y_m, const v1::Vec3& p_WB_m,
                 const v1::Vec3& v_WB_m_per_s, const PdGains& gains) {
  double fx = gains.kp_n_per_m * (target_x_m - p_WB_m.x()) - gains.kd_ns_per_m * v_WB_m_per_s.x();
  double fy = gains.kp_n_per_m * (target_y_m - p_WB_m.y()) - gains.kd_ns_per_m * v_WB_m_per_s.y();
  const double norm = std::hypot(fx, fy);
  if (norm > gains.max_force_n) {
    fx *= gains.max_force_n / norm;
    fy *= gains.max_force_n / norm;
  }
  v1::Vec3 force;
  force.set_x(fx);
  force.set_y(fy);
  return force;
}

}  // namespace contactsim::client::demo
