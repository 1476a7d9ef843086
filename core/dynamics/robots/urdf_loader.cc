#include "core/dynamics/robots/urdf_loader.h"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/geometry/mesh_import.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_primitives.h"

namespace contactsim::core {
namespace {

// urdfdom reports why it refused a file through console_bridge; collect those messages for the
// status. console_bridge's handler is process-wide, hence the lock.
class CollectingHandler final : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) messages.push_back(text);
  }
  std::vector<std::string> messages;
};

std::mutex& ParseMutex() {
  static std::mutex mutex;
  return mutex;
}

// "link 'name' (line 12)": the first line of the text holding <tag ... name="name".
std::string Element(std::string_view text, std::string_view tag, const std::string& name) {
  std::string label = absl::StrCat(std::string(tag), " '", name, "'");
  for (const char quote : {'"', '\''}) {
    const std::string needle =
        absl::StrCat("name=", std::string(1, quote), name, std::string(1, quote));
    size_t at = 0;
    while ((at = text.find(needle, at)) != std::string_view::npos) {
      const size_t open = text.rfind('<', at);
      if (open != std::string_view::npos && text.substr(open + 1, tag.size()) == tag) {
        const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + open, '\n'));
        return absl::StrCat(label, " (line ", line, ")");
      }
      at += needle.size();
    }
  }
  return label;
}

Eigen::Isometry3d ToIsometry(const urdf::Pose& pose) {
  Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
  x.translation() = Vec3(pose.position.x, pose.position.y, pose.position.z);
  double qx, qy, qz, qw;
  pose.rotation.getQuaternion(qx, qy, qz, qw);
  x.linear() = Eigen::Quaterniond(qw, qx, qy, qz).normalized().toRotationMatrix();
  return x;
}

std::filesystem::path ResolveMesh(const std::string& filename, const UrdfLoadOptions& options) {
  std::string path = filename;
  if (absl::StartsWith(path, "file://")) return path.substr(7);
  if (absl::StartsWith(path, "package://")) {
    path = path.substr(10);
    const size_t slash = path.find('/');
    path = slash == std::string::npos ? path : path.substr(slash + 1);
  }
  const std::filesystem::path p(path);
  return p.is_absolute() ? p : options.mesh_root / p;
}

// The points of one collision element in the body frame (B = L moved to the centre of mass).
absl::StatusOr<Points3> ElementPoints(const urdf::Geometry& geometry,
                                      const Eigen::Isometry3d& body_from_element,
                                      const UrdfLoadOptions& options) {
  Points3 local;
  switch (geometry.type) {
    case urdf::Geometry::BOX: {
      const auto& box = static_cast<const urdf::Box&>(geometry);
      absl::StatusOr<ConvexPolytope> p =
          MakeBoxPolytope(0.5 * Vec3(box.dim.x, box.dim.y, box.dim.z));
      if (!p.ok()) return p.status();
      local = p->vertices();
      break;
    }
    case urdf::Geometry::CYLINDER: {
      const auto& c = static_cast<const urdf::Cylinder&>(geometry);
      absl::StatusOr<ConvexPolytope> p =
          MakePrismPolytope(options.cylinder_sides, c.radius, c.length);
      if (!p.ok()) return p.status();
      local = p->vertices();
      break;
    }
    case urdf::Geometry::SPHERE: {
      const double r = static_cast<const urdf::Sphere&>(geometry).radius;
      if (!(r > 0.0 && std::isfinite(r))) {
        return absl::InvalidArgumentError(absl::StrCat("sphere radius ", r, " must be > 0"));
      }
      const int around = options.sphere_segments, rings = std::max(2, around / 2);
      local.resize(2 + (rings - 1) * around, 3);
      local.row(0) = Vec3(0, 0, r).transpose();
      local.row(1) = Vec3(0, 0, -r).transpose();
      int row = 2;
      for (int i = 1; i < rings; ++i) {
        const double polar = M_PI * i / rings;
        for (int k = 0; k < around; ++k) {
          const double az = 2.0 * M_PI * k / around;
          local.row(row++) = r * Vec3(std::sin(polar) * std::cos(az),
                                      std::sin(polar) * std::sin(az), std::cos(polar))
                                     .transpose();
        }
      }
      break;
    }
    case urdf::Geometry::MESH: {
      const auto& m = static_cast<const urdf::Mesh&>(geometry);
      absl::StatusOr<TriangleMesh> mesh;
      if (options.mesh_files != nullptr) {
        const auto sent = options.mesh_files->find(m.filename);
        if (sent == options.mesh_files->end()) {
          return absl::NotFoundError(absl::StrCat("mesh '", m.filename, "' was not sent"));
        }
        const std::string extension = std::filesystem::path(m.filename).extension().string();
        mesh = ImportTriangleMeshFromMemory(sent->second,
                                            extension.empty() ? "" : extension.substr(1));
        if (!mesh.ok()) {
          return absl::Status(mesh.status().code(),
                              absl::StrCat("mesh '", m.filename, "': ", mesh.status().message()));
        }
      } else {
        const std::filesystem::path path = ResolveMesh(m.filename, options);
        if (!std::filesystem::exists(path)) {
          return absl::NotFoundError(
              absl::StrCat("mesh '", m.filename, "' not found (", path.string(), ")"));
        }
        mesh = ImportTriangleMesh(path);
      }
      if (!mesh.ok()) return mesh.status();
      local = mesh->vertices();
      for (Eigen::Index i = 0; i < local.rows(); ++i) {
        local.row(i) = local.row(i).cwiseProduct(Vec3(m.scale.x, m.scale.y, m.scale.z).transpose());
      }
      break;
    }
  }
  Points3 out(local.rows(), 3);
  for (Eigen::Index i = 0; i < local.rows(); ++i) {
    out.row(i) = (body_from_element * Vec3(local.row(i).transpose())).transpose();
  }
  return out;
}

