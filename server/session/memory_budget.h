// MemoryBudget: the server's memory budget (--memory-budget) over every session's accounted
// bytes (session_memory.h), and the per-session cap (--session-memory-budget). A session charges
// what it holds after each operation (Charge, by difference); a request that will grow a session
// first reserves its estimate (Reserve), which fails with RESOURCE_EXHAUSTED naming the budget
// when the session's bytes with its reservations, or the server's, would pass it. Nothing is
// allocated before the reservation holds. Thread-safe (atomics); a reservation is released when
// its holder goes, by then the operation has charged what it really added.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace contactsim::server {

class MemoryBudget {
 public:
  // 0: no budget (either).
  MemoryBudget(int64_t server_bytes, int64_t session_bytes)
      : server_bytes_(server_bytes), session_bytes_(session_bytes) {}

  int64_t server_bytes() const { return server_bytes_; }
  int64_t session_bytes() const { return session_bytes_; }
  // Charged and reserved, all sessions together.
  int64_t used_bytes() const { return used_.load(std::memory_order_acquire); }

  // One session's account: what it holds (charged) and what its requests in flight reserved.
  struct Account {
    std::atomic<int64_t> charged{0};
    std::atomic<int64_t> reserved{0};
  };

  // Held while a request grows a session; gives its bytes back when destroyed.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept { *this = std::move(other); }
    Reservation& operator=(Reservation&& other) noexcept;
    ~Reservation() { Release(); }
    int64_t bytes() const { return bytes_; }
    // Reserves `extra` more under the same checks as Reserve.
    absl::Status Grow(int64_t extra, std::string_view field);
    void Release();

   private:
    friend class MemoryBudget;
    MemoryBudget* budget_ = nullptr;
    std::shared_ptr<Account> account_;
    int64_t bytes_ = 0;
  };

  // Reserves `bytes` for `account`: ResourceExhausted starting with `field` when the session
  // (charged + reserved + bytes) would pass the session cap or the server (used + bytes) the
  // server budget.
  absl::StatusOr<Reservation> Reserve(std::shared_ptr<Account> account, int64_t bytes,
                                      std::string_view field);
  // What `account` could still reserve now, after its charge and its reservations: the smaller
  // room of the session cap and the server budget (>= 0), and the budget that leaves it, named as
  // the refusals name it; bytes < 0 when neither budget is set. Reservations racing with the
  // caller may take it first (Reserve checks again).
  struct Headroom {
    int64_t bytes = -1;
    std::string_view budget;  // "the server's per-session memory budget" or "... memory budget"
    std::string_view flag;    // "--session-memory-budget" or "--memory-budget"
  };
  Headroom HeadroomOf(const Account& account) const;
  // Sets the account's charge to `bytes` (what the session holds now), by difference.
  void Charge(Account& account, int64_t bytes);
  // The account's charge back (the session is gone).
  void Forget(Account& account) { Charge(account, 0); }

 private:
  absl::Status Take(Account& account, int64_t bytes, std::string_view field);
  void Give(Account& account, int64_t bytes);

  const int64_t server_bytes_;
  const int64_t session_bytes_;
  std::atomic<int64_t> used_{0};
};

}  // namespace contactsim::server
