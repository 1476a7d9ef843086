// Rotation part of a deformation gradient for corotational elasticity: F = R S with R a proper
// rotation (R^T R = I, det R = +1) and S = R^T F symmetric.
//
// From the SVD F = U Sigma V^T (singular values sorted descending): R = U V^T. When det(U V^T) < 0
// (an inverted element, det F < 0, or a reflection) the column of U for the smallest singular
// value and that singular value change sign, so R stays a rotation and S = V Sigma' V^T has one
// negative eigenvalue: the element is seen as inverted through its thinnest direction, and the
// elastic force pushes it back rather than towards the mirror image.
#pragma once

#include "core/common/eigen_types.h"

namespace contactsim::core {

struct RotationAndStretch {
  Mat3 rotation = Mat3::Identity();  // R, det +1
  Mat3 stretch = Mat3::Identity();   // S = R^T F, symmetric
};

RotationAndStretch PolarDecomposeRotation(const Mat3& deformation_gradient);

}  // namespace contactsim::core