// The support points of `points` in n directions spread over the sphere (a Fibonacci lattice):
// their hull is inscribed in the points' hull and approaches it as n grows, with at most n
// vertices (a scanned or exported mesh's hull has thousands, with nearly coplanar facets that
// the polytope validation refuses as split faces).
Points3 SupportPoints(const Points3& points, int n) {
  std::vector<Eigen::Index> chosen;
  const double golden = M_PI * (3.0 - std::sqrt(5.0));
  for (int k = 0; k < n; ++k) {
    const double z = 1.0 - 2.0 * (k + 0.5) / n, r = std::sqrt(1.0 - z * z);
    const Vec3 d(r * std::cos(golden * k), r * std::sin(golden * k), z);
    Eigen::Index best = 0;
    (points * d).maxCoeff(&best);
    chosen.push_back(best);
  }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  Points3 out(chosen.size(), 3);
  for (size_t i = 0; i < chosen.size(); ++i) out.row(i) = points.row(chosen[i]);
  return out;
}

// One convex piece per element; a mesh's points are reduced to support points, fewer on retry
// until the hull validates.
absl::StatusOr<PolytopeUnion> Shape(const std::vector<Points3>& elements, bool reduce,
                                    int directions) {
  std::vector<Points3> pieces;
  absl::StatusOr<PolytopeUnion> shape = absl::InternalError("no attempt");
  for (int n = directions; n >= 24; n -= 12) {
    pieces.clear();
    for (const Points3& p : elements) pieces.push_back(reduce ? SupportPoints(p, n) : p);
    shape = MakeUnionOfHulls(pieces);
    if (shape.ok() || !reduce) break;
  }
  return shape;
}

absl::Status LinkError(std::string_view text, const std::string& name, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(Element(text, "link", name), ": ", std::string(what)));
}

absl::Status JointError(std::string_view text, const std::string& name, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(Element(text, "joint", name), ": ", std::string(what)));
}

}  // namespace

