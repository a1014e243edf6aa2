// The analysis blocks of a study file: parsing, diagnostics, the resolved-study round trip, derived
// metrics, constraints, filters, assertions, top-k, grouped and epsilon-thinned fronts, the generic
// break-even on the lab_07 compile case, and the store's analysis tables.
#include "dse/study_analyses.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/analysis/expression.hpp"
#include "dse/analysis/fronts.hpp"
#include "dse/grid.hpp"
#include "dse/pareto.hpp"
#include "dse/quantity.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "tests/dse/study_text.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kCatalog = DSX_SOURCE_DIR "/studies/catalog";

Loaded load(const std::string& text, const std::string& catalog = kCatalog) { return load_study_for_test(text, catalog); }

ResultTable sweep(const ResolvedStudy& study) { return sweep_whole_grid(study); }

const char* kHead = R"(study: analyses
title: t
question: q
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm, l4]
  batch: [1, 8, 64]
fixed:
  model: resnet50
  precision: fp16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
)";

const char* kBlocks = R"(derived:
  - name: usd_per_sample_usd
    expr: "hardware_price_usd / throughput_samples_per_s"
    unit: USD
    description: "price over throughput"
  - name: energy_per_sample_kwh
    expr: "energy_per_sample_j / 3.6e6"
    unit: kWh
filters:
  - {name: not_batch_1, expr: "batch > 1"}
constraints:
  - {name: priced, expr: "hardware_price_usd > 0"}
assertions:
  - {name: h100_fast, expr: "latency_s < 20e-3", where: {hardware: h100_sxm}}
  - {name: some_cheap, expr: "usd_per_sample_usd < 10", require: any}
objectives:
  - {metric: usd_per_sample_usd, direction: min}
  - {metric: latency_s, direction: min}
top_k: 2
pareto: {group: hardware, epsilon: 5%}
breakeven:
  - name: h100_vs_a100
    metric: usd_per_sample_usd
    along: batch
    alternatives: hardware
    among: [a100_80gb_sxm, h100_sxm]
    tolerance: {relative: 1e-9}
sensitivity:
  - name: cost
    metric: usd_per_sample_usd
    base: {batch: 64}
    decide: hardware
    among: [a100_80gb_sxm, h100_sxm]
    inputs: [eta, {name: launch_overhead, range: [5 us, 20 us]}, h100_sxm.price]
    local: {change: 20%}
    morris: {trajectories: 4}
    sobol: {samples: 64, bootstrap: 10}
    flip: {max_change: 300%}
figures:
  - {name: cost, kind: scatter, title: t, caption: c, x: batch, y: usd_per_sample_usd, group: hardware}
)";

TEST(StudyAnalyses, EveryBlockIsReadWithItsDefaults) {
  const Loaded l = load(std::string(kHead) + kBlocks);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const StudyAnalyses& a = analyses_of(*l.study);
  ASSERT_EQ(a.derived.size(), 2u);
  EXPECT_EQ(a.derived[0].name, "usd_per_sample_usd");
  EXPECT_EQ(a.derived[0].dimension, Dimension::money);
  EXPECT_EQ(a.derived[1].unit, "kWh");
  EXPECT_DOUBLE_EQ(a.derived[1].unit_scale, 3.6e6);
  EXPECT_EQ(a.filters.size(), 1u);
  EXPECT_EQ(a.constraints.at(0).expr, "hardware_price_usd > 0");
  ASSERT_EQ(a.assertions.size(), 2u);
  EXPECT_EQ(a.assertions[0].require, Quantifier::all);
  EXPECT_EQ(a.assertions[1].require, Quantifier::any);
  EXPECT_EQ(a.assertions[0].where.at(0).label, "h100_sxm");
  EXPECT_EQ(a.top_k, 2u);
  EXPECT_EQ(a.pareto.group, std::vector<std::string>{"hardware"});
  EXPECT_EQ(a.pareto.epsilon, std::vector<double>{0.05});
  ASSERT_EQ(a.breakevens.size(), 1u);
  EXPECT_EQ(a.breakevens[0].among, (std::vector<std::string>{"a100_80gb_sxm", "h100_sxm"}));
  EXPECT_DOUBLE_EQ(a.breakevens[0].tolerance.relative, 1e-9);
  ASSERT_EQ(a.sensitivities.size(), 1u);
  const SensitivityRequest& s = a.sensitivities[0];
  ASSERT_EQ(s.inputs.size(), 3u);
  ASSERT_TRUE(s.inputs[1].range.has_value());
  EXPECT_DOUBLE_EQ(s.inputs[1].range->hi, 20e-6);
  EXPECT_DOUBLE_EQ(s.local_options.relative_change, 0.2);
  EXPECT_DOUBLE_EQ(s.local_options.elasticity_step, 0.01);
  EXPECT_EQ(s.morris->trajectories, 4u);
  EXPECT_EQ(s.morris->levels, 4u);
  EXPECT_EQ(s.sobol->samples, 64u);
  EXPECT_DOUBLE_EQ(s.flip.max_relative_change, 3.0);
  // A derived metric is a metric of the study: objectives and figures take it.
  EXPECT_EQ(l.study->objectives.at(0).metric, "usd_per_sample_usd");
  EXPECT_EQ(l.study->figures.at(0).y.at(0), "usd_per_sample_usd");
}

