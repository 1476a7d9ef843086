// Gmsh .msh 2.2 and 4.1 ASCII: a unit cube split into 6 tets, written by hand (non-contiguous and
// shuffled node tags, an unused node, and point/line/triangle elements that must be ignored).
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "core/geometry/mesh_import.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/geometry/temp_dir.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

// Cube corner c (bit a set = coordinate 1 on axis a) has node tag 100 + 10 c; tag 999 is unused.
// Lines are numbered in the comments that error tests rely on.
constexpr char kCubeV2[] =
    "$MeshFormat\n"                // 1
    "2.2 0 8\n"                    // 2
    "$EndMeshFormat\n"             // 3
    "$PhysicalNames\n"             // 4
    "1\n"                          // 5
    "3 1 \"solid\"\n"              // 6
    "$EndPhysicalNames\n"          // 7
    "$Nodes\n"                     // 8
    "9\n"                          // 9
    "170 1 1 1\n"                  // 10
    "100 0 0 0\n"                  // 11
    "110 1 0 0\n"                  // 12
    "120 0 1 0\n"                  // 13
    "130 1 1 0\n"                  // 14
    "999 5 5 5\n"                  // 15
    "140 0 0 1\n"                  // 16
    "150 1 0 1\n"                  // 17
    "160 0 1 1\n"                  // 18
    "$EndNodes\n"                  // 19
    "$Elements\n"                  // 20
    "9\n"                          // 21
    "1 15 2 0 1 100\n"             // 22 point
    "2 1 2 0 1 100 110\n"          // 23 line
    "3 2 2 0 1 100 120 130\n"      // 24 triangle
    "4 4 2 1 1 100 110 130 170\n"  // 25
    "5 4 2 1 1 100 130 120 170\n"  // 26
    "6 4 2 1 1 100 150 110 170\n"  // 27
    "7 4 2 1 1 100 140 150 170\n"  // 28
    "8 4 2 1 1 100 120 160 170\n"  // 29
    "9 4 2 1 1 100 160 140 170\n"  // 30
    "$EndElements\n";              // 31

constexpr char kCubeV4[] =
    "$MeshFormat\n"
    "4.1 0 8\n"
    "$EndMeshFormat\n"
    "$Entities\n"
    "0 0 0 1\n"
    "1 0 0 0 1 1 1 0 0\n"
    "$EndEntities\n"
    "$Nodes\n"
    "3 9 100 999\n"
    "0 1 0 1\n"  // a point entity holding the unused node
    "999\n"
    "5 5 5\n"
    "3 1 0 4\n"
    "100\n110\n120\n130\n"
    "0 0 0\n1 0 0\n0 1 0\n1 1 0\n"
    "3 1 1 4\n"  // parametric: u v w follow the coordinates
    "140\n150\n160\n170\n"
    "0 0 1 0.1 0.2 0.3\n1 0 1 0.1 0.2 0.3\n0 1 1 0.1 0.2 0.3\n1 1 1 0.1 0.2 0.3\n"
    "$EndNodes\n"
    "$Elements\n"
    "2 7 1 7\n"
    "2 1 2 1\n"
    "1 100 110 130\n"
    "3 1 4 6\n"
    "2 100 110 130 170\n"
    "3 100 130 120 170\n"
    "4 100 150 110 170\n"
    "5 100 140 150 170\n"
    "6 100 120 160 170\n"
    "7 100 160 140 170\n"
    "$EndElements\n";

void ExpectUnitCube(const absl::StatusOr<TetMesh>& mesh) {
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  // Vertices are the used nodes in increasing tag order: vertex c is corner c.
  ASSERT_EQ(mesh->num_vertices(), 8);
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(mesh->vertices().row(c), Eigen::RowVector3d(c & 1, (c >> 1) & 1, (c >> 2) & 1));
  }
  IndexQuads expected(6, 4);
  expected << 0, 1, 3, 7, 0, 3, 2, 7, 0, 5, 1, 7, 0, 4, 5, 7, 0, 2, 6, 7, 0, 6, 4, 7;
  EXPECT_EQ(mesh->tets(), expected);
  EXPECT_NEAR(mesh->TotalVolume(), 1.0, 1e-15);
  EXPECT_EQ(mesh->surface().num_faces(), 12);
  EXPECT_TRUE(mesh->surface().is_closed());
}

void ExpectInvalid(const absl::StatusOr<TetMesh>& mesh, const std::string& message) {
  EXPECT_EQ(mesh.status().code(), absl::StatusCode::kInvalidArgument) << mesh.status();
  EXPECT_EQ(mesh.status().message(), message);
}

