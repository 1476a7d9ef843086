#include "core/dynamics/local_global/hyperelastic_body.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

absl::StatusOr<Material> MaterialOf(const HyperelasticBodyParams& params) {
  if (absl::Status s = ValidateMaterialParameters(params.material); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("material.", s.message()));
  }
  absl::StatusOr<Material> material = MakeMaterial(params.model, params.material);
  if (!material.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("material: ", material.status().message()));
  }
  return material;
}

absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> MakeSolver(
    const TetMesh& mesh, const HyperelasticBodyParams& params, const Material& material,
    const std::vector<int>& pinned, std::shared_ptr<Backend> backend,
    const std::vector<VertexTargets>& targets = {}, const SelfContactSetting& self_contact = {},
    double self_exclusion_m = 0.0, int64_t max_factor_backend_bytes = 0) {
  if (!(std::isfinite(params.time_step_s) && params.time_step_s > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("time_step_s: must be finite and > 0, got ", params.time_step_s));
  }
  LocalGlobalOptions options;
  options.iterations = params.iterations;
  options.contact_proximity_m = params.contact_proximity_m;
  options.contact = params.contact;
  options.pinned_vertices.assign(pinned.begin(), pinned.end());
  options.constraints.targets = ToPositionTargets(targets, 0);
  options.body_contact.enabled = self_contact.enabled;
  options.body_contact.self_contact = self_contact.enabled;
  options.body_contact.friction_coefficient = self_contact.friction_coefficient;
  options.body_contact.self_exclusion_m = self_exclusion_m;
  options.max_factor_backend_bytes = max_factor_backend_bytes;
  return LocalGlobalSolver::Create(mesh, material, params.time_step_s, options, std::move(backend));
}

}  // namespace

bool SameTargetTerms(const std::vector<VertexTargets>& a, const std::vector<VertexTargets>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].vertices != b[i].vertices || a[i].stiffness_n_per_m != b[i].stiffness_n_per_m) {
      return false;
    }
  }
  return true;
}

std::vector<PositionTarget> ToPositionTargets(const std::vector<VertexTargets>& targets,
                                              int32_t vertex_offset) {
  std::vector<PositionTarget> out;
  for (const VertexTargets& t : targets) {
    PositionTarget term;
    for (int32_t v : t.vertices) term.vertices.push_back(vertex_offset + v);
    term.anchors_m = t.targets_m;
    term.compliance_m_per_n = 1.0 / t.stiffness_n_per_m;
    out.push_back(std::move(term));
  }
  return out;
}

HyperelasticBody::HyperelasticBody(TetMesh mesh, Eigen::VectorXd masses_kg,
                                   const HyperelasticBodyParams& params, Material material,
                                   std::vector<int> pinned,
                                   std::unique_ptr<LocalGlobalSolver> solver)
    : ParticleBody(mesh.vertices(), std::move(masses_kg), pinned, /*mass_damping_per_s=*/0.0),
      mesh_(std::move(mesh)),
      params_(params),
      material_(std::move(material)),
      pinned_vertices_(std::move(pinned)),
      solver_(std::move(solver)),
      solver_eliminated_(EliminatedVertices()) {}

absl::StatusOr<std::unique_ptr<HyperelasticBody>> HyperelasticBody::Create(
    TetMesh mesh, const HyperelasticBodyParams& params, std::shared_ptr<Backend> backend,
    const std::vector<int>& pinned_vertices, int64_t max_factor_backend_bytes) {
  ASSIGN_OR_RETURN(Material material, MaterialOf(params));
  ASSIGN_OR_RETURN(std::unique_ptr<LocalGlobalSolver> solver,
                   MakeSolver(mesh, params, material, pinned_vertices, std::move(backend),
                              /*targets=*/{}, /*self_contact=*/{}, /*self_exclusion_m=*/0.0,
                              max_factor_backend_bytes));
  Eigen::VectorXd masses = solver->lumped_mass_kg();
  RETURN_IF_ERROR(CheckMassesAndPins(masses, pinned_vertices));
  return std::unique_ptr<HyperelasticBody>(
      new HyperelasticBody(std::move(mesh), std::move(masses), params, std::move(material),
                           pinned_vertices, std::move(solver)));
}

absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> HyperelasticBody::RebuildSolver(
    const std::vector<int>& eliminated, const std::vector<VertexTargets>& targets,
    const SelfContactSetting& self_contact, std::shared_ptr<Backend> backend) const {
  ASSIGN_OR_RETURN(std::unique_ptr<LocalGlobalSolver> solver,
                   MakeSolver(mesh_, params_, material_, eliminated, std::move(backend), targets,
                              self_contact, SelfExclusionDistanceM()));
  RETURN_IF_ERROR(
      solver->SetContactMemory(solver_->previous_contacts(), solver_->previous_contact_forces_n()));
  return solver;
}

