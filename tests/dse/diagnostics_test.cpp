#include "dse/diagnostics.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include <string>
#include <vector>

namespace dsx {
namespace {

TEST(DiagnosticsTest, FormatsLocationLineAndCaret) {
  Diagnostics d;
  d.add_source("s.yaml", "study: x\naxes:\n  batch: [1, eight]\n");
  d.error({"s.yaml", 3, 14}, "batch: expected a count, got 'eight'", 5);
  EXPECT_TRUE(d.has_errors());
  EXPECT_EQ(d.format(),
            "s.yaml:3:14: error: batch: expected a count, got 'eight'\n"
            "    batch: [1, eight]\n"
            "               ^~~~~\n");
}

TEST(DiagnosticsTest, KeepsEveryErrorInTheOrderFound) {
  Diagnostics d;
  d.add_source("a.yaml", "one\ntwo\n");
  d.add_source("b.yaml", "three\n");
  d.error({"a.yaml", 2, 1}, "second line");
  d.error({"b.yaml", 1, 3}, "other file");
  d.error({"a.yaml", 1, 1}, "first line", 3);
  EXPECT_EQ(d.errors().size(), 3U);
  EXPECT_EQ(d.format(),
            "a.yaml:2:1: error: second line\n  two\n  ^\n"
            "b.yaml:1:3: error: other file\n  three\n    ^\n"
            "a.yaml:1:1: error: first line\n  one\n  ^~~\n");
}

TEST(DiagnosticsTest, WholeFileErrorsHaveNoCaret) {
  Diagnostics d;
  d.error({"missing.yaml", 0, 0}, "cannot read the study: No such file or directory");
  EXPECT_EQ(d.format(), "missing.yaml: error: cannot read the study: No such file or directory\n");
}

TEST(DiagnosticsTest, CaretCountsCharacters) {
  Diagnostics d;
  // "µ" is two bytes but one column.
  d.add_source("u.yaml", "t: [5 \xC2\xB5s, x]\n");
  d.error({"u.yaml", 1, 11}, "here", 2);
  EXPECT_EQ(d.format(), "u.yaml:1:11: error: here\n  t: [5 \xC2\xB5s, x]\n            ^~\n");
}

TEST(DiagnosticsTest, ControlCharactersAreEscapedAndTheCaretFollows) {
  Diagnostics d;
  // An escape sequence (ESC [2J clears a terminal), a tab, DEL, a C1 CSI (U+009B) and a line break
  // reach the message through a quoted value; the file name holds a line break too.
  d.add_source("c\nd.yaml", "t: \"\x1b[2J\" # \tx\x7f \xC2\x9B y\n");
  d.error({"c\nd.yaml", 1, 5}, "unknown value '\x1b[2J'\nfake.yaml:1:1: error: injected", 5);
  d.error({"c\nd.yaml", 1, 13}, "after the tab", 2);
  d.error({"c\nd.yaml", 1, 17}, "after the C1 control");
  d.error({"c\nd.yaml", 1, 40}, "past the end", 2);
  const std::string line = "  t: \"\\x1b[2J\" # \\x09x\\x7f \\xc2\\x9b y\n";
  EXPECT_EQ(d.format(),
            "c\\x0ad.yaml:1:5: error: unknown value '\\x1b[2J'\\x0afake.yaml:1:1: error: injected\n" + line +
                "      ^~~~~~~~\n"
                "c\\x0ad.yaml:1:13: error: after the tab\n" + line +
                "                 ^~~~~\n"
                "c\\x0ad.yaml:1:17: error: after the C1 control\n" + line +
                "                           ^~~~~~~~\n"
                "c\\x0ad.yaml:1:40: error: past the end\n" + line +
                "                                                         ^~\n");
  const std::string out = d.format();
  for (char c : out) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (u >= 0x20 && u != 0x7f)) << "raw control character " << static_cast<int>(u);
  }
  EXPECT_EQ(out.find("\xC2\x9B"), std::string::npos);
  std::size_t lines = 0;
  for (char c : out) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 3U * d.errors().size()) << "each error is one message line, the source line and the caret";
  EXPECT_EQ(escape_control_characters("plain \xC2\xB5s"), "plain \xC2\xB5s");
  EXPECT_EQ(escape_control_characters(std::string("a\0b", 3)), "a\\x00b");
}

TEST(DiagnosticsTest, UnknownListsChoicesAndTheClosestMatch) {
  Diagnostics d;
  const std::vector<std::string> ids = {"a100_80gb_sxm", "h100_sxm", "mobile_npu"};
  d.unknown({"s.yaml", 1, 1}, "hardware id", "h100_sx", ids);
  d.unknown({"s.yaml", 1, 1}, "hardware id", "tpu_v9", ids);
  d.unknown({"s.yaml", 1, 1}, "precision", "fp16", {});
  ASSERT_EQ(d.errors().size(), 3U);
  EXPECT_EQ(d.errors()[0].message,
            "unknown hardware id 'h100_sx'; did you mean 'h100_sxm'? valid hardware ids: a100_80gb_sxm, h100_sxm, "
            "mobile_npu");
  EXPECT_EQ(d.errors()[0].span, 7U);
  EXPECT_EQ(d.errors()[1].message, "unknown hardware id 'tpu_v9'; valid hardware ids: a100_80gb_sxm, h100_sxm, mobile_npu");
  EXPECT_EQ(d.errors()[2].message, "unknown precision 'fp16' (there are no precisions to choose from)");
}

