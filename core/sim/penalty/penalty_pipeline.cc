#include "core/sim/penalty/penalty_pipeline.h"

#include <algorithm>
#include <chrono>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/sim/body_utils.h"
#include "core/sim/penalty/explicit_integration.h"

namespace contactsim::core {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds from *mark to now; moves *mark to now.
double Lap(Clock::time_point* mark) {
  const Clock::time_point now = Clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - *mark).count();
  *mark = now;
  return ms;
}

}  // namespace

PenaltyPipeline::PenaltyPipeline(const WorldSettings& settings) : settings_(settings) {}

PenaltyPipeline::~PenaltyPipeline() = default;

absl::Status PenaltyPipeline::CheckBody(const Body& body) const {
  if (body.type() == BodyType::kHyperelastic) {
    return absl::InvalidArgumentError(
        "body: the penalty pipeline does not step hyperelastic bodies (create the session with "
        "the local_global pipeline)");
  }
  return absl::OkStatus();
}

void PenaltyPipeline::ForgetBody(int32_t body_id) {
  std::erase_if(pairs_, [&](const TrackedPair& pair) {
    return pair.key.body_a == body_id || pair.key.body_b == body_id;
  });
  planes_.ForgetBody(body_id);
}

void PenaltyPipeline::ForgetPlane(int32_t plane_id) { planes_.ForgetPlane(plane_id); }

void PenaltyPipeline::Clear() {
  pairs_.clear();
  planes_.set_contacts({});
}

absl::Status PenaltyPipeline::RestoreContacts(std::vector<TrackedPair> pairs,
                                              std::vector<PlaneContact> plane_contacts) {
  for (size_t i = 1; i < pairs.size(); ++i) {
    if (!(pairs[i - 1].key < pairs[i].key)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tracked_pairs[", i, "]: keys must be strictly ascending"));
    }
  }
  const auto key_of = [](const PlaneContact& c) {
    return std::make_tuple(c.body_id, c.vertex, c.plane_id);
  };
  for (size_t i = 1; i < plane_contacts.size(); ++i) {
    if (!(key_of(plane_contacts[i - 1]) < key_of(plane_contacts[i]))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "plane_contacts[", i, "]: (body, vertex, plane) must be strictly ascending"));
    }
  }
  pairs_ = std::move(pairs);
  planes_.set_contacts(std::move(plane_contacts));
  return absl::OkStatus();
}

void PenaltyPipeline::CopyContactStateFrom(const PenaltyPipeline& other) {
  pairs_ = other.pairs_;
  planes_.set_contacts(other.planes_.contacts());
}

absl::Status PenaltyPipeline::Step(const StepInput& input, StepDiagnostics* diagnostics,
                                   ContactReport* report) {
  PenaltyStageTimes& times = diagnostics->stage_times;
  Clock::time_point mark = Clock::now();

  // The interrupt is asked after each stage and inside the scheme's contact search, up to the
  // last question before friction: until then nothing but Predict and the loads added for the
  // step has changed (Body::AbandonStep undoes those); the stages after it are linear in the
  // contacts found.
  // 1. Predict.
  RETURN_IF_ERROR(PredictBodies(settings_, input, diagnostics));
  times.predict_ms = Lap(&mark);
  RETURN_IF_ERROR(input.AskInterrupt());

  // 2-4. The contacts between bodies, the scheme's way, then the vertices against the ground
  // planes, each with its normal impulse.
  immovable_.assign(input.bodies.size(), 0);
  for (size_t i = 0; i < input.bodies.size(); ++i) {
    immovable_[i] = IsImmovable(*input.bodies[i].body);
  }
  RETURN_IF_ERROR(FindBodyContacts(input, diagnostics));
  RETURN_IF_ERROR(input.AskInterrupt());
  planes_.ComputeNormalImpulses(settings_, input, immovable_, diagnostics);
  times.contacts_ms = Lap(&mark);
  RETURN_IF_ERROR(input.AskInterrupt());  // the last: friction carries the plane contacts over

  // 5. Friction, once every contact's normal impulse is known.
  const bool friction = settings_.friction.model != FrictionModel::kNone;
  if (friction) {  // no friction, no shares
    friction_shares_.Reset(input);
    CountBodyFrictionShares(&friction_shares_);
    planes_.CountFrictionShares(&friction_shares_);
    ComputeBodyFriction(input, friction_shares_);
  }
  planes_.ComputeFriction(settings_, input, friction_shares_);
  times.friction_ms = Lap(&mark);

  // 6. Apply in a fixed order on this thread, then correct.
  RETURN_IF_ERROR(ApplyBodyImpulses(input, diagnostics));
  RETURN_IF_ERROR(planes_.ApplyImpulses(input, diagnostics));
  RETURN_IF_ERROR(CorrectBodies(settings_.dt_s, input));
  times.correct_ms = Lap(&mark);

  // 7. The report, at the corrected end of the step.
  report->contacts.clear();
  report->body_totals.clear();
  report->contacts.reserve(diagnostics->active_pairs + planes_.num_step_contacts());
  AppendBodyContacts(input, report);
  planes_.AppendReport(input, report);
  double max_depth = 0.0;
  for (const ContactRecord& record : report->contacts) {
    max_depth = std::max(max_depth, record.depth_m);
  }
  diagnostics->max_penetration_depth_m = max_depth;
  const absl::Status status = FillBodyTotals(input.bodies, report);
  times.report_ms = Lap(&mark);
  return status;
}

}  // namespace contactsim::core
