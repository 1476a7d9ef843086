#include "core/sim/serialization/world_serialization.h"

#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/body_utils.h"
#include "core/sim/local_global/local_global_pipeline.h"
#include "core/sim/penalty/penalty_pipeline.h"
#include "core/sim/penalty/penalty_schemes.h"
#include "core/sim/pipeline_table.h"
#include "core/sim/rigid_lcp/rigid_lcp_pipeline.h"
#include "core/sim/serialization/body_codec.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "core/sim/serialization/checksum.h"
#include "core/sim/serialization/constraints_codec.h"
#include "core/sim/serialization/contact_state_codec.h"
#include "core/sim/serialization/rigid_lcp_warm_codec.h"
#include "core/sim/serialization/robots_codec.h"
#include "core/sim/serialization/settings_codec.h"
#include "core/sim/serialization/vertex_contact_codec.h"
#include "core/sim/serialization/world_format.h"

namespace contactsim::core {
namespace {

using serialization::ByteReader;
using serialization::ByteWriter;

struct Section {
  uint32_t tag = 0;
  uint32_t flags = 0;
  std::string_view bytes;
};

// The tag as its four characters when printable, else in hex.
std::string TagName(uint32_t tag) {
  std::string name;
  for (int i = 0; i < 4; ++i) {
    const char c = static_cast<char>((tag >> (8 * i)) & 0xff);
    if (c < 0x20 || c > 0x7e) return absl::StrCat("0x", absl::Hex(tag, absl::kZeroPad8));
    name.push_back(c);
  }
  return absl::StrCat("'", name, "'");
}

// Checks the header and checksum and splits the payload into its sections.
absl::StatusOr<std::vector<Section>> SplitSections(std::string_view bytes) {
  using namespace serialization;
  const size_t framing = kHeaderBytes + kChecksumBytes;
  if (bytes.size() < framing) {
    return absl::InvalidArgumentError(absl::StrCat(
        "truncated: ", bytes.size(), " bytes, a world snapshot has at least ", framing));
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    return absl::InvalidArgumentError("magic: not a ContactSim world snapshot");
  }
  ByteReader header(bytes.substr(kMagic.size(), kHeaderBytes - kMagic.size()));
  const uint32_t version = header.U32("version");
  const uint64_t payload_bytes = header.U64("payload_length");
  if (version != kFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat("version: format version ", version,
                                                   " is not supported (this build reads ",
                                                   kFormatVersion, ")"));
  }
  const size_t present = bytes.size() - framing;
  if (payload_bytes > present) {
    return absl::InvalidArgumentError(absl::StrCat("truncated: the header announces ",
                                                   payload_bytes, " payload bytes, ", present,
                                                   " are present"));
  }
  if (payload_bytes < present) {
    return absl::InvalidArgumentError(absl::StrCat("payload_length: ", present - payload_bytes,
                                                   " unexpected bytes after the payload"));
  }
  ByteReader trailer(bytes.substr(bytes.size() - kChecksumBytes));
  const uint64_t checksum = trailer.U64("checksum");
  if (checksum != Fnv1a64(bytes.substr(0, bytes.size() - kChecksumBytes))) {
    return absl::InvalidArgumentError("checksum: does not match the content (corrupted)");
  }
  ByteReader payload(bytes.substr(kHeaderBytes, payload_bytes));
  std::vector<Section> sections;
  while (payload.ok() && payload.remaining() > 0) {
    const std::string field = absl::StrCat("sections[", sections.size(), "]");
    Section section;
    section.tag = payload.U32(field + ".tag");
    section.flags = payload.U32(field + ".flags");
    const uint64_t length = payload.U64(field + ".length");
    if (payload.ok() && length > payload.remaining()) {
      return absl::InvalidArgumentError(absl::StrCat(field, " ", TagName(section.tag), ": length ",
                                                     length, " exceeds the ", payload.remaining(),
                                                     " bytes left"));
    }
    section.bytes = payload.Bytes(length, field);
    sections.push_back(section);
  }
  if (!payload.ok()) return payload.status();
  return sections;
}

}  // namespace

