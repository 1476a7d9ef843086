#include "core/dynamics/local_global/local_global_solver.h"

#include <chrono>
#include <cmath>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/fem/hyperelastic_energy.h"
#include "core/dynamics/local_global/contact_stage.h"
#include "core/dynamics/local_global/system_matrix.h"

namespace contactsim::core {

int64_t FactorBackendBytes(const FactorCounts& counts, GlobalStepKind global_step,
                           int64_t a_nonzeros) {
  const int64_t n = counts.n;
  const auto csr = [n](int64_t nonzeros) {
    return nonzeros * static_cast<int64_t>(sizeof(double) + sizeof(int32_t)) +
           (n + 1) * static_cast<int64_t>(sizeof(int32_t));
  };
  const int64_t block = n * 3 * static_cast<int64_t>(sizeof(double));
  switch (global_step) {
    case GlobalStepKind::kSparseInverse:
      return 4 * block + 2 * csr(counts.s_nonzeros);
    case GlobalStepKind::kJacobi:
      return 3 * block + csr(n) + csr(a_nonzeros - n);
    case GlobalStepKind::kCompleteSolve:
      return 3 * block;
  }
  return 0;
}

absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> LocalGlobalSolver::Create(
    const TetMesh& mesh, const Material& material, double time_step_s,
    const LocalGlobalOptions& options, std::shared_ptr<Backend> backend) {
  auto assembly = AssembleTetBody(mesh, material, time_step_s, options);
  if (!assembly.ok()) return assembly.status();
  return CreateFromAssembly(*std::move(assembly), time_step_s, options, std::move(backend));
}

absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> LocalGlobalSolver::Create(
    const std::vector<LocalGlobalBody>& bodies, double time_step_s,
    const LocalGlobalOptions& options, std::shared_ptr<Backend> backend) {
  auto assembly = AssembleTetBodies(bodies, time_step_s, options);
  if (!assembly.ok()) return assembly.status();
  return CreateFromAssembly(*std::move(assembly), time_step_s, options, std::move(backend));
}

absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> LocalGlobalSolver::Create(
    const TriangleMesh& mesh, double thickness_m, const Material& material, double time_step_s,
    const LocalGlobalOptions& options, std::shared_ptr<Backend> backend) {
  auto assembly = AssembleCloth(mesh, thickness_m, material, time_step_s, options);
  if (!assembly.ok()) return assembly.status();
  return CreateFromAssembly(*std::move(assembly), time_step_s, options, std::move(backend));
}

absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> LocalGlobalSolver::CreateFromAssembly(
    LocalGlobalAssembly assembly, double time_step_s, const LocalGlobalOptions& options,
    std::shared_ptr<Backend> backend) {
  if (backend == nullptr) {
    return absl::InvalidArgumentError(
        "backend: must not be null (pass the World's backend, or a CpuBackend)");
  }
  SystemMatrix& system = assembly.system;
  const ElementIndices& elements = assembly.elements;
  const int columns = assembly.columns;
  const TriangleMesh& surface = *assembly.surface;
  std::vector<int32_t>& vertex_body = assembly.vertex_body;
  const int n = static_cast<int>(system.lumped_mass_kg.size());
  std::vector<int32_t> free_index(n, 0);
  for (size_t j = 0; j < options.pinned_vertices.size(); ++j) {
    const int32_t p = options.pinned_vertices[j];
    if (p < 0 || p >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("options.pinned_vertices: index ", p, " out of range [0, ", n, ")"));
    }
    if (free_index[p] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("options.pinned_vertices: index ", p, " repeated"));
    }
    free_index[p] = -1 - static_cast<int32_t>(j);  // pinned: -1 - (index in the pinned list)
  }
  if (options.max_factor_backend_bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("options.max_factor_backend_bytes: must be >= 0 (0: no limit), got ",
                     options.max_factor_backend_bytes));
  }
  if (static_cast<int>(options.pinned_vertices.size()) == n) {
    return absl::InvalidArgumentError("options.pinned_vertices pins every vertex");
  }
  auto constraint_terms = ConstraintTerms::Create(options.constraints, n);
  if (!constraint_terms.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("options.", constraint_terms.status().message()));
  }

  auto solver = std::unique_ptr<LocalGlobalSolver>(new LocalGlobalSolver());
  if (!options.mesh_obstacles.empty()) {
    // A cloth (membrane triangles) is an open surface, free on both sides.
    auto detector = MeshContactDetector::Create(
        surface, options.mesh_obstacles,
        columns == 2 ? BodySurfaceKind::kOpenTwoSided : BodySurfaceKind::kClosed);
    if (!detector.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("options.", detector.status().message()));
    }
    solver->mesh_detector_ = *std::move(detector);
  }
  solver->surface_ = surface;
  if (options.body_contact.enabled) {
    auto detector = BodyContactDetector::Create(surface, vertex_body, options.body_contact);
    if (!detector.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("options.", detector.status().message()));
    }
    solver->body_detector_ = *std::move(detector);
  }
  solver->groups_ = std::move(assembly.groups);
  solver->vertex_body_ = std::move(vertex_body);
  solver->body_vertex_offset_ = std::move(assembly.body_vertex_offset);
  solver->bending_q_ = std::move(assembly.bending_q);
  solver->h_ = time_step_s;
  solver->options_ = options;
  solver->columns_ = columns;
  solver->constraint_terms_ = *std::move(constraint_terms);
  solver->mass_kg_ = system.lumped_mass_kg;
  const int m = static_cast<int>(elements.rows());
  const int verts = static_cast<int>(elements.cols());  // columns + 1
  solver->weights_ = system.element_weight;
  solver->volumes_m3_.resize(m);
  std::vector<Eigen::Triplet<double, int32_t>> g_triplets;
  std::vector<Eigen::Triplet<double, int32_t>> gw_triplets;
  g_triplets.reserve(verts * columns * m);
  gw_triplets.reserve(verts * columns * m);
  for (const ElementGroup& group : solver->groups_) {
    for (int32_t e = group.begin; e < group.end; ++e) {
      solver->volumes_m3_[e] = solver->weights_[e] / group.k;  // w_e = k V_e
    }
  }
  for (int e = 0; e < m; ++e) {
    const Eigen::MatrixXd& b = system.element_b[e];  // (columns + 1) x columns
    for (int a = 0; a < verts; ++a) {
      const int32_t vertex = elements(e, a);
      for (int c = 0; c < columns; ++c) {
        g_triplets.emplace_back(columns * e + c, vertex, b(a, c));
        gw_triplets.emplace_back(vertex, columns * e + c, solver->weights_[e] * b(a, c));
      }
    }
  }
  solver->g_.resize(columns * m, n);
  solver->g_.setFromTriplets(g_triplets.begin(), g_triplets.end());
  solver->gw_t_.resize(n, columns * m);
  solver->gw_t_.setFromTriplets(gw_triplets.begin(), gw_triplets.end());
  if (!solver->constraint_terms_.empty()) {
    // The constraints' constant h^2 w G^T G joins Abar before it is split and factored.
    std::vector<Eigen::Triplet<double, int32_t>> extra;
    solver->constraint_terms_.AppendSystemMatrix(time_step_s, &extra);
    OrderedCholesky::ColMajorSparse added(n, n);
    added.setFromTriplets(extra.begin(), extra.end());
    system.a_bar += added;
  }

  // Eliminate the pinned vertices: Abar_ff is factored, Abar_fp moves to the right-hand side.
  int32_t num_free = 0;
  for (int i = 0; i < n; ++i) {
    if (free_index[i] >= 0) {
      free_index[i] = num_free++;
      solver->free_.push_back(i);
    }
  }
  solver->free_index_ = free_index;
  const int num_pinned = n - num_free;
  OrderedCholesky::ColMajorSparse a_ff(num_free, num_free);
  {
    std::vector<Eigen::Triplet<double, int32_t>> ff, fp;
    const auto& a_bar = system.a_bar;
    for (int col = 0; col < a_bar.outerSize(); ++col) {
      for (OrderedCholesky::ColMajorSparse::InnerIterator it(a_bar, col); it; ++it) {
        const int32_t fr = free_index[it.row()];
        const int32_t fc = free_index[col];
        if (fr < 0) continue;
        if (fc >= 0) {
          ff.emplace_back(fr, fc, it.value());
        } else {
          fp.emplace_back(fr, -1 - fc, it.value());
        }
      }
    }
    a_ff.setFromTriplets(ff.begin(), ff.end());
    solver->a_fp_.resize(num_free, num_pinned);
    solver->a_fp_.setFromTriplets(fp.begin(), fp.end());
  }

  solver->backend_ = backend;
  OrderedCholesky::Admit admit;
  if (options.max_factor_backend_bytes > 0) {
    admit = [&options, &a_ff](const FactorCounts& counts) {
      const int64_t bytes = FactorBackendBytes(counts, options.global_step, a_ff.nonZeros());
      return bytes > options.max_factor_backend_bytes
                 ? FactorOverLimitError(bytes, options.max_factor_backend_bytes, counts)
                 : absl::OkStatus();
    };
  }
  auto cholesky = OrderedCholesky::Compute(a_ff, options.ordering, admit);
  if (!cholesky.ok()) return cholesky.status();
  solver->cholesky_.emplace(*std::move(cholesky));
  for (DenseId* id : {&solver->b_id_, &solver->q_id_, &solver->q_prev_id_}) {
    auto created = backend->CreateDense(num_free, 3);
    if (!created.ok()) return created.status();
    *id = *created;
  }
  switch (options.global_step) {
    case GlobalStepKind::kSparseInverse: {
      // The host's S, R and R^T only feed the backend's copies: freed once they are uploaded.
      auto factor = SparseInverseFactor::Compute(*solver->cholesky_);
      if (!factor.ok()) return factor.status();
      auto step = SparseInverseGlobalStep::Create(*backend, *factor, 3);
      if (!step.ok()) return step.status();
      solver->sparse_inverse_step_.emplace(*std::move(step));
      solver->global_step_on_host_ =
          backend->name() == "cpu" && !options.cpu_sparse_inverse_products;
      break;
    }
    case GlobalStepKind::kJacobi: {
      auto step = JacobiGlobalStep::Create(*backend, a_ff);
      if (!step.ok()) return step.status();
      solver->jacobi_step_.emplace(*std::move(step));
      break;
    }
    case GlobalStepKind::kCompleteSolve:
      break;
  }
  return solver;
}