TEST(StudyAnalyses, TheResolvedStudyWritesEveryDefaultAndLoadsBackToTheSame) {
  const Loaded l = load(std::string(kHead) + kBlocks);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const std::string yaml = resolved_study_yaml(*l.study);
  EXPECT_NE(yaml.find("local: {enabled: true, change: 0.2, step: 0.01}"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("tolerance: {relative: " + number_text(1e-9) + ", absolute: 0, max_evaluations: 200}"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- {name: launch_overhead, range: [5 us, 20 us]}"), std::string::npos) << yaml;
  const Loaded back = load(yaml, "");
  ASSERT_TRUE(back.study) << back.diagnostics << yaml;
  EXPECT_EQ(resolved_study_yaml(*back.study), yaml);
  const StudyAnalyses& a = analyses_of(*back.study);
  EXPECT_EQ(a.derived.size(), 2u);
  EXPECT_EQ(a.sensitivities.at(0).sobol->bootstrap, 10u);
  EXPECT_EQ(a.breakevens.at(0).refine, true);
}

TEST(StudyAnalyses, AStudyWithoutBlocksHasAnEmptySet) {
  const Loaded l = load(kHead);
  ASSERT_TRUE(l.study) << l.diagnostics;
  EXPECT_TRUE(analyses_of(*l.study).empty());
  EXPECT_EQ(resolved_study_yaml(*l.study).find("derived:"), std::string::npos);
}

TEST(StudyAnalyses, ProblemsAgainstTheGridPointAtTheirNode) {
  const Loaded l = load(std::string(kHead) + R"(breakeven:
  - name: b
    metric: latency_s
    along: eta
    alternatives: hardware
)");
  ASSERT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("t.yaml:17:12: error: breakeven[0].along: 'eta' is not swept in this study"),
            std::string::npos)
      << l.diagnostics;
}

TEST(StudyAnalyses, AnAnalysisPastItsCostLimitIsRefusedBeforeItRuns) {
  const Loaded l = load(std::string(kHead) + R"(sensitivity:
  - name: x
    metric: latency_s
    base: {hardware: l4, batch: 8}
    inputs: [eta, launch_overhead]
    morris: {trajectories: 1000000000}
    sobol: {samples: 1000000000}
  - {name: y, metric: latency_s, base: {hardware: l4, batch: 8}, inputs: [eta], sobol: {samples: 1048576, bootstrap: 100000}}
)");
  ASSERT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("t.yaml:19:28: error: sensitivity[0].morris.trajectories: 3000000000 evaluations of "
                               "the solver, past the 20000000 an analysis may ask for; lower the trajectories"),
            std::string::npos)
      << l.diagnostics;
  EXPECT_NE(l.diagnostics.find("t.yaml:20:22: error: sensitivity[0].sobol.samples: 4000000000 evaluations"),
            std::string::npos)
      << l.diagnostics;
  EXPECT_NE(l.diagnostics.find("sensitivity[1].sobol.bootstrap: 100000 resamples of 1048576 samples are past"),
            std::string::npos)
      << l.diagnostics;
}

TEST(StudyAnalyses, AnalysisFiguresMayNotTakeAStudyFiguresName) {
  const Loaded l = load(std::string(kHead) + R"(sensitivity:
  - {name: x, metric: latency_s, base: {hardware: l4, batch: 8}, inputs: [eta]}
figures:
  - {name: tornado_x, kind: scatter, title: t, caption: c, x: batch, y: latency_s}
)");
  ASSERT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("sensitivity[0].name: its figure 'tornado_x' has the name of one of the study's figures"),
            std::string::npos)
      << l.diagnostics;
}