namespace internal {

// Reads and builds WorldSnapshot's private fields (a friend of WorldSnapshot).
struct WorldSnapshotAccess {
  static absl::StatusOr<std::string> Write(const WorldSnapshot& s);
  static absl::StatusOr<WorldSnapshot> Read(const std::vector<Section>& sections,
                                            const std::shared_ptr<Backend>& backend);
};

absl::StatusOr<std::string> WorldSnapshotAccess::Write(const WorldSnapshot& s) {
  using namespace serialization;
  const auto* pipeline = dynamic_cast<const PenaltyPipeline*>(s.pipeline_.get());
  const bool local_global = s.settings_.pipeline == PipelineKind::kLocalGlobal;
  const bool rigid_lcp = s.settings_.pipeline == PipelineKind::kRigidLcp;
  if (pipeline == nullptr && !local_global && !rigid_lcp) {
    return absl::UnimplementedError("pipeline: has no serialization");
  }
  ByteWriter payload;
  size_t at = payload.BeginSection(kSettingsTag, kSectionRequired);
  WriteSettings(s.settings_, &payload);
  payload.EndSection(at);
  if (HasContactDamping(s.settings_)) {
    at = payload.BeginSection(kContactDampingTag, kSectionRequired);
    WriteContactDamping(s.settings_, &payload);
    payload.EndSection(at);
  }
  if (local_global) {
    at = payload.BeginSection(kLocalGlobalTag, kSectionRequired);
    const LocalGlobalSettings& lg = s.settings_.local_global;
    payload.I32(lg.iterations);
    payload.F64(lg.contact_proximity_m);
    payload.F64(lg.friction_coefficient);
    payload.I32(lg.cr_iterations);
    payload.EndSection(at);
  }
  if (rigid_lcp) {
    at = payload.BeginSection(kRigidLcpTag, kSectionRequired);
    WriteRigidLcpSettings(s.settings_.rigid_lcp, &payload);
    payload.EndSection(at);
  }

  at = payload.BeginSection(kClockTag, kSectionRequired);
  payload.F64(s.time_s_);
  payload.I64(s.step_count_);
  payload.I32(s.next_body_id_);
  payload.I32(s.next_plane_id_);
  payload.Bool(s.energy_reference_j_.has_value());
  payload.F64(s.energy_reference_j_.value_or(0.0));
  payload.EndSection(at);

  at = payload.BeginSection(kPlanesTag, kSectionRequired);
  payload.U32(static_cast<uint32_t>(s.planes_.size()));
  for (const GroundPlane& plane : s.planes_) {
    payload.I32(plane.id);
    payload.Vec(plane.normal);
    payload.F64(plane.offset_m);
  }
  payload.EndSection(at);

  for (const SimBody& body : s.bodies_) {
    at = payload.BeginSection(kBodyTag, kSectionRequired);
    payload.I32(body.id);
    payload.String(body.name);
    payload.Bool(body.collision.enabled);
    payload.Bool(body.collision.self_collision);
    if (absl::Status status = WriteBody(*body.body, &payload); !status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("bodies (id ", body.id, "): ", status.message()));
    }
    payload.EndSection(at);
  }

  // Only when there is something to say, so worlds that never had a constraint keep their bytes.
  // Required: a reader that skipped it would step without the constraints.
  if (!s.constraints_.empty() || s.constraints_.next_id() != 0) {
    at = payload.BeginSection(kConstraintsTag, kSectionRequired);
    WriteConstraints(s.constraints_, s.bodies_, &payload);
    payload.EndSection(at);
  }

  // A lone hyperelastic body carries its warm start in its record; a contact group's is the
  // pipeline's.
  const auto* local_global_pipeline = dynamic_cast<const LocalGlobalPipeline*>(s.pipeline_.get());
  if (local_global_pipeline != nullptr && !local_global_pipeline->group_memory().body_ids.empty()) {
    at = payload.BeginSection(kGroupContactsTag, kSectionRequired);
    WriteGroupContactMemory(local_global_pipeline->group_memory(), &payload);
    payload.EndSection(at);
  }

  const auto* rigid_lcp_pipeline = dynamic_cast<const RigidLcpPipeline*>(s.pipeline_.get());
  if (rigid_lcp_pipeline != nullptr && !rigid_lcp_pipeline->warm_start().empty()) {
    at = payload.BeginSection(kRigidLcpWarmStartTag, kSectionRequired);
    WriteRigidLcpWarmStart(rigid_lcp_pipeline->warm_start(), &payload);
    payload.EndSection(at);
  }

