// The browser viewer's wire protocol (docs/viewer.md): compact little-endian binary messages the
// server sends on a viewer's WebSocket, and the one text message (hello) a browser sends first.
//
// Server -> browser, each a binary WebSocket message that starts with a 4-byte header
// (u8 type, u8 protocol version, u16 flags):
//   kTopology  the bodies' surfaces once per topology version: per body id, kind, name, how its
//              frames place it (a rigid pose, or every vertex) and its reference vertices and
//              surface triangles; then (flag kTopologyPlanes) the session's static ground planes
//              {x : n . x = h}, so the page draws the planes the contacts are with. A rigid body's
//              vertices in a frame are
//                p_W = R(q) p_ref + t                                                   (1)
//              with p_ref its reference vertices (its world vertices in the first frame of that
//              topology version) and (t, q) the frame's pose; (1) is exact for a rigid motion.
//   kFrame     one state frame: seq, time, step count, the session's state (and why it failed),
//              diagnostics, per body a pose (t [m], q (w, x, y, z)) or every vertex as float32,
//              contact points with normal and impulse vectors [N s], per-body totals, and the
//              frames this viewer skipped since its previous one (coalesced). A kFrame refers to
//              the newest kTopology the viewer received; a viewer's first frame, and the first
//              after a topology change, follow their kTopology at once (flag kKeyframe), so a late
//              joiner needs nothing older.
// Arrays start at 4-byte offsets so a browser can view them as Float32Array / Int32Array.
//
// The pose is recovered from three anchor vertices a0, a1, a2 chosen once per topology (a1 the
// vertex farthest from a0, a2 the farthest from the line a0 a1): with the orthonormal frame
// E(a) = [e1 e2 e1 x e2], e1 = (a1 - a0) / |a1 - a0|, e2 the normalized part of a2 - a0
// orthogonal to e1, R = E(cur) E(ref)^T and t = a0_cur - R a0_ref. Bodies without three
// non-collinear vertices are sent as vertices.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/sim/sim_body.h"
#include "server/session/frame.h"

