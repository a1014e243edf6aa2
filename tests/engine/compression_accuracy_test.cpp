// The compression solver's cited accuracy: a published row is reported only for a point whose
// method, weight precision, quantize, group size and sparsity are exactly the row's, and every other
// point says why it has none. The figures are Huang et al. 2024 (arXiv:2404.14047), LLaMA3-8B
// post-training quantization table (github.com/Macaronlin/LLaMA3-Quantization, images/result_ptq_1.png),
// typed here from the table, not from the catalog file.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "engine/compression_accuracy.hpp"
#include "engine/fusion.hpp"
#include "engine/solvers/compression.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using C = CompressionSolver;

double idx(Precision p) { return static_cast<double>(index_of(p)); }
double code(C::AccuracyFigure f) { return static_cast<double>(f); }

constexpr std::uint8_t kAwq = 3;  // kCompressionMethodNames
constexpr std::uint8_t kGptq = 2;

PublishedAccuracy row(std::uint8_t method, Precision weight, double group, AccuracyMetric metric, double baseline,
                      double compressed) {
  return {.setting = {.method = method, .weight_precision = weight, .group_size = group},
          .metric = metric,
          .baseline = baseline,
          .compressed = compressed};
}

class CompressionAccuracyTest : public ::testing::Test {
 protected:
  const CompressionSolver solver;
  const HardwareSpec h100 = published::h100_sxm();
  PreparedModel llama8b = [] {
    PreparedModel m = published::llama3(32, 4096, 32, 14336);
    using M = AccuracyMetric;
    // Table rows AWQ 4/16/128, AWQ 4/16/- and GPTQ 4/16/128; baseline LLaMA3 16/16: 6.1 and 68.6.
    m.published_accuracy = {
        row(kAwq, Precision::int4, 128, M::wikitext2_perplexity, 6.1, 6.6),
        row(kAwq, Precision::int4, 128, M::zero_shot_average_accuracy, 0.686, 0.682),
        row(kAwq, Precision::int4, 0, M::wikitext2_perplexity, 6.1, 7.1),
        row(kGptq, Precision::int4, 128, M::zero_shot_average_accuracy, 0.686, 0.673),
    };
    return m;
  }();

  PointInputs point(std::uint8_t method, Precision weight, double group) const {
    PointInputs in;
    in.hardware = &h100;
    in.model = &llama8b;
    set_defaults(solver, in);
    in.values[C::method] = method;
    in.values[C::weight_precision] = idx(weight);
    in.values[C::group_size] = group;
    return in;
  }
  std::vector<double> run(const PointInputs& in) const {
    std::vector<double> out(C::kMetricCount);
    EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    return out;
  }
};

