// Measurement files, the calibration fit, profiles and the intervals they give a study.
//
// The fit tests use the efficiency solver over the frozen fixture catalog, whose prediction has a
// closed form: predicted items/s = devices x peak x eta / FLOPs per item. lab07_gpt2_layer is 20
// kernels x 500 us at 312 TFLOP/s x 0.5 = 1.56 TFLOP per pass; lab07_kws 1,000 x 5 us x 156 TFLOP/s
// = 780 GFLOP. At eta = 0.3: A100 (312 TFLOP/s) 60 and 120 items/s, H100 (989 TFLOP/s) 190.1923...
// and 380.3846... items/s.
#include "dse/calibration/fit.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/calibration/intervals.hpp"
#include "dse/calibration/measurements.hpp"
#include "dse/calibration/profile.hpp"
#include "dse/grid.hpp"
#include "dse/result_identity.hpp"
#include "dse/sweep.hpp"
#include "dse/yaml_reader.hpp"
#include "engine/registry.hpp"
#include "engine/solvers/training.hpp"
#include "output/accuracy_report.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

const std::string kFixtureCatalog = std::string(DSX_SOURCE_DIR) + "/tests/malformed/catalog";

const std::string kRegimes = R"(regimes:
  - name: batched
    description: "fixture regime"
    fit: [{parameter: efficiency.eta, prior: 0.5}]
    intervals:
      - {solver: efficiency, metrics: {predicted_throughput_items_per_s: rate}}
)";

// One measurement row of the efficiency solver.
std::string row(const std::string& id, const std::string& hardware, const std::string& model, const std::string& measured,
                const std::string& source) {
  return "  - id: " + id + "\n    regime: batched\n    solver: efficiency\n    inputs: {hardware: " + hardware +
         ", model: " + model + ", precision: fp16, regime: decode_batched, devices: 1, throughput: 1 /s, batch: 1}\n"
         "    metric: predicted_throughput_items_per_s\n    measured: " + measured + "\n    source: {citation: \"" +
         source + "\", url: \"https://example.org/" + source + "\", read: \"table 1\"}\n";
}

struct Loaded {
  std::optional<MeasurementSet> set;
  std::string diagnostics;
};

Loaded load(const TempDir& dir, const std::string& text) {
  const std::string file = dir.path() + "/m.yaml";
  std::ofstream(file) << text;
  Diagnostics d;
  Loaded out;
  out.set = load_measurements({file}, kFixtureCatalog, d);
  out.diagnostics = d.format();
  return out;
}

// The four rows at eta = 0.3, each measurement off by a known factor (1.05, 0.95, 1.02, 0.98).
std::string four_rows() {
  return kRegimes + "measurements:\n" + row("a100-gpt2", "a100_80gb_sxm", "lab07_gpt2_layer", "63 /s", "p1") +
         row("a100-kws", "a100_80gb_sxm", "lab07_kws", "114 /s", "p2") +
         row("h100-gpt2", "h100_sxm", "lab07_gpt2_layer", "193.99615384615385 /s", "p3") +
         row("h100-kws", "h100_sxm", "lab07_kws", "372.77692307692308 /s", "p4");
}

TEST(Measurements, ReadsRowsRegimesAndRowsDsxCannotPredict) {
  TempDir dir("measurements");
  const Loaded l = load(dir, four_rows() + "  - id: tpu\n    regime: batched\n    cannot_predict: \"no TPU in the catalog\"\n"
                                          "    workload: \"a TPU v5e pod\"\n    measured: 5 /s\n"
                                          "    source: {citation: \"p5\", read: \"figure 2\"}\n");
  ASSERT_TRUE(l.set) << l.diagnostics;
  ASSERT_EQ(l.set->rows.size(), 5u);
  EXPECT_TRUE(l.set->rows[0].predictable());
  EXPECT_DOUBLE_EQ(l.set->rows[0].measured, 63);
  EXPECT_EQ(l.set->rows[0].written, (std::vector<std::string>{"hardware", "model", "precision", "regime", "devices",
                                                               "throughput", "batch"}));
  EXPECT_FALSE(l.set->rows[4].predictable());
  EXPECT_EQ(l.set->rows[4].cannot_predict, "no TPU in the catalog");
  ASSERT_EQ(l.set->regimes.size(), 1u);
  ASSERT_TRUE(l.set->regimes[0].fit[0].prior);
  EXPECT_DOUBLE_EQ(*l.set->regimes[0].fit[0].prior, 0.5);
}

TEST(Measurements, ReportsEveryProblemAtItsPosition) {
  TempDir dir("measurements");
  const std::string text = kRegimes + R"(measurements:
  - id: a
    regime: batchd
    solver: efficiency
    inputs: {hardware: h100, model: lab07_kws, precision: fp16, regime: decode_batched, devices: 1, throughput: 1 /s, batch: 1}
    metric: predicted_throughput
    measured: 5
    source: {citation: "x", read: "y"}
  - id: a
    regime: batched
    solver: efficiency
    inputs: {hardware: h100_sxm, model: lab07_kws, precision: fp16, regime: decode_batched, devices: 1, throughput: 1 /s, batch: 1}
    metric: predicted_throughput_items_per_s
    measured: -5 /s
    source: {citation: "x", read: "y"}
)";
  const Loaded l = load(dir, text);
  EXPECT_FALSE(l.set);
  const std::string f = dir.path() + "/m.yaml";
  EXPECT_NE(l.diagnostics.find(f + ":9:13: error: unknown regime 'batchd' in measurements[0]; did you mean 'batched'?"),
            std::string::npos)
      << l.diagnostics;
  EXPECT_NE(l.diagnostics.find(f + ":12:13: error: unknown efficiency metric 'predicted_throughput' in measurements[0]; "
                                   "did you mean 'predicted_throughput_items_per_s'?"),
            std::string::npos)
      << l.diagnostics;
  EXPECT_NE(l.diagnostics.find(f + ":15:9: error: measurements[1]: id 'a' is used twice"), std::string::npos)
      << l.diagnostics;
  EXPECT_NE(l.diagnostics.find(f + ":20:15: error: measurements[1].measured = -5 /s is out of range"), std::string::npos)
      << l.diagnostics;
}

