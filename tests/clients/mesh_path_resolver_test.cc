// ResolveMeshPath: the client-side resolution of a URDF's mesh filenames (package://, file://,
// absolute, relative) before AddRobot sends the bytes.
#include <fstream>

#include "clients/cpp/robot_files.h"
#include "gtest/gtest.h"

namespace contactsim::client {
namespace {

namespace fs = std::filesystem;

TEST(MeshPathResolverTest, RelativePathsResolveAgainstTheUrdfFolder) {
  const MeshPathRoots roots{.urdf_dir = "/robots/arm"};
  EXPECT_EQ(*ResolveMeshPath("meshes/l1.stl", roots), fs::path("/robots/arm/meshes/l1.stl"));
  EXPECT_EQ(*ResolveMeshPath("/abs/l1.stl", roots), fs::path("/abs/l1.stl"));
  EXPECT_EQ(*ResolveMeshPath("file:///abs/l1.stl", roots), fs::path("/abs/l1.stl"));
}

TEST(MeshPathResolverTest, MappedPackageWinsOverSearchRoots) {
  MeshPathRoots roots{.urdf_dir = "/robots/arm"};
  roots.package_dirs["arm"] = "/pkgs/arm_description";
  roots.package_search_roots = {"/elsewhere"};
  EXPECT_EQ(*ResolveMeshPath("package://arm/meshes/l1.stl", roots),
            fs::path("/pkgs/arm_description/meshes/l1.stl"));
}

TEST(MeshPathResolverTest, SearchRootsGiveTheFirstExistingFile) {
  const fs::path base = fs::path(::testing::TempDir()) / "mesh_path_resolver_test";
  fs::create_directories(base / "second" / "arm" / "meshes");
  std::ofstream(base / "second" / "arm" / "meshes" / "l1.stl") << "solid x\nendsolid x\n";
  const MeshPathRoots roots{.urdf_dir = "/robots",
                            .package_search_roots = SplitPackageSearchPath(
                                (base / "first").string() + "::" + (base / "second").string())};
  ASSERT_EQ(roots.package_search_roots.size(), 2u);  // the empty entry is skipped
  EXPECT_EQ(*ResolveMeshPath("package://arm/meshes/l1.stl", roots),
            base / "second" / "arm" / "meshes" / "l1.stl");
}

TEST(MeshPathResolverTest, UnknownPackageIsNotFoundNamingThePathAndPackage) {
  const absl::StatusOr<fs::path> resolved =
      ResolveMeshPath("package://nowhere/m.stl", MeshPathRoots{.urdf_dir = "/r"});
  ASSERT_EQ(resolved.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(resolved.status().message().find("package://nowhere/m.stl"), std::string::npos);
  EXPECT_NE(resolved.status().message().find("--package nowhere=DIR"), std::string::npos);
}

TEST(MeshPathResolverTest, MalformedNamesAreRefused) {
  const MeshPathRoots roots{.urdf_dir = "/r"};
  for (const char* bad : {"", "package://", "package://arm", "package://arm/", "package:///m.stl",
                          "http://host/m.stl"}) {
    EXPECT_EQ(ResolveMeshPath(bad, roots).status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(MeshPathResolverTest, PackageFlagSplitsAtTheFirstEquals) {
  const auto parsed = ParsePackageFlag("arm=/pkgs/a=b");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->first, "arm");
  EXPECT_EQ(parsed->second, fs::path("/pkgs/a=b"));
  for (const char* bad : {"arm", "=dir", "arm="}) {
    EXPECT_EQ(ParsePackageFlag(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace contactsim::client