TEST(Expressions, SyntaxProblemsAndNamesAreLocated) {
  const ExpressionScan ok = scan_expression("a * (b + a) / c_2");
  ASSERT_FALSE(ok.syntax);
  EXPECT_EQ(ok.names, (std::vector<std::string>{"a", "b", "c_2"}));
  EXPECT_EQ(ok.offsets, (std::vector<std::size_t>{0, 5, 14}));
  const ExpressionScan bad = scan_expression("1 + * 2");
  ASSERT_TRUE(bad.syntax);
  EXPECT_EQ(bad.syntax->offset, 4u);
  EXPECT_TRUE(scan_expression("  ").syntax);
  double x = 3, y = 4;
  const CompiledExpression e("sqrt(x^2 + y^2) > 4.9 ? x : y", {{"x", &x}, {"y", &y}});
  EXPECT_EQ(e.evaluate(), 3);
  y = 1;
  EXPECT_EQ(e.evaluate(), 1);
  EXPECT_THROW(CompiledExpression("x + z", {{"x", &x}}), std::invalid_argument);
  // Whole counts: replicas for a load, racks for a fleet.
  x = 2.01;
  const CompiledExpression whole("ceil(x) * 10 + floor(x)", {{"x", &x}});
  EXPECT_EQ(whole.evaluate(), 32);
  x = -2.5;
  EXPECT_EQ(whole.evaluate(), -23);
  EXPECT_FALSE(scan_expression("ceil(a / b)").syntax);
  EXPECT_FALSE(truthy(std::nan("")));
  EXPECT_TRUE(truthy(-1));
}

TEST(DerivedMetrics, AreComputedPerRowConstrainedAndFiltered) {
  const Loaded l = load(std::string(kHead) + kBlocks);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& study = *l.study;
  ResultTable table = sweep(study);
  const ResultTable raw = table;
  const FormulaOutcome o = apply_formulas(study, table);
  const int cost = table.metric_column("usd_per_sample_usd");
  const int kwh = table.metric_column("energy_per_sample_kwh");
  const int thr = table.metric_column("throughput_samples_per_s");
  const int energy = table.metric_column("energy_per_sample_j");
  ASSERT_GE(cost, 0);
  ASSERT_GE(kwh, 0);
  ASSERT_EQ(table.metric_names.size(), raw.metric_names.size() + 2);
  std::size_t l4 = 0;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    // The solver's columns are unchanged.
    for (std::size_t m = 0; m < raw.metric_names.size(); ++m) {
      const double a = raw.metric(r, m), b = table.metric(r, m);
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b)));
    }
    const std::string& hw = table.label(r, 0);
    if (hw == "l4") {
      ++l4;
      EXPECT_EQ(table.status[r], PointStatus::infeasible);
      EXPECT_EQ(table.detail(r), "constraint 'priced': hardware_price_usd > 0");
      EXPECT_TRUE(std::isnan(table.metric(r, static_cast<std::size_t>(cost))));
    } else {
      const double price = hw == "a100_80gb_sxm" ? 17500 : 31250;  // the catalog's list and reseller prices
      EXPECT_NEAR(table.metric(r, static_cast<std::size_t>(cost)), price / table.metric(r, static_cast<std::size_t>(thr)),
                  1e-12 * price);
      // kWh is the unit the expression is written in; the column is SI (J).
      EXPECT_DOUBLE_EQ(table.metric(r, static_cast<std::size_t>(kwh)), table.metric(r, static_cast<std::size_t>(energy)));
      EXPECT_EQ(table.status[r], PointStatus::ok);
    }
  }
  EXPECT_EQ(l4, 3u);
  EXPECT_EQ(o.constraint_violations, std::vector<std::size_t>{3});
  EXPECT_EQ(table.reasons.back(), "constraint 'priced': hardware_price_usd > 0");
  // batch > 1 keeps 2 of the 3 batches of each hardware.
  EXPECT_EQ(o.kept.size(), 6u);
  EXPECT_EQ(o.filtered_out, std::vector<std::size_t>{3});
  for (std::size_t r : o.kept) EXPECT_NE(table.label(r, 1), "1");
}