TEST(Measurements, AMissingUnitAndAnUnknownHardwareAreErrors) {
  TempDir dir("measurements");
  const Loaded l = load(dir, kRegimes + "measurements:\n" + row("a", "h100", "lab07_kws", "5", "p"));
  EXPECT_FALSE(l.set);
  EXPECT_NE(l.diagnostics.find("unknown hardware id 'h100'; did you mean 'h100_sxm'?"), std::string::npos) << l.diagnostics;
  EXPECT_NE(l.diagnostics.find("missing unit"), std::string::npos) << l.diagnostics;
}

TEST(Calibrate, RecoversTheEfficiencyTheMeasurementsImply) {
  TempDir dir("calibrate");
  const Loaded l = load(dir, four_rows());
  ASSERT_TRUE(l.set) << l.diagnostics;
  const Calibration c = calibrate(*l.set, {});
  ASSERT_EQ(c.profile.parameters.size(), 1u);
  const FittedParameter& eta = c.profile.parameters[0];
  EXPECT_TRUE(eta.identified);
  EXPECT_EQ(eta.rows, 4u);
  // Least squares in log space: log(eta / 0.3) = mean log(factor) = ln(1.05 x 0.95 x 1.02 x 0.98) / 4
  // = -0.000726, so eta = 0.29978 (the weak pull towards 0.5 moves it by 3e-5), kept to 4 digits.
  EXPECT_DOUBLE_EQ(eta.value, 0.2998);
  EXPECT_GT(eta.spread, 0);
  ASSERT_EQ(c.rows.size(), 4u);
  // In-sample the error of each row is the inverse of its factor: 63 measured, 60 predicted.
  EXPECT_NEAR(c.rows[0].predicted / 63, 60.0 * eta.value / 0.3 / 63, 1e-12);
  ASSERT_EQ(c.profile.regimes.size(), 1u);
  const RegimeAccuracy& a = c.profile.regimes[0];
  EXPECT_EQ(a.rows, 4u);
  EXPECT_EQ(a.sources, 4u);
  EXPECT_TRUE(a.pooled);  // fewer than 5 held-out errors of its own: none other to pool, the same ones
  EXPECT_LE(a.log_error_p10, a.log_error_p90);
  // Mean absolute error in-sample: |(eta / 0.3) / factor - 1| averaged over the four factors with
  // eta / 0.3 = 0.999274: (0.04831 + 0.05187 + 0.02032 + 0.01967) / 4 = 0.03504.
  EXPECT_NEAR(a.mape, 0.03504, 2e-4);
}

// The four rows imply eta = 0.3; held at 0.4 (`fixed: true`) the fit leaves it there, the
// profile carries 0.4 and says so, and in-sample each row is predicted 0.4 / 0.3 of its eta = 0.3
// value (63 measured, 60 x 4/3 = 80 predicted).
TEST(Calibrate, AFixedParameterStaysAtItsPrior) {
  TempDir dir("calibrate");
  std::string text = four_rows();
  text.replace(text.find("prior: 0.5}"), std::string("prior: 0.5}").size(), "prior: 0.4, fixed: true}");
  const Loaded l = load(dir, text);
  ASSERT_TRUE(l.set) << l.diagnostics;
  const Calibration c = calibrate(*l.set, {});
  ASSERT_EQ(c.profile.parameters.size(), 1u);
  const FittedParameter& eta = c.profile.parameters[0];
  EXPECT_TRUE(eta.fixed);
  EXPECT_FALSE(eta.identified);
  EXPECT_DOUBLE_EQ(eta.value, 0.4);
  EXPECT_EQ(eta.rows, 4u);
  EXPECT_NEAR(c.rows[0].predicted, 80.0, 1e-9);
  EXPECT_NEAR(c.rows[0].predicted_cv, 80.0, 1e-9);  // held out too
  const std::string written = profile_yaml(c.profile);
  EXPECT_NE(written.find("value: 0.4, spread: 0, prior: 0.4, identified: false, rows: 4, fixed: true}"), std::string::npos)
      << written;
  // Fixed needs the value it is held at.
  text = four_rows();
  text.replace(text.find(", prior: 0.5}"), std::string(", prior: 0.5}").size(), ", fixed: true}");
  const Loaded bad = load(dir, text);
  EXPECT_FALSE(bad.set);
  EXPECT_NE(bad.diagnostics.find("fixed: a fixed parameter is held at its prior"), std::string::npos) << bad.diagnostics;
}

TEST(Calibrate, OneOutlierMovesTheFitLittle) {
  TempDir dir("calibrate");
  // A fifth row, from a fifth source, measured 3x the prediction at eta = 0.3 (A100, gpt2: 180 /s).
  const Loaded l = load(dir, four_rows() + row("outlier", "a100_80gb_sxm", "lab07_gpt2_layer", "180 /s", "p5"));
  ASSERT_TRUE(l.set) << l.diagnostics;
  const Calibration c = calibrate(*l.set, {});
  // Plain least squares would move log(eta) by ln(3) / 5 = 0.22 (eta 0.37); the Huber loss bounds
  // the outlier's pull to its cut-off.
  EXPECT_NEAR(c.profile.parameters[0].value, 0.3, 0.3 * 0.03);
}

TEST(Calibrate, AParameterTooFewRowsConstrainKeepsItsDefault) {
  TempDir dir("calibrate");
  const Loaded l = load(dir, kRegimes + "measurements:\n" + row("a", "a100_80gb_sxm", "lab07_kws", "120 /s", "p1") +
                                 row("b", "h100_sxm", "lab07_kws", "380 /s", "p1"));
  ASSERT_TRUE(l.set) << l.diagnostics;
  const Calibration c = calibrate(*l.set, {});
  EXPECT_FALSE(c.profile.parameters[0].identified);
  EXPECT_DOUBLE_EQ(c.profile.parameters[0].value, 0.5);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes[0].find("efficiency.eta is not identified (2 measurements constrain it"), std::string::npos)
      << c.notes[0];
}

TEST(Calibrate, LeavingOneSourceOutPredictsEachRowWithoutIt) {
  TempDir dir("calibrate");
  const Loaded l = load(dir, four_rows());
  ASSERT_TRUE(l.set) << l.diagnostics;
  const Calibration c = calibrate(*l.set, {});
  // Held out, a row is predicted by eta fitted on the other three: log(eta / 0.3) = the mean
  // log factor of the others. For a100-gpt2 (1.05): mean of ln 0.95, ln 1.02, ln 0.98 = -0.014995.
  const double eta_without_first = 0.3 * std::exp((std::log(0.95) + std::log(1.02) + std::log(0.98)) / 3);
  // eta_without_first = 0.29487 (0.2949 to 4 digits, the pull towards 0.5 adds 4e-5).
  EXPECT_NEAR(c.rows[0].predicted_cv, 60 * eta_without_first / 0.3, 60 * 4e-4);
  const double held_out_error = std::log(c.rows[0].predicted_cv / 63);
  EXPECT_NEAR(c.rows[0].log_error_cv, held_out_error, 1e-12);
}

