// Bounded inputs (dse/yaml_reader.hpp): a hostile or broken file is refused quickly, with its
// position, instead of taking minutes and gigabytes.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "dse/catalog.hpp"
#include "dse/study.hpp"
#include "dse/yaml_reader.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

const std::string kFixtureCatalog = std::string(DSX_SOURCE_DIR) + "/tests/malformed/catalog";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Each line holds ten aliases of the line before: 10^9 values from 250 bytes.
std::string billion_laughs() {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char level = 'b'; level <= 'i'; ++level) {
    text += std::string(1, level) + ": &" + level + " [";
    for (int i = 0; i < 10; ++i) text += std::string(i == 0 ? "" : ", ") + "*" + static_cast<char>(level - 1);
    text += "]\n";
  }
  return text;
}

// The time limits below are far above what the linear code needs (even under the sanitizers on a
// busy machine) and far below what the quadratic or exponential code took (minutes, gigabytes).
TEST(InputLimits, AliasesOfAliasesAreRefusedWhereTheyPassTheLimit) {
  const std::string text = billion_laughs();
  const auto start = std::chrono::steady_clock::now();
  Diagnostics d;
  EXPECT_FALSE(load_study_text("laughs.yaml", text, kFixtureCatalog, d));
  EXPECT_LT(seconds_since(start), 20.0);
  ASSERT_EQ(d.errors().size(), 1U) << d.format();
  // a..e add 123,440 values; the eighth *e on line 6 takes the total past 1,000,000.
  EXPECT_EQ(d.errors()[0].where.line, 6);
  EXPECT_EQ(d.errors()[0].where.column, 8 + 7 * 4);
  EXPECT_NE(d.errors()[0].message.find("aliases (*name) here and before expand to more than 1000000 values"),
            std::string::npos)
      << d.format();
}

TEST(InputLimits, AFewAliasesStillWork) {
  Diagnostics d;
  YamlReader reader("t.yaml", d);
  const auto root = reader.parse("base: &b {from: 1, to: 8}\nother: *b\n");
  ASSERT_TRUE(root) << d.format();
  EXPECT_TRUE(d.errors().empty()) << d.format();
  EXPECT_EQ(root->find("other")->find("to")->text, "8");
}

TEST(InputLimits, DeepNestingIsRefusedAtTheLevelPastTheLimit) {
  const std::string text = std::string(100000, '[') + std::string(100000, ']') + "\n";
  const auto start = std::chrono::steady_clock::now();
  Diagnostics d;
  EXPECT_FALSE(load_study_text("deep.yaml", text, kFixtureCatalog, d));
  EXPECT_LT(seconds_since(start), 20.0);
  ASSERT_EQ(d.errors().size(), 1U) << d.format();
  EXPECT_EQ(d.errors()[0].where.line, 1);
  EXPECT_EQ(d.errors()[0].where.column, 201);
  EXPECT_NE(d.errors()[0].message.find("nested more than 200 deep"), std::string::npos) << d.format();
}

TEST(InputLimits, AFolderOrAnEndlessFileIsNotAStudy) {
  Diagnostics folder;
  EXPECT_FALSE(load_study(DSX_SOURCE_DIR, kFixtureCatalog, folder));
  ASSERT_EQ(folder.errors().size(), 1U) << folder.format();
  EXPECT_EQ(folder.errors()[0].message, "cannot read the study: it is a folder, not a file");

  Diagnostics endless;
  EXPECT_FALSE(read_input_file("/dev/zero", "study", endless));
  ASSERT_EQ(endless.errors().size(), 1U) << endless.format();
  EXPECT_EQ(endless.errors()[0].message,
            "cannot read the study: it is larger than 256 MiB; sweep long ranges with {from:, to:, count:} instead "
            "of listing the values");
}