TEST_F(CompressionAccuracyTest, AMatchingRowGivesThePublishedChange) {
  const auto out = run(point(kAwq, Precision::int4, 128));
  EXPECT_EQ(out[C::accuracy_figure], code(C::figure_found));
  // 68.2 % - 68.6 % = -0.4 points; WikiText-2 6.6 - 6.1 = +0.5.
  EXPECT_NEAR(out[C::accuracy_delta], -0.004, 1e-12);
  EXPECT_DOUBLE_EQ(out[C::compressed_accuracy], 0.682);
  EXPECT_NEAR(out[C::perplexity_delta], 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(out[C::compressed_perplexity], 6.6);
  // Memory and time do not depend on the method.
  const auto none = run(point(0, Precision::int4, 128));
  EXPECT_DOUBLE_EQ(none[C::compressed_latency_s], out[C::compressed_latency_s]);
  EXPECT_DOUBLE_EQ(none[C::compressed_weights_bytes], out[C::compressed_weights_bytes]);
}

TEST_F(CompressionAccuracyTest, PerChannelRowsMatchGroupSizeZeroOnly) {
  const auto per_channel = run(point(kAwq, Precision::int4, 0));
  EXPECT_EQ(per_channel[C::accuracy_figure], code(C::figure_found));
  EXPECT_NEAR(per_channel[C::perplexity_delta], 1.0, 1e-12);
  // The per-channel row states no accuracy: that metric stays empty while perplexity is cited.
  EXPECT_TRUE(std::isnan(per_channel[C::accuracy_delta]));
}

TEST_F(CompressionAccuracyTest, NoInterpolationToASettingWithoutARow) {
  // Group size 64 lies between 0 and 128; int8 has no AWQ row here; GPTQ has no perplexity row.
  for (const auto& [method, weight, group] : {std::tuple{kAwq, Precision::int4, 64.0}, {kAwq, Precision::int8, 128.0}}) {
    const auto out = run(point(method, weight, group));
    EXPECT_EQ(out[C::accuracy_figure], code(C::setting_without_row));
    EXPECT_TRUE(std::isnan(out[C::accuracy_delta]));
    EXPECT_TRUE(std::isnan(out[C::perplexity_delta]));
  }
  const auto gptq = run(point(kGptq, Precision::int4, 128));
  EXPECT_NEAR(gptq[C::accuracy_delta], -0.013, 1e-12);
  EXPECT_TRUE(std::isnan(gptq[C::perplexity_delta]));
  // Weights and activations at int4 is another setting than weight-only int4 (on a part given int4
  // compute, so that the point is feasible).
  HardwareSpec int4_part = h100;
  int4_part.peak_flops_per_s[index_of(Precision::int4)] = 1979e12;
  PointInputs w4a4 = point(kAwq, Precision::int4, 128);
  w4a4.hardware = &int4_part;
  w4a4.values[C::quantize] = C::weights_activations;
  EXPECT_EQ(run(w4a4)[C::accuracy_figure], code(C::setting_without_row));
  // So is the same format pruned.
  PointInputs pruned = point(kAwq, Precision::int4, 128);
  pruned.values[C::sparsity] = 0.5;
  EXPECT_EQ(run(pruned)[C::accuracy_figure], code(C::setting_without_row));
}

TEST_F(CompressionAccuracyTest, EveryPointWithoutAFigureSaysWhy) {
  EXPECT_EQ(run(point(0, Precision::int4, 128))[C::accuracy_figure], code(C::no_method));
  PreparedModel bare = published::llama3(32, 4096, 32, 14336);
  PointInputs other = point(kAwq, Precision::int4, 128);
  other.model = &bare;
  EXPECT_EQ(run(other)[C::accuracy_figure], code(C::model_without_rows));
  PointInputs kv = point(kAwq, Precision::int4, 128);
  kv.values[C::kv_cache] = 1;  // fp8: the published figures keep a 16-bit cache
  EXPECT_EQ(run(kv)[C::accuracy_figure], code(C::outside_published));
  EXPECT_TRUE(std::isnan(run(kv)[C::accuracy_delta]));
  PointInputs fp8 = point(kAwq, Precision::int4, 128);
  fp8.values[C::baseline_precision] = idx(Precision::fp8);
  EXPECT_EQ(run(fp8)[C::accuracy_figure], code(C::outside_published));
  PointInputs bf16 = point(kAwq, Precision::int4, 128);
  bf16.values[C::baseline_precision] = idx(Precision::bf16);
  EXPECT_NEAR(run(bf16)[C::accuracy_delta], -0.004, 1e-12);
}

TEST_F(CompressionAccuracyTest, AnUncompressedPointChangesNothing) {
  const auto out = run(point(0, Precision::fp16, 128));
  EXPECT_EQ(out[C::accuracy_figure], code(C::figure_found));
  EXPECT_EQ(out[C::accuracy_delta], 0.0);
  EXPECT_EQ(out[C::perplexity_delta], 0.0);
  EXPECT_DOUBLE_EQ(out[C::compressed_accuracy], 0.686);
  EXPECT_DOUBLE_EQ(out[C::compressed_perplexity], 6.1);
}

}  // namespace
}  // namespace dsx