// A row of `row` whose source names a campaign.
std::string in_campaign(std::string text, const std::string& campaign) {
  const std::string read = "read: \"table 1\"}";
  text.replace(text.find(read), read.size(), "read: \"table 1\", campaign: " + campaign + "}");
  return text;
}

// Two documents of one benchmark campaign (p1, p2: two URLs) are one fold: each of their rows is
// predicted by eta fitted on p3, p4 and p5 alone, log(eta / 0.3) = the mean of ln 1.02, ln 0.98 and
// ln 1.01 (the pull towards the prior 0.5 moves it by under 4e-4 of itself).
TEST(Calibrate, ACampaignSpanningTwoUrlsIsOneFold) {
  TempDir dir("calibrate");
  const std::string rows = kRegimes + "measurements:\n" +
                           in_campaign(row("a100-gpt2", "a100_80gb_sxm", "lab07_gpt2_layer", "63 /s", "p1"), "run-1") +
                           in_campaign(row("a100-kws", "a100_80gb_sxm", "lab07_kws", "114 /s", "p2"), "run-1") +
                           row("h100-gpt2", "h100_sxm", "lab07_gpt2_layer", "193.99615384615385 /s", "p3") +
                           row("h100-kws", "h100_sxm", "lab07_kws", "372.77692307692308 /s", "p4") +
                           row("a100-gpt2-b", "a100_80gb_sxm", "lab07_gpt2_layer", "60.6 /s", "p5");
  const Loaded l = load(dir, rows);
  ASSERT_TRUE(l.set) << l.diagnostics;
  EXPECT_EQ(l.set->rows[0].source.key(), l.set->rows[1].source.key());
  EXPECT_NE(l.set->rows[0].source.url, l.set->rows[1].source.url);
  const Calibration c = calibrate(*l.set, {});
  const double eta_without_campaign = 0.3 * std::exp((std::log(1.02) + std::log(0.98) + std::log(1.01)) / 3);
  EXPECT_NEAR(c.rows[0].predicted_cv, 60 * eta_without_campaign / 0.3, 60 * 4e-4);
  EXPECT_NEAR(c.rows[1].predicted_cv, 120 * eta_without_campaign / 0.3, 120 * 4e-4);
  ASSERT_EQ(c.profile.regimes.size(), 1U);
  EXPECT_EQ(c.profile.regimes[0].sources, 4U);
  // Without the campaign, p2's rows help predict p1's: the held-out eta of p1 takes 0.95 in.
  const Loaded apart = load(dir, four_rows() + row("a100-gpt2-b", "a100_80gb_sxm", "lab07_gpt2_layer", "60.6 /s", "p5"));
  ASSERT_TRUE(apart.set) << apart.diagnostics;
  const Calibration d = calibrate(*apart.set, {});
  const double eta_without_p1 =
      0.3 * std::exp((std::log(0.95) + std::log(1.02) + std::log(0.98) + std::log(1.01)) / 4);
  EXPECT_NEAR(d.rows[0].predicted_cv, 60 * eta_without_p1 / 0.3, 60 * 4e-4);
  EXPECT_EQ(d.profile.regimes[0].sources, 5U);
}

TEST(Measurements, ACampaignNameIsAnId) {
  TempDir dir("measurements");
  const Loaded l = load(dir, kRegimes + "measurements:\n" +
                                 in_campaign(row("a", "h100_sxm", "lab07_kws", "5 /s", "p"), "\"TRT LLM\""));
  EXPECT_FALSE(l.set);
  EXPECT_NE(l.diagnostics.find(dir.path() + "/m.yaml:14:87: error: measurements[0].source.campaign: 'TRT LLM' is not a "
                                             "valid campaign name: use a-z, 0-9, '_', '-' and '.'"),
            std::string::npos)
      << l.diagnostics;
}

// In-sample coverage: the share of rows whose measurement lies inside the interval the profile ships
// (exp(-p90) to exp(-p10) times the in-sample prediction, for a rate) around their in-sample
// prediction. Twenty rows of one source each at eta = 0.3: eighteen off by 0.2 % to 1.8 % either
// way and two far off (x 1.6 and x 0.6). The interval's ends are the split-conformal ranks of the
// held-out errors, floor(21 x 0.1) = 2 and ceil(21 x 0.9) = 19 of 20: the held-out errors of the
// two rows off by 1.8 %, so the near rows, whose in-sample errors are no larger, are inside and the
// two far ones outside: 18 of 20.
TEST(Calibrate, InSampleCoverageCountsTheRowsInsideTheShippedInterval) {
  TempDir dir("calibrate");
  const std::array<std::pair<const char*, const char*>, 4> points = {
      {{"a100_80gb_sxm", "lab07_gpt2_layer"}, {"a100_80gb_sxm", "lab07_kws"}, {"h100_sxm", "lab07_gpt2_layer"},
       {"h100_sxm", "lab07_kws"}}};
  const std::array<double, 4> at_eta_03 = {60, 120, 190.19230769230769, 380.38461538461538};  // the file's header
  std::vector<double> factors;
  for (int k = 1; k <= 9; ++k) {
    factors.push_back(1 + 0.002 * k);
    factors.push_back(1 - 0.002 * k);
  }
  factors.push_back(1.6);
  factors.push_back(0.6);
  std::string text = kRegimes + "measurements:\n";
  for (std::size_t i = 0; i < factors.size(); ++i) {
    const std::size_t j = i % points.size();
    const std::string n = std::to_string(i);
    std::string measured = std::to_string(at_eta_03[j] * factors[i]);
    measured += " /s";
    text += row(std::string(1, 'r') + n, points[j].first, points[j].second, measured, std::string(1, 'p') + n);
  }
  const Loaded l = load(dir, text);
  ASSERT_TRUE(l.set) << l.diagnostics;
  const Calibration c = calibrate(*l.set, {});
  ASSERT_EQ(c.profile.regimes.size(), 1U);
  const RegimeAccuracy& a = c.profile.regimes[0];
  ASSERT_EQ(a.rows, 20U);
  std::size_t inside = 0;
  for (const RowFit& f : c.rows) {
    const double ratio = l.set->rows[f.row].measured / f.predicted;
    const bool in = ratio >= std::exp(-a.log_error_p90) && ratio <= std::exp(-a.log_error_p10);
    EXPECT_EQ(f.covered, in) << l.set->rows[f.row].id;
    inside += in ? 1 : 0;
  }
  EXPECT_EQ(inside, 18U);
  EXPECT_DOUBLE_EQ(a.coverage, 0.9);
  EXPECT_FALSE(c.rows[18].covered);  // x 1.6
  EXPECT_FALSE(c.rows[19].covered);  // x 0.6
  const std::string table = regime_table_text(c);
  EXPECT_NE(table.find("cov in"), std::string::npos) << table;
  EXPECT_NE(table.find("90 %"), std::string::npos) << table;
}

