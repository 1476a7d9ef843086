// Local-global (ADMM-PD) time step of one body (Zeng et al. 2024, Sec. 3.3, Alg. 1; Overby et al.
// 2017), implicit Euler: a tet mesh (3 x 3 F_e) or a cloth membrane of triangles (3 x 2 F_e,
// V_e = rest area x thickness), with optional compliant constraints (pins with moving targets,
// attachments, cables: constraint_terms.h) as constant terms of Abar and projections in the
// local step, and optional frictional contact against half-spaces (below).
//
// Symbols (n vertices, m tets, positions as n x 3 blocks, one vertex per row):
//   h      time step [s];  M = diag(m_v) lumped mass [kg];  f_ext external force [N]
//   x, v   positions [m] and velocities [m/s] at the start of the step
//   y      predictor y = x + h v + h^2 M^{-1} f_ext [m]
//   F_e    deformation gradient F_e = D_e x = X_e B_e (3 x 3, B_e from system_matrix.h) [-]
//   V_e    rest volume [m^3];  Psi material energy density [J/m^3] (hyperelastic_energy.h)
//   w_e    ADMM weight w_e = k V_e [J] with k [Pa] = options.admm_stiffness_pa, by default 2 mu
//          (ARAP) or 2 mu + lambda (co-rotational, Neo-Hookean): the stiffness of Psi at rest
//   z_e, u_e  proximal point and scaled ADMM dual (3 x 3, [-]), u reset to 0 at each step
//   Abar   scalar system matrix M + h^2 sum_e w_e B_e B_e^T [kg]  (A = Abar (x) I_3)
// The step minimises the incremental potential
//   g(x) = 1/(2 h^2) ||x - y||_M^2 + sum_e V_e Psi(D_e x)        [J / s^2 * s^2 = J]
// by `iterations` rounds of, starting from x^0 = y,
//   local:   z_e = argmin V_e Psi(z) + w_e/2 ||z - (F_e + u_e)||^2,  u_e += F_e - z_e
//            (RunLocalSteps, batched by Backend::ForEachElementRange)
//   global:  Abar x^{k+1} = M y + h^2 sum_e w_e D_e^T (z_e - u_e)
//            by the chosen global step: the sparse inverse R^T R b (Sec. 4.2), the complete solve
//            (two triangular solves with the same ordered factor), or one Jacobi iteration from
//            x^k (Wang 2015, the incomplete baseline),
// then v = (x^N - x) / h.
//
// Pinned vertices are ELIMINATED (exact, not soft): their rows and columns leave Abar before it
// is factored, their positions are set to the given targets (default: where they are) and the
// free right-hand side subtracts Abar_fp x_p. Their velocity is (target - x) / h. The pinned set
// is fixed at Create because Abar's factor depends on it.
//
// The local steps and the global solve run through the Backend; the products F = G x and
// G_w^T (z - u) (G stacks the D_e, G_w = diag(w) G) run on the host with Eigen (a GPU backend
// would move them to SpMM).
//
// Contact (Alg. 4, contact_stage.h): with options.obstacles, every step detects vertex / half-space
// contacts at its start (contact_frame.h; proximity options.contact_proximity_m), forms W = H
// A^{-1} H^T once (delassus.h) and, after each global step, runs the non-smooth Newton correction
// (nonsmooth_newton.h) and applies q += h^2 A^{-1} H^T lambda through S. Contact needs the sparse
// inverse global step (W is formed from S). options.mesh_obstacles adds triangle-mesh obstacles
// (static, translating and/or rotating; mesh_contact.h: vertex-triangle, edge-edge and
// triangle-vertex contacts) to the same contact set; a cloth is detected as an open, two-sided
// surface (BodySurfaceKind::kOpenTwoSided).
//
// Several bodies: Create(std::vector<LocalGlobalBody>) concatenates tet meshes into ONE system
// (Zeng et al. 2024, Sec. 5, Eq. 18: all objects coupled through the contact rows): the vertices
// of body b follow those of bodies 0..b-1, so Abar is block diagonal (one block per body; METIS
// orders each block's graph on its own), each body keeps its material (density, Lame parameters,
// default ADMM weight) and its elements run their local steps with it. options.body_contact adds
// contacts between different bodies (body_contact.h) to the contact set. Pins, constraints and
// obstacles index the concatenated vertices (body_vertex_offset(b) + local index).
//
// Every Create assembles its model (local_global_assembly.h) and then takes one path.
//
// Errors: InvalidArgument naming the field for bad options, material, time step, pinned indices
// or state shapes / non-finite values; errors of the factorization are passed through.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/fem/local_step.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/body_contact.h"
#include "core/dynamics/local_global/constraint_terms.h"
#include "core/dynamics/local_global/contact_frame.h"
#include "core/dynamics/local_global/factor_counts.h"
#include "core/dynamics/local_global/jacobi_global_step.h"
#include "core/dynamics/local_global/local_global_assembly.h"
#include "core/dynamics/local_global/mesh_contact.h"
#include "core/dynamics/local_global/nonsmooth_newton.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/phase_times.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"
#include "core/linalg/backend.h"

