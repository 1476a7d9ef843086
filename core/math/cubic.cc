#include "core/math/cubic.h"

#include "core/math/cubic_impl.h"

namespace contactsim::core {

CubicRoots RealRootsInInterval(const CubicPolynomial& f, double lo, double hi) {
  return cubic_impl::RealRootsInInterval(f, lo, hi);
}

}  // namespace contactsim::core
