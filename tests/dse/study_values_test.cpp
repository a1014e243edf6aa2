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

// count:, min:, max:, sum: read the rows a where: selects (axes it leaves open vary) that meet each
// when: condition; minus: is the difference of two points. The resolved study writes them back.
const std::string kAggregates =
    "  - {name: chips, count: hardware}\n"
    "  - {name: fast_rows, count: rows, where: {batch: 8}, when: [feasible, \"latency_s < 5 ms\"]}\n"
    "  - {name: slowest, max: latency_s, where: {batch: 8}}\n"
    "  - {name: total, sum: latency_s}\n"
    "  - {name: saved, metric: latency_s, where: {hardware: a100_80gb_sxm, batch: 8}, minus: {hardware: h100_sxm, batch: 8}}\n";

std::string with_aggregates(const std::string& entries) {
  return replaced(kStudy, "sections:", entries + "sections:");
}

TEST(StudyValues, AggregatesAndDifferencesLoadAndRoundTrip) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", with_aggregates(kAggregates), kFixtureCatalog, d);
  ASSERT_TRUE(study) << d.format();
  ASSERT_EQ(study->values.size(), 6u);
  EXPECT_EQ(study->values[1].aggregate, CitedAggregate::count);
  EXPECT_EQ(study->values[1].count_of, "hardware");
  EXPECT_TRUE(study->values[1].where.empty());
  const CitedValue& fast = study->values[2];
  ASSERT_EQ(fast.when.size(), 2u);
  EXPECT_EQ(fast.when[0].kind, CitedCondition::Kind::feasible);
  EXPECT_EQ(fast.when[1].kind, CitedCondition::Kind::compare);
  EXPECT_EQ(fast.when[1].metric, "latency_s");
  EXPECT_EQ(fast.when[1].op, CitedCondition::Op::less);
  EXPECT_DOUBLE_EQ(fast.when[1].threshold, 5e-3);
  EXPECT_EQ(study->values[3].aggregate, CitedAggregate::max);
  EXPECT_EQ(study->values[3].metric, "latency_s");
  EXPECT_EQ(study->values[4].aggregate, CitedAggregate::sum);
  EXPECT_EQ(study->values[5].minus.size(), 2u);
  const std::string resolved = resolved_study_yaml(*study);
  EXPECT_NE(resolved.find("  - {name: fast_rows, count: rows, where: {batch: 8}, when: [feasible, \"latency_s < 5 ms\"]}"),
            std::string::npos)
      << resolved;
  EXPECT_NE(resolved.find("  - {name: chips, count: hardware}\n"), std::string::npos) << resolved;
  Diagnostics again;
  const auto reloaded = load_study_text("t.yaml", resolved, kFixtureCatalog, again);
  ASSERT_TRUE(reloaded) << again.format() << resolved;
  EXPECT_EQ(reloaded->values.size(), 6u);
  EXPECT_EQ(resolved_study_yaml(*reloaded), resolved);
}

TEST(StudyValues, AValueCitesExactlyOneThing) {
  std::string text = with_aggregates("  - {name: two, metric: latency_s, count: rows}\n");
  std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "count: rows}") + ": error: values[1]: 'count' and 'metric' both given"), std::string::npos) << e;
  text = with_aggregates("  - {name: none, where: {hardware: h100_sxm, batch: 8}}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "{name: none") + ": error: values[1]: missing what the value cites: one of metric"),
            std::string::npos)
      << e;
}

TEST(StudyValues, ACountNamesRowsOrASweptParameter) {
  const std::string text = with_aggregates("  - {name: n, count: hardwar}\n");
  const std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "hardwar}") + ": error: unknown count 'hardwar'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'hardware'?"), std::string::npos) << e;
  EXPECT_NE(e.find("valid counts: rows, hardware, batch"), std::string::npos) << e;
}

