// A throwaway PKI for the TLS tests, made with the `openssl` command line in a fresh temporary
// folder (removed again by the destructor): two unrelated CAs, a server certificate for
// localhost / 127.0.0.1 (in subjectAltName, which TLS clients check, not the CN) and a client
// certificate from each CA. EC P-256 keys, so that making them takes milliseconds.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

namespace contactsim::test_fixtures {

// False when no `openssl` is on PATH: the TLS tests then fail and say to run install-deps.
inline bool OpensslAvailable() { return std::system("openssl version >/dev/null 2>&1") == 0; }

inline std::string ReadTextFile(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

class TestPki {
 public:
  // Null, with the failing command and its output in `error`, when openssl fails.
  static std::unique_ptr<TestPki> Create(std::string* error) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "contactsim-pki-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      *error = "mkdtemp " + pattern + " failed";
      return nullptr;
    }
    std::unique_ptr<TestPki> pki(new TestPki(pattern));
    if (!pki->MakeAll(error)) return nullptr;
    return pki;
  }
  ~TestPki() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  TestPki(const TestPki&) = delete;
  TestPki& operator=(const TestPki&) = delete;

  // Files in the folder: ca.pem; server.pem, server.key (signed by ca); client.pem, client.key
  // (signed by ca); other_ca.pem; other_client.pem, other_client.key (signed by other_ca).
  std::string File(const std::string& name) const { return (dir_ / name).string(); }
  std::string Pem(const std::string& name) const { return ReadTextFile(dir_ / name); }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  explicit TestPki(std::filesystem::path dir) : dir_(std::move(dir)) {}

  static constexpr const char* kConfig = R"(
[req]
distinguished_name = dn
prompt = no
[dn]
CN = ContactSim test
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
[client_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
)";

  bool MakeAll(std::string* error) {
    std::ofstream(dir_ / "openssl.cnf") << kConfig;
    return MakeCa("ca", error) && MakeLeaf("server", "localhost", "server_ext", "ca", 2, error) &&
           MakeLeaf("client", "contactsim-client", "client_ext", "ca", 3, error) &&
           MakeCa("other_ca", error) &&
           MakeLeaf("other_client", "contactsim-client", "client_ext", "other_ca", 4, error);
  }

  bool MakeCa(const std::string& name, std::string* error) {
    return Run(
        "req -x509 -config openssl.cnf -extensions ca_ext -newkey ec -pkeyopt "
        "ec_paramgen_curve:prime256v1 -nodes -days 2 -subj '/CN=ContactSim test " +
            name + "' -keyout " + name + ".key -out " + name + ".pem",
        error);
  }

  bool MakeLeaf(const std::string& name, const std::string& common_name,
                const std::string& extensions, const std::string& ca, int serial,
                std::string* error) {
    return Run("req -new -config openssl.cnf -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
               "-nodes -subj '/CN=" +
                   common_name + "' -keyout " + name + ".key -out " + name + ".csr",
               error) &&
           Run("x509 -req -in " + name + ".csr -CA " + ca + ".pem -CAkey " + ca +
                   ".key -set_serial " + std::to_string(serial) +
                   " -days 2 -extfile openssl.cnf -extensions " + extensions + " -out " + name +
                   ".pem",
               error);
  }

  // Runs `openssl <arguments>` in the folder; on failure the command and its output go to error.
  bool Run(const std::string& arguments, std::string* error) const {
    const std::string command =
        "cd '" + dir_.string() + "' && openssl " + arguments + " >openssl.log 2>&1";
    if (std::system(command.c_str()) == 0) return true;
    *error = "openssl " + arguments + " failed:\n" + ReadTextFile(dir_ / "openssl.log");
    return false;
  }

  std::filesystem::path dir_;
};

}  // namespace contactsim::test_fixtures
