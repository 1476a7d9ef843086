// The client's names for a URDF's files on its own machine (package:// and relative mesh paths,
// the mesh files read, an AddRobotRequest built): they live with the scene loader
// (scenes/loader/robot_request.h), which the server's --scene and `contactsim load` share.
#pragma once

#include "scenes/loader/mesh_path_resolver.h"
#include "scenes/loader/robot_request.h"
#include "scenes/loader/urdf_mesh_files.h"

namespace contactsim::client {

using scenes::AddRobotOptions;
using scenes::MakeAddRobotRequest;
using scenes::MeshPathRoots;
using scenes::ParsePackageFlag;
using scenes::ReadUrdfMeshFiles;
using scenes::ResolveMeshPath;
using scenes::RobotPackages;
using scenes::RosPackagePathFromEnvironment;
using scenes::SplitPackageSearchPath;
using scenes::UrdfMeshes;
using scenes::UrdfMeshFilenames;

}  // namespace contactsim::client