LocalGlobalSolver::~LocalGlobalSolver() {
  if (backend_ == nullptr) return;
  for (DenseId id : {b_id_, q_id_, q_prev_id_}) {
    if (id.value >= 0) backend_->ReleaseDense(id).IgnoreError();
  }
}

absl::Status LocalGlobalSolver::Validate(const Points3& p, const char* field) const {
  if (p.rows() != num_vertices()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " has ", p.rows(), " rows, expected ", num_vertices()));
  }
  if (!p.allFinite()) return absl::InvalidArgumentError(absl::StrCat(field, " is not finite"));
  return absl::OkStatus();
}

Eigen::VectorXd LocalGlobalSolver::DeformationGradients(const Points3& x_m) const {
  // Row 3e+c of G x is column c of F_e, so the row-major 3m x 3 product is exactly the
  // column-major F_e array that LocalStepBatch reads.
  Points3 f = g_ * x_m;
  return Eigen::Map<const Eigen::VectorXd>(f.data(), f.size());
}

absl::Status LocalGlobalSolver::GlobalSolve(const Block& b_free, Block* x_free) {
  switch (options_.global_step) {
    case GlobalStepKind::kCompleteSolve:
      *x_free = cholesky_->Solve(b_free);
      return absl::OkStatus();
    case GlobalStepKind::kSparseInverse: {
      if (global_step_on_host_) {
        *x_free = cholesky_->Solve(b_free);
        return absl::OkStatus();
      }
      if (absl::Status s = backend_->UploadDense(b_id_, {b_free.data(), size_t(b_free.size())});
          !s.ok()) {
        return s;
      }
      RETURN_IF_ERROR(sparse_inverse_step_->Solve(b_id_, q_id_));
      return backend_->DownloadDense(q_id_, {x_free->data(), size_t(x_free->size())});
    }
    case GlobalStepKind::kJacobi: {
      // One Jacobi iteration from the current iterate x^k (in *x_free).
      if (absl::Status s = backend_->UploadDense(b_id_, {b_free.data(), size_t(b_free.size())});
          !s.ok()) {
        return s;
      }
      if (absl::Status s =
              backend_->UploadDense(q_prev_id_, {x_free->data(), size_t(x_free->size())});
          !s.ok()) {
        return s;
      }
      RETURN_IF_ERROR(jacobi_step_->Step(b_id_, q_prev_id_, q_id_));
      return backend_->DownloadDense(q_id_, {x_free->data(), size_t(x_free->size())});
    }
  }
  return absl::InternalError("unknown global step");
}

