// The result identity (dse/result_identity.hpp): the same for a study and its resolved file and
// for edits of prose, different for every edit that changes what a sweep stores.
#include "dse/result_identity.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "dse/study.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = DSX_SOURCE_DIR;
const std::string kFixtureCatalog = kSourceDir + "/tests/malformed/catalog";

ResolvedStudy load(const std::string& text) {
  Diagnostics d;
  auto study = load_study_text("t.yaml", text, kFixtureCatalog, d);
  if (!study) throw std::runtime_error(d.format() + "\n" + text);
  return std::move(*study);
}

std::string identity(const std::string& text) { return result_identity(load(text)); }

// `text` with its first `from` replaced by `to` (which must be there).
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in\n" + text);
  return text.replace(at, from.size(), to);
}

const char* const kStudy = R"yaml(study: identity
title: "Identity"
question: "Which edits throw a sweep away?"
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  model: [lab07_kws, lab07_gpt2_layer]
  launch_overhead: [5 us, 10 us]
fixed:
  precision: fp16
  eta: 0.5
objectives:
  - {metric: latency_s, direction: min}
  - {metric: energy_j, direction: min}
derived:
  - {name: slow_s, expr: "latency_s * 2", unit: s}
constraints:
  - {name: quick, expr: "latency_s < 1"}
filters:
  - {name: some, expr: "energy_j > 0"}
assertions:
  - {name: any_quick, expr: "latency_s < 1", require: any}
top_k: 2
compare:
  - name: "KWS eager utilization"
    where: {model: lab07_kws, launch_overhead: 10 us, hardware: a100_80gb_sxm, execution: eager}
    metric: gpu_utilization
    expected: 0.333
    tolerance: 0.01
    source: "seeds/000 lab_07 Act 1"
    explanation: "why"
sections:
  - title: "Predict first"
    text: "What fraction?"
figures:
  - name: pareto
    kind: scatter
    title: "Latency vs energy"
    caption: "Each point is a design."
    x: latency_s
    y: energy_j
    group: hardware
    pareto: true
breakeven:
  - name: launch
    metric: latency_s
    along: launch_overhead
    alternatives: hardware
)yaml";

// TPU chips have no calibrated factor of their own (factor 1); with the chip set by a node axis the
// study once kept a per-chip scaling its resolved file, which holds only these chips, did not.
TEST(ResultIdentity, ChipsWithoutAFactorOfTheirOwnKeepItThroughTheResolvedFile) {
  const std::string text =
      "study: s\ntitle: t\nquestion: q\nsolver: training\naxes:\n  node: [tpu_v6e_pod, trn2_48xlarge]\nfixed:\n  model: llama3_8b\n"
      "  gpus: 256\n  tp: 4\n  micro_batch: 1\n  global_batch: 256\n";
  Diagnostics d;
  const auto study = load_study_text("s.yaml", text, kSourceDir + "/studies/catalog", d);
  ASSERT_TRUE(study.has_value()) << d.format();
  EXPECT_TRUE(study->hardware_scaled.empty());
  Diagnostics again;
  const auto reloaded = load_study_text("resolved.yaml", resolved_study_yaml(*study), "", again);
  ASSERT_TRUE(reloaded.has_value()) << again.format();
  EXPECT_EQ(result_identity(*reloaded), result_identity(*study));
}

TEST(ResultIdentity, ShippedStudiesKeepItThroughTheirResolvedFile) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/studies")) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    Diagnostics d;
    const auto study = load_study(entry.path().string(), kSourceDir + "/studies/catalog", d);
    ASSERT_TRUE(study.has_value()) << d.format();
    Diagnostics again;
    const auto reloaded = load_study_text("resolved.yaml", resolved_study_yaml(*study), "", again);
    ASSERT_TRUE(reloaded.has_value()) << again.format();
    EXPECT_EQ(result_identity(*reloaded), result_identity(*study)) << entry.path();
    EXPECT_EQ(catalog_hash(reloaded->catalog), catalog_hash(study->catalog)) << entry.path();
  }
  EXPECT_GE(count, 1);
}

