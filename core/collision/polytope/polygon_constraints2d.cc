#include "core/collision/polytope/polygon_constraints2d.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <utility>

namespace contactsim::core {
namespace {

double PointSegmentDistance(const Vec2& x, const Vec2& p0, const Vec2& p1) {
  const Vec2 d = p1 - p0;
  const double t = std::clamp((x - p0).dot(d) / d.squaredNorm(), 0.0, 1.0);
  return (p0 + t * d - x).norm();
}

// Identity of a candidate: (body1, vertex of body1, edge of body2).
using ContactKey = std::array<int, 3>;
ContactKey KeyOf(const PolygonContact& c) { return {c.body1, c.vertex1, c.edge2}; }

class PegBuilder {
 public:
  PegBuilder(const std::vector<PolygonContact>& feasible, std::array<int, 2> sizes,
             const PolygonConstraintOptions& options)
      : contacts_(feasible), sizes_(sizes), options_(options) {
    for (int i = 0; i < static_cast<int>(contacts_.size()); ++i) index_[KeyOf(contacts_[i])] = i;
  }

  void Build(std::vector<PolygonConstraint>* out, PolygonConstraintStats* stats) {
    for (int side = 0; side < 2; ++side) {
      for (int v = 0; v < sizes_[side]; ++v) VertexSet(side, v);
    }
    // Step 6: no U on a contact an I or X uses, no duplicate U.
    std::set<ContactKey> seen_u;
    for (int i : unilateral_) {
      const ContactKey key = KeyOf(contacts_[i]);
      if (used_by_i_.count(key) > 0 || !seen_u.insert(key).second) continue;
      PolygonConstraint c;
      c.primary = contacts_[i];
      out->push_back(c);
      ++stats->unilateral;
    }
    for (PolygonConstraint& c : combined_) {
      (c.rule == PolygonConstraintRule::kIntercontact ? stats->intercontact
                                                      : stats->cross_contact)++;
      out->push_back(std::move(c));
    }
    stats->cross_contact_dropped += cross_dropped_;
    stats->vertex_vertex += vertex_vertex_;
  }

 private:
  bool Applicable(int i) const {
    return contacts_[i].applicability > options_.applicability_threshold;
  }
  int Find(int body1, int vertex, int edge) const {
    const auto it = index_.find({body1, vertex, edge});
    return it == index_.end() ? -1 : it->second;
  }

  // Step 4's heuristic: keep `first` as the primary unless it is deep and `second` is not.
  bool SwapPrimary(int first, int second) const {
    const double g1 = contacts_[first].gap_m, g2 = contacts_[second].gap_m;
    return g1 < -options_.primary_swap_gap_m && g2 > std::max(g1, -options_.primary_swap_gap_m);
  }

  void AddCombined(PolygonConstraintRule rule, int primary, int secondary) {
    PolygonConstraint c;
    c.rule = rule;
    c.primary = contacts_[primary];
    const PolygonContact& s = contacts_[secondary];
    c.secondaries.push_back(s.body1 == c.primary.body1 ? s : FlipPolygonContact(s));
    used_by_i_.insert(KeyOf(contacts_[primary]));
    used_by_i_.insert(KeyOf(s));
    combined_.push_back(std::move(c));
  }

  // I({c1, c2}): primaries = the applicable ones, secondaries the rest; |C_iota| = 1 by step 4.
  void AddIntercontact(int c1, int c2) {
    const bool a1 = Applicable(c1), a2 = Applicable(c2);
    if (!a1 && !a2) return;
    int primary = a1 ? c1 : c2, secondary = a1 ? c2 : c1;
    if (a1 && a2 && SwapPrimary(c1, c2)) std::swap(primary, secondary);
    AddCombined(PolygonConstraintRule::kIntercontact, primary, secondary);
  }

  void AddCross(int c1, int c2) {
    if (!Applicable(c1) || !Applicable(c2)) {
      ++cross_dropped_;
      return;
    }
    if (SwapPrimary(c1, c2)) std::swap(c1, c2);
    AddCombined(PolygonConstraintRule::kCrossContact, c1, c2);
  }

  void AddUnilateralIfApplicable(int i) {
    if (i >= 0 && Applicable(i)) unilateral_.push_back(i);
  }

  void VertexSet(int side, int v) {
    std::vector<int> set;  // S(v), by edge index
    for (int i = 0; i < static_cast<int>(contacts_.size()); ++i) {
      if (contacts_[i].body1 == side && contacts_[i].vertex1 == v) set.push_back(i);
    }
    if (set.empty()) return;
    if (set.size() == 1) {
      AddUnilateralIfApplicable(set[0]);
      return;
    }
    const int n_other = sizes_[1 - side], n_self = sizes_[side];
    std::sort(set.begin(), set.end(),
              [&](int i, int j) { return contacts_[i].edge2 < contacts_[j].edge2; });
    // Cyclic order: start after the widest gap between consecutive edge indices.
    const int m = static_cast<int>(set.size());
    int start = 0, widest = -1;
    for (int i = 0; i < m; ++i) {
      const int gap =
          (contacts_[set[(i + 1) % m]].edge2 - contacts_[set[i]].edge2 + n_other) % n_other;
      if (gap > widest) widest = gap, start = (i + 1) % m;
    }
    std::rotate(set.begin(), set.begin() + start, set.end());
    // Trim: the applicable ones plus one inapplicable neighbour on each side.
    int first = -1, last = -1;
    for (int i = 0; i < m; ++i) {
      if (Applicable(set[i])) last = i, first = first < 0 ? i : first;
    }
    if (first < 0) return;
    const int lo = std::max(0, first - 1), hi = std::min(m - 1, last + 1);
    std::vector<bool> covered(m, false);
    for (int i = lo; i < hi; ++i) {
      const int c1 = set[i], c2 = set[i + 1];
      const int k = contacts_[c1].edge2;
      if (contacts_[c2].edge2 != (k + 1) % n_other) continue;
      covered[i] = covered[i + 1] = true;
      const int w = (k + 1) % n_other;
      // Each configuration once: (vertex of A, vertex of B).
      const std::pair<int, int> config = side == 0 ? std::pair(v, w) : std::pair(w, v);
      if (!configurations_.insert(config).second) continue;
      const int c3 = Find(1 - side, w, (v + n_self - 1) % n_self);
      const int c4 = Find(1 - side, w, v);
      if (c3 < 0 || c4 < 0) {
        AddUnilateralIfApplicable(contacts_[c1].applicability >= contacts_[c2].applicability ? c1
                                                                                             : c2);
        AddUnilateralIfApplicable(c3 >= 0 ? c3 : c4);
        continue;
      }
      ++vertex_vertex_;
      AddIntercontact(c1, c2);
      AddIntercontact(c3, c4);
      AddCross(c1, c4);
      AddCross(c2, c3);
    }
    for (int i = lo; i <= hi; ++i) {
      if (!covered[i]) AddUnilateralIfApplicable(set[i]);
    }
  }