TEST(ClosestMatchTest, EditsTranspositionsCaseAndPrefixes) {
  const std::vector<std::string> keys = {"study", "title", "question", "solver", "axes", "objectives"};
  EXPECT_EQ(closest_match("titel", keys), "title");       // transposition = one edit
  EXPECT_EQ(closest_match("objectivs", keys), "objectives");
  EXPECT_EQ(closest_match("Solver", keys), "solver");
  EXPECT_EQ(closest_match("xyz", keys), "");
  EXPECT_EQ(closest_match("", keys), "");
  const std::vector<std::string> units = {"s", "ms", "us", "ns"};
  EXPECT_EQ(closest_match("usec", units), "us");  // the longest choice the word starts with
  EXPECT_EQ(closest_match("Ms", units), "ms");
  const std::vector<std::string> ids = {"h100_sxm", "h200", "a100_80gb_sxm"};
  EXPECT_EQ(closest_match("h100", ids), "h100_sxm");  // a unique extension beats the nearer "h200"
  const std::vector<std::string> bandwidth = {"GB/s", "kB/s", "GiB/s"};
  EXPECT_EQ(closest_match("GB/S", bandwidth), "GB/s");  // case-only difference wins the tie
}

TEST(DiagnosticsTest, ManyErrorsOnAHugeLinePrintABoundedReport) {
  Diagnostics d;
  std::string line;
  for (int i = 0; i < 10000; ++i) line += "1 xs, ";
  d.add_source("big.yaml", "batch: [" + line + "]\n");
  for (int i = 0; i < 10000; ++i) d.error({"big.yaml", 1, 11 + 6 * i}, "unknown unit 'xs'", 2);
  const std::string out = d.format();
  EXPECT_LT(out.size(), 50u * 400u);
  EXPECT_NE(out.find("... and 9950 more errors; fix these first\n"), std::string::npos);
  // The 50th error (column 11 + 6 * 49 = 305): the line is shown around it, the caret under "xs".
  const std::string last = "big.yaml:1:305: error: unknown unit 'xs'\n";
  const std::size_t at = out.find(last);
  ASSERT_NE(at, std::string::npos) << out.substr(0, 2000);
  const std::size_t shown = at + last.size();
  const std::size_t caret = out.find('\n', shown) + 1;
  const std::string source_line = out.substr(shown, caret - shown - 1);
  const std::string caret_line = out.substr(caret, out.find('\n', caret) - caret);
  EXPECT_TRUE(source_line.starts_with("  ...")) << source_line;
  EXPECT_TRUE(source_line.ends_with("...")) << source_line;
  EXPECT_LT(source_line.size(), 200u);
  EXPECT_EQ(source_line.substr(caret_line.find('^'), 2), "xs") << source_line << "\n" << caret_line;
  EXPECT_EQ(caret_line.substr(caret_line.find('^')), "^~");
}

TEST(DiagnosticsTest, AHugeUnknownNameIsElidedAndQuick) {
  Diagnostics d;
  const std::string id(10'000'000, 'h');
  const std::vector<std::string> choices = {"h100_sxm", "h200"};
  const auto start = std::chrono::steady_clock::now();
  d.unknown({"s.yaml", 3, 5}, "hardware", id, choices);
  // Far below the 28 s the edit distance to a 10 MB name took, far above what shortening needs.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  const std::string& message = d.errors()[0].message;
  EXPECT_LT(message.size(), 300u);
  EXPECT_NE(message.find("unknown hardware 'hhh"), std::string::npos) << message;
  EXPECT_NE(message.find("...(9999920 characters)..."), std::string::npos) << message;
  EXPECT_NE(message.find("valid hardwares: h100_sxm, h200"), std::string::npos) << message;
}

TEST(DiagnosticsTest, ErrorsPastTheKeptLimitAreCounted) {
  Diagnostics d;
  for (std::size_t i = 0; i < kMaxKeptErrors + 5; ++i) d.error({"x.yaml", 1, 1}, "bad");
  EXPECT_EQ(d.errors().size(), kMaxKeptErrors);
  EXPECT_EQ(d.error_count(), kMaxKeptErrors + 5);
  EXPECT_NE(d.format().find("... and " + std::to_string(kMaxKeptErrors + 5 - kMaxShownErrors) + " more errors"),
            std::string::npos);
}

}  // namespace
}  // namespace dsx