namespace contactsim::core {

struct ContactStageInputs;

enum class GlobalStepKind { kSparseInverse, kCompleteSolve, kJacobi };

struct LocalGlobalOptions {
  GlobalStepKind global_step = GlobalStepKind::kSparseInverse;
  // kSparseInverse on a CpuBackend: false (default) applies A^-1 in the global step by the two
  // triangular solves with the same Cholesky factor, true by the S products as a GPU does. The
  // same operator either way (results agree to rounding, ~1e-15 relative); the solves read
  // nnz(L) <= nnz(S) entries twice (S's column j is L's pattern closed over the elimination-tree
  // path), and measured on bar5k one thread they take 2.5 ms against S's 5.3 ms
  // (local_global_bench prints both). S is still built: the Delassus operator needs R^T. A fixed
  // rule, not a timing at start-up, so that a snapshot replays with the same bits.
  bool cpu_sparse_inverse_products = false;
  int iterations = 10;                   // local-global rounds per time step, >= 1
  double admm_stiffness_pa = 0.0;        // k in w_e = k V_e [Pa]; 0 picks the default above
  std::vector<int32_t> pinned_vertices;  // distinct, in range, not all vertices
  FillOrdering ordering = FillOrdering::kNestedDissection;
  LocalStepOptions local_step;
  // Static obstacles for frictional contact (empty: contact-free). Needs kSparseInverse.
  std::vector<HalfSpaceObstacle> obstacles;
  // Static or kinematic (constant velocity and angular velocity) triangle-mesh obstacles,
  // mesh_contact.h. Needs kSparseInverse. Their time is the solver's: steps taken x time step.
  std::vector<TriangleMeshObstacle> mesh_obstacles;
  // A vertex whose gap at the start of a step is below this gets a contact for the step [m].
  double contact_proximity_m = 1e-2;
  // Contact between the different bodies of a multi-body solver, optionally self contact
  // (body_contact.h). Needs kSparseInverse.
  BodyContactOptions body_contact;
  NonsmoothNewtonOptions contact;
  // Start each step's multipliers from the previous step's for the same contact
  // (contact_warm_start.h; half-space frames never change, so those values carry over
  // unchanged); false starts from 0 as Alg. 4 reads. See docs/local_global.md for what it
  // changes.
  bool contact_warm_start = true;
  // Compliant positional targets (moving or not), attachments and cables (constraint_terms.h):
  // constant terms of Abar, projections in each local step. Vertex indices are mesh indices.
  ConstraintTermsSpec constraints;
  // Cloth only: isometric bending stiffness k_b [J] (cloth_bending.h; 0: membrane only). A
  // constant term h^2 Q of Abar; assumes a flat rest state.
  double bending_stiffness_j = 0.0;
  // The most bytes the factorization may put on the backend (0: no limit), checked from the
  // factor's counts (factor_counts.h) after the ordering and before L is built; over it, Create
  // answers FactorOverLimitError (ResourceExhausted) with nothing factored or put on the backend.
  // The bytes are what CpuBackend::ResidentBytes grows by (FactorBackendBytes below); L stays on
  // the host and is not counted (the host's S, R and R^T are freed once uploaded). A GPU
  // backend's own buffers are not counted either (its device memory budget refuses them when it
  // allocates).
  int64_t max_factor_backend_bytes = 0;
  // Called after every global step with k = 1..iterations and x^k (for convergence studies).
  using IterationObserver = std::function<void(int iteration, const Points3& x_m)>;
  IterationObserver iteration_observer;
};

// What a solver's factorization puts on a CpuBackend (its ResidentBytes growth), from the counts
// of the factor of its free vertices: three n x 3 blocks (b, q, q_prev) and, by global step,
// R = S P and R^T as CSR (8 + 4 bytes an entry, 4 (n + 1) offsets each) and one more n x 3 block
// (sparse inverse); D^-1 and J (Jacobi; a_nonzeros = nnz(Abar_ff) bounds them: J drops the
// diagonal and any zero); nothing more (complete solve: L stays on the host).
int64_t FactorBackendBytes(const FactorCounts& counts, GlobalStepKind global_step,
                           int64_t a_nonzeros);

struct LocalGlobalState {
  Points3 x_m;          // positions [m]
  Points3 v_mps;        // velocities [m/s]
  double time_s = 0.0;  // simulated time [s]; Step advances it by h (moving constraint targets)
};

struct LocalGlobalStepStats {
  LocalGlobalPhaseTimes phase_times;
  // ||D x^k - z^k||_F over all elements after the k-th local step (k = 0..iterations-1): the
  // ADMM primal residual (global/local consistency) [-].
  std::vector<double> primal_residual;
  LocalStepStats local;
  // Contacts of the step (detected at its start) and their final multipliers lambda [N], three
  // per contact (normal, tangent1, tangent2, in the contact's frame); the impulse over the step
  // is h lambda. Residual ||F|| of the NCP after each local-global iteration's correction.
  std::vector<VertexContact> contacts;
  Eigen::VectorXd contact_force_n;
  std::vector<double> contact_residual;
  // One per options.constraints entry (targets first, then cables) at the end of the step:
  // forces [N], cable tensions [N] and lengths [m] (constraint_terms.h).
  std::vector<ConstraintReaction> constraint_reactions;
};

struct EnergyTerms {
  double kinetic_j = 0.0;     // 1/2 v^T M v
  double elastic_j = 0.0;     // sum_e V_e Psi(F_e) (+ the cloth's bending energy)
  double external_j = 0.0;    // -f_ext . x (potential of a constant force)
  double constraint_j = 0.0;  // sum of the compliant constraints' energies (constraint_terms.h)
  double total_j() const { return kinetic_j + elastic_j + external_j + constraint_j; }
};

// One deformable body of a multi-body solver: its tet mesh (rest shape and initial positions)
// and material.
struct LocalGlobalBody {
  TetMesh mesh;
  Material material;
};

class LocalGlobalSolver {
 public:
  // Element vertex indices, one element per row (4 per tet, 3 per triangle).
  using ElementIndices = LocalGlobalElementIndices;
  // backend: where the local steps, the global solve and the contact stage (Delassus operator,
  // non-smooth Newton) run; required (InvalidArgument "backend: ..." for null): no solver builds a
  // backend of its own. The solver shares it (a World's solvers all share the World's); a Backend
  // is one caller at a time, so solvers sharing one must not step concurrently.
  static absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> Create(
      const TetMesh& mesh, const Material& material, double time_step_s,
      const LocalGlobalOptions& options, std::shared_ptr<Backend> backend);
  // Several tet bodies in one system (see the header comment): vertex indices everywhere
  // (options, states, forces) are those of the concatenation. options.admm_stiffness_pa > 0
  // applies to every body; 0 picks each body's default. InvalidArgument naming bodies[i] for a
  // bad body.
  static absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> Create(
      const std::vector<LocalGlobalBody>& bodies, double time_step_s,
      const LocalGlobalOptions& options, std::shared_ptr<Backend> backend);
  // Cloth: a membrane of triangles (3 x 2 deformation gradients, the same materials; pass
  // PlaneStressLambda for a thin sheet) of uniform thickness [m]: rest volume a t, mass rho a t.
  static absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> Create(
      const TriangleMesh& mesh, double thickness_m, const Material& material, double time_step_s,
      const LocalGlobalOptions& options, std::shared_ptr<Backend> backend);
  ~LocalGlobalSolver();
  LocalGlobalSolver(const LocalGlobalSolver&) = delete;
  LocalGlobalSolver& operator=(const LocalGlobalSolver&) = delete;

