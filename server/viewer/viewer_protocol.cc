#include "server/viewer/viewer_protocol.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include "Eigen/Geometry"
#include "absl/strings/str_cat.h"

namespace contactsim::server::viewer {
namespace {

static_assert(std::endian::native == std::endian::little, "the wire format is little-endian");

class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}
  template <typename T>
  void Put(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_->append(bytes, sizeof(T));
  }
  void U8(uint8_t v) { Put(v); }
  void U16(uint16_t v) { Put(v); }
  void U32(uint32_t v) { Put(v); }
  void I32(int32_t v) { Put(v); }
  void I64(int64_t v) { Put(v); }
  void F32(double v) { Put(static_cast<float>(v)); }
  void F64(double v) { Put(v); }
  void Vec(const Eigen::Vector3d& v) {
    F32(v.x());
    F32(v.y());
    F32(v.z());
  }
  void Bytes(std::string_view s) { out_->append(s.data(), s.size()); }
  void Align4() {
    while (out_->size() % 4 != 0) out_->push_back('\0');
  }
  size_t size() const { return out_->size(); }

 private:
  std::string* out_;
};

WireBodyKind KindOf(const core::BodyTopology& body) {
  switch (body.type) {
    case core::BodyType::kRigid:
      switch (body.rigid_kind) {
        case core::RigidBodyKind::kStatic:
          return WireBodyKind::kRigidStatic;
        case core::RigidBodyKind::kKinematic:
          return WireBodyKind::kRigidKinematic;
        case core::RigidBodyKind::kDynamic:
          return WireBodyKind::kRigidDynamic;
      }
      return WireBodyKind::kRigidDynamic;
    case core::BodyType::kMassSpringCloth:
      return WireBodyKind::kCloth;
    case core::BodyType::kCorotationalFem:
      return WireBodyKind::kFem;
    case core::BodyType::kHyperelastic:
      return WireBodyKind::kHyperelastic;
  }
  return WireBodyKind::kCloth;
}

// The anchor frame E = [e1 e2 e1 x e2] of three points; false when they are (nearly) collinear.
bool AnchorFrame(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& a2,
                 Eigen::Matrix3d* frame) {
  const Eigen::Vector3d d1 = a1 - a0;
  const double n1 = d1.norm();
  if (!(n1 > 0.0) || !std::isfinite(n1)) return false;
  const Eigen::Vector3d e1 = d1 / n1;
  Eigen::Vector3d d2 = a2 - a0;
  d2 -= e1.dot(d2) * e1;
  const double n2 = d2.norm();
  if (!(n2 > 1e-6 * n1) || !std::isfinite(n2)) return false;
  const Eigen::Vector3d e2 = d2 / n2;
  frame->col(0) = e1;
  frame->col(1) = e2;
  frame->col(2) = e1.cross(e2);
  return true;
}

// Chooses anchors on `p` (n x 3); false when the body has no three non-collinear vertices.
bool ChooseAnchors(const core::Points3& p, EncodedTopology::Body* body) {
  const Eigen::Index n = p.rows();
  if (n < 3) return false;
  const Eigen::Vector3d a0 = p.row(0).transpose();
  Eigen::Index i1 = 0;
  double best = 0.0;
  for (Eigen::Index i = 1; i < n; ++i) {
    const double d = (p.row(i).transpose() - a0).squaredNorm();
    if (d > best) best = d, i1 = i;
  }
  if (!(best > 0.0)) return false;
  const Eigen::Vector3d e1 = (p.row(i1).transpose() - a0).normalized();
  Eigen::Index i2 = 0;
  best = 0.0;
  for (Eigen::Index i = 1; i < n; ++i) {
    Eigen::Vector3d d = p.row(i).transpose() - a0;
    d -= e1.dot(d) * e1;
    const double s = d.squaredNorm();
    if (s > best) best = s, i2 = i;
  }
  Eigen::Matrix3d anchor_frame;
  if (!AnchorFrame(a0, p.row(i1).transpose(), p.row(i2).transpose(), &anchor_frame)) return false;
  body->anchors[0] = 0;
  body->anchors[1] = static_cast<int>(i1);
  body->anchors[2] = static_cast<int>(i2);
  body->anchor_frame_ref = anchor_frame;
  body->a0_ref = a0;
  return true;
}

const std::vector<core::BodyStateCopy>& BodiesOf(const Frame& frame) {
  static const std::vector<core::BodyStateCopy> kNoBodies;
  return frame.state != nullptr ? frame.state->bodies : kNoBodies;
}

const core::BodyStateCopy* FindBody(const Frame& frame, int32_t id) {
  const std::vector<core::BodyStateCopy>& bodies = BodiesOf(frame);
  auto it = std::lower_bound(bodies.begin(), bodies.end(), id,
                             [](const core::BodyStateCopy& b, int32_t v) { return b.body_id < v; });
  return it != bodies.end() && it->body_id == id ? &*it : nullptr;
}

