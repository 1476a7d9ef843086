// Test helpers for the /metrics endpoint: a plain-socket HTTP/1.0 request, and a strict reader of
// the Prometheus text exposition format 0.0.4 that reports every rule it finds broken.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace contactsim::server::servertest {

struct HttpResponse {
  int status = 0;
  std::string headers;  // the status line and headers
  std::string body;
};

// Sends `request` (the raw bytes: request line, headers, blank line) to 127.0.0.1:`port` and
// reads the reply to its end; nullopt when the connection fails or the reply has no status line.
inline std::optional<HttpResponse> HttpRequest(int port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return std::nullopt;
  }
  if (send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return std::nullopt;
  }
  std::string raw;
  char buffer[4096];
  for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) raw.append(buffer, n);
  close(fd);
  const size_t end_of_headers = raw.find("\r\n\r\n");
  if (end_of_headers == std::string::npos) return std::nullopt;
  HttpResponse response;
  response.headers = raw.substr(0, end_of_headers);
  response.body = raw.substr(end_of_headers + 4);
  if (std::sscanf(response.headers.c_str(), "HTTP/1.%*d %d", &response.status) != 1) {
    return std::nullopt;
  }
  return response;
}

// GET `path` from 127.0.0.1:`port`; nullopt when the connection fails.
inline std::optional<HttpResponse> HttpGet(int port, const std::string& path) {
  return HttpRequest(port, "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
}

// A sample's labels by name, values as written (escapes kept).
using LabelSet = std::map<std::string, std::string>;

// Reads `{a="x",b="y"}` (or "" for no labels); false when it does not parse or a label repeats.
inline bool ParseLabels(std::string_view text, LabelSet* labels) {
  labels->clear();
  if (text.empty()) return true;
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  text = text.substr(1, text.size() - 2);
  size_t i = 0;
  while (i < text.size()) {
    const size_t equals = text.find('=', i);
    if (equals == std::string_view::npos || equals + 1 >= text.size() || text[equals + 1] != '"') {
      return false;
    }
    std::string value;
    size_t j = equals + 2;
    for (; j < text.size() && text[j] != '"'; ++j) {
      if (text[j] == '\\' && j + 1 < text.size()) value += text[j++];
      value += text[j];
    }
    if (j >= text.size()) return false;
    if (!labels->emplace(std::string(text.substr(i, equals - i)), value).second) return false;
    i = j + 1;
    if (i < text.size() && text[i++] != ',') return false;
  }
  return true;
}

// `{a="x",b="y"}` in label-name order, or "" without labels.
inline std::string WriteLabels(const LabelSet& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (const auto& [name, value] : labels) {
    if (out.size() > 1) out += ",";
    out += name + "=\"" + value + "\"";
  }
  return out + "}";
}

// `name{labels}` with its labels in name order. Prometheus gives label order no meaning and
// prometheus-cpp writes labels sorted by name, so samples are stored and looked up by this key:
// a test may write a key's labels in any order. A key that does not parse is returned as is.
inline std::string CanonicalKey(const std::string& key) {
  const size_t brace = key.find('{');
  if (brace == std::string::npos) return key;
  LabelSet labels;
  if (!ParseLabels(std::string_view(key).substr(brace), &labels)) return key;
  return key.substr(0, brace) + WriteLabels(labels);
}

// One exposition, read line by line. `samples` maps `name{labels in name order}` to the value;
// `errors` lists every broken rule (empty for a valid exposition).
struct Exposition {
  std::map<std::string, double> samples;
  std::map<std::string, std::string> types;  // family name -> type
  std::vector<std::string> errors;

  // The value of a sample (its labels in any order), or NaN when missing (so EXPECT_EQ against a
  // number fails).
  double operator[](const std::string& key) const {
    auto it = samples.find(CanonicalKey(key));
    return it == samples.end() ? std::nan("") : it->second;
  }
  bool Has(const std::string& key) const { return samples.count(CanonicalKey(key)) > 0; }
};

inline Exposition ParseExposition(const std::string& text) {
  Exposition out;
  static const std::regex kHelp(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*))");
  static const std::regex kType(
      R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary))");
  static const std::regex kSample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")(,[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")*\})? (\S+))");
  std::set<std::string> helped;
  std::set<std::string> finished;  // families whose samples have ended
  std::string current;
  // Histogram checks, per series (labels without le): cumulative buckets, +Inf == _count.
  std::map<std::string, std::vector<double>> buckets;
  std::map<std::string, double> inf_bucket;
  std::map<std::string, double> counts;
  if (text.empty() || text.back() != '\n') out.errors.push_back("does not end with a newline");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, kHelp)) {
      if (helped.count(m[1]) > 0) out.errors.push_back("second HELP for " + std::string(m[1]));
      helped.insert(m[1]);
      if (!current.empty() && current != m[1]) finished.insert(current);
      current = m[1];
      continue;
    }
    if (std::regex_match(line, m, kType)) {
      if (out.types.count(m[1]) > 0) out.errors.push_back("second TYPE for " + std::string(m[1]));
      if (m[1] != current) out.errors.push_back("TYPE without HELP first: " + line);
      out.types[m[1]] = m[2];
      continue;
    }
    if (!std::regex_match(line, m, kSample)) {
      out.errors.push_back("not a HELP, TYPE or sample line: '" + line + "'");
      continue;
    }
    const std::string name = m[1];
    LabelSet labels;
    if (!ParseLabels(std::string(m[2]), &labels)) {
      out.errors.push_back("a label repeats: " + line);
      continue;
    }
    char* end = nullptr;
    const std::string value_text = m[7];
    double value = value_text == "+Inf"   ? INFINITY
                   : value_text == "-Inf" ? -INFINITY
                                          : std::strtod(value_text.c_str(), &end);
    if (end != nullptr && *end != '\0') out.errors.push_back("bad value: " + line);
    std::string family = name;
    std::string suffix;
    for (const char* s : {"_bucket", "_sum", "_count"}) {
      const std::string cut = name.size() > std::strlen(s)
                                  ? name.substr(0, name.size() - std::strlen(s))
                                  : std::string();
      if (!name.ends_with(s) || out.types.count(cut) == 0) continue;
      if (out.types[cut] == "histogram" || (out.types[cut] == "summary" && s[1] != 'b')) {
        family = cut;
        suffix = s;
      }
    }
    if (out.types.count(family) == 0) out.errors.push_back("sample before its TYPE: " + line);
    if (family != current || finished.count(family) > 0) {
      out.errors.push_back("sample outside its family's block: " + line);
    }
    if (out.types[family] == "counter" && !name.ends_with("_total")) {
      out.errors.push_back("counter without _total: " + name);
    }
    const std::string key = name + WriteLabels(labels);
    if (out.samples.count(key) > 0) out.errors.push_back("repeated sample: " + line);
    out.samples[key] = value;
    if (out.types[family] != "histogram") continue;  // a summary's quantiles are not checked
    if (suffix == "_bucket") {
      auto le = labels.find("le");
      if (le == labels.end()) {
        out.errors.push_back("bucket without le: " + line);
        continue;
      }
      const std::string bound = le->second;
      labels.erase(le);
      const std::string series = family + WriteLabels(labels);
      if (bound == "+Inf") {
        inf_bucket[series] = value;
      } else {
        auto& seen = buckets[series];
        if (!seen.empty() && value < seen.back()) {
          out.errors.push_back("bucket counts not cumulative: " + line);
        }
        seen.push_back(value);
      }
    } else if (suffix == "_count") {
      counts[family + WriteLabels(labels)] = value;
    }
  }
  for (const auto& [series, count] : counts) {
    if (inf_bucket.count(series) == 0) {
      out.errors.push_back("no le=\"+Inf\" bucket for " + series);
    } else if (inf_bucket[series] != count) {
      out.errors.push_back("le=\"+Inf\" bucket differs from _count for " + series);
    }
    if (!buckets[series].empty() && buckets[series].back() > count) {
      out.errors.push_back("a bucket exceeds _count for " + series);
    }
  }
  for (const auto& [name, type] : out.types) {
    if (helped.count(name) == 0) out.errors.push_back("no HELP for " + name);
  }
  return out;
}

}  // namespace contactsim::server::servertest
