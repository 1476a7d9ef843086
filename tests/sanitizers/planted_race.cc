// A data race planted in ContactSim's own code, for the tsan preset's canary test
// (sanitizers.tsan_reports_a_planted_race): two WorkerPool jobs add to one plain int at once.
// ThreadSanitizer must report it with the preset's options and suppressions (tsan.supp silences
// what happens inside gRPC, Abseil and protobuf): if this exits 0, a race in the server's own
// threads would pass unseen too.
#include <atomic>
#include <cstdio>

#include "server/session/worker_pool.h"

int main() {
  int unguarded = 0;
  std::atomic<int> started{0};
  {
    contactsim::server::WorkerPool pool(2);
    for (int job = 0; job < 2; ++job) {
      pool.Submit([&] {
        started.fetch_add(1);
        while (started.load() < 2) {
        }
        for (int i = 0; i < 1000; ++i) ++unguarded;
      });
    }
  }  // the pool runs both jobs, then joins
  std::printf("unguarded = %d\n", unguarded);
  return 0;
}
