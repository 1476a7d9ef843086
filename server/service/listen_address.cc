#include "server/service/listen_address.h"

namespace contactsim::server {

bool IsLoopbackListenAddress(std::string_view address) {
  if (address.starts_with("unix:") || address.starts_with("unix-abstract:")) return true;
  // gRPC's "ipv4:" / "ipv6:" URI schemes name the same kinds of addresses.
  for (std::string_view scheme : {"ipv4:", "ipv6:", "dns:"}) {
    if (address.starts_with(scheme)) address.remove_prefix(scheme.size());
  }
  std::string_view host = address;
  if (host.starts_with("[")) {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    host = host.substr(1, close - 1);
  } else {
    const size_t colon = host.rfind(':');
    if (colon != std::string_view::npos) host = host.substr(0, colon);
  }
  if (host == "localhost" || host == "::1") return true;
  // 127.0.0.0/8, written as a dotted number (not a host name that merely begins with "127.").
  return host.starts_with("127.") &&
         host.find_first_not_of("0123456789.") == std::string_view::npos;
}

}  // namespace contactsim::server
