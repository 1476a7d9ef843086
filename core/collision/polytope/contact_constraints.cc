#include "core/collision/polytope/contact_constraints.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/collision/polytope/feature_tests.h"

namespace contactsim::core {
namespace {

using Rule = ContactConstraintRule;

void Emit(Rule rule, const PotentialContact& primary, std::vector<PotentialContact> secondaries,
          std::vector<ContactConstraintGeometry>* out) {
  ContactConstraintGeometry g;
  g.rule = rule;
  g.primary = primary;
  g.secondary_flipped.reserve(secondaries.size());
  for (PotentialContact& s : secondaries) {
    const bool flip = s.body1 != primary.body1;
    g.secondary_flipped.push_back(flip);
    g.secondaries.push_back(flip ? FlipContact(s) : s);
  }
  out->push_back(std::move(g));
}

double PointSegmentDistance(const Vec3& x, const Vec3& p0, const Vec3& p1) {
  const Vec3 d = p1 - p0;
  const double t = std::clamp((x - p0).dot(d) / d.squaredNorm(), 0.0, 1.0);
  return (p0 + t * d - x).norm();
}

// The PEG stage over one query's candidates.
class PegBuilder {
 public:
  PegBuilder(const PosedPolytope& a, const PosedPolytope& b,
             const std::vector<PotentialContact>& candidates,
             const ContactConstraintOptions& options, std::vector<ContactConstraintGeometry>* out,
             ContactConstraintStats* stats)
      : posed_{&a, &b}, candidates_(candidates), options_(options), out_(out), stats_(stats) {
    for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
      const PotentialContact& c = candidates[i];
      if (c.kind == PotentialContactKind::kVertexFace) {
        vertex_face_[{c.body1, c.feature1, c.feature2}] = i;
        vertex_candidates_[{c.body1, c.feature1}].push_back(i);
      } else {
        edge_edge_[{c.feature1, c.feature2}] = i;
      }
    }
  }

  void Run() {
    CollectConfigurations();
    for (const auto& [va, vb] : vertex_vertex_) VertexVertex(va, vb);
    for (const auto& [body, v, e] : vertex_edge_) VertexEdge(body, v, e);
    for (int i : deferred_edge_edge_) {
      const PotentialContact& c = candidates_[i];
      if (c.applicability >= options_.edge_edge_applicability &&
          !edge_pairs_in_i_.contains({c.feature1, c.feature2})) {
        Add(Rule::kEdgeEdgeUnilateral, c, {});
      }
    }
    if (options_.crossing_edges_near_ends) {
      for (int i : near_end_edge_edge_) {
        const PotentialContact& c = candidates_[i];
        if (c.applicability >= options_.edge_edge_applicability &&
            !edge_pairs_in_i_.contains({c.feature1, c.feature2}) && CrossInside(c)) {
          Add(Rule::kCrossingEdgeUnilateral, c, {});
        }
      }
    }
    for (const auto& [vertex, indices] : vertex_candidates_) {
      if (vertices_used_.contains(vertex)) continue;
      std::vector<PotentialContact> faces;
      for (int i : indices) {
        if (candidates_[i].applicability >= options_.lone_vertex_applicability) {
          faces.push_back(candidates_[i]);
        }
      }
      if (!faces.empty()) Add(Rule::kLoneVertexUnilateral, faces[ChoosePrimary(faces)], {});
    }
  }

 private:
  // Configurations of the paper's §5.2 from each candidate's features (potential_contacts.h).
  void CollectConfigurations() {
    for (int i = 0; i < static_cast<int>(candidates_.size()); ++i) {
      const PotentialContact& c = candidates_[i];
      if (c.kind == PotentialContactKind::kVertexFace) {
        if (c.configuration == FeatureConfiguration::kVertexVertex) {
          vertex_vertex_.insert(c.body1 == 0 ? std::pair(c.feature1, c.near_vertex2)
                                             : std::pair(c.near_vertex2, c.feature1));
        } else if (c.configuration == FeatureConfiguration::kVertexEdge) {
          vertex_edge_.insert({c.body1, c.feature1, c.near_edge2});
        }
        continue;
      }
      const bool near1 = c.near_vertex1 >= 0, near2 = c.near_vertex2 >= 0;
      if (near1 && near2) {
        vertex_vertex_.insert({c.near_vertex1, c.near_vertex2});
      } else if (near1) {
        vertex_edge_.insert({0, c.near_vertex1, c.feature2});
      } else if (near2) {
        vertex_edge_.insert({1, c.near_vertex2, c.feature1});
      } else {
        deferred_edge_edge_.push_back(i);
      }
      if (near1 || near2) near_end_edge_edge_.push_back(i);
    }
  }

