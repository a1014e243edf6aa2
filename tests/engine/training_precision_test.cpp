// Training precision (engine/solvers/training.hpp): fp8 runs the linear layers' GEMMs at the fp8 peak
// and attention at the bf16 peak (NVIDIA Transformer Engine), with bf16 weights and the fp32 master;
// fp32 and tf32 keep 4-byte tensors and no master; MFU for fp8 is against the bf16 peak.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

constexpr double kFp32 = 0, kTf32 = 1, kBf16 = 2, kFp16 = 3, kFp8 = 4;  // the precision choices

class TrainingPrecisionTest : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  // studies/catalog/hardware.yaml h100_sxm, with its fp32 (67) and tf32 (494 TFLOP/s) dense peaks.
  const HardwareSpec hw = [] {
    HardwareSpec h = published::h100_sxm();
    h.peak_flops_per_s[index_of(Precision::fp32)] = 67e12;
    h.peak_flops_per_s[index_of(Precision::tf32)] = 494e12;
    return h;
  }();
  const PreparedModel model = prepare_model(
      build_architecture("transformer", {published::kLlama3_70b.begin(), published::kLlama3_70b.end()}));

  PointInputs point(double precision, const HardwareSpec& h) const {
    PointInputs in;
    in.hardware = &h;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::tp] = 8;
    in.values[P::pp] = 4;
    in.values[P::precision] = precision;
    return in;
  }
  std::vector<double> run(double precision) const {
    std::vector<double> out(TrainingSolver::kMetricCount);
    EXPECT_EQ(solver.evaluate(point(precision, hw), out).status, PointStatus::ok);
    return out;
  }
};

TEST_F(TrainingPrecisionTest, DefaultIsBf16) {
  EXPECT_EQ(solver.params()[P::precision].choices[static_cast<std::size_t>(solver.params()[P::precision].default_value)],
            "bf16");
  EXPECT_LE(solver.params().size(), kMaxParams);
}

// Llama 3 70B, selective recomputation: hardware FLOPs per token 6 N + 16 L h s, of which 16 L h s
// is attention (causal: a fused kernel computes half). fp8 halves the time of the linear layers'
// part of 6 N (1,979 vs 989 TFLOP/s) and keeps attention's and the LM head's (6 V d, V = 128,256, d =
// 8,192: no Transformer Engine module). Its casts add memory-bound work: 4 bytes per element of the
// GEMMs' inputs and output gradients, over the 2,048 tokens each GPU takes per step, and 4 bytes per
// element of the GPU's share of the linear weights, 80 layers x (2 d^2 + 2 d x 1,024 + 3 d x 28,672)
// = 68.45 B over tp 8 x pp 4, cast again in each of the 32 micro-batches.
TEST_F(TrainingPrecisionTest, Fp8RunsTheLinearLayersAtTheFp8Peak) {
  const std::vector<double> bf16 = run(kBf16), fp8 = run(kFp8);
  const double n = bf16[M::active_parameters];
  const double head = 128256.0 * 8192;
  const double linear = 6 * n, attention = 16.0 * 80 * 8192 * 2048 / 2;
  EXPECT_NEAR((fp8[M::compute_s] - fp8[M::memory_bound_s]) / (bf16[M::compute_s] - bf16[M::memory_bound_s]),
              ((linear - 6 * head) * 989 / 1979 + 6 * head + attention) / (linear + attention), 1e-12);
  const ServingShape& shape = model.serving_shape;
  EXPECT_DOUBLE_EQ(shape.lm_head_weight_elements, head);
  const double d = 8192, weights = 80 * (2 * d * d + 2 * d * 1024 + 3 * d * 28672);
  EXPECT_DOUBLE_EQ(shape.linear_weight_elements, weights);
  EXPECT_NEAR(weights, 68.45e9, 0.01e9);
  const double microbatches = 1024.0 / (1024 / (8 * 4));
  EXPECT_NEAR(fp8[M::memory_bound_s] - bf16[M::memory_bound_s],
              (4 * (shape.linear_input_elements_per_token + shape.linear_output_elements_per_token) * 2048 +
               4 * weights / (8 * 4) * microbatches) /
                  (3.35e12 * 0.8),
              1e-12);
  // Same bytes: bf16 weights and gradients, fp32 master, bf16 activations.
  EXPECT_DOUBLE_EQ(fp8[M::memory_per_gpu_bytes], bf16[M::memory_per_gpu_bytes]);
  EXPECT_DOUBLE_EQ(fp8[M::checkpoint_bytes], bf16[M::checkpoint_bytes]);
  // MFU against the bf16 peak: the fp8 run's model TFLOP/s over 989.
  EXPECT_NEAR(fp8[M::tflops_per_gpu], fp8[M::mfu] * 989, 1e-9);
  EXPECT_GT(fp8[M::mfu], bf16[M::mfu]);
  EXPECT_NEAR(fp8[M::mfu] / bf16[M::mfu], bf16[M::step_time_s] / fp8[M::step_time_s], 1e-12);
  EXPECT_GT(fp8[M::mfu], 0.5);  // above eta: the fp8 GEMMs outrun the bf16 peak MFU refers to
}