// The rows of the per-chip tests: the A100 measured as if eta were 0.4, the H100 as if it were 0.25,
// three rows each from three sources.
std::string per_chip_rows() {
  const std::string regimes = R"(regimes:
  - name: batched
    fit: [{parameter: efficiency.eta, prior: 0.5, per_hardware: compute}]
    intervals:
      - {solver: efficiency, metrics: {predicted_throughput_items_per_s: rate}}
)";
  // At eta = 0.3: A100 60 and 120 items/s, H100 190.1923... and 380.3846... (the file's header).
  return regimes + "measurements:\n" + row("a1", "a100_80gb_sxm", "lab07_gpt2_layer", "80 /s", "p1") +
         row("a2", "a100_80gb_sxm", "lab07_kws", "160 /s", "p2") +
         row("a3", "a100_80gb_sxm", "lab07_gpt2_layer", "80 /s", "p3") +
         row("h1", "h100_sxm", "lab07_gpt2_layer", "158.49358974358974 /s", "p1") +
         row("h2", "h100_sxm", "lab07_kws", "316.98717948717949 /s", "p2") +
         row("h3", "h100_sxm", "lab07_gpt2_layer", "158.49358974358974 /s", "p3");
}

TEST(Calibrate, EachChipGetsAFactorPulledTowardsTheSharedValue) {
  TempDir dir("calibrate");
  const Loaded l = load(dir, per_chip_rows());
  ASSERT_TRUE(l.set) << l.diagnostics;
  const Calibration c = calibrate(*l.set, {});
  ASSERT_EQ(c.profile.parameters.size(), 1u);
  EXPECT_EQ(c.profile.parameters[0].per_hardware, "compute");
  // The loss is sum over rows (a + x_chip - t_chip)^2 + sum over chips x_chip^2, with a = log eta,
  // x = log factor, t = log of the eta the chip's rows imply. Its minimum, with 3 rows a chip:
  // x_chip = 3 (t_chip - a) / 4 and a = the mean of t over the chips (equal row counts), so
  // eta = sqrt(0.4 x 0.25) and each chip moves 3/4 of the way from it to its own eta.
  const double shared = std::sqrt(0.4 * 0.25);
  EXPECT_NEAR(c.profile.parameters[0].value, shared, shared * 2e-3);
  ASSERT_EQ(c.profile.hardware_factors.size(), 2u);
  const HardwareFactor& a100 = c.profile.hardware_factors[0];
  const HardwareFactor& h100 = c.profile.hardware_factors[1];
  EXPECT_EQ(a100.family, "compute");
  EXPECT_EQ(a100.hardware, "a100_80gb_sxm");
  EXPECT_EQ(h100.hardware, "h100_sxm");
  EXPECT_EQ(a100.rows, 3u);
  EXPECT_NEAR(a100.factor, std::pow(0.4 / shared, 0.75), 2e-3);
  EXPECT_NEAR(h100.factor, std::pow(0.25 / shared, 0.75), 2e-3);
  EXPECT_GT(a100.spread, 0);
  // In-sample, a row on the A100 is predicted at the shared eta times the A100's factor.
  EXPECT_NEAR(c.rows[0].predicted, 60 * c.profile.parameters[0].value * a100.factor / 0.3, 1e-9);
  EXPECT_DOUBLE_EQ(c.profile.hardware_factor("compute", "a100_80gb_sxm"), a100.factor);
  EXPECT_DOUBLE_EQ(c.profile.hardware_factor("compute", "b200"), 1.0);
  EXPECT_DOUBLE_EQ(c.profile.hardware_factor("attention", "a100_80gb_sxm"), 1.0);
}

TEST(Calibrate, WithoutAFamilyOneEtaServesEveryChip) {
  TempDir dir("calibrate");
  std::string text = per_chip_rows();
  text.replace(text.find(", per_hardware: compute"), std::string(", per_hardware: compute").size(), "");
  const Loaded l = load(dir, text);
  ASSERT_TRUE(l.set) << l.diagnostics;
  const Calibration c = calibrate(*l.set, {});
  EXPECT_TRUE(c.profile.hardware_factors.empty());
  // Every row is off by the same log ratio, so least squares sits at the geometric mean.
  EXPECT_NEAR(c.profile.parameters[0].value, std::sqrt(0.4 * 0.25), 2e-3);
}

TEST(Measurements, AFactorFamilyScalesOnlyContinuousQuantities) {
  TempDir dir("measurements");
  const std::string text = R"(regimes:
  - name: batched
    fit: [{parameter: efficiency.batch, prior: 4, per_hardware: compute}, {parameter: efficiency.eta, per_hardware: "no way"}]
)";
  const Loaded l = load(dir, text);
  EXPECT_FALSE(l.set);
  EXPECT_NE(l.diagnostics.find("per_hardware: efficiency.batch is a whole number"), std::string::npos) << l.diagnostics;
  EXPECT_NE(l.diagnostics.find("per_hardware: 'no way' is not a valid factor name"), std::string::npos) << l.diagnostics;
}