const core::ContactReport& ContactsOf(const Frame& frame) {
  static const core::ContactReport kNoContacts;
  return frame.contacts != nullptr ? *frame.contacts : kNoContacts;
}

std::string_view Clip(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  s = s.substr(0, max_bytes);
  // Do not cut a UTF-8 sequence in half.
  while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.remove_suffix(1);
  if (!s.empty() && (static_cast<unsigned char>(s.back()) & 0x80) != 0) s.remove_suffix(1);
  return s;
}

}  // namespace

std::shared_ptr<const EncodedTopology> EncodeTopology(
    const Frame& frame, std::span<const core::GroundPlane> ground_planes) {
  auto encoded = std::make_shared<EncodedTopology>();
  const Topology empty;
  const Topology& topology = frame.topology != nullptr ? *frame.topology : empty;
  encoded->version = topology.version;
  std::string& out = encoded->message;
  Writer w(&out);
  w.U8(static_cast<uint8_t>(MessageType::kTopology));
  w.U8(kProtocolVersion);
  w.U16(kFlagTopologyPlanes);
  w.U32(static_cast<uint32_t>(topology.bodies.size()));
  w.I64(topology.version);
  for (const core::BodyTopology& body : topology.bodies) {
    EncodedTopology::Body entry;
    entry.body_id = body.body_id;
    const core::BodyStateCopy* state = FindBody(frame, body.body_id);
    const bool rigid = body.type == core::BodyType::kRigid;
    if (rigid && state != nullptr && ChooseAnchors(state->positions_m, &entry)) {
      entry.placement = Placement::kPose;
    }
    const std::string_view name = Clip(body.name, kMaxNameBytes);
    w.I32(body.body_id);
    w.U8(static_cast<uint8_t>(KindOf(body)));
    w.U8(static_cast<uint8_t>(entry.placement));
    w.U16(static_cast<uint16_t>(name.size()));
    w.Bytes(name);
    w.Align4();
    const Eigen::Index n = state != nullptr ? state->positions_m.rows() : 0;
    // Triangles that name a vertex the frame does not have are dropped (never sent).
    std::vector<int32_t> triangles;
    triangles.reserve(static_cast<size_t>(body.faces.rows()) * 3);
    for (Eigen::Index f = 0; f < body.faces.rows(); ++f) {
      const auto& t = body.faces.row(f);
      if (t.minCoeff() < 0 || t.maxCoeff() >= n) continue;
      triangles.insert(triangles.end(), {t(0), t(1), t(2)});
    }
    w.U32(static_cast<uint32_t>(n));
    w.U32(static_cast<uint32_t>(triangles.size() / 3));
    for (Eigen::Index i = 0; i < n; ++i) w.Vec(state->positions_m.row(i).transpose());
    for (int32_t index : triangles) w.I32(index);
    encoded->bodies.push_back(entry);
  }
  // Planes: id, unit normal n, offset h (n . x = h); float32 like the vertices.
  const size_t planes = std::min(ground_planes.size(), size_t{kMaxPlanesPerTopology});
  w.U32(static_cast<uint32_t>(planes));
  for (size_t i = 0; i < planes; ++i) {
    w.I32(ground_planes[i].id);
    w.Vec(ground_planes[i].normal);
    w.F32(ground_planes[i].offset_m);
  }
  return encoded;
}

