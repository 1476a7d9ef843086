// The constants of the world serialization format (layout in docs/service.md, "Snapshots"):
//
//   magic "CSIMWRLD" (8 bytes) | format version u32 | payload length u64 | payload | FNV-1a 64 u64
//
// The checksum covers every byte before it. The payload is a sequence of sections, each
//   tag u32 | flags u32 | length u64 | `length` bytes,
// all little-endian. A reader refuses a section it does not know when its kSectionRequired flag
// is set (it would change later steps) and skips it otherwise, so a new kind of state is added
// as a new section tag without a version change; the version changes only when the layout of an
// existing section changes.
#pragma once

#include <cstdint>
#include <string_view>

namespace contactsim::core::serialization {

inline constexpr std::string_view kMagic = "CSIMWRLD";
inline constexpr uint32_t kFormatVersion = 1;
// magic + version + payload length, then the checksum after the payload.
inline constexpr size_t kHeaderBytes = 8 + 4 + 8;
inline constexpr size_t kChecksumBytes = 8;
inline constexpr size_t kSectionHeaderBytes = 4 + 4 + 8;

inline constexpr uint32_t kSectionRequired = 1u << 0;

// Four ASCII characters, first character in the lowest byte (so the bytes read as the name).
constexpr uint32_t SectionTag(const char (&name)[5]) {
  return static_cast<uint32_t>(static_cast<uint8_t>(name[0])) |
         static_cast<uint32_t>(static_cast<uint8_t>(name[1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(name[2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(name[3])) << 24;
}

inline constexpr uint32_t kSettingsTag = SectionTag("SETT");       // WorldSettings, once
inline constexpr uint32_t kClockTag = SectionTag("CLCK");          // time, ids, E_ref, once
inline constexpr uint32_t kPlanesTag = SectionTag("PLNS");         // ground planes, once
inline constexpr uint32_t kBodyTag = SectionTag("BODY");           // one per body, ascending id
inline constexpr uint32_t kTrackedPairsTag = SectionTag("PAIR");   // penalty VF/EE pairs, once
inline constexpr uint32_t kPlaneContactsTag = SectionTag("PLCT");  // penalty plane contacts, once
// World constraints and their next id, once; written only when there is a constraint or the next
// id is not 0 (absent reads as none, next id 0), so worlds that never had one keep their bytes.
inline constexpr uint32_t kConstraintsTag = SectionTag("CNST");

// The local_global pipeline's settings, once; present exactly when the World steps with it
// (absent: the penalty pipeline). Required: a reader that skipped it would step another way.
inline constexpr uint32_t kLocalGlobalTag = SectionTag("LGLB");
// The warm start of the local_global pipeline's contact group (vertex_contact_codec.h), once;
// written only when two or more hyperelastic bodies were stepped together (absent: none).
// Required: a reader that skipped it would step on with other bits.
inline constexpr uint32_t kGroupContactsTag = SectionTag("LGCT");

// The rigid_lcp pipeline's settings (RigidLcpSettings, declaration order), once; present exactly
// when the World steps with it. Required.
inline constexpr uint32_t kRigidLcpTag = SectionTag("RLCP");
// The rigid_lcp pipeline's warm start (rigid_lcp_warm_codec.h: the last step's constraints with
// their impulses and active unknowns), once; written only when it is not empty (absent: none, a
// cold start, as before this section existed). Every step finds its potential contacts anew;
// this is only where its solver starts. Required: a reader that skipped it would take another
// solver path and step on with other bits.
inline constexpr uint32_t kRigidLcpWarmStartTag = SectionTag("RLWS");

// WorldSettings::contact_restitution (f64), once; written only when it is not 1 (absent: 1, no
// contact damping), so undamped worlds keep their bytes. Required: a reader that skipped it would
// step without the dashpot.
inline constexpr uint32_t kContactDampingTag = SectionTag("CDMP");

// The World's robots (robots_codec.h): next robot id, then per robot its id, spec (name, URDF
// text, mesh files, base, load options, initial positions), link body ids and motor commands;
// written only when the World has had a robot, so worlds without keep their bytes. The links'
// states are their bodies'. Required: a reader that skipped it would step without the joints.
inline constexpr uint32_t kRobotsTag = SectionTag("RBOT");

// Body kinds inside a BODY section.
enum class BodyKindCode : uint8_t {
  kRigid = 0,
  kMassSpringCloth = 1,
  kCorotationalFem = 2,
  kHyperelastic = 3,
};
// Constraint kinds inside a CNST section.
enum class ConstraintKindCode : uint8_t { kPin = 0, kAttachment = 1, kPositionTarget = 2 };

}  // namespace contactsim::core::serialization
