// gRPC's and protobuf's own log lines (a gRPC error, protobuf's "invalid UTF-8" when a client
// sends a bad string) would go to stderr in their own formats, between the server's records.
// RouteLibraryLogs sends them through the structured log instead (events grpc_log and
// protobuf_log, docs/logging.md), so that every line on stderr is one record.
#pragma once

namespace contactsim::server {

// Process-wide; call once at start-up, after the structured logger is installed.
void RouteLibraryLogs();

}  // namespace contactsim::server