  void Add(Rule rule, const PotentialContact& primary, std::vector<PotentialContact> secondaries) {
    const auto mark = [&](const PotentialContact& c) {
      if (c.kind == PotentialContactKind::kVertexFace) {
        vertices_used_.insert({c.body1, c.feature1});
      } else if (!secondaries.empty()) {
        edge_pairs_in_i_.insert({c.feature1, c.feature2});
      }
    };
    mark(primary);
    for (const PotentialContact& s : secondaries) mark(s);
    Emit(rule, primary, std::move(secondaries), out_);
  }

  // Do the lines of an edge–edge candidate's edges come closest inside both segments? Then its
  // gap is the segments' own (no clamping to an end) and a U on it is exact where they cross.
  bool CrossInside(const PotentialContact& c) const {
    const PolytopeEdge& ea = posed_[0]->shape().edge(c.feature1);
    const PolytopeEdge& eb = posed_[1]->shape().edge(c.feature2);
    const SegmentClosestPoints closest =
        ClosestPointsOfSegments(posed_[0]->vertex(ea.tail), posed_[0]->vertex(ea.head),
                                posed_[1]->vertex(eb.tail), posed_[1]->vertex(eb.head));
    return closest.s > 0.0 && closest.s < 1.0 && closest.t > 0.0 && closest.t < 1.0;
  }

  // The candidate (body1, vertex, face) when feasible, else nullptr.
  const PotentialContact* FindVertexFace(int body1, int vertex, int face) const {
    const auto it = vertex_face_.find({body1, vertex, face});
    return it == vertex_face_.end() ? nullptr : &candidates_[it->second];
  }

  // The plane contact of a vertex with a face of the other body that is not among the candidates
  // (not feasible, or farther than max_gap_m), at `edge` (>= 0) or `corner` of that face: its
  // distance_m is the distance to that edge or corner.
  PotentialContact PlaneContact(int body1, int vertex, int face, int edge, int corner) const {
    const PosedPolytope& first = *posed_[body1];
    const PosedPolytope& second = *posed_[1 - body1];
    const Vec3 x = first.vertex(vertex);
    const Vec3 eta = second.face_normal(face);
    PotentialContact c;
    c.kind = PotentialContactKind::kVertexFace;
    c.body1 = body1;
    c.feature1 = vertex;
    c.feature2 = face;
    c.point1_W = x;
    c.normal_W = -eta;
    c.gap_m = eta.dot(x) - second.face_offset_m(face);
    if (edge >= 0) {
      const PolytopeEdge& e = second.shape().edge(edge);
      c.configuration = FeatureConfiguration::kVertexEdge;
      c.near_edge2 = edge;
      c.distance_m = PointSegmentDistance(x, second.vertex(e.tail), second.vertex(e.head));
    } else {
      c.configuration = FeatureConfiguration::kVertexVertex;
      c.near_vertex2 = corner;
      c.distance_m = (x - second.vertex(corner)).norm();
    }
    c.applicability = VertexFaceApplicability(first, vertex, eta);
    c.applicable = c.applicability >= options_.potential.applicability_threshold;
    return c;
  }

  int ChoosePrimary(const std::vector<PotentialContact>& contacts) const {
    int best = 0;
    if (options_.primary_rule == PegPrimaryRule::kLargestGap) {
      for (int i = 1; i < static_cast<int>(contacts.size()); ++i) {
        if (contacts[i].gap_m > contacts[best].gap_m) best = i;
      }
      return best;
    }
    best = -1;  // peg_heuristic.m: the smallest gap not below its tolerance, else the first
    for (int i = 0; i < static_cast<int>(contacts.size()); ++i) {
      if (contacts[i].gap_m >= options_.authors_heuristic_gap_m &&
          (best < 0 || contacts[i].gap_m < contacts[best].gap_m)) {
        best = i;
      }
    }
    return std::max(best, 0);
  }

