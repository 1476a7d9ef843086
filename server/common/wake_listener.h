// Opens and closes one TCP connection to host:port (best effort). civetweb's listener polls with a
// 2 s timeout and checks for mg_stop only between polls; a connection wakes it, so that stopping
// a civetweb server (the viewer's, the metrics Exposer's) returns at once.
#pragma once

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace contactsim::server {

inline void WakeListener(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    const bool connected = connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    close(fd);
    if (connected) break;
  }
  freeaddrinfo(found);
}

}  // namespace contactsim::server