TEST(StudyValues, AConditionIsAStatusFiltersOrAComparisonWithAUnit) {
  std::string text = with_aggregates("  - {name: n, count: rows, when: feasable}\n");
  std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "feasable}") + ": error: values[1].when: 'feasable' is not a condition; did you mean "
                                            "'feasible'? (a condition is one of feasible, infeasible, error, filters"),
            std::string::npos)
      << e;
  text = with_aggregates("  - {name: n, count: rows, when: \"latncy_s < 5 ms\"}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "latncy_s <") + ": error: unknown metric 'latncy_s'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'latency_s'?"), std::string::npos) << e;
  text = with_aggregates("  - {name: n, count: rows, when: [feasible, \"latency_s <= 5 GB\"]}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "GB\"]") + ": error: values[1].when[1]: latency_s is a time (e.g. '10 us'), but 'GB' is a "
                                        "unit of bytes"),
            std::string::npos)
      << e;
  text = with_aggregates("  - {name: n, count: rows, when: latency_s}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "latency_s}") + ": error: values[1].when: 'latency_s' is a metric; compare it with a "
                                             "value, e.g. 'latency_s <= 50 ms'"),
            std::string::npos)
      << e;
  text = with_aggregates("  - {name: n, count: rows, when: \"latency_s <\"}\n");
  e = errors_of(text);
  EXPECT_NE(e.find("values[1].when: the comparison has no value after '<'"), std::string::npos) << e;
  text = with_aggregates("  - {name: n, count: rows, when: filters}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "filters}") + ": error: values[1].when: 'filters' keeps the rows the study's filters "
                                           "keep, but the study has no filters"),
            std::string::npos)
      << e;
  Diagnostics d;
  EXPECT_TRUE(load_study_text("t.yaml", text + "filters:\n  - {name: quick, expr: \"latency_s < 1\"}\n", kFixtureCatalog, d))
      << d.format();
}

TEST(StudyValues, RatiosDifferencesAndConditionsGoWhereTheyMeanSomething) {
  std::string text = with_aggregates("  - {name: n, count: rows, over: {hardware: h100_sxm, batch: 8}}\n");
  std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "{hardware: h100_sxm, batch: 8}}\nsections") +
                   ": error: values[1].over: a ratio is of one design point's metric; cite it with metric:, not count:"),
            std::string::npos)
      << e;
  text = with_aggregates("  - {name: n, metric: latency_s, where: {hardware: h100_sxm, batch: 8}, when: feasible}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "feasible}") + ": error: values[1].when: a condition picks among rows"), std::string::npos) << e;
  text = with_aggregates("  - {name: n, metric: latency_s, where: {hardware: h100_sxm, batch: 8}, over: {hardware: "
                         "h100_sxm, batch: 1}, minus: {hardware: h100_sxm, batch: 1}}\n");
  e = errors_of(text);
  EXPECT_NE(e.find("values[1].minus: a value is a ratio (over:) or a difference (minus:), not both"), std::string::npos) << e;
  text = with_aggregates("  - {name: n, metric: latency_s, where: {hardware: h100_sxm, batch: 8}, minus: {batch: 1}}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "{batch: 1}}") + ": error: values[1].minus: the subtracted point selects one design point; "
                                              "also give a value for: hardware"),
            std::string::npos)
      << e;
  text = with_aggregates("  - {name: n, min: latency_s}\n") + "keep: {front: true}\nobjectives:\n  - {metric: latency_s, direction: min}\n";
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "latency_s}\nsections") + ": error: values[1].min: reads every row its where: selects, but "
                                                         "keep: stores only some rows"),
            std::string::npos)
      << e;
}

