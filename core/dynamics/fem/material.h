// Hyperelastic materials of the local-global (ADMM-PD) pipeline: ARAP, co-rotational and stable
// Neo-Hookean, parameterised by Young's modulus E [Pa], Poisson ratio nu [-] and density
// rho [kg/m^3]. The Lame parameters are
//   mu     = E / (2 (1 + nu))                   [Pa]
//   lambda = E nu / ((1 + nu) (1 - 2 nu))       [Pa]
// so that every model linearises at F = I to the linear-elasticity tensor with (mu, lambda)
// (ARAP ignores lambda: it has no volume term). The energy densities themselves are in
// hyperelastic_energy.h.
//
// Membranes (3x2 deformation gradients of cloth triangles) use the same formulas; a thin sheet in
// plane stress should pass PlaneStressLambda(mu, lambda) as lambda.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace contactsim::core {

enum class MaterialModel { kArap, kCorotational, kNeoHookean };

absl::string_view MaterialModelName(MaterialModel model);

// User-facing parameters, validated by MakeMaterial.
struct MaterialParameters {
  double youngs_modulus = 0.0;  // E [Pa], > 0
  double poisson_ratio = 0.0;   // nu [-], in (-1, 0.5)
  double density = 0.0;         // rho [kg/m^3], > 0
};

// A validated material: the model and its Lame parameters.
struct Material {
  MaterialModel model = MaterialModel::kArap;
  double mu = 0.0;       // [Pa]
  double lambda = 0.0;   // [Pa]
  double density = 0.0;  // [kg/m^3]
};

// InvalidArgument naming the field when E <= 0, nu outside (-1, 0.5), rho <= 0 or any is not
// finite.
absl::Status ValidateMaterialParameters(const MaterialParameters& params);

absl::StatusOr<Material> MakeMaterial(MaterialModel model, const MaterialParameters& params);

// Plane-stress first Lame parameter 2 mu lambda / (lambda + 2 mu) [Pa] for thin membranes.
double PlaneStressLambda(double mu, double lambda);

}  // namespace contactsim::core