TEST(InputLimits, ACatalogFileOfAliasesIsRefusedToo) {
  TempDir dir("catalog_laughs");
  std::ofstream(dir.path() + "/hardware.yaml") << billion_laughs();
  std::ofstream(dir.path() + "/models.yaml") << "models: {}\n";
  Diagnostics d;
  load_catalog(dir.path(), d);
  ASSERT_FALSE(d.errors().empty());
  EXPECT_EQ(d.errors()[0].where.file, dir.path() + "/hardware.yaml");
  EXPECT_NE(d.errors()[0].message.find("aliases (*name)"), std::string::npos) << d.format();
}

TEST(InputLimits, ACountPastTwoToTheSixtyFourIsAnErrorNotZero) {
  Diagnostics d;
  YamlReader reader("t.yaml", d);
  const auto root = reader.parse("top_k: 1e20\n");
  ASSERT_TRUE(root);
  EXPECT_FALSE(reader.quantity(*root->find("top_k"), Dimension::count, "keep.top_k"));
  ASSERT_EQ(d.errors().size(), 1U);
  EXPECT_EQ(d.errors()[0].where.line, 1);
  EXPECT_EQ(d.errors()[0].where.column, 8);
  EXPECT_EQ(d.errors()[0].message, "keep.top_k: 1e20 is past the largest count dsx can hold (2^64 - 1)");
}

// Validation is linear in the input: a list of 200,000 values on one line, 20,000 unknown keys, and a
// range of nearly 10 M values each take well under the time a quadratic pass would (seconds to minutes).
TEST(InputLimits, LongListsManyKeysAndBigRangesValidateInLinearTime) {
  const std::string head =
      "study: big\ntitle: t\nquestion: q?\nsolver: inference\naxes:\n  hardware: [x]\n";
  std::string values;
  for (int i = 1; i <= 200000; ++i) values += (i > 1 ? ", " : "") + std::to_string(i);
  std::string keys;
  for (int i = 0; i < 20000; ++i) keys += "zz" + std::to_string(i) + ": 1\n";
  const std::string cases[] = {head + "  batch: [" + values + ", 7]\n", head + "  batch: [1, 2]\n" + keys,
                               head + "  batch: {from: 1, to: 9999999, count: 9999999}\n"};
  for (const std::string& text : cases) {
    const auto start = std::chrono::steady_clock::now();
    Diagnostics d;
    EXPECT_FALSE(load_study_text("big.yaml", text, kFixtureCatalog, d));
    EXPECT_LT(seconds_since(start), 60.0) << d.format().substr(0, 500);
    EXPECT_TRUE(d.has_errors());
  }
  // The duplicate at the end of the long list is found, with the position of the first 7.
  Diagnostics d;
  load_study_text("big.yaml", cases[0], kFixtureCatalog, d);
  EXPECT_NE(d.format().find("axes.batch: duplicate value '7' (already given at line 7, column 29)"), std::string::npos)
      << d.format().substr(0, 800);
}

TEST(InputLimits, BytesThatAreNotUtf8AreReportedWhereTheyAre) {
  Diagnostics d;
  YamlReader reader("t.yaml", d);
  EXPECT_FALSE(reader.parse("study: x\ntitle: \"ab\xff cd\"\n"));
  ASSERT_EQ(d.errors().size(), 1U);
  EXPECT_EQ(d.errors()[0].where.line, 2);
  EXPECT_EQ(d.errors()[0].where.column, 11);
  EXPECT_EQ(d.errors()[0].message, "not UTF-8: byte 0xff (invalid leading UTF-8 octet); save the file as UTF-8");
  Diagnostics cut;
  YamlReader cut_reader("t.yaml", cut);
  EXPECT_FALSE(cut_reader.parse("study: x\ntitle: \u00e9t\xc3 cd\n"));
  ASSERT_EQ(cut.errors().size(), 1U);
  EXPECT_EQ(cut.errors()[0].where.column, 10);  // after "title: ", the accented e and t: the cut character
  EXPECT_NE(cut.errors()[0].message.find("not UTF-8: a character cut short"), std::string::npos);
}

}  // namespace
}  // namespace dsx
