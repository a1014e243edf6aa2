// An optional second hardware parameter (serving's prefill_hardware) from a study: none or a catalog
// id on an axis, the grid pointing PointInputs::second_hardware at it, the calibration's per-chip
// factor of the prefill eta following the prefill chip, the resolved study and the result identity.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dse/analysis/derived.hpp"
#include "dse/analysis/sensitivity.hpp"
#include "dse/calibration/profile.hpp"
#include "dse/grid.hpp"
#include "dse/result_identity.hpp"
#include "dse/study.hpp"
#include "engine/solvers/serving.hpp"
#include "tests/dse/study_text.hpp"

namespace dsx {
namespace {

const std::string kCatalog = std::string(DSX_SOURCE_DIR) + "/studies/catalog";

// Splitwise-HA (Patel et al. 2024, arXiv:2311.18677): A100 decode, H100 prefill.
const std::string kStudy =
    "study: t\ntitle: T\nquestion: Q?\nsolver: serving\n"
    "axes:\n  prefill_hardware: [none, h100_sxm]\n"
    "fixed:\n  hardware: a100_80gb_sxm\n  model: llama3_8b\n  precision: fp16\n  batch: 16\n  disaggregated: on\n";

Loaded load(const std::string& text) { return load_study_for_test(text, kCatalog); }

const Axis& axis(const ResolvedStudy& s, std::string_view param) {
  for (const Axis& a : s.axes) {
    if (a.param == param) return a;
  }
  throw std::runtime_error("no axis " + std::string(param));
}

std::vector<std::string> labels(const Axis& a) {
  std::vector<std::string> out;
  for (const AxisValue& v : a.values) out.push_back(v.label);
  return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "'");
  return text.replace(at, from.size(), to);
}

// kStudy with a batch axis instead of the prefill_hardware axis; fixed: is last, so lines appended
// to it are fixed values.
std::string one_point() {
  return replaced(replaced(kStudy, "axes:\n  prefill_hardware: [none, h100_sxm]\n", "axes:\n  batch: [16]\n"),
                  "  batch: 16\n", "");
}

TEST(PrefillHardwareStudy, TakesNoneOrACatalogIdAndReachesTheGrid) {
  const Loaded l = load(kStudy);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& s = *l.study;
  EXPECT_EQ(labels(axis(s, "prefill_hardware")), (std::vector<std::string>{"none", "h100_sxm"}));
  EXPECT_EQ(axis(s, "prefill_hardware").values[0].value, -1.0);
  EXPECT_EQ(s.catalog.hardware_ids(), (std::vector<std::string>{"a100_80gb_sxm", "h100_sxm"}));
  const Grid grid(s);
  PointInputs none, h100;
  grid.inputs(0, none);
  grid.inputs(1, h100);
  EXPECT_EQ(none.second_hardware, nullptr);
  ASSERT_NE(h100.second_hardware, nullptr);
  EXPECT_EQ(h100.second_hardware->id, "h100_sxm");
  EXPECT_EQ(h100.hardware->id, "a100_80gb_sxm");
  // The resolved study loads back to the same axis, catalog and identity.
  Diagnostics again;
  const auto reloaded = load_study_text("resolved.yaml", resolved_study_yaml(s), "", again);
  ASSERT_TRUE(reloaded) << again.format();
  EXPECT_EQ(labels(axis(*reloaded, "prefill_hardware")), labels(axis(s, "prefill_hardware")));
  EXPECT_EQ(reloaded->catalog.hardware_ids(), s.catalog.hardware_ids());
  EXPECT_EQ(result_identity(*reloaded), result_identity(s));
}

TEST(PrefillHardwareStudy, TheCalibratedPrefillEtaTakesThePrefillChipsFactor) {
  // The default profile scales serving's eta by the chip's compute factor (A100 1.248, H100 1.048):
  // with an H100 prefill pool the prefill eta is the H100's; without one, the decode chip's.
  const Loaded l = load(kStudy);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& s = *l.study;
  ASSERT_NE(s.calibration, nullptr);
  const FittedParameter* eta = s.calibration->parameter("serving", "eta");
  ASSERT_NE(eta, nullptr);
  const auto scaled = [&](const char* chip) {
    return hardware_scaled_value(eta->value, s.calibration->hardware_factor("compute", chip), 1.0);
  };
  const Grid grid(s);
  PointInputs none, h100;
  grid.inputs(0, none);
  grid.inputs(1, h100);
  EXPECT_DOUBLE_EQ(none.values[ServingSolver::eta], scaled("a100_80gb_sxm"));
  EXPECT_DOUBLE_EQ(h100.values[ServingSolver::eta], scaled("h100_sxm"));
  EXPECT_NE(scaled("a100_80gb_sxm"), scaled("h100_sxm"));
  // The order of the axes does not matter: the prefill chip wins wherever it is set.
  const std::string swapped = replaced(
      replaced(kStudy, "axes:\n  prefill_hardware: [none, h100_sxm]\n", "axes:\n  prefill_hardware: [h100_sxm]\n  hardware: [a100_80gb_sxm]\n"),
      "  hardware: a100_80gb_sxm\n", "");
  const Loaded w = load(swapped);
  ASSERT_TRUE(w.study) << w.diagnostics;
  PointInputs one;
  Grid(*w.study).inputs(0, one);
  EXPECT_DOUBLE_EQ(one.values[ServingSolver::eta], scaled("h100_sxm"));
  // One prefill chip for the whole study: the fixed label says which chip's factor it is.
  const Loaded f = load(one_point() + "  prefill_hardware: h100_sxm\n");
  ASSERT_TRUE(f.study) << f.diagnostics;
  EXPECT_NE(f.study->calibration_origin[ServingSolver::eta].find("of h100_sxm"), std::string::npos)
      << f.study->calibration_origin[ServingSolver::eta];
}

TEST(PrefillHardwareStudy, TheIdentityCoversItAndNoneIsTheDefault) {
  const std::string without = one_point();
  const std::string none = without + "  prefill_hardware: none\n";
  const std::string h100 = without + "  prefill_hardware: h100_sxm\n";
  const auto identity = [](const std::string& text) {
    const Loaded l = load(text);
    if (!l.study) throw std::runtime_error(l.diagnostics);
    return result_identity(*l.study);
  };
  EXPECT_EQ(identity(none), identity(without));
  EXPECT_NE(identity(h100), identity(none));
}

TEST(PrefillHardwareStudy, AMisspeltIdNamesTheClosestChoice) {
  const Loaded bad = load(replaced(kStudy, "[none, h100_sxm]", "[none, h100_sx]"));
  EXPECT_FALSE(bad.study);
  EXPECT_NE(bad.diagnostics.find("t.yaml:6:"), std::string::npos) << bad.diagnostics;
  EXPECT_NE(bad.diagnostics.find("did you mean 'h100_sxm'"), std::string::npos) << bad.diagnostics;
  // The first hardware has no default: none is not a chip.
  const Loaded no_chip = load(replaced(kStudy, "hardware: a100_80gb_sxm", "hardware: none"));
  EXPECT_FALSE(no_chip.study);
}

// Expressions read the prefill chip's catalog values under the parameter's name; without a prefill
// chip they are the decode chip's, which then prefills. hardware_* stays the decode chip's.
TEST(PrefillHardwareStudy, ExpressionsReadThePrefillChipsCatalogValues) {
  const Loaded l = load(kStudy +
                        "derived:\n"
                        "  - {name: prefill_watts, expr: \"prefill_hardware_tdp_w\", unit: W}\n"
                        "  - {name: prefill_bandwidth, expr: \"prefill_hardware_memory_bandwidth_bytes_per_s\"}\n"
                        "  - {name: prefill_peak, expr: \"prefill_hardware_peak_flops_per_s\"}\n"
                        "  - {name: decode_watts, expr: \"hardware_tdp_w\", unit: W}\n");
  ASSERT_TRUE(l.study) << l.diagnostics;
  const Grid grid(*l.study);
  ASSERT_EQ(grid.size(), 2u);
  PointFormulas formulas(*l.study);
  const std::vector<double> metrics(l.study->solver->metrics().size(), 0.0);
  PointInputs in;
  // NVIDIA datasheets: A100 80GB SXM 400 W, 2,039 GB/s, 312 TFLOP/s fp16; H100 SXM 700 W, 3.35 TB/s,
  // 989 TFLOP/s fp16 dense.
  grid.inputs(0, in);
  formulas.load(in, metrics, true);
  EXPECT_DOUBLE_EQ(formulas.derived(0), 400);
  EXPECT_DOUBLE_EQ(formulas.derived(1), 2.039e12);
  EXPECT_NEAR(formulas.derived(2), 312e12, 1e9);
  EXPECT_DOUBLE_EQ(formulas.derived(3), 400);
  grid.inputs(1, in);
  formulas.load(in, metrics, true);
  EXPECT_DOUBLE_EQ(formulas.derived(0), 700);
  EXPECT_DOUBLE_EQ(formulas.derived(1), 3.35e12);
  EXPECT_NEAR(formulas.derived(2), 989e12, 1e12);
  EXPECT_DOUBLE_EQ(formulas.derived(3), 400);
}

// A sensitivity input on a chip's field reaches the prefill chip too: doubling the H100's peak
// shortens the TTFT of A100 decode with H100 prefill, and the A100's own peak leaves that prefill alone.
TEST(PrefillHardwareStudy, ASensitivityInputScalesThePrefillChipsFields) {
  const Loaded l = load(kStudy);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const Grid grid(*l.study);
  SensitivityProblem p;
  p.solver = l.study->solver;
  grid.inputs(1, p.base);
  ASSERT_NE(p.base.second_hardware, nullptr);
  ASSERT_EQ(p.base.second_hardware->id, "h100_sxm");
  p.metric = ServingSolver::Metric::ttft_s;
  const auto field = [](std::string id) {
    UncertainInput in;
    in.name = id + ".peak_flops";
    in.target = InputTarget::hardware_field;
    in.field = HardwareField::peak_flops;
    in.hardware_id = std::move(id);
    in.lo = 0.5;
    in.hi = 2;
    return in;
  };
  p.inputs = {field("h100_sxm")};
  const ScalarModel on_prefill_chip = scalar_model(p);
  const double nominal = on_prefill_chip(std::vector<double>{1.0});
  ASSERT_TRUE(std::isfinite(nominal));
  EXPECT_LT(on_prefill_chip(std::vector<double>{2.0}), 0.8 * nominal);
  p.inputs = {field("a100_80gb_sxm")};
  const ScalarModel on_decode_chip = scalar_model(p);
  EXPECT_DOUBLE_EQ(on_decode_chip(std::vector<double>{2.0}), nominal);
  const UncertainInput on_prefill = field("h100_sxm");
  EXPECT_TRUE(input_bounds(*l.study->solver, on_prefill, p.base).max > 1);
}

}  // namespace
}  // namespace dsx
