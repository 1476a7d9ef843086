#include "core/collision/ccd/inclusion_root_finder.h"

#include <vector>

#include "core/collision/ccd/inclusion_root_finder_impl.h"

namespace contactsim::core::internal {
namespace {

using inclusion_root_finder_impl::Box;

// The host's box storage: a thread_local vector that keeps its capacity, so steady-state queries
// do not allocate; it grows on demand, so the search never runs out of room.
class VectorBoxStorage {
 public:
  explicit VectorBoxStorage(std::vector<Box>* boxes) : boxes_(boxes) {}
  Box* data() { return boxes_->data(); }
  int size() const { return static_cast<int>(boxes_->size()); }
  void set_size(int n) { boxes_->resize(n); }
  bool Reserve(int n) {
    if (static_cast<size_t>(n) > boxes_->size()) boxes_->resize(n);
    return true;
  }

 private:
  std::vector<Box>* boxes_;
};

}  // namespace

CcdResult InclusionTimeOfImpact(InclusionPairKind kind, const PairTrajectory& trajectory,
                                const CcdOptions& options) {
  thread_local std::vector<Box> boxes;
  VectorBoxStorage storage(&boxes);
  CcdResult result;
  // The vector grows on demand, so Solve always completes.
  if (kind == InclusionPairKind::kVertexFace) {
    inclusion_root_finder_impl::Solve<InclusionPairKind::kVertexFace>(trajectory, options, &storage,
                                                                      &result);
  } else {
    inclusion_root_finder_impl::Solve<InclusionPairKind::kEdgeEdge>(trajectory, options, &storage,
                                                                    &result);
  }
  return result;
}

}  // namespace contactsim::core::internal
