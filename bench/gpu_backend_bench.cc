// The Backend's hot operations on the CPU and on CUDA, in one process (ratios comparable; absolute
// times count on the GPU machine only):
//   - the local-global global step q = R^T (R b) on an n x 3 block (two SpMM,
//     core/dynamics/local_global/sparse_inverse.h) for the twisting bars of Table 3 (bar5k,
//     bar11k, bar21k: 1.6 x 0.2 x 0.2 m, ARAP weights E 1e9, h = 10 ms), device-resident, and as
//     the solver calls it today (upload b, solve, download q);
//   - the Delassus Gram G = B B^T for 300 contacts' rows (900 rows of R^T);
//   - many sessions on one GPU: N backends (one stream each) stepping bar5k's global step from N
//     host threads at once; aggregate solves per second and, per session, the frames per second
//     this phase alone would allow (5 local-global iterations a frame).
// Rows: cpu (CpuBackend, all threads), cuda (CudaBackend: narrow SpMM by our warp-per-row
// kernel), cusparse (CudaBackend with every SpMM on cuSPARSE). Without a usable CUDA device the
// CUDA rows are skipped, saying why.
//
//   build/bench/gpu_backend_bench [--reps 50] [--sessions 1,2,4,8,16,32] [--cases bar5k,bar11k]
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/median_time.h"
#include "contactsim/gpu/cuda_backend.h"
#include "core/common/status_macros.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"

