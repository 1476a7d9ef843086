#include "server/persist/state_directory.h"

#include <algorithm>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "server/log/structured_log.h"
#include "server/persist/atomic_file.h"
#include "server/persist/session_record.h"
#include "server/session/snapshot_blob.h"

namespace contactsim::server::persist {
namespace {

// How often the writer looks at the sessions (at most; a shorter interval_s ticks faster).
constexpr std::chrono::milliseconds kTick(100);
// A session id without its prefix: 16 lowercase hex digits (SessionManager::Create).
constexpr size_t kIdHexDigits = 16;
constexpr std::string_view kTemporarySuffix = ".tmp";
constexpr std::string_view kDamagedSuffix = ".damaged";

}  // namespace

absl::Status ValidatePersistOptions(const PersistOptions& options) {
  if (!(options.interval_s >= 0.0)) {
    return absl::InvalidArgumentError("--persist-interval-s: must be >= 0");
  }
  if (options.every_steps <= 0) {
    return absl::InvalidArgumentError("--persist-every-steps: must be > 0");
  }
  return absl::OkStatus();
}

std::string StateDirectory::FileName(std::string_view session_id) {
  return std::string(session_id) + std::string(kSessionFileSuffix);
}

StateDirectory::StateDirectory(const PersistOptions& options, SessionManager* sessions,
                               BackendForDevice backend_for_device)
    : options_(options),
      dir_(options.state_dir),
      sessions_(sessions),
      backend_for_device_(std::move(backend_for_device)) {}

absl::StatusOr<std::unique_ptr<StateDirectory>> StateDirectory::Open(
    const PersistOptions& options, SessionManager* sessions, BackendForDevice backend_for_device) {
  RETURN_IF_ERROR(ValidatePersistOptions(options));
  RETURN_IF_ERROR(EnsurePrivateDirectory(options.state_dir));
  return std::unique_ptr<StateDirectory>(
      new StateDirectory(options, sessions, std::move(backend_for_device)));
}

StateDirectory::~StateDirectory() { Stop(); }

bool StateDirectory::OwnsId(std::string_view id) const {
  const std::string& prefix = sessions_->id_prefix();
  if (!absl::StartsWith(absl::string_view(id.data(), id.size()), prefix)) return false;
  const std::string_view hex = id.substr(prefix.size());
  return hex.size() == kIdHexDigits && std::all_of(hex.begin(), hex.end(), [](char c) {
           return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f');
         });
}

absl::Status StateDirectory::RestoreFile(const std::filesystem::path& file) {
  ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(file));
  ASSIGN_OR_RETURN(SessionRecord record, DecodeSessionRecord(bytes));
  if (FileName(record.id) != file.filename().string()) {
    return absl::DataLossError(
        absl::StrCat("session record: holds session '", record.id, "', not its file's"));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<core::Backend> backend, backend_for_device_(record.device));
  if (backend->name() != record.device) {
    log::Warn(log::Record("state_dir_device_changed")
                  .Add("session", record.id)
                  .Add("recorded_device", record.device)
                  .Add("device", backend->name()));
  }
  absl::StatusOr<DecodedSnapshot> decoded = DecodeSnapshotBlob(record.snapshot_blob, backend);
  if (!decoded.ok()) {
    // A blob the record's checksum vouched for but that does not decode is damage too.
    const absl::StatusCode code = decoded.status().code() == absl::StatusCode::kInvalidArgument
                                      ? absl::StatusCode::kDataLoss
                                      : decoded.status().code();
    return absl::Status(code, decoded.status().message());
  }
  if (decoded->world.step_count() != record.step_count) {
    return absl::DataLossError(absl::StrCat("session record: step count ", record.step_count,
                                            " but the snapshot is at step ",
                                            decoded->world.step_count()));
  }
  auto session = std::make_shared<Session>(
      record.id, record.name, std::move(decoded->world), sessions_->limits(),
      TokenHashes{record.controller_token_sha256, record.viewer_token_sha256});
  RETURN_IF_ERROR(sessions_->Adopt(session));
  std::lock_guard lock(pass_mu_);
  written_[record.id] = Written{session->change_marks(), std::chrono::steady_clock::now()};
  return absl::OkStatus();
}

