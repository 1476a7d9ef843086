// Structured log records (server/log/): every record is exactly one line and reads back, with a
// parser written from docs/logging.md, as the fields it was given, whatever bytes a value holds
// (newlines, CR, quotes, '=', backslashes, NUL, every control byte, invalid UTF-8, invisible line
// breaks, 10 kB); the exact renderings the documentation shows; the fallback for a plain spdlog
// call; levels.
#include "server/log/structured_log.h"

#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/spdlog.h"
#include "tests/server/log/capturing_sink.h"
#include "tests/server/log/log_line_parser.h"

namespace contactsim::server::logtest {
namespace {

using namespace std::string_literals;
using log::LogFormat;
using log::Record;
using log::RenderFields;

// U+FFFD, the replacement character JSON lines put for each byte that is not UTF-8.
const std::string kReplacement = "\xef\xbf\xbd";

struct HostileValue {
  std::string name;
  std::string bytes;
  std::string json_value;  // what a JSON reader gets back: bytes, invalid UTF-8 replaced
};

std::string EveryControlByte() {
  std::string out;
  for (int c = 0; c < 0x20; ++c) out.push_back(static_cast<char>(c));
  out.push_back('\x7f');
  return out;
}

// 10,000 bytes cycling through all 256 values. Bytes >= 0x80 never form a valid sequence here
// (each is followed by a larger one, or by 0x00), so a JSON reader gets U+FFFD for each of them.
HostileValue TenKilobytes() {
  HostileValue value{"ten_kilobytes_of_every_byte", "", ""};
  for (int i = 0; i < 10000; ++i) {
    const auto byte = static_cast<unsigned char>(i % 256);
    value.bytes.push_back(static_cast<char>(byte));
    if (byte < 0x80) {
      value.json_value.push_back(static_cast<char>(byte));
    } else {
      value.json_value += kReplacement;
    }
  }
  return value;
}

std::vector<HostileValue> HostileValues() {
  std::vector<HostileValue> values = {
      {"newline", "first\nsecond", "first\nsecond"},
      {"carriage_return", "a\rb\r\n", "a\rb\r\n"},
      {"quotes", "say \"hi\" and 'bye'", "say \"hi\" and 'bye'"},
      {"equals", "k=v a=b =", "k=v a=b ="},
      {"backslashes", "C:\\dir\\ \\n \\x41 \\u2028 \\", "C:\\dir\\ \\n \\x41 \\u2028 \\"},
      {"nul", "a\0b\0"s, "a\0b\0"s},
      {"every_control_byte", EveryControlByte(), EveryControlByte()},
      {"forged_logfmt_line", "x\nts=2020-01-01T00:00:00Z level=error event=forged",
       "x\nts=2020-01-01T00:00:00Z level=error event=forged"},
      {"forged_json_line", "\"}\n{\"level\":\"error\",\"event\":\"forged",
       "\"}\n{\"level\":\"error\",\"event\":\"forged"},
      // Lone bytes, a bad continuation, an overlong '/', a surrogate, a truncated sequence.
      {"invalid_utf8", "\xff\xfe ok \xc3\x28 \xc0\xaf \xed\xa0\x80 \xe2\x80",
       kReplacement + kReplacement + " ok " + kReplacement + "( " + kReplacement + kReplacement +
           " " + kReplacement + kReplacement + kReplacement + " " + kReplacement + kReplacement},
      // NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR, RIGHT-TO-LEFT OVERRIDE: valid UTF-8, escaped.
      {"invisible_breaks",
       "a\xc2\x85"
       "b\xe2\x80\xa8"
       "c\xe2\x80\xa9"
       "d\xe2\x80\xae"
       "e",
       "a\xc2\x85"
       "b\xe2\x80\xa8"
       "c\xe2\x80\xa9"
       "d\xe2\x80\xae"
       "e"},
      {"valid_utf8", "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9d\x84\x9e",
       "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9d\x84\x9e"},
      {"empty", "", ""},
  };
  values.push_back(TenKilobytes());
  return values;
}

// One line holds no control byte and no raw invisible break (what a reader would split on).
void ExpectOneLine(const std::string& line) {
  for (char c : line) {
    const auto byte = static_cast<unsigned char>(c);
    ASSERT_FALSE(byte < 0x20 || byte == 0x7f) << "control byte " << int(byte) << " in " << line;
  }
  EXPECT_EQ(line.find("\xc2\x85"), std::string::npos) << line;
  EXPECT_EQ(line.find("\xe2\x80\xa8"), std::string::npos) << line;
  EXPECT_EQ(line.find("\xe2\x80\xa9"), std::string::npos) << line;
}

const std::regex kTimestamp(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)");

class StructuredLogTest : public ::testing::TestWithParam<LogFormat> {};

TEST_P(StructuredLogTest, EveryHostileValueIsOneLineAndReadsBackAsItWas) {
  for (const HostileValue& hostile : HostileValues()) {
    SCOPED_TRACE(hostile.name);
    ScopedCapture capture(GetParam());
    log::Info(Record("hostile_value")
                  .Add("value", hostile.bytes)
                  .Add("count", 42)
                  .Add("ratio_s", 0.01)
                  .Add("ok", true));
    bool complete = false;
    const std::vector<std::string> lines = SplitLines(capture.sink().Text(), &complete);
    ASSERT_TRUE(complete);
    ASSERT_EQ(lines.size(), 1u);
    ExpectOneLine(lines[0]);
    if (GetParam() == LogFormat::kText) {
      absl::StatusOr<LogfmtFields> fields = ParseLogfmtLine(lines[0]);
      ASSERT_TRUE(fields.ok()) << fields.status() << "\n" << lines[0];
      ASSERT_EQ(fields->size(), 8u) << lines[0];
      const std::vector<std::string> keys = {"ts",    "level", "logger",  "event",
                                             "value", "count", "ratio_s", "ok"};
      for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ((*fields)[i].first, keys[i]);
      EXPECT_TRUE(std::regex_match((*fields)[0].second, kTimestamp)) << (*fields)[0].second;
      EXPECT_EQ((*fields)[1].second, "info");
      EXPECT_EQ((*fields)[2].second, "test");
      EXPECT_EQ((*fields)[3].second, "hostile_value");
      EXPECT_EQ((*fields)[4].second, hostile.bytes);  // lossless
      EXPECT_EQ((*fields)[5].second, "42");
      EXPECT_EQ((*fields)[6].second, "0.01");
      EXPECT_EQ((*fields)[7].second, "true");
    } else {
      absl::StatusOr<google::protobuf::Struct> object = ParseJsonLine(lines[0]);
      ASSERT_TRUE(object.ok()) << object.status() << "\n" << lines[0];
      const auto& f = object->fields();
      ASSERT_EQ(f.size(), 8u) << lines[0];
      EXPECT_TRUE(std::regex_match(f.at("ts").string_value(), kTimestamp));
      EXPECT_EQ(f.at("level").string_value(), "info");
      EXPECT_EQ(f.at("logger").string_value(), "test");
      EXPECT_EQ(f.at("event").string_value(), "hostile_value");
      EXPECT_EQ(f.at("value").string_value(), hostile.json_value);
      EXPECT_EQ(f.at("count").number_value(), 42.0);
      EXPECT_EQ(f.at("ratio_s").number_value(), 0.01);
      EXPECT_TRUE(f.at("ok").bool_value());
    }
  }
}

TEST_P(StructuredLogTest, APlainSpdlogCallBecomesAnUnstructuredRecord) {
  ScopedCapture capture(GetParam());
  const std::string text = "forged\nts=0 level=error event=x \"q\" {\"a\":1}";
  spdlog::warn("{}", text);
  bool complete = false;
  const std::vector<std::string> lines = SplitLines(capture.sink().Text(), &complete);
  ASSERT_TRUE(complete);
  ASSERT_EQ(lines.size(), 1u);
  ExpectOneLine(lines[0]);
  if (GetParam() == LogFormat::kText) {
    absl::StatusOr<LogfmtFields> fields = ParseLogfmtLine(lines[0]);
    ASSERT_TRUE(fields.ok()) << fields.status();
    EXPECT_EQ(*Find(*fields, "level"), "warning");
    EXPECT_EQ(*Find(*fields, "event"), "unstructured");
    EXPECT_EQ(*Find(*fields, "msg"), text);
  } else {
    absl::StatusOr<google::protobuf::Struct> object = ParseJsonLine(lines[0]);
    ASSERT_TRUE(object.ok()) << object.status();
    EXPECT_EQ(object->fields().at("level").string_value(), "warning");
    EXPECT_EQ(object->fields().at("event").string_value(), "unstructured");
    EXPECT_EQ(object->fields().at("msg").string_value(), text);
  }
}

TEST_P(StructuredLogTest, RecordsBelowTheLevelAreNotWritten) {
  ScopedCapture capture(GetParam(), spdlog::level::warn);
  log::Info(Record("quiet"));
  log::Debug(Record("quieter"));
  log::Error(Record("loud").AddStatus(absl::NotFoundError("session_id: no session 'x\n'")));
  bool complete = false;
  const std::vector<std::string> lines = SplitLines(capture.sink().Text(), &complete);
  ASSERT_EQ(lines.size(), 1u);
  if (GetParam() == LogFormat::kText) {
    absl::StatusOr<LogfmtFields> fields = ParseLogfmtLine(lines[0]);
    ASSERT_TRUE(fields.ok()) << fields.status();
    EXPECT_EQ(*Find(*fields, "level"), "error");
    EXPECT_EQ(*Find(*fields, "event"), "loud");
    EXPECT_EQ(*Find(*fields, "code"), "NOT_FOUND");
    EXPECT_EQ(*Find(*fields, "error"), "session_id: no session 'x\n'");
  } else {
    absl::StatusOr<google::protobuf::Struct> object = ParseJsonLine(lines[0]);
    ASSERT_TRUE(object.ok()) << object.status();
    EXPECT_EQ(object->fields().at("code").string_value(), "NOT_FOUND");
    EXPECT_EQ(object->fields().at("error").string_value(), "session_id: no session 'x\n'");
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, StructuredLogTest,
                         ::testing::Values(LogFormat::kText, LogFormat::kJson),
                         [](const auto& info) {
                           return info.param == LogFormat::kText ? "Text" : "Json";
                         });

// The renderings docs/logging.md shows, byte for byte.
TEST(LogRenderTest, TextQuotesAndEscapesOnlyWhatNeedsIt) {
  EXPECT_EQ(RenderFields(Record("session_created")
                             .Add("session", "s-1f")
                             .Add("name", "two words")
                             .Add("empty", "")
                             .Add("tricky", "q\"\\=")
                             .Add("planes", -3)
                             .Add("dt_s", 0.01)
                             .Add("from_file", false),
                         LogFormat::kText),
            R"(event=session_created session=s-1f name="two words" empty="" tricky="q\"\\=" )"
            R"(planes=-3 dt_s=0.01 from_file=false)");
  EXPECT_EQ(RenderFields(Record("e")
                             .Add("nul", "a\0b"s)
                             .Add("bad", "\xff")
                             .Add("lines", "a\nb\r\tc\x1b")
                             .Add("separator", "\xe2\x80\xa8")
                             .Add("accent", "caf\xc3\xa9"),
                         LogFormat::kText),
            R"(event=e nul="a\x00b" bad="\xff" lines="a\nb\r\tc\x1b" separator="\u2028" )"
            "accent=caf\xc3\xa9");
}

TEST(LogRenderTest, JsonEscapesControlsAndReplacesInvalidUtf8) {
  EXPECT_EQ(RenderFields(Record("e")
                             .Add("nul", "a\0b"s)
                             .Add("bad", "\xff")
                             .Add("lines", "a\nb\"\\\x1b")
                             .Add("separator", "\xe2\x80\xa8")
                             .Add("n", int64_t{1} << 40)
                             .Add("x", 1e200)
                             .Add("nan", std::nan(""))
                             .Add("ok", true),
                         LogFormat::kJson),
            R"("event":"e","nul":"a\u0000b","bad":"\ufffd","lines":"a\nb\"\\\u001b",)"
            R"("separator":"\u2028","n":1099511627776,"x":1e+200,"nan":"nan","ok":true)");
}

TEST(LogRenderTest, NamesAreSanitizedAndTheLineFieldsCannotBeShadowed) {
  EXPECT_EQ(RenderFields(Record("Bad Event!\n")
                             .Add("level", "error")
                             .Add("ts", "0")
                             .Add("event", "forged")
                             .Add("a key=", 1),
                         LogFormat::kText),
            "event=_ad__vent__ _level=error _ts=0 _event=forged a_key_=1");
}

TEST(LogRenderTest, ParseLogFormatNamesTheFlag) {
  EXPECT_EQ(*log::ParseLogFormat("text"), LogFormat::kText);
  EXPECT_EQ(*log::ParseLogFormat("json"), LogFormat::kJson);
  const absl::StatusOr<LogFormat> xml = log::ParseLogFormat("xml");
  ASSERT_FALSE(xml.ok());
  EXPECT_THAT(std::string(xml.status().message()), ::testing::StartsWith("--log-format: 'xml'"));
}

// The readers refuse what a forged or broken line would look like, so that a test passing
// through them means something.
TEST(LogLineParserTest, RefusesWhatTheFormatsForbid) {
  EXPECT_TRUE(ParseLogfmtLine("a=1 b=\"x y\"").ok());
  EXPECT_FALSE(ParseLogfmtLine("a=\"x\ny\"").ok());  // raw newline
  EXPECT_FALSE(ParseLogfmtLine("a=x\"y").ok());      // bare quote
  EXPECT_FALSE(ParseLogfmtLine("a=1 a=2").ok());     // a key twice
  EXPECT_FALSE(ParseLogfmtLine("a=\"\\q\"").ok());   // unknown escape
  EXPECT_FALSE(ParseLogfmtLine("a=\"open").ok());    // unterminated
  EXPECT_FALSE(ParseLogfmtLine("a=1  b=2").ok());    // two spaces
  EXPECT_TRUE(ParseJsonLine(R"({"a":"b"})").ok());
  EXPECT_FALSE(ParseJsonLine(R"({"a":"b"} {"c":1})").ok());  // two objects
  EXPECT_FALSE(ParseJsonLine(R"({"a":"b)").ok());            // unterminated
}

}  // namespace
}  // namespace contactsim::server::logtest
