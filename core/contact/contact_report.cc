#include "core/contact/contact_report.h"

#include <Eigen/Geometry>
#include <cstddef>
#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

// Adds impulse j acting at p_WC to the body's totals.
void AddImpulse(const Vec3& p_WC, const Vec3& p_WBo, const Vec3& j, BodyContactTotals& totals) {
  totals.impulse_n_s += j;
  totals.angular_impulse_n_m_s += (p_WC - p_WBo).cross(j);
  ++totals.contact_count;
}

}  // namespace

absl::StatusOr<std::vector<BodyContactTotals>> AccumulateBodyTotals(
    std::span<const ContactRecord> contacts, std::span<const BodyOrigin> origins) {
  std::unordered_map<int32_t, std::size_t> index;
  std::vector<BodyContactTotals> totals(origins.size());
  for (std::size_t i = 0; i < origins.size(); ++i) {
    const int32_t id = origins[i].body_id;
    if (id < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("origins[", i, "].body_id must be >= 0, got ", id));
    }
    if (!index.emplace(id, i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("origins[", i, "].body_id ", id, " is repeated"));
    }
    totals[i].body_id = id;
  }
  const auto find = [&](int32_t id, std::size_t record,
                        const char* field) -> absl::StatusOr<std::size_t> {
    const auto it = index.find(id);
    if (it == index.end()) {
      return absl::NotFoundError(
          absl::StrCat("contacts[", record, "].", field, " ", id, " has no body origin"));
    }
    return it->second;
  };
  for (std::size_t r = 0; r < contacts.size(); ++r) {
    const ContactRecord& c = contacts[r];
    const Vec3 j = c.normal_impulse_n_s + c.friction_impulse_n_s;
    if (c.body_a != kStaticEnvironmentBodyId) {
      const absl::StatusOr<std::size_t> a = find(c.body_a, r, "body_a");
      if (!a.ok()) return a.status();
      AddImpulse(c.p_WC, origins[*a].p_WBo, j, totals[*a]);
      totals[*a].angular_impulse_n_m_s += c.torsional_impulse_n_m_s;
    }
    if (c.body_b != kStaticEnvironmentBodyId) {
      const absl::StatusOr<std::size_t> b = find(c.body_b, r, "body_b");
      if (!b.ok()) return b.status();
      AddImpulse(c.p_WC, origins[*b].p_WBo, -j, totals[*b]);
      totals[*b].angular_impulse_n_m_s -= c.torsional_impulse_n_m_s;
    }
  }
  return totals;
}

}  // namespace contactsim::core
