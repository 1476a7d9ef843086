#include "server/auth/snapshot_seal.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace contactsim::server {
namespace {

constexpr std::string_view kSealMagic = "CSIMSEAL";
constexpr size_t kMacBytes = 32;
constexpr size_t kSealBytes = kSealMagic.size() + kMacBytes;

std::array<unsigned char, kMacBytes> Mac(std::string_view blob, std::string_view key) {
  std::array<unsigned char, kMacBytes> mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(blob.data()), blob.size(), mac.data(), &length);
  return mac;
}

bool HasSeal(std::string_view sealed) {
  return sealed.size() >= kSealBytes &&
         sealed.substr(sealed.size() - kSealBytes, kSealMagic.size()) == kSealMagic;
}

}  // namespace

absl::StatusOr<std::string> ReadSnapshotKeyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat("--snapshot-key-file: cannot read ", path));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string key = bytes.str();
  if (key.size() < kMinSnapshotKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--snapshot-key-file: ", path, " holds ", key.size(), " bytes; a key needs ",
                     kMinSnapshotKeyBytes, " or more (e.g. openssl rand -out FILE 32)"));
  }
  return key;
}

std::string SealSnapshot(std::string_view blob, std::string_view key) {
  const std::array<unsigned char, kMacBytes> mac = Mac(blob, key);
  std::string sealed;
  sealed.reserve(blob.size() + kSealBytes);
  sealed.append(blob);
  sealed.append(kSealMagic);
  sealed.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  return sealed;
}

absl::StatusOr<std::string_view> UnsealSnapshot(std::string_view sealed, std::string_view key) {
  if (key.empty()) return HasSeal(sealed) ? sealed.substr(0, sealed.size() - kSealBytes) : sealed;
  if (!HasSeal(sealed)) {
    return absl::InvalidArgumentError(
        "snapshot: not sealed; this server restores only snapshots sealed with its "
        "--snapshot-key-file");
  }
  const std::string_view blob = sealed.substr(0, sealed.size() - kSealBytes);
  const std::array<unsigned char, kMacBytes> expected = Mac(blob, key);
  if (CRYPTO_memcmp(expected.data(), sealed.data() + blob.size() + kSealMagic.size(), kMacBytes) !=
      0) {
    return absl::InvalidArgumentError(
        "snapshot: the seal does not check (altered, or sealed under another key)");
  }
  return blob;
}

}  // namespace contactsim::server