std::string EncodeFrame(const Frame& frame, const EncodedTopology& topology,
                        const SessionStatus& status) {
  std::string out;
  size_t vertices = 0;
  const core::ContactReport& report = ContactsOf(frame);
  for (const core::BodyStateCopy& b : BodiesOf(frame)) {
    vertices += static_cast<size_t>(b.positions_m.rows());
  }
  const size_t n_contacts =
      std::min(report.contacts.size(), static_cast<size_t>(kMaxContactsPerFrame));
  out.reserve(128 + 12 * vertices + 40 * BodiesOf(frame).size() + 56 * n_contacts +
              40 * report.body_totals.size() + kMaxMessageChars);
  Writer w(&out);
  w.U8(static_cast<uint8_t>(MessageType::kFrame));
  w.U8(kProtocolVersion);
  w.U16(0);  // flags (PatchFrame)
  w.U8(static_cast<uint8_t>(status.state));
  w.U8(0);
  w.U16(0);
  w.I64(frame.seq);         // 8
  w.F64(frame.time_s);      // 16
  w.I64(frame.step_count);  // 24
  w.I64(topology.version);  // 32
  w.I64(0);                 // 40: coalesced (PatchFrame)
  const core::StepDiagnostics& d = frame.diagnostics;
  w.F64(d.kinetic_energy_j);                             // 48
  w.F64(d.potential_energy_j);                           // 56
  w.F64(d.total_energy_j);                               // 64
  w.F64(d.max_penetration_depth_m);                      // 72
  w.I32(d.active_pairs);                                 // 80
  w.I32(d.plane_contacts);                               // 84
  w.I32(d.stick_contacts);                               // 88
  w.I32(d.slip_contacts);                                // 92
  w.U32(static_cast<uint32_t>(d.divergence));            // 96
  w.U32(static_cast<uint32_t>(report.contacts.size()));  // 100: contacts in all
  w.U32(static_cast<uint32_t>(topology.bodies.size()));  // 104
  for (const EncodedTopology::Body& entry : topology.bodies) {
    const core::BodyStateCopy* state = FindBody(frame, entry.body_id);
    const Eigen::Index n = state != nullptr ? state->positions_m.rows() : 0;
    w.I32(entry.body_id);
    Eigen::Matrix3d anchor_frame;
    if (entry.placement == Placement::kPose && state != nullptr &&
        std::max({entry.anchors[0], entry.anchors[1], entry.anchors[2]}) < n &&
        AnchorFrame(state->positions_m.row(entry.anchors[0]).transpose(),
                    state->positions_m.row(entry.anchors[1]).transpose(),
                    state->positions_m.row(entry.anchors[2]).transpose(), &anchor_frame)) {
      const Eigen::Matrix3d rotation = anchor_frame * entry.anchor_frame_ref.transpose();
      const Eigen::Vector3d t =
          state->positions_m.row(entry.anchors[0]).transpose() - rotation * entry.a0_ref;
      Eigen::Quaterniond q(rotation);
      q.normalize();
      w.U8(static_cast<uint8_t>(Placement::kPose));
      w.U8(0);
      w.U16(0);
      w.Vec(t);
      w.F32(q.w());
      w.F32(q.x());
      w.F32(q.y());
      w.F32(q.z());
    } else {
      // Vertices (also a posed body whose anchors degenerated, e.g. NaN after a divergence).
      w.U8(static_cast<uint8_t>(Placement::kVertices));
      w.U8(0);
      w.U16(0);
      w.U32(static_cast<uint32_t>(n));
      for (Eigen::Index i = 0; i < n; ++i) w.Vec(state->positions_m.row(i).transpose());
    }
  }
  // Contacts, struct of arrays.
  const auto& contacts = report.contacts;
  w.U32(static_cast<uint32_t>(n_contacts));
  for (size_t i = 0; i < n_contacts; ++i) {
    w.I32(contacts[i].body_a);
    w.I32(contacts[i].body_b);
  }
  for (size_t i = 0; i < n_contacts; ++i) w.Vec(contacts[i].p_WC);
  for (size_t i = 0; i < n_contacts; ++i) w.Vec(contacts[i].normal_W);
  for (size_t i = 0; i < n_contacts; ++i) w.Vec(contacts[i].normal_impulse_n_s);
  for (size_t i = 0; i < n_contacts; ++i) w.Vec(contacts[i].friction_impulse_n_s);
  // Per-body totals.
  const auto& totals = report.body_totals;
  w.U32(static_cast<uint32_t>(totals.size()));
  for (const auto& t : totals) w.I32(t.body_id);
  for (const auto& t : totals) w.I32(t.contact_count);
  for (const auto& t : totals) w.Vec(t.impulse_n_s);
  for (const auto& t : totals) w.Vec(t.angular_impulse_n_m_s);
  // Why the session failed, else the step's divergence message (usually empty).
  const std::string_view message =
      Clip(!status.message.empty() ? std::string_view(status.message)
                                   : std::string_view(d.divergence_message),
           kMaxMessageChars);
  w.U32(static_cast<uint32_t>(message.size()));
  w.Bytes(message);
  w.Align4();
  return out;
}

void PatchFrame(const FrameHeaderPatch& patch, std::string* message) {
  if (message->size() < kFrameCoalescedOffset + 8) return;
  const uint16_t flags = patch.keyframe ? kFlagKeyframe : 0;
  std::memcpy(message->data() + 2, &flags, sizeof(flags));
  std::memcpy(message->data() + kFrameCoalescedOffset, &patch.coalesced, sizeof(int64_t));
}

std::shared_ptr<const EncodedTopology> EncodingCache::Topology(const Frame& frame) {
  const int64_t version = frame.topology != nullptr ? frame.topology->version : 0;
  std::lock_guard lock(mu_);
  if (topology_ == nullptr || topology_->version != version) {
    // Versions only grow; a viewer replaying an older frame than the cached topology gets the
    // older topology encoded for it alone.
    if (topology_ != nullptr && version < topology_->version) return Encode(frame);
    topology_ = Encode(frame);
    frames_.clear();
  }
  return topology_;
}

