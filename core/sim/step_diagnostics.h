// StepDiagnostics: what one step of a World did and whether it stayed sane — energies, contact
// counts, the deepest penetration, CCD statistics, and divergence (non-finite state or energy
// blow-up, see world_settings.h).
//
// Energies are those of the state after the step: T = sum of the bodies' kinetic energies [J],
// V = gravitational (about the world origin) plus elastic potential energy [J]; static and
// kinematic bodies contribute 0. The penalty springs' own energy is not included.
#pragma once

#include <cstdint>
#include <string>

#include "core/collision/ccd_sweep.h"

namespace contactsim::core {

enum class DivergenceKind : uint8_t {
  kNone = 0,
  kNonFinite = 1,      // a NaN or infinite position, velocity, orientation or energy
  kEnergyBlowUp = 2,   // kinetic energy beyond the configured growth factor
  kPipelineError = 3,  // the pipeline failed part-way through the step
};

const char* DivergenceKindName(DivergenceKind kind);

// Wall time of the penalty pipeline's stages in one step [ms] (penalty_pipeline.h, steps 1-7; 0
// for other pipelines). contacts_ms holds the CCD (StepDiagnostics::ccd splits it into broad and
// narrow phase), the pairs' tracking and normal impulses (CPF, DPF) and the plane contacts.
struct PenaltyStageTimes {
  double predict_ms = 0.0;   // 1
  double contacts_ms = 0.0;  // 2-4
  double friction_ms = 0.0;  // 5
  double correct_ms = 0.0;   // 6
  double report_ms = 0.0;    // 7
};

// The rigid_lcp pipeline's step: its constraints and how their LCPs were solved, one per island
// of bodies joined by contacts and joints (a step whose LCP no solver answers fails, so a
// reported step always has an accepted answer for every island).
struct RigidLcpStepStats {
  int32_t unilateral_constraints = 0;
  int32_t intercontact_constraints = 0;
  // Unknowns of the largest island's LCP after eliminating the velocities (0: no contact).
  int32_t lcp_size = 0;
  std::string solver_path;      // LcpSolverPathName of the largest island's accepted answer
  int32_t solver_attempts = 0;  // the most solvers one island tried, the accepted one included
  int32_t pivots = 0;           // Lemke pivots of the accepted answers, summed over the islands
  int32_t iterations = 0;       // PGS sweeps of the accepted answers, summed over the islands
  double residual = 0.0;
  int32_t iterative_islands = 0;    // solved by PGS on the velocity form (spatial_contact_pgs.h)
  int32_t iterative_fallbacks = 0;  // PGS did not converge; pivoting solved the island
  double velocity_residual_m_per_s = 0.0;  // largest PGS residual of the step
};

struct StepDiagnostics {
  int64_t step = 0;     // steps taken including this one
  double time_s = 0.0;  // simulation time at the end of the step [s]

  double kinetic_energy_j = 0.0;    // T [J]
  double potential_energy_j = 0.0;  // V [J]
  double total_energy_j = 0.0;      // T + V [J]

  // Largest penetration depth over this step's contacts at the end of the step [m] (0 without
  // contacts).
  double max_penetration_depth_m = 0.0;
  int32_t active_pairs = 0;       // tracked VF and EE pairs penetrating during the step
  int32_t new_pairs = 0;          // of those, first found by CCD in this step
  int32_t dropped_pairs = 0;      // tracked pairs released: no penetration over the whole step
  int32_t plane_contacts = 0;     // vertices penetrating a ground plane during the step
  int32_t degenerate_pairs = 0;   // pairs whose kernel found no normal or bad input (no impulse)
  int32_t unconverged_pairs = 0;  // kCpfExact pairs whose quadrature hit its depth limit
  int32_t invalid_ccd_hits = 0;   // CCD hits with CcdStatus::kInvalidInput (ignored)
  int32_t flat_edge_hits = 0;     // EE hits on a flat edge, left to the VF pairs (ignored)
  int32_t end_of_step_pairs = 0;  // hits crossing at the step's end: kept inactive for the next
  // VF hits where the vertex crosses a closed body's face from its back (inside): it leaves the
  // body there, which starts no pair (penalty_pipeline.h, step 3).
  int32_t exit_hits = 0;
  int32_t stick_contacts = 0;  // friction in the static phase
  int32_t slip_contacts = 0;   // friction in the dynamic phase
  CcdSweepStats ccd;           // broad and narrow phase counts and times
  PenaltyStageTimes stage_times;
  RigidLcpStepStats rigid_lcp;

  DivergenceKind divergence = DivergenceKind::kNone;
  std::string divergence_message;  // why, naming the body and quantity; empty when kNone
};

}  // namespace contactsim::core
