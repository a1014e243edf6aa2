// The Answer labels each analysis in words, never by its identifier: a study's `description`, or
// words made from what the analysis compares.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "output/analysis_figures.hpp"
#include "output/analysis_report.hpp"
#include "output/report.hpp"
#include "tests/dse/study_text.hpp"

namespace dsx {
namespace {

const std::string kCatalog = DSX_SOURCE_DIR "/studies/catalog";

std::string study_text(const std::string& breakeven_extra, const std::string& sensitivity_extra) {
  return "study: w\ntitle: t\nquestion: q\nsolver: inference\naxes:\n  hardware: [a100_80gb_sxm, h100_sxm]\n"
         "  batch: [1, 8, 64]\nfixed:\n  model: resnet50\n  precision: fp16\n  execution: compiled\n"
         "  eta: 0.4\n  launch_overhead: 10 us\n"
         "breakeven:\n  - name: latency_by_batch\n" + breakeven_extra +
         "    metric: latency_s\n    along: batch\n    alternatives: hardware\n"
         "sensitivity:\n  - name: purchase\n" + sensitivity_extra +
         "    metric: latency_s\n    base: {batch: 8}\n    decide: hardware\n    inputs: [eta]\n";
}

std::vector<std::string> answer_labels(const std::string& text) {
  const Loaded l = load_study_for_test(text, kCatalog);
  EXPECT_TRUE(l.study) << l.diagnostics;
  if (!l.study) return {};
  const ResultTable rows = sweep_whole_grid(*l.study);
  const AnalysedRun run = analyse_run(*l.study, rows);
  const std::vector<std::size_t> no_front;
  ReportInputs in{*l.study, run.shown(), no_front, RunInfo{}, "", ""};
  in.analysed = &run;
  EXPECT_EQ(run.breakevens.size(), 1u);
  EXPECT_EQ(run.sensitivities.size(), 1u);
  for (const BreakevenRun& b : run.breakevens) EXPECT_EQ(b.error, "");
  for (const SensitivityRun& r : run.sensitivities) EXPECT_EQ(r.error, "");
  std::vector<std::string> labels;
  const auto ctx = analysis_report_context(in);
  for (const auto& line : ctx["answer"]["lines"]) labels.push_back(line["label"].get<std::string>());
  return labels;
}

TEST(AnalysisWords, TheAnswerNamesADecisionAndABreakEvenInWords) {
  const std::vector<std::string> labels = answer_labels(study_text("", ""));
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_EQ(labels[0], "hardware with the lowest latency");
  EXPECT_EQ(labels[1], "latency of each hardware along batch");
}

TEST(AnalysisWords, AStudysDescriptionLabelsItsAnalysis) {
  const std::vector<std::string> labels = answer_labels(
      study_text("    description: \"Latency per accelerator across batch sizes\"\n",
                 "    description: \"Which accelerator to buy\"\n"));
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_EQ(labels[0], "Which accelerator to buy");
  EXPECT_EQ(labels[1], "Latency per accelerator across batch sizes");
}

// The break-even figure's key names each accelerator by its catalog name, not its id.
TEST(AnalysisWords, TheBreakEvenKeyNamesHardwareByItsCatalogName) {
  const Loaded l = load_study_for_test(study_text("", ""), kCatalog);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const AnalysedRun run = analyse_run(*l.study, sweep_whole_grid(*l.study));
  bool found = false;
  for (const AnalysisFigureSource& f : build_analysis_figures(*l.study, run)) {
    if (f.analysis != "breakeven:latency_by_batch") continue;
    found = true;
    for (const char* id : {"a100_80gb_sxm", "h100_sxm"}) {
      const std::string name = l.study->catalog.find_hardware(id)->name;
      EXPECT_NE(f.source.script.find("title \"" + name + "\""), std::string::npos) << name << "\n" << f.source.script;
      EXPECT_EQ(f.source.script.find("title \"" + std::string(id) + "\""), std::string::npos) << id;
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace dsx