absl::StatusOr<std::unique_ptr<HyperelasticBody>> HyperelasticBody::Clone() const {
  return Clone(solver_->backend());
}

absl::StatusOr<std::unique_ptr<HyperelasticBody>> HyperelasticBody::Clone(
    std::shared_ptr<Backend> backend) const {
  ASSIGN_OR_RETURN(
      std::unique_ptr<LocalGlobalSolver> solver,
      RebuildSolver(solver_eliminated_, solver_targets_, solver_self_contact_, std::move(backend)));
  auto copy = std::unique_ptr<HyperelasticBody>(new HyperelasticBody(*this, std::move(solver)));
  return copy;
}

absl::Status HyperelasticBody::MoveToBackend(std::shared_ptr<Backend> backend) {
  if (backend == nullptr) return absl::InvalidArgumentError("backend: must not be null");
  if (backend == solver_->backend()) return absl::OkStatus();
  ASSIGN_OR_RETURN(
      std::unique_ptr<LocalGlobalSolver> solver,
      RebuildSolver(solver_eliminated_, solver_targets_, solver_self_contact_, std::move(backend)));
  RETURN_IF_ERROR(solver->SetObstacles(half_spaces_, mesh_obstacles_));
  solver_ = std::move(solver);
  return absl::OkStatus();
}

HyperelasticBody::HyperelasticBody(const HyperelasticBody& other,
                                   std::unique_ptr<LocalGlobalSolver> solver)
    : ParticleBody(other),
      mesh_(other.mesh_),
      params_(other.params_),
      material_(other.material_),
      pinned_vertices_(other.pinned_vertices_),
      solver_(std::move(solver)),
      solver_eliminated_(other.solver_eliminated_),
      world_targets_(other.world_targets_),
      solver_targets_(other.solver_targets_),
      self_contact_(other.self_contact_),
      solver_self_contact_(other.solver_self_contact_),
      time_s_(other.time_s_) {}

std::vector<int> HyperelasticBody::EliminatedVertices() const {
  std::vector<int> out;
  for (int i = 0; i < num_vertices(); ++i) {
    if (is_pinned(i)) out.push_back(i);
  }
  return out;
}

absl::Status HyperelasticBody::MatchSolverToConstraints() {
  std::vector<int> eliminated = EliminatedVertices();
  if (solver_->factored() && eliminated == solver_eliminated_ &&
      SameTargetTerms(world_targets_, solver_targets_) && self_contact_ == solver_self_contact_) {
    for (size_t i = 0; i < world_targets_.size(); ++i) {
      if (absl::Status s =
              solver_->SetTargetAnchors(static_cast<int>(i), world_targets_[i].targets_m);
          !s.ok()) {
        return s;
      }
    }
    solver_targets_ = world_targets_;
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<LocalGlobalSolver> solver,
                   RebuildSolver(eliminated, world_targets_, self_contact_, solver_->backend()));
  RETURN_IF_ERROR(solver->SetObstacles(half_spaces_, mesh_obstacles_));
  solver_ = std::move(solver);
  solver_eliminated_ = std::move(eliminated);
  solver_targets_ = world_targets_;
  solver_self_contact_ = self_contact_;
  return absl::OkStatus();
}

double HyperelasticBody::SelfExclusionDistanceM() const {
  const TriangleMesh& s = mesh_.surface();
  double longest = 0.0;
  for (int e = 0; e < s.num_edges(); ++e) {
    longest = std::max(
        longest, (s.vertices().row(s.edges()(e, 0)) - s.vertices().row(s.edges()(e, 1))).norm());
  }
  return longest + params_.contact_proximity_m;
}

absl::Status HyperelasticBody::RestoreSolverState(double time_s,
                                                  std::vector<VertexContact> contacts,
                                                  Eigen::VectorXd lambda_n) {
  if (!(std::isfinite(time_s) && time_s >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("solver_time_s: must be finite and >= 0, got ", time_s));
  }
  RETURN_IF_ERROR(solver_->SetContactMemory(std::move(contacts), std::move(lambda_n)));
  time_s_ = time_s;
  return absl::OkStatus();
}

double HyperelasticBody::StableTimeStepEstimate() const {
  return std::numeric_limits<double>::infinity();
}

