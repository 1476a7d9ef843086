#include "server/session/memory_budget.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace contactsim::server {

MemoryBudget::Reservation& MemoryBudget::Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    Release();
    budget_ = std::exchange(other.budget_, nullptr);
    account_ = std::move(other.account_);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

absl::Status MemoryBudget::Reservation::Grow(int64_t extra, std::string_view field) {
  if (budget_ == nullptr || extra <= 0) return absl::OkStatus();
  absl::Status taken = budget_->Take(*account_, extra, field);
  if (taken.ok()) bytes_ += extra;
  return taken;
}

void MemoryBudget::Reservation::Release() {
  if (budget_ != nullptr && bytes_ > 0) budget_->Give(*account_, bytes_);
  bytes_ = 0;
}

absl::StatusOr<MemoryBudget::Reservation> MemoryBudget::Reserve(std::shared_ptr<Account> account,
                                                                int64_t bytes,
                                                                std::string_view field) {
  Reservation reservation;
  reservation.budget_ = this;
  reservation.account_ = std::move(account);
  if (bytes > 0) {
    absl::Status taken = Take(*reservation.account_, bytes, field);
    if (!taken.ok()) return taken;
    reservation.bytes_ = bytes;
  }
  return reservation;
}

absl::Status MemoryBudget::Take(Account& account, int64_t bytes, std::string_view field) {
  // The session's cap first (its own requests), then the server's; each by compare-and-swap so
  // two requests racing for the last bytes cannot both pass.
  int64_t reserved = account.reserved.load(std::memory_order_acquire);
  for (;;) {
    const int64_t session_after =
        account.charged.load(std::memory_order_acquire) + reserved + bytes;
    if (session_bytes_ > 0 && session_after > session_bytes_) {
      return absl::ResourceExhaustedError(
          absl::StrCat(std::string(field), ": the session would hold ", session_after,
                       " bytes, over the server's per-session memory budget of ", session_bytes_,
                       " bytes (--session-memory-budget); nothing was allocated"));
    }
    if (account.reserved.compare_exchange_weak(reserved, reserved + bytes,
                                               std::memory_order_acq_rel)) {
      break;
    }
  }
  int64_t used = used_.load(std::memory_order_acquire);
  for (;;) {
    if (server_bytes_ > 0 && used + bytes > server_bytes_) {
      account.reserved.fetch_sub(bytes, std::memory_order_acq_rel);
      return absl::ResourceExhaustedError(
          absl::StrCat(std::string(field), ": the server's sessions would hold ", used + bytes,
                       " bytes, over its memory budget of ", server_bytes_,
                       " bytes (--memory-budget); nothing was allocated"));
    }
    if (used_.compare_exchange_weak(used, used + bytes, std::memory_order_acq_rel)) break;
  }
  return absl::OkStatus();
}

MemoryBudget::Headroom MemoryBudget::HeadroomOf(const Account& account) const {
  Headroom out;
  if (session_bytes_ > 0) {
    const int64_t held = account.charged.load(std::memory_order_acquire) +
                         account.reserved.load(std::memory_order_acquire);
    out = {std::max<int64_t>(0, session_bytes_ - held), "the server's per-session memory budget",
           "--session-memory-budget"};
  }
  if (server_bytes_ > 0) {
    const int64_t room =
        std::max<int64_t>(0, server_bytes_ - used_.load(std::memory_order_acquire));
    if (out.bytes < 0 || room < out.bytes) {
      out = {room, "the server's memory budget", "--memory-budget"};
    }
  }
  return out;
}

void MemoryBudget::Give(Account& account, int64_t bytes) {
  account.reserved.fetch_sub(bytes, std::memory_order_acq_rel);
  used_.fetch_sub(bytes, std::memory_order_acq_rel);
}

void MemoryBudget::Charge(Account& account, int64_t bytes) {
  const int64_t before = account.charged.exchange(bytes, std::memory_order_acq_rel);
  used_.fetch_add(bytes - before, std::memory_order_acq_rel);
}

}  // namespace contactsim::server