  // One implicit Euler step from state->time_s to time_s + h (constraint targets and cable
  // lengths are taken at time_s + h). f_ext_n: n x 3 [N]. pinned_targets_m: one row per pinned
  // vertex (options order) or nullptr to hold them in place. stats: optional.
  absl::Status Step(const Points3& f_ext_n, LocalGlobalState* state,
                    const Points3* pinned_targets_m = nullptr,
                    LocalGlobalStepStats* stats = nullptr);
  // What a step leaves the next one (the warm start: its contacts and multipliers [N]).
  struct StepMemory {
    std::vector<VertexContact> contacts;
    Eigen::VectorXd lambda_n;
  };
  // Step in two halves, for a caller that must be able to abandon a step whole (a World step
  // interrupted by its caller's deadline, cancellation or drain). Solve computes the step into
  // *state, *stats and *memory and changes nothing in the solver (Step's clock, warm start). It
  // asks `interrupt` (may be null) before every local-global iteration and in the contact solve
  // (every Newton iteration, every kConjugateResidualInterruptInterval CR iterations) and returns
  // its first non-OK answer with *state unchanged. Commit(memory) then advances the solver's
  // clock and keeps the warm start: Step is Solve and Commit, the same bits.
  absl::Status Solve(const Points3& f_ext_n, LocalGlobalState* state,
                     const Points3* pinned_targets_m, LocalGlobalStepStats* stats,
                     const std::function<absl::Status()>* interrupt, StepMemory* memory);
  void Commit(StepMemory memory);