namespace contactsim::core {
namespace {

using bench::Clock;
using bench::MedianTime;
using bench::Seconds;

constexpr int kIterationsPerFrame = 5;  // Table 3's local-global iterations

struct BarCase {
  const char* name;
  int nx, ny;
};
constexpr BarCase kBars[] = {{"bar5k", 44, 10}, {"bar11k", 58, 13}, {"bar21k", 94, 14}};

absl::StatusOr<SparseInverseFactor> BarFactor(const BarCase& bar) {
  ASSIGN_OR_RETURN(TetMesh mesh, MakeTetBox(Vec3(0.8, 0.1, 0.1), bar.nx, bar.ny, bar.ny));
  ASSIGN_OR_RETURN(SystemMatrix sys, AssembleSystemMatrix(mesh, {1000.0, 1.0e9, 0.01}));
  ASSIGN_OR_RETURN(OrderedCholesky chol,
                   OrderedCholesky::Compute(sys.a_bar, FillOrdering::kNestedDissection));
  return SparseInverseFactor::Compute(chol);
}

absl::StatusOr<std::unique_ptr<Backend>> MakeBackend(const std::string& device) {
  if (device == "cpu") return std::unique_ptr<Backend>(std::make_unique<CpuBackend>());
  gpu::CudaBackendOptions options;
  options.cusparse_spmm_only = device == "cusparse";
  return gpu::CreateCudaBackend(options);
}

struct StepTimes {
  double resident_s = 0.0;    // Solve + Synchronize, b and q on the device
  double round_trip_s = 0.0;  // upload b, Solve, download q
};

absl::StatusOr<StepTimes> TimeGlobalStep(Backend& backend, const SparseInverseFactor& factor,
                                         int reps) {
  ASSIGN_OR_RETURN(SparseInverseGlobalStep step,
                   SparseInverseGlobalStep::Create(backend, factor, 3));
  const int n = factor.n();
  std::vector<double> b(size_t(n) * 3), q(size_t(n) * 3);
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (double& v : b) v = uni(rng);
  ASSIGN_OR_RETURN(DenseId b_id, backend.CreateDense(n, 3));
  ASSIGN_OR_RETURN(DenseId q_id, backend.CreateDense(n, 3));
  RETURN_IF_ERROR(backend.UploadDense(b_id, b));
  absl::Status failure;
  StepTimes t;
  t.resident_s = MedianTime(reps, 3, [&] {
    failure.Update(step.Solve(b_id, q_id));
    failure.Update(backend.Synchronize());
  });
  t.round_trip_s = MedianTime(reps, 3, [&] {
    failure.Update(backend.UploadDense(b_id, b));
    failure.Update(step.Solve(b_id, q_id));
    failure.Update(backend.DownloadDense(q_id, absl::MakeSpan(q)));
  });
  RETURN_IF_ERROR(failure);
  RETURN_IF_ERROR(backend.ReleaseDense(b_id));
  RETURN_IF_ERROR(backend.ReleaseDense(q_id));
  return t;
}

absl::StatusOr<double> TimeGram(Backend& backend, const SparseInverseFactor& factor, int reps) {
  // 900 rows of R^T (three per contact for 300 contacts), spread over the bar.
  const auto& rt = factor.r_transpose();
  const int rows = std::min<int>(900, static_cast<int>(rt.rows()));
  std::vector<Eigen::Triplet<double, int32_t>> t;
  for (int i = 0; i < rows; ++i) {
    const int src = static_cast<int>((static_cast<int64_t>(i) * rt.rows()) / rows);
    for (SparseInverseFactor::RowMajorSparse::InnerIterator it(rt, src); it; ++it) {
      t.emplace_back(i, it.col(), it.value());
    }
  }
  SparseInverseFactor::RowMajorSparse a(rows, rt.cols());
  a.setFromTriplets(t.begin(), t.end());
  ASSIGN_OR_RETURN(SparseId a_id, backend.UploadCsr(ToCsr(a)));
  ASSIGN_OR_RETURN(DenseId g_id, backend.CreateDense(rows, rows));
  absl::Status failure;
  const double s = MedianTime(reps, 2, [&] {
    failure.Update(backend.Gram(a_id, g_id));
    failure.Update(backend.Synchronize());
  });
  RETURN_IF_ERROR(failure);
  RETURN_IF_ERROR(backend.ReleaseSparse(a_id));
  RETURN_IF_ERROR(backend.ReleaseDense(g_id));
  return s;
}

// N sessions, each its own backend and host thread, each doing `solves` global steps.
absl::StatusOr<double> SessionsSolvesPerSecond(const std::string& device,
                                               const SparseInverseFactor& factor, int sessions,
                                               int solves) {
  struct Session {
    std::unique_ptr<Backend> backend;
    std::optional<SparseInverseGlobalStep> step;
    DenseId b, q;
    absl::Status status;
  };
  std::vector<Session> all(sessions);
  for (Session& s : all) {
    ASSIGN_OR_RETURN(s.backend, MakeBackend(device));
    ASSIGN_OR_RETURN(SparseInverseGlobalStep step,
                     SparseInverseGlobalStep::Create(*s.backend, factor, 3));
    s.step.emplace(std::move(step));
    ASSIGN_OR_RETURN(s.b, s.backend->CreateDense(factor.n(), 3));
    ASSIGN_OR_RETURN(s.q, s.backend->CreateDense(factor.n(), 3));
    RETURN_IF_ERROR(s.backend->Synchronize());
  }
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (Session& s : all) {
    threads.emplace_back([&s, solves] {
      for (int i = 0; i < solves && s.status.ok(); ++i) {
        s.status.Update(s.step->Solve(s.b, s.q));
        // One synchronization per frame, as a session would download positions once a frame.
        if ((i + 1) % kIterationsPerFrame == 0) s.status.Update(s.backend->Synchronize());
      }
      s.status.Update(s.backend->Synchronize());
    });
  }
  for (std::thread& t : threads) t.join();
  const double elapsed = Seconds(start, Clock::now());
  for (Session& s : all) RETURN_IF_ERROR(s.status);
  return sessions * solves / elapsed;
}

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int Main(int argc, char** argv) {
  CLI::App app{"Backend operations on the CPU and CUDA: global step, Gram, many sessions"};
  int reps = 50;
  std::string sessions_list = "1,2,4,8,16,32";
  std::string cases = "bar5k,bar11k,bar21k";
  int session_solves = 500;
  app.add_option("--reps", reps, "timed repetitions per figure (median)")
      ->check(CLI::PositiveNumber);
  app.add_option("--sessions", sessions_list, "comma list of concurrent session counts");
  app.add_option("--session-solves", session_solves, "global steps per session in that test")
      ->check(CLI::PositiveNumber);
  app.add_option("--cases", cases, "comma list of bar5k, bar11k, bar21k");
  CLI11_PARSE(app, argc, argv);

  const absl::Status cuda = gpu::CudaUsable();
  std::vector<std::string> devices = {"cpu"};
  if (cuda.ok()) {
    devices.push_back("cuda");
    devices.push_back("cusparse");  // the CUDA backend with every SpMM on cuSPARSE
  } else {
    std::printf("CUDA rows skipped: %s\n", std::string(cuda.message()).c_str());
  }
  std::printf("%-7s %7s %10s %-8s %14s %16s %12s\n", "case", "n", "nnz(S)", "dev", "step [ms]",
              "step+copy [ms]", "gram [ms]");
  for (const std::string& name : Split(cases)) {
    const BarCase* bar = nullptr;
    for (const BarCase& c : kBars) {
      if (name == c.name) bar = &c;
    }
    if (bar == nullptr) {
      std::fprintf(stderr, "--cases: unknown case '%s'\n", name.c_str());
      return 1;
    }
    auto factor = BarFactor(*bar);
    if (!factor.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(),
                   std::string(factor.status().message()).c_str());
      return 1;
    }
    for (const std::string& device : devices) {
      auto backend = MakeBackend(device);
      absl::StatusOr<StepTimes> step =
          backend.ok() ? TimeGlobalStep(**backend, *factor, reps) : backend.status();
      absl::StatusOr<double> gram =
          step.ok() ? TimeGram(**backend, *factor, std::max(5, reps / 5)) : step.status();
      if (!gram.ok()) {
        std::fprintf(stderr, "%s on %s: %s\n", name.c_str(), device.c_str(),
                     std::string(gram.status().message()).c_str());
        return 1;
      }
      std::printf("%-7s %7d %10lld %-8s %14.3f %16.3f %12.3f\n", name.c_str(), factor->n(),
                  static_cast<long long>(factor->nnz()), device.c_str(), 1e3 * step->resident_s,
                  1e3 * step->round_trip_s, 1e3 * *gram);
      std::fflush(stdout);
    }
  }

  auto bar5k = BarFactor(kBars[0]);
  if (!bar5k.ok()) return 1;
  std::printf("\nmany sessions, bar5k global step only (%d solves each, a frame = %d solves)\n",
              session_solves, kIterationsPerFrame);
  std::printf("%-8s %9s %16s %22s\n", "dev", "sessions", "solves/s (all)", "frames/s per session");
  for (const std::string& device : devices) {
    for (const std::string& count : Split(sessions_list)) {
      const int sessions = std::stoi(count);
      // The CPU's row is one session per core at most: more only share the same cores.
      if (device == "cpu" && sessions > 2) continue;
      auto rate = SessionsSolvesPerSecond(device, *bar5k, sessions, session_solves);
      if (!rate.ok()) {
        std::fprintf(stderr, "%s x%d: %s\n", device.c_str(), sessions,
                     std::string(rate.status().message()).c_str());
        return 1;
      }
      std::printf("%-8s %9d %16.0f %22.1f\n", device.c_str(), sessions, *rate,
                  *rate / sessions / kIterationsPerFrame);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace contactsim::core

int main(int argc, char** argv) { return contactsim::core::Main(argc, argv); }