TEST(Profile, WritesAndReadsBackTheSameValues) {
  CalibrationProfile p;
  p.name = "mine";
  p.fitted_from = "data/";
  p.measurements = 7;
  p.predicted = 6;
  p.parameters.push_back({"efficiency", "eta", 0.2998, 0.0013, 0.5, true, 4, "compute"});
  p.hardware_factors.push_back({"compute", "h100_sxm", 0.8125, 0.04, 3});
  p.regimes.push_back({"batched", 6, 4, -0.1, 0.2, false, 0.031, 0.02, 0.06, 0.05, 0.5, 0.8, "batched inference"});
  p.intervals.push_back({"efficiency", "predicted_throughput_items_per_s", "batched", Orientation::rate, "batch <= 8"});
  const std::string text = profile_yaml(p);
  Diagnostics d;
  YamlReader r("p.yaml", d);
  const auto root = r.parse(text);
  ASSERT_TRUE(root);
  const auto back = read_profile(r, *root, "");
  ASSERT_TRUE(back) << d.format();
  EXPECT_EQ(profile_yaml(*back), text);
  EXPECT_EQ(back->intervals[0].when, "batch <= 8");
  EXPECT_DOUBLE_EQ(back->hardware_factor("compute", "h100_sxm"), 0.8125);
  EXPECT_DOUBLE_EQ(back->regimes[0].coverage, 0.5);
  EXPECT_DOUBLE_EQ(back->regimes[0].coverage_cv, 0.8);
}

TEST(Profile, AFactorNamesAFamilyOfItsParameters) {
  const std::string text = R"(profile: p
parameters:
  - {solver: efficiency, name: eta, value: 0.3, per_hardware: compute}
hardware_factors:
  - {family: compute, hardware: h100_sxm, factor: 0.8}
  - {family: compute, hardware: h100_sxm, factor: 0.9}
  - {family: comptue, hardware: a100_80gb_sxm, factor: 1.1}
  - {family: compute, hardware: a100_80gb_sxm, factor: -1}
)";
  Diagnostics d;
  YamlReader r("p.yaml", d);
  const auto root = r.parse(text);
  ASSERT_TRUE(root);
  EXPECT_FALSE(read_profile(r, *root, ""));
  const std::string out = d.format();
  EXPECT_NE(out.find("p.yaml:6:33: error: hardware_factors[1]: the compute factor of 'h100_sxm' is given twice"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("p.yaml:7:14: error: unknown per_hardware name 'comptue' in hardware_factors[2]; did you mean "
                     "'compute'? valid per_hardware names: compute"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("p.yaml:8:56: error: hardware_factors[3].factor = -1 is out of range"), std::string::npos) << out;
}

TEST(Profile, IntervalFactorsFollowTheOrientation) {
  RegimeAccuracy a;
  a.log_error_p10 = -0.1;  // measured speed up to e^0.1 above the prediction
  a.log_error_p90 = 0.2;   // down to e^-0.2 below it
  const IntervalFactors rate = interval_factors(a, Orientation::rate);
  EXPECT_DOUBLE_EQ(rate.low, std::exp(-0.2));
  EXPECT_DOUBLE_EQ(rate.high, std::exp(0.1));
  const IntervalFactors time = interval_factors(a, Orientation::time);
  EXPECT_DOUBLE_EQ(time.low, std::exp(-0.1));
  EXPECT_DOUBLE_EQ(time.high, std::exp(0.2));
}

const std::string kProfileInline = R"(calibration:
  profile: fixture
  parameters:
    - {solver: efficiency, name: eta, value: 0.3, spread: 0.01, prior: 0.5, identified: true, rows: 4}
  regimes:
    - {name: batched, rows: 6, sources: 4, log_error_p10: -0.1, log_error_p90: 0.2}
  intervals:
    - {solver: efficiency, metric: predicted_throughput_items_per_s, regime: batched, orientation: rate}
)";

std::string study_text(const std::string& calibration) {
  return "study: t\ntitle: T\nquestion: Q?\nsolver: efficiency\n" + calibration +
         "axes:\n  hardware: [a100_80gb_sxm, h100_sxm]\nfixed:\n  model: lab07_gpt2_layer\n  precision: fp16\n"
         "  regime: decode_batched\n  devices: 1\n  throughput: 1 /s\n  batch: 1\n"
         "derived:\n  - {name: seconds_per_item, expr: \"1 / predicted_throughput_items_per_s\", unit: s}\n";
}

TEST(StudyCalibration, TheProfileSetsDefaultsAndEveryCoveredMetricGetsAnInterval) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", study_text(kProfileInline), kFixtureCatalog, d);
  ASSERT_TRUE(study) << d.format();
  const std::size_t eta = 4;  // efficiency's parameters: hardware, model, precision, regime, eta
  ASSERT_EQ(study->solver->params()[eta].name, "eta");
  EXPECT_TRUE(study->calibrated[eta]);
  EXPECT_DOUBLE_EQ(study->fixed_values[eta], 0.3);
  EXPECT_EQ(study->calibration_name, "fixture");

  const Grid grid(*study);
  SweepBlock block;
  evaluate_block(grid, *study->solver, 0, grid.size(), 1, block);
  ResultTable table = make_result_table(*study);
  append_block(grid, block, table);
  const AnalysedRun run = analyse_run(*study, table);
  const ResultTable& t = run.table;
  const int value = t.metric_column("predicted_throughput_items_per_s");
  const int low = t.metric_column("predicted_throughput_items_per_s_p10");
  const int high = t.metric_column("predicted_throughput_items_per_s_p90");
  ASSERT_GE(low, 0);
  ASSERT_GE(high, 0);
  // A100: 312 TFLOP/s x 0.3 / 1.56 TFLOP = 60 items/s; a speed's interval is [60 e^-0.2, 60 e^0.1].
  EXPECT_NEAR(t.metric(0, static_cast<std::size_t>(value)), 60, 1e-9);
  EXPECT_NEAR(t.metric(0, static_cast<std::size_t>(low)), 60 * std::exp(-0.2), 1e-9);
  EXPECT_NEAR(t.metric(0, static_cast<std::size_t>(high)), 60 * std::exp(0.1), 1e-9);
  // The derived time per item inherits it inverted: [e^-0.1 / 60, e^0.2 / 60], within the
  // sampling's resolution (64 stratified draws).
  const int d_low = t.metric_column("seconds_per_item_p10");
  const int d_high = t.metric_column("seconds_per_item_p90");
  ASSERT_GE(d_low, 0);
  EXPECT_NEAR(t.metric(0, static_cast<std::size_t>(d_low)), std::exp(-0.1) / 60, 0.02 / 60);
  EXPECT_NEAR(t.metric(0, static_cast<std::size_t>(d_high)), std::exp(0.2) / 60, 0.02 / 60);
  EXPECT_EQ(run.interval_columns.size(), 4u);
}

// kProfileInline with the eta in family `compute` and the H100's factor of that family.
std::string profile_with_factor(const std::string& factor) {
  std::string p = kProfileInline;
  p.replace(p.find("rows: 4}"), 8, "rows: 4, per_hardware: compute}");
  p.replace(p.find("  regimes:"), 0, "  hardware_factors:\n    - {family: compute, hardware: h100_sxm, factor: " + factor + "}\n");
  return p;
}

