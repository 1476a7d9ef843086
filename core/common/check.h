// CONTACTSIM_CHECK(condition, message): an internal invariant, never user input (user input gets
// an absl::Status naming the field). A broken invariant means the code, not the caller, is wrong
// and going on would corrupt a session, so it aborts in every build type with the file, line,
// condition and message on stderr.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace contactsim::internal {

[[noreturn]] inline void CheckFailed(const char* file, int line, const char* condition,
                                     const char* message) {
  std::fprintf(stderr, "%s:%d: CONTACTSIM_CHECK(%s) failed: %s\n", file, line, condition, message);
  std::abort();
}

}  // namespace contactsim::internal

#define CONTACTSIM_CHECK(condition, message)                                          \
  do {                                                                                \
    if (!(condition)) {                                                               \
      ::contactsim::internal::CheckFailed(__FILE__, __LINE__, #condition, (message)); \
    }                                                                                 \
  } while (0)