  if (!s.robots_.empty() || s.next_robot_id_ != 0) {
    at = payload.BeginSection(kRobotsTag, kSectionRequired);
    WriteRobots(s.robots_, s.next_robot_id_, &payload);
    payload.EndSection(at);
  }

  if (pipeline != nullptr) {
    at = payload.BeginSection(kTrackedPairsTag, kSectionRequired);
    WriteTrackedPairs(pipeline->tracked_pairs(), &payload);
    payload.EndSection(at);
    at = payload.BeginSection(kPlaneContactsTag, kSectionRequired);
    WritePlaneContacts(pipeline->plane_contacts(), &payload);
    payload.EndSection(at);
  }

  ByteWriter out;
  out.Bytes(kMagic);
  out.U32(kFormatVersion);
  out.U64(payload.size());
  out.Bytes(payload.bytes());
  out.U64(Fnv1a64(out.bytes()));
  return out.Release();
}

absl::StatusOr<WorldSnapshot> WorldSnapshotAccess::Read(const std::vector<Section>& sections,
                                                        const std::shared_ptr<Backend>& backend) {
  using namespace serialization;
  // Sort the sections by kind; singletons at most once; unknown ones refused when required.
  const Section* settings_section = nullptr;
  const Section* clock_section = nullptr;
  const Section* planes_section = nullptr;
  const Section* pairs_section = nullptr;
  const Section* plane_contacts_section = nullptr;
  const Section* constraints_section = nullptr;
  const Section* local_global_section = nullptr;
  const Section* group_contacts_section = nullptr;
  const Section* contact_damping_section = nullptr;
  const Section* rigid_lcp_section = nullptr;
  const Section* rigid_lcp_warm_section = nullptr;
  const Section* robots_section = nullptr;
  std::vector<const Section*> body_sections;
  for (const Section& section : sections) {
    const Section** singleton = nullptr;
    switch (section.tag) {
      case kSettingsTag:
        singleton = &settings_section;
        break;
      case kClockTag:
        singleton = &clock_section;
        break;
      case kPlanesTag:
        singleton = &planes_section;
        break;
      case kTrackedPairsTag:
        singleton = &pairs_section;
        break;
      case kPlaneContactsTag:
        singleton = &plane_contacts_section;
        break;
      case kConstraintsTag:
        singleton = &constraints_section;
        break;
      case kLocalGlobalTag:
        singleton = &local_global_section;
        break;
      case kGroupContactsTag:
        singleton = &group_contacts_section;
        break;
      case kContactDampingTag:
        singleton = &contact_damping_section;
        break;
      case kRigidLcpTag:
        singleton = &rigid_lcp_section;
        break;
      case kRigidLcpWarmStartTag:
        singleton = &rigid_lcp_warm_section;
        break;
      case kRobotsTag:
        singleton = &robots_section;
        break;
      case kBodyTag:
        body_sections.push_back(&section);
        continue;
      default:
        if ((section.flags & kSectionRequired) != 0) {
          return absl::InvalidArgumentError(absl::StrCat("sections: ", TagName(section.tag),
                                                         " is required but unknown to this build "
                                                         "(format version ",
                                                         kFormatVersion, ")"));
        }
        continue;  // optional: state this build does not use
    }
    if (*singleton != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("sections: ", TagName(section.tag), " appears more than once"));
    }
    *singleton = &section;
  }
  if (settings_section == nullptr || clock_section == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("sections: ", TagName(settings_section == nullptr ? kSettingsTag : kClockTag),
                     " is missing"));
  }

  WorldSnapshot s;
  {
    ByteReader in(settings_section->bytes);
    ASSIGN_OR_RETURN(s.settings_, ReadSettings(&in));
    in.ExpectEnd("settings");
    RETURN_IF_ERROR(in.status());
  }
  if (contact_damping_section != nullptr) {
    ByteReader in(contact_damping_section->bytes);
    RETURN_IF_ERROR(ReadContactDamping(&in, &s.settings_));
  }
  if (group_contacts_section != nullptr && local_global_section == nullptr) {
    return absl::InvalidArgumentError(
        "sections: LGCT (the local_global contact group) without the local_global pipeline");
  }
  if (rigid_lcp_section != nullptr) {
    if (local_global_section != nullptr || pairs_section != nullptr ||
        plane_contacts_section != nullptr || group_contacts_section != nullptr) {
      return absl::InvalidArgumentError(
          "sections: the rigid_lcp pipeline has no local_global settings, tracked pairs or plane "
          "contacts");
    }
    ByteReader in(rigid_lcp_section->bytes);
    s.settings_.pipeline = PipelineKind::kRigidLcp;
    RETURN_IF_ERROR(ReadRigidLcpSettings(&in, &s.settings_.rigid_lcp));
    in.ExpectEnd("rigid_lcp");
    RETURN_IF_ERROR(in.status());
    RETURN_IF_ERROR(ValidateWorldSettings(s.settings_));
  }
  if (local_global_section != nullptr) {
    if (pairs_section != nullptr || plane_contacts_section != nullptr) {
      return absl::InvalidArgumentError(
          "sections: the local_global pipeline has no tracked pairs or plane contacts");
    }
    ByteReader in(local_global_section->bytes);
    s.settings_.pipeline = PipelineKind::kLocalGlobal;
    LocalGlobalSettings& lg = s.settings_.local_global;
    lg.iterations = in.I32("local_global.iterations");
    lg.contact_proximity_m = in.FiniteF64("local_global.contact_proximity_m");
    lg.friction_coefficient = in.FiniteF64("local_global.friction_coefficient");
    lg.cr_iterations = in.I32("local_global.cr_iterations");
    in.ExpectEnd("local_global");
    RETURN_IF_ERROR(in.status());
    RETURN_IF_ERROR(ValidateWorldSettings(s.settings_));
  }
  {
    ByteReader in(clock_section->bytes);
    s.time_s_ = in.FiniteF64("clock.time_s");
    s.step_count_ = in.I64("clock.step_count");
    s.next_body_id_ = in.I32("clock.next_body_id");
    s.next_plane_id_ = in.I32("clock.next_plane_id");
    const bool has_reference = in.Bool("clock.has_energy_reference");
    const double reference = in.FiniteF64("clock.energy_reference_j");
    in.ExpectEnd("clock");
    RETURN_IF_ERROR(in.status());
    if (s.time_s_ < 0.0 || s.step_count_ < 0 || s.step_count_ > World::kMaxStepCount ||
        s.next_body_id_ < 0 || s.next_plane_id_ < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("clock: time_s ", s.time_s_, ", step_count ", s.step_count_,
                       ", next_body_id ", s.next_body_id_, " and next_plane_id ", s.next_plane_id_,
                       " must be >= 0 (step_count at most 2^53)"));
    }
    if (has_reference) s.energy_reference_j_ = reference;
  }
  if (planes_section != nullptr) {
    ByteReader in(planes_section->bytes);
    const uint32_t count = in.Count("planes", sizeof(int32_t) + 4 * sizeof(double));
    for (uint32_t i = 0; i < count && in.ok(); ++i) {
      const std::string field = absl::StrCat("planes[", i, "]");
      GroundPlane plane;
      plane.id = in.I32(field + ".id");
      plane.normal = in.FiniteVec(field + ".normal");
      plane.offset_m = in.FiniteF64(field + ".offset_m");
      if (!in.ok()) break;
      const int32_t previous = s.planes_.empty() ? -1 : s.planes_.back().id;
      if (plane.id <= previous || plane.id >= s.next_plane_id_) {
        in.Fail(field + ".id", absl::StrCat("id ", plane.id,
                                            " must be ascending and below "
                                            "next_plane_id ",
                                            s.next_plane_id_));
      } else if (std::abs(plane.normal.norm() - 1.0) > 1e-9) {
        in.Fail(field + ".normal", "must be a unit vector");
      }
      s.planes_.push_back(plane);
    }
    in.ExpectEnd("planes");
    RETURN_IF_ERROR(in.status());
  }
  std::set<std::string> names;
  for (size_t i = 0; i < body_sections.size(); ++i) {
    const std::string field = absl::StrCat("bodies[", i, "]");
    ByteReader in(body_sections[i]->bytes);
    SimBody body;
    body.id = in.I32(field + ".id");
    body.name = in.String(field + ".name");
    body.collision.enabled = in.Bool(field + ".collision.enabled");
    body.collision.self_collision = in.Bool(field + ".collision.self_collision");
    RETURN_IF_ERROR(in.status());
    const int32_t previous = s.bodies_.empty() ? -1 : s.bodies_.back().id;
    if (body.id <= previous || body.id >= s.next_body_id_) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".id: id ", body.id,
                                                     " must be ascending and below next_body_id ",
                                                     s.next_body_id_));
    }
    if (!body.name.empty() && !names.insert(body.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".name: '", body.name, "' is used by an earlier body"));
    }
    ASSIGN_OR_RETURN(body.body, ReadBody(&in, field, backend));
    in.ExpectEnd(field);
    RETURN_IF_ERROR(in.status());
    body.surface_vertices = SurfaceVertices(*body.body);
    s.bodies_.push_back(std::move(body));
  }
  if (constraints_section != nullptr) {
    ByteReader in(constraints_section->bytes);
    ASSIGN_OR_RETURN(s.constraints_, ReadConstraints(&in, s.bodies_));
    in.ExpectEnd("constraints");
    RETURN_IF_ERROR(in.status());
  }
  std::vector<TrackedPair> pairs;
  if (pairs_section != nullptr) {
    ByteReader in(pairs_section->bytes);
    ASSIGN_OR_RETURN(pairs, ReadTrackedPairs(&in, s.bodies_));
    in.ExpectEnd("tracked_pairs");
    RETURN_IF_ERROR(in.status());
  }
  std::vector<PlaneContact> plane_contacts;
  if (plane_contacts_section != nullptr) {
    ByteReader in(plane_contacts_section->bytes);
    ASSIGN_OR_RETURN(plane_contacts, ReadPlaneContacts(&in, s.bodies_, s.planes_));
    in.ExpectEnd("plane_contacts");
    RETURN_IF_ERROR(in.status());
  }
  if (robots_section != nullptr && s.settings_.pipeline != PipelineKind::kRigidLcp) {
    return absl::InvalidArgumentError("sections: RBOT (robots) without the rigid_lcp pipeline");
  }
  if (rigid_lcp_warm_section != nullptr && s.settings_.pipeline != PipelineKind::kRigidLcp) {
    return absl::InvalidArgumentError(
        "sections: RLWS (the rigid_lcp warm start) without the rigid_lcp pipeline");
  }
  std::set<int32_t> link_bodies;
  if (robots_section != nullptr) {
    ByteReader in(robots_section->bytes);
    ASSIGN_OR_RETURN(ReadRobotsResult robots, ReadRobots(&in, s.bodies_));
    in.ExpectEnd("robots");
    RETURN_IF_ERROR(in.status());
    s.robots_ = std::move(robots.robots);
    s.next_robot_id_ = robots.next_robot_id;
    for (const WorldRobot& robot : s.robots_) {
      link_bodies.insert(robot.link_body_ids.begin(), robot.link_body_ids.end());
    }
  }
  if (s.settings_.pipeline == PipelineKind::kRigidLcp) {
    std::unique_ptr<Pipeline> pipeline = MakePipeline(s.settings_, backend);
    for (size_t i = 0; i < s.bodies_.size(); ++i) {
      // A link collides as its robot's polytopes, checked when the robot was read.
      if (link_bodies.contains(s.bodies_[i].id)) continue;
      if (absl::Status check = pipeline->CheckBody(*s.bodies_[i].body); !check.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("bodies[", i, "]: ", check.message()));
      }
    }
    if (!s.constraints_.empty()) {
      return absl::InvalidArgumentError(
          "constraints: the rigid_lcp pipeline takes no World constraints");
    }
    if (rigid_lcp_warm_section != nullptr) {
      ByteReader in(rigid_lcp_warm_section->bytes);
      ASSIGN_OR_RETURN(PolytopeWarmStart warm, ReadRigidLcpWarmStart(&in));
      in.ExpectEnd("rigid_lcp_warm_start");
      RETURN_IF_ERROR(in.status());
      auto* rigid_lcp_pipeline = dynamic_cast<RigidLcpPipeline*>(pipeline.get());
      if (rigid_lcp_pipeline == nullptr) {
        return absl::InternalError("rigid_lcp_warm_start: the pipeline is not rigid_lcp's");
      }
      rigid_lcp_pipeline->RestoreWarmStart(std::move(warm));
    }
    s.pipeline_ = std::move(pipeline);
    return s;
  }
  if (s.settings_.pipeline == PipelineKind::kLocalGlobal) {
    auto pipeline = std::make_unique<LocalGlobalPipeline>(s.settings_, backend);
    for (size_t i = 0; i < s.bodies_.size(); ++i) {
      if (absl::Status check = pipeline->CheckBody(*s.bodies_[i].body); !check.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("bodies[", i, "]: ", check.message()));
      }
    }
    // The constraints the pipeline accepts (their holds are already set on the bodies).
    for (const Constraint& c : s.constraints_.constraints()) {
      auto find = [&](int32_t id) -> const SimBody* {
        for (const SimBody& body : s.bodies_) {
          if (body.id == id) return &body;
        }
        return nullptr;
      };
      const SimBody* body = find(c.spec.body_id);
      if (body == nullptr) continue;  // the constraints codec has checked the ids
      const SimBody* target =
          c.spec.kind == ConstraintKind::kAttachment ? find(c.spec.target_body_id) : nullptr;
      if (absl::Status check = pipeline->CheckConstraint(c.spec, *body, target); !check.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("constraints (id ", c.id, "): ", check.message()));
      }
    }
    if (group_contacts_section != nullptr) {
      ByteReader in(group_contacts_section->bytes);
      ASSIGN_OR_RETURN(GroupContactMemory memory, ReadGroupContactMemory(&in, s.bodies_));
      in.ExpectEnd("group_contacts");
      RETURN_IF_ERROR(in.status());
      RETURN_IF_ERROR(pipeline->RestoreGroupMemory(std::move(memory)));
    }
    s.pipeline_ = std::move(pipeline);
    return s;
  }
  std::unique_ptr<PenaltyPipeline> pipeline = MakePenaltyPipeline(s.settings_);
  for (size_t i = 0; i < s.bodies_.size(); ++i) {
    if (absl::Status check = pipeline->CheckBody(*s.bodies_[i].body); !check.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("bodies[", i, "]: ", check.message()));
    }
  }
  RETURN_IF_ERROR(pipeline->RestoreContacts(std::move(pairs), std::move(plane_contacts)));
  s.pipeline_ = std::move(pipeline);
  return s;
}

}  // namespace internal

