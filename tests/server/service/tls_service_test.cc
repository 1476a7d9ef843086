// The server's TLS and mutual TLS (--tls-cert, --tls-key, --tls-client-ca) over loopback gRPC,
// with certificates made by `openssl` at test time (tests/common/test_pki.h): who gets through
// the handshake, and the start-up checks that name the flag instead of failing every handshake.
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/service/listen_address.h"
#include "tests/common/run_shell.h"
#include "tests/common/test_pki.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using test_fixtures::TestPki;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class TlsServiceTest : public ServiceTest {
 protected:
  void SetUp() override {
    if (!test_fixtures::OpensslAvailable()) {
      // deploy/install-deps.sh installs it: a machine without it is set up wrong, not exempt.
      FAIL() << "`openssl` not found on PATH: the TLS tests make their certificates with it "
                "(run deploy/install-deps.sh)";
    }
    std::string error;
    pki_ = TestPki::Create(&error);
    ASSERT_NE(pki_, nullptr) << error;
  }

  ServerTlsOptions Tls(bool mutual = false) const {
    ServerTlsOptions tls;
    tls.cert_file = pki_->File("server.pem");
    tls.key_file = pki_->File("server.key");
    if (mutual) tls.client_ca_file = pki_->File("ca.pem");
    return tls;
  }

  void StartTlsServer(const ServerTlsOptions& tls) {
    ServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.tls = tls;
    auto server = ContactSimServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  // Points the fixture's stub (and so CreateSession, AddBody, Step) at the server through
  // `credentials`.
  void Connect(const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
    channel_ = grpc::CreateChannel(server_->address(), credentials);
    stub_ = v1::Simulation::NewStub(channel_);
  }

  std::shared_ptr<grpc::ChannelCredentials> TlsCredentials(const std::string& ca,
                                                           const std::string& client = "") const {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = pki_->Pem(ca + ".pem");
    if (!client.empty()) {
      ssl.pem_cert_chain = pki_->Pem(client + ".pem");
      ssl.pem_private_key = pki_->Pem(client + ".key");
    }
    return grpc::SslCredentials(ssl);
  }

  grpc::Status Ping() {
    v1::PingRequest request;
    request.set_payload("tls");
    v1::PingResponse response;
    grpc::Status status = stub_->Ping(Context().get(), request, &response);
    if (status.ok()) EXPECT_EQ(response.payload(), "tls");
    return status;
  }

  absl::Status StartStatus(const ServerTlsOptions& tls) const {
    ServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.tls = tls;
    return ContactSimServer::Start(options).status();
  }

  std::unique_ptr<TestPki> pki_;
};

TEST_F(TlsServiceTest, ClientTrustingTheCaPingsCreatesAndSteps) {
  StartTlsServer(Tls());
  Connect(TlsCredentials("ca"));
  ASSERT_TRUE(Ping().ok());
  SessionHandle session = CreateSession(BoxSceneRequest());
  ASSERT_FALSE(session.id.empty());
  AddBody(session, BoxBody());
  v1::StepResponse stepped;
  grpc::Status status = Step(session, 10, &stepped);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(stepped.step_count(), 10);
}

TEST_F(TlsServiceTest, ClientTrustingAnotherCaIsRefused) {
  StartTlsServer(Tls());
  Connect(TlsCredentials("other_ca"));
  grpc::Status status = Ping();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
}

TEST_F(TlsServiceTest, PlaintextClientIsRefused) {
  StartTlsServer(Tls());
  Connect(grpc::InsecureChannelCredentials());
  grpc::Status status = Ping();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
}

TEST_F(TlsServiceTest, MutualTlsNeedsAClientCertificateFromTheClientCa) {
  StartTlsServer(Tls(/*mutual=*/true));
  Connect(TlsCredentials("ca", "client"));
  grpc::Status status = Ping();
  EXPECT_TRUE(status.ok()) << status.error_message();

  Connect(TlsCredentials("ca"));  // no client certificate
  status = Ping();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();

  Connect(TlsCredentials("ca", "other_client"));  // signed by a CA the server does not trust
  status = Ping();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
}

TEST_F(TlsServiceTest, StartUpChecksNameTheFlag) {
  ServerTlsOptions missing = Tls();
  missing.cert_file = pki_->File("no-such.pem");
  absl::Status status = StartStatus(missing);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()),
              StartsWith("--tls-cert: cannot read " + missing.cert_file));

  ServerTlsOptions key_only;
  key_only.key_file = pki_->File("server.key");
  status = StartStatus(key_only);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith("--tls-key: needs --tls-cert"));

  ServerTlsOptions client_ca_only;
  client_ca_only.client_ca_file = pki_->File("ca.pem");
  status = StartStatus(client_ca_only);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith("--tls-client-ca: needs --tls-cert"));

  ServerTlsOptions cert_only;
  cert_only.cert_file = pki_->File("server.pem");
  status = StartStatus(cert_only);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith("--tls-cert: needs --tls-key"));

  ServerTlsOptions swapped = Tls();
  std::swap(swapped.cert_file, swapped.key_file);
  status = StartStatus(swapped);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()),
              StartsWith("--tls-cert: " + swapped.cert_file + " holds no PEM certificate"));

  ServerTlsOptions bad_client_ca = Tls(/*mutual=*/true);
  bad_client_ca.client_ca_file = pki_->File("openssl.cnf");
  status = StartStatus(bad_client_ca);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith("--tls-client-ca: "));
}

TEST_F(TlsServiceTest, KeyOfAnotherCertificateFailsTheStart) {
  ServerTlsOptions mismatched = Tls();
  mismatched.key_file = pki_->File("client.key");
  absl::Status status = StartStatus(mismatched);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("--tls-key"));
}

test_fixtures::ShellResult RunServerBinary(const std::string& args) {
  return test_fixtures::RunShell(std::string(CONTACTSIM_SERVER_PATH) + " " + args);
}

// The binary exits (non-zero, with the flag named) instead of starting or aborting.
TEST(TlsServerBinaryTest, BadTlsFlagsExitNonZeroNamingTheFlag) {
  test_fixtures::ShellResult missing = RunServerBinary(
      "--listen 127.0.0.1:0 --tls-cert /nonexistent/server.pem --tls-key /nonexistent/server.key");
  EXPECT_NE(missing.exit_code, 0) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("--tls-cert: cannot read /nonexistent/server.pem"));
  EXPECT_THAT(missing.output, ::testing::Not(HasSubstr("listening")));

  test_fixtures::ShellResult key_only =
      RunServerBinary("--listen 127.0.0.1:0 --tls-key /nonexistent/k.pem");
  EXPECT_NE(key_only.exit_code, 0) << key_only.output;
  EXPECT_THAT(key_only.output, HasSubstr("--tls-key: needs --tls-cert"));
}

TEST(ListenAddressTest, OnlyLoopbackAndUnixSocketsCountAsLocal) {
  for (const char* local : {"127.0.0.1:50051", "127.0.0.1:0", "127.1.2.3:80", "localhost:50051",
                            "[::1]:50051", "ipv4:127.0.0.1:5", "unix:/tmp/contactsim.sock"}) {
    EXPECT_TRUE(IsLoopbackListenAddress(local)) << local;
  }
  for (const char* exposed : {"0.0.0.0:50051", "[::]:50051", "192.168.1.4:50051",
                              "example.com:50051", "127.example.com:50051", ":50051"}) {
    EXPECT_FALSE(IsLoopbackListenAddress(exposed)) << exposed;
  }
}

}  // namespace
}  // namespace contactsim::server::servertest
