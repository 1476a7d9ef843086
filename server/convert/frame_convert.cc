#include "server/convert/frame_convert.h"

#include "server/convert/body_convert.h"
#include "server/convert/robot_convert.h"
#include "server/convert/step_convert.h"

namespace contactsim::server {
namespace {

template <typename Repeated>
void AddAs(const core::Points3& points, Repeated* out) {
  out->Reserve(static_cast<int>(points.size()));
  for (Eigen::Index i = 0; i < points.size(); ++i) out->AddAlreadyReserved(points.data()[i]);
}

}  // namespace

void FrameToProto(const FrameContent& content, const FrameDelivery& delivery,
                  const StreamOptions& options, v1::StateFrame* message) {
  message->Clear();
  const core::WorldState& state = *content.state;
  message->set_seq(delivery.seq);
  message->set_time_s(state.time_s);
  message->set_step_count(state.step_count);
  message->set_coalesced(delivery.coalesced);
  message->set_oldest_available_seq(delivery.oldest_available);
  if (content.topology != nullptr) {
    for (const core::BodyTopology& body : content.topology->bodies) {
      v1::BodyTopology* out = message->add_topology();
      out->set_body_id(body.body_id);
      out->set_kind(BodyKindOf(body.type, body.rigid_kind));
      out->set_name(body.name);
      out->mutable_surface()->mutable_triangles()->Add(body.faces.data(),
                                                       body.faces.data() + body.faces.size());
    }
  }
  for (const core::BodyStateCopy& body : state.bodies) {
    v1::BodyFrame* out = message->add_bodies();
    out->set_body_id(body.body_id);
    if (options.float64) {
      AddAs(body.positions_m, out->mutable_positions_m_f64());
      if (options.include_velocities) {
        AddAs(body.velocities_m_per_s, out->mutable_velocities_m_per_s_f64());
      }
    } else {
      AddAs(body.positions_m, out->mutable_positions_m_f32());
      if (options.include_velocities) {
        AddAs(body.velocities_m_per_s, out->mutable_velocities_m_per_s_f32());
      }
    }
  }
  if (options.include_contacts && content.contacts != nullptr) {
    for (const core::ContactRecord& record : content.contacts->contacts) {
      FillProto(record, message->mutable_contacts()->add_contacts());
    }
    for (const core::BodyContactTotals& totals : content.contacts->body_totals) {
      FillProto(totals, message->mutable_contacts()->add_body_totals());
    }
  }
  FillProto(*content.diagnostics, message->mutable_diagnostics());
  if (content.reactions != nullptr && !content.reactions->constraints.empty()) {
    FillProto(*content.reactions, message->mutable_reactions());
  }
  for (const core::RobotJointStatesCopy& robot : state.robots) {
    FillProto(robot, message->add_joint_states());
  }
}

}  // namespace contactsim::server
