// libFuzzer target: what a browser sends the viewer (server/viewer/viewer_protocol.h): the first
// byte picks the WebSocket URL's query (ParseViewerQuery, even) or the hello text message
// (ParseHello, odd; the seeds use '0' and '1', so they stay text); the rest is the text. civetweb
// (third-party) parses the HTTP and WebSocket framing around them. Any input must parse into values
// within the protocol's limits, or be refused with InvalidArgument; a refused hello never echoes
// its token; an accepted hello written back parses to the same values.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/viewer/viewer_protocol.h"
#include "tests/fuzz/fuzz_checks.h"

namespace {

using contactsim::server::viewer::Hello;
using contactsim::server::viewer::ParseHello;
using contactsim::server::viewer::ParseViewerQuery;

void Require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "viewer_input_fuzzer: %s\n", what);
  std::abort();
}

bool PrintableWithoutSpace(std::string_view text) {
  for (char c : text) {
    if (c <= 0x20 || c > 0x7e) return false;
  }
  return true;
}

void CheckHello(std::string_view text) {
  const absl::StatusOr<Hello> hello = ParseHello(text);
  if (!hello.ok()) {
    contactsim::fuzz::CheckRefusal(hello.status(), "ParseHello");
    Require(hello.status().code() == absl::StatusCode::kInvalidArgument,
            "hello: not InvalidArgument");
    // The token is the fourth field: the message must not depend on its characters (the same
    // hello with each printable token character replaced by 'x' gets the same message), so it
    // cannot echo it.
    std::vector<std::string> parts;
    for (size_t start = 0; start <= text.size();) {
      const size_t space = std::min(text.find(' ', start), text.size());
      parts.emplace_back(text.substr(start, space - start));
      start = space + 1;
    }
    if (parts.size() >= 4) {
      for (char& c : parts[3]) {
        if (c > 0x20 && c <= 0x7e) c = 'x';
      }
      std::string masked;
      for (size_t k = 0; k < parts.size(); ++k) masked += (k == 0 ? "" : " ") + parts[k];
      const absl::StatusOr<Hello> twin = ParseHello(masked);
      Require(!twin.ok() && twin.status().message() == hello.status().message(),
              "hello: the refusal depends on the token's characters");
    }
    return;
  }
  Require(!hello->session_id.empty() && hello->session_id.size() <= 64 &&
              PrintableWithoutSpace(hello->session_id),
          "hello: session id out of its limits");
  Require(
      !hello->token.empty() && hello->token.size() <= 256 && PrintableWithoutSpace(hello->token),
      "hello: token out of its limits");
  Require(hello->from_seq >= 0, "hello: negative from_seq");
  Require(hello->max_rate_hz >= 0.0 && hello->max_rate_hz <= 1000.0,
          "hello: max_rate_hz out of [0, 1000]");
  const std::string again =
      absl::StrCat("hello 1 ", hello->session_id, " ", hello->token, " ", hello->from_seq, " ",
                   static_cast<int>(hello->max_rate_hz));
  const absl::StatusOr<Hello> reparsed = ParseHello(again);
  Require(reparsed.ok() && reparsed->session_id == hello->session_id &&
              reparsed->token == hello->token && reparsed->from_seq == hello->from_seq &&
              reparsed->max_rate_hz == hello->max_rate_hz,
          "hello: written back, it parses to other values");
}

void CheckQuery(std::string_view query) {
  const absl::StatusOr<std::string> session = ParseViewerQuery(query);
  if (!session.ok()) {
    contactsim::fuzz::CheckRefusal(session.status(), "ParseViewerQuery");
    Require(session.status().code() == absl::StatusCode::kInvalidArgument,
            "query: not InvalidArgument");
    return;
  }
  // An empty query names no session (the hello does); any other names one the hello could.
  Require(session->empty() == query.empty(), "query: an id from nothing, or none from a query");
  if (!session->empty()) {
    Require(session->size() <= 64 && PrintableWithoutSpace(*session),
            "query: session id out of the hello's limits");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    CheckQuery(text);
  } else {
    CheckHello(text);
  }
  return 0;
}