  const std::vector<PolygonContact>& contacts_;
  std::array<int, 2> sizes_;
  const PolygonConstraintOptions& options_;
  std::map<ContactKey, int> index_;
  std::set<std::pair<int, int>> configurations_;
  std::vector<int> unilateral_;
  std::vector<PolygonConstraint> combined_;
  std::set<ContactKey> used_by_i_;
  int cross_dropped_ = 0;
  int vertex_vertex_ = 0;
};

}  // namespace

PolygonContact FlipPolygonContact(const PolygonContact& contact) {
  PolygonContact f = contact;
  f.body1 = 1 - contact.body1;
  f.point1_W = contact.point1_W + contact.gap_m * contact.normal_W;
  f.normal_W = -contact.normal_W;
  return f;
}

namespace {

bool FeasibleAt(const PolygonContact& c, const Points2& a, const Points2& b,
                const PolygonPrediction& predicted, const PolygonConstraintOptions& options) {
  const Points2& first = c.body1 == 0 ? *predicted.a : *predicted.b;
  const Points2& second = c.body1 == 0 ? *predicted.b : *predicted.a;
  const int n2 = static_cast<int>(second.rows());
  const Vec2 x1 = first.row(c.vertex1).transpose();
  const Vec2 p0 = second.row(c.edge2).transpose();
  const Vec2 p1 = second.row((c.edge2 + 1) % n2).transpose();
  if (PointSegmentDistance(x1, p0, p1) <= options.max_gap_m) return true;
  if (!options.swept_feasibility || c.gap_m <= 0.0) return false;
  // The vertex crosses the edge's line within the step (predicted gap < 0): feasible if, moving
  // both linearly, it is within max_gap_m of the segment where it crosses.
  const Points2& first_now = c.body1 == 0 ? a : b;
  const Points2& second_now = c.body1 == 0 ? b : a;
  const Vec2 d = p1 - p0;
  const double gap1 = Vec2(d.y(), -d.x()).normalized().dot(x1 - p0);
  if (gap1 >= 0.0) return false;
  const double s = c.gap_m / (c.gap_m - gap1);
  auto lerp = [s](const Vec2& from, const Vec2& to) { return from + s * (to - from); };
  return PointSegmentDistance(lerp(first_now.row(c.vertex1).transpose(), x1),
                              lerp(second_now.row(c.edge2).transpose(), p0),
                              lerp(second_now.row((c.edge2 + 1) % n2).transpose(), p1)) <=
         options.max_gap_m;
}

}  // namespace

void MakePolygonConstraints(PolygonContactModel model, const Points2& a, const Points2& b,
                            std::span<const PolygonPrediction> predicted,
                            const PolygonConstraintOptions& options,
                            std::vector<PolygonConstraint>* out, PolygonConstraintStats* stats) {
  PolygonConstraintStats local_stats;
  if (stats == nullptr) stats = &local_stats;
  // Every vertex–edge pair with its geometry at the current configuration, then the feasibility
  // test at the current or the predicted configuration.
  PolygonContactOptions all;
  all.max_gap_m = std::numeric_limits<double>::infinity();
  all.include_inapplicable = true;
  all.applicability_threshold = options.applicability_threshold;
  all.configuration_distance_m = options.max_gap_m;
  std::vector<PolygonContact> candidates;
  FindPolygonContacts(a, b, all, &candidates);
  std::vector<PolygonContact> feasible;
  for (PolygonContact& c : candidates) {
    bool ok = c.distance_m <= options.max_gap_m;
    for (size_t k = 0; k < predicted.size() && !ok; ++k) {
      ok = FeasibleAt(c, a, b, predicted[k], options);
    }
    if (!ok) continue;
    c.applicable = c.applicability > options.applicability_threshold;
    feasible.push_back(c);
  }
  stats->feasible_candidates += static_cast<int>(feasible.size());
  if (model == PolygonContactModel::kStandard) {
    for (const PolygonContact& c : feasible) {
      if (options.standard_requires_applicability && !c.applicable) continue;
      PolygonConstraint u;
      u.primary = c;
      out->push_back(u);
      ++stats->unilateral;
    }
    return;
  }
  PegBuilder builder(feasible, {static_cast<int>(a.rows()), static_cast<int>(b.rows())}, options);
  builder.Build(out, stats);
}

}  // namespace contactsim::core