TEST(GmshReaderTest, Version2Cube) { ExpectUnitCube(ParseGmsh(kCubeV2)); }
TEST(GmshReaderTest, Version4Cube) { ExpectUnitCube(ParseGmsh(kCubeV4)); }

TEST(GmshReaderTest, WindowsLineEndings) {
  ExpectUnitCube(ParseGmsh(absl::StrReplaceAll(kCubeV2, {{"\n", "\r\n"}})));
  ExpectUnitCube(ParseGmsh(absl::StrReplaceAll(kCubeV4, {{"\n", "\r\n"}})));
}

TEST(GmshReaderTest, BinaryIsRefused) {
  ExpectInvalid(ParseGmsh(std::string("$MeshFormat\n4.1 1 8\n\x01\x00\x00\x00\n", 25)),
                "line 2: binary .msh is not supported, save as ASCII");
}

TEST(GmshReaderTest, UnsupportedVersionAndNotGmsh) {
  ExpectInvalid(ParseGmsh("$MeshFormat\n4.0 0 8\n$EndMeshFormat\n"),
                "line 2: unsupported .msh format version 4.0 (supported: 2.2 and 4.1)");
  ExpectInvalid(ParseGmsh("\nsolid cube\n"),
                "line 2: expected $MeshFormat (is this a Gmsh .msh file?)");
}

TEST(GmshReaderTest, ParseErrorsNameTheLine) {
  ExpectInvalid(ParseGmsh(absl::StrReplaceAll(kCubeV2, {{"110 1 0 0\n", "110 1 zero 0\n"}})),
                "line 12: expected three coordinates x y z");
  ExpectInvalid(ParseGmsh(absl::StrReplaceAll(kCubeV2, {{"100 130 120 170", "100 130 120 175"}})),
                "line 26: tetrahedron uses node tag 175, which $Nodes does not define");
  ExpectInvalid(ParseGmsh(absl::StrReplaceAll(kCubeV2, {{"999 5 5 5", "110 5 5 5"}})),
                "line 15: node tag 110 already defined on line 12");
  ExpectInvalid(ParseGmsh(std::string(kCubeV2).substr(0, std::string(kCubeV2).find("140 0 0 1"))),
                "line 15: file ends while reading nodes");
  ExpectInvalid(ParseGmsh(absl::StrReplaceAll(kCubeV2, {{"7 4 2 1 1", "7 x 2 1 1"}})),
                "line 28: 'x' is not an integer (elm-number elm-type number-of-tags)");
  ExpectInvalid(ParseGmsh(absl::StrReplaceAll(kCubeV4, {{"3 9 100 999", "3 8 100 999"}})),
                "line 22: node block of 4 nodes overflows the 8 declared in the $Nodes header");
}

TEST(GmshReaderTest, ElementKinds) {
  ExpectInvalid(ParseGmsh(absl::StrReplaceAll(
                    kCubeV2, {{"4 4 2 1 1 100 110 130 170", "4 11 2 1 1 100 110 130 170"}})),
                "line 25: second-order tetrahedra (element type 11) are not supported; export "
                "first-order 4-node tets (type 4)");
  std::string no_tets(kCubeV2);
  no_tets = no_tets.substr(0, no_tets.find("$Elements")) +
            "$Elements\n1\n3 2 2 0 1 100 120 130\n$EndElements\n";
  ExpectInvalid(ParseGmsh(no_tets), "no 4-node tetrahedra (element type 4) in the file");
}

TEST(GmshReaderTest, InvertedTetIsReportedNotFlipped) {
  ExpectInvalid(ParseGmsh(absl::StrReplaceAll(kCubeV2, {{"100 150 110 170", "100 110 150 170"}})),
                "tet 2: inverted (volume -0.166667 m^3); corners must be positively oriented");
}

TEST(GmshReaderTest, ReadFromFile) {
  TempDir dir;
  ExpectUnitCube(ReadGmsh(dir.Write("cube.msh", kCubeV4)));
  const auto missing = dir.path() / "missing.msh";
  const auto status = ReadGmsh(missing).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr(missing.string()));
  const auto bad = dir.Write("bad.msh", "$MeshFormat\n2.2 1 8\n");
  EXPECT_EQ(ReadGmsh(bad).status().message(),
            bad.string() + ": line 2: binary .msh is not supported, save as ASCII");
}

}  // namespace
}  // namespace contactsim::core
