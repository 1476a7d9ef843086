#include "core/dynamics/fem/material.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {

absl::string_view MaterialModelName(MaterialModel model) {
  switch (model) {
    case MaterialModel::kArap:
      return "arap";
    case MaterialModel::kCorotational:
      return "corotational";
    case MaterialModel::kNeoHookean:
      return "neo_hookean";
  }
  return "unknown";
}

absl::Status ValidateMaterialParameters(const MaterialParameters& params) {
  if (!std::isfinite(params.youngs_modulus) || params.youngs_modulus <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("youngs_modulus must be finite and > 0 [Pa], got ", params.youngs_modulus));
  }
  // nu = 0.5 is incompressible (lambda infinite); nu <= -1 makes mu infinite or negative.
  if (!std::isfinite(params.poisson_ratio) || params.poisson_ratio <= -1.0 ||
      params.poisson_ratio >= 0.5) {
    return absl::InvalidArgumentError(
        absl::StrCat("poisson_ratio must be in (-1, 0.5), got ", params.poisson_ratio));
  }
  if (!std::isfinite(params.density) || params.density <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("density must be finite and > 0 [kg/m^3], got ", params.density));
  }
  return absl::OkStatus();
}

absl::StatusOr<Material> MakeMaterial(MaterialModel model, const MaterialParameters& params) {
  RETURN_IF_ERROR(ValidateMaterialParameters(params));
  const double e = params.youngs_modulus;
  const double nu = params.poisson_ratio;
  Material material;
  material.model = model;
  material.mu = e / (2.0 * (1.0 + nu));
  material.lambda = e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  material.density = params.density;
  return material;
}

double PlaneStressLambda(double mu, double lambda) {
  return 2.0 * mu * lambda / (lambda + 2.0 * mu);
}

}  // namespace contactsim::core
