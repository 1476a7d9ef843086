// The client library and the `contactsim` CLI against an in-process TLS or mutual-TLS server,
// with certificates made by `openssl` at test time (tests/common/test_pki.h).
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/cli_runner.h"
#include "tests/clients/client_fixture.h"
#include "tests/common/test_pki.h"

namespace contactsim::client::clienttest {
namespace {

using test_fixtures::TestPki;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class TlsClientTest : public ClientTest {
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

  void StartServer(bool mutual) {
    server::ServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.tls.cert_file = pki_->File("server.pem");
    options.tls.key_file = pki_->File("server.key");
    if (mutual) options.tls.client_ca_file = pki_->File("ca.pem");
    auto server = server::ContactSimServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  // A connection to the server: plaintext without `tls`.
  Connection Connect(const std::optional<ClientTlsOptions>& tls) const {
    ConnectionOptions options;
    options.target = server_->address();
    options.deadline = std::chrono::seconds(60);  // a loaded CI machine
    options.tls = tls;
    return Connection(options);
  }
  // `ca` and `client` name PEM files of the PKI ("" for none).
  ClientTlsOptions Tls(const std::string& ca, const std::string& client = "") const {
    ClientTlsOptions tls;
    if (!ca.empty()) tls.root_ca_pem = pki_->Pem(ca + ".pem");
    if (!client.empty()) {
      tls.cert_chain_pem = pki_->Pem(client + ".pem");
      tls.private_key_pem = pki_->Pem(client + ".key");
    }
    return tls;
  }

  std::string Server() const { return "--server " + server_->address() + " "; }

  std::unique_ptr<TestPki> pki_;
};

TEST_F(TlsClientTest, ClientTrustingTheCaPingsCreatesAndSteps) {
  StartServer(/*mutual=*/false);
  connection_.emplace(Connect(Tls("ca")));
  absl::StatusOr<std::string> echo = connection_->Ping("tls");
  ASSERT_TRUE(echo.ok()) << echo.status();
  EXPECT_EQ(*echo, "tls");
  BoxSession session = CreateBoxSession();
  ASSERT_FALSE(session.created.session_id.empty());
  absl::StatusOr<v1::StepResponse> step = Controller(session).Step(10);
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_EQ(step->step_count(), 10);
}

TEST_F(TlsClientTest, ClientWithoutTheCaIsUnavailable) {
  StartServer(/*mutual=*/false);
  // gRPC's default roots: public CAs only.
  absl::Status status = Connect(Tls("")).Ping().status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  status = Connect(Tls("other_ca")).Ping().status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
}

TEST_F(TlsClientTest, PlaintextClientIsUnavailable) {
  StartServer(/*mutual=*/false);
  absl::Status status = Connect(std::nullopt).Ping().status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
}

TEST_F(TlsClientTest, TargetNameOverrideIsWhatTheCertificateMustName) {
  StartServer(/*mutual=*/false);
  ClientTlsOptions tls = Tls("ca");
  tls.target_name_override = "localhost";  // in the certificate's subjectAltName
  absl::Status status = Connect(tls).Ping().status();
  EXPECT_TRUE(status.ok()) << status;
  tls.target_name_override = "elsewhere.example";  // not in it
  status = Connect(tls).Ping().status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
}

TEST_F(TlsClientTest, MutualTlsNeedsACertificateFromTheServersClientCa) {
  StartServer(/*mutual=*/true);
  absl::Status status = Connect(Tls("ca", "client")).Ping().status();
  EXPECT_TRUE(status.ok()) << status;
  status = Connect(Tls("ca")).Ping().status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  status = Connect(Tls("ca", "other_client")).Ping().status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
}

TEST_F(TlsClientTest, ClientTlsFromFilesReadsAndChecksThePem) {
  absl::StatusOr<ClientTlsOptions> tls =
      ClientTlsFromFiles(pki_->File("ca.pem"), pki_->File("client.pem"), pki_->File("client.key"));
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_EQ(tls->root_ca_pem, pki_->Pem("ca.pem"));
  EXPECT_EQ(tls->cert_chain_pem, pki_->Pem("client.pem"));
  EXPECT_EQ(tls->private_key_pem, pki_->Pem("client.key"));

  tls = ClientTlsFromFiles("", "", pki_->File("client.key"));
  EXPECT_TRUE(absl::IsInvalidArgument(tls.status())) << tls.status();
  EXPECT_THAT(std::string(tls.status().message()), StartsWith("key_file: needs cert_file"));
  tls = ClientTlsFromFiles(pki_->File("no-such.pem"), "", "");
  EXPECT_THAT(std::string(tls.status().message()), StartsWith("root_ca_file: cannot read "));
  tls = ClientTlsFromFiles("", pki_->File("client.key"), pki_->File("client.key"));
  EXPECT_THAT(std::string(tls.status().message()), StartsWith("cert_file: "));
  EXPECT_THAT(std::string(tls.status().message()), HasSubstr("holds no PEM block"));
}

TEST_F(TlsClientTest, CliPingsAndCreatesWithTheCa) {
  StartServer(/*mutual=*/false);
  const std::string ca = "--tls-ca " + pki_->File("ca.pem") + " ";
  CliResult ping = RunCli(Server() + ca + "ping");
  EXPECT_EQ(ping.exit_code, 0) << ping.output;
  EXPECT_THAT(ping.output, HasSubstr("pong from " + server_->address()));

  CliResult created = RunCli(Server() + ca + "create --name tls --box");
  ASSERT_EQ(created.exit_code, 0) << created.output;
  const std::string session = ParseFields(created.output)["session_id"];
  const std::string controller = ParseFields(created.output)["controller_token"];
  ASSERT_FALSE(session.empty()) << created.output;
  CliResult step = RunCli(Server() + ca + "step " + session + " --token " + controller);
  EXPECT_EQ(step.exit_code, 0) << step.output;
  EXPECT_EQ(ParseFields(step.output)["step_count"], "1") << step.output;

  // The CA from the environment instead of the flag.
  CliResult from_env = RunCli(Server() + "ping", "CONTACTSIM_TLS_CA=" + pki_->File("ca.pem"));
  EXPECT_EQ(from_env.exit_code, 0) << from_env.output;
}

TEST_F(TlsClientTest, CliWithoutTheCaExitsThree) {
  StartServer(/*mutual=*/false);
  for (const char* command : {"ping", "create"}) {
    CliResult plaintext = RunCli(Server() + command);
    EXPECT_EQ(plaintext.exit_code, 3) << command << ": " << plaintext.output;
    EXPECT_THAT(plaintext.output, HasSubstr("unreachable"));
    EXPECT_THAT(plaintext.output, HasSubstr("if it uses TLS, pass --tls-ca"));
    EXPECT_THAT(plaintext.output, Not(HasSubstr("session_id")));
  }
  CliResult other_ca = RunCli(Server() + "--tls-ca " + pki_->File("other_ca.pem") + " ping");
  EXPECT_EQ(other_ca.exit_code, 3) << other_ca.output;
  EXPECT_THAT(other_ca.output, HasSubstr("TLS handshake failed"));
}

TEST_F(TlsClientTest, CliMutualTls) {
  StartServer(/*mutual=*/true);
  const std::string ca = "--tls-ca " + pki_->File("ca.pem") + " ";
  const std::string client =
      "--tls-cert " + pki_->File("client.pem") + " --tls-key " + pki_->File("client.key") + " ";
  CliResult with_cert = RunCli(Server() + ca + client + "ping");
  EXPECT_EQ(with_cert.exit_code, 0) << with_cert.output;
  CliResult without_cert = RunCli(Server() + ca + "ping");
  EXPECT_EQ(without_cert.exit_code, 3) << without_cert.output;
  EXPECT_THAT(without_cert.output, HasSubstr("if it requires client certificates"));
}

TEST_F(TlsClientTest, CliTlsUsageErrorsExitTwoNamingTheFlag) {
  CliResult key_only = RunCli("--tls-key " + pki_->File("client.key") + " ping");
  EXPECT_EQ(key_only.exit_code, 2) << key_only.output;
  EXPECT_THAT(key_only.output, HasSubstr("--tls-cert"));
  CliResult missing = RunCli("--tls-ca " + pki_->File("no-such.pem") + " ping");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("--tls-ca: cannot read"));
  CliResult not_pem = RunCli("--tls-ca " + pki_->File("openssl.cnf") + " ping");
  EXPECT_EQ(not_pem.exit_code, 2) << not_pem.output;
  EXPECT_THAT(not_pem.output, HasSubstr("--tls-ca: "));
  EXPECT_THAT(not_pem.output, HasSubstr("holds no PEM block"));
}

}  // namespace
}  // namespace contactsim::client::clienttest
