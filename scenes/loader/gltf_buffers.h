// A .gltf file keeps its buffers (and images) in separate files that its JSON names by relative
// URI ("uri": "box.bin"). The server reads only the bytes it is sent, so the client embeds them:
// each such URI is replaced by a base64 data: URI of the file it names, resolved against the
// .gltf's directory. URIs that are already data: URIs are kept.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace contactsim::scenes {

// The .gltf JSON with every external URI embedded. NotFound ("...: cannot read the file") naming
// the .gltf, the URI and the path tried when a referenced file cannot be read, or when the URI is
// absolute or has a scheme (http:, file:): only files beside the .gltf are sent.
absl::StatusOr<std::string> EmbedGltfExternalUris(const std::string& gltf_json,
                                                  const std::string& gltf_path);

}  // namespace contactsim::scenes