namespace contactsim::server::viewer {

inline constexpr uint8_t kProtocolVersion = 1;

enum class MessageType : uint8_t { kTopology = 1, kFrame = 2 };
inline constexpr uint16_t kFlagKeyframe = 1;  // kFrame: the kTopology before it is current
// kTopology: a ground-plane section follows the bodies (always set by this server; a decoder
// treats a message without it as "planes unknown").
inline constexpr uint16_t kFlagTopologyPlanes = 1;
inline constexpr int kMaxPlanesPerTopology = 256;  // the rest are not sent

// Body kinds on the wire.
enum class WireBodyKind : uint8_t {
  kRigidDynamic = 0,
  kRigidStatic = 1,
  kRigidKinematic = 2,
  kCloth = 3,  // mass-spring cloth / shell
  kFem = 4,    // corotational FEM
  kHyperelastic = 5,
};
// How a body's frames place it.
enum class Placement : uint8_t { kPose = 0, kVertices = 1 };

enum class WireSessionState : uint8_t { kActive = 0, kFailed = 1 };

// Limits of what one frame carries to a browser (the rest is counted, not sent).
inline constexpr int kMaxContactsPerFrame = 4096;
inline constexpr int kMaxMessageChars = 1024;  // failure / divergence messages
inline constexpr int kMaxNameBytes = 256;

// What the server keeps per topology version: the reference vertices and anchors of every body,
// and the encoded kTopology message.
struct EncodedTopology {
  struct Body {
    int32_t body_id = 0;
    Placement placement = Placement::kVertices;
    int anchors[3] = {0, 0, 0};
    Eigen::Matrix3d anchor_frame_ref =
        Eigen::Matrix3d::Identity();  // anchor frame of the reference
    Eigen::Vector3d a0_ref = Eigen::Vector3d::Zero();
  };
  int64_t version = 0;
  std::vector<Body> bodies;  // the topology's order (ascending id)
  std::string message;       // kTopology bytes
};

// Builds the kTopology message of `frame.topology`, with `frame`'s positions as the reference,
// and the session's ground planes. A body of the topology missing from the frame gets no
// vertices (and is sent as vertices).
std::shared_ptr<const EncodedTopology> EncodeTopology(
    const Frame& frame, std::span<const core::GroundPlane> ground_planes = {});

// The session's ground planes, asked for only when a topology is encoded (they change only with
// a Restore, which also changes the topology version).
using GroundPlanesFn = std::function<std::vector<core::GroundPlane>()>;

// The per-viewer parts of a kFrame, patched into a shared encoding.
struct FrameHeaderPatch {
  bool keyframe = false;
  int64_t coalesced = 0;
};

struct SessionStatus {
  WireSessionState state = WireSessionState::kActive;
  std::string message;  // why it failed
};

// Encodes `frame` against `topology` (whose version must be the frame's). The coalesced count is
// 0 and the keyframe flag clear; PatchFrame sets them in a copy.
std::string EncodeFrame(const Frame& frame, const EncodedTopology& topology,
                        const SessionStatus& status);
void PatchFrame(const FrameHeaderPatch& patch, std::string* message);

// Byte offsets of the kFrame header fields (the browser's decoder uses the same).
inline constexpr size_t kFrameSeqOffset = 8;
inline constexpr size_t kFrameCoalescedOffset = 40;

// Per session: the encodings viewers share (the newest topology, the latest frames), so that
// N viewers of one frame encode it once.
class EncodingCache {
 public:
  explicit EncodingCache(GroundPlanesFn ground_planes = nullptr)
      : ground_planes_(std::move(ground_planes)) {}
  // The topology encoding for `frame`'s topology version (built from `frame` the first time).
  std::shared_ptr<const EncodedTopology> Topology(const Frame& frame);
  // The kFrame of `frame` (coalesced 0, keyframe clear).
  std::shared_ptr<const std::string> FrameMessage(const Frame& frame, const SessionStatus& status);

 private:
  std::shared_ptr<const EncodedTopology> Encode(const Frame& frame) const;

  static constexpr size_t kFramesKept = 4;
  const GroundPlanesFn ground_planes_;
  std::mutex mu_;
  std::shared_ptr<const EncodedTopology> topology_;
  struct Entry {
    int64_t seq = 0;
    uint8_t state = 0;
    std::shared_ptr<const std::string> message;
  };
  std::vector<Entry> frames_;  // up to kFramesKept, most recent last
};

// The browser's first message: "hello 1 <session id> <viewer token> <from seq> <max rate hz>",
// at most kMaxHelloBytes, printable ASCII, fields separated by one space.
inline constexpr size_t kMaxHelloBytes = 512;
struct Hello {
  std::string session_id;
  std::string token;
  int64_t from_seq = 0;      // resume after this seq's predecessor; 0: the newest frame
  double max_rate_hz = 0.0;  // 0: the server's limit
};
// InvalidArgument saying what is wrong (never echoing the token).
absl::StatusOr<Hello> ParseHello(std::string_view text);

// The WebSocket URL's query, "/ws?session=ID": the page names its session there too, so that a
// gateway in front of several replicas can route the socket to the one that owns the session
// (deploy/gateway/make_nginx_conf.py). Returns the session id, percent-decoded, or "" for an empty
// query (a direct connection that names the session only in its hello). Anything else (another
// parameter, a second session, a bad escape, an id that is not 1 to 64 printable non-space ASCII
// characters, as in the hello) is InvalidArgument saying what is wrong. The id is not secret;
// the token never goes in the URL.
inline constexpr size_t kMaxViewerQueryBytes = 256;
absl::StatusOr<std::string> ParseViewerQuery(std::string_view query);

}  // namespace contactsim::server::viewer
