// Dense array types shared across core. Arrays of points are (n x 3), row-major, in metres.
#pragma once

#include <Eigen/Core>
#include <cstdint>

namespace contactsim::core {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

// n x 3 array of points or vectors, one per row [m] (or [m/s] for velocities).
using Points3 = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>;
// Element index arrays: one element per row, 0-based vertex indices.
using IndexPairs = Eigen::Matrix<int32_t, Eigen::Dynamic, 2, Eigen::RowMajor>;
using IndexTriples = Eigen::Matrix<int32_t, Eigen::Dynamic, 3, Eigen::RowMajor>;
using IndexQuads = Eigen::Matrix<int32_t, Eigen::Dynamic, 4, Eigen::RowMajor>;

}  // namespace contactsim::core