TEST(StudyCalibration, AChipsFactorScalesTheEfficienciesOfItsFamily) {
  const auto throughput_per_chip = [](const std::string& factor, std::string* label, std::string* identity) {
    Diagnostics d;
    const auto study = load_study_text("t.yaml", study_text(profile_with_factor(factor)), kFixtureCatalog, d);
    EXPECT_TRUE(study) << d.format();
    if (!study) return std::vector<double>{};
    *label = study->fixed_labels[4];
    *identity = result_identity(*study);
    const Grid grid(*study);
    std::vector<double> out;
    for (std::uint64_t i = 0; i < grid.size(); ++i) {
      PointInputs in;
      grid.inputs(i, in);
      std::vector<double> metrics(study->solver->metrics().size());
      EXPECT_EQ(study->solver->evaluate(in, metrics).status, PointStatus::ok);
      std::size_t m = 0;
      while (study->solver->metrics()[m].name != "predicted_throughput_items_per_s") ++m;
      out.push_back(metrics[m]);
      out.push_back(in.values[4]);
    }
    return out;
  };
  std::string label, identity, identity_other, ignored;
  // Points: A100, H100. The A100 has no factor: eta 0.3, 60 items/s. The H100's eta is 0.3 x 1.5.
  const std::vector<double> scaled = throughput_per_chip("1.5", &label, &identity);
  ASSERT_EQ(scaled.size(), 4u);
  EXPECT_DOUBLE_EQ(scaled[1], 0.3);
  EXPECT_NEAR(scaled[0], 60, 1e-9);
  EXPECT_DOUBLE_EQ(scaled[3], 0.3 * 1.5);
  EXPECT_NEAR(scaled[2], 190.19230769230769 * 1.5, 1e-6);
  EXPECT_EQ(label, "0.3 x compute factor of the chip");
  // A factor that would put eta past 1 stops at 1.
  const std::vector<double> capped = throughput_per_chip("4", &ignored, &identity_other);
  EXPECT_DOUBLE_EQ(capped[3], 1.0);
  // A resumed run must not reuse rows computed with another factor.
  EXPECT_NE(identity, identity_other);
  // A study of one chip states the value that chip gets and where it comes from.
  {
    std::string one_chip = study_text(profile_with_factor("1.5"));
    one_chip.replace(one_chip.find("[a100_80gb_sxm, h100_sxm]"), std::string("[a100_80gb_sxm, h100_sxm]").size(), "[h100_sxm]");
    Diagnostics d;
    const auto study = load_study_text("t.yaml", one_chip, kFixtureCatalog, d);
    ASSERT_TRUE(study) << d.format();
    EXPECT_EQ(study->fixed_labels[4], "0.45");
    EXPECT_EQ(study->calibration_origin[4], "0.3 x compute factor 1.5 of h100_sxm");
    EXPECT_DOUBLE_EQ(study->fixed_values[4], 0.45);
  }
  // A profile whose factors leave every chip of the study at 1 changes nothing.
  const std::vector<double> one = throughput_per_chip("1", &label, &ignored);
  EXPECT_DOUBLE_EQ(one[3], 0.3);
  EXPECT_EQ(label, "0.3");
}

TEST(StudyCalibration, AnEntryCopiedFromAMeasuredChipSharesItsFactor) {
  // A what-if H100 with faster memory is still an H100 to its kernels: it takes the H100's factor,
  // and the resolved study, which writes the entry in full, keeps it.
  std::string text = study_text(profile_with_factor("1.5"));
  text = replaced(text, "[a100_80gb_sxm, h100_sxm]", "[a100_80gb_sxm, h100_sxm, h100_fast]");
  text = replaced(text, "axes:\n",
                  "catalog:\n  hardware:\n    - {id: h100_fast, base: h100_sxm, memory_bandwidth: 4 TB/s, "
                  "source: \"what-if\"}\naxes:\n");
  Diagnostics d;
  const auto study = load_study_text("t.yaml", text, kFixtureCatalog, d);
  ASSERT_TRUE(study) << d.format();
  ASSERT_EQ(study->hardware_scaled.size(), 1u);
  const std::vector<double>& eta = study->hardware_scaled[0].value_per_hardware;
  ASSERT_EQ(eta.size(), 3u);  // catalog order: a100_80gb_sxm, h100_sxm, h100_fast
  EXPECT_DOUBLE_EQ(eta[0], 0.3);
  EXPECT_DOUBLE_EQ(eta[1], 0.45);
  EXPECT_DOUBLE_EQ(eta[2], 0.45);
  EXPECT_DOUBLE_EQ(study->calibration->hardware_factor("compute", "h100_fast"), 1.5);
  const std::string resolved = resolved_study_yaml(*study);
  EXPECT_NE(resolved.find("{family: compute, hardware: h100_fast, factor: 1.5"), std::string::npos) << resolved;
  const auto back = load_study_text("t.resolved.yaml", resolved, "", d);
  ASSERT_TRUE(back) << d.format();
  EXPECT_EQ(back->hardware_scaled[0].value_per_hardware, eta);
  EXPECT_EQ(result_identity(*back), result_identity(*study));
}

TEST(StudyCalibration, NoneTurnsItOffAndTheResolvedStudyCarriesTheProfile) {
  Diagnostics d;
  const auto off = load_study_text("t.yaml", study_text("calibration: none\n") + "", kFixtureCatalog, d);
  ASSERT_TRUE(off) << d.format();
  EXPECT_FALSE(off->calibration);
  const auto on = load_study_text("t.yaml", study_text(kProfileInline), kFixtureCatalog, d);
  ASSERT_TRUE(on) << d.format();
  const std::string resolved = resolved_study_yaml(*on);
  EXPECT_NE(resolved.find("calibration:\n  profile: fixture\n"), std::string::npos);
  EXPECT_EQ(resolved.find("  eta: "), std::string::npos);  // left to the profile
  const auto back = load_study_text("t.resolved.yaml", resolved, "", d);
  ASSERT_TRUE(back) << d.format();
  EXPECT_TRUE(back->calibrated[4]);
  EXPECT_EQ(back->fixed_values, on->fixed_values);
  // The same file but for its first line, which names the file it came from.
  EXPECT_EQ(resolved_study_yaml(*back).substr(resolved_study_yaml(*back).find('\n')), resolved.substr(resolved.find('\n')));
}

