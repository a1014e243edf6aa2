#include "dse/diagnostics.hpp"

#include <gtest/gtest.h>

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

TEST(DiagnosticsTest, CaretCountsCharactersAndKeepsTabs) {
  Diagnostics d;
  // "µ" is two bytes but one column; the tab is copied so the caret lines up in a terminal.
  d.add_source("u.yaml", "t: [5 \xC2\xB5s, x]\n\tbad: 1\n");
  d.error({"u.yaml", 1, 11}, "here");
  d.error({"u.yaml", 2, 2}, "after the tab", 3);
  EXPECT_EQ(d.format(),
            "u.yaml:1:11: error: here\n  t: [5 \xC2\xB5s, x]\n            ^\n"
            "u.yaml:2:2: error: after the tab\n  \tbad: 1\n  \t^~~\n");
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

}  // namespace
}  // namespace dsx