  // Energies of a state (see EnergyTerms); f_ext may be empty (0 rows) for no external force;
  // time_s places moving constraint targets.
  EnergyTerms Energy(const Points3& x_m, const Points3& v_mps, const Points3& f_ext_n,
                     double time_s = 0.0) const;
  double ElasticEnergy(const Points3& x_m) const;
  // The elastic forces on the vertices, -dE/dx = -sum_e V_e D_e^T vec(P(F_e)) (minus the cloth's
  // bending Q x) [N], n x 3, pinned vertices included (what their holder must take up).
  Points3 ElasticForces(const Points3& x_m) const;
  // Frees the factorization (the Cholesky factor, R and R^T on the backend) of a solver kept
  // only for its energies and elastic forces (a body that a contact group steps); Step then
  // answers FailedPrecondition.
  void ReleaseFactors();
  bool factored() const { return cholesky_.has_value(); }
  // True when the global step applies A^-1 by triangular solves on the host (see
  // LocalGlobalOptions::cpu_sparse_inverse_products), false when through the backend.
  bool global_step_on_host() const { return global_step_on_host_; }
  // The backend the solver runs on (never null).
  const std::shared_ptr<Backend>& backend() const { return backend_; }
  // The predictor y of a state and the incremental potential g(x) it defines [J].
  Points3 Predictor(const LocalGlobalState& state, const Points3& f_ext_n) const;
  double IncrementalPotential(const Points3& x_m, const Points3& predictor_m,
                              double time_end_s = 0.0) const;

  // Replaces options.obstacles and options.mesh_obstacles for the following steps (a World moves
  // its static and kinematic bodies between steps); the factorization is kept. A kinematic
  // obstacle's vertices_m are its positions at the next Step's start (its motion restarts there).
  // Contact needs kSparseInverse. InvalidArgument naming "obstacles" / "mesh_obstacles" as Create
  // does; nothing changes on error.
  absl::Status SetObstacles(std::vector<HalfSpaceObstacle> obstacles,
                            std::vector<TriangleMeshObstacle> mesh_obstacles);
  // The previous step's contacts and multipliers [N] (3 per contact), from which the next step
  // warm-starts (options.contact_warm_start); SetContactMemory restores them into a rebuilt
  // solver (snapshots). InvalidArgument when lambda does not have 3 rows per contact.
  const std::vector<VertexContact>& previous_contacts() const { return previous_contacts_; }
  const Eigen::VectorXd& previous_contact_forces_n() const { return previous_lambda_; }
  absl::Status SetContactMemory(std::vector<VertexContact> contacts, Eigen::VectorXd lambda_n);
  // Moves the anchors of options.constraints.targets[index] for the following steps (the
  // factorization is kept: only the right-hand side depends on them). Errors as
  // ConstraintTerms::SetTargetAnchors.
  absl::Status SetTargetAnchors(int index, const Points3& anchors_m) {
    return constraint_terms_.SetTargetAnchors(index, anchors_m);
  }