absl::Status LocalGlobalSolver::SetObstacles(std::vector<HalfSpaceObstacle> obstacles,
                                             std::vector<TriangleMeshObstacle> mesh_obstacles) {
  LocalGlobalOptions candidate = options_;
  candidate.obstacles = std::move(obstacles);
  candidate.mesh_obstacles = std::move(mesh_obstacles);
  RETURN_IF_ERROR(ValidateLocalGlobalSettings(groups_.front().material, h_, candidate));
  std::unique_ptr<MeshContactDetector> detector;
  if (!candidate.mesh_obstacles.empty()) {
    auto created = MeshContactDetector::Create(
        *surface_, candidate.mesh_obstacles,
        columns_ == 2 ? BodySurfaceKind::kOpenTwoSided : BodySurfaceKind::kClosed);
    if (!created.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("options.", created.status().message()));
    }
    detector = *std::move(created);
  }
  options_.obstacles = std::move(candidate.obstacles);
  options_.mesh_obstacles = std::move(candidate.mesh_obstacles);
  mesh_detector_ = std::move(detector);
  elapsed_s_ = 0.0;
  return absl::OkStatus();
}

absl::Status LocalGlobalSolver::SetContactMemory(std::vector<VertexContact> contacts,
                                                 Eigen::VectorXd lambda_n) {
  if (lambda_n.size() != 3 * static_cast<Eigen::Index>(contacts.size())) {
    return absl::InvalidArgumentError(absl::StrCat("lambda_n: ", lambda_n.size(), " rows for ",
                                                   contacts.size(), " contacts (3 each)"));
  }
  previous_contacts_ = std::move(contacts);
  previous_lambda_ = std::move(lambda_n);
  return absl::OkStatus();
}