  // With vertex_all_feasible_faces: the vertex's other feasible faces (its candidates), so that
  // the constraint's max runs over every face near the vertex. A vertex inside the other body is
  // below every face plane, so a max over any set of its faces still forbids that; more faces only
  // admit more of the poses where it is outside (it is outside iff the max over all faces >= 0).
  void AppendOtherFaces(int body1, int vertex, const std::vector<int32_t>& exclude,
                        std::vector<PotentialContact>* secondaries) const {
    if (!options_.vertex_all_feasible_faces) return;
    const auto it = vertex_candidates_.find({body1, vertex});
    if (it == vertex_candidates_.end()) return;
    for (int i : it->second) {
      const PotentialContact& c = candidates_[i];
      if (std::find(exclude.begin(), exclude.end(), c.feature2) == exclude.end()) {
        secondaries->push_back(c);
      }
    }
  }

  // One side of a vertex–vertex configuration: `vertex` of body1 against the faces at `corner`
  // of the other body. Potentials: feasible with APPL >= vertex_vertex_applicability; the primary
  // is one of them. The other potentials are secondaries, and with vertex_vertex_all_corner_faces
  // so are the remaining faces at the corner (plane contacts where not feasible): then the
  // constraint is max over all faces at the corner >= 0, exactly "vertex outside the body" near
  // the corner.
  void VertexVertexSide(int body1, int vertex, int corner) {
    std::vector<PotentialContact> potentials, others;
    for (int32_t f : posed_[1 - body1]->shape().vertex_faces(corner)) {
      const PotentialContact* c = FindVertexFace(body1, vertex, f);
      if (c != nullptr && c->applicability >= options_.vertex_vertex_applicability) {
        potentials.push_back(*c);
      } else if (options_.vertex_vertex_all_corner_faces) {
        others.push_back(c != nullptr ? *c : PlaneContact(body1, vertex, f, -1, corner));
      }
    }
    if (potentials.empty()) return;
    const int p = ChoosePrimary(potentials);
    std::vector<PotentialContact> secondaries;
    for (int i = 0; i < static_cast<int>(potentials.size()); ++i) {
      if (i != p) secondaries.push_back(potentials[i]);
    }
    secondaries.insert(secondaries.end(), others.begin(), others.end());
    std::vector<int32_t> corner_faces;
    for (int32_t f : posed_[1 - body1]->shape().vertex_faces(corner)) corner_faces.push_back(f);
    AppendOtherFaces(body1, vertex, corner_faces, &secondaries);
    const Rule rule =
        secondaries.empty() ? Rule::kVertexVertexUnilateral : Rule::kVertexVertexIntercontact;
    Add(rule, potentials[p], std::move(secondaries));
  }

  void VertexVertex(int va, int vb) {
    VertexVertexSide(0, va, vb);
    VertexVertexSide(1, vb, va);
  }