  int num_vertices() const { return static_cast<int>(mass_kg_.size()); }
  int num_bodies() const { return static_cast<int>(body_vertex_offset_.size()) - 1; }
  // First concatenated vertex index of body b (b = num_bodies(): the vertex count).
  int32_t body_vertex_offset(int b) const { return body_vertex_offset_[b]; }
  // Body id per vertex.
  const std::vector<int32_t>& vertex_body() const { return vertex_body_; }
  int num_elements() const { return static_cast<int>(volumes_m3_.size()); }
  const Eigen::VectorXd& lumped_mass_kg() const { return mass_kg_; }
  // 3 for tets, 2 for membrane triangles (the columns of F_e).
  int element_columns() const { return columns_; }
  // D x for all elements: 3 x columns doubles per element, column-major F_e.
  Eigen::VectorXd DeformationGradients(const Points3& x_m) const;

 private:
  using RowMajorSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>;
  using Block = OrderedCholesky::Block;
  using ElementGroup = LocalGlobalElementGroup;
  LocalGlobalSolver() = default;
  // The one path every Create takes once its model is assembled: element operators G, constraint
  // terms, detectors, elimination of the pinned vertices, factor and global step.
  static absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> CreateFromAssembly(
      LocalGlobalAssembly assembly, double time_step_s, const LocalGlobalOptions& options,
      std::shared_ptr<Backend> backend);
  absl::Status Validate(const Points3& p, const char* field) const;
  absl::Status GlobalSolve(const Block& b_free, Block* x_free);
  // The elements' local steps of iteration k at F = f (one batch per element group): z and the
  // scaled duals u in place.
  absl::Status LocalSteps(int k, const Eigen::VectorXd& f, Eigen::VectorXd* duals,
                          Eigen::VectorXd* z, LocalStepStats* stats, PhaseClock* clock,
                          LocalGlobalPhaseTimes* times);
  // What this step's contact stage reads (contact_stage.h).
  ContactStageInputs ContactInputs();

  std::vector<ElementGroup> groups_;  // cover the elements in order
  std::vector<int32_t> vertex_body_;
  std::vector<int32_t> body_vertex_offset_;
  double h_ = 0.0;
  LocalGlobalOptions options_;
  int columns_ = 3;
  // Q of the cloth's bending energy (1/2) sum_c x_c^T Q x_c (empty: none).
  Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t> bending_q_;
  ConstraintTerms constraint_terms_;
  Eigen::VectorXd mass_kg_;
  std::vector<double> volumes_m3_;
  std::vector<double> weights_;
  RowMajorSparse g_;                 // (columns m) x n: row columns e + c of G x is column c of F_e
  RowMajorSparse gw_t_;              // n x (columns m): G^T diag(w)
  RowMajorSparse a_fp_;              // Abar_fp (free x pinned)
  std::vector<int32_t> free_;        // free vertex list
  std::vector<int32_t> free_index_;  // per vertex: index among free vertices, < 0 pinned
  // The previous step's contacts and multipliers, for the warm start.
  std::vector<VertexContact> previous_contacts_;
  Eigen::VectorXd previous_lambda_;
  std::unique_ptr<MeshContactDetector> mesh_detector_;  // null without mesh obstacles
  std::optional<TriangleMesh> surface_;                 // the body's surface (SetObstacles)
  std::unique_ptr<BodyContactDetector> body_detector_;  // null without body contact
  double elapsed_s_ = 0.0;                              // steps taken x h (kinematic obstacles)
  std::optional<OrderedCholesky> cholesky_;

  // Shared with the World (or the caller); declared before the objects that live on it, so it
  // outlives them.
  std::shared_ptr<Backend> backend_;
  bool global_step_on_host_ = false;
  std::optional<SparseInverseGlobalStep> sparse_inverse_step_;
  std::optional<JacobiGlobalStep> jacobi_step_;
  DenseId b_id_, q_id_, q_prev_id_;
};

}  // namespace contactsim::core
