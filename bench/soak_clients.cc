#include "bench/soak_clients.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "clients/cpp/box_mesh.h"
#include "scenes/requests/box_scene_request.h"

namespace contactsim::bench::soak {
namespace {

using Clock = std::chrono::steady_clock;

absl::Status FromGrpc(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

v1::BodySpec Box(double z_m) {
  v1::BodySpec body;
  body.set_name("box");
  body.set_kind(v1::BODY_KIND_RIGID);
  v1::BoxShape* box = body.mutable_primitive()->mutable_box();
  box->mutable_half_extents_m()->set_x(0.1);
  box->mutable_half_extents_m()->set_y(0.1);
  box->mutable_half_extents_m()->set_z(0.1);
  body.mutable_rigid()->set_density_kg_per_m3(125.0);
  body.mutable_pose()->mutable_position_m()->set_z(z_m);
  return body;
}

// A 30 x 30 cell cloth falling freely (its session has no plane: explicit cloth against the
// plane is not stable at the box scene's dt and stiffness): Steps long enough to cancel.
v1::BodySpec Cloth() {
  v1::BodySpec body;
  body.set_name("cloth");
  body.set_kind(v1::BODY_KIND_CLOTH);
  v1::ClothGridShape* grid = body.mutable_primitive()->mutable_cloth_grid();
  grid->set_size_x_m(1.0);
  grid->set_size_y_m(1.0);
  grid->set_cells_x(30);
  grid->set_cells_y(30);
  body.mutable_cloth()->set_area_density_kg_per_m2(1.0);
  body.mutable_cloth()->set_stretch_stiffness_n_per_m(10.0);
  body.set_self_collision_disabled(true);
  return body;
}

class Client {
 public:
  explicit Client(const ClientSetup& setup)
      : setup_(setup), rng_(1000u + static_cast<uint32_t>(setup.index)) {}

  void Run() {
    switch (setup_.kind) {
      case Kind::kController:
        return RunController();
      case Kind::kViewer:
        return RunViewer();
      case Kind::kUploader:
        return RunUploader();
      case Kind::kSnapshotter:
        return RunSnapshotter();
      case Kind::kCanceller:
        return RunCanceller();
      case Kind::kBadRequests:
        return RunBadRequests();
    }
  }

 private:
  bool stopped() const { return setup_.stop->load(); }
  int Random(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  v1::Simulation::Stub& stub() const { return setup_.connection.stub(); }
  void Prepare(grpc::ClientContext& context, const std::string& session_id,
               const std::string& token, bool deadline = true) const {
    setup_.connection.PrepareSessionContext(context, session_id, token, deadline);
  }
  void Record(std::string_view what, const absl::Status& status, bool expected) {
    setup_.tally->Record(setup_.kind, what, status, expected);
  }
  // Expected when the code is one of `codes`.
  void RecordCode(std::string_view what, const absl::Status& status,
                  std::initializer_list<absl::StatusCode> codes) {
    bool expected = false;
    for (absl::StatusCode code : codes) expected = expected || status.code() == code;
    Record(what, status, expected);
  }
  const WatchedSession& Watched() const {
    return setup_.watched[static_cast<size_t>(setup_.index) % setup_.watched.size()];
  }

  // A session of its own (box scene, two boxes); nullopt (recorded) when refused.
  std::optional<WatchedSession> OwnSession() {
    absl::StatusOr<WatchedSession> session = CreateWatchedSession(setup_.connection);
    Record("CreateSession + AddBody", session.status(), session.ok());
    if (!session.ok()) return std::nullopt;
    return *session;
  }

  int64_t StepCountOf(const WatchedSession& session) {
    auto got = setup_.connection.Session(session.id, session.viewer_token).GetSession();
    Record("GetSession", got.status(), got.ok());
    return got.ok() ? got->summary().step_count() : -1;
  }

  // Steps its own watched session with expected_step_count, as a retrying controller does; a
  // reply whose step_count is not the one asked for is unexpected.
  void RunController() {
    const WatchedSession& session =
        setup_.watched[static_cast<size_t>(setup_.index) % setup_.watched.size()];
    int64_t count = StepCountOf(session);
    while (!stopped()) {
      v1::StepRequest request;
      request.set_session_id(session.id);
      request.set_n_steps(Random(1, 10));
      request.set_expected_step_count(count);
      v1::StepResponse response;
      grpc::ClientContext context;
      Prepare(context, session.id, session.controller_token);
      const absl::Status status = FromGrpc(stub().Step(&context, request, &response));
      if (status.ok() && response.step_count() != count + request.n_steps()) {
        Record("Step: step_count",
               absl::InternalError(absl::StrCat("step_count ", response.step_count(), " after ",
                                                count, " + ", request.n_steps())),
               false);
      } else {
        Record("Step", status, status.ok());
      }
      count = status.ok() ? response.step_count() : StepCountOf(session);
    }
  }

  // Watches a controller's session for a few frames at a time, at a random rate and precision.
  void RunViewer() {
    const WatchedSession& session = Watched();
    const client::SessionHandle viewer =
        setup_.connection.Session(session.id, session.viewer_token);
    constexpr double kRates[] = {0.0, 30.0, 60.0};
    while (!stopped()) {
      v1::StreamStateRequest request;
      request.set_max_rate_hz(kRates[Random(0, 2)]);
      request.set_include_contacts(Random(0, 1) == 1);
      request.set_include_velocities(Random(0, 1) == 1);
      request.set_precision(Random(0, 1) == 1 ? v1::PRECISION_FLOAT64 : v1::PRECISION_FLOAT32);
      const int wanted = Random(5, 60);
      int frames = 0;
      const absl::Status status = viewer.StreamState(
          request, [&](const v1::StateFrame&) { return ++frames < wanted && !stopped(); },
          setup_.stream_stop);
      Record("StreamState", status, status.ok());
    }
  }

  // A fresh session, three meshes streamed in small chunks, a body from one, a few steps, closed.
  void RunUploader() {
    const v1::TriangleMeshData box = client::BoxMesh(0.1, 0.1, 0.1);
    const std::vector<double> vertices(box.vertices_m().begin(), box.vertices_m().end());
    const std::vector<int32_t> triangles(box.triangles().begin(), box.triangles().end());
    while (!stopped()) {
      auto created = setup_.connection.CreateSession(test_fixtures::BoxSceneRequest());
      Record("CreateSession", created.status(), created.ok());
      if (!created.ok()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      const client::SessionHandle session =
          setup_.connection.Session(created->session_id, created->controller_token);
      std::string mesh_id;
      for (int i = 0; i < 3; ++i) {
        auto uploaded = session.UploadMesh(vertices, triangles, /*tetrahedral=*/false,
                                           /*values_per_chunk=*/static_cast<size_t>(Random(3, 24)));
        Record("UploadMesh", uploaded.status(), uploaded.ok());
        if (uploaded.ok()) mesh_id = uploaded->mesh_id();
      }
      if (!mesh_id.empty()) {
        v1::BodySpec body = Box(0.1);
        body.set_mesh_id(mesh_id);
        auto added = session.AddBody(body);
        Record("AddBody(mesh_id)", added.status(), added.ok());
      }
      auto stepped = session.Step(5);
      Record("Step", stepped.status(), stepped.ok());
      const absl::Status closed = session.CloseSession();
      Record("CloseSession", closed, closed.ok());
    }
  }

  // Steps, snapshots, steps on and restores: the restored count is the snapshot's; every fifth
  // round goes back to the initial state with ResetSession.
  void RunSnapshotter() {
    std::optional<WatchedSession> own;
    while (!stopped() && !(own = OwnSession())) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!own) return;
    const client::SessionHandle session = setup_.connection.Session(own->id, own->controller_token);
    for (int round = 0; !stopped(); ++round) {
      auto stepped = session.Step(Random(1, 5));
      Record("Step", stepped.status(), stepped.ok());
      auto snapshot = session.Snapshot();
      Record("Snapshot", snapshot.status(), snapshot.ok());
      if (!snapshot.ok()) continue;
      stepped = session.Step(3);
      Record("Step", stepped.status(), stepped.ok());
      auto restored = session.Restore(snapshot->snapshot());
      if (restored.ok() && restored->step_count() != snapshot->step_count()) {
        Record("Restore: step_count",
               absl::InternalError(absl::StrCat("restored to ", restored->step_count(),
                                                ", snapshot at ", snapshot->step_count())),
               false);
      } else {
        Record("Restore", restored.status(), restored.ok());
      }
      if (round % 5 == 4) {
        auto reset = session.ResetSession();
        Record("ResetSession", reset.status(), reset.ok());
      }
    }
  }

  // In turn: a Step with a 1 µs deadline, a long Step cancelled part-way, a stream cancelled at
  // once or after its first frame, an upload cancelled after its first chunk.
  void RunCanceller() {
    std::optional<WatchedSession> own;
    while (!stopped() && !own) {
      v1::CreateSessionRequest request = test_fixtures::BoxSceneRequest();
      request.clear_ground_planes();
      auto created = setup_.connection.CreateSession(request);
      absl::Status status = created.status();
      if (created.ok()) {
        own = WatchedSession{created->session_id, created->controller_token, created->viewer_token};
        status =
            setup_.connection.Session(own->id, own->controller_token).AddBody(Cloth()).status();
      }
      Record("CreateSession + AddBody(cloth)", status, status.ok());
      if (!status.ok()) {
        own.reset();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    if (!own) return;
    for (int round = 0; !stopped(); ++round) {
      switch (round % 4) {
        case 0: {
          v1::StepRequest request;
          request.set_session_id(own->id);
          request.set_n_steps(Random(1, 5));
          v1::StepResponse response;
          grpc::ClientContext context;
          Prepare(context, own->id, own->controller_token, /*deadline=*/false);
          context.set_deadline(std::chrono::system_clock::now() + std::chrono::microseconds(1));
          RecordCode("Step(1 µs deadline)", FromGrpc(stub().Step(&context, request, &response)),
                     {absl::StatusCode::kOk, absl::StatusCode::kDeadlineExceeded});
          break;
        }
        case 1: {
          v1::StepRequest request;
          request.set_session_id(own->id);
          request.set_n_steps(100'000);
          v1::StepResponse response;
          grpc::ClientContext context;
          Prepare(context, own->id, own->controller_token);
          std::thread canceller([&context, delay_ms = Random(2, 30)] {
            std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
            context.TryCancel();
          });
          const absl::Status status = FromGrpc(stub().Step(&context, request, &response));
          canceller.join();
          RecordCode("Step(cancelled)", status, {absl::StatusCode::kCancelled});
          break;
        }
        case 2: {
          const WatchedSession& watched = Watched();
          v1::StreamStateRequest request;
          request.set_session_id(watched.id);
          grpc::ClientContext context;
          Prepare(context, watched.id, watched.viewer_token, /*deadline=*/false);
          auto reader = stub().StreamState(&context, request);
          if (Random(0, 1) == 1) {
            v1::StateFrame frame;
            reader->Read(&frame);
          }
          context.TryCancel();
          RecordCode("StreamState(cancelled)", FromGrpc(reader->Finish()),
                     {absl::StatusCode::kCancelled});
          break;
        }
        case 3: {
          grpc::ClientContext context;
          Prepare(context, own->id, own->controller_token);
          v1::UploadMeshResponse response;
          auto writer = stub().UploadMesh(&context, &response);
          v1::UploadMeshChunk chunk;
          chunk.set_session_id(own->id);
          for (int i = 0; i < 30; ++i) chunk.add_vertices_m(0.01 * i);
          writer->Write(chunk);
          context.TryCancel();
          RecordCode("UploadMesh(cancelled)", FromGrpc(writer->Finish()),
                     {absl::StatusCode::kCancelled});
          break;
        }
      }
    }
  }

  // Requests the server must refuse with one named code, in turn; they must leave the session
  // they name unstepped (checked at the end).
  void RunBadRequests() {
    std::optional<WatchedSession> own;
    while (!stopped() && !(own = OwnSession())) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!own) return;
    struct Bad {
      const char* what;
      absl::StatusCode expected;
      std::function<grpc::Status()> call;
    };
    auto step = [this](const std::string& session_id, const std::string& token,
                       std::function<void(v1::StepRequest&)> edit) {
      return [this, session_id, token, edit] {
        v1::StepRequest request;
        request.set_session_id(session_id);
        request.set_n_steps(1);
        edit(request);
        v1::StepResponse response;
        grpc::ClientContext context;
        Prepare(context, session_id, token);
        return stub().Step(&context, request, &response);
      };
    };
    auto stream = [this, &own](std::function<void(v1::StreamStateRequest&)> edit) {
      return [this, &own, edit] {
        v1::StreamStateRequest request;
        request.set_session_id(own->id);
        edit(request);
        grpc::ClientContext context;
        Prepare(context, own->id, own->viewer_token);
        auto reader = stub().StreamState(&context, request);
        v1::StateFrame frame;
        while (reader->Read(&frame)) {
        }
        return reader->Finish();
      };
    };
    const std::string wrong_token(32, '0');
    const std::vector<Bad> table = {
        {"Step: a wrong token", absl::StatusCode::kUnauthenticated,
         step(own->id, wrong_token, [](v1::StepRequest&) {})},
        {"Step: no token", absl::StatusCode::kUnauthenticated,
         step(own->id, "", [](v1::StepRequest&) {})},
        {"Step: a viewer token", absl::StatusCode::kPermissionDenied,
         step(own->id, own->viewer_token, [](v1::StepRequest&) {})},
        {"Step: n_steps 0", absl::StatusCode::kInvalidArgument,
         step(own->id, own->controller_token, [](v1::StepRequest& r) { r.set_n_steps(0); })},
        {"Step: n_steps 10^9", absl::StatusCode::kResourceExhausted,
         step(own->id, own->controller_token,
              [](v1::StepRequest& r) { r.set_n_steps(1'000'000'000); })},
        {"Step: an unknown session", absl::StatusCode::kNotFound,
         step("no-such-session", own->controller_token, [](v1::StepRequest&) {})},
        {"Step: expected_step_count 7", absl::StatusCode::kFailedPrecondition,
         step(own->id, own->controller_token,
              [](v1::StepRequest& r) { r.set_expected_step_count(7); })},
        {"Step: a NaN force", absl::StatusCode::kInvalidArgument,
         step(own->id, own->controller_token,
              [](v1::StepRequest& r) {
                v1::BodyControl* control = r.mutable_controls()->add_bodies();
                control->set_body_id(1);
                control->mutable_force_n()->set_x(std::nan(""));
              })},
        {"AddBody: a NaN position", absl::StatusCode::kInvalidArgument,
         [this, &own] {
           v1::AddBodyRequest request;
           request.set_session_id(own->id);
           *request.mutable_body() = Box(std::nan(""));
           v1::AddBodyResponse response;
           grpc::ClientContext context;
           Prepare(context, own->id, own->controller_token);
           return stub().AddBody(&context, request, &response);
         }},
        {"Restore: a blob of garbage", absl::StatusCode::kInvalidArgument,
         [this, &own] {
           v1::RestoreRequest request;
           request.set_session_id(own->id);
           request.set_snapshot(std::string(64, '\x5a'));
           v1::RestoreResponse response;
           grpc::ClientContext context;
           Prepare(context, own->id, own->controller_token);
           return stub().Restore(&context, request, &response);
         }},
        {"StreamState: from_seq far ahead", absl::StatusCode::kOutOfRange,
         stream([](v1::StreamStateRequest& r) { r.set_from_seq(int64_t{1} << 40); })},
        {"StreamState: max_rate_hz -1", absl::StatusCode::kInvalidArgument,
         stream([](v1::StreamStateRequest& r) { r.set_max_rate_hz(-1.0); })},
        {"CreateSession: an unknown pipeline", absl::StatusCode::kInvalidArgument,
         [this] {
           v1::CreateSessionRequest request = test_fixtures::BoxSceneRequest();
           request.set_pipeline("no-such-pipeline");
           v1::CreateSessionResponse response;
           grpc::ClientContext context;
           setup_.connection.PrepareContext(context, "");
           return stub().CreateSession(&context, request, &response);
         }},
    };
    for (size_t i = 0; !stopped(); ++i) {
      const Bad& bad = table[i % table.size()];
      RecordCode(bad.what, FromGrpc(bad.call()), {bad.expected});
    }
    const int64_t count = StepCountOf(*own);
    Record("bad requests left their session at step 0",
           count == 0 ? absl::OkStatus()
                      : absl::InternalError(absl::StrCat("the session is at step ", count)),
           count == 0);
  }

  const ClientSetup& setup_;
  std::mt19937 rng_;
};

}  // namespace

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kController:
      return "controller";
    case Kind::kViewer:
      return "viewer";
    case Kind::kUploader:
      return "uploader";
    case Kind::kSnapshotter:
      return "snapshotter";
    case Kind::kCanceller:
      return "canceller";
    case Kind::kBadRequests:
      return "bad requests";
  }
  return "?";
}

void Tally::Record(Kind kind, std::string_view what, const absl::Status& status, bool expected) {
  std::lock_guard lock(mu_);
  ++calls_;
  Row& row = rows_[kind];
  ++(expected ? row.expected : row.unexpected)[status.code()];
  if (expected) return;
  ++unexpected_;
  if (examples_.size() < kMaxExamples) {
    examples_.push_back(
        absl::StrCat(KindName(kind), " ", std::string(what), ": ", status.ToString()));
  }
}

std::map<Kind, Tally::Row> Tally::Rows() const {
  std::lock_guard lock(mu_);
  return rows_;
}

int64_t Tally::calls() const {
  std::lock_guard lock(mu_);
  return calls_;
}

int64_t Tally::unexpected() const {
  std::lock_guard lock(mu_);
  return unexpected_;
}

std::vector<std::string> Tally::examples() const {
  std::lock_guard lock(mu_);
  return examples_;
}

absl::StatusOr<WatchedSession> CreateWatchedSession(const client::Connection& connection) {
  auto created = connection.CreateSession(test_fixtures::BoxSceneRequest());
  if (!created.ok()) return created.status();
  const client::SessionHandle session =
      connection.Session(created->session_id, created->controller_token);
  // Side by side, not stacked: box on box at this stiffness and time step is not stable.
  for (double x : {0.0, 0.5}) {
    v1::BodySpec box = Box(0.1);
    box.mutable_pose()->mutable_position_m()->set_x(x);
    box.set_name(x == 0.0 ? "left box" : "right box");
    if (auto added = session.AddBody(box); !added.ok()) return added.status();
  }
  return WatchedSession{created->session_id, created->controller_token, created->viewer_token};
}

void RunClient(const ClientSetup& setup) { Client(setup).Run(); }

}  // namespace contactsim::bench::soak