std::shared_ptr<const EncodedTopology> EncodingCache::Encode(const Frame& frame) const {
  if (ground_planes_ == nullptr) return EncodeTopology(frame);
  const std::vector<core::GroundPlane> planes = ground_planes_();
  return EncodeTopology(frame, planes);
}

std::shared_ptr<const std::string> EncodingCache::FrameMessage(const Frame& frame,
                                                               const SessionStatus& status) {
  const std::shared_ptr<const EncodedTopology> topology = Topology(frame);
  const uint8_t state = static_cast<uint8_t>(status.state);
  {
    std::lock_guard lock(mu_);
    for (const Entry& e : frames_) {
      if (e.seq == frame.seq && e.state == state && topology == topology_) return e.message;
    }
  }
  auto message = std::make_shared<const std::string>(EncodeFrame(frame, *topology, status));
  std::lock_guard lock(mu_);
  if (topology == topology_) {
    frames_.push_back({frame.seq, state, message});
    if (frames_.size() > kFramesKept) frames_.erase(frames_.begin());
  }
  return message;
}

absl::StatusOr<Hello> ParseHello(std::string_view text) {
  if (text.size() > kMaxHelloBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("hello: longer than ", kMaxHelloBytes, " bytes"));
  }
  for (char c : text) {
    if (c < 0x20 || c > 0x7e) {
      return absl::InvalidArgumentError("hello: only printable ASCII is allowed");
    }
  }
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t space = text.find(' ', start);
    parts.push_back(text.substr(start, space == std::string_view::npos ? space : space - start));
    if (space == std::string_view::npos || parts.size() > 6) break;
    start = space + 1;
  }
  if (parts.size() != 6 || parts[0] != "hello") {
    return absl::InvalidArgumentError(
        "hello: expected 'hello 1 SESSION_ID TOKEN FROM_SEQ MAX_RATE_HZ'");
  }
  if (parts[1] != "1") {
    return absl::InvalidArgumentError(absl::StrCat(
        "hello: protocol version ", std::string(parts[1].substr(0, 8)), " is not supported (1)"));
  }
  Hello hello;
  if (parts[2].empty() || parts[2].size() > 64) {
    return absl::InvalidArgumentError("hello: session id must be 1 to 64 characters");
  }
  if (parts[3].empty() || parts[3].size() > 256) {
    return absl::InvalidArgumentError("hello: token must be 1 to 256 characters");
  }
  hello.session_id = std::string(parts[2]);
  hello.token = std::string(parts[3]);
  const std::string_view seq = parts[4];
  auto [end, error] = std::from_chars(seq.data(), seq.data() + seq.size(), hello.from_seq);
  if (error != std::errc() || end != seq.data() + seq.size() || hello.from_seq < 0) {
    return absl::InvalidArgumentError("hello: from_seq must be an integer >= 0");
  }
  const std::string_view rate = parts[5];
  int rate_hz = 0;
  auto [rend, rerror] = std::from_chars(rate.data(), rate.data() + rate.size(), rate_hz);
  if (rerror != std::errc() || rend != rate.data() + rate.size() || rate_hz < 0 || rate_hz > 1000) {
    return absl::InvalidArgumentError("hello: max_rate_hz must be an integer in [0, 1000]");
  }
  hello.max_rate_hz = rate_hz;
  return hello;
}

absl::StatusOr<std::string> ParseViewerQuery(std::string_view query) {
  if (query.empty()) return std::string();
  if (query.size() > kMaxViewerQueryBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("url: the query is longer than ", kMaxViewerQueryBytes, " bytes"));
  }
  constexpr std::string_view kKey = "session=";
  if (!query.starts_with(kKey) || query.find('&') != std::string_view::npos) {
    return absl::InvalidArgumentError("url: the only query the viewer takes is ?session=ID");
  }
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string id;
  const std::string_view value = query.substr(kKey.size());
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (c == '%') {
      const int high = i + 2 < value.size() ? hex(value[i + 1]) : -1;
      const int low = i + 2 < value.size() ? hex(value[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return absl::InvalidArgumentError("url: a bad %-escape in ?session=");
      }
      c = static_cast<char>(high * 16 + low);
      i += 2;
    } else if (c == '+') {
      c = ' ';  // form encoding's space: refused below like any space
    }
    if (c <= 0x20 || c > 0x7e) {
      return absl::InvalidArgumentError(
          "url: ?session= must be printable ASCII without spaces, as in the hello");
    }
    id.push_back(c);
  }
  if (id.empty() || id.size() > 64) {
    return absl::InvalidArgumentError("url: ?session= must be 1 to 64 characters");
  }
  return id;
}

}  // namespace contactsim::server::viewer