// Generated axis values (ranges, log scales) and catalog entries a study adds come back from the
// resolved file with the same values, so its identity holds there too.
TEST(ResultIdentity, RangesAndAddedCatalogEntriesKeepItThroughTheResolvedFile) {
  const std::string text = R"yaml(study: ranges
title: "Ranges"
question: "Q?"
solver: inference
catalog:
  hardware:
    - {id: h100_fast, base: h100_sxm, memory_bandwidth: 4 TB/s, source: "what-if: faster HBM"}
axes:
  hardware: [a100_80gb_sxm, h100_fast]
  batch: {from: 1, to: 256, scale: log, count: 9}
  launch_overhead: {from: 5 us, to: 20 us, step: 5 us}
  eta: {from: 0.3, to: 0.6, step: 0.1}
fixed:
  model: lab07_kws
  precision: fp16
keep: {front: true, top_k: 1}
objectives:
  - {metric: latency_s, direction: min}
  - {metric: energy_j, direction: min}
)yaml";
  const ResolvedStudy study = load(text);
  Diagnostics d;
  const auto reloaded = load_study_text("resolved.yaml", resolved_study_yaml(study), "", d);
  ASSERT_TRUE(reloaded) << d.format();
  EXPECT_EQ(result_identity(*reloaded), result_identity(study));
  EXPECT_EQ(catalog_hash(reloaded->catalog), catalog_hash(study.catalog));
}

TEST(ResultIdentity, ProseFiguresAndReportTimeAnalysesDoNotChangeIt) {
  const std::string base = identity(kStudy);
  EXPECT_EQ(base.size(), 16U);
  EXPECT_EQ(identity(edited(kStudy, "title: \"Identity\"", "title: \"Another title\"")), base);
  EXPECT_EQ(identity(edited(kStudy, "study: identity", "study: renamed")), base);
  EXPECT_EQ(identity(edited(kStudy, "Which edits", "Which changes")), base);
  EXPECT_EQ(identity(edited(kStudy, "title: \"Predict first\"", "title: \"Guess\"")), base);
  EXPECT_EQ(identity(edited(kStudy, "What fraction?", "Which share?")), base);
  EXPECT_EQ(identity(edited(kStudy, "Each point is a design.", "A new caption.")), base);
  EXPECT_EQ(identity(edited(kStudy, "group: hardware\n    pareto", "group: model\n    pareto")), base);
  EXPECT_EQ(identity(edited(kStudy, "    pareto: true\n", "    pareto: true\n    keep_script: true\n")), base);
  EXPECT_EQ(identity(edited(kStudy, "expected: 0.333", "expected: 0.4")), base);
  EXPECT_EQ(identity(edited(kStudy, "explanation: \"why\"", "explanation: \"because\"")), base);
  EXPECT_EQ(identity(edited(kStudy, "metric: latency_s\n    along", "metric: energy_j\n    along")), base);
  EXPECT_EQ(identity(edited(kStudy, "eta: 0.5", "eta: 5e-1")), base);       // the same value
  // Every row is kept: formulas, objectives and comparisons are applied when the report renders.
  EXPECT_EQ(identity(edited(kStudy, "latency_s * 2", "latency_s * 3")), base);
  EXPECT_EQ(identity(edited(kStudy, "expr: \"latency_s < 1\"}", "expr: \"latency_s < 2\"}")), base);
  EXPECT_EQ(identity(edited(kStudy, "direction: min}\n  - {metric: energy_j", "direction: max}\n  - {metric: energy_j")), base);
  EXPECT_EQ(identity(edited(kStudy, "top_k: 2", "top_k: 3")), base);
  EXPECT_EQ(identity(edited(kStudy, "launch_overhead: 10 us, hardware", "launch_overhead: 5 us, hardware")), base);
}