// hardware_tdp_w of a part whose vendor publishes no power (Google's TPU v5p) is NaN, not 0 W: a
// per-joule metric built on it is empty rather than infinite, and the solver's own power is NaN.
TEST(DerivedMetrics, AnUnknownTdpIsNaNInExpressions) {
  const Loaded l = load(R"(study: tdp
title: t
question: q
solver: inference
axes:
  hardware: [h100_sxm, tpu_v5p]
fixed:
  model: resnet50
  precision: bf16
  batch: 8
  eta: 0.4
  launch_overhead: 10 us
derived:
  - {name: samples_per_joule, expr: "throughput_samples_per_s / hardware_tdp_w"}
  - {name: tdp_w, expr: "hardware_tdp_w", unit: W}
)");
  ASSERT_TRUE(l.study) << l.diagnostics;
  ResultTable table = sweep(*l.study);
  apply_formulas(*l.study, table);
  const int per_joule = table.metric_column("samples_per_joule");
  const int tdp = table.metric_column("tdp_w");
  const int power = table.metric_column("power_w");
  ASSERT_GE(per_joule, 0);
  ASSERT_EQ(table.rows(), 2u);
  for (std::size_t r = 0; r < table.rows(); ++r) {
    EXPECT_EQ(table.status[r], PointStatus::ok) << table.detail(r);
    const bool tpu = table.label(r, 0) == "tpu_v5p";
    EXPECT_EQ(std::isnan(table.metric(r, static_cast<std::size_t>(per_joule))), tpu) << table.label(r, 0);
    EXPECT_EQ(std::isnan(table.metric(r, static_cast<std::size_t>(power))), tpu) << table.label(r, 0);
    if (!tpu) {
      EXPECT_DOUBLE_EQ(table.metric(r, static_cast<std::size_t>(tdp)), 700);
    }
  }
}

// hardware_rental_usd_per_hour is the catalog entry's on-demand price of one accelerator-hour, and NaN
// for a part without one: a dollar figure built on it is empty, never 0. A study's own entry may
// carry a rental, and the resolved study writes it back.
TEST(DerivedMetrics, ARentalPriceIsReadFromTheCatalogAndNaNWithoutOne) {
  const Loaded l = load(R"(study: rental
title: t
question: q
solver: inference
catalog:
  hardware:
    - {id: h100_rented, base: h100_sxm, source: "test", rental: {per_hour: 6 USD, date: 2025-06, source: "test page"}}
axes:
  hardware: [inf2, gaudi3, h100_rented]
fixed:
  model: resnet50
  precision: bf16
  batch: 8
  eta: 0.4
  launch_overhead: 10 us
derived:
  - {name: usd_per_million_samples, expr: "hardware_rental_usd_per_hour / 3600 / throughput_samples_per_s * 1e6", unit: USD}
)");
  ASSERT_TRUE(l.study) << l.diagnostics;
  ResultTable table = sweep(*l.study);
  apply_formulas(*l.study, table);
  const int usd = table.metric_column("usd_per_million_samples");
  const int thr = table.metric_column("throughput_samples_per_s");
  ASSERT_GE(usd, 0);
  ASSERT_EQ(table.rows(), 3u);
  for (std::size_t r = 0; r < table.rows(); ++r) {
    ASSERT_EQ(table.status[r], PointStatus::ok) << table.detail(r);
    const std::string& hw = table.label(r, 0);
    const double value = table.metric(r, static_cast<std::size_t>(usd));
    const double per_s = table.metric(r, static_cast<std::size_t>(thr));
    if (hw == "gaudi3") {
      EXPECT_TRUE(std::isnan(value)) << value;
    } else {
      // inf2: AWS Neuron's Inf2.48xlarge on-demand rate, 12.981 USD per hour over 12 chips.
      const double per_hour = hw == "inf2" ? 12.981 / 12 : 6.0;
      EXPECT_NEAR(value, per_hour / 3600 / per_s * 1e6, 1e-9 * value) << hw;
    }
  }
  const std::string resolved = resolved_study_yaml(*l.study);
  EXPECT_NE(resolved.find("rental: {per_hour: 6 USD, date: 2025-06, source: test page}"),
            std::string::npos)
      << resolved;
}

