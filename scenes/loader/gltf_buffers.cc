#include "scenes/loader/gltf_buffers.h"

#include <cctype>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace contactsim::scenes {
namespace {

// JSON string escapes and URI percent-escapes undone: the file name the URI stands for.
std::string DecodedUri(const std::string& raw) {
  std::string json;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size()) {
      ++i;  // \" \\ \/ stand for the character; other escapes do not occur in file names
    }
    json.push_back(raw[i]);
  }
  std::string out;
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '%' && i + 2 < json.size() &&
        std::isxdigit(static_cast<unsigned char>(json[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(json[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(json.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(json[i]);
    }
  }
  return out;
}

std::string Directory(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

absl::StatusOr<std::string> EmbedGltfExternalUris(const std::string& gltf_json,
                                                  const std::string& gltf_path) {
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t key = gltf_json.find("\"uri\"", pos);
    if (key == std::string::npos) break;
    // "uri" <ws> : <ws> "value"
    size_t i = key + 5;
    while (i < gltf_json.size() && std::isspace(static_cast<unsigned char>(gltf_json[i]))) ++i;
    if (i >= gltf_json.size() || gltf_json[i] != ':') {
      out.append(gltf_json, pos, i - pos);
      pos = i;
      continue;
    }
    ++i;
    while (i < gltf_json.size() && std::isspace(static_cast<unsigned char>(gltf_json[i]))) ++i;
    if (i >= gltf_json.size() || gltf_json[i] != '"') {
      out.append(gltf_json, pos, i - pos);
      pos = i;
      continue;
    }
    const size_t begin = i + 1;
    size_t end = begin;
    while (end < gltf_json.size() && gltf_json[end] != '"') end += gltf_json[end] == '\\' ? 2 : 1;
    if (end >= gltf_json.size()) break;  // unterminated: the server's parser reports it
    const std::string raw = gltf_json.substr(begin, end - begin);
    out.append(gltf_json, pos, begin - pos);
    pos = end;
    if (raw.rfind("data:", 0) == 0) {
      out += raw;
      continue;
    }
    const std::string name = DecodedUri(raw);
    if (name.empty() || name[0] == '/' || name.find(':') != std::string::npos) {
      return absl::NotFoundError(
          absl::StrCat(gltf_path, ": uri '", raw,
                       "' is absolute or has a scheme: cannot read the file (only files beside "
                       "the .gltf are sent; embed it as a data: URI, or convert to .glb)"));
    }
    const std::string path = Directory(gltf_path) + name;
    std::ifstream file(path, std::ios::binary);
    if (!file.is_open()) {
      return absl::NotFoundError(
          absl::StrCat(gltf_path, ": uri '", raw, "' names ", path, ": cannot read the file"));
    }
    const std::string bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    out += "data:application/octet-stream;base64,";
    out += absl::Base64Escape(bytes);
  }
  out.append(gltf_json, pos, std::string::npos);
  return out;
}

}  // namespace contactsim::scenes