RestoreReport StateDirectory::RestoreAll() {
  RestoreReport report;
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    const std::string name = entry.path().filename().string();
    if (absl::EndsWith(name, std::string(kSessionFileSuffix) + std::string(kTemporarySuffix))) {
      // A write that a crash interrupted; the file it was replacing is intact.
      const std::string id = name.substr(0, name.find('.'));
      if (OwnsId(id)) (void)RemoveFileDurably(dir_, name);
      continue;
    }
    if (!absl::EndsWith(name,
                        absl::string_view(kSessionFileSuffix.data(), kSessionFileSuffix.size())))
      continue;
    if (!OwnsId(name.substr(0, name.size() - kSessionFileSuffix.size()))) continue;
    files.push_back(entry.path());
  }
  if (error) {
    report.skipped.push_back(absl::StrCat(dir_.string(), ": ", error.message()));
    log::Error(log::Record("state_dir_list_failed")
                   .Add("dir", dir_.string())
                   .Add("error", error.message()));
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    const absl::Status status = RestoreFile(file);
    if (status.ok()) {
      ++report.restored;
      continue;
    }
    report.skipped.push_back(absl::StrCat(file.filename().string(), ": ", status.ToString()));
    if (status.code() == absl::StatusCode::kDataLoss) {
      // Kept for inspection under another name, so the next start does not trip on it again.
      std::filesystem::path damaged = file;
      damaged += std::string(kDamagedSuffix);
      std::filesystem::rename(file, damaged, error);
      log::Error(log::Record("state_dir_skipped_damaged")
                     .Add("file", file.string())
                     .Add("renamed", damaged.filename().string())
                     .AddStatus(status));
    } else {
      log::Error(log::Record("state_dir_skipped").Add("file", file.string()).AddStatus(status));
    }
  }
  log::Info(log::Record("state_dir_restored")
                .Add("dir", dir_.string())
                .Add("restored", report.restored)
                .Add("skipped", report.skipped.size()));
  return report;
}

void StateDirectory::Pass(bool all_changed) {
  std::lock_guard pass_lock(pass_mu_);
  const auto now = std::chrono::steady_clock::now();
  const auto interval = std::chrono::duration<double>(options_.interval_s);
  std::map<std::string, bool, std::less<>> open;
  for (const std::shared_ptr<Session>& session : sessions_->All()) {
    open[session->id()] = true;
    const ChangeMarks marks = session->change_marks();
    auto it = written_.find(session->id());
    const bool is_new = it == written_.end();
    if (!is_new && it->second.marks.content_version == marks.content_version &&
        it->second.marks.step_count == marks.step_count) {
      continue;  // nothing changed since the last write (or the last refused capture)
    }
    const bool content_changed =
        is_new || it->second.marks.content_version != marks.content_version;
    const bool due = all_changed || content_changed ||
                     marks.step_count - it->second.marks.step_count >= options_.every_steps ||
                     now - it->second.at >= interval;
    if (!due) continue;
    (void)WriteSessionLocked(*session, now);
  }
  for (auto it = written_.begin(); it != written_.end();) {
    if (open.count(it->first) > 0) {
      ++it;
      continue;
    }
    const absl::Status removed = RemoveFileDurably(dir_, FileName(it->first));
    if (!removed.ok()) {
      log::Error(
          log::Record("state_dir_remove_failed").Add("session", it->first).AddStatus(removed));
      ++it;
      continue;
    }
    it = written_.erase(it);
  }
}

