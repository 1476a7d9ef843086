// The session both the server and the client tests step: the penalty pipeline with CPF at
// dt = 10 ms and k = 2.5 kN/m over the ground plane z = 0 (a 1 kg box then rests on it).
#pragma once

#include "contactsim/v1/simulation.pb.h"

namespace contactsim::test_fixtures {

inline contactsim::v1::CreateSessionRequest BoxSceneRequest() {
  contactsim::v1::CreateSessionRequest request;
  request.set_pipeline("penalty");
  request.set_name("box");
  request.mutable_settings()->set_dt_s(0.01);
  request.mutable_settings()->set_stiffness_n_per_m(2500.0);
  request.mutable_settings()->set_contact_model(contactsim::v1::CONTACT_MODEL_CPF);
  contactsim::v1::GroundPlane* plane = request.add_ground_planes();
  plane->mutable_normal()->set_z(1.0);
  plane->set_offset_m(0.0);
  return request;
}

}  // namespace contactsim::test_fixtures
