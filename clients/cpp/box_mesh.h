// A closed box surface centred on the mesh-frame origin, for demos and tests (the CLI's
// `create --box`): 8 vertices (index = x + 2y + 4z, with 1 meaning the + side) and 12 triangles,
// counter-clockwise seen from outside as the API requires. Half sizes in [m].
#pragma once

#include "contactsim/v1/common.pb.h"

namespace contactsim::client {

v1::TriangleMeshData BoxMesh(double half_x_m, double half_y_m, double half_z_m);

}  // namespace contactsim::client