absl::Status StateDirectory::WriteSessionLocked(Session& session,
                                                std::chrono::steady_clock::time_point now) {
  absl::StatusOr<Session::Capture> capture = session.CaptureForStateDir();
  if (!capture.ok()) {
    // A failed session: its last good state stays; try again once it changes (a Restore).
    Written& entry = written_[session.id()];
    if (!entry.skip_logged) {
      log::Info(log::Record("state_dir_write_skipped")
                    .Add("session", session.id())
                    .AddStatus(capture.status()));
    }
    entry.marks = session.change_marks();
    entry.skip_logged = true;
    return capture.status();
  }
  SessionRecord record;
  record.id = session.id();
  record.name = session.name();
  record.device = session.device();
  record.controller_token_sha256 = session.token_hashes().controller;
  record.viewer_token_sha256 = session.token_hashes().viewer;
  record.step_count = capture->marks.step_count;
  record.time_s = capture->time_s;
  record.snapshot_blob = std::move(capture->blob);
  const absl::Status written =
      WriteFileAtomically(dir_, FileName(record.id), EncodeSessionRecord(record));
  if (!written.ok()) {
    // Retried at the next tick (the marks are not advanced).
    log::Error(log::Record("state_dir_write_failed").Add("session", record.id).AddStatus(written));
    return written;
  }
  written_[record.id] = Written{capture->marks, now};
  return absl::OkStatus();
}

absl::Status StateDirectory::Unload(std::string_view id, std::chrono::steady_clock::time_point now,
                                    std::chrono::steady_clock::duration timeout) {
  std::lock_guard pass_lock(pass_mu_);
  const std::shared_ptr<Session> session = sessions_->Peek(id);
  if (session == nullptr) {
    return absl::NotFoundError(absl::StrCat("session_id: no session '", std::string(id), "'"));
  }
  // Written now, whatever the pacing, so the file holds the state it is unloaded in. A failed
  // session keeps its last good file; one that never had a file cannot be unloaded.
  const absl::Status written = WriteSessionLocked(*session, now);
  if (!written.ok() && !std::filesystem::exists(dir_ / FileName(id))) return written;
  RETURN_IF_ERROR(sessions_->Unload(id, now, timeout));
  // Forgotten here too, so the next pass does not take the file for a closed session's.
  if (auto it = written_.find(id); it != written_.end()) written_.erase(it);
  unloaded_.insert(std::string(id));
  return absl::OkStatus();
}

absl::Status StateDirectory::Load(std::string_view id) {
  {
    // Only what Unload unloaded: a closed session's file, until the writer removes it, must not
    // bring the session back.
    std::lock_guard pass_lock(pass_mu_);
    auto it = unloaded_.find(id);
    if (it == unloaded_.end()) {
      return absl::NotFoundError(absl::StrCat("session_id: no session '", std::string(id), "'"));
    }
    unloaded_.erase(it);
  }
  const std::filesystem::path file = dir_ / FileName(id);
  if (absl::Status restored = RestoreFile(file); !restored.ok()) {
    log::Error(log::Record("state_dir_reload_failed")
                   .Add("session", id)
                   .Add("file", file.string())
                   .AddStatus(restored));
    return restored;
  }
  log::Info(log::Record("state_dir_reloaded").Add("session", id).Add("file", file.string()));
  return absl::OkStatus();
}

void StateDirectory::FlushAll() { Pass(/*all_changed=*/true); }

void StateDirectory::Start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || stopping_) return;
  const auto tick = std::min<std::chrono::steady_clock::duration>(
      kTick, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(options_.interval_s)));
  thread_ = std::thread([this, tick] {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      wake_.wait_for(
          lock, std::max<std::chrono::steady_clock::duration>(tick, std::chrono::milliseconds(1)));
      if (stopping_) break;
      lock.unlock();
      Pass(/*all_changed=*/false);
      lock.lock();
    }
  });
}

void StateDirectory::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  FlushAll();
}

}  // namespace contactsim::server::persist