TEST(ResultIdentity, WhatASweepStoresChangesIt) {
  const std::string base = identity(kStudy);
  EXPECT_NE(identity(edited(kStudy, "[5 us, 10 us]", "[5 us, 10 us, 20 us]")), base);  // an axis value
  EXPECT_NE(identity(edited(kStudy, "[5 us, 10 us]", "[10 us, 5 us]")), base);          // their order
  EXPECT_NE(identity(edited(kStudy, "[5 us, 10 us]", "[5 us, 0.01 ms]")), base);        // a label
  EXPECT_NE(identity(edited(kStudy, "[lab07_kws, lab07_gpt2_layer]", "[lab07_kws]")), base);
  EXPECT_NE(identity(edited(kStudy, "eta: 0.5", "eta: 0.6")), base);                    // a fixed input
  EXPECT_NE(identity(edited(kStudy, "  eta: 0.5\n", "  eta: 0.5\n  batch: 2\n")), base);  // a default overridden
  EXPECT_NE(identity(edited(kStudy, "top_k: 2\n", "top_k: 2\ngrid_constraints:\n  - {name: g, expr: \"batch > 0\"}\n")),
            base);
  EXPECT_NE(identity(edited(kStudy, "top_k: 2\n", "top_k: 2\nkeep: {front: true}\n")), base);
}

// A calibration profile changes the rows through the values it gives parameters.
TEST(ResultIdentity, TheCalibrationProfileCountsThroughTheValuesItSets) {
  const std::string gemm =
      "study: g\ntitle: G\nquestion: Q?\nsolver: gemm\naxes:\n  m: [1024, 4096]\n"
      "fixed:\n  hardware: h100_sxm\n  precision: fp8\n  n: 1024\n  k: 1024\n";
  const auto with_catalog = [](const std::string& text) {
    Diagnostics d;
    auto study = load_study_text("g.yaml", text, kSourceDir + "/studies/catalog", d);
    if (!study) throw std::runtime_error(d.format());
    return result_identity(*study);
  };
  const std::string calibrated = with_catalog(gemm);
  EXPECT_NE(with_catalog(gemm + "calibration: none\n"), calibrated);
  EXPECT_EQ(with_catalog(gemm + "calibration: default\n"), calibrated);
  // Every parameter it fits given by hand: the profile then sets nothing the rows depend on.
  const std::string by_hand = gemm + "  eta: 0.5\n  memory_efficiency: 0.5\n  launch_overhead: 5 us\n";
  EXPECT_EQ(with_catalog(by_hand + "calibration: none\n"), with_catalog(by_hand));
}

TEST(ResultIdentity, WhenOnlySomeRowsAreKeptTheRulesThatChooseThemCount) {
  const std::string keep = edited(kStudy, "top_k: 2\n", "top_k: 2\nkeep: {front: true, sample: 3}\n");
  const std::string base = identity(keep);
  EXPECT_NE(identity(edited(keep, "sample: 3", "sample: 4")), base);
  EXPECT_NE(identity(edited(keep, "latency_s * 2", "latency_s * 3")), base);
  EXPECT_NE(identity(edited(keep, "expr: \"latency_s < 1\"}", "expr: \"latency_s < 2\"}")), base);
  EXPECT_NE(identity(edited(keep, "expr: \"energy_j > 0\"", "expr: \"energy_j > 1\"")), base);
  EXPECT_NE(identity(edited(keep, "require: any", "require: all")), base);
  EXPECT_NE(identity(edited(keep, "direction: min}\n  - {metric: energy_j", "direction: max}\n  - {metric: energy_j")),
            base);
  EXPECT_NE(identity(edited(keep, "top_k: 2", "top_k: 3")), base);
  EXPECT_NE(identity(edited(keep, "top_k: 2\n", "top_k: 2\npareto: {group: model}\n")), base);
  EXPECT_NE(identity(edited(keep, "launch_overhead: 10 us, hardware", "launch_overhead: 5 us, hardware")), base);
  // Still prose and report-time analyses.
  EXPECT_EQ(identity(edited(keep, "Each point is a design.", "A new caption.")), base);
  EXPECT_EQ(identity(edited(keep, "expected: 0.333", "expected: 0.4")), base);
  EXPECT_EQ(identity(edited(keep, "metric: latency_s\n    along", "metric: energy_j\n    along")), base);
  EXPECT_EQ(identity(edited(keep, "name: quick,", "name: fast,")), base);
}

}  // namespace
}  // namespace dsx