void LocalGlobalSolver::ReleaseFactors() {
  sparse_inverse_step_.reset();  // its backend copies first, then the factor they came from
  jacobi_step_.reset();
  cholesky_.reset();
}

ContactStageInputs LocalGlobalSolver::ContactInputs() {
  ContactStageInputs in;
  in.obstacles = &options_.obstacles;
  in.mesh_detector = mesh_detector_.get();
  in.body_detector = body_detector_.get();
  in.free_index = &free_index_;
  in.free = &free_;
  in.proximity_m = options_.contact_proximity_m;
  in.time_step_s = h_;
  in.elapsed_s = elapsed_s_;
  in.newton = &options_.contact;
  in.warm_start = options_.contact_warm_start;
  in.previous_contacts = &previous_contacts_;
  in.previous_lambda = &previous_lambda_;
  in.backend = backend_.get();
  // Contact needs the sparse inverse global step (ValidateLocalGlobalSettings), so it is there.
  if (sparse_inverse_step_.has_value()) in.r_transpose = sparse_inverse_step_->r_transpose();
  return in;
}

absl::Status LocalGlobalSolver::LocalSteps(int k, const Eigen::VectorXd& f, Eigen::VectorXd* duals,
                                           Eigen::VectorXd* z, LocalStepStats* stats,
                                           PhaseClock* clock, LocalGlobalPhaseTimes* times) {
  std::mutex stats_mutex;
  // One batch per element group (material); entries 3 columns_ per element.
  for (const ElementGroup& group : groups_) {
    const size_t first = size_t(3 * columns_) * group.begin;
    const size_t count = size_t(3 * columns_) * (group.end - group.begin);
    LocalStepBatch batch;
    batch.material = group.material;
    batch.columns = columns_;
    batch.deformation_gradients = {f.data() + first, count};
    batch.volumes =
        absl::Span<const double>(volumes_m3_).subspan(group.begin, group.end - group.begin);
    batch.weights =
        absl::Span<const double>(weights_).subspan(group.begin, group.end - group.begin);
    batch.duals = {duals->data() + first, count};
    batch.projections = {z->data() + first, count};
    batch.options = options_.local_step;
    if (k == 0) {
      RETURN_IF_ERROR(ValidateLocalStepBatch(batch));
    }
    clock->Lap(&times->rhs_ms);
    // Each range writes only its own elements' z and u; the stats are merged under a lock
    // (integer sums, so the merge order does not matter).
    absl::Status s =
        backend_->ForEachElementRange(group.end - group.begin, [&](int32_t begin, int32_t end) {
          const LocalStepStats part = RunLocalSteps(batch, begin, end);
          std::lock_guard<std::mutex> lock(stats_mutex);
          AccumulateLocalStepStats(part, stats);
        });
    if (!s.ok()) return s;
    clock->Lap(&times->local_ms);
  }
  return absl::OkStatus();
}