TEST(DerivedMetrics, AssertionsAllAndAnyAndTopK) {
  const Loaded l = load(std::string(kHead) + kBlocks);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const AnalysedRun run = analyse_run(*l.study, sweep(*l.study));
  ASSERT_EQ(run.assertions.size(), 2u);
  EXPECT_TRUE(run.assertions[0].held);
  EXPECT_EQ(run.assertions[0].rows_checked, 2u);  // h100 at batch 8 and 64 (batch 1 filtered out)
  EXPECT_TRUE(run.assertions[1].held);
  ASSERT_TRUE(run.assertions[1].example_row.has_value());
  EXPECT_TRUE(run.assertions_hold());
  ASSERT_EQ(run.top_k.size(), 2u);
  ASSERT_EQ(run.top_k[0].rows.size(), 2u);
  const int cost = run.shown().metric_column("usd_per_sample_usd");
  EXPECT_LE(run.shown().metric(run.top_k[0].rows[0], static_cast<std::size_t>(cost)),
            run.shown().metric(run.top_k[0].rows[1], static_cast<std::size_t>(cost)));
  for (std::size_t r : run.top_k[0].rows) EXPECT_EQ(run.shown().status[r], PointStatus::ok);

  // A claim that no row can meet fails for `all` (with the first counter-example) and for `any`;
  // a `where` that matches no feasible row fails too.
  const Loaded bad = load(std::string(kHead) + R"(assertions:
  - {name: impossible, expr: "latency_s < 1e-9"}
  - {name: nowhere, expr: "latency_s < 1", where: {hardware: l4}}
  - {name: none_any, expr: "latency_s < 1e-9", require: any}
constraints:
  - {name: priced, expr: "hardware_price_usd > 0"}
)");
  ASSERT_TRUE(bad.study) << bad.diagnostics;
  const AnalysedRun b = analyse_run(*bad.study, sweep(*bad.study));
  ASSERT_EQ(b.assertions.size(), 3u);
  EXPECT_FALSE(b.assertions[0].held);
  EXPECT_EQ(b.assertions[0].example_row, std::optional<std::size_t>(0));
  EXPECT_FALSE(b.assertions[1].held);
  EXPECT_EQ(b.assertions[1].rows_checked, 0u);
  EXPECT_FALSE(b.assertions[2].held);
  EXPECT_FALSE(b.assertions_hold());
}

TEST(DerivedMetrics, AnalysesSeeDerivedMetricsAndTheDecisionFlipIsTheAnalyticOne) {
  const Loaded l = load(std::string(kHead) + kBlocks);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& study = *l.study;
  const AnalysedRun run = analyse_run(study, sweep(study));
  ASSERT_EQ(run.sensitivities.size(), 1u);
  ASSERT_TRUE(run.sensitivities[0].analysis) << run.sensitivities[0].error;
  const SensitivityAnalysis& s = *run.sensitivities[0].analysis;
  ASSERT_TRUE(s.decision.has_value());
  // cost = price / throughput: the H100 (index 1) takes over when its price times
  // (1 + r) equals the A100's cost times the H100's throughput, whichever is cheaper now.
  const ResultTable& t = run.table;
  const int thr = t.metric_column("throughput_samples_per_s");
  double thr_a = 0, thr_h = 0;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.label(r, 1) != "64") continue;
    if (t.label(r, 0) == "a100_80gb_sxm") thr_a = t.metric(r, static_cast<std::size_t>(thr));
    if (t.label(r, 0) == "h100_sxm") thr_h = t.metric(r, static_cast<std::size_t>(thr));
  }
  const double cost_a = 17500 / thr_a;
  const double cost_h = 31250 / thr_h;
  const double r = cost_a / cost_h - 1;  // relative change of the H100 price that equalises the costs
  const DecisionFlip& f = s.decision->flips.at(2);
  const FlipSearch& search = r > 0 ? f.up : f.down;
  ASSERT_TRUE(search.found);
  EXPECT_NEAR(search.relative_change, r, 2e-4);
  // The local elasticity of price / throughput with respect to the price is exactly 1 at the H100
  // point and 0 at the A100 point.
  ASSERT_TRUE(s.local.has_value());
  for (const TornadoBar& b : s.local->bars) {
    if (s.inputs[b.input].name != "h100_sxm.price") continue;
    EXPECT_NEAR(b.elasticity, s.alternatives[s.decision->best] == "h100_sxm" ? 1.0 : 0.0, 1e-9);
  }
  // The break-even of a derived metric: where the two costs per sample are equal along batch.
  ASSERT_TRUE(run.breakevens.at(0).analysis) << run.breakevens[0].error;
  for (const Crossing& c : run.breakevens[0].analysis->groups.at(0).outcome.crossings) {
    if (c.kind == CrossingKind::root) {
      EXPECT_NEAR(c.metric_first, c.metric_second, 1e-9 * c.metric_first);
    }
  }
}

