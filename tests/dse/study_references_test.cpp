// References from a study's prose to the values its analyses compute (dse/study_references.hpp).
#include "dse/study_references.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dse/study.hpp"

namespace dsx {
namespace {

const std::string kFixtureCatalog = std::string(DSX_SOURCE_DIR) + "/tests/malformed/catalog";

std::string study_citing(const std::string& text) {
  return "study: t\ntitle: T\nquestion: Q?\nsolver: inference\n"
         "axes:\n  hardware: [a100_80gb_sxm, h100_sxm]\n  model: [lab07_kws]\n  batch: [1, 8]\n"
         "fixed: {precision: fp16, eta: 0.5, launch_overhead: 5 us}\n"
         "objectives:\n  - {metric: latency_s, direction: min}\n"
         "top_k: 2\n"
         "breakeven:\n  - {name: crossing, metric: latency_s, along: batch, alternatives: hardware}\n"
         "sections:\n  - title: S\n    text: \"" +
         text + "\"\n";
}

TEST(StudyReferences, FindsEveryReferenceAndItsSpan) {
  const std::string text = "a {{ best.latency_s }} b {{x}}{{";
  const std::vector<TextReference> refs = find_text_references(text);
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].offset, 2u);
  EXPECT_EQ(refs[0].length, 20u);
  EXPECT_EQ(refs[0].key, "best.latency_s");
  EXPECT_EQ(refs[1].key, "x");
  EXPECT_EQ(refs[2].key, "");
  EXPECT_EQ(refs[2].offset + refs[2].length, text.size());
  EXPECT_TRUE(find_text_references("no braces, {single} ones").empty());
}

TEST(StudyReferences, ExpandsWithTheLookup) {
  const auto upper = [](const std::string& key) { return "<" + key + ">"; };
  EXPECT_EQ(expand_text_references("x {{a.b}} y {{ c }}.", upper), "x <a.b> y <c>.");
  EXPECT_EQ(expand_text_references("plain", upper), "plain");
}

TEST(StudyReferences, TheLoaderAcceptsWhatTheAnalysesDefine) {
  Diagnostics d;
  const auto study =
      load_study_text("t.yaml", study_citing("{{best.latency_s}} at {{best.latency_s.value}}; {{breakeven.crossing}}"),
                      kFixtureCatalog, d);
  ASSERT_TRUE(study) << d.format();
  EXPECT_EQ(citable_keys(*study),
            (std::vector<std::string>{"best.latency_s", "best.latency_s.value", "breakeven.crossing"}));
}

TEST(StudyReferences, AnUnknownReferenceIsAnErrorWithTheClosestAndTheChoices) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", study_citing("Fastest: {{best.latncy_s}}."), kFixtureCatalog, d);
  EXPECT_FALSE(study);
  EXPECT_NE(d.format().find("t.yaml:17:21: error: sections[0].text: unknown reference '{{best.latncy_s}}'; did you "
                            "mean 'best.latency_s'? citable values: best.latency_s, best.latency_s.value, "
                            "breakeven.crossing"),
            std::string::npos)
      << d.format();
}

TEST(StudyReferences, AStudyWithoutAnalysesSaysWhatWouldDefineAValue) {
  Diagnostics d;
  const std::string text = "study: t\ntitle: T\nquestion: Q?\nsolver: inference\n"
                           "axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n"
                           "fixed: {precision: fp16, batch: 1, eta: 0.5, launch_overhead: 5 us}\n"
                           "sections:\n  - title: S\n    text: \"{{decision.buy.choice}}\"\n";
  EXPECT_FALSE(load_study_text("t.yaml", text, kFixtureCatalog, d));
  EXPECT_NE(d.format().find("unknown reference '{{decision.buy.choice}}'; this study defines no value to cite"),
            std::string::npos)
      << d.format();
}

// A compare entry's value and difference are citable from the sections and from every compare
// explanation, its own included; an unknown one is an error at the explanation.
std::string study_comparing(const std::string& explanation) {
  return "study: t\ntitle: T\nquestion: Q?\nsolver: inference\n"
         "axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n"
         "fixed: {precision: fp16, batch: 1, eta: 0.5, launch_overhead: 5 us}\n"
         "compare:\n  - name: kws latency\n    where: {hardware: a100_80gb_sxm}\n    metric: latency_s\n    expected: 1 ms\n"
         "    source: S\n"
         "    explanation: \"" + explanation + "\"\n"
         "sections:\n  - title: S\n    text: \"dsx gives {{compare.kws latency.dsx}}.\"\n";
}

TEST(StudyReferences, ComparisonsAreCitableFromSectionsAndExplanations) {
  Diagnostics d;
  const auto study = load_study_text(
      "t.yaml", study_comparing("{{compare.kws latency.difference}} off the source"), kFixtureCatalog, d);
  ASSERT_TRUE(study) << d.format();
  EXPECT_EQ(citable_keys(*study), (std::vector<std::string>{"compare.kws latency.difference", "compare.kws latency.dsx"}));
  Diagnostics bad;
  EXPECT_FALSE(load_study_text("t.yaml", study_comparing("{{compare.kws latency.value}}"), kFixtureCatalog, bad));
  EXPECT_NE(bad.format().find("t.yaml:15:19: error: compare[0].explanation: unknown reference "
                              "'{{compare.kws latency.value}}'; did you mean 'compare.kws latency.dsx'?"),
            std::string::npos)
      << bad.format();
}

}  // namespace
}  // namespace dsx