absl::Status LocalGlobalSolver::Step(const Points3& f_ext_n, LocalGlobalState* state,
                                     const Points3* pinned_targets_m, LocalGlobalStepStats* stats) {
  StepMemory memory;
  RETURN_IF_ERROR(Solve(f_ext_n, state, pinned_targets_m, stats, nullptr, &memory));
  Commit(std::move(memory));
  return absl::OkStatus();
}

void LocalGlobalSolver::Commit(StepMemory memory) {
  elapsed_s_ += h_;
  previous_contacts_ = std::move(memory.contacts);
  previous_lambda_ = std::move(memory.lambda_n);
}

absl::Status LocalGlobalSolver::Solve(const Points3& f_ext_n, LocalGlobalState* state,
                                      const Points3* pinned_targets_m, LocalGlobalStepStats* stats,
                                      const std::function<absl::Status()>* interrupt,
                                      StepMemory* memory) {
  if (!factored()) {
    return absl::FailedPreconditionError("solver: its factors were released (ReleaseFactors)");
  }
  if (state == nullptr) return absl::InvalidArgumentError("state is null");
  const auto frame_start = std::chrono::steady_clock::now();
  PhaseClock clock;
  LocalGlobalPhaseTimes times;
  RETURN_IF_ERROR(Validate(state->x_m, "state.x_m"));
  RETURN_IF_ERROR(Validate(state->v_mps, "state.v_mps"));
  RETURN_IF_ERROR(Validate(f_ext_n, "f_ext_n"));
  const auto& pinned = options_.pinned_vertices;
  const int num_pinned = static_cast<int>(pinned.size());
  Points3 x_pinned(num_pinned, 3);
  for (int p = 0; p < num_pinned; ++p) x_pinned.row(p) = state->x_m.row(pinned[p]);
  if (pinned_targets_m != nullptr) {
    if (pinned_targets_m->rows() != num_pinned || !pinned_targets_m->allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat("pinned_targets_m must be finite with ",
                                                     num_pinned, " rows (one per pinned vertex)"));
    }
    x_pinned = *pinned_targets_m;
  }

  const int num_free = static_cast<int>(free_.size());
  const int m = num_elements();
  const double h2 = h_ * h_;
  const double time_end_s = state->time_s + h_;  // implicit Euler: targets at the step's end
  const Points3 y = Predictor(*state, f_ext_n);
  Points3 my = mass_kg_.asDiagonal() * y;
  // Free right-hand side constant over the iterations: (M y)_f - Abar_fp x_p.
  Block rhs_const(num_free, 3);
  for (int i = 0; i < num_free; ++i) rhs_const.row(i) = my.row(free_[i]);
  if (num_pinned > 0) rhs_const -= a_fp_ * x_pinned;

  Points3 x = y;
  for (int p = 0; p < num_pinned; ++p) x.row(pinned[p]) = x_pinned.row(p);
  Block x_free(num_free, 3);
  for (int i = 0; i < num_free; ++i) x_free.row(i) = x.row(free_[i]);

  // Contact set and Delassus operator of the step (Alg. 4), fixed over its iterations.
  ContactStage contact;
  if (!options_.obstacles.empty() || mesh_detector_ != nullptr || body_detector_ != nullptr) {
    RETURN_IF_ERROR(contact.Begin(ContactInputs(), state->x_m, &clock, &times));
  }
  clock.Lap(&times.rhs_ms);

  const int entries = 3 * columns_ * m;  // F_e: 3 x columns_ per element
  Eigen::VectorXd duals = Eigen::VectorXd::Zero(entries);
  Eigen::VectorXd z(entries);
  Points3 z_minus_u(columns_ * m, 3);
  Points3 constraint_duals = Points3::Zero(constraint_terms_.num_dual_rows(), 3);
  LocalGlobalStepStats local_stats;
  Block b_free(num_free, 3);
  const ContactStage::GlobalSolveFn global_solve = [this](const Block& b, Block* q) {
    return GlobalSolve(b, q);
  };
  for (int k = 0; k < options_.iterations; ++k) {
    if (interrupt != nullptr) RETURN_IF_ERROR((*interrupt)());
    clock.Lap(&times.rhs_ms);
    const Eigen::VectorXd f = DeformationGradients(x);
    RETURN_IF_ERROR(LocalSteps(k, f, &duals, &z, &local_stats.local, &clock, &times));
    if (stats != nullptr) local_stats.primal_residual.push_back((f - z).norm());
    // z - u in the row-major 3m x 3 layout of G x (see DeformationGradients).
    Eigen::Map<Eigen::VectorXd>(z_minus_u.data(), z_minus_u.size()) = z - duals;
    Points3 elastic = h2 * (gw_t_ * z_minus_u);  // n x 3
    if (!constraint_terms_.empty()) {
      // The constraints' local step (projections at x^k) and their h^2 w G^T p.
      clock.Lap(&times.rhs_ms);
      constraint_terms_.AccumulateRightHandSide(x, time_end_s, h_, &constraint_duals, &elastic);
      clock.Lap(&times.local_ms);  // the constraints' projections are their local step
    }
    for (int i = 0; i < num_free; ++i) {
      b_free.row(i) = rhs_const.row(i) + elastic.row(free_[i]);
    }
    clock.Lap(&times.rhs_ms);
    RETURN_IF_ERROR(GlobalSolve(b_free, &x_free));
    clock.Lap(&times.global_ms);
    for (int i = 0; i < num_free; ++i) x.row(free_[i]) = x_free.row(i);
    if (contact.active()) {
      RETURN_IF_ERROR(contact.Correct(global_solve, &x, &x_free, &clock, &times, interrupt));
    }
    if (options_.iteration_observer) options_.iteration_observer(k + 1, x);
  }
  state->v_mps = (x - state->x_m) / h_;
  state->x_m = std::move(x);
  state->time_s = time_end_s;
  memory->contacts = contact.contacts();
  memory->lambda_n = contact.lambda();
  if (stats != nullptr) {
    clock.Lap(&times.rhs_ms);
    times.frame_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start)
            .count();
    local_stats.phase_times = times;
    local_stats.contacts = std::move(contact.contacts());
    local_stats.contact_force_n = std::move(contact.lambda());
    local_stats.contact_residual = std::move(contact.residuals());
    if (!constraint_terms_.empty()) {
      local_stats.constraint_reactions = constraint_terms_.Reactions(state->x_m, time_end_s);
    }
    *stats = std::move(local_stats);
  }
  return absl::OkStatus();
}