// seeds/000 lab_07 Act 2: compiling ResNet-50 (30 s; 1,450 -> 2,150 img/s) pays off after about
// 134,000 images. Found here by the generic break-even of a study block between two metrics of the
// compile_breakeven solver, refined by Brent's method between the grid points, not by the closed
// form.
TEST(StudyAnalyses, Lab07CompileBreakEvenFromAStudyBlock) {
  const Loaded l = load(R"(study: lab07_breakeven
title: t
question: q
solver: compile_breakeven
axes:
  run_inferences: [1000, 10000, 100000, 1000000, 10000000]
fixed:
  compile_time: 30 s
  throughput_eager: 1450 /s
  gain: 0.48275862068965517
  volume: 1 /h
  duration: 0 s
breakeven:
  - name: compile
    metrics: [eager_time_s, compiled_time_s]
    along: run_inferences
)");
  ASSERT_TRUE(l.study) << l.diagnostics;
  const AnalysedRun run = analyse_run(*l.study, sweep(*l.study));
  ASSERT_TRUE(run.breakevens.at(0).analysis) << run.breakevens[0].error;
  const BreakevenAnalysis& a = *run.breakevens[0].analysis;
  ASSERT_EQ(a.groups.size(), 1u);
  ASSERT_EQ(a.groups[0].outcome.crossings.size(), 1u);
  const Crossing& c = a.groups[0].outcome.crossings[0];
  EXPECT_EQ(c.kind, CrossingKind::root);
  EXPECT_EQ(a.alternatives[c.better_above], "compiled_time_s");
  EXPECT_NEAR(c.along_value, 134000, 0.01 * 134000);                    // the seed's "~134,000"
  EXPECT_NEAR(c.along_value, 30.0 * 1450 * 2150 / 700, 1e-6 * 134000);  // the exact arithmetic
  EXPECT_NEAR(c.metric_first, c.along_value / 1450, 1e-6);
  EXPECT_GT(c.evaluations, 0);
}

