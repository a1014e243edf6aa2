// values: numbers a study's prose cites as {{value.NAME}} (dse/study_values.cpp): each entry selects
// exactly one design point, as a compare entry does, and the loader says where it does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dse/study.hpp"
#include "dse/study_references.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

const std::string kFixtureCatalog = std::string(DSX_SOURCE_DIR) + "/tests/malformed/catalog";

const std::string kStudy =
    "study: t\ntitle: T\nquestion: Q?\nsolver: inference\n"
    "axes:\n  hardware: [a100_80gb_sxm, h100_sxm]\n  model: [lab07_kws]\n  batch: [1, 8]\n"
    "fixed: {precision: fp16, eta: 0.5, launch_overhead: 5 us}\n"
    "values:\n"
    "  - {name: h100_latency, metric: latency_s, where: {hardware: h100_sxm, batch: 8}}\n"
    "sections:\n  - title: S\n    text: \"The H100 takes {{value.h100_latency}} at batch 8.\"\n";

// "file:line:col" of the first `needle` in `text`, counted here rather than by the loader.
std::string at(const std::string& text, const std::string& needle) {
  const std::size_t offset = text.find(needle);
  EXPECT_NE(offset, std::string::npos) << needle;
  const std::size_t line_start = text.rfind('\n', offset);
  const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n')) + 1;
  const std::size_t column = offset - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  return "t.yaml:" + std::to_string(line) + ":" + std::to_string(column);
}

std::string errors_of(const std::string& text) {
  Diagnostics d;
  EXPECT_FALSE(load_study_text("t.yaml", text, kFixtureCatalog, d)) << text;
  return d.format();
}

TEST(StudyValues, AValueIsCitableAndKeepsItsPointAndMetric) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", kStudy, kFixtureCatalog, d);
  ASSERT_TRUE(study) << d.format();
  ASSERT_EQ(study->values.size(), 1u);
  EXPECT_EQ(study->values[0].name, "h100_latency");
  EXPECT_EQ(study->values[0].metric, "latency_s");
  ASSERT_EQ(study->values[0].where.size(), 2u);
  EXPECT_EQ(citable_keys(*study), std::vector<std::string>{"value.h100_latency"});
  // The resolved study carries the block, so that it loads again with the citation.
  const std::string resolved = resolved_study_yaml(*study);
  EXPECT_NE(resolved.find("values:\n  - {name: h100_latency, metric: latency_s, where: {"), std::string::npos)
      << resolved;
}

TEST(StudyValues, AWhereThatLeavesAnAxisOpenSelectsSeveralPoints) {
  const std::string text = replaced(kStudy, "{hardware: h100_sxm, batch: 8}", "{hardware: h100_sxm}");
  const std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "{hardware: h100_sxm}") +
                   ": error: values[0].where: a cited value selects one design point; also give a value for: batch"),
            std::string::npos)
      << e;
}

TEST(StudyValues, AWhereThatMatchesNoPointIsAnError) {
  const std::string text = replaced(kStudy, "batch: 8}", "batch: 4}");
  const std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "4}") + ": error: values[0].where.batch: '4' is not a value of the batch axis"),
            std::string::npos)
      << e;
}

TEST(StudyValues, APointTheGridConstraintsRemoveSelectsNothing) {
  const std::string text = kStudy + "grid_constraints:\n  - {name: small, expr: \"batch < 4\"}\n";
  const std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "{hardware: h100_sxm, batch: 8}") +
                   ": error: values[0].where: selects nothing: the grid constraints removed the matching design "
                   "point (grid constraint 'small': batch < 4 is false there)"),
            std::string::npos)
      << e;
  // A point the constraint keeps loads.
  Diagnostics d;
  EXPECT_TRUE(load_study_text("t.yaml", replaced(text, "batch: 8}", "batch: 1}"), kFixtureCatalog, d)) << d.format();
}

TEST(StudyValues, AnUnknownMetricNamesTheClosestMatch) {
  const std::string text = replaced(kStudy, "metric: latency_s", "metric: latncy_s");
  const std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "latncy_s")), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'latency_s'?"), std::string::npos) << e;
}

TEST(StudyValues, AnUnknownCitationNamesTheClosestValue) {
  const std::string text = replaced(kStudy, "{{value.h100_latency}}", "{{value.h100_latncy}}");
  const std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "{{value.h100_latncy}}") +
                   ": error: sections[0].text: unknown reference '{{value.h100_latncy}}'; did you mean "
                   "'value.h100_latency'?"),
            std::string::npos)
      << e;
}

TEST(StudyValues, ACaptionCitesAndAnUnknownCitationThereIsAnError) {
  const std::string figure = "figures:\n  - {name: f, kind: bars, title: F, x: hardware, y: latency_s,\n"
                             "     caption: \"At batch 8 the H100 takes {{value.h100_latency}}.\"}\n";
  Diagnostics d;
  EXPECT_TRUE(load_study_text("t.yaml", kStudy + figure, kFixtureCatalog, d)) << d.format();
  const std::string text = kStudy + replaced(figure, "{{value.h100_latency}}", "{{value.h100}}");
  const std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "{{value.h100}}") + ": error: figures[0].caption: unknown reference '{{value.h100}}'; "
                                                 "did you mean 'value.h100_latency'?"),
            std::string::npos)
      << e;
}

TEST(StudyValues, NamesAreIdentifiersAndUnique) {
  std::string e = errors_of(replaced(kStudy, "name: h100_latency", "name: H100 latency"));
  EXPECT_NE(e.find("values[0].name: 'H100 latency' is cited as {{value.H100 latency}}: use lower-case letters"),
            std::string::npos)
      << e;
  const std::string twice = replaced(kStudy, "sections:",
                                     "  - {name: h100_latency, metric: latency_s, where: {hardware: a100_80gb_sxm, "
                                     "batch: 1}}\nsections:");
  e = errors_of(twice);
  EXPECT_NE(e.find("values[1]: another value is already named 'h100_latency' (line 11"), std::string::npos) << e;
  e = errors_of(replaced(kStudy, "metric: latency_s,", "metric: latency_s, unit: ms,"));
  EXPECT_NE(e.find("unit"), std::string::npos) << e;
}

}  // namespace
}  // namespace dsx