absl::Status HyperelasticBody::SetObstacles(std::vector<HalfSpaceObstacle> obstacles,
                                            std::vector<TriangleMeshObstacle> mesh_obstacles) {
  RETURN_IF_ERROR(solver_->SetObstacles(obstacles, mesh_obstacles));
  // Kept for a solver refactored for a new held set before the next step.
  half_spaces_ = std::move(obstacles);
  mesh_obstacles_ = std::move(mesh_obstacles);
  return absl::OkStatus();
}

absl::Status HyperelasticBody::StepImplicit(double dt_s, const Vec3& gravity_m_per_s2,
                                            LocalGlobalStepStats* stats) {
  ImplicitStep step;
  RETURN_IF_ERROR(SolveImplicit(dt_s, gravity_m_per_s2, stats, nullptr, &step));
  return CommitImplicit(std::move(step));
}

absl::Status HyperelasticBody::SolveImplicit(double dt_s, const Vec3& gravity_m_per_s2,
                                             LocalGlobalStepStats* stats,
                                             const std::function<absl::Status()>* interrupt,
                                             ImplicitStep* step) {
  if (dt_s != params_.time_step_s) {
    return absl::FailedPreconditionError(
        absl::StrCat("dt_s: ", dt_s, " differs from the time step ", params_.time_step_s,
                     " the body's system matrix was factored for"));
  }
  RETURN_IF_ERROR(MatchSolverToConstraints());
  step->end = StepStartState();
  const Points3 targets = EliminatedTargets(solver_eliminated_);
  return solver_->Solve(StepForcesN(gravity_m_per_s2), &step->end,
                        has_driven_vertices() ? &targets : nullptr, stats, interrupt,
                        &step->memory);
}

absl::Status HyperelasticBody::CommitImplicit(ImplicitStep step) {
  solver_->Commit(std::move(step.memory));
  return AcceptImplicitStep(step.end);
}

void HyperelasticBody::AbandonStep() {
  ParticleBody::AbandonStep();
  driven_.clear();
  driven_x_t1_m_.resize(0, 3);
}

Points3 HyperelasticBody::StepForcesN(const Vec3& gravity_m_per_s2) const {
  Points3 f_ext_n = pending_forces_n();
  for (int i = 0; i < num_vertices(); ++i) {
    f_ext_n.row(i) += masses()[i] * gravity_m_per_s2.transpose();
  }
  return f_ext_n;
}

absl::Status HyperelasticBody::AcceptImplicitStep(const LocalGlobalState& end) {
  double driver_work_j = 0.0;
  if (!driven_.empty()) {
    // The holder takes up the elastic force f on its vertex: it pushes with -f.
    const Points3 f0 = solver_->ElasticForces(positions_t0());
    const Points3 f1 = solver_->ElasticForces(end.x_m);
    for (int32_t v : driven_) {
      driver_work_j -= 0.5 * (f0.row(v) + f1.row(v)).dot(end.x_m.row(v) - positions_t0().row(v));
    }
  }
  RETURN_IF_ERROR(FinishImplicitStep(end.x_m, end.v_mps, driven_, driver_work_j));
  time_s_ = end.time_s;
  driven_.clear();
  driven_x_t1_m_.resize(0, 3);
  return absl::OkStatus();
}

void HyperelasticBody::SetDrivenVertices(std::vector<int32_t> vertices, Points3 x_t1_m) {
  driven_ = std::move(vertices);
  driven_x_t1_m_ = std::move(x_t1_m);
}

Points3 HyperelasticBody::EliminatedTargets(const std::vector<int>& eliminated) const {
  Points3 targets(static_cast<Eigen::Index>(eliminated.size()), 3);
  for (size_t j = 0; j < eliminated.size(); ++j) {
    targets.row(static_cast<Eigen::Index>(j)) = positions_t0().row(eliminated[j]);
  }
  for (size_t d = 0; d < driven_.size(); ++d) {
    const auto it = std::lower_bound(eliminated.begin(), eliminated.end(), driven_[d]);
    if (it == eliminated.end() || *it != driven_[d]) continue;  // not held: nothing to drive
    targets.row(it - eliminated.begin()) = driven_x_t1_m_.row(static_cast<Eigen::Index>(d));
  }
  return targets;
}

void HyperelasticBody::AddInternalForces(const Points3& /*x*/, const Points3& /*v*/,
                                         Points3* /*forces*/) const {
  // The elastic forces act inside the implicit step (StepImplicit), never explicitly.
}

double HyperelasticBody::ElasticEnergyAt(const Points3& x) const {
  return solver_->ElasticEnergy(x);
}

}  // namespace contactsim::core
