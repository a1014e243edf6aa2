// Objectives that rank only some rows (`where:`), and ties among the best rows: the loader's
// checks, the rows top-k and the Pareto front admit, the resolved study's round trip, and the
// generated Answer's words for a tie.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "output/analysis_report.hpp"
#include "output/report.hpp"
#include "tests/dse/study_text.hpp"

namespace dsx {
namespace {

const std::string kCatalog = DSX_SOURCE_DIR "/studies/catalog";

Loaded load(const std::string& text) { return load_study_for_test(text, kCatalog); }

ResultTable sweep(const ResolvedStudy& study) { return sweep_whole_grid(study); }

std::string inference_study(const std::string& hardware, const std::string& objectives) {
  return "study: w\ntitle: t\nquestion: q\nsolver: inference\naxes:\n  hardware: [" + hardware +
         "]\n  batch: [1, 8, 64]\nfixed:\n  model: resnet50\n  precision: fp16\n  execution: compiled\n"
         "  eta: 0.4\n  launch_overhead: 10 us\n" + objectives + "top_k: 2\n";
}

const char* kThree = "a100_80gb_sxm, h100_sxm, l4";

// The value of `metric` at each top-k row of objective `j`.
std::vector<double> top_values(const AnalysedRun& run, std::size_t j, const std::string& metric) {
  std::vector<double> out;
  const auto c = static_cast<std::size_t>(run.shown().metric_column(metric));
  for (const std::size_t r : run.top_k.at(j).rows) out.push_back(run.shown().metric(r, c));
  return out;
}

TEST(ObjectiveWhere, RanksTheRowsAStudyOfOnlyThoseValuesWouldRank) {
  const Loaded l = load(inference_study(kThree, R"(objectives:
  - {metric: throughput_samples_per_s, direction: max, where: {hardware: [a100_80gb_sxm, l4]}}
  - {metric: latency_s, direction: min, where: {batch: 1}}
)"));
  ASSERT_TRUE(l.study) << l.diagnostics;
  ASSERT_EQ(l.study->objectives[0].where.size(), 2u);
  const AnalysedRun run = analyse_run(*l.study, sweep(*l.study));
  // The same grid without the rows the where leaves out, swept on its own.
  const Loaded sub = load(inference_study("a100_80gb_sxm, l4", R"(objectives:
  - {metric: throughput_samples_per_s, direction: max}
)"));
  ASSERT_TRUE(sub.study) << sub.diagnostics;
  const AnalysedRun sub_run = analyse_run(*sub.study, sweep(*sub.study));
  EXPECT_EQ(top_values(run, 0, "throughput_samples_per_s"), top_values(sub_run, 0, "throughput_samples_per_s"));
  const int hw = run.shown().axis_column("hardware");
  for (const std::size_t r : run.top_k[0].rows) {
    EXPECT_NE(run.shown().label(r, static_cast<std::size_t>(hw)), "h100_sxm");
  }
  // Over every row the H100 would have been first: the where changed the answer.
  const Loaded all = load(inference_study(kThree, "objectives:\n  - {metric: throughput_samples_per_s, direction: max}\n"));
  ASSERT_TRUE(all.study) << all.diagnostics;
  const AnalysedRun all_run = analyse_run(*all.study, sweep(*all.study));
  EXPECT_EQ(all_run.shown().label(all_run.top_k[0].rows[0], static_cast<std::size_t>(hw)), "h100_sxm");
  // The front admits only rows both objectives rank: hardware a100 or l4, at batch 1.
  const int batch = run.shown().axis_column("batch");
  ASSERT_FALSE(run.fronts.rows.empty());
  for (const std::size_t r : run.fronts.rows) {
    EXPECT_EQ(run.shown().label(r, static_cast<std::size_t>(batch)), "1");
    EXPECT_NE(run.shown().label(r, static_cast<std::size_t>(hw)), "h100_sxm");
  }
}

TEST(ObjectiveWhere, TheResolvedStudyWritesItAndLoadsBackToTheSame) {
  const Loaded l = load(inference_study(kThree, R"(objectives:
  - {metric: latency_s, direction: min, where: {hardware: [l4, h100_sxm], batch: 8}, name: latency_8}
  - {metric: latency_s, direction: min}
)"));
  ASSERT_TRUE(l.study) << l.diagnostics;
  const std::string yaml = resolved_study_yaml(*l.study);
  EXPECT_NE(yaml.find("{metric: latency_s, direction: min, name: latency_8, where: {hardware: [l4, h100_sxm], batch: 8}}"),
            std::string::npos)
      << yaml;
  const Loaded back = load(yaml);
  ASSERT_TRUE(back.study) << back.diagnostics;
  ASSERT_EQ(back.study->objectives.size(), 2u);
  EXPECT_EQ(back.study->objectives[0].key(), "latency_8");
  EXPECT_EQ(back.study->objectives[1].key(), "latency_s");
  ASSERT_EQ(back.study->objectives[0].where.size(), 3u);
  EXPECT_EQ(resolved_study_yaml(*back.study), yaml);
}

// Each problem at its line and column, with the valid choices and the closest one.
TEST(ObjectiveWhere, ProblemsAreLocatedWithTheValidChoices) {
  const auto errors = [](const std::string& objectives) { return load(inference_study(kThree, objectives)).diagnostics; };
  std::string d = errors("objectives:\n  - {metric: latency_s, direction: min, where: {hardware: [l4, h100_sx]}}\n");
  EXPECT_NE(d.find("t.yaml:15:64: error: unknown hardware id 'h100_sx'; did you mean 'h100_sxm'?"), std::string::npos) << d;
  d = errors("objectives:\n  - {metric: latency_s, direction: min, where: {hardware: [l4, b200]}}\n");
  EXPECT_NE(d.find("t.yaml:15:64: error: objectives[0].where.hardware: 'b200' is not a value of the hardware axis "
                   "(axis values: a100_80gb_sxm, h100_sxm, l4)"),
            std::string::npos)
      << d;
  d = errors("objectives:\n  - {metric: latency_s, direction: min, where: {hardwar: l4}}\n");
  EXPECT_NE(d.find("t.yaml:15:49: error: unknown inference parameter 'hardwar'"), std::string::npos) << d;
  EXPECT_NE(d.find("did you mean 'hardware'?"), std::string::npos) << d;
  d = errors("objectives:\n  - {metric: latency_s, direction: min, where: {batch: 3}}\n");
  EXPECT_NE(d.find("'3' is not a value of the batch axis (axis values: 1, 8, 64)"), std::string::npos) << d;
  d = errors("objectives:\n  - {metric: latency_s, direction: min, where: {model: gpt2}}\n");
  EXPECT_NE(d.find("'gpt2' selects nothing: model is fixed to 'resnet50'"), std::string::npos) << d;
  d = errors("objectives:\n  - {metric: latency_s, direction: min, where: {batch: []}}\n");
  EXPECT_NE(d.find("objectives[0].where.batch: an empty list selects nothing"), std::string::npos) << d;
  d = errors("objectives:\n  - {metric: latency_s, direction: min, where: {batch: [8, 8]}}\n");
  EXPECT_NE(d.find("objectives[0].where.batch: '8' is listed twice"), std::string::npos) << d;
  d = errors("objectives:\n  - {metric: latency_s, direction: min, wher: {batch: 8}}\n");
  EXPECT_NE(d.find("did you mean 'where'?"), std::string::npos) << d;
  // The same metric twice needs a name for the second; names are checked.
  d = errors("objectives:\n  - {metric: latency_s, direction: min}\n  - {metric: latency_s, direction: min, where: {batch: 8}}\n");
  EXPECT_NE(d.find("t.yaml:16:14: error: objectives[1]: 'latency_s' is already an objective; give this one a name: to rank it again"),
            std::string::npos)
      << d;
  d = errors("objectives:\n  - {metric: latency_s, direction: min, name: Fast one}\n");
  EXPECT_NE(d.find("objectives[0].name: 'Fast one' is not a name"), std::string::npos) << d;
  // Two objectives whose values of a parameter do not overlap leave the front no row.
  d = errors(R"(objectives:
  - {metric: latency_s, direction: min, where: {hardware: l4}}
  - {metric: throughput_samples_per_s, direction: max, where: {hardware: [h100_sxm, a100_80gb_sxm]}}
)");
  EXPECT_NE(d.find("t.yaml:16:63: error: objectives[1].where: no design point has a hardware that both 'latency_s' and "
                   "'throughput_samples_per_s' rank, so the Pareto front of the objectives has no row"),
            std::string::npos)
      << d;
  // A list stays an error where a selector picks one value.
  const Loaded compare = load(inference_study(kThree, R"(compare:
  - {name: c, where: {hardware: [l4, h100_sxm], batch: 8}, metric: latency_s, expected: 1 ms, source: s}
)"));
  EXPECT_NE(compare.diagnostics.find("compare[0].where.hardware: a selector takes one value, got a list"),
            std::string::npos)
      << compare.diagnostics;
}

TEST(ObjectiveTies, ARelativeDifferenceOfOnePartInABillionIsATie) {
  EXPECT_TRUE(same_objective_value(1.0, 1.0));
  EXPECT_TRUE(same_objective_value(0.024254314132501096, 0.024254314132501096 * (1 + 5e-10)));
  EXPECT_FALSE(same_objective_value(0.024254314132501096, 0.024254314132501096 * (1 + 5e-9)));
  EXPECT_TRUE(same_objective_value(0.0, 0.0));
  EXPECT_FALSE(same_objective_value(0.0, 1e-300));
}

// Llama-3-8B on one H100 at a batch whose KV cache never fills: recompute and swap never preempt,
// so their inter-token latencies are the same number, and the Answer says they tie.
const char* kServing = R"(study: ties
title: t
question: q
solver: serving
calibration: none
axes:
  batch: [120, 0]
  preemption: [recompute, swap]
fixed:
  hardware: h100_sxm
  model: llama3_8b
  precision: fp16
  kv_precision: fp16
  tp: 1
  prompt_tokens: 2048
  output_tokens: 256
  kv_block_tokens: 16
objectives:
  - {metric: itl_s, direction: min, where: {preemption: [recompute, swap]}}
  - {metric: tokens_per_s, direction: max}
top_k: 2
)";

TEST(ObjectiveTies, TheAnswerNamesTheTiedRowsAndWhatTheyDifferIn) {
  const Loaded l = load(kServing);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResultTable rows = sweep(*l.study);
  const AnalysedRun run = analyse_run(*l.study, rows);
  ASSERT_EQ(run.top_k.size(), 2u);
  const ResultTable& t = run.shown();
  const auto itl = static_cast<std::size_t>(t.metric_column("itl_s"));
  const auto preempt = static_cast<std::size_t>(t.metric_column("preemptions_per_step"));
  // Batch 120 never overflows (230 sequences fit at full length): no preemption, the same latency.
  ASSERT_EQ(run.top_k[0].rows.size(), 2u);
  const std::size_t a = run.top_k[0].rows[0], b = run.top_k[0].rows[1];
  EXPECT_EQ(t.label(a, 0), "120");
  EXPECT_EQ(t.label(b, 0), "120");
  EXPECT_EQ(t.metric(a, preempt), 0);
  EXPECT_EQ(t.metric(a, itl), t.metric(b, itl));
  EXPECT_EQ(run.top_k[0].tied, std::vector<std::size_t>{b});
  // The largest batch (0) preempts, and swap costs less output than recompute: no tie for the second.
  EXPECT_GT(t.metric(run.top_k[1].rows[0], preempt), 0);
  EXPECT_EQ(t.label(run.top_k[1].rows[0], 1), "swap");
  EXPECT_TRUE(run.top_k[1].tied.empty());

  const std::vector<std::size_t> no_front;
  ReportInputs in{*l.study, t, no_front, RunInfo{}, "", ""};
  in.analysed = &run;
  const auto ctx = analysis_report_context(in);
  const auto& lines = ctx["answer"]["lines"];
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["label"].get<std::string>(), "lowest inter-token latency where preemption = recompute or swap");
  const std::string text = lines[0]["text"].get<std::string>();
  EXPECT_EQ(text.rfind("batch = 120, preemption = recompute (", 0), 0u) << text;
  EXPECT_NE(text.find("), tied with preemption = swap (equal within a relative 1e-9: they differ only in preemption"),
            std::string::npos)
      << text;
  EXPECT_EQ(lines[1]["text"].get<std::string>().find("tied"), std::string::npos) << lines[1]["text"];
}

// Without `top_k:` the Answer still names each objective's best row and its ties: best_rows finds
// them in one pass, the same rows and ties as a sort of every row (top_k_rows with k = 1).
TEST(ObjectiveTies, WithoutTopKTheAnswerNamesTheSameBestRowsAndTies) {
  std::string text(kServing);
  const std::string top_k = "top_k: 2\n";
  ASSERT_NE(text.find(top_k), std::string::npos);
  text.erase(text.find(top_k), top_k.size());
  const Loaded l = load(text);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResultTable rows = sweep(*l.study);
  const AnalysedRun run = analyse_run(*l.study, rows);
  EXPECT_TRUE(run.top_k.empty());
  const std::vector<TopKList> sorted = top_k_rows(*l.study, run.shown(), 1);
  ASSERT_EQ(run.best.size(), sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(run.best[i].rows, sorted[i].rows) << i;
    EXPECT_EQ(run.best[i].tied, sorted[i].tied) << i;
  }
  ASSERT_EQ(run.best[0].tied.size(), 1u);

  const std::vector<std::size_t> no_front;
  ReportInputs in{*l.study, run.shown(), no_front, RunInfo{}, "", ""};
  in.analysed = &run;
  const auto lines = analysis_report_context(in)["answer"]["lines"];
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0]["text"].get<std::string>().find("tied with preemption = swap"), std::string::npos) << lines[0];
}

// Owning a fleet costs the same whatever renting would: rows that differ only in the rental price
// are not a tie between choices, and the Answer says the price does not move the cost instead.
TEST(ObjectiveTies, AnInputTheMetricDoesNotDependOnIsNoTie) {
  const Loaded l = load(R"(study: inert
title: t
question: q
solver: fleet
calibration: none
axes:
  hardware: [h100_sxm, b200]
  cloud_gpu_hour_price: [2.5 USD, 4 USD]
fixed:
  tokens_per_s_per_gpu: 500 tokens/s
  load: 100000 M/day
  region: us_average
  rack_power: 70 kW
objectives:
  - {metric: own_cost_per_million_tokens_usd, direction: min}
  - {metric: rent_vs_buy_ratio, direction: max}
)");
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResultTable rows = sweep(*l.study);
  const AnalysedRun run = analyse_run(*l.study, rows);
  ASSERT_EQ(run.best.size(), 2u);
  ASSERT_EQ(run.best[0].tied.size(), 1u) << "the same owning cost at both rental prices";
  const std::vector<std::size_t> no_front;
  ReportInputs in{*l.study, run.shown(), no_front, RunInfo{}, "", ""};
  in.analysed = &run;
  const auto lines = analysis_report_context(in)["answer"]["lines"];
  ASSERT_EQ(lines.size(), 2u);
  const std::string own = lines[0]["text"].get<std::string>();
  EXPECT_EQ(own.find("tied"), std::string::npos) << own;
  EXPECT_NE(own.find(", cloud_gpu_hour_price does not move it: every value gives the same"), std::string::npos) << own;
  // Renting over owning depends on the rental price: one best row, nothing said of the price.
  const std::string ratio = lines[1]["text"].get<std::string>();
  EXPECT_EQ(ratio.find("tied"), std::string::npos) << ratio;
  EXPECT_EQ(ratio.find("does not move"), std::string::npos) << ratio;
}

}  // namespace
}  // namespace dsx