  void VertexEdge(int body1, int v, int e) {
    const PosedPolytope& vertex_body = *posed_[body1];
    const PosedPolytope& edge_body = *posed_[1 - body1];
    const PolytopeEdge& edge = edge_body.shape().edge(e);
    const PotentialContact* feasible1 = FindVertexFace(body1, v, edge.face1);
    const PotentialContact* feasible2 = FindVertexFace(body1, v, edge.face2);
    if (edge_body.face_normal(edge.face1).dot(edge_body.face_normal(edge.face2)) >
        options_.flat_edge_cosine) {
      // The authors' code takes f1; the larger gap is the face the vertex is over (the planes
      // differ by at most the 5.7 degrees, but beside f2 the plane of f1 can be mm off).
      const PotentialContact* c = feasible1 != nullptr ? feasible1 : feasible2;
      if (options_.primary_rule == PegPrimaryRule::kLargestGap && feasible1 != nullptr &&
          feasible2 != nullptr && feasible2->gap_m > feasible1->gap_m) {
        c = feasible2;
      }
      if (c != nullptr) Add(Rule::kFlatEdgeUnilateral, *c, {});
      return;
    }
    if (feasible1 == nullptr && feasible2 == nullptr) {
      if (stats_ != nullptr) ++stats_->vertex_edge_infeasible;
      return;
    }
    const PotentialContact c1 =
        feasible1 != nullptr ? *feasible1 : PlaneContact(body1, v, edge.face1, e, -1);
    const PotentialContact c2 =
        feasible2 != nullptr ? *feasible2 : PlaneContact(body1, v, edge.face2, e, -1);
    bool first_primary = c1.gap_m >= c2.gap_m;
    if (options_.primary_rule == PegPrimaryRule::kAuthorsCode) {
      const double tol = options_.authors_vertex_edge_gap_m;
      first_primary =
          (tol < c1.gap_m && c1.gap_m < c2.gap_m) || (!(c2.gap_m > tol) && c1.gap_m >= c2.gap_m);
    }
    std::vector<PotentialContact> secondaries = {first_primary ? c2 : c1};
    AppendOtherFaces(body1, v, {edge.face1, edge.face2}, &secondaries);
    Add(Rule::kVertexEdgeIntercontact, first_primary ? c1 : c2, std::move(secondaries));

    // Edges at v against e (eq 36): each guards the side of e it leaves v towards.
    const Vec3 orientation = edge_body.EdgeOrientation(e);
    for (int32_t ev : vertex_body.shape().vertex_edges(v)) {
      const auto it = edge_edge_.find(body1 == 0 ? std::pair(ev, e) : std::pair(e, ev));
      if (it == edge_edge_.end()) continue;  // parallel, or farther than max_gap_m
      const PotentialContact& ee = candidates_[it->second];
      if (ee.applicability < options_.pairing_edge_applicability) continue;
      const PolytopeEdge& ev_ends = vertex_body.shape().edge(ev);
      const int other = ev_ends.tail == v ? ev_ends.head : ev_ends.tail;
      const double s = orientation.dot(vertex_body.vertex(other) - vertex_body.vertex(v));
      if (s == 0.0) continue;
      const bool side1 = s > 0.0;
      const PotentialContact& ci = side1 ? c1 : c2;
      const bool feasible = (side1 ? feasible1 : feasible2) != nullptr;
      if (feasible) {
        Add(Rule::kVertexEdgePairing, ci, {ee});
      } else {
        Add(Rule::kVertexEdgePairing, ee, {ci});
      }
    }
  }

  const PosedPolytope* posed_[2];
  const std::vector<PotentialContact>& candidates_;
  const ContactConstraintOptions& options_;
  std::vector<ContactConstraintGeometry>* out_;
  ContactConstraintStats* stats_;

  std::map<std::tuple<int, int, int>, int> vertex_face_;               // (body1, vertex, face)
  std::map<std::pair<int, int>, std::vector<int>> vertex_candidates_;  // (body1, vertex)
  std::map<std::pair<int, int>, int> edge_edge_;                       // (edge of A, edge of B)
  std::set<std::pair<int, int>> vertex_vertex_;                        // (vertex of A, vertex of B)
  std::set<std::tuple<int, int, int>> vertex_edge_;  // (vertex's body, vertex, edge)
  std::vector<int> deferred_edge_edge_;
  std::vector<int> near_end_edge_edge_;  // edge–edge candidates of vertex–vertex/–edge configs
  std::set<std::pair<int, int>> vertices_used_;    // (body, vertex) named by a constraint
  std::set<std::pair<int, int>> edge_pairs_in_i_;  // edge–edge pairs in an I
};

// Identity of a contact: its kind, body order and features.
using ContactKey = std::tuple<int, int, int, int>;
ContactKey KeyOf(const PotentialContact& c, bool flipped) {
  return {static_cast<int>(c.kind), flipped ? 1 - c.body1 : c.body1, c.feature1, c.feature2};
}

void RemoveDuplicates(std::vector<ContactConstraintGeometry>* out, size_t begin,
                      ContactConstraintStats* stats) {
  std::set<std::pair<ContactKey, std::vector<ContactKey>>> seen;
  size_t kept = begin;
  for (size_t i = begin; i < out->size(); ++i) {
    const ContactConstraintGeometry& g = (*out)[i];
    std::vector<ContactKey> secondaries;
    for (size_t k = 0; k < g.secondaries.size(); ++k) {
      secondaries.push_back(KeyOf(g.secondaries[k], g.secondary_flipped[k]));
    }
    std::sort(secondaries.begin(), secondaries.end());
    if (!seen.insert({KeyOf(g.primary, false), std::move(secondaries)}).second) {
      if (stats != nullptr) ++stats->duplicates_removed;
      continue;
    }
    if (kept != i) (*out)[kept] = std::move((*out)[i]);
    ++kept;
  }
  out->resize(kept);
}

void Count(const std::vector<ContactConstraintGeometry>& out, size_t begin,
           ContactConstraintStats* stats) {
  if (stats == nullptr) return;
  for (size_t i = begin; i < out.size(); ++i) {
    ++stats->by_rule[static_cast<int>(out[i].rule)];
    for (bool flipped : out[i].secondary_flipped) stats->secondaries_flipped += flipped;
  }
}

}  // namespace

