#include "core/dynamics/local_global/contact_warm_start.h"

#include <map>
#include <tuple>

namespace contactsim::core {
namespace {

using ContactKey = std::tuple<int, int32_t, int32_t, int32_t, int32_t, int32_t>;

ContactKey KeyOf(const VertexContact& c) {
  return {static_cast<int>(c.kind), c.vertex,  c.extra_vertices[0], c.extra_vertices[1],
          c.extra_vertices[2],      c.obstacle};
}

// A previous contact whose normal is further than 60 degrees off is a different contact.
constexpr double kMinNormalAlignment = 0.5;

}  // namespace

void WarmStartContactForces(const std::vector<VertexContact>& previous,
                            const Eigen::VectorXd& previous_lambda,
                            const std::vector<VertexContact>& current, Eigen::VectorXd* lambda) {
  if (previous.empty() ||
      previous_lambda.size() != 3 * static_cast<Eigen::Index>(previous.size())) {
    return;
  }
  std::multimap<ContactKey, size_t> index;
  for (size_t p = 0; p < previous.size(); ++p) index.emplace(KeyOf(previous[p]), p);
  for (size_t j = 0; j < current.size(); ++j) {
    const VertexContact& now = current[j];
    const auto [begin, end] = index.equal_range(KeyOf(now));
    size_t match = previous.size();
    double best = kMinNormalAlignment;
    for (auto it = begin; it != end; ++it) {
      const double alignment = previous[it->second].normal.dot(now.normal);
      if (alignment > best) {
        best = alignment;
        match = it->second;
      }
    }
    if (match == previous.size()) continue;
    const VertexContact& old = previous[match];
    const Eigen::Vector3d l = previous_lambda.segment<3>(3 * match);
    if (old.normal == now.normal && old.tangent1 == now.tangent1 && old.tangent2 == now.tangent2) {
      lambda->segment<3>(3 * j) = l;  // same frame: exactly the previous values
      continue;
    }
    const Vec3 force = l[0] * old.normal + l[1] * old.tangent1 + l[2] * old.tangent2;
    (*lambda)[3 * j] = force.dot(now.normal);
    (*lambda)[3 * j + 1] = force.dot(now.tangent1);
    (*lambda)[3 * j + 2] = force.dot(now.tangent2);
  }
}

}  // namespace contactsim::core
