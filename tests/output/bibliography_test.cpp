#include "output/bibliography.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dsx {
namespace {

TEST(Bibliography, HandlesBecomeNumbersInOrderOfFirstMention) {
  const std::string md =
      "# R\n\nEta (seeds/004) and the tax (seeds/000 lab_07 Act 1); again seeds/004.\n"
      "Unlike shared/reference mlsysim-models section 6 and shared/reference/mlsysim-models.md 2.1.\n";
  const std::string out = cite_references(md);
  EXPECT_EQ(out,
            "# R\n\nEta ([1]) and the tax ([2] lab_07 Act 1); again [1].\n"
            "Unlike [3] section 6 and [3] 2.1.\n"
            "\n## References\n\n"
            "1. " + std::string(all_references()[4].entry) + "\n"
            "2. " + std::string(all_references()[0].entry) + "\n"
            "3. " + std::string(all_references()[5].entry) + "\n");
}

TEST(Bibliography, TextWithoutHandlesIsUnchanged) {
  const std::string md = "# R\n\nseeds and shared references, seeds/ alone, sample.\n";
  EXPECT_EQ(cite_references(md), md);
}

TEST(Bibliography, EveryEntryCanBeOpened) {
  for (const Reference& r : all_references()) {
    EXPECT_NE(r.entry.find("<https://"), std::string_view::npos) << r.entry;
    EXPECT_FALSE(r.handles.empty());
  }
}

}  // namespace
}  // namespace dsx