uint32_t WorldFormatVersion() { return serialization::kFormatVersion; }

absl::StatusOr<std::string> SerializeWorldSnapshot(const WorldSnapshot& snapshot) {
  return internal::WorldSnapshotAccess::Write(snapshot);
}

absl::StatusOr<WorldSnapshot> DeserializeWorldSnapshot(std::string_view bytes,
                                                       std::shared_ptr<Backend> backend) {
  if (backend == nullptr) return absl::InvalidArgumentError("backend: must not be null");
  ASSIGN_OR_RETURN(const std::vector<Section> sections, SplitSections(bytes));
  return internal::WorldSnapshotAccess::Read(sections, backend);
}

absl::StatusOr<WorldSnapshot> DeserializeWorldSnapshot(std::string_view bytes) {
  return DeserializeWorldSnapshot(bytes, std::make_shared<CpuBackend>());
}

absl::StatusOr<std::string> SerializeWorld(const World& world) {
  ASSIGN_OR_RETURN(const WorldSnapshot snapshot, world.Snapshot());
  return SerializeWorldSnapshot(snapshot);
}

absl::StatusOr<World> DeserializeWorld(std::string_view bytes, std::shared_ptr<Backend> backend) {
  if (backend == nullptr) return absl::InvalidArgumentError("backend: must not be null");
  ASSIGN_OR_RETURN(const WorldSnapshot snapshot, DeserializeWorldSnapshot(bytes, backend));
  ASSIGN_OR_RETURN(World world, World::Create(snapshot.settings(), std::move(backend)));
  RETURN_IF_ERROR(world.Restore(snapshot));
  return world;
}

absl::StatusOr<World> DeserializeWorld(std::string_view bytes) {
  return DeserializeWorld(bytes, std::make_shared<CpuBackend>());
}

}  // namespace contactsim::core
