#include "scenes/loader/mesh_path_resolver.h"

#include <algorithm>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::scenes {
namespace {

constexpr std::string_view kPackageScheme = "package://";
constexpr std::string_view kFileScheme = "file://";

absl::StatusOr<std::filesystem::path> ResolvePackagePath(std::string_view written,
                                                         const MeshPathRoots& roots) {
  const std::string_view rest_of_uri = written.substr(kPackageScheme.size());
  const size_t slash = rest_of_uri.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == rest_of_uri.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("mesh \"", std::string(written), "\": expected package://NAME/PATH"));
  }
  const std::string name(rest_of_uri.substr(0, slash));
  const std::filesystem::path rest(rest_of_uri.substr(slash + 1));
  if (const auto it = roots.package_dirs.find(name); it != roots.package_dirs.end()) {
    return it->second / rest;
  }
  for (const std::filesystem::path& root : roots.package_search_roots) {
    std::error_code error;
    const std::filesystem::path candidate = root / name / rest;
    if (std::filesystem::is_regular_file(candidate, error)) return candidate;
  }
  return absl::NotFoundError(absl::StrCat("mesh \"", std::string(written), "\": package \"", name,
                                          "\" has no --package ", name,
                                          "=DIR and is under no ROS_PACKAGE_PATH root"));
}

}  // namespace

absl::StatusOr<std::filesystem::path> ResolveMeshPath(std::string_view written,
                                                      const MeshPathRoots& roots) {
  if (written.empty()) return absl::InvalidArgumentError("mesh: empty filename");
  if (written.starts_with(kPackageScheme)) return ResolvePackagePath(written, roots);
  if (written.starts_with(kFileScheme)) {
    return std::filesystem::path(written.substr(kFileScheme.size()));
  }
  if (written.find("://") != std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("mesh \"", std::string(written),
                                                   "\": only package://, file:// and plain paths"));
  }
  const std::filesystem::path path(written);
  if (path.is_absolute()) return path;
  return roots.urdf_dir / path;
}

absl::StatusOr<std::pair<std::string, std::filesystem::path>> ParsePackageFlag(
    std::string_view flag) {
  const size_t equals = flag.find('=');
  if (equals == std::string_view::npos || equals == 0 || equals + 1 == flag.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--package \"", std::string(flag), "\": expected NAME=DIR"));
  }
  return std::pair<std::string, std::filesystem::path>(
      std::string(flag.substr(0, equals)), std::filesystem::path(flag.substr(equals + 1)));
}

std::vector<std::filesystem::path> SplitPackageSearchPath(std::string_view value) {
  std::vector<std::filesystem::path> roots;
  // Split by hand: this Abseil's string_view is not std::string_view.
  size_t begin = 0;
  while (begin <= value.size()) {
    const size_t end = std::min(value.find(':', begin), value.size());
    if (end > begin) roots.emplace_back(value.substr(begin, end - begin));
    begin = end + 1;
  }
  return roots;
}

}  // namespace contactsim::scenes