TEST(StudyCalibration, AnUnknownProfileNameIsAnErrorWithTheValidNames) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", study_text("calibration: defualt\n"), kFixtureCatalog, d);
  EXPECT_FALSE(study);
  EXPECT_NE(d.format().find("t.yaml:5:14: error: unknown calibration profile 'defualt'; valid calibration profiles: none"),
            std::string::npos)
      << d.format();
}

}  // namespace
}  // namespace dsx

namespace dsx {
namespace {

TEST(CrossingInterval, MovesWithTheErrorsOfTheTwoCurves) {
  // a(x) = x carries no error; b(x) = 10 carries a speed error whose [p10, p90] is [-0.1, 0.1]. The
  // true b is 10 e^-e, so the crossing x = 10 e^-e has the 80 % interval [10 e^-0.1, 10 e^0.1] =
  // [9.05, 11.05]; log(a / b) is linear in log x, so interpolating between scan points is exact.
  std::vector<double> along, a, b;
  for (int i = 0; i <= 20; ++i) {
    along.push_back(std::pow(10.0, i / 10.0));
    a.push_back(along.back());
    b.push_back(10);
  }
  RegimeAccuracy exact, spread;
  spread.log_error_p10 = -0.1;
  spread.log_error_p90 = 0.1;
  const auto c = crossing_interval(along, a, b, 9, MetricError{&exact, Orientation::rate},
                                   MetricError{&spread, Orientation::rate}, true);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->low, 10 * std::exp(-0.1), 0.3);
  EXPECT_NEAR(c->high, 10 * std::exp(0.1), 0.3);
  EXPECT_DOUBLE_EQ(c->share_in_range, 1.0);
  // An error as large as the whole range pushes the crossing out of it for some draws.
  spread.log_error_p10 = -5;
  spread.log_error_p90 = 5;
  const auto wide = crossing_interval(along, a, b, 9, MetricError{&exact, Orientation::rate},
                                      MetricError{&spread, Orientation::rate}, true);
  ASSERT_TRUE(wide);
  EXPECT_TRUE(std::isinf(wide->low) && wide->low < 0);
  EXPECT_TRUE(std::isinf(wide->high) && wide->high > 0);
  EXPECT_LT(wide->share_in_range, 1.0);
}

}  // namespace
}  // namespace dsx

namespace dsx {
namespace {

const std::string kShippedCatalog = std::string(DSX_SOURCE_DIR) + "/studies/catalog";

// The validation set loads without a problem against the shipped catalog, and the shipped default
// profile is exactly what calibrating on it gives today (so neither can drift from the other).
TEST(ShippedMeasurements, LoadAndTheDefaultProfileIsTheirFit) {
  Diagnostics d;
  const auto set = load_measurements({kShippedCatalog + "/measurements"}, kShippedCatalog, d);
  ASSERT_TRUE(set) << d.format();
  const std::string shipped = read_text(kShippedCatalog + "/calibration/default.yaml");
  if (shipped.empty()) GTEST_SKIP() << "no default profile shipped";
  CalibrationOptions options;
  options.fitted_from = "studies/catalog/measurements";
  const Calibration c = calibrate(*set, options);
  const std::string body = shipped.substr(shipped.find("\nprofile:") + 1);
  EXPECT_EQ(profile_yaml(c.profile), body)
      << "studies/catalog/calibration/default.yaml is stale: run `build/dsx calibrate studies/catalog/measurements "
         "--out studies/catalog/calibration/default.yaml`";
}

}  // namespace
}  // namespace dsx