Points3 LocalGlobalSolver::Predictor(const LocalGlobalState& state, const Points3& f_ext_n) const {
  Points3 y = state.x_m + h_ * state.v_mps;
  if (f_ext_n.rows() > 0) y += (h_ * h_) * (mass_kg_.cwiseInverse().asDiagonal() * f_ext_n);
  return y;
}

double LocalGlobalSolver::ElasticEnergy(const Points3& x_m) const {
  const Eigen::VectorXd f = DeformationGradients(x_m);
  double energy = 0.0;
  for (const ElementGroup& group : groups_) {
    for (int32_t e = group.begin; e < group.end; ++e) {
      const double* f_e = f.data() + 3 * columns_ * e;
      energy +=
          volumes_m3_[e] *
          (columns_ == 3 ? EnergyDensity(group.material, Mat3(Eigen::Map<const Mat3>(f_e)))
                         : EnergyDensity(group.material, Mat32(Eigen::Map<const Mat32>(f_e))));
    }
  }
  if (bending_q_.nonZeros() > 0) energy += 0.5 * (x_m.transpose() * (bending_q_ * x_m)).trace();
  return energy;
}

Points3 LocalGlobalSolver::ElasticForces(const Points3& x_m) const {
  const Eigen::VectorXd f = DeformationGradients(x_m);
  // Row columns e + c of the stress block is V_e times column c of P(F_e), so that G^T of it is
  // dE/dx (G stacks the D_e by those rows).
  Points3 stress(static_cast<Eigen::Index>(columns_) * num_elements(), 3);
  for (const ElementGroup& group : groups_) {
    for (int32_t e = group.begin; e < group.end; ++e) {
      const double* f_e = f.data() + 3 * columns_ * e;
      if (columns_ == 3) {
        const Mat3 p = FirstPiolaKirchhoff(group.material, Mat3(Eigen::Map<const Mat3>(f_e)));
        stress.middleRows<3>(3 * e) = volumes_m3_[e] * p.transpose();
      } else {
        const Mat32 p = FirstPiolaKirchhoff(group.material, Mat32(Eigen::Map<const Mat32>(f_e)));
        stress.middleRows<2>(2 * e) = volumes_m3_[e] * p.transpose();
      }
    }
  }
  Points3 forces = -(g_.transpose() * stress);
  if (bending_q_.nonZeros() > 0) forces -= bending_q_ * x_m;
  return forces;
}

EnergyTerms LocalGlobalSolver::Energy(const Points3& x_m, const Points3& v_mps,
                                      const Points3& f_ext_n, double time_s) const {
  EnergyTerms terms;
  terms.kinetic_j = 0.5 * (mass_kg_.asDiagonal() * v_mps).cwiseProduct(v_mps).sum();
  terms.elastic_j = ElasticEnergy(x_m);
  if (f_ext_n.rows() > 0) terms.external_j = -f_ext_n.cwiseProduct(x_m).sum();
  terms.constraint_j = constraint_terms_.Energy(x_m, time_s);
  return terms;
}

double LocalGlobalSolver::IncrementalPotential(const Points3& x_m, const Points3& predictor_m,
                                               double time_end_s) const {
  const Points3 d = x_m - predictor_m;
  return 0.5 / (h_ * h_) * (mass_kg_.asDiagonal() * d).cwiseProduct(d).sum() + ElasticEnergy(x_m) +
         constraint_terms_.Energy(x_m, time_end_s);
}

}  // namespace contactsim::core
