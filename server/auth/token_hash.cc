#include "server/auth/token_hash.h"

#include <openssl/sha.h>

namespace contactsim::server {

std::string TokenSha256(std::string_view token) {
  std::string digest(kTokenHashBytes, '\0');
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(),
         reinterpret_cast<unsigned char*>(digest.data()));
  return digest;
}

}  // namespace contactsim::server