namespace dsx {
namespace {

const std::string kCatalog = std::string(DSX_SOURCE_DIR) + "/studies/catalog";

// A profile whose training regime is wide (a speed up to e^w above or below the prediction, w = 0.5
// unless given), on a study whose eta (1, with attention and the memory-bound work at their peaks
// too) puts MFU near its ceiling: the interval must end at the ceiling.
std::string bounded_study(const std::string& precision, const std::string& log_error = "0.5") {
  return "study: t\ntitle: T\nquestion: Q?\nsolver: training\n"
         "calibration:\n  profile: wide\n  parameters:\n"
         "    - {solver: training, name: eta, value: 0.5, spread: 0.01, prior: 0.5, identified: true, rows: 4}\n"
         "  regimes:\n    - {name: training_llm, rows: 9, sources: 4, log_error_p10: -" + log_error +
         ", log_error_p90: " + log_error + "}\n"
         "  intervals:\n"
         "    - {solver: training, metric: mfu, regime: training_llm, orientation: rate}\n"
         "    - {solver: training, metric: tflops_per_gpu, regime: training_llm, orientation: rate}\n"
         "    - {solver: training, metric: step_time_s, regime: training_llm, orientation: time}\n"
         "axes:\n  eta: [0.2, 1]\n"
         "fixed:\n  hardware: h100_sxm\n  model: llama3_8b\n  precision: " + precision +
         "\n  gpus: 8\n  tp: 1\n  global_batch: 64\n  zero_stage: 3\n  attention_eta: 1\n  memory_efficiency: 1\n"
         "derived:\n  - {name: mfu_percent, expr: \"100 * mfu\"}\n";
}

struct BoundedRun {
  ResultTable table;
  std::optional<MetricInterval> eval_mfu;  // what dsx eval shows for mfu at the second point
  double metric(std::size_t row, const std::string& name) const {
    const int c = table.metric_column(name);
    EXPECT_GE(c, 0) << name;
    return c < 0 ? std::nan("") : table.metric(row, static_cast<std::size_t>(c));
  }
};

BoundedRun run_bounded(const std::string& precision, const std::string& log_error = "0.5") {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", bounded_study(precision, log_error), kCatalog, d);
  EXPECT_TRUE(study) << d.format();
  if (!study) return {};
  const Grid grid(*study);
  SweepBlock block;
  evaluate_block(grid, *study->solver, 0, grid.size(), 1, block);
  ResultTable table = make_result_table(*study);
  append_block(grid, block, table);
  BoundedRun out{analyse_run(*study, table).table, std::nullopt};
  PointInputs in;
  grid.inputs(1, in);
  std::vector<double> metrics(study->solver->metrics().size());
  if (study->solver->evaluate(in, metrics).status == PointStatus::ok) {
    out.eval_mfu = solver_metric_interval(*study, in, metrics, TrainingSolver::mfu);
  }
  return out;
}

TEST(IntervalDomain, AFractionsIntervalEndsAtOne) {
  const BoundedRun r = run_bounded("bf16");
  ASSERT_EQ(r.table.rows(), 2u);
  for (std::size_t row : {0u, 1u}) ASSERT_EQ(r.table.status[row], PointStatus::ok) << row;
  // eta 0.2: far from the ceiling, the interval is the regime's, [mfu e^-0.5, mfu e^0.5].
  const double low_mfu = r.metric(0, "mfu");
  EXPECT_NEAR(r.metric(0, "mfu_p10"), low_mfu * std::exp(-0.5), 1e-12);
  EXPECT_NEAR(r.metric(0, "mfu_p90"), low_mfu * std::exp(0.5), 1e-12);
  // eta 1: mfu e^0.5 is above 1, and the interval ends at 1; its lower end is untouched.
  const double mfu = r.metric(1, "mfu");
  ASSERT_GT(mfu * std::exp(0.5), 1.0);
  ASSERT_LT(mfu, 1.0);
  EXPECT_DOUBLE_EQ(r.metric(1, "mfu_p90"), 1.0);
  EXPECT_NEAR(r.metric(1, "mfu_p10"), mfu * std::exp(-0.5), 1e-12);
  ASSERT_TRUE(r.eval_mfu);  // dsx eval's [p10, p90] is the same
  EXPECT_DOUBLE_EQ(r.eval_mfu->high, 1.0);
  EXPECT_NEAR(r.eval_mfu->low, mfu * std::exp(-0.5), 1e-12);
  // Achieved TFLOP/s ends at the bf16 dense peak of the H100 SXM (989 TFLOP/s in the catalog).
  EXPECT_LE(r.metric(1, "tflops_per_gpu_p90"), 989.5);
  EXPECT_GT(r.metric(1, "tflops_per_gpu_p90"), r.metric(1, "tflops_per_gpu"));
  // A time has no upper bound: its interval is the regime's.
  EXPECT_NEAR(r.metric(1, "step_time_s_p90"), r.metric(1, "step_time_s") * std::exp(0.5), 1e-9);
  // A derived metric reading mfu sees draws inside [0, 1]: 100 x mfu stays at most 100.
  EXPECT_LE(r.metric(1, "mfu_percent_p90"), 100.0);
  EXPECT_GT(r.metric(1, "mfu_percent_p90"), 100.0 * mfu);
}

TEST(IntervalDomain, AnFp8MfuIsAFractionOfTheBf16PeakAndEndsAtTheFp8Peak) {
  // A regime of e^0.8 either way: the LM head at the bf16 peak and the casts keep the fp8 run's MFU
  // below 2 / e^0.5.
  const BoundedRun r = run_bounded("fp8", "0.8");
  ASSERT_EQ(r.table.rows(), 2u);
  ASSERT_EQ(r.table.status[1], PointStatus::ok);
  // Against the bf16 peak an fp8 run can pass 1 (the solver's convention, so that fp8 and bf16
  // compare on one scale); it cannot pass fp8 peak / bf16 peak (1979 / 989.5 = 2 on the H100).
  const double mfu = r.metric(1, "mfu");
  ASSERT_GT(mfu, 1.0);
  ASSERT_GT(mfu * std::exp(0.8), 2.0);
  EXPECT_NEAR(r.metric(1, "mfu_p90"), 2.0, 0.01);
  ASSERT_TRUE(r.eval_mfu);
  EXPECT_DOUBLE_EQ(r.eval_mfu->high, r.metric(1, "mfu_p90"));
  EXPECT_LE(r.metric(1, "tflops_per_gpu_p90"), 1979.5);
}

// The domains the solvers declare hold: over every feasible point of every shipped study, each
// fraction lies in [0, its upper bound] and each non-negative metric is >= 0.
TEST(IntervalDomain, EveryShippedStudyKeepsItsMetricsInsideTheirDomains) {
  namespace fs = std::filesystem;
  std::size_t checked = 0;
  for (const auto& e : fs::directory_iterator(fs::path(DSX_SOURCE_DIR) / "studies")) {
    if (e.path().extension() != ".yaml") continue;
    Diagnostics d;
    const auto study = load_study_text(e.path().string(), read_text(e.path().string()), kCatalog, d);
    ASSERT_TRUE(study) << d.format();
    const Solver& solver = *study->solver;
    const Grid grid(*study);
    SweepBlock block;
    evaluate_block(grid, solver, 0, grid.size(), 1, block);
    const std::size_t M = solver.metrics().size();
    PointInputs in;
    for (std::size_t i = 0; i < grid.size(); ++i) {
      if (block.excluded[i] != 0 || block.results[i].status != PointStatus::ok) continue;
      grid.inputs(i, in);
      for (std::size_t m = 0; m < M; ++m) {
        const double v = block.metrics[i * M + m];
        if (!std::isfinite(v) || metric_domain(solver.metrics()[m]) == MetricDomain::real) continue;
        ++checked;
        EXPECT_GE(v, solver.metric_lower_bound(in, m)) << e.path().stem() << " point " << i << " " << solver.metrics()[m].name;
        EXPECT_LE(v, solver.metric_upper_bound(in, m) * (1 + 1e-12))
            << e.path().stem() << " point " << i << " " << solver.metrics()[m].name;
      }
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(IntervalDomain, MetricDomainsFollowTheSpecOrTheDimension) {
  EXPECT_EQ(metric_domain(MetricSpec{"t_s", Dimension::time, ""}), MetricDomain::non_negative);
  EXPECT_EQ(metric_domain(MetricSpec{"c_usd", Dimension::money, ""}), MetricDomain::real);
  EXPECT_EQ(metric_domain(MetricSpec{"x", Dimension::dimensionless, ""}), MetricDomain::real);
  EXPECT_EQ(metric_domain(MetricSpec{"f", Dimension::dimensionless, "", MetricDomain::fraction}), MetricDomain::fraction);
  // Every metric the shipped profile gives an interval and that is a share of a peak is declared so.
  const Solver* gemm = find_solver("gemm");
  const Solver* training = find_solver("training");
  ASSERT_TRUE(gemm && training);
  for (const Solver* s : {gemm, training}) {
    for (const MetricSpec& m : s->metrics()) {
      if (m.name == "peak_fraction" || m.name == "mfu" || m.name == "hfu") {
        EXPECT_EQ(m.domain, MetricDomain::fraction) << s->name() << "." << m.name;
      }
    }
  }
}

}  // namespace
}  // namespace dsx