// as: reads a ratio or a difference in percent of the second point's value; it needs that point, and
// its words are checked with the closest match. The resolved study writes it back.
TEST(StudyValues, APercentageReadsTwoPointsAndRoundTrips) {
  const std::string entry =
      "  - {name: pct, metric: latency_s, where: {hardware: a100_80gb_sxm, batch: 8}, minus: {hardware: h100_sxm, "
      "batch: 8}, as: percent_less}\n";
  Diagnostics d;
  const auto study = load_study_text("t.yaml", with_aggregates(entry), kFixtureCatalog, d);
  ASSERT_TRUE(study) << d.format();
  EXPECT_EQ(study->values[1].as, CitedAs::percent_less);
  const std::string resolved = resolved_study_yaml(*study);
  EXPECT_NE(resolved.find(", minus: {hardware: h100_sxm, batch: 8}, as: percent_less}\n"), std::string::npos) << resolved;
  Diagnostics again;
  const auto reloaded = load_study_text("t.yaml", resolved, kFixtureCatalog, again);
  ASSERT_TRUE(reloaded) << again.format();
  EXPECT_EQ(reloaded->values[1].as, CitedAs::percent_less);

  std::string text = with_aggregates("  - {name: pct, metric: latency_s, where: {hardware: h100_sxm, batch: 8}, as: percent}\n");
  std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "percent}") + ": error: values[1].as: 'percent' reads a value against a second design "
                                          "point; give over: or minus:"),
            std::string::npos)
      << e;
  text = with_aggregates("  - {name: pct, count: rows, as: percent}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "percent}") + ": error: values[1].as:"), std::string::npos) << e;
  text = with_aggregates("  - {name: pct, metric: latency_s, where: {hardware: a100_80gb_sxm, batch: 8}, over: {hardware: "
                         "h100_sxm, batch: 8}, as: percnt}\n");
  e = errors_of(text);
  EXPECT_NE(e.find(at(text, "percnt}") + ": error: unknown reading 'percnt' in values[1].as"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'percent'?"), std::string::npos) << e;
  EXPECT_NE(e.find("valid readings: percent, percent_less, percent_of"), std::string::npos) << e;
}

// Conditions that no row can meet together are an error of dsx validate, before any sweep: two
// statuses, a comparison (feasible rows only) with another status, bounds that leave no value.
TEST(StudyValues, ConditionsNoRowCanMeetAreAnError) {
  for (const std::string& when : {std::string("[feasible, infeasible]"), std::string("[error, \"latency_s < 5 ms\"]"),
                                  std::string("[\"latency_s < 5 ms\", \"latency_s > 6 ms\"]"),
                                  std::string("[\"latency_s < 5 ms\", \"latency_s >= 5 ms\"]")}) {
    const std::string text = with_aggregates("  - {name: n, count: rows, when: " + when + "}\n");
    const std::string e = errors_of(text);
    EXPECT_NE(e.find(at(text, when + "}") + ": error: values[1].when: no row can meet these conditions: "), std::string::npos)
        << e;
  }
  for (const std::string& when : {std::string("[feasible, \"latency_s < 5 ms\"]"),
                                  std::string("[\"latency_s <= 5 ms\", \"latency_s >= 5 ms\"]")}) {
    Diagnostics d;
    EXPECT_TRUE(load_study_text("t.yaml", with_aggregates("  - {name: n, count: rows, when: " + when + "}\n"),
                                kFixtureCatalog, d))
        << d.format();
  }
}

// dsx validate refuses an aggregate whose where: selects only rows the grid constraints remove.
TEST(StudyValues, AnAggregateWhoseRowsTheGridConstraintsAllRemoveSelectsNothing) {
  const std::string entry = "  - {name: n, count: rows, where: {batch: 8}}\n";
  const std::string text = with_aggregates(entry) + "grid_constraints:\n  - {name: small, expr: \"batch < 4\"}\n";
  const std::string e = errors_of(text);
  EXPECT_NE(e.find(at(text, "{batch: 8}}") +
                   ": error: values[1].where: selects nothing: the grid constraints remove all 2 design points it "
                   "selects (the first fails grid constraint 'small': batch < 4 is false there)"),
            std::string::npos)
      << e;
  // Rows the constraint keeps load, and so does an entry with no where: while any row is kept.
  Diagnostics d;
  EXPECT_TRUE(load_study_text("t.yaml",
                              replaced(replaced(text, "{batch: 8}}", "{batch: 1}}"), "where: {hardware: h100_sxm, batch: 8}",
                                       "where: {hardware: h100_sxm, batch: 1}"),
                              kFixtureCatalog, d))
      << d.format();
  const std::string every = with_aggregates("  - {name: n, count: rows}\n") + "grid_constraints:\n  - {name: none, expr: \"batch > 100\"}\n";
  const std::string all = errors_of(every);
  EXPECT_NE(all.find(at(every, "{name: n, count: rows}") + ": error: values[1]: selects nothing: the grid constraints "
                                                             "remove all 4 design points it selects"),
            std::string::npos)
      << all;
}

}  // namespace
}  // namespace dsx