absl::StatusOr<RobotModel> LoadUrdf(std::string_view urdf_text, const UrdfLoadOptions& options) {
  if (options.cylinder_sides < 3 || options.sphere_segments < 4 ||
      options.mesh_hull_directions < 24) {
    return absl::InvalidArgumentError(
        "options: cylinder_sides >= 3, sphere_segments >= 4, mesh_hull_directions >= 24");
  }
  urdf::ModelInterfaceSharedPtr parsed;
  {
    std::lock_guard<std::mutex> lock(ParseMutex());
    CollectingHandler handler;
    console_bridge::useOutputHandler(&handler);
    parsed = urdf::parseURDF(std::string(urdf_text));
    console_bridge::restorePreviousOutputHandler();
    if (parsed == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "urdf: not a valid robot: ",
          handler.messages.empty() ? "urdfdom refused it" : absl::StrJoin(handler.messages, "; ")));
    }
  }
  RobotModel model;
  model.name = parsed->getName();
  const urdf::LinkConstSharedPtr root = parsed->getRoot();
  if (root == nullptr) return absl::InvalidArgumentError("urdf: no root link");

  // Links in a breadth-first order from the root, joints with them (parents before children).
  std::map<std::string, int> link_index;
  std::vector<urdf::LinkConstSharedPtr> order = {root};
  for (size_t i = 0; i < order.size(); ++i) {
    link_index[order[i]->name] = static_cast<int>(i);
    for (const urdf::LinkSharedPtr& child : order[i]->child_links) order.push_back(child);
  }
  if (order.size() != parsed->links_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("urdf: ", parsed->links_.size() - order.size(),
                                                   " link(s) not reachable from the root '",
                                                   root->name, "' (a cycle or a second tree)"));
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const urdf::Link& l = *order[i];
    RobotLink link;
    link.name = l.name;
    link.is_static = i == 0 && options.fixed_base;
    Mat3 rotation = Mat3::Identity();
    if (l.inertial != nullptr) {
      const urdf::Inertial& in = *l.inertial;
      const Eigen::Isometry3d x = ToIsometry(in.origin);
      link.center_of_mass_L = x.translation();
      rotation = x.linear();
      link.mass_kg = in.mass;
      Mat3 inertia;
      inertia << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      link.inertia_body_kg_m2 = rotation * inertia * rotation.transpose();
    }
    if (!link.is_static) {
      if (!(std::isfinite(link.mass_kg) && link.mass_kg > 0.0)) {
        return LinkError(urdf_text, l.name,
                         absl::StrCat("mass ", link.mass_kg,
                                      " must be > 0 (only the base of a fixed-base robot may be "
                                      "massless)"));
      }
      const Eigen::SelfAdjointEigenSolver<Mat3> eig(link.inertia_body_kg_m2);
      if (!link.inertia_body_kg_m2.allFinite() || eig.eigenvalues().minCoeff() <= 0.0) {
        return LinkError(urdf_text, l.name, "inertia must be positive definite");
      }
    }
    // Collision elements in B: x_B = x_L - c.
    Eigen::Isometry3d body_from_link = Eigen::Isometry3d::Identity();
    body_from_link.translation() = -link.center_of_mass_L;
    std::vector<Points3> elements;
    bool has_mesh = false;
    for (size_t e = 0; e < l.collision_array.size(); ++e) {
      const urdf::Collision& c = *l.collision_array[e];
      if (c.geometry == nullptr) continue;
      has_mesh |= c.geometry->type == urdf::Geometry::MESH;
      absl::StatusOr<Points3> points =
          ElementPoints(*c.geometry, body_from_link * ToIsometry(c.origin), options);
      if (!points.ok()) {
        return absl::Status(points.status().code(),
                            absl::StrCat(Element(urdf_text, "link", l.name), ": collision[", e,
                                         "]: ", points.status().message()));
      }
      elements.push_back(*std::move(points));
    }
    if (!elements.empty()) {
      absl::StatusOr<PolytopeUnion> shape = Shape(elements, has_mesh, options.mesh_hull_directions);
      if (!shape.ok() && elements.size() > 1) {
        Eigen::Index total = 0;
        for (const Points3& p : elements) total += p.rows();
        Points3 all(total, 3);
        total = 0;
        for (const Points3& p : elements) {
          all.middleRows(total, p.rows()) = p;
          total += p.rows();
        }
        model.notes.push_back(absl::StrCat("link '", l.name, "': ", elements.size(),
                                           " collision elements overlap; their hull is used"));
        shape = Shape({all}, true, options.mesh_hull_directions);
      }
      if (!shape.ok()) {
        return LinkError(urdf_text, l.name, absl::StrCat("collision: ", shape.status().message()));
      }
      link.collision = *std::move(shape);
    }
    for (const urdf::VisualSharedPtr& v : l.visual_array) {
      if (v == nullptr || v->geometry == nullptr) continue;
      RobotVisual visual;
      visual.link_from_visual = ToIsometry(v->origin);
      if (v->geometry->type == urdf::Geometry::MESH) {
        const auto& m = static_cast<const urdf::Mesh&>(*v->geometry);
        visual.mesh_path = ResolveMesh(m.filename, options).string();
        visual.scale = Vec3(m.scale.x, m.scale.y, m.scale.z);
      }
      link.visuals.push_back(visual);
    }
    model.links.push_back(std::move(link));
  }

  // Joints in the links' order (each link but the root has one parent joint).
  std::map<std::string, int> joint_index;
  for (size_t i = 1; i < order.size(); ++i) {
    const urdf::Joint& j = *order[i]->parent_joint;
    joint_index[j.name] = static_cast<int>(model.joints.size());
    RobotJoint joint;
    joint.name = j.name;
    joint.parent = link_index.at(j.parent_link_name);
    joint.child = link_index.at(j.child_link_name);
    joint.parent_from_joint = ToIsometry(j.parent_to_joint_origin_transform);
    switch (j.type) {
      case urdf::Joint::REVOLUTE:
        joint.type = JointType::kRevolute;
        break;
      case urdf::Joint::CONTINUOUS:
        joint.type = JointType::kContinuous;
        break;
      case urdf::Joint::PRISMATIC:
        joint.type = JointType::kPrismatic;
        break;
      case urdf::Joint::FIXED:
        joint.type = JointType::kFixed;
        break;
      default:
        return JointError(urdf_text, j.name,
                          "type not supported (floating, planar: use a floating base instead)");
    }
    if (joint.type != JointType::kFixed) {
      const Vec3 axis(j.axis.x, j.axis.y, j.axis.z);
      if (!(axis.allFinite() && axis.norm() > 1e-9)) {
        return JointError(urdf_text, j.name, "axis must be non-zero");
      }
      joint.axis = axis.normalized();
    }
    if (j.limits != nullptr && joint.type != JointType::kFixed) {
      const urdf::JointLimits& lim = *j.limits;
      if (!(std::isfinite(lim.lower) && std::isfinite(lim.upper))) {
        return JointError(urdf_text, j.name, "limits must be finite");
      }
      if (lim.lower > lim.upper) {
        return JointError(urdf_text, j.name,
                          absl::StrCat("limit lower ", lim.lower, " > upper ", lim.upper));
      }
      if (!(lim.effort >= 0.0 && lim.velocity >= 0.0)) {
        return JointError(urdf_text, j.name, "limit effort and velocity must be >= 0");
      }
      joint.effort_limit = lim.effort;
      joint.velocity_limit = lim.velocity;
      if (joint.type == JointType::kContinuous) {
        // Continuous joints have no position limits (URDF); some files give them anyway.
      } else if (lim.lower == lim.upper) {
        model.notes.push_back(absl::StrCat("joint '", j.name, "': limit lower == upper (",
                                           lim.lower, ") read as no position limit"));
      } else {
        joint.has_limits = true;
        joint.lower = lim.lower;
        joint.upper = lim.upper;
      }
    }
    if (j.dynamics != nullptr) {
      joint.damping = j.dynamics->damping;
      joint.friction = j.dynamics->friction;
      if (!(joint.damping >= 0.0 && joint.friction >= 0.0)) {
        return JointError(urdf_text, j.name, "dynamics damping and friction must be >= 0");
      }
    }
    model.joints.push_back(joint);
  }
  for (size_t i = 1; i < order.size(); ++i) {
    const urdf::Joint& j = *order[i]->parent_joint;
    if (j.mimic == nullptr) continue;
    const auto leader = joint_index.find(j.mimic->joint_name);
    if (leader == joint_index.end()) {
      return JointError(urdf_text, j.name,
                        absl::StrCat("mimic names an unknown joint '", j.mimic->joint_name, "'"));
    }
    RobotJoint& joint = model.joints[joint_index.at(j.name)];
    joint.mimic_joint = leader->second;
    joint.mimic_multiplier = j.mimic->multiplier;
    joint.mimic_offset = j.mimic->offset;
  }
  return model;
}

absl::StatusOr<RobotModel> LoadUrdfFile(const std::filesystem::path& path,
                                        UrdfLoadOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path.string(), ": cannot open"));
  std::stringstream text;
  text << in.rdbuf();
  if (options.mesh_root.empty()) options.mesh_root = path.parent_path();
  absl::StatusOr<RobotModel> model = LoadUrdf(text.str(), options);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat(path.string(), ": ", model.status().message()));
  }
  return model;
}

}  // namespace contactsim::core