std::string_view ContactConstraintRuleName(ContactConstraintRule rule) {
  switch (rule) {
    case Rule::kStandardUnilateral:
      return "standard_unilateral";
    case Rule::kPlaneUnilateral:
      return "plane_unilateral";
    case Rule::kVertexVertexUnilateral:
      return "vertex_vertex_unilateral";
    case Rule::kVertexVertexIntercontact:
      return "vertex_vertex_intercontact";
    case Rule::kFlatEdgeUnilateral:
      return "flat_edge_unilateral";
    case Rule::kVertexEdgeIntercontact:
      return "vertex_edge_intercontact";
    case Rule::kVertexEdgePairing:
      return "vertex_edge_pairing";
    case Rule::kEdgeEdgeUnilateral:
      return "edge_edge_unilateral";
    case Rule::kLoneVertexUnilateral:
      return "lone_vertex_unilateral";
    case Rule::kCrossingEdgeUnilateral:
      return "crossing_edge_unilateral";
  }
  return "unknown";
}

double ConstraintGap(const ContactConstraintGeometry& constraint) {
  double gap = constraint.primary.gap_m;
  for (const PotentialContact& s : constraint.secondaries) gap = std::max(gap, s.gap_m);
  return gap;
}

PotentialContact FlipContact(const PotentialContact& contact) {
  PotentialContact flipped = contact;
  flipped.body1 = 1 - contact.body1;
  flipped.point1_W = contact.point1_W + contact.gap_m * contact.normal_W;
  flipped.normal_W = -contact.normal_W;
  return flipped;
}

int ContactConstraintStats::unilateral() const {
  return count(Rule::kStandardUnilateral) + count(Rule::kPlaneUnilateral) +
         count(Rule::kVertexVertexUnilateral) + count(Rule::kFlatEdgeUnilateral) +
         count(Rule::kEdgeEdgeUnilateral) + count(Rule::kLoneVertexUnilateral) +
         count(Rule::kCrossingEdgeUnilateral);
}

int ContactConstraintStats::intercontact() const {
  return count(Rule::kVertexVertexIntercontact) + count(Rule::kVertexEdgeIntercontact) +
         count(Rule::kVertexEdgePairing);
}

void MakeContactConstraints(PolytopeContactModel model, const PosedPolytope& a,
                            const PosedPolytope& b, const ContactConstraintOptions& options,
                            std::vector<ContactConstraintGeometry>* out,
                            ContactConstraintStats* stats) {
  PotentialContactOptions search = options.potential;
  search.include_inapplicable = model == PolytopeContactModel::kPeg;
  thread_local std::vector<PotentialContact> candidates;
  candidates.clear();
  FindPotentialContacts(a, b, search, &candidates, stats != nullptr ? &stats->potential : nullptr);
  if (stats != nullptr) stats->candidates += static_cast<int>(candidates.size());
  const size_t begin = out->size();
  if (model == PolytopeContactModel::kStandard) {
    for (const PotentialContact& c : candidates) Emit(Rule::kStandardUnilateral, c, {}, out);
  } else {
    PegBuilder(a, b, candidates, options, out, stats).Run();
    RemoveDuplicates(out, begin, stats);
  }
  Count(*out, begin, stats);
}

void MakePlaneContactConstraints(const PosedPolytope& a, const Vec3& plane_normal_W,
                                 double plane_offset_m, const ContactConstraintOptions& options,
                                 std::vector<ContactConstraintGeometry>* out,
                                 ContactConstraintStats* stats) {
  PotentialContactOptions search = options.potential;
  search.include_inapplicable = false;
  thread_local std::vector<PotentialContact> candidates;
  candidates.clear();
  FindPlaneContacts(a, plane_normal_W, plane_offset_m, search, &candidates,
                    stats != nullptr ? &stats->potential : nullptr);
  if (stats != nullptr) stats->candidates += static_cast<int>(candidates.size());
  const size_t begin = out->size();
  for (const PotentialContact& c : candidates) Emit(Rule::kPlaneUnilateral, c, {}, out);
  Count(*out, begin, stats);
}

}  // namespace contactsim::core