TEST(Fronts, GroupedFrontsAreEachGroupsOwnFront) {
  const Loaded l = load(std::string(kHead) + R"(objectives:
  - {metric: latency_s, direction: min}
  - {metric: energy_per_sample_j, direction: min}
pareto: {group: hardware}
)");
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResultTable t = sweep(*l.study);
  const ParetoFronts f = study_fronts(*l.study, t);
  ASSERT_EQ(f.groups.size(), 3u);
  EXPECT_EQ(f.groups[0].labels.at(0).label, "a100_80gb_sxm");
  std::vector<std::size_t> all;
  for (const ParetoGroup& g : f.groups) {
    std::vector<std::uint8_t> in(t.rows(), 0);
    for (std::size_t r = 0; r < t.rows(); ++r) {
      in[r] = t.label(r, 0) == g.labels[0].label && t.status[r] == PointStatus::ok;
    }
    std::vector<double> values;
    for (std::size_t r = 0; r < t.rows(); ++r) {
      values.push_back(t.metric(r, static_cast<std::size_t>(t.metric_column("latency_s"))));
      values.push_back(t.metric(r, static_cast<std::size_t>(t.metric_column("energy_per_sample_j"))));
    }
    const std::vector<Direction> dirs = {Direction::minimize, Direction::minimize};
    EXPECT_EQ(g.front, pareto_front(values, dirs, in));
    all.insert(all.end(), g.front.begin(), g.front.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(f.rows, all);
}

// Epsilon thinning against brute force on random fronts: the kept rows are front rows, no two share
// a box, and every front row is within a factor (1 + e) of a kept row in every objective.
TEST(Fronts, EpsilonThinningKeepsAnEpsilonCoverOfTheFront) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t n = 400;
    std::vector<double> v(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const double t = u(rng);
      v[2 * i] = std::exp(3 * t) * (1 + 0.05 * u(rng));      // a dense, convex front with noise
      v[2 * i + 1] = std::exp(3 * (1 - t)) * (1 + 0.05 * u(rng));
    }
    if (trial % 2 == 1) v[2] = v[0], v[3] = v[1];  // an exact duplicate
    const std::vector<Direction> dirs = {Direction::minimize, trial % 3 == 0 ? Direction::maximize : Direction::minimize};
    if (dirs[1] == Direction::maximize) {
      for (std::size_t i = 0; i < n; ++i) v[2 * i + 1] = 1 / v[2 * i + 1];
    }
    const std::vector<std::size_t> front = pareto_front(v, dirs);
    const std::vector<double> eps = {0.05, 0.1};
    const std::vector<std::size_t> kept = epsilon_thin(v, dirs, front, eps);
    ASSERT_FALSE(kept.empty());
    EXPECT_LT(kept.size(), front.size());
    for (std::size_t k : kept) EXPECT_TRUE(std::binary_search(front.begin(), front.end(), k));
    const auto badness = [&](std::size_t r, std::size_t i) {
      return dirs[i] == Direction::minimize ? v[2 * r + i] : 1 / v[2 * r + i];
    };
    for (std::size_t a = 0; a < kept.size(); ++a) {
      for (std::size_t b = a + 1; b < kept.size(); ++b) {
        bool same = true;
        for (std::size_t i = 0; i < 2; ++i) {
          same = same && std::floor(std::log(badness(kept[a], i)) / std::log1p(eps[i])) ==
                             std::floor(std::log(badness(kept[b], i)) / std::log1p(eps[i]));
        }
        EXPECT_FALSE(same) << "rows " << kept[a] << " and " << kept[b] << " share a box";
      }
    }
    for (std::size_t r : front) {
      const bool covered = std::any_of(kept.begin(), kept.end(), [&](std::size_t k) {
        return badness(k, 0) <= (1 + eps[0]) * badness(r, 0) * (1 + 1e-12) &&
               badness(k, 1) <= (1 + eps[1]) * badness(r, 1) * (1 + 1e-12);
      });
      EXPECT_TRUE(covered) << "front row " << r << " has no kept row within the epsilon factors";
    }
  }
}

TEST(AnalysisStore, TablesAreWrittenWholeAndReadBack) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_analysis_store_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    ResultStore store(result_store_path(dir.string()));
    StoreTable t;
    t.name = "breakeven";
    t.columns = {{"analysis", StoreTable::Type::text}, {"along_value", StoreTable::Type::real},
                 {"evaluations", StoreTable::Type::integer}};
    t.add_row({"a"}, {1.5, 7});
    t.add_row({"b"}, {std::nan(""), 0});
    EXPECT_THROW(t.add_row({"c", "d"}, {1, 2}), std::logic_error);
    store.write_table(t);
    store.write_table(t);  // replaces, never appends
    StoreTable reserved = t;
    reserved.name = "results";
    EXPECT_THROW(store.write_table(reserved), std::logic_error);
  }
  ResultStore store(result_store_path(dir.string()), StoreMode::read_only);
  const auto back = store.read_table("breakeven");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->rows, 2u);
  EXPECT_EQ(back->text, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(back->numbers[0], 1.5);
  EXPECT_EQ(back->numbers[1], 7);
  EXPECT_TRUE(std::isnan(back->numbers[2]));
  EXPECT_EQ(back->columns[2].type, StoreTable::Type::integer);
  EXPECT_FALSE(store.read_table("sensitivity").has_value());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dsx