// On a chip whose fp8 GEMMs reach 0.882 of the fraction of peak its bf16 ones reach (hardware.yaml
// h100_sxm, from the MAMF table of stas00/ml-engineering: (1402.6 / 1979) / (794.5 / 989)), the linear
// layers' GEMMs run at 1,979 x 0.882 = 1,745.5 TFLOP/s; attention and the LM head keep the bf16 peak,
// the casts' memory traffic and the MFU's 989 TFLOP/s reference do not change.
TEST_F(TrainingPrecisionTest, Fp8LinearGemmsReachTheChipsFp8RelativeEfficiency) {
  HardwareSpec measured = hw;
  measured.fp8_gemm_relative_efficiency = (1402.6 / 1979) / (794.5 / 989);
  std::vector<double> fp8(TrainingSolver::kMetricCount);
  ASSERT_EQ(solver.evaluate(point(kFp8, measured), fp8).status, PointStatus::ok);
  const std::vector<double> plain = run(kFp8), bf16 = run(kBf16);
  const double n = bf16[M::active_parameters];
  const double head = 128256.0 * 8192;
  const double linear = 6 * n, attention = 16.0 * 80 * 8192 * 2048 / 2;
  const double ratio = measured.fp8_gemm_relative_efficiency;
  EXPECT_NEAR((fp8[M::compute_s] - fp8[M::memory_bound_s]) / (bf16[M::compute_s] - bf16[M::memory_bound_s]),
              ((linear - 6 * head) * 989 / (1979 * ratio) + 6 * head + attention) / (linear + attention), 1e-12);
  EXPECT_DOUBLE_EQ(fp8[M::memory_bound_s], plain[M::memory_bound_s]);
  EXPECT_GT(fp8[M::step_time_s], plain[M::step_time_s]);
  EXPECT_NEAR(fp8[M::tflops_per_gpu], fp8[M::mfu] * 989, 1e-9);
  // bf16 runs on the same chip do not change.
  std::vector<double> bf16_measured(TrainingSolver::kMetricCount);
  ASSERT_EQ(solver.evaluate(point(kBf16, measured), bf16_measured).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(bf16_measured[M::step_time_s], bf16[M::step_time_s]);
}

// Full recomputation repeats the forward: the LM head's 2 V d again at the bf16 peak, and the
// weights cast once more per micro-batch.
TEST_F(TrainingPrecisionTest, Fp8FullRecomputationRecastsTheWeights) {
  PointInputs in = point(kFp8, hw);
  in.values[P::recompute] = 2;
  std::vector<double> fp8(TrainingSolver::kMetricCount), bf16(TrainingSolver::kMetricCount);
  ASSERT_EQ(solver.evaluate(in, fp8).status, PointStatus::ok);
  in.values[P::precision] = kBf16;
  ASSERT_EQ(solver.evaluate(in, bf16).status, PointStatus::ok);
  const double n = bf16[M::active_parameters], head = 128256.0 * 8192;
  const double linear = 8 * n, attention = 16.0 * 80 * 8192 * 2048 / 2;
  EXPECT_NEAR((fp8[M::compute_s] - fp8[M::memory_bound_s]) / (bf16[M::compute_s] - bf16[M::memory_bound_s]),
              ((linear - 8 * head) * 989 / 1979 + 8 * head + attention) / (linear + attention), 1e-12);
  const ServingShape& shape = model.serving_shape;
  EXPECT_NEAR(fp8[M::memory_bound_s] - bf16[M::memory_bound_s],
              (4 * (2 * shape.linear_input_elements_per_token + shape.linear_output_elements_per_token) * 2048 +
               2 * 4 * shape.linear_weight_elements / (8 * 4) * 32) /
                  (3.35e12 * 0.8),
              1e-12);
}

// fp8_weight_cast: cached casts the GPU's linear weights (68.45 B / (tp 8 x pp 4), 4 B per element)
// once per step instead of in each of the 32 micro-batches, and the recomputed forward of full
// recomputation reuses the cached copy: 31 (selective) or 63 (full) casts fewer per step. bf16 runs
// do not cast and do not change.
TEST_F(TrainingPrecisionTest, CachedFp8WeightsAreCastOncePerStep) {
  const double cast_s = 4 * model.serving_shape.linear_weight_elements / (8 * 4) / (3.35e12 * 0.8);
  for (const double recompute : {1.0, 2.0}) {
    PointInputs in = point(kFp8, hw);
    in.values[P::recompute] = recompute;
    std::vector<double> every(TrainingSolver::kMetricCount), cached(TrainingSolver::kMetricCount);
    ASSERT_EQ(solver.evaluate(in, every).status, PointStatus::ok);
    in.values[P::fp8_weight_cast] = 1;
    ASSERT_EQ(solver.evaluate(in, cached).status, PointStatus::ok);
    const double casts_saved = recompute == 2.0 ? 63 : 31;
    EXPECT_NEAR(every[M::memory_bound_s] - cached[M::memory_bound_s], casts_saved * cast_s, 1e-12) << recompute;
    EXPECT_NEAR(every[M::compute_s] - cached[M::compute_s], casts_saved * cast_s, 1e-12) << recompute;
    EXPECT_LT(cached[M::step_time_s], every[M::step_time_s]);
    in.values[P::precision] = kBf16;
    std::vector<double> bf16_every(TrainingSolver::kMetricCount), bf16_cached(TrainingSolver::kMetricCount);
    ASSERT_EQ(solver.evaluate(in, bf16_cached).status, PointStatus::ok);
    in.values[P::fp8_weight_cast] = 0;
    ASSERT_EQ(solver.evaluate(in, bf16_every).status, PointStatus::ok);
    EXPECT_DOUBLE_EQ(bf16_cached[M::step_time_s], bf16_every[M::step_time_s]);
  }
  EXPECT_EQ(solver.params()[P::fp8_weight_cast].choices[0], "per_microbatch");
  EXPECT_EQ(solver.params()[P::fp8_weight_cast].default_value, 0);
}

TEST_F(TrainingPrecisionTest, Fp16RunsAtItsOwnPeak) {
  const std::vector<double> bf16 = run(kBf16), fp16 = run(kFp16);
  EXPECT_DOUBLE_EQ(fp16[M::step_time_s], bf16[M::step_time_s]);  // H100: 989 TFLOP/s both
  EXPECT_DOUBLE_EQ(fp16[M::memory_per_gpu_bytes], bf16[M::memory_per_gpu_bytes]);
}

// fp32 and tf32: 4-byte weights, gradients and activations, no master copy (Adam: 4 + 4 + 8 B), and
// the compute at the fp32 (67) or tf32 (494 TFLOP/s) peak.
TEST_F(TrainingPrecisionTest, Fp32AndTf32KeepFourByteTensorsAtTheirPeaks) {
  const std::vector<double> bf16 = run(kBf16), tf32 = run(kTf32), fp32 = run(kFp32);
  EXPECT_NEAR(tf32[M::weights_bytes], 2 * bf16[M::weights_bytes], 1e-3);
  EXPECT_NEAR(tf32[M::gradients_bytes], 2 * bf16[M::gradients_bytes], 1e-3);
  EXPECT_NEAR(tf32[M::optimizer_bytes], bf16[M::optimizer_bytes] * 8 / 12, 1e-3);
  EXPECT_NEAR(tf32[M::activations_bytes], 2 * bf16[M::activations_bytes], 1e-3);
  // The FLOPs at each peak; the memory-bound work moves 4-byte elements instead of 2.
  const auto flops_s = [](const std::vector<double>& out) { return out[M::compute_s] - out[M::memory_bound_s]; };
  EXPECT_NEAR(flops_s(tf32), flops_s(bf16) * 989 / 494, 1e-9 * tf32[M::compute_s]);
  EXPECT_NEAR(flops_s(fp32), flops_s(bf16) * 989 / 67, 1e-9 * fp32[M::compute_s]);
  EXPECT_NEAR(tf32[M::memory_bound_s], 2 * bf16[M::memory_bound_s], 1e-9 * tf32[M::memory_bound_s]);
  EXPECT_DOUBLE_EQ(fp32[M::memory_per_gpu_bytes], tf32[M::memory_per_gpu_bytes]);
  // Checkpoint: 4 B weights + 8 B Adam moments = 12 B per parameter.
  EXPECT_NEAR(fp32[M::checkpoint_bytes] / bf16[M::checkpoint_bytes], 12.0 / 14.0, 1e-12);
  // MFU against each precision's own peak: the same achieved fraction of it.
  EXPECT_NEAR(fp32[M::tflops_per_gpu], fp32[M::mfu] * 67, 1e-9);
}

// A100-like hardware (studies/catalog/hardware.yaml a100_80gb_sxm has no fp8 peak): fp8 is infeasible.
TEST_F(TrainingPrecisionTest, PrecisionTheHardwareLacksIsInfeasible) {
  HardwareSpec no_fp8 = hw;
  no_fp8.peak_flops_per_s[index_of(Precision::fp8)] = 0;
  std::vector<double> out(TrainingSolver::kMetricCount);
  const PointResult r = solver.evaluate(point(kFp8, no_fp8), out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::precision_unsupported);
  EXPECT_EQ(solver.reasons()[r.reason], kPrecisionUnsupported);
  HardwareSpec no_tf32 = hw;
  no_tf32.peak_flops_per_s[index_of(Precision::tf32)] = 0;
  EXPECT_EQ(solver.evaluate(point(kTf32, no_tf32), out).reason, TrainingSolver::precision_unsupported);
}

}  // namespace
}  // namespace dsx
