#include "scenes/testbeds/ccd_benchmark_data.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace contactsim::core::testing {

std::string CcdBenchmarkDir(const std::string& default_dir) {
  const char* from_environment = std::getenv("CONTACTSIM_CCD_BENCHMARK_DIR");
  return from_environment != nullptr && *from_environment != '\0' ? from_environment : default_dir;
}

namespace {

// One benchmark line: the query text, a space, then the label 0 or 1.
absl::Status ParseLine(std::string_view line, const std::string& path, int64_t line_number,
                       std::vector<LabeledCcdQuery>* out) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) {
    line.remove_suffix(1);
  }
  if (line.empty()) return absl::OkStatus();
  const size_t space = line.find_last_of(" \t");
  const std::string_view label = space == std::string_view::npos ? "" : line.substr(space + 1);
  if (label != "0" && label != "1") {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", line_number, ": expected a final label 0 or 1"));
  }
  absl::StatusOr<std::optional<CcdQuery>> query = ParseCcdQueryLine(line.substr(0, space));
  if (!query.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", line_number, ": ", query.status().message()));
  }
  if (!query->has_value()) return absl::OkStatus();
  out->push_back(LabeledCcdQuery{**query, label == "1"});
  return absl::OkStatus();
}

bool Exists(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  std::fclose(file);
  return true;
}

}  // namespace

absl::StatusOr<std::vector<LabeledCcdQuery>> LoadCcdBenchmark(const std::string& dir) {
  std::vector<LabeledCcdQuery> queries;
  queries.reserve(kCcdBenchmarkQueryCount);
  for (const char* file : kCcdBenchmarkFiles) {
    // The file as shipped (gzip), or already decompressed beside it (name without ".gz"), for a
    // machine without gzip.
    const std::string gz_path = absl::StrCat(dir, "/", file);
    const std::string plain_path = gz_path.substr(0, gz_path.size() - 3);
    const bool plain = Exists(plain_path);
    if (!plain && !Exists(gz_path)) {
      return absl::NotFoundError(absl::StrCat("CCD benchmark file not found: ", gz_path,
                                              " (set CONTACTSIM_CCD_BENCHMARK_DIR)"));
    }
    const std::string& path = plain ? plain_path : gz_path;
    // The path is ours (dir + a fixed name); quoted for the shell.
    std::FILE* stream = plain ? std::fopen(path.c_str(), "rb")
                              : ::popen(absl::StrCat("gzip -dc '", path, "'").c_str(), "r");
    if (stream == nullptr) return absl::InternalError(absl::StrCat("cannot read ", path));
    char* buffer = nullptr;
    size_t capacity = 0;
    int64_t line_number = 0;
    absl::Status status;
    while (status.ok() && ::getline(&buffer, &capacity, stream) >= 0) {
      status = ParseLine(buffer, path, ++line_number, &queries);
    }
    std::free(buffer);
    const int exit_code = plain ? std::fclose(stream) : ::pclose(stream);
    if (!status.ok()) return status;
    if (exit_code != 0) {
      return absl::InternalError(absl::StrCat("reading ", path, " failed (", exit_code, ")"));
    }
  }
  return queries;
}

}  // namespace contactsim::core::testing
