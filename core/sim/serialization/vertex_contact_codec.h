// The local_global solvers' contact warm start in the world serialization format: the previous
// step's contacts (VertexContact records) and their multipliers, as a hyperelastic body record
// holds them for its own solver and the LGCT section holds them for the pipeline's contact group
// (hyperelastic_contact_group.h).
//   contact list: u32 count | one contact record each | multipliers (3 f64 per contact)
//   contact record: kind u8 | vertex, free vertex, obstacle, feature (4 i32) | normal, tangent1,
//          tangent2 (3 vec) | offset, mu, weight (3 f64) | per extra slot (a u32 count first):
//          vertex, free vertex (2 i32), weight f64 | obstacle velocity vec
//   group memory: member body ids (u32 count, i32 each, ascending) | contact list
// The warm start only compares a record's values with the new contacts' (contact_warm_start.h),
// so reading checks that they are finite and the kinds known, not the indices.
#pragma once

#include <Eigen/Core>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/local_global/contact_frame.h"
#include "core/sim/local_global/hyperelastic_contact_group.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "core/sim/sim_body.h"

namespace contactsim::core::serialization {

void WriteContactMemory(const std::vector<VertexContact>& contacts, const Eigen::VectorXd& lambda_n,
                        ByteWriter* out);
// Errors go to `in` (named name + ".contacts[j]", name + ".contact_forces_n").
void ReadContactMemory(ByteReader* in, const std::string& name,
                       std::vector<VertexContact>* contacts, Eigen::VectorXd* lambda_n);

void WriteGroupContactMemory(const GroupContactMemory& memory, ByteWriter* out);
// `bodies` ascending by id: every member id must be one of a hyperelastic body, ascending.
// InvalidArgument naming "group_contacts...".
absl::StatusOr<GroupContactMemory> ReadGroupContactMemory(ByteReader* in,
                                                          std::span<const SimBody> bodies);

}  // namespace contactsim::core::serialization
